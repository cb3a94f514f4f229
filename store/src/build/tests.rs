//! The build's unit tests: statuses, redirects, duplicates, shards, failures,
//! base stores and long bodies.

use super::compile::compile_body;
use super::*;
use crate::test_support::TempDir;
use crate::{hex, host_key, redirect_dependencies};

/// A store of `inputs` for Googlebot, everything else by default.
fn build_default(inputs: &[HostInput]) -> (robocc_engine::AlignedBytes, StoreReport) {
    StoreBuilder::new("Googlebot")
        .build(inputs.iter().cloned().map(Ok))
        .unwrap()
}

fn input(host: &str, status: u16, body: Option<&str>, location: Option<&str>) -> HostInput {
    HostInput {
        host: host.to_string(),
        status,
        body: body.map(|b| b.as_bytes().to_vec()),
        location: location.map(str::to_string),
        ..HostInput::default()
    }
}

#[test]
fn statuses_and_redirects() {
    let blocked = "User-agent: *\nDisallow: /private\n";
    let mut inputs = vec![
        input("a.com", 200, Some(blocked), None),
        input("B.com", 200, Some(blocked), None),
        input("gone.com", 404, None, None),
        input("down.com", 503, None, None),
        input("dead.com", 0, None, None),
        input("moved.com", 301, None, Some("https://a.com/robots.txt")),
        input(
            "nowhere.com",
            302,
            None,
            Some("https://unknown.com/robots.txt"),
        ),
        input("broken.com", 302, None, None),
        input("odd.com", 102, None, None),
        input(
            "port.com:8080",
            200,
            Some("User-agent: *\nDisallow: /\n"),
            None,
        ),
    ];
    // A lone redirect to itself (the capture it leads to is not in
    // the input), a redirect into one, and a redirect to another
    // document than a robots.txt: unreachable, as a redirect to a host
    // not in the input. A query does not make another document.
    inputs.push(input(
        "self.com",
        301,
        None,
        Some("https://self.com/robots.txt"),
    ));
    inputs.push(input(
        "via.com",
        301,
        None,
        Some("http://self.com/robots.txt"),
    ));
    inputs.push(input(
        "page.com",
        301,
        None,
        Some("https://a.com/home.html"),
    ));
    inputs.push(input(
        "query.com",
        301,
        None,
        Some("https://a.com/robots.txt?l=en"),
    ));
    // A chain of 6 redirects ends unavailable (allow all).
    for i in 0..6 {
        inputs.push(input(
            &format!("r{i}.com"),
            301,
            None,
            Some(&format!("http://r{}.com/robots.txt", i + 1)),
        ));
    }
    inputs.push(input("r6.com", 200, Some(blocked), None));
    let (bytes, report) = build_default(&inputs);
    let store = Store::from_slice(&bytes).unwrap();
    store.validate_all().unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://a.com/private"), Some(false));
    assert_eq!(allowed("https://b.com/private"), Some(false));
    assert_eq!(allowed("https://A.COM/public"), Some(true));
    assert_eq!(allowed("https://gone.com/private"), Some(true));
    assert_eq!(allowed("https://down.com/x"), Some(false));
    assert_eq!(allowed("https://dead.com/x"), Some(false));
    assert_eq!(allowed("https://moved.com/private"), Some(false));
    assert_eq!(allowed("https://moved.com/public"), Some(true));
    assert_eq!(allowed("https://nowhere.com/x"), Some(false));
    assert_eq!(allowed("https://broken.com/x"), Some(false));
    assert_eq!(allowed("https://odd.com/x"), Some(false));
    assert_eq!(allowed("http://port.com:8080/x"), Some(false));
    assert_eq!(allowed("http://port.com/x"), None);
    assert_eq!(
        allowed("https://r1.com/private"),
        Some(false),
        "5 hops are followed"
    );
    assert_eq!(
        allowed("https://r0.com/private"),
        Some(true),
        "6 hops: unavailable"
    );
    assert_eq!(allowed("https://missing.com/"), None);
    for lost in ["self.com", "via.com", "page.com"] {
        let url = format!("https://{lost}/x");
        let h = store.host(url.as_bytes()).unwrap().unwrap();
        assert_eq!(h.source, HostSource::Unreachable, "{lost}");
    }
    assert_eq!(allowed("https://query.com/private"), Some(false));
    assert_eq!(allowed("https://query.com/public"), Some(true));
    // a.com, b.com and the redirects share one compiled body.
    assert!(report.unique_policies <= 4, "{report:?}");
    assert_eq!(report.hosts, inputs.len());
    assert!(report.dedup_ratio() > 3.0);
    assert_eq!(report.by_source.redirected, 7);
}

/// 429 Too Many Requests is a server's refusal for now, not a
/// robots.txt that is absent: disallow all, as Google reads it (its
/// robots.txt documentation: "4xx … except 429" allow; "5xx and 429"
/// disallow), and as RFC 9309 §2.3.1.4's "unreachable" (§2.3.1.3's
/// "unavailable" is a resource that is not there). Its neighbours stay
/// unavailable, and a redirect to a 429 is unreachable, as one to a 503.
#[test]
fn a_429_disallows_all_and_its_neighbours_allow() {
    let inputs = vec![
        input("busy.com", 429, None, None),
        input("before.com", 428, None, None),
        input("after.com", 430, None, None),
        input(
            "to-busy.com",
            301,
            None,
            Some("https://busy.com/robots.txt"),
        ),
    ];
    let (bytes, report) = build_default(&inputs);
    let store = Store::from_slice(&bytes).unwrap();
    let said = |host: &str| {
        let url = format!("https://{host}/x");
        let h = store.host(url.as_bytes()).unwrap().unwrap();
        let v = store.check(url.as_bytes()).unwrap().unwrap();
        (h.source, h.status, v.allowed)
    };
    assert_eq!(said("busy.com"), (HostSource::Unreachable, 429, false));
    assert_eq!(said("to-busy.com"), (HostSource::Unreachable, 301, false));
    assert_eq!(said("before.com"), (HostSource::Unavailable, 428, true));
    assert_eq!(said("after.com"), (HostSource::Unavailable, 430, true));
    assert_eq!(
        (report.by_source.unreachable, report.by_source.unavailable),
        (2, 2)
    );
}

#[test]
fn a_shard_built_alone_equals_the_sets_shard() {
    let mut inputs = Vec::new();
    for i in 0..60 {
        let body = format!("User-agent: *\nDisallow: /p{}\n", i % 9);
        let host = format!("h{i}.com");
        inputs.push(match i % 6 {
            0 => input(
                &host,
                301,
                None,
                Some(&format!("https://h{}.com/", (i + 7) % 60)),
            ),
            1 => input(&host, 404, None, None),
            _ => input(&host, 200, Some(&body), None),
        });
    }
    inputs.push(HostInput {
        failure: Some("truncated".into()),
        ..input("cut.com", 200, None, None)
    });
    inputs.push(input(
        "to-cut.com",
        302,
        None,
        Some("http://cut.com/robots.txt"),
    ));
    let builder = StoreBuilder::new("Googlebot");
    let (set, _) = builder
        .build_set(inputs.iter().cloned().map(Ok), 4)
        .unwrap();
    let table: Vec<_> = inputs
        .iter()
        .map(|h| (host_key(&h.host).unwrap(), h.status, h.location.clone()))
        .collect();
    let deps = redirect_dependencies(&table);
    assert_eq!(deps["to-cut.com"], ["cut.com"]);
    let mut infos = Vec::new();
    for which in 0..4 {
        // The shard's hosts and what their redirects read, nothing else.
        let mut needed: Vec<String> = Vec::new();
        for (k, _, _) in &table {
            if shard_of_key(k, 4) == which {
                needed.push(k.clone());
                needed.extend(deps.get(k).cloned().unwrap_or_default());
            }
        }
        let part = inputs
            .iter()
            .filter(|h| needed.contains(&host_key(&h.host).unwrap()))
            .cloned()
            .map(Ok);
        let (bytes, info, report) = builder.build_shard(part, 4, which).unwrap();
        assert_eq!(&bytes[..], &set.shards[which][..], "shard {which}");
        assert_eq!(report.hosts as u64, info.hosts);
        infos.push(info);
    }
    assert_eq!(builder.set_index(infos).unwrap(), set.index);
}

#[test]
fn a_failing_body_gets_the_fallback_and_is_reported() {
    let hostile = "User-agent: *\nDisallow: /*a*b*c*d\nDisallow: /x\n";
    let inputs = [
        input("bad.com", 200, Some(hostile), None),
        input("good.com", 200, Some("User-agent: *\nDisallow: /x\n"), None),
        input("down.com", 503, None, None),
        input("gone.com", 404, None, None),
    ];
    // A budget no automaton fits in.
    let mut opts = CompileOptions::default();
    opts.budget.max_states = 1;
    for (on_failure, allowed) in [(OnFailure::Disallow, false), (OnFailure::Allow, true)] {
        let (bytes, report) = StoreBuilder::new("Googlebot")
            .compile_options(opts.clone())
            .on_failure(on_failure)
            .build(inputs.iter().cloned().map(Ok))
            .unwrap();
        assert_eq!(report.failures.len(), 2, "{report:?}");
        assert!(report.failures[0].note.contains("states"), "{report:?}");
        let store = Store::from_slice(&bytes).unwrap();
        let entry = store.host(b"https://bad.com/").unwrap().unwrap();
        assert_eq!(entry.source, HostSource::Failed);
        assert_eq!(
            store
                .check(b"https://bad.com/y")
                .unwrap()
                .map(|v| v.allowed),
            Some(allowed)
        );
        // The hosts that stand for a status keep their meaning: their
        // policies are robocc's own, never held to the caller's budget
        // (a 503 host became allowed with on_failure allow).
        for (host, source, allowed) in [
            ("down.com", HostSource::Unreachable, false),
            ("gone.com", HostSource::Unavailable, true),
        ] {
            let url = format!("https://{host}/y");
            let entry = store.host(url.as_bytes()).unwrap().unwrap();
            assert_eq!(entry.source, source, "{host}");
            let v = store.check(url.as_bytes()).unwrap().unwrap();
            assert_eq!(v.allowed, allowed, "{host} {on_failure:?}");
        }
    }
}

fn build_with(inputs: &[HostInput], base: Option<&Store>) -> (Vec<u8>, StoreReport) {
    let (bytes, report) = StoreBuilder::new("Googlebot")
        .base(base)
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    (bytes.to_vec(), report)
}

/// A base store with any byte flipped: the build that would take 304s'
/// policies from it refuses it (`validate_all` first), or, where the
/// flip leaves it valid, builds the store the intact base gives. Before,
/// a 304 took the policy a damaged slot named, and the new store's own
/// checksum then vouched for it (issue 41).
#[test]
fn a_damaged_base_is_refused_before_anything_is_taken_from_it() {
    let mut first = Vec::new();
    for (i, body) in ["Disallow: /", "Disallow: /x", "Allow: /"]
        .iter()
        .enumerate()
    {
        for h in 0..3 {
            let text = format!("User-agent: *\n{body}\n");
            first.push(input(&format!("h{h}-{i}.com"), 200, Some(&text), None));
        }
    }
    let (base, _) = build_with(&first, None);
    let again: Vec<HostInput> = first
        .iter()
        .map(|h| input(&h.host, 304, None, None))
        .collect();
    let answers = |bytes: &[u8]| -> Vec<_> {
        let s = Store::from_slice(bytes).unwrap();
        s.validate_all().unwrap();
        first
            .iter()
            .map(|h| {
                let url = format!("https://{}/x", h.host);
                let v = s.check(url.as_bytes()).unwrap().map(|v| v.allowed);
                let info = s.host(url.as_bytes()).unwrap().map(|i| i.source);
                (v, info)
            })
            .collect()
    };
    let intact = Store::from_slice(&base).unwrap();
    let want = answers(&build_with(&again, Some(&intact)).0);
    assert!(
        want.iter().all(|a| a.1 == Some(HostSource::Fetched)),
        "{want:?}"
    );
    let (mut refused, mut same) = (0, 0);
    for at in 32..base.len() {
        let mut m = base.clone();
        m[at] ^= 0x01;
        let Ok(damaged) = Store::from_slice(&m) else {
            continue;
        };
        let built = StoreBuilder::new("Googlebot")
            .base(Some(&damaged))
            .build(again.iter().cloned().map(Ok));
        match built {
            Err(e) => {
                assert!(
                    e.to_string().contains("base store is damaged"),
                    "byte {at}: {e}"
                );
                refused += 1;
            }
            Ok((bytes, _)) => {
                assert_eq!(answers(&bytes), want, "byte {at}");
                same += 1;
            }
        }
    }
    eprintln!("{refused} flips of the base refused, {same} left it valid");
    assert!(refused > 0);
}

#[test]
fn a_body_named_by_a_known_digest_is_not_read() {
    let dir = TempDir::new("digest-skip");
    // 12 hosts over 4 bodies, each body a file named by its digest.
    let bodies: Vec<String> = (0..4)
        .map(|i| format!("User-agent: *\nDisallow: /p{i}\n"))
        .collect();
    let inputs: Vec<HostInput> = (0..12)
        .map(|i| {
            let body = &bodies[i % 4];
            let path = dir.0.join(format!("b{}.txt", i % 4));
            std::fs::write(&path, body).unwrap();
            HostInput {
                host: format!("h{i}.com"),
                status: 200,
                body_path: Some(path),
                sha256: Some(robocc_compiler::sha256(body.as_bytes())),
                ..HostInput::default()
            }
        })
        .collect();
    // Without a base, every body file is read (and checked).
    let (full, report) = build_with(&inputs, None);
    assert_eq!((report.bodies_read, report.bodies_skipped), (12, 0));
    // The same store as one built from the bytes.
    let inline: Vec<HostInput> = inputs
        .iter()
        .map(|h| HostInput {
            body: Some(std::fs::read(h.body_path.as_ref().unwrap()).unwrap()),
            body_path: None,
            sha256: None,
            ..h.clone()
        })
        .collect();
    assert_eq!(build_with(&inline, None).0, full);
    // A rebuild whose digests the base has reads nothing: the files
    // may even be gone. One body changed: only it is read.
    let base = Store::from_slice(&full).unwrap();
    let changed_body = "User-agent: *\nDisallow: /changed\n";
    let changed_path = dir.0.join("changed.txt");
    std::fs::write(&changed_path, changed_body).unwrap();
    for i in 0..4 {
        std::fs::remove_file(dir.0.join(format!("b{i}.txt"))).unwrap();
    }
    let mut next = inputs.clone();
    next[5].body_path = Some(changed_path);
    next[5].sha256 = Some(robocc_compiler::sha256(changed_body.as_bytes()));
    let (new, report) = build_with(&next, Some(&base));
    assert_eq!((report.bodies_read, report.bodies_skipped), (1, 11));
    assert_eq!((report.reused, report.compiled), (4, 1), "{report:?}");
    let store = Store::from_slice(&new).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://h5.com/changed"), Some(false));
    assert_eq!(allowed("https://h5.com/p1"), Some(true));
    assert_eq!(allowed("https://h9.com/p1"), Some(false));
    assert_eq!(allowed("https://h2.com/p2"), Some(false));
    // Without the base, each missing file is its host's failure,
    // naming the file.
    let (_, report) = build_default(&next);
    let h0 = report.failures.iter().find(|n| n.host == "h0.com").unwrap();
    assert!(h0.note.contains("cannot read body"), "{h0:?}");
    assert!(report.bodies_unreadable > 0, "{report:?}");
    assert_eq!(
        report.bodies_unreadable,
        report.failures.len(),
        "{report:?}"
    );
}

#[test]
fn a_body_that_is_not_its_digest_fails_its_host_only() {
    let body = "User-agent: *\nDisallow: /a\n";
    let wrong = robocc_compiler::sha256(b"something else");
    let mut inputs = vec![
        input("good.com", 200, Some(body), None),
        input("bad.com", 200, Some(body), None),
    ];
    inputs[0].sha256 = Some(robocc_compiler::sha256(body.as_bytes()));
    inputs[1].sha256 = Some(wrong);
    let (bytes, report) = build_with(&inputs, None);
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.failures[0].host, "bad.com");
    assert!(report.failures[0].note.contains(&hex(&wrong)), "{report:?}");
    let store = Store::from_slice(&bytes).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://good.com/b"), Some(true));
    // The fallback (disallow all), not the body's rules.
    assert_eq!(allowed("https://bad.com/b"), Some(false));
    // A digest stated wrongly is never trusted later in the build: a
    // body file named by it is read.
    let mut load = inputs[1].clone();
    load.load_body().unwrap();
    assert!(load.failure.as_deref().unwrap().contains("SHA-256"));
}

#[test]
fn digests_never_make_the_answer_depend_on_the_order_of_the_inputs() {
    let dir = TempDir::new("digest-order");
    let (x, y) = (
        "User-agent: *\nDisallow: /x\n",
        "User-agent: *\nDisallow: /y\n",
    );
    std::fs::write(dir.0.join("x.txt"), x).unwrap();
    std::fs::write(dir.0.join("y.txt"), y).unwrap();
    let line = |host: &str, file: &str, digest_of: &str, status: u16| HostInput {
        host: host.into(),
        status,
        body_path: Some(dir.0.join(file)),
        sha256: Some(robocc_compiler::sha256(digest_of.as_bytes())),
        ..HostInput::default()
    };
    // a.com's file holds x but states y's digest; b.com is right.
    let a = line("a.com", "x.txt", y, 200);
    let b = line("b.com", "y.txt", y, 200);
    // A 404's body is not used: neither read nor checked.
    let gone = line("gone.com", "missing.txt", "anything", 404);
    let (ab, report) = build_with(&[a.clone(), b.clone(), gone.clone()], None);
    let (ba, _) = build_with(&[gone, b, a], None);
    assert_eq!(ab, ba);
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.failures[0].host, "a.com");
    let store = Store::from_slice(&ab).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://a.com/x"), Some(false)); // the fallback
    assert_eq!(allowed("https://a.com/z"), Some(false));
    assert_eq!(allowed("https://b.com/x"), Some(true));
    assert_eq!(allowed("https://gone.com/x"), Some(true));
}

#[test]
fn a_rebuild_stores_a_reused_policy_once_however_its_hosts_name_it() {
    let body = "User-agent: *\nDisallow: /a\n";
    let plain = [
        input("one.com", 200, Some(body), None),
        input("two.com", 200, Some(body), None),
    ];
    let (first, _) = build_with(&plain, None);
    let base = Store::from_slice(&first).unwrap();
    // one.com names it by digest (not read), two.com gives the bytes.
    let mut mixed = plain.clone();
    mixed[0] = HostInput {
        body: None,
        body_path: Some("/nonexistent/one.txt".into()),
        sha256: Some(robocc_compiler::sha256(body.as_bytes())),
        ..mixed[0].clone()
    };
    let (again, report) = build_with(&mixed, Some(&base));
    assert_eq!((report.bodies_skipped, report.unique_policies), (1, 1));
    assert_eq!((report.reused, report.compiled), (1, 0), "{report:?}");
    assert_eq!(again, build_with(&plain, Some(&base)).0);
    assert_eq!(again, first);
}

#[test]
fn a_reused_policy_keeps_its_notes() {
    // Not read whole (a parse limit cuts it) and split are both kept in
    // the header, so a rebuild reports what the build did.
    let long = format!("User-agent: *\nDisallow: /a\n{}", "# pad\n".repeat(100));
    let inputs = [input("long.com", 200, Some(&long), None)];
    let options = CompileOptions {
        parse: robocc_compiler::ParseOptions {
            max_bytes: 64,
            ..robocc_compiler::ParseOptions::default()
        },
        ..CompileOptions::default()
    };
    let build = |base: Option<&Store>| {
        StoreBuilder::new("Googlebot")
            .compile_options(options.clone())
            .base(base)
            .build(inputs.iter().cloned().map(Ok))
            .unwrap()
    };
    let (first, report) = build(None);
    assert_eq!(report.unread.len(), 1, "{report:?}");
    let base = Store::from_slice(&first).unwrap();
    let (_, again) = build(Some(&base));
    assert_eq!(again.reused, 1);
    assert_eq!(again.unread, report.unread);
}

/// Of a host given more than once the last input wins, except that a
/// redirect to the host itself never replaces another result; each
/// extra input is reported once.
#[test]
fn the_last_input_of_a_host_wins_unless_it_redirects_to_itself() {
    let blocked = "User-agent: *\nDisallow: /\n";
    let open = "User-agent: *\nDisallow:\n";
    let to_self = Some("https://a.com/robots.txt");
    // (inputs, allowed, duplicates, redirects to itself set aside)
    let cases: [(Vec<HostInput>, bool, usize, usize); 5] = [
        (
            vec![
                input("a.com", 200, Some(open), None),
                input("a.com", 200, Some(blocked), None),
            ],
            false,
            1,
            0,
        ),
        (
            vec![
                input("a.com", 200, Some(blocked), None),
                input("a.com", 301, None, to_self),
            ],
            false,
            0,
            1,
        ),
        (
            vec![
                input("a.com", 301, None, to_self),
                input("a.com", 200, Some(blocked), None),
                input("a.com", 301, None, to_self),
            ],
            false,
            0,
            2,
        ),
        (
            vec![
                input("a.com", 200, Some(blocked), None),
                input("A.com", 200, Some(open), None),
                input("a.com", 301, None, to_self),
            ],
            true,
            1,
            1,
        ),
        // Two lone redirects to itself: one replaces the other, and
        // the capture they lead to is not there.
        (
            vec![
                input("a.com", 301, None, to_self),
                input("a.com", 302, None, to_self),
            ],
            false,
            1,
            0,
        ),
    ];
    for (inputs, allowed, duplicates, to_itself) in cases {
        let mut with_others = inputs.clone();
        with_others.insert(1, input("b.com", 200, Some(blocked), None));
        let (bytes, report) = build_default(&with_others);
        let store = Store::from_slice(&bytes).unwrap();
        let v = store.check(b"https://a.com/x").unwrap().unwrap();
        assert_eq!(v.allowed, allowed, "{inputs:?}");
        assert_eq!(report.duplicates, vec!["a.com"; duplicates], "{inputs:?}");
        assert_eq!(report.self_redirects, to_itself, "{inputs:?}");
        assert_eq!(report.hosts, 2);
    }
}

#[test]
fn a_rebuild_reuses_unchanged_policies() {
    let inputs: Vec<HostInput> = (0..20)
        .map(|i| {
            let body = format!("User-agent: *\nDisallow: /p{i}\n");
            input(&format!("h{i}.com"), 200, Some(&body), None)
        })
        .collect();
    let (old, _) = build_default(&inputs);
    let base = Store::from_slice(&old).unwrap();
    let mut changed = inputs.clone();
    changed[3].body = Some(b"User-agent: *\nDisallow: /changed\n".to_vec());
    let (new, report) = build_with(&changed, Some(&base));
    assert_eq!((report.reused, report.compiled), (19, 1), "{report:?}");
    let store = Store::from_slice(&new).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://h3.com/changed"), Some(false));
    assert_eq!(allowed("https://h3.com/p3"), Some(true));
    assert_eq!(allowed("https://h4.com/p4"), Some(false));
    // Another agent reuses nothing.
    let (_, report) = StoreBuilder::new("Bingbot")
        .base(Some(&base))
        .build(changed.iter().cloned().map(Ok))
        .unwrap();
    assert_eq!(report.reused, 0);
}

/// A body of `n` bytes with rules throughout (a distinct one every
/// ~900 bytes), so that where the parse limit cuts changes the policy.
fn long_body(n: usize) -> Vec<u8> {
    let mut b = b"User-agent: *\nAllow: /a$\n".to_vec();
    let mut i = 0;
    while b.len() < n {
        b.extend_from_slice(format!("Disallow: /p{i}/*x\n").as_bytes());
        for _ in 0..20 {
            b.extend_from_slice(b"# a comment line of a long robots.txt\n");
        }
        i += 1;
    }
    b
}

/// Compiling the prefix a build keeps of a long body, with the whole
/// body's length and digest, makes the policy compiling the whole body
/// makes, byte for byte, whatever the parse limit and dialect.
#[test]
fn a_long_body_is_kept_as_the_prefix_the_compile_reads() {
    let body = long_body(700_000);
    for dialect in [
        robocc_engine::Dialect::Rfc9309,
        robocc_engine::Dialect::Draft1996,
        robocc_engine::Dialect::Acap,
    ] {
        for max_bytes in [
            robocc_compiler::DEFAULT_MAX_BYTES,
            8191,
            8192,
            3000,
            600_000,
        ] {
            let mut options = CompileOptions {
                dialect,
                ..CompileOptions::default()
            };
            options.budget.time = std::time::Duration::from_secs(3600);
            options.parse.max_bytes = max_bytes;
            let whole = compile(&body, "Googlebot", &options).unwrap();
            let mut c = Collected::new(max_bytes);
            let id = c.intern(body.clone()) as usize;
            let kept = &c.bodies[id];
            assert_eq!(kept.bytes.len(), (max_bytes + 1).max(8192));
            assert_eq!(kept.len, Some(body.len() as u64));
            let cut = compile_body(kept, &"Googlebot".into(), &options).unwrap();
            assert!(
                whole.to_bytes()[..] == cut.to_bytes()[..],
                "{dialect:?} {max_bytes}"
            );
            assert_eq!(whole.diagnostics, cut.diagnostics);
            // The same body again is the same id.
            assert_eq!(c.intern(body.clone()) as usize, id);
        }
    }
    // Without a limit, or UTF-16, a body is kept whole.
    let mut c = Collected::new(0);
    let id = c.intern(body.clone()) as usize;
    assert_eq!(c.bodies[id].bytes.len(), body.len());
    let utf16: Vec<u8> = String::from_utf8(body.clone())
        .unwrap()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut c = Collected::new(robocc_compiler::DEFAULT_MAX_BYTES);
    let id = c.intern(utf16.clone()) as usize;
    assert_eq!(c.bodies[id].bytes.len(), utf16.len());
    // A rebuild finds the policy by the whole body's digest.
    let inputs = [input("a.com", 200, None, None)];
    let mut inputs = inputs.to_vec();
    inputs[0].body = Some(body.clone());
    let (old, _) = build_default(&inputs);
    let base = Store::from_slice(&old).unwrap();
    assert_eq!(
        base.policy(robocc_engine::PolicyId::new(0))
            .unwrap()
            .header()
            .source_sha256,
        robocc_compiler::sha256(&body)
    );
    let (new, report) = build_with(&inputs, Some(&base));
    assert_eq!((report.reused, report.compiled), (1, 0), "{report:?}");
    assert_eq!(new, old.to_vec());
}

#[test]
fn a_failed_compile_is_not_counted_as_compiled() {
    let big: String = std::iter::once("User-agent: *\n".to_string())
        .chain((0..300).map(|i| format!("Disallow: /a{i}*b{i}$\n")))
        .collect();
    let inputs = [
        input("big.com", 200, Some(&big), None),
        input("a.com", 200, Some("User-agent: *\nDisallow: /x\n"), None),
    ];
    let mut options = CompileOptions::default();
    options.budget.total_bytes = 3000;
    let (_, report) = StoreBuilder::new("Googlebot")
        .compile_options(options)
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.compiled, 1, "{report:?}");
}
