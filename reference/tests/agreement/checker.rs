//! The `Checker` against the compiled policy: the same verdict and deciding
//! rule on every channel, before and after promotion.
//!
//! The compiled policy is itself checked against the reference matcher and
//! every dialect's oracle (the other modules of this binary), so agreeing
//! with it, URL by URL and channel by channel, is agreeing with them. Run
//! over a sample of the corpus in every reading (all of it with
//! `ROBOCC_FULL=1`), files with synthesised ACAP records and AI-usage
//! statements, and random files (proptest).

use crate::common;
use proptest::prelude::*;
use robocc_compiler::{compile, Checker, CompileOptions, DiagCode, Promotion};
use robocc_engine::{Dialect, Policy, UrlMode, Usage};
use robocc_testkit::urlgen;

/// Every usage the engine knows.
fn usages() -> Vec<Usage> {
    (0..32).filter_map(Usage::from_u8).collect()
}

/// Compares a `Checker` that interprets, one that compiled at once and one
/// left to promote itself with the compiled policy on every URL and usage;
/// returns the number of URLs compared.
fn agree(name: &str, body: &[u8], agent: &str, opts: &CompileOptions, urls: &[Vec<u8>]) -> usize {
    let interp = Checker::with_promotion(body, agent, opts, Promotion::Never)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    agree_with(name, &interp, body, agent, opts, urls)
}

/// [`agree`] with the interpreting checker made.
fn agree_with(
    name: &str,
    interp: &Checker,
    body: &[u8],
    agent: &str,
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    let compiled = match compile(body, agent, opts) {
        Ok(c) => c,
        Err(_) => {
            // Rules the lowering cannot build: the checker keeps answering.
            assert!(!interp.promote(), "{name}: promoted what does not compile");
            return 0;
        }
    };
    // Statements dropped to fit the budget: the policy answers crawl only,
    // the checker (which never switches to it) every channel.
    let crawl_only = compiled
        .diagnostics
        .iter()
        .any(|d| d.code == DiagCode::SignalsDropped);
    // The findings, but for the lowering's own (what `check --robots`
    // prints without compiling).
    let lowering_only = [DiagCode::SplitPath, DiagCode::SignalsDropped];
    let found: Vec<_> = (compiled.diagnostics.iter())
        .filter(|d| !lowering_only.contains(&d.code))
        .cloned()
        .collect();
    assert_eq!(interp.diagnostics(), &found[..], "{name} {agent}");
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let now = Checker::with_promotion(body, agent, opts, Promotion::Now).unwrap();
    assert_eq!(now.is_compiled(), !crawl_only, "{name}");
    let auto = Checker::new(body, agent, opts).unwrap();
    let usages = usages();
    for (k, url) in urls.iter().enumerate() {
        let shown = String::from_utf8_lossy(url);
        let want = policy.check(url);
        for (who, c) in [("interpreted", interp), ("promoted", &now), ("auto", &auto)] {
            assert_eq!(c.check(url), want, "{name} {agent} {who}: {shown}");
            // The deciding rule reads the same.
            let (a, b) = (
                want.rule.and_then(|i| policy.rule(i)),
                want.rule.and_then(|i| c.rule(i)),
            );
            assert_eq!(a, b, "{name} {agent} {who}: rule of {shown}");
        }
        if crawl_only {
            continue;
        }
        // Every usage on a share of the URLs (each is a whole interpreted
        // check).
        if k % 4 == 0 {
            let states = policy.usage_states(url);
            for (who, c) in [("interpreted", interp), ("auto", &auto)] {
                assert_eq!(c.usage_states(url), states, "{name} {agent} {who}: {shown}");
                for &u in &usages {
                    assert_eq!(
                        c.check_usage(url, u),
                        policy.check_usage(url, u),
                        "{name} {agent} {who}: {u:?} {shown}"
                    );
                    assert_eq!(
                        c.preference(url, u),
                        policy.preference(url, u),
                        "{name} {agent} {who}: preference {u:?} {shown}"
                    );
                }
            }
        }
    }
    assert!(!interp.is_compiled());
    urls.len()
}

/// Reads `body` as `opts` say and compares on URLs made from its own
/// patterns (`n` generated, and the generator's fixed paths).
fn agree_on_own_urls(
    name: &str,
    body: &[u8],
    agent: &str,
    opts: &CompileOptions,
    seed: u64,
    n: usize,
) -> usize {
    let interp = Checker::with_promotion(body, agent, opts, Promotion::Never)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let patterns: Vec<Vec<u8>> = (0..)
        .map_while(|id| interp.rule(robocc_engine::RuleId::new(id)))
        .map(|r| r.pattern.to_vec())
        .collect();
    let mut urls = urlgen::workload(seed, patterns.iter().map(Vec::as_slice), n);
    urls.extend(
        robocc_testkit::signals::PATHS
            .iter()
            .map(|p| p.as_bytes().to_vec()),
    );
    urls.push(b"/robots.txt".to_vec());
    urls.push(b"https://example.com/robots.txt?x#y".to_vec());
    agree_with(name, &interp, body, agent, opts, &urls)
}

/// A budget that makes the lowering give up early and the same way on
/// every machine (states, not time): synthesised statements can make set
/// mode's automata huge, and the checker must then keep interpreting.
fn quick_budget() -> robocc_compiler::Budget {
    robocc_compiler::Budget {
        max_states: 20_000,
        time: std::time::Duration::from_secs(3600),
        ..Default::default()
    }
}

fn dialect(d: Dialect, mode: UrlMode) -> CompileOptions {
    CompileOptions {
        dialect: d,
        url_mode: mode,
        ..CompileOptions::default()
    }
}

#[test]
fn corpus_checker_matches_compiled_policy() {
    let full = std::env::var_os("ROBOCC_FULL").is_some();
    let files = common::all_real_files();
    let step = if full { 1 } else { (files.len() / 60).max(1) };
    let readings = [
        dialect(Dialect::Rfc9309, UrlMode::Google),
        dialect(Dialect::Rfc9309, UrlMode::Rfc),
        dialect(Dialect::Draft1996, UrlMode::Google),
        dialect(Dialect::Robots2, UrlMode::Google),
    ];
    let (mut n, mut files_read) = (0, 0);
    for (i, path) in files.iter().enumerate().step_by(step) {
        let body = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        files_read += 1;
        for agent in common::agents_of(&body, 3) {
            for opts in &readings {
                n += agree_on_own_urls(
                    &name,
                    &body,
                    &agent,
                    opts,
                    i as u64,
                    if full { 200 } else { 60 },
                );
            }
        }
        // ACAP records and AI-usage statements made from the file's rules.
        let acap = robocc_testkit::acap::synthesize(&body, i as u64);
        let opts = CompileOptions {
            dialect: Dialect::Acap,
            purposes: vec!["news".into()],
            budget: quick_budget(),
            ..CompileOptions::default()
        };
        for agent in ["acapbot", "Googlebot"] {
            n += agree_on_own_urls(&name, &acap, agent, &opts, i as u64, 40);
        }
        let signals = robocc_testkit::signals::synthesize(&body, i as u64);
        let opts = CompileOptions {
            training_agents: vec![robocc_testkit::signals::TRAINING_AGENT.into()],
            budget: quick_budget(),
            ..CompileOptions::default()
        };
        for agent in [robocc_testkit::signals::AGENT, "UnlistedBot"] {
            n += agree_on_own_urls(&name, &signals, agent, &opts, i as u64, 40);
        }
    }
    eprintln!("checker differential: {files_read} files, {n} URL comparisons");
    assert!(files_read >= 50 || !full, "{files_read} files");
    assert!(n > 20_000, "{n} URL comparisons");
}

/// A rule line over a small alphabet full of `*` and `$`.
fn rule_line() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("Allow"), Just("Disallow")],
        "/[ab*$/.%]{0,6}",
    )
        .prop_map(|(k, p)| format!("{k}: {p}\n"))
}

fn url() -> impl Strategy<Value = Vec<u8>> {
    "/[ab/.%*$?#]{0,8}".prop_map(String::into_bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_files_checker_matches_policy(
        rules in proptest::collection::vec(rule_line(), 0..12),
        urls in proptest::collection::vec(url(), 1..20),
        mode in prop_oneof![Just(UrlMode::Google), Just(UrlMode::Rfc)],
        d in prop_oneof![Just(Dialect::Rfc9309), Just(Dialect::Draft1996), Just(Dialect::Robots2)],
    ) {
        let body = format!("User-agent: *\n{}", rules.concat());
        agree("random", body.as_bytes(), "Bot", &dialect(d, mode), &urls);
    }

    #[test]
    fn random_signal_files_checker_matches_policy(
        body in robocc_testkit::signals::signals_file(),
        urls in proptest::collection::vec(url(), 1..20),
    ) {
        let opts = CompileOptions {
            training_agents: vec![robocc_testkit::signals::TRAINING_AGENT.into()],
            ..CompileOptions::default()
        };
        agree("random signals", &body, robocc_testkit::signals::AGENT, &opts, &urls);
    }

    #[test]
    fn random_acap_files_checker_matches_policy(body in robocc_testkit::acap::acap_file()) {
        let opts = CompileOptions { dialect: Dialect::Acap, ..CompileOptions::default() };
        let urls = robocc_testkit::acap::acap_urls(&body);
        agree("random acap", &body, "acapbot", &opts, &urls);
    }
}
