//! `reach::classes` is exact: hand cases whose class follows from the
//! rules, and on corpus files × the 20 crawlers, brute force over
//! generated URLs that tries to falsify every class (an allowed URL
//! refutes "all disallowed", a disallowed one "all allowed").

use robocc_compiler::{classes, compile, compile_each, Class, CompileOptions, ReachError};
use robocc_engine::{Policy, UrlMode, Usage, Verdict};
use robocc_testkit::crawlers::CRAWLERS;
use robocc_testkit::paths::{root, shared_real};
use robocc_testkit::urlgen;

const USAGES: [Usage; 2] = [Usage::Crawl, Usage::TrainAi];

fn each(body: &[u8], agents: &[&str], options: &CompileOptions) -> robocc_engine::AlignedBytes {
    compile_each(body, agents, options)
        .expect("compiles")
        .to_bytes()
}

/// Each agent's crawl class of `body`.
fn crawl_classes(body: &str, agents: &[&str]) -> Vec<Class> {
    let bytes = each(body.as_bytes(), agents, &CompileOptions::default());
    let policy = Policy::from_bytes(&bytes).expect("loads");
    let c = classes(&policy, &[Usage::Crawl], 0).expect("within budget");
    (0..agents.len())
        .map(|i| c.get(i, Usage::Crawl).expect("answered"))
        .collect()
}

#[test]
fn hand_cases() {
    use Class::*;
    let one = |body: &str| crawl_classes(body, &["GPTBot"])[0];
    // 5xx and unreachable hosts get this body in a store.
    assert_eq!(one("User-agent: *\nDisallow: /\n"), AllDisallowed);
    // `/` itself is allowed, nothing else.
    assert_eq!(one("User-agent: *\nAllow: /$\nDisallow: /\n"), Partly);
    // 4xx hosts get the empty body.
    assert_eq!(one(""), AllAllowed);
    assert_eq!(one("User-agent: *\nDisallow:\n"), AllAllowed);
    assert_eq!(one("User-agent: *\nDisallow: /private\n"), Partly);
    // A query is part of the path.
    assert_eq!(one("User-agent: *\nDisallow: /*?\n"), Partly);
    // The file's own path is not counted: allowing exactly it leaves
    // nothing; allowing a prefix of paths through it does.
    assert_eq!(
        one("User-agent: *\nDisallow: /\nAllow: /robots.txt$\n"),
        AllDisallowed
    );
    assert_eq!(
        one("User-agent: *\nDisallow: /\nAllow: /robots.txt\n"),
        Partly
    );
    // Every path but `/` disallowed, and `/` too: `$` after `/`.
    assert_eq!(
        one("User-agent: *\nDisallow: /$\nDisallow: /*\n"),
        AllDisallowed
    );
    // Groups by agent: each column answers its own.
    let body = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp\n\n\
                User-agent: CCBot\nDisallow:\n";
    assert_eq!(
        crawl_classes(body, &["GPTBot", "Googlebot", "CCBot"]),
        vec![AllDisallowed, Partly, AllAllowed]
    );
    // A one-agent policy answers its agent.
    let bytes = compile(
        b"User-agent: *\nDisallow: /\n",
        "Googlebot",
        &CompileOptions::default(),
    )
    .expect("compiles")
    .to_bytes();
    let policy = Policy::from_bytes(&bytes).expect("loads");
    let c = classes(&policy, &[Usage::Crawl], 0).expect("small");
    assert_eq!(c.get(0, Usage::Crawl), Some(AllDisallowed));
    assert_eq!(c.get(1, Usage::Crawl), None);
    assert_eq!(c.get(0, Usage::Index), None);
}

#[test]
fn training_tokens_and_signals() {
    // Google-Extended is a training token: it reads its own group for
    // train-ai, and crawl is not its concern.
    let body = "User-agent: *\nDisallow: /private\n\nUser-agent: Google-Extended\nDisallow: /\n\n\
                Content-Signal: ai-train=no\n";
    let agents = ["Googlebot", "GPTBot"];
    let bytes = each(body.as_bytes(), &agents, &CompileOptions::default());
    let policy = Policy::from_bytes(&bytes).expect("loads");
    let c = classes(&policy, &USAGES, 0).expect("small");
    for (i, _) in agents.iter().enumerate() {
        assert_eq!(c.get(i, Usage::Crawl), Some(Class::Partly));
    }
    falsify(
        &policy,
        &c,
        &[b"/".to_vec(), b"/private".to_vec(), b"/a".to_vec()],
        "signals",
    );
}

#[test]
fn over_budget_is_an_error() {
    let body = "User-agent: *\nDisallow: /a*b*c*d\nAllow: /a*b*c\nDisallow: /x/y/z/w\n";
    let bytes = each(body.as_bytes(), &["GPTBot"], &CompileOptions::default());
    let policy = Policy::from_bytes(&bytes).expect("loads");
    assert_eq!(
        classes(&policy, &[Usage::Crawl], 3),
        Err(ReachError::TooManyStates { limit: 3 })
    );
    assert!(classes(&policy, &[Usage::Crawl], 0).is_ok());
}

/// Checks every URL against the classes: an allowed URL refutes
/// `AllDisallowed`, a disallowed one `AllAllowed` (the file's own path
/// excepted).
fn falsify(policy: &Policy<'_>, c: &robocc_compiler::Classes, urls: &[Vec<u8>], what: &str) {
    let own = policy.header().self_path.as_bytes();
    let agents = policy.agent_count();
    let mut out = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        agents
    ];
    for url in urls {
        if encoded(policy.header().url_mode, url) == own {
            continue;
        }
        for &usage in c.usages() {
            policy.check_each_usage(url, usage, &mut out);
            for (i, v) in out.iter().enumerate() {
                let class = c.get(i, usage).expect("answered");
                let refuted = if v.allowed {
                    class == Class::AllDisallowed
                } else {
                    class == Class::AllAllowed
                };
                assert!(
                    !refuted,
                    "{what}: agent {} usage {usage:?}: {} is {} but the class is {class}",
                    policy.agents().nth(i).unwrap_or("?"),
                    String::from_utf8_lossy(url),
                    if v.allowed { "allowed" } else { "disallowed" },
                );
            }
        }
    }
}

/// The bytes the automata read for `url` in `mode` (to tell the file's own
/// path, which the classes leave out).
fn encoded(mode: UrlMode, url: &[u8]) -> Vec<u8> {
    let path = robocc_engine::url::path_parts(url).to_vec();
    let mut out = Vec::new();
    let sink = |b: u8| {
        out.push(b);
        false
    };
    match mode {
        UrlMode::Rfc => {
            robocc_engine::normalize::feed_rfc(&path, sink);
        }
        UrlMode::Decode => {
            robocc_engine::normalize::feed_decoded(&path, sink);
        }
        _ => {
            // Google's reading: the bytes as given, to a NUL.
            let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
            out.extend_from_slice(&path[..end]);
        }
    }
    out
}

fn full() -> bool {
    std::env::var_os("ROBOCC_FULL").is_some()
}

/// The corpus files checked: by default a sample of those up to 16 KiB
/// (lowering for 20 agents costs ~0.5 s a file in the test profile); every
/// file of the workspace's corpus and every 7th of the shared one with
/// ROBOCC_FULL=1.
fn corpus_files() -> Vec<std::path::PathBuf> {
    let (local, shared_stride) = if full() { (1, 7) } else { (4, 401) };
    let mut files: Vec<_> = robocc_testkit::corpus::txt_files(&root().join("corpus/real"))
        .into_iter()
        .step_by(local)
        .collect();
    if let Some(shared) = shared_real() {
        files.extend(
            robocc_testkit::corpus::txt_files(&shared)
                .into_iter()
                .step_by(shared_stride),
        );
    }
    if !full() {
        files.retain(|f| std::fs::metadata(f).is_ok_and(|m| m.len() <= 16 << 10));
    }
    files
}

/// Corpus files × the 20 crawlers, in the three URL readings: every
/// class survives thousands of generated URLs, and the classes are not
/// all one (the test would assert little otherwise).
#[test]
fn corpus_classes_survive_brute_force() {
    // Google's, RFC 9309's encoding, the 1996 draft's decoding.
    let readings = crate::diff::readings();
    let urls_per_file = if full() { 20_000 } else { 2_000 };
    let mut seen = std::collections::HashSet::new();
    let (mut checked, mut per_column) = (0, 0);
    for (n, file) in corpus_files().iter().enumerate() {
        let body = std::fs::read(file).expect("reads");
        // The default reading for every file; the other two in turn, for
        // every third file (every file with ROBOCC_FULL=1).
        let other = (full() || n % 3 == 0).then(|| &readings[1 + n % 2]);
        for (k, options) in std::iter::once(&readings[0]).chain(other).enumerate() {
            let Ok(compiled) = compile_each(&body, CRAWLERS, options) else {
                continue;
            };
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).expect("loads");
            let c = match classes(&policy, &USAGES, 0) {
                Ok(c) => c,
                Err(e) => panic!("{}: {e}", file.display()),
            };
            let patterns: Vec<Vec<u8>> = policy
                .rules()
                .map(|r| r.pattern_text().into_owned().into_bytes())
                .collect();
            let mut urls = urlgen::workload(
                n as u64 * 7 + k as u64,
                patterns.iter().map(Vec::as_slice),
                urls_per_file,
            );
            // Around the file's own path, which alone is left out.
            for near in [
                "/",
                "/robots.txt?x",
                "/robots.txt/",
                "/robots.tx",
                "/robots.txtx",
            ] {
                urls.push(near.as_bytes().to_vec());
            }
            falsify(&policy, &c, &urls, &file.display().to_string());
            // The same agents with every column lowered alone (a budget
            // too small for the joint automaton: the per-column form): the
            // same classes, and they survive the same URLs.
            let small = CompileOptions {
                budget: robocc_compiler::Budget {
                    max_states: 60,
                    ..options.budget
                },
                ..options.clone()
            };
            if k == 0 && n % 2 == 0 {
                if let Ok(apart) = compile_each(&body, CRAWLERS, &small) {
                    let bytes = apart.to_bytes();
                    let apart = Policy::from_bytes(&bytes).expect("loads");
                    let ca = classes(&apart, &USAGES, 0).expect("within the budget");
                    let what = format!("{} (per column)", file.display());
                    falsify(&apart, &ca, &urls, &what);
                    for i in 0..CRAWLERS.len() {
                        for &u in &USAGES {
                            assert_eq!(ca.get(i, u), c.get(i, u), "{what}: agent {i} {u:?}");
                        }
                    }
                    per_column += 1;
                }
            }
            for i in 0..CRAWLERS.len() {
                seen.insert(c.get(i, Usage::Crawl).expect("answered"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} policies checked");
    assert!(
        per_column >= 5,
        "only {per_column} per-column policies checked"
    );
    assert_eq!(seen.len(), 3, "the corpus shows every class: {seen:?}");
}
