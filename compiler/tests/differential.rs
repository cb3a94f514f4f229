//! The compiled engine must agree with the reference matcher on every input.
//!
//! * every file of corpus/real × generated URLs (pattern-derived hits, near
//!   misses, encodings, random paths), for several agents, in both URL modes;
//! * a sample of ../shared/corpus/real (all of it with ROBOCC_FULL=1);
//! * random rule sets over a small alphabet full of `*` and `$` (proptest).

mod common;

use common::{agents_of, assert_agree, shared_real, txt_files};
use proptest::prelude::*;
use robocc_compiler::{compile, urlgen, CompileOptions};
use robocc_engine::UrlMode;

fn patterns_of(body: &[u8], agent: &str, opts: &CompileOptions) -> Vec<Vec<u8>> {
    let c = compile(body, agent, opts).unwrap();
    c.rule_set.rules.iter().map(|r| r.pattern.clone()).collect()
}

fn check_file(
    path: &std::path::Path,
    urls_per_agent: usize,
    max_agents: usize,
    modes: &[UrlMode],
) -> usize {
    let body = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut n = 0;
    for &mode in modes {
        let opts = CompileOptions {
            url_mode: mode,
            ..CompileOptions::default()
        };
        for agent in agents_of(&body, max_agents) {
            let pats = patterns_of(&body, &agent, &opts);
            let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
            let urls = urlgen::workload(seed, pats.iter().map(Vec::as_slice), urls_per_agent);
            n += assert_agree(&name, &body, &agent, &opts, &urls);
        }
    }
    n
}

#[test]
fn corpus_real_engine_matches_reference() {
    let files = txt_files(&common::root().join("corpus/real"));
    assert!(files.len() >= 40, "corpus/real has {} files", files.len());
    let both = [UrlMode::Google, UrlMode::Rfc];
    let checked: usize = files.iter().map(|f| check_file(f, 400, 4, &both)).sum();
    assert!(checked > 50_000, "only {checked} URLs checked");
}

/// Every file of ../shared/corpus/real: the unlisted agent and the first
/// named one, Google mode for even-numbered files and RFC mode for odd ones,
/// 40 URLs each (`ROBOCC_FULL=1`: both modes, 3 agents, 300 URLs). Two tests
/// share the files so both cores work.
fn shared_corpus(part: usize) {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not present: skipped");
        return;
    };
    let files = txt_files(&dir);
    assert!(files.len() > 4000, "{} files", files.len());
    let full = std::env::var_os("ROBOCC_FULL").is_some();
    let mut checked = 0;
    for (i, f) in files.iter().enumerate().skip(part).step_by(2) {
        checked += if full {
            check_file(f, 300, 3, &[UrlMode::Google, UrlMode::Rfc])
        } else {
            let mode = if (i / 2) % 2 == 0 {
                UrlMode::Google
            } else {
                UrlMode::Rfc
            };
            check_file(f, 40, 2, &[mode])
        };
    }
    assert!(checked > 100_000, "only {checked} URLs checked");
}

#[test]
fn shared_corpus_engine_matches_reference_even() {
    shared_corpus(0);
}

#[test]
fn shared_corpus_engine_matches_reference_odd() {
    shared_corpus(1);
}

fn rule_line() -> impl Strategy<Value = String> {
    let pattern = proptest::collection::vec(
        prop_oneof![
            4 => Just("*"), 2 => Just("$"), 3 => Just("a"), 3 => Just("b"), 3 => Just("/"),
            1 => Just("%2F"), 1 => Just("%61"), 1 => Just("."), 1 => Just("?")
        ],
        0..7,
    )
    .prop_map(|parts| parts.concat());
    (any::<bool>(), pattern)
        .prop_map(|(allow, p)| format!("{}: {}", if allow { "Allow" } else { "Disallow" }, p))
}

fn url() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("/"),
            Just("$"),
            Just("*"),
            Just("%2F"),
            Just("%61"),
            Just("."),
            Just("?"),
            Just("#"),
            Just("%"),
            Just("é")
        ],
        0..9,
    )
    .prop_map(|parts| format!("/{}", parts.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn random_rules_engine_matches_reference(
        rules in proptest::collection::vec(rule_line(), 0..8),
        urls in proptest::collection::vec(url(), 1..20),
        rfc in any::<bool>(),
        robots_txt in any::<bool>(),
    ) {
        let body = format!("User-agent: *\n{}\n", rules.join("\n"));
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            robots_txt_allowed: robots_txt,
            ..CompileOptions::default()
        };
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        assert_agree("proptest", body.as_bytes(), "AnyBot", &opts, &urls);
    }
}
