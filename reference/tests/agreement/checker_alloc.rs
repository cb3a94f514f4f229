//! A `Checker`'s checks do not allocate once its thread's scratch has
//! grown: interpreting ranked rules and set mode (ACAP, AI-usage
//! statements), and answering from the compiled policy after promotion.
//!
//! This binary's global allocator is `robocc_testkit::heap::Counting`,
//! whose counts are per thread: the other modules' tests, running in
//! parallel, are not counted here.

use crate::common::root;
use robocc_compiler::{Checker, CompileOptions, Promotion};
use robocc_engine::{Dialect, RuleId, UrlMode, Usage};
use robocc_testkit::heap::allocations_during;
use robocc_testkit::{acap, signals, urlgen};

/// Every check a caller can make, on every URL and usage; how many
/// answers were allow and disallow.
fn ask_everything(c: &Checker, urls: &[Vec<u8>]) -> [usize; 2] {
    let mut seen = [0usize; 2];
    for url in urls {
        seen[usize::from(c.check(url).allowed)] += 1;
        for &u in Usage::ALL {
            seen[usize::from(c.check_usage(url, u).allowed)] += 1;
            if let Some(v) = c.preference(url, u) {
                seen[usize::from(v.allowed)] += 1;
            }
        }
        seen[1] += c.usage_states(url).allowed.len();
        seen[1] += c.usages(url).len();
    }
    seen
}

/// The readings checked: (name, body, agent, options).
fn readings() -> Vec<(String, Vec<u8>, &'static str, CompileOptions)> {
    let real = |name: &str| std::fs::read(root().join("corpus/real").join(name)).unwrap();
    let with = |dialect, url_mode| CompileOptions {
        dialect,
        url_mode,
        ..CompileOptions::default()
    };
    let mut out = Vec::new();
    for name in [
        "texting_robots__twitter.robots.txt",
        "ropensci-robotstxt__robots_wikipedia.txt",
        "texting_robots__reddit.robots.txt",
    ] {
        let body = real(name);
        for (d, m) in [
            (Dialect::Rfc9309, UrlMode::Google),
            (Dialect::Rfc9309, UrlMode::Rfc),
            (Dialect::Draft1996, UrlMode::Google),
        ] {
            out.push((
                format!("{name} {d:?} {m:?}"),
                body.clone(),
                "Googlebot",
                with(d, m),
            ));
        }
    }
    // Set mode: ACAP records and AI-usage statements made from a real
    // file's rules (as the checker's agreement tests make them).
    let body = real("protego__www.uefa.com.txt");
    let acap_reading = CompileOptions {
        dialect: Dialect::Acap,
        purposes: vec!["news".into()],
        ..CompileOptions::default()
    };
    out.push((
        "acap".into(),
        acap::synthesize(&body, 3),
        acap::AGENT,
        acap_reading,
    ));
    let training_agents = vec![signals::TRAINING_AGENT.into()];
    let signals_body = signals::synthesize(&body, 3);
    let with_signals = CompileOptions {
        training_agents,
        ..CompileOptions::default()
    };
    out.push(("signals".into(), signals_body, signals::AGENT, with_signals));
    out
}

#[test]
fn checker_checks_do_not_allocate() {
    let (mut set_mode, mut promoted, mut checks) = (0, 0, 0);
    for (name, body, agent, opts) in readings() {
        for promotion in [Promotion::Never, Promotion::Now] {
            let c = Checker::with_promotion(&body, agent, &opts, promotion).unwrap();
            let patterns: Vec<Vec<u8>> = (0..c.rule_count() as u32)
                .map(|id| c.rule(RuleId::new(id)).unwrap().pattern.to_vec())
                .collect();
            let mut urls = urlgen::workload(7, patterns.iter().map(Vec::as_slice), 2000);
            urls.extend(signals::PATHS.iter().map(|p| p.as_bytes().to_vec()));
            // Warm: the thread's scratch grows to the longest path and the
            // most rules matched.
            let want = ask_everything(&c, &urls);
            let mut seen = [0; 2];
            let n = allocations_during(|| seen = ask_everything(&c, &urls));
            assert_eq!(n, 0, "{name} ({promotion:?}): {n} allocations");
            assert_eq!(seen, want, "{name} ({promotion:?})");
            assert!(seen[0] > 0 && seen[1] > 0, "{name}: {seen:?}");
            assert_eq!(c.is_compiled(), promotion == Promotion::Now, "{name}");
            set_mode += usize::from(c.channels().len() > 1);
            promoted += usize::from(c.is_compiled());
            checks += urls.len();
        }
    }
    // Both set-mode readings, interpreted and promoted.
    assert_eq!(set_mode, 4);
    assert_eq!(promoted, 11);
    assert!(checks > 40_000, "{checks}");
}
