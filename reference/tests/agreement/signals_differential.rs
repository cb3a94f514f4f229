//! AI-usage preferences: the compiled engine against the independent
//! signals oracle (`reference::signals`, written from docs/dialects.md's
//! contract), channel by channel — verdict (allow, disallow, unknown) and
//! deciding line — and crawl, on:
//!
//! * a sample of real corpus files with Content-Usage and Content-Signal
//!   lines synthesised into them (`robocc_testkit::signals::synthesize`;
//!   every file with `ROBOCC_SIGNALS_FULL=1`), for the synthesised agent, a
//!   crawler the file does not name and a training token, and for several
//!   agents at once (the groups naming any of them);
//! * random small files full of ties, parse failures and training-token
//!   groups (proptest).

use crate::common;

use proptest::prelude::*;
use robocc_compiler::{compile, Budget, CompileOptions, Layout, PreferenceGrouping};
use robocc_engine::{Policy, RuleId, Usage};
use robocc_reference::signals::Grouping;
use robocc_reference::{Channel, Pref, SignalsOracle};
use robocc_testkit::signals::{signals_file, synthesize, AGENT, PATHS, TRAINING_AGENT};
use robocc_testkit::urlgen;

const CHANNELS: [(Usage, Channel); 3] = [
    (Usage::Search, Channel::Search),
    (Usage::TrainAi, Channel::TrainAi),
    (Usage::AiInput, Channel::AiInput),
];

/// Half the inputs (by name) are compiled in the dense layout: rewriting
/// nodes as rows must not change a channel's answer.
fn layout_for(what: &str) -> Layout {
    if robocc_engine::artifact::fnv1a64(what.as_bytes()) & 1 == 1 {
        Layout::Dense
    } else {
        Layout::Compact
    }
}

/// Compares every channel of every URL; returns the number of checks
/// (`None`: the statements did not fit the budget with the rules and were
/// dropped, which the diagnostics must say and every channel must show).
fn assert_agree(
    what: &str,
    body: &[u8],
    agents: &[&str],
    training: &[String],
    grouping: PreferenceGrouping,
    urls: &[Vec<u8>],
) -> Option<usize> {
    let agent = agents.join(",");
    let options = CompileOptions {
        training_agents: training.to_vec(),
        preference_grouping: grouping,
        budget: Budget {
            layout: layout_for(what),
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    let compiled = compile(body, agents, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let oracle_grouping = match grouping {
        PreferenceGrouping::Spec => Grouping::Spec,
        PreferenceGrouping::Crawl => Grouping::Crawl,
    };
    let oracle = SignalsOracle::grouped(body, agents, training, oracle_grouping);
    if compiled
        .diagnostics
        .iter()
        .any(|d| d.code == robocc_compiler::DiagCode::SignalsDropped)
    {
        // Degraded, not wrong: crawl exact, every preference unknown.
        for url in urls {
            assert_eq!(
                policy.check(url).allowed,
                oracle.crawl_allowed(url),
                "{what}"
            );
            for (usage, _) in CHANNELS {
                assert_eq!(policy.preference(url, usage), None, "{what}");
            }
        }
        return None;
    }
    assert_statements(what, &compiled, &policy);
    let mut n = 0;
    for url in urls {
        let shown = String::from_utf8_lossy(url);
        assert_eq!(
            policy.check(url).allowed,
            oracle.crawl_allowed(url),
            "{what}: agent {agent}: crawl {shown:?}"
        );
        let states = policy.usage_states(url);
        for (usage, channel) in CHANNELS {
            let e = policy.preference(url, usage);
            let o = oracle.check(url, channel);
            let engine = match e {
                None => (Pref::Unknown, None),
                Some(v) => (
                    if v.allowed {
                        Pref::Allow
                    } else {
                        Pref::Disallow
                    },
                    v.rule.and_then(|r| policy.rule(r)).map(|r| r.line),
                ),
            };
            assert!(
                engine == (o.pref, o.line),
                "{what}: agent {agent} training {training:?} url {shown:?} {usage}: engine \
                 {engine:?}, oracle {o:?}\n{}",
                String::from_utf8_lossy(body)
            );
            assert_eq!(
                (
                    states.allowed.contains(usage),
                    states.disallowed.contains(usage)
                ),
                (o.pref == Pref::Allow, o.pref == Pref::Disallow),
                "{what}: usage_states disagrees with preference"
            );
            n += 1;
        }
    }
    Some(n)
}

/// `Policy::signal_says` gives each rule's own statement as compiled: a
/// Content-Usage or Content-Signal line's value per channel, a training
/// token's Disallow as `train-ai` disallow, nothing for the agent's rules
/// and a token's Allow.
fn assert_statements(what: &str, compiled: &robocc_compiler::Compiled, policy: &Policy<'_>) {
    use robocc_compiler::signals::{Family, Pref as P};
    let Some(signals) = compiled.rule_set.signals() else {
        return;
    };
    for (id, r) in signals.rules.iter().enumerate() {
        for (c, (usage, _)) in CHANNELS.iter().enumerate() {
            let expected = match (r.family, r.prefs[c]) {
                (_, P::Unknown) | (Family::Crawl, _) | (Family::Training(_), P::Allow) => None,
                (_, P::Allow) => Some(true),
                (_, P::Disallow) => Some(false),
            };
            assert_eq!(
                policy.signal_says(RuleId::new(id as u32), *usage),
                expected,
                "{what}: rule {id} {usage}"
            );
        }
        assert_eq!(
            policy.signal_says(RuleId::new(id as u32), Usage::Crawl),
            None
        );
    }
}

/// URLs from the file's own paths and the generator's alphabet.
fn urls_for(body: &[u8], seed: u64, count: usize) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(body);
    let mut patterns: Vec<Vec<u8>> = text
        .lines()
        .filter_map(|l| l.split_once(':'))
        .filter_map(|(_, v)| v.split_whitespace().next().map(|p| p.as_bytes().to_vec()))
        .filter(|p| p.starts_with(b"/"))
        .collect();
    patterns.extend(PATHS.iter().map(|p| p.as_bytes().to_vec()));
    let mut urls = urlgen::workload(seed, patterns.iter().map(Vec::as_slice), count);
    urls.extend(PATHS.iter().map(|p| p.as_bytes().to_vec()));
    urls.push(b"/robots.txt".to_vec());
    urls
}

#[test]
fn corpus_with_synthesised_signals_matches_oracle() {
    let full = std::env::var_os("ROBOCC_SIGNALS_FULL").is_some();
    let files = common::all_real_files();
    let step = if full { 1 } else { (files.len() / 40).max(1) };
    let (mut n, mut dropped, mut policies) = (0, 0, 0);
    let training = [TRAINING_AGENT.to_string()];
    for (i, path) in files.iter().enumerate().step_by(step) {
        let body = std::fs::read(path).unwrap();
        let synth = synthesize(&body, i as u64);
        let urls = urls_for(&synth, i as u64, if full { 100 } else { 60 });
        let name = path.file_name().unwrap().to_string_lossy();
        let runs = [
            (&[AGENT][..], &training[..]),
            (&["UnlistedBot"], &training[..]),
            (&[AGENT], &[][..]),
            (&[AGENT, "UnlistedBot"], &training[..]),
            (&[TRAINING_AGENT, "UnlistedBot"], &training[..]),
        ];
        // Both groupings of the preference lines, alternately by file.
        let grouping = PreferenceGrouping::ALL[i / step % 2];
        for (agent, training) in runs {
            policies += 1;
            match assert_agree(&name, &synth, agent, training, grouping, &urls) {
                Some(k) => n += k,
                None => dropped += 1,
            }
        }
    }
    eprintln!(
        "signals corpus differential: {policies} policies, {dropped} with the statements \
         dropped (budget), {n} checks"
    );
    assert!(n > 15_000, "{n} checks");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn random_signal_files_match_oracle(body in signals_file(), seed in any::<u64>()) {
        let urls = urls_for(&body, seed, 20);
        let training = vec![TRAINING_AGENT.to_string()];
        let (spec, crawl) = (PreferenceGrouping::Spec, PreferenceGrouping::Crawl);
        prop_assert!(assert_agree("proptest", &body, &[AGENT], &training, spec, &urls).is_some());
        prop_assert!(assert_agree("proptest", &body, &[AGENT], &training, crawl, &urls).is_some());
        prop_assert!(
            assert_agree("proptest", &body, &["UnlistedBot"], &[], spec, &urls).is_some()
        );
        let pair = [AGENT, TRAINING_AGENT];
        prop_assert!(assert_agree("proptest", &body, &pair, &training, spec, &urls).is_some());
    }
}

/// `--url-mode rfc`: a Content-Usage path is encoded as an Allow/Disallow
/// pattern is (attach-05 §3.1: "the same percent-encoding rules"): the
/// RFC's normalisation, whose length ranks it. The oracle above reads
/// Google mode only, so the cases are written out.
#[test]
fn rfc_mode_encodes_content_usage_paths_as_rules() {
    let body = b"User-agent: *\nAllow: /\n\
        Content-Usage: /%61%62 train-ai=n\n\
        Content-Usage: /abc train-ai=y\n\
        Content-Usage: /a$b search=n\n\
        Content-Usage: /%7Euser search=n\n";
    let options = CompileOptions {
        url_mode: robocc_engine::UrlMode::Rfc,
        ..CompileOptions::default()
    };
    let compiled = compile(body, "bot", &options).unwrap();
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let pref = |url: &str, usage| policy.preference(url.as_bytes(), usage).map(|v| v.allowed);
    // `/%61%62` is `/ab`: it matches both spellings of the URL.
    assert_eq!(pref("https://e.com/abx", Usage::TrainAi), Some(false));
    assert_eq!(pref("https://e.com/%61%62x", Usage::TrainAi), Some(false));
    // Ranked by its normalised length (3), below `/abc` (4).
    assert_eq!(pref("https://e.com/abcd", Usage::TrainAi), Some(true));
    // A `$` inside a path and `%7E` match as the same Disallow would.
    assert_eq!(pref("https://e.com/a$b", Usage::Search), Some(false));
    assert_eq!(pref("https://e.com/~user/", Usage::Search), Some(false));
    assert_eq!(pref("https://e.com/x", Usage::Search), None);
}
