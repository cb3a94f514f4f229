//! Several agents in one policy (rfc9309): Google's
//! `AllowedByRobots(body, &user_agents, url)`, whose `HandleUserAgent`
//! makes a group specific when one of its user-agent lines names any of
//! the agents. The engine, the `Checker` and the independent oracle
//! (`Rfc9309Oracle::for_agents`) are held to:
//!
//! * hand-written cases, the verdict and the deciding line worked out from
//!   `robots.cc` (agents in one group, in separate groups, only `*`, none),
//!   in both URL modes;
//! * every file of corpus/real (and a sample of ../shared/corpus/real,
//!   all of it with `ROBOCC_FULL=1`) × generated URLs × pairs and triples
//!   of the agents it names, with `UnlistedBot` (so that `*` answers when
//!   none is named), in both URL modes;
//! * random whole files and random sets of agents (proptest).

use crate::common;

use common::{agents_of, assert_agree_for, shared_real, txt_files};
use proptest::prelude::*;
use robocc_compiler::{compile, Checker, CompileOptions, ParseOptions, Promotion};
use robocc_engine::{Policy, UrlMode};
use robocc_reference::{OracleVerdict, Rfc9309Options, Rfc9309Oracle};
use robocc_testkit::urlgen;

/// Google's library exactly: `/robots.txt` judged by the rules, no parse
/// limit.
fn google_options(url_mode: UrlMode) -> CompileOptions {
    CompileOptions {
        url_mode,
        robots_txt_allowed: false,
        parse: ParseOptions {
            max_bytes: 0,
            ..ParseOptions::default()
        },
        ..CompileOptions::default()
    }
}

/// A URL's expected answer: allowed, and the line `matching_line()` gives
/// (`None` for its 0: no rule of the chosen tier matched).
type Want = (&'static str, bool, Option<u32>);

/// One body, a set of agents, and the answers for some URLs.
struct Case {
    what: &'static str,
    body: &'static str,
    agents: &'static [&'static str],
    want: &'static [Want],
}

/// Agents named in one group: that group's rules, the `*` group ignored
/// even where no rule of theirs matches (`ever_seen_specific_agent_`).
const ONE_GROUP: &str = "\
User-agent: FooBot
User-agent: BarBot
Disallow: /a
Allow: /a/b

User-agent: *
Disallow: /
";

/// Agents named in separate groups: the specific matches of both are one
/// pool: the longest Allow and the longest Disallow over the two groups,
/// the first line of a priority kept (`Set` only on a strictly higher
/// priority), the Disallow deciding only when strictly longer.
const SEPARATE_GROUPS: &str = "\
User-agent: FooBot
Disallow: /shop
Allow: /shop/cart
Disallow: /tie
Disallow: /dup

User-agent: BarBot
Allow: /shop/
Disallow: /shop/cart/x
Allow: /tie
Disallow: /dup

User-agent: *
Disallow: /
";

/// No group names the agents: the `*` group's rules.
const ONLY_STAR: &str = "\
User-agent: FooBot
Disallow: /

User-agent: *
Disallow: /private
Allow: /private/open
";

/// Google's `ID_LineSyntax_Groups` file: a rule before any user-agent
/// line is ignored, `BazBot` and the second `FooBot` share a group (no
/// rule between their lines), and blank lines end nothing.
const GOOGLE_GROUPS: &str = "\
allow: /foo/bar/

user-agent: FooBot
disallow: /
allow: /x/
user-agent: BarBot
disallow: /
allow: /y/


allow: /w/
user-agent: BazBot

user-agent: FooBot
allow: /z/
disallow: /
";

/// A `*` line in the group that names one of the agents: the group is
/// specific (its rules are the agents'), and for agents it does not name
/// it is the global group.
const STAR_AND_NAMED: &str = "\
User-agent: *
User-agent: FooBot
Disallow: /a

User-agent: BarBot/2.1
Disallow: /b
";

/// A group naming an agent with no rules still sets
/// `ever_seen_specific_agent_`: the `*` group no longer applies.
const NAMED_WITHOUT_RULES: &str = "\
User-agent: *
Disallow: /

User-agent: BazBot
";

const CASES: &[Case] = &[
    Case {
        what: "agents in one group",
        body: ONE_GROUP,
        agents: &["FooBot", "BarBot"],
        want: &[
            ("/a/x", false, Some(3)),
            ("/a/b", true, Some(4)),
            ("/c", true, None),
            ("/robots.txt", true, None),
        ],
    },
    Case {
        what: "one of the agents in the group",
        body: ONE_GROUP,
        agents: &["QuxBot", "barbot"],
        want: &[("/a/x", false, Some(3)), ("/c", true, None)],
    },
    Case {
        what: "agents in separate groups",
        body: SEPARATE_GROUPS,
        agents: &["FooBot", "BarBot"],
        want: &[
            // Allow /shop/cart (10, line 3) against Disallow /shop/cart/x
            // (12, line 9).
            ("/shop/cart/x/1", false, Some(9)),
            // Allow /shop/cart (10) beats BarBot's Allow /shop/ (6).
            ("/shop/cart", true, Some(3)),
            // Only FooBot's Disallow /shop matches: BarBot alone would be
            // allowed here, the pool is not.
            ("/shop", false, Some(2)),
            ("/shopping", false, Some(2)),
            // Equal length across the groups: the Allow.
            ("/tie", true, Some(10)),
            // Equal length, same kind: the first line.
            ("/dup", false, Some(5)),
            ("/other", true, None),
        ],
    },
    Case {
        what: "the second group alone",
        body: SEPARATE_GROUPS,
        agents: &["BarBot", "QuxBot"],
        want: &[
            ("/shop/cart/x/1", false, Some(9)),
            ("/shop/cart", true, Some(8)),
            ("/shop", true, None),
            ("/dup", false, Some(11)),
        ],
    },
    Case {
        what: "no group names the agents: only *",
        body: ONLY_STAR,
        agents: &["QuxBot", "QuuxBot"],
        want: &[
            ("/private/x", false, Some(5)),
            ("/private/open", true, Some(6)),
            ("/public", true, None),
        ],
    },
    Case {
        what: "one agent named, so * is ignored",
        body: ONLY_STAR,
        agents: &["QuxBot", "FooBot"],
        want: &[
            ("/private/open", false, Some(2)),
            ("/public", false, Some(2)),
        ],
    },
    Case {
        what: "neither a named nor a * group",
        body: "User-agent: FooBot\nDisallow: /\n",
        agents: &["BarBot", "BazBot"],
        want: &[("/", true, None), ("/x", true, None)],
    },
    Case {
        what: "Google's groups file, FooBot and BarBot",
        body: GOOGLE_GROUPS,
        agents: &["FooBot", "BarBot"],
        want: &[
            ("/x/b", true, Some(5)),
            ("/y/c", true, Some(8)),
            ("/w/a", true, Some(11)),
            ("/z/d", true, Some(15)),
            // Disallow: / of priority 1, first at line 4; the Allow
            // before any user-agent line is no rule.
            ("/foo/bar/", false, Some(4)),
        ],
    },
    Case {
        what: "Google's groups file, BazBot and BarBot",
        body: GOOGLE_GROUPS,
        agents: &["BazBot", "BarBot"],
        want: &[
            // FooBot's first group is not theirs; line 7 is the first
            // Disallow: / of theirs.
            ("/x/b", false, Some(7)),
            ("/y/c", true, Some(8)),
            ("/z/d", true, Some(15)),
        ],
    },
    Case {
        what: "* beside a named agent in one group",
        body: STAR_AND_NAMED,
        agents: &["FooBot", "QuxBot"],
        want: &[("/a", false, Some(3)), ("/b", true, None)],
    },
    Case {
        what: "a version after the token still names it",
        body: STAR_AND_NAMED,
        agents: &["BarBot", "QuxBot"],
        want: &[("/b", false, Some(6)), ("/a", true, None)],
    },
    Case {
        what: "unnamed agents read the group with *",
        body: STAR_AND_NAMED,
        agents: &["QuxBot", "QuuxBot"],
        want: &[("/a", false, Some(3)), ("/b", true, None)],
    },
    Case {
        what: "a named group without rules",
        body: NAMED_WITHOUT_RULES,
        agents: &["QuxBot", "BazBot"],
        want: &[("/x", true, None)],
    },
    Case {
        what: "the same without the named agent",
        body: NAMED_WITHOUT_RULES,
        agents: &["QuxBot", "QuuxBot"],
        want: &[("/x", false, Some(2))],
    },
];

/// The engine's answer as the oracle gives it: the deciding rule's line.
fn engine_answer(policy: &Policy<'_>, url: &[u8]) -> OracleVerdict {
    let v = policy.check(url);
    OracleVerdict {
        allowed: v.allowed,
        line: v.rule.and_then(|r| policy.rule(r)).map(|r| r.line),
    }
}

#[test]
fn hand_written_cases_from_robots_cc() {
    for mode in [UrlMode::Google, UrlMode::Rfc] {
        let opts = google_options(mode);
        let oracle_opts = Rfc9309Options {
            url_mode: mode,
            ..Rfc9309Options::google()
        };
        for case in CASES {
            let body = case.body.as_bytes();
            let name = format!("{} ({mode:?}) {:?}", case.what, case.agents);
            let oracle = Rfc9309Oracle::for_agents(body, case.agents, &oracle_opts);
            let compiled = compile(body, case.agents, &opts).unwrap();
            assert_eq!(compiled.data.header.agent, case.agents.join(","), "{name}");
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).unwrap();
            let interp =
                Checker::with_promotion(body, case.agents, &opts, Promotion::Never).unwrap();
            let now = Checker::with_promotion(body, case.agents, &opts, Promotion::Now).unwrap();
            assert!(now.is_compiled(), "{name}");
            for &(url, allowed, line) in case.want {
                let url = format!("https://example.com{url}");
                let want = OracleVerdict { allowed, line };
                let url = url.as_bytes();
                assert_eq!(oracle.check(url), want, "{name}: oracle, {url:?}");
                assert_eq!(engine_answer(&policy, url), want, "{name}: engine, {url:?}");
                for (who, c) in [("interpreted", &interp), ("compiled", &now)] {
                    let v = c.check(url);
                    let got = OracleVerdict {
                        allowed: v.allowed,
                        line: v.rule.and_then(|r| c.rule(r)).map(|r| r.line),
                    };
                    assert_eq!(got, want, "{name}: {who} checker, {url:?}");
                }
            }
        }
    }
}

/// The agent sets of a file: pairs of the tokens it names (with
/// `UnlistedBot`, so that a set where only one is named, and one where
/// none is, both occur), and triples; at most `max` sets.
fn agent_sets(body: &[u8], max: usize) -> Vec<Vec<String>> {
    let mut names = agents_of(body, 6);
    // `agents_of` puts UnlistedBot first: one more unnamed token makes a
    // set that only `*` (or nothing) answers.
    names.insert(1, "OtherUnlistedBot".to_string());
    let mut sets: Vec<Vec<String>> = Vec::new();
    for i in 0..names.len() {
        for j in i + 1..names.len() {
            sets.push(vec![names[i].clone(), names[j].clone()]);
        }
    }
    for i in 2..names.len() {
        for j in i + 1..names.len() {
            sets.push(vec![names[0].clone(), names[i].clone(), names[j].clone()]);
        }
    }
    sets.truncate(max);
    sets
}

/// Compiles `path` for each of its agent sets in both URL modes and holds
/// the engine to the rule-set reference and the oracle; returns the URLs
/// checked.
fn check_file(path: &std::path::Path, max_sets: usize, urls_per_set: usize) -> usize {
    let body = std::fs::read(path).unwrap();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut n = 0;
    for mode in [UrlMode::Google, UrlMode::Rfc] {
        let opts = CompileOptions {
            url_mode: mode,
            budget: robocc_compiler::Budget {
                time: std::time::Duration::from_secs(3600),
                ..robocc_compiler::Budget::default()
            },
            ..CompileOptions::default()
        };
        for set in agent_sets(&body, max_sets) {
            let agents: Vec<&str> = set.iter().map(String::as_str).collect();
            let c = compile(&body, &agents, &opts).unwrap();
            let seed = robocc_engine::artifact::fnv1a64(format!("{file}{set:?}").as_bytes());
            let urls = urlgen::workload(seed, c.rule_set.patterns(), urls_per_set);
            let name = format!("{file} ({mode:?})");
            n += assert_agree_for(&name, &body, &agents, &opts, &urls);
        }
    }
    n
}

#[test]
fn corpus_real_several_agents_match_oracle() {
    let files = txt_files(&common::root().join("corpus/real"));
    assert!(files.len() >= 40, "corpus/real has {} files", files.len());
    let checked: usize = files.iter().map(|f| check_file(f, 12, 150)).sum();
    assert!(checked > 50_000, "only {checked} URLs checked");
}

/// A sample of ../shared/corpus/real (every file with `ROBOCC_FULL=1`).
#[test]
fn shared_corpus_several_agents_match_oracle() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not found: skipped");
        return;
    };
    let full = std::env::var_os("ROBOCC_FULL").is_some();
    let files = txt_files(&dir);
    let step = if full { 1 } else { 25 };
    let (sets, urls) = if full { (12, 100) } else { (6, 60) };
    let checked: usize = files
        .iter()
        .step_by(step)
        .map(|f| check_file(f, sets, urls))
        .sum();
    assert!(checked > 10_000, "only {checked} URLs checked");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, .. ProptestConfig::default() })]

    /// Whole random files (the line shapes of the one-agent proptest: the
    /// ways Google reads a user-agent line, other records, typos, any
    /// line ends) for a random set of two or three agents.
    #[test]
    fn random_files_several_agents_match_oracle(
        lines in proptest::collection::vec(crate::differential::file_line(), 0..16),
        ends in proptest::collection::vec(0..3usize, 16),
        picks in proptest::sample::subsequence(
            vec!["AnyBot", "Other", "AnyBot-Extra", "Unlisted", "anybot"], 2..=3),
        urls in proptest::collection::vec(crate::differential::url(), 1..16),
        rfc in any::<bool>(),
        records_close_groups in any::<bool>(),
    ) {
        let mut body = Vec::new();
        for (line, end) in lines.iter().zip(&ends) {
            body.extend_from_slice(line.as_bytes());
            body.extend_from_slice(["\n", "\r\n", "\r"][*end].as_bytes());
        }
        let mut opts = google_options(if rfc { UrlMode::Rfc } else { UrlMode::Google });
        opts.parse.records_close_groups = records_close_groups;
        let mut urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        urls.extend([&b"/robots.txt"[..], b"/a/", b"/a/index.html", b"/b"].map(<[u8]>::to_vec));
        assert_agree_for("proptest (several agents)", &body, &picks, &opts, &urls);
    }
}
