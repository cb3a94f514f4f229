//! acap: the compiled engine against the independent ACAP oracle
//! (`reference::acap`, written from docs/dialects.md's contract, reading
//! lines and conventional records with `reference::rfc9309`), for every
//! usage type, on:
//!
//! * the realistic publisher file and the spec's overview file, several
//!   agents and purposes;
//! * real corpus files with ACAP records synthesised from their own rules
//!   (`robocc_testkit::acap::synthesize`);
//! * random ACAP files over a small alphabet full of `*`, `$` and case
//!   changes, where conflicts and undecidable pairs are frequent
//!   (proptest).
//!
//! And: conventional lines alone (beside an ACAP record that says nothing
//! of `crawl`) decide `crawl` as rfc9309 does, against the rfc9309 oracle,
//! whatever the lines' verdicts, lengths and encodings (ACAP 2.9.2:
//! "interpreted as normal").
//!
//! Every disagreement fails with the file, agent, purposes, URL and usage.
//! The verdict must agree, the undecidable flag must agree, and the deciding
//! rule's line must be the oracle's.

use crate::common;

use proptest::prelude::*;
use robocc_compiler::{compile, Budget, CompileOptions, Layout};
use robocc_engine::{Dialect, Policy, Usage};
use robocc_reference::{AcapOracle, Rfc9309Options, Rfc9309Oracle};
use robocc_testkit::urlgen;

/// Compiles `body` for `agent`/`purposes` and compares every usage of
/// every URL with the oracle; returns the number of (URL, usage) pairs.
fn assert_agree(
    what: &str,
    body: &[u8],
    agent: &str,
    purposes: &[String],
    urls: &[Vec<u8>],
) -> usize {
    let options = CompileOptions {
        dialect: Dialect::Acap,
        purposes: purposes.to_vec(),
        // Synthesised files whose many wildcard rules of both verdicts
        // blow the set-mode construction up are refused; a smaller budget
        // than the default refuses them sooner (what is refused is counted).
        budget: Budget {
            max_threads: 800_000,
            // Half the inputs (by name): rewriting nodes as rows must not
            // change a usage's answer.
            layout: if robocc_engine::artifact::fnv1a64(what.as_bytes()) & 1 == 1 {
                Layout::Dense
            } else {
                Layout::Compact
            },
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    let compiled = match compile(body, agent, &options) {
        Ok(c) => c,
        // A hostile file may be over the budget: refused, never wrong.
        Err(robocc_compiler::CompileError::Budget(_)) => return 0,
        Err(e) => panic!("{what}: {e}"),
    };
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let oracle = AcapOracle::new(body, agent, purposes, &[]);
    let mut n = 0;
    for url in urls {
        let all = policy.usages(url);
        for &u in Usage::ACAP {
            let e = policy.check_usage(url, u);
            let o = oracle.check(url, u);
            let line = e.rule.and_then(|r| policy.rule(r)).map(|r| r.line);
            let undecidable = !e.allowed && e.rule.is_none();
            assert!(
                e.allowed == o.allowed && undecidable == o.undecidable && line == o.line,
                "{what}: agent {agent} purposes {purposes:?} url {:?} usage {u}: engine \
                 {e:?} (line {line:?}), oracle {o:?}\n{}",
                String::from_utf8_lossy(url),
                String::from_utf8_lossy(body)
            );
            assert_eq!(
                all.contains(u),
                e.allowed,
                "{what}: usages() disagrees with check_usage"
            );
            n += 1;
        }
    }
    n
}

/// URLs from the file's own patterns, both path and absolute forms, with
/// case changes (ACAP matching ignores ASCII case).
fn urls_for(body: &[u8], seed: u64, count: usize) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(body);
    let patterns: Vec<Vec<u8>> = text
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(_, v)| v.split('#').next().unwrap_or("").trim())
        .flat_map(|v| {
            v.split_whitespace()
                .map(|t| t.as_bytes().to_vec())
                .collect::<Vec<_>>()
        })
        .filter(|p| p.starts_with(b"/") || p.starts_with(b"*"))
        .collect();
    let mut urls = urlgen::workload(seed, patterns.iter().map(Vec::as_slice), count);
    let extra: Vec<Vec<u8>> = urls
        .iter()
        .step_by(3)
        .map(|u| {
            let mut v = u.to_ascii_uppercase();
            v.splice(0..0, b"https://Example.com".iter().copied());
            v
        })
        .collect();
    urls.extend(extra);
    urls
}

#[test]
fn examples_engine_matches_oracle() {
    let publisher =
        std::fs::read(common::root().join("corpus/examples/acap-publisher.txt")).unwrap();
    let overview = b"##ACAP version=1.0\nUser-agent: *\nDisallow: /\n\nUser-agent: named-crawler\nAllow: /index.html\nAllow: /public/\nAllow: /promotion/\nAllow: /news/\n\nACAP-resource-set: crawlable /public/ /promotion/ /news/\nACAP-qualified-usage: cache preserve time-limit=until-recrawled\nACAP-composite-usage: basic-usages crawl index present\nACAP-crawler: *\nACAP-disallow-crawl: /\nACAP-crawler: named-crawler\nACAP-allow-(basic-usages): the-acap:resource-set:crawlable\n".to_vec();
    let mut n = 0;
    for (name, body) in [("publisher", &publisher), ("overview", &overview)] {
        let urls = urls_for(body, 11, 1500);
        for agent in ["newsbot", "NewsBot-Image", "named-crawler", "otherbot"] {
            for purposes in [
                vec![],
                vec!["news".to_string()],
                vec!["archive".into(), "x".into()],
            ] {
                n += assert_agree(name, body, agent, &purposes, &urls);
            }
        }
    }
    assert!(n > 100_000, "{n} checks");
}

/// Corpus files with ACAP records synthesised from their own rules (a
/// sample in the test suite; `ROBOCC_ACAP_FULL=1` runs every file).
#[test]
fn corpus_with_synthesised_acap_matches_oracle() {
    let full = std::env::var_os("ROBOCC_ACAP_FULL").is_some();
    let files = common::all_real_files();
    let step = if full { 1 } else { (files.len() / 50).max(1) };
    let (mut n, mut compiled) = (0, 0);
    for (i, path) in files.iter().enumerate().step_by(step) {
        let body = std::fs::read(path).unwrap();
        let synth = robocc_testkit::acap::synthesize(&body, i as u64);
        let urls = urls_for(&synth, i as u64, if full { 150 } else { 80 });
        let name = path.file_name().unwrap().to_string_lossy();
        for (agent, purposes) in [("acapbot", vec!["news".to_string()]), ("Googlebot", vec![])] {
            let k = assert_agree(&name, &synth, agent, &purposes, &urls);
            n += k;
            compiled += usize::from(k > 0);
        }
    }
    // About one in ten synthesised policies is refused by the budget.
    eprintln!("acap corpus differential: {compiled} policies compiled, {n} checks");
    assert!(compiled >= 80, "{compiled} policies compiled");
    assert!(n > 50_000, "{n} checks");
}

fn acap_line() -> impl Strategy<Value = String> {
    let pattern = proptest::collection::vec(
        prop_oneof![
            Just("/"),
            Just("a"),
            Just("A"),
            Just("b"),
            Just("*"),
            Just("$")
        ],
        0..6,
    )
    .prop_map(|parts| format!("/{}", parts.concat()));
    let usage = prop_oneof![
        Just("crawl"),
        Just("index"),
        Just("present"),
        Just("present-snippet"),
        Just("other"),
        Just("(both)"),
    ];
    prop_oneof![
        4 => (any::<bool>(), usage, pattern.clone()).prop_map(|(allow, u, p)| format!(
            "ACAP-{}-{u}: {p}",
            if allow { "allow" } else { "disallow" }
        )),
        1 => prop_oneof![
            Just("ACAP-crawler: *"),
            Just("ACAP-crawler: bot"),
            Just("ACAP-crawler: Other"),
            Just("ACAP-crawler: Bot/1.0"),
            Just("ACAP-crawler: 2bot"),
        ]
        .prop_map(str::to_string),
        1 => prop_oneof![Just("ACAP-usage-purpose: news"), Just("ACAP-usage-purpose: n*s$")]
            .prop_map(str::to_string),
        1 => (any::<bool>(), pattern).prop_map(|(allow, p)| format!(
            "{}: {p}",
            if allow { "Allow" } else { "Disallow" }
        )),
        1 => prop_oneof![Just("User-agent: bot"), Just("User-agent: *")].prop_map(str::to_string),
    ]
}

fn acap_url() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("/"),
            Just("a"),
            Just("A"),
            Just("b"),
            Just("$"),
            Just("*")
        ],
        0..8,
    )
    .prop_map(|parts| format!("/{}", parts.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    #[test]
    fn random_acap_files_engine_matches_oracle(
        lines in proptest::collection::vec(acap_line(), 0..14),
        urls in proptest::collection::vec(acap_url(), 1..16),
        purpose in any::<bool>(),
        ignore in any::<bool>(),
    ) {
        let mut body = String::from("ACAP-composite-usage: both index present-snippet\n");
        if ignore {
            body.push_str("ACAP-ignore-conventional-records\n");
        }
        body.push_str("ACAP-crawler: bot\n");
        for l in &lines {
            body.push_str(l);
            body.push('\n');
        }
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        let purposes = if purpose { vec!["news".to_string()] } else { vec![] };
        assert_agree("proptest", body.as_bytes(), "bot", &purposes, &urls);
    }
}

fn conventional_line() -> impl Strategy<Value = String> {
    let pattern = proptest::collection::vec(
        prop_oneof![
            Just("/"),
            Just("a"),
            Just("b"),
            Just("%61"),
            Just("\u{e9}"),
            Just("*"),
            Just("$")
        ],
        0..5,
    )
    .prop_map(|parts| format!("/{}", parts.concat()));
    (any::<bool>(), pattern)
        .prop_map(|(allow, p)| format!("{}: {p}", if allow { "Allow" } else { "Disallow" }))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// The acap dialect's `crawl` over conventional lines alone is rfc9309's
    /// longest match (Allow on a tie), judged by the rfc9309 oracle.
    #[test]
    fn conventional_lines_decide_crawl_as_rfc9309_does(
        lines in proptest::collection::vec(conventional_line(), 1..8),
        urls in proptest::collection::vec(
            proptest::collection::vec(
                prop_oneof![Just("/"), Just("a"), Just("b"), Just("%61"), Just("\u{e9}"), Just("$")],
                0..6,
            )
            .prop_map(|p| format!("/{}", p.concat())),
            1..12,
        ),
    ) {
        let body = format!(
            "User-agent: *\n{}\n\nACAP-crawler: *\nACAP-allow-index: /\n",
            lines.join("\n")
        );
        let options = CompileOptions {
            dialect: Dialect::Acap,
            ..CompileOptions::default()
        };
        let compiled = compile(body.as_bytes(), "bot", &options).unwrap();
        let bytes = compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        // The rfc9309 oracle's reading of the same lines (the ACAP lines
        // are unknown keys there).
        let rfc9309 = Rfc9309Oracle::new(body.as_bytes(), "bot", &Rfc9309Options::default());
        for url in &urls {
            let acap = policy.check_usage(url.as_bytes(), Usage::Crawl).allowed;
            let google = rfc9309.check(url.as_bytes()).allowed;
            prop_assert_eq!(acap, google, "{}\nURL {}", body, url);
        }
    }
}
