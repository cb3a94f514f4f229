//! The check path must not allocate: a counting global allocator watches a
//! real workload (corpus files × generated URLs, both URL modes, and a policy
//! loaded from a memory-mapped file).

use robocc_testkit::paths::root;

use robocc_compiler::{compile, CompileOptions};
use robocc_engine::{ChannelId, Dialect, Policy, UrlMode};
use robocc_testkit::heap::{allocations_during, Counting};
use robocc_testkit::urlgen;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn checks_do_not_allocate() {
    let files = [
        "texting_robots__twitter.robots.txt",
        "texting_robots__quora.robots.txt",
        "ropensci-robotstxt__robots_wikipedia.txt",
        "protego__www.uefa.com.txt",
        // Lowered to a register automaton (its walk reads emits).
        "texting_robots__reddit.robots.txt",
    ];
    let mut total_checks = 0usize;
    let mut registers = 0usize;
    for mode in [UrlMode::Google, UrlMode::Rfc] {
        for name in files {
            let body = std::fs::read(root().join("corpus/real").join(name)).unwrap();
            let opts = CompileOptions {
                url_mode: mode,
                ..CompileOptions::default()
            };
            let compiled = compile(&body, "Googlebot", &opts).unwrap();
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).unwrap();
            registers += policy.sizes().register_automata;
            let urls = urlgen::workload(7, compiled.rule_set.patterns(), 2000);
            let refs: Vec<&[u8]> = urls.iter().map(Vec::as_slice).collect();
            let mut batch = vec![policy.check(b"/"); refs.len()];
            let mut disallowed = 0usize;
            let n = allocations_during(|| {
                for url in &urls {
                    let v = policy.check(url);
                    disallowed += usize::from(!v.allowed);
                    disallowed += usize::from(policy.check_traced(url).bytes_read == usize::MAX);
                    let _ = policy.check_channel(url, ChannelId::CRAWL);
                }
                policy.check_batch(&refs, &mut batch);
            });
            assert!(refs.iter().zip(&batch).all(|(u, v)| policy.check(u) == *v));
            assert_eq!(
                n,
                0,
                "{name} ({mode:?}): {n} allocations during {} checks",
                urls.len()
            );
            total_checks += urls.len();
            // The workload exercises both verdicts.
            assert!(
                disallowed > 0 && disallowed < urls.len(),
                "{name}: {disallowed} disallowed"
            );
        }
    }
    assert_eq!(total_checks, 20_000);
    assert!(registers >= 2, "no register automaton among the workloads");
}

/// The draft's decoding (draft1996, robots2) and robots2's visit advice.
#[test]
fn other_dialects_and_visit_advice_do_not_allocate() {
    let frommitz = root().join("corpus/conformance/robots2.json");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(frommitz).unwrap()).unwrap();
    let site = doc["cases"][0]["robots"]
        .as_str()
        .unwrap()
        .as_bytes()
        .to_vec();
    let reddit =
        std::fs::read(root().join("corpus/real/texting_robots__reddit.robots.txt")).unwrap();
    for (dialect, body, agent) in [
        (Dialect::Draft1996, &reddit, "Googlebot"),
        (Dialect::Robots2, &site, "alfred"),
        (Dialect::Robots2, &site, "vacuumweb"),
    ] {
        let opts = CompileOptions {
            dialect,
            ..CompileOptions::default()
        };
        let compiled = compile(body, agent, &opts).unwrap();
        let bytes = compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let mut urls = urlgen::workload(5, compiled.rule_set.patterns(), 1000);
        urls.push(b"/a%2fb%7e%25%zz#frag".to_vec());
        let mut seen = [0usize; 2];
        let n = allocations_during(|| {
            for url in &urls {
                seen[usize::from(policy.check(url).allowed)] += 1;
            }
            for minute in (0..1440).step_by(7) {
                let advice = policy.visit_at_minute(minute);
                seen[usize::from(advice.allowed_now)] += usize::from(advice.rate.is_some());
            }
        });
        assert_eq!(n, 0, "{dialect:?} {agent}: {n} allocations");
        assert!(seen[0] > 0 && seen[1] > 0, "{dialect:?} {agent}: {seen:?}");
    }
}

#[test]
fn mmap_checks_do_not_allocate() {
    let body = std::fs::read(root().join("corpus/real/texting_robots__quora.robots.txt")).unwrap();
    let compiled = compile(&body, "Googlebot", &CompileOptions::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("robocc-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("quora.policy");
    std::fs::write(&path, &compiled.to_bytes()[..]).unwrap();
    let file = robocc_engine::PolicyFile::open(&path).unwrap();
    let policy = file.policy();
    let urls = urlgen::workload(11, compiled.rule_set.patterns(), 2000);
    let mut allowed = 0usize;
    let n = allocations_during(|| {
        for url in &urls {
            allowed += usize::from(policy.check(url).allowed);
        }
    });
    assert_eq!(n, 0);
    assert!(allowed > 0 && allowed < urls.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn store_lookups_do_not_allocate() {
    use robocc_store::{HostInput, StoreBuilder};
    let names = [
        "texting_robots__twitter.robots.txt",
        "protego__www.uefa.com.txt",
        "texting_robots__quora.robots.txt",
    ];
    let mut inputs: Vec<HostInput> = names
        .iter()
        .enumerate()
        .map(|(i, n)| HostInput {
            host: format!("host{i}.example"),
            status: 200,
            body: Some(std::fs::read(root().join("corpus/real").join(n)).unwrap()),
            ..HostInput::default()
        })
        .collect();
    inputs.push(HostInput {
        host: "[2001:db8::1]".into(),
        ..inputs[0].clone()
    });
    let (bytes, _) = StoreBuilder::new("Googlebot")
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    let store = robocc_engine::Store::from_slice(&bytes).unwrap();
    let urls = host_urls(4);
    // Policies are validated lazily: the first checks validate them, which
    // must not allocate either. (The validator's node-start bitset lives on
    // the stack for up to 32 KiB of compact program: these three files; a
    // larger program allocates it once, at its first use.)
    let mut known = 0usize;
    let n = allocations_during(|| {
        for url in &urls {
            known += usize::from(store.check(url).unwrap().is_some());
        }
    });
    assert_eq!(n, 0);
    assert!(known > 2000 && known < 3000, "{known}");
    // The batch API: runs of one host (the URLs sorted by host) and mixed.
    let mut sorted: Vec<&[u8]> = urls.iter().map(Vec::as_slice).collect();
    sorted.sort_by_key(|u| u.get(8..14).map(<[u8]>::to_vec));
    for refs in [urls.iter().map(Vec::as_slice).collect::<Vec<_>>(), sorted] {
        let mut out = vec![None; refs.len()];
        let n = allocations_during(|| store.check_batch(&refs, &mut out).unwrap());
        assert_eq!(n, 0);
        for (u, v) in refs.iter().zip(&out) {
            assert_eq!(*v, store.check(u).unwrap());
        }
    }
    // Hosts a lookup normalises: an IPv6 literal (canonicalised in the
    // key's own buffer), a trailing dot, a port's leading zeros.
    let odd: [&[u8]; 3] = [
        b"http://[2001:DB8:0:0::1]/a",
        b"https://host0.example./a",
        b"https://host1.example:0443/a",
    ];
    let mut found = 0;
    let n = allocations_during(|| {
        for url in odd {
            found += usize::from(store.check(url).unwrap().is_some());
        }
    });
    assert_eq!((n, found), (0, 3));
}

#[test]
fn store_set_lookups_do_not_allocate_once_shards_are_open() {
    use robocc_store::{HostInput, StoreBuilder};
    let names = [
        "texting_robots__twitter.robots.txt",
        "protego__www.uefa.com.txt",
        "texting_robots__quora.robots.txt",
    ];
    let inputs: Vec<HostInput> = (0..12)
        .map(|i| HostInput {
            host: format!("host{i}.example"),
            status: 200,
            body: Some(std::fs::read(root().join("corpus/real").join(names[i % 3])).unwrap()),
            ..HostInput::default()
        })
        .collect();
    let (built, _) = StoreBuilder::new("Googlebot")
        .build_set(inputs.into_iter().map(Ok), 3)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("robocc-alloc-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, shard) in built.shards.iter().enumerate() {
        std::fs::write(dir.join(robocc_engine::shard_file_name(i)), &shard[..]).unwrap();
    }
    std::fs::write(dir.join(robocc_engine::STORE_SET_INDEX), &built.index).unwrap();
    let set = robocc_engine::StoreSet::open(&dir).unwrap();
    // Opening a shard maps it and allocates its per-policy flags, once.
    for i in 0..set.shard_count() {
        set.shard(i).unwrap();
    }
    let urls = host_urls(14);
    let mut known = 0usize;
    let refs: Vec<&[u8]> = urls.iter().map(Vec::as_slice).collect();
    let mut batch = vec![None; urls.len()];
    let n = allocations_during(|| {
        for url in &urls {
            known += usize::from(set.check(url).unwrap().is_some());
            known += usize::from(set.host(url).unwrap().is_some());
        }
        set.check_batch(&refs, &mut batch).unwrap();
    });
    assert_eq!(n, 0);
    assert!(known > 4000 && known < 6000, "{known}");
    assert_eq!(batch.iter().filter(|v| v.is_some()).count() * 2, known);
    std::fs::remove_dir_all(&dir).ok();
}

/// 3,000 URLs on hosts `HOST0.example` … (`hosts` of them, upper case: the
/// store compares hosts case-insensitively), paths from a small workload.
fn host_urls(hosts: usize) -> Vec<Vec<u8>> {
    let paths = urlgen::workload(3, [&b"/a"[..], b"/*?q=", b"/x$"], 3000);
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let p = String::from_utf8_lossy(p);
            let p = p.strip_prefix("https://example.com").unwrap_or(&p);
            format!("https://HOST{}.example{p}", i % hosts).into_bytes()
        })
        .collect()
}

#[test]
fn acap_usage_checks_do_not_allocate() {
    let body = std::fs::read(root().join("corpus/examples/acap-publisher.txt")).unwrap();
    let mut checked = 0usize;
    for (agent, purposes) in [("newsbot", vec!["news".to_string()]), ("other", vec![])] {
        let opts = CompileOptions {
            dialect: Dialect::Acap,
            purposes,
            ..CompileOptions::default()
        };
        let compiled = compile(&body, agent, &opts).unwrap();
        let bytes = compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let urls = urlgen::workload(3, compiled.rule_set.patterns(), 1000);
        let mut seen = [0usize; 2];
        let n = allocations_during(|| {
            for url in &urls {
                for &u in robocc_engine::Usage::ACAP {
                    seen[usize::from(policy.check_usage(url, u).allowed)] += 1;
                }
                seen[1] += policy.usages(url).len();
            }
        });
        assert_eq!(n, 0, "acap {agent}: {n} allocations");
        assert!(seen[0] > 0 && seen[1] > 0, "acap {agent}: {seen:?}");
        checked += urls.len();
    }
    // A policy of another dialect answers usages too, without allocating.
    let twitter =
        std::fs::read(root().join("corpus/real/texting_robots__twitter.robots.txt")).unwrap();
    let compiled = compile(&twitter, "Googlebot", &CompileOptions::default()).unwrap();
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let urls = urlgen::workload(4, compiled.rule_set.patterns(), 500);
    let n = allocations_during(|| {
        for url in &urls {
            assert_eq!(
                policy.check_usage(url, robocc_engine::Usage::Crawl),
                policy.check(url)
            );
            assert!(policy.usages(url).contains(robocc_engine::Usage::Index));
        }
    });
    assert_eq!(n, 0);
    assert!(checked > 1000);
}

#[test]
fn preference_checks_do_not_allocate() {
    // The attachment draft's example, a Content-Signal and a training token.
    let body = b"Content-Signal: ai-input=no\nUser-Agent: *\nAllow: /\nDisallow: /never/\n\
        Content-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\
        Content-Signal: search=yes\nUser-agent: Google-Extended\nDisallow: /x/\n";
    let opts = CompileOptions {
        training_agents: vec!["Google-Extended".to_string()],
        ..CompileOptions::default()
    };
    let compiled = compile(body, "foo", &opts).unwrap();
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    assert_eq!(policy.channels().count(), 4);
    let urls: Vec<&[u8]> = vec![
        b"/test",
        b"/never/test",
        b"/ai-ok/test",
        b"/x/1",
        b"https://a.example/ai-ok/",
    ];
    let mut states = [0usize; 3];
    let mut said = 0usize;
    let n = allocations_during(|| {
        for url in &urls {
            for &u in robocc_engine::Usage::ALL {
                match policy.preference(url, u) {
                    Some(v) => states[usize::from(v.allowed)] += 1,
                    None => states[2] += 1,
                }
                let _ = policy.check_usage(url, u);
                // What a statement says (explain's listing, a caller's own).
                for id in policy.rule_ids() {
                    said += usize::from(policy.signal_says(id, u).is_some());
                }
            }
            let s = policy.usage_states(url);
            states[2] += s.unknown().len();
            let _ = policy.usages(url);
        }
    });
    assert_eq!(n, 0, "{n} allocations");
    assert!(states.iter().all(|&k| k > 0), "{states:?}");
    // Five statements (two Content-Signal, two Content-Usage, the token's
    // Disallow), each on one channel, asked once per URL.
    assert_eq!(said, 5 * urls.len());
}
