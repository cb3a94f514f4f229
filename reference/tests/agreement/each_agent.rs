//! Each agent answered separately (`compile_each`, `--each-agent`): every
//! agent's answer from the one shared policy equals that of the policy
//! compiled for it alone — verdict, and the deciding rule's line, pattern
//! and kind — on crawl and every usage (and the tri-state preference), on:
//!
//! * a sample of ../shared/corpus/real (every 250th file; all of them with
//!   `ROBOCC_FULL=1`) × generated URLs × the agents each names and a list
//!   of AI crawlers and search engines, in both URL modes and draft1996;
//! * the same files with AI-usage statements synthesised (signal
//!   channels, set mode);
//! * random whole files and random sets of agents (proptest).
//!
//! The one-agent policies are the independent side here: their own
//! agreement with the oracles is the rest of this binary. Also: the
//! each-agent check paths allocate nothing, agents whose rule sets are
//! equal share a column, and acap is refused.

use crate::common::{agents_of, shared_real, txt_files};
use proptest::prelude::*;
use robocc_compiler::{compile, compile_each, CompileError, CompileOptions};
use robocc_engine::{Dialect, Policy, RuleId, UrlMode, Usage, Verdict};
use robocc_testkit::crawlers::CRAWLERS;
use robocc_testkit::heap::allocations_during;
use robocc_testkit::{signals, urlgen};

/// What an answer says, comparable across policies: allowed, and the
/// deciding rule's line, kind and pattern.
type Said = (bool, Option<(u32, bool, Vec<u8>)>);

fn said(p: &Policy<'_>, v: Verdict) -> Said {
    let rule = v.rule.map(|id: RuleId| {
        let r = p.rule(id).expect("a verdict names a rule of its policy");
        (r.line, r.allow, r.pattern.to_vec())
    });
    (v.allowed, rule)
}

/// Compiles `body` for each of `agents` at once and alone, and holds every
/// answer of the shared policy to the agent's own; returns the answers
/// compared.
fn assert_each_agrees(
    name: &str,
    body: &[u8],
    agents: &[&str],
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    let each = match compile_each(body, agents, opts) {
        Ok(each) => each,
        // Over the budget only where an agent alone is too.
        Err(CompileError::Budget(e)) => {
            assert!(
                agents.iter().any(|a| compile(body, *a, opts).is_err()),
                "{name}: over the budget for each agent ({e}), though every one fits alone"
            );
            return 0;
        }
        Err(e) => panic!("{name}: {e}"),
    };
    let bytes = each.to_bytes();
    let shared = Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let listed: Vec<&str> = shared.agents().collect();
    assert_eq!(listed.len(), shared.agent_count(), "{name}");
    let alone: Vec<_> = listed
        .iter()
        .map(|a| {
            compile(body, *a, opts)
                .unwrap_or_else(|e| panic!("{name} ({a}): {e}"))
                .to_bytes()
        })
        .collect();
    let alone: Vec<Policy<'_>> = alone
        .iter()
        .map(|b| Policy::from_bytes(b).unwrap())
        .collect();
    // Columns: one per distinct rule set (the agents alone have as many
    // distinct rule tables).
    let mut tables: Vec<Vec<robocc_engine::RuleRef<'_>>> = Vec::new();
    for p in &alone {
        let rules: Vec<_> = p.rules().collect();
        if !tables.contains(&rules) {
            tables.push(rules);
        }
    }
    assert_eq!(each.data.columns as usize, tables.len(), "{name}: columns");
    let n = listed.len();
    let blank = Verdict {
        allowed: false,
        rule: Some(RuleId::new(u32::MAX)),
    };
    let (mut got, mut prefs) = (vec![blank; n], vec![Some(blank); n]);
    let mut compared = 0;
    for url in urls {
        shared.check_each(url, &mut got);
        for (i, p) in alone.iter().enumerate() {
            assert_eq!(
                said(&shared, got[i]),
                said(p, p.check(url)),
                "{name}: agent {} on {:?} ({:?}, {:?}, training {:?})",
                listed[i],
                String::from_utf8_lossy(url),
                opts.dialect,
                opts.url_mode,
                opts.training_agents
            );
        }
        for &u in Usage::ALL {
            shared.check_each_usage(url, u, &mut got);
            shared.preference_each(url, u, &mut prefs);
            for (i, p) in alone.iter().enumerate() {
                let what = || {
                    format!(
                        "{name}: agent {} on {:?}, {u:?}",
                        listed[i],
                        String::from_utf8_lossy(url)
                    )
                };
                assert_eq!(
                    said(&shared, got[i]),
                    said(p, p.check_usage(url, u)),
                    "{}",
                    what()
                );
                assert_eq!(
                    prefs[i].map(|v| said(&shared, v)),
                    p.preference(url, u).map(|v| said(p, v)),
                    "{}",
                    what()
                );
            }
        }
        compared += n;
    }
    // The first agent is what the one-answer methods answer.
    for url in urls.iter().take(20) {
        assert_eq!(
            said(&shared, shared.check(url)),
            said(&alone[0], alone[0].check(url)),
            "{name}: check answers the first agent"
        );
    }
    compared
}

/// The agents of `body`'s own user-agent lines (up to four, and
/// `UnlistedBot`) and the crawler list.
fn agents_for(body: &[u8]) -> Vec<String> {
    let mut agents = agents_of(body, 5);
    // Every third of the report's 20: AI crawlers and search engines.
    for c in CRAWLERS.iter().step_by(3) {
        if !agents.iter().any(|a| a.eq_ignore_ascii_case(c)) {
            agents.push(c.to_string());
        }
    }
    agents
}

fn check_file(path: &std::path::Path, urls: usize) -> usize {
    let body = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let agents = agents_for(&body);
    let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
    let Ok(c) = compile(&body, agents[0], &CompileOptions::default()) else {
        // Over the budget alone: nothing to compare with.
        return 0;
    };
    let urls = urlgen::workload(0xeac4, c.rule_set.patterns(), urls);
    let mut n = 0;
    for (dialect, url_mode) in [
        (Dialect::Rfc9309, UrlMode::Google),
        (Dialect::Rfc9309, UrlMode::Rfc),
        (Dialect::Draft1996, UrlMode::Google),
    ] {
        let opts = CompileOptions {
            dialect,
            url_mode,
            ..CompileOptions::default()
        };
        n += assert_each_agrees(&name, &body, &agents, &opts, &urls);
    }
    // Signal channels: AI-usage statements added to the file's groups.
    let with_signals = signals::synthesize(&body, 7);
    let opts = CompileOptions::default();
    n += assert_each_agrees(&name, &with_signals, &agents, &opts, &urls);
    // A training token: its rules (the file's own path among them, equal to
    // crawl's) in every column that obeys the groups it reads.
    let training = CompileOptions {
        training_agents: vec![signals::TRAINING_AGENT.into()],
        ..CompileOptions::default()
    };
    n + assert_each_agrees(&name, &with_signals, &agents, &training, &urls)
}

/// A sample of ../shared/corpus/real (every file with `ROBOCC_FULL=1`).
#[test]
fn shared_corpus_each_agent_matches_one_agent_policies() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not found: skipped");
        return;
    };
    let full = std::env::var_os("ROBOCC_FULL").is_some();
    let files = txt_files(&dir);
    let (step, urls) = if full { (1, 200) } else { (250, 40) };
    let checked: usize = files
        .iter()
        .step_by(step)
        .map(|f| check_file(f, urls))
        .sum();
    assert!(checked > 20_000, "only {checked} answers compared");
}

/// The per-column form on a sample of the corpus: a budget of few states
/// per automaton puts most joint automata over it, so each column is
/// lowered alone, its rules split over several automata (combined by rank
/// per column, ties by rule id) or kept in a register automaton; each
/// agent's answer still equals its one-agent policy's under the same
/// budget.
#[test]
fn per_column_form_matches_one_agent_policies() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not found: skipped");
        return;
    };
    let full = std::env::var_os("ROBOCC_FULL").is_some();
    let files = txt_files(&dir);
    let opts = CompileOptions {
        budget: robocc_compiler::Budget {
            max_states: 60,
            ..robocc_compiler::Budget::default()
        },
        ..CompileOptions::default()
    };
    let (mut checked, mut per_column, mut split) = (0, 0, 0);
    for path in files.iter().skip(7).step_by(if full { 1 } else { 300 }) {
        let body = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let agents = agents_for(&body);
        let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
        let Ok(c) = compile(&body, agents[0], &opts) else {
            continue;
        };
        let urls = urlgen::workload(0xc01, c.rule_set.patterns(), 30);
        if let Ok(each) = compile_each(&body, &agents, &opts) {
            let parts = &each.data.parts;
            per_column += usize::from(each.data.columns > 1 && !parts.is_empty());
            split += usize::from(parts.iter().any(|p| p.automata.len() > 1));
        }
        checked += assert_each_agrees(&name, &body, &agents, &opts, &urls);
        let with_signals = signals::synthesize(&body, 11);
        checked += assert_each_agrees(&name, &with_signals, &agents, &opts, &urls);
    }
    assert!(checked > 5_000, "only {checked} answers compared");
    assert!(
        per_column >= 1 && split >= 3,
        "{per_column} policies of several columns per column, {split} with a column split"
    );
}

/// Files of the corpus whose columns' joint automaton is over the budget
/// (a sample of the smaller ones; `bench --bin each_agent --list` names
/// them all) compile for each agent, per column, and answer as each agent
/// alone.
#[test]
fn formerly_over_budget_files_compile_per_column() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not found: skipped");
        return;
    };
    let mut checked = 0;
    for name in OVER_BUDGET_JOINTLY {
        let path = dir.join(name);
        let body = std::fs::read(&path).unwrap();
        let agents = agents_for(&body);
        let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
        let opts = CompileOptions::default();
        let each = compile_each(&body, &agents, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            each.data.columns > 1 && !each.data.parts.is_empty(),
            "{name}: {} columns, joint",
            each.data.columns
        );
        let c = compile(&body, agents[0], &opts).unwrap();
        let urls = urlgen::workload(0x0b, c.rule_set.patterns(), 25);
        checked += assert_each_agrees(name, &body, &agents, &opts, &urls);
    }
    assert!(checked > 500, "only {checked} answers compared");
}

/// See [`formerly_over_budget_files_compile_per_column`].
const OVER_BUDGET_JOINTLY: &[&str] = &[
    "protego__www.belk.com.txt",
    "protego__www.hamburg.de.txt",
    "protego__www.grainger.com.txt",
];

/// Agents whose groups coincide share one column: a file naming one of
/// twenty agents has two distinct rule sets, and the shared policy is the
/// size of the two-agent one, not twenty times it.
#[test]
fn coinciding_agents_share_a_column() {
    let body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\nAllow: /private/ok\n";
    let twenty: Vec<String> = (b'A'..b'T')
        .map(|c| format!("Bot{}", c as char))
        .chain(["GPTBot".to_string()])
        .collect();
    let opts = CompileOptions::default();
    let two = compile_each(body, ["BotA", "GPTBot"], &opts).unwrap();
    let all = compile_each(body, &twenty, &opts).unwrap();
    assert_eq!((two.data.columns, all.data.columns), (2, 2));
    assert_eq!(two.data.policy.automata, all.data.policy.automata);
    assert_eq!(two.data.policy.outcomes, all.data.policy.outcomes);
    let bytes = all.to_bytes();
    let p = Policy::from_bytes(&bytes).unwrap();
    let mut out = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        20
    ];
    p.check_each(b"/private/x", &mut out);
    assert!(out[..19].iter().all(|v| !v.allowed) && !out[19].allowed);
    p.check_each(b"/private/ok", &mut out);
    assert!(out[..19].iter().all(|v| v.allowed) && !out[19].allowed);
    p.check_each(b"/public", &mut out);
    assert!(out[..19].iter().all(|v| v.allowed && v.rule.is_none()) && !out[19].allowed);
    let lines: Vec<u32> = out
        .iter()
        .map(|v| {
            p.rule(v.rule.unwrap_or(RuleId::new(u32::MAX)))
                .map_or(0, |r| r.line)
        })
        .collect();
    assert_eq!(lines[19], 2);
}

/// acap answers one crawler: refused, with the reason.
#[test]
fn acap_is_refused() {
    let opts = CompileOptions {
        dialect: Dialect::Acap,
        ..CompileOptions::default()
    };
    match compile_each(b"User-agent: *\nDisallow: /\n", ["A", "B"], &opts) {
        Err(CompileError::EachAgent(why)) => assert!(why.contains("acap"), "{why}"),
        other => panic!("{other:?}"),
    }
    let none: [&str; 0] = [];
    assert!(matches!(
        compile_each(b"", none, &CompileOptions::default()),
        Err(CompileError::EachAgent(_))
    ));
}

/// The each-agent check paths allocate nothing (this binary's allocator
/// counts per thread).
#[test]
fn each_agent_checks_do_not_allocate() {
    let body =
        std::fs::read(crate::common::root().join("corpus/real/texting_robots__reddit.robots.txt"))
            .unwrap();
    let body = signals::synthesize(&body, 3);
    let opts = CompileOptions {
        training_agents: vec![signals::TRAINING_AGENT.into()],
        ..CompileOptions::default()
    };
    let agents = agents_for(&body);
    // Joint, and per column (a budget the joint automaton is over).
    let small = CompileOptions {
        budget: robocc_compiler::Budget {
            max_states: 300,
            ..robocc_compiler::Budget::default()
        },
        ..CompileOptions::default()
    };
    let plain = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /*.pdf$\nAllow: /a\n";
    let forms = [
        compile_each(&body, &agents, &opts).unwrap(),
        compile_each(plain, ["GPTBot", "BotA"], &CompileOptions::default()).unwrap(),
        compile_each(&body, &agents, &small).unwrap(),
    ];
    assert!(forms.iter().any(|e| e.data.parts.is_empty()), "a joint one");
    assert!(
        forms
            .iter()
            .any(|e| e.data.parts.iter().any(|p| p.automata.len() > 1)),
        "a column over several automata"
    );
    for each in &forms {
        each_check_allocates_nothing(each);
    }
}

fn each_check_allocates_nothing(each: &robocc_compiler::CompiledEach) {
    let bytes = each.to_bytes();
    let p = Policy::from_bytes(&bytes).unwrap();
    let urls = urlgen::workload(5, each.rule_set.patterns(), 2_000);
    let n = p.agent_count();
    let mut out = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        n
    ];
    let mut prefs = vec![None; n];
    let mut seen = [0usize; 2];
    let allocations = allocations_during(|| {
        for url in &urls {
            p.check_each(url, &mut out);
            for v in &out {
                seen[usize::from(v.allowed)] += 1;
            }
            for &u in Usage::ALL {
                p.check_each_usage(url, u, &mut out);
                p.preference_each(url, u, &mut prefs);
                seen[1] += prefs.iter().flatten().filter(|v| v.allowed).count();
            }
            seen[1] += p.agents().len();
        }
    });
    assert_eq!(allocations, 0, "{allocations} allocations");
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Whole random files (the line shapes of the one-agent proptest) for
    /// a random list of agents, in both URL modes, joint or (few states
    /// per automaton) per column.
    #[test]
    fn random_files_each_agent_matches_one_agent_policies(
        lines in proptest::collection::vec(crate::differential::file_line(), 0..16),
        picks in proptest::sample::subsequence(
            vec!["AnyBot", "Other", "AnyBot-Extra", "Unlisted", "anybot", "GPTBot"], 1..=5),
        urls in proptest::collection::vec(crate::differential::url(), 1..16),
        rfc in any::<bool>(),
        few_states in any::<bool>(),
    ) {
        let body = lines.join("\n").into_bytes();
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            budget: robocc_compiler::Budget {
                max_states: if few_states { 5 } else { 200_000 },
                ..robocc_compiler::Budget::default()
            },
            ..CompileOptions::default()
        };
        let mut urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        urls.extend([&b"/robots.txt"[..], b"/a/", b"/a/index.html", b"/b"].map(<[u8]>::to_vec));
        assert_each_agrees("proptest (each agent)", &body, &picks, &opts, &urls);
    }
}

/// A damage done to an each-agent artifact's tables.
type Damage = Box<dyn Fn(&mut robocc_engine::artifact::EachAgentData)>;

/// Asserts that `each`'s artifact is refused with any byte xored with one
/// of `flips`, cut at every `cut_step`-th length, and with each of
/// `damages` done behind a valid frame (an invalid or unreadable archive,
/// never a panic nor an answer).
fn assert_refused(
    each: &robocc_compiler::CompiledEach,
    flips: &[u8],
    cut_step: usize,
    damages: Vec<(&str, Damage)>,
) {
    use robocc_engine::{AlignedBytes, LoadErrorKind};
    let bytes = each.to_bytes();
    for i in 0..bytes.len() {
        for bit in flips {
            let mut damaged = bytes.to_vec();
            damaged[i] ^= bit;
            let damaged = AlignedBytes::copy_from_slice(&damaged);
            assert!(
                Policy::from_bytes(&damaged).is_err(),
                "byte {i} ^ {bit:#x} accepted"
            );
        }
    }
    for len in (0..bytes.len()).step_by(cut_step) {
        let cut = AlignedBytes::copy_from_slice(&bytes[..len]);
        assert!(Policy::from_bytes(&cut).is_err(), "cut at {len} accepted");
    }
    let blank = Verdict {
        allowed: true,
        rule: None,
    };
    for (what, damage) in damages {
        let mut d = each.clone();
        damage(&mut d.data);
        let bytes = d.to_bytes();
        match Policy::from_bytes(&bytes) {
            Err(e) => assert!(
                matches!(
                    e.kind(),
                    LoadErrorKind::Invalid(_) | LoadErrorKind::Archive(_)
                ),
                "{what}: {e}"
            ),
            Ok(p) => {
                let mut out = vec![blank; p.agent_count()];
                p.check_each(b"/a", &mut out);
                panic!("{what}: accepted");
            }
        }
    }
}

/// A damaged each-agent artifact is refused, never a panic: every byte of
/// a small one flipped (the frame's checksum, or validation before it,
/// refuses each), every truncation, and tables damaged behind a valid
/// frame (a column out of range or unused, no agent, an unknown
/// selection, a second automaton, an outcome table of the wrong stride).
#[test]
fn corrupted_each_agent_artifacts_are_refused() {
    let body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: ClaudeBot\nAllow: /a\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n";
    let each = compile_each(
        body,
        ["GPTBot", "BotA", "ClaudeBot"],
        &CompileOptions::default(),
    )
    .unwrap();
    assert_eq!(each.data.columns, 3);
    let damages: Vec<(&str, Damage)> = vec![
        ("column out of range", Box::new(|d| d.agents[1].column = 3)),
        ("unused column", Box::new(|d| d.agents[2].column = 0)),
        ("no agent", Box::new(|d| d.agents.clear())),
        ("zero columns", Box::new(|d| d.columns = 0)),
        (
            "unknown selection",
            Box::new(|d| d.agents[0].selection = 200),
        ),
        (
            "two automata",
            Box::new(|d| {
                let a = d.policy.automata[0].clone();
                d.policy.automata.push(a);
            }),
        ),
        (
            "outcomes of another stride",
            Box::new(|d| {
                d.policy.outcomes.pop();
            }),
        ),
    ];
    assert_refused(&each, &[0x01, 0x80], 1, damages);
    let bytes = each.to_bytes();
    let mut out = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        3
    ];
    // Intact, it answers.
    let p = Policy::from_bytes(&bytes).unwrap();
    p.check_each(b"/a", &mut out);
    assert_eq!(
        out.iter().map(|v| v.allowed).collect::<Vec<_>>(),
        [false, true, true]
    );
}

/// A damaged per-column each-agent artifact is refused, never a panic:
/// every byte flipped, every truncation, and its parts damaged behind a
/// valid frame (a part missing, a part without automaton or outcomes, an
/// outcome naming a rule out of range, an automaton naming an outcome out
/// of range, a part's automata out of `max_rank` order, a joint automaton
/// beside the parts).
#[test]
fn corrupted_per_column_artifacts_are_refused() {
    use robocc_engine::artifact::outcome_word;
    let body = b"User-agent: GPTBot\nDisallow: /*a\nAllow: /*ab\nDisallow: /x/*y$\n\nUser-agent: *\nDisallow: /private\nAllow: /*.pdf$\nDisallow: /*q=\n";
    // Few states per automaton: the joint one is over, the columns split.
    let opts = CompileOptions {
        budget: robocc_compiler::Budget {
            max_states: 20,
            ..robocc_compiler::Budget::default()
        },
        ..CompileOptions::default()
    };
    let agents = ["GPTBot", "BotA"];
    let each = compile_each(body, agents, &opts).unwrap();
    assert_eq!((each.data.columns, each.data.parts.len()), (2, 2));
    let split = each.data.parts.iter().position(|p| p.automata.len() > 1);
    let split = split.expect("a column split over several automata");
    let rules = each.data.policy.rules.len() as u32;
    let damages: Vec<(&str, Damage)> = vec![
        ("a part missing", Box::new(|d| drop(d.parts.pop()))),
        (
            "a part without automaton",
            Box::new(|d| d.parts[0].automata.clear()),
        ),
        (
            "a part without outcomes",
            Box::new(|d| d.parts[1].outcomes.clear()),
        ),
        (
            "an outcome naming a rule out of range",
            Box::new(move |d| {
                let last = d.parts[0].outcomes.len() - 1;
                d.parts[0].outcomes[last] = outcome_word(false, rules);
            }),
        ),
        (
            "an automaton naming an outcome out of range",
            Box::new(move |d| d.parts[split].outcomes.truncate(1)),
        ),
        (
            "automata out of max_rank order",
            Box::new(move |d| {
                let a = &mut d.parts[split].automata;
                a[0].max_rank = 0;
                a[1].max_rank = 1;
            }),
        ),
        (
            "a joint automaton beside the parts",
            Box::new(|d| {
                d.policy.automata.push(d.parts[0].automata[0].clone());
                d.policy.outcomes = d.parts[0].outcomes.clone();
            }),
        ),
    ];
    assert_refused(&each, &[0x10], 7, damages);
    // Intact, it answers as each agent alone.
    let urls: Vec<Vec<u8>> = ["/a", "/ab", "/x/1y", "/private/a.pdf", "/p?q=1", "/b"]
        .iter()
        .map(|u| u.as_bytes().to_vec())
        .collect();
    assert!(assert_each_agrees("per column", body, &agents, &opts, &urls) > 0);
}
