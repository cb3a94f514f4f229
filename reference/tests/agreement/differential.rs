//! The compiled engine must agree with the reference matchers on every input.
//!
//! * every file of corpus/real × generated URLs (pattern-derived hits, near
//!   misses, encodings, random paths), for several agents, in both URL modes;
//! * a sample of ../shared/corpus/real (all of it with ROBOCC_FULL=1);
//! * random rule sets over a small alphabet full of `*` and `$` (proptest);
//! * random whole files (user-agent lines as Google reads them, other
//!   records, prefixes and typos of keys, lines without a colon, comments,
//!   any line ends, byte-order marks) under small parse limits, for the
//!   parse and the group selection (proptest);
//! * the same for draft1996 and robots2: corpus files read in those dialects
//!   (robots2 twice: as written — 1.0 rule sets — and with every record
//!   declared `Robot-version: 2.0`, which makes its patterns explicit and
//!   wildcard ones), and random rule sets over `* ? [..] $ %xx`.
//!
//! Every comparison is made twice (`common::assert_agree`): against the
//! rule-set reference (`robocc_reference::check_url` over the compiler's
//! rule set: same verdict, same rule id), which checks the lowering and the
//! engine; and against the dialect's independent oracle, which reads the
//! body itself (`reference::rfc9309`, `reference::draft1996`,
//! `reference::robots2`: same verdict, same deciding line), which checks
//! the parse and the group or record selection too. `common::DialectOracles`
//! says which known differences of the drafts' escapes are counted instead;
//! [`catch_all_spellings_and_robot_version_placement`] lists readings the
//! robots2 oracle found the engine getting wrong.

use crate::common;

use common::{agents_of, assert_agree, shared_real, take_known_differences, txt_files};
use proptest::prelude::*;
use robocc_compiler::{compile, Budget, CompileOptions, Layout, Registers};
use robocc_engine::{Dialect, UrlMode};
use robocc_testkit::urlgen;

/// One way of reading a corpus file.
#[derive(Clone, Copy, Debug)]
enum Reading {
    Rfc9309(UrlMode),
    Draft1996,
    /// robots2 as written.
    Robots2,
    /// robots2 with `Robot-version: 2.0` after every run of user-agent lines.
    Robots2V2,
    /// rfc9309 (Google URL mode) in the dense layout.
    DenseLayout,
}

const ALL_READINGS: [Reading; 6] = [
    Reading::Rfc9309(UrlMode::Google),
    Reading::Rfc9309(UrlMode::Rfc),
    Reading::Draft1996,
    Reading::Robots2,
    Reading::Robots2V2,
    Reading::DenseLayout,
];

impl Reading {
    fn options(self) -> CompileOptions {
        let (dialect, url_mode) = match self {
            Reading::Rfc9309(mode) => (Dialect::Rfc9309, mode),
            Reading::DenseLayout => {
                return CompileOptions {
                    budget: Budget {
                        layout: Layout::Dense,
                        ..untimed(Registers::Auto)
                    },
                    ..CompileOptions::default()
                }
            }
            Reading::Draft1996 => (Dialect::Draft1996, UrlMode::Google),
            Reading::Robots2 | Reading::Robots2V2 => (Dialect::Robots2, UrlMode::Google),
        };
        CompileOptions {
            dialect,
            url_mode,
            budget: untimed(Registers::Auto),
            ..CompileOptions::default()
        }
    }

    fn body(self, body: &[u8]) -> Vec<u8> {
        match self {
            Reading::Robots2V2 => declare_v2(body),
            _ => body.to_vec(),
        }
    }
}

/// Inserts `Robot-version: 2.0` after every run of user-agent lines.
fn declare_v2(body: &[u8]) -> Vec<u8> {
    let is_agent = |l: &[u8]| l.len() >= 10 && l[..10].eq_ignore_ascii_case(b"user-agent");
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let mut out = Vec::with_capacity(body.len() + 256);
    for (i, l) in lines.iter().enumerate() {
        out.extend_from_slice(l);
        out.push(b'\n');
        if is_agent(l) && !lines.get(i + 1).is_some_and(|n| is_agent(n)) {
            out.extend_from_slice(b"Robot-version: 2.0\n");
        }
    }
    out
}

/// The default budget without its wall-clock limit: the time a file takes
/// on a loaded machine is not what these tests compare.
fn untimed(registers: Registers) -> Budget {
    Budget {
        time: std::time::Duration::from_secs(3600),
        registers,
        ..Budget::default()
    }
}

fn patterns_of(body: &[u8], agent: &str, opts: &CompileOptions) -> Vec<Vec<u8>> {
    let c = compile(body, agent, opts).unwrap();
    c.rule_set.rules.iter().map(|r| r.pattern.clone()).collect()
}

fn check_file(
    path: &std::path::Path,
    urls_per_agent: usize,
    max_agents: usize,
    readings: &[Reading],
) -> usize {
    let raw = std::fs::read(path).unwrap();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut n = 0;
    for &reading in readings {
        let opts = reading.options();
        let body = reading.body(&raw);
        let name = format!("{file} ({reading:?})");
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
    let both = [
        Reading::Rfc9309(UrlMode::Google),
        Reading::Rfc9309(UrlMode::Rfc),
    ];
    let checked: usize = files.iter().map(|f| check_file(f, 400, 4, &both)).sum();
    assert!(checked > 50_000, "only {checked} URLs checked");
}

/// Every corpus file lowered to a register automaton (Google and RFC URL
/// modes), so the register walk is checked on real rule sets, not only on
/// the few files where `Registers::Auto` picks it.
#[test]
fn corpus_real_register_automata_match_reference() {
    let files = txt_files(&common::root().join("corpus/real"));
    let mut checked = 0;
    let mut registers = 0;
    for f in &files {
        let body = std::fs::read(f).unwrap();
        let name = format!("{} (register)", f.display());
        for mode in [UrlMode::Google, UrlMode::Rfc] {
            let opts = CompileOptions {
                url_mode: mode,
                budget: untimed(Registers::Always),
                ..CompileOptions::default()
            };
            for agent in agents_of(&body, 2) {
                let c = compile(&body, &agent, &opts).unwrap();
                registers += c
                    .data
                    .automata
                    .iter()
                    .filter(|a| !a.ranked.is_empty())
                    .count();
                let pats: Vec<Vec<u8>> =
                    c.rule_set.rules.iter().map(|r| r.pattern.clone()).collect();
                let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
                let urls = urlgen::workload(seed, pats.iter().map(Vec::as_slice), 200);
                checked += assert_agree(&name, &body, &agent, &opts, &urls);
            }
        }
    }
    assert!(registers > 40, "only {registers} register automata built");
    assert!(checked > 20_000, "only {checked} URLs checked");
}

/// Every corpus file in the three layouts, Google and RFC URL modes, plain
/// and register automata in turn. The dense layout (`Layout::Dense`:
/// chains and sparse nodes rewritten as rows) and the compact one must not
/// change an answer; the default (`Layout::Auto`, which the other tests
/// check) must write each automaton as one of the two.
#[test]
fn corpus_real_layouts_match_reference() {
    let files = txt_files(&common::root().join("corpus/real"));
    let mut checked = 0;
    let (mut rewritten, mut registers, mut kept, mut auto_rows) = (0, 0, 0, 0);
    for (i, f) in files.iter().enumerate() {
        let body = std::fs::read(f).unwrap();
        let name = format!("{} (dense layout)", f.display());
        let when = if i % 2 == 0 {
            Registers::Auto
        } else {
            Registers::Always
        };
        for mode in [UrlMode::Google, UrlMode::Rfc] {
            let in_layout = |layout| CompileOptions {
                url_mode: mode,
                budget: Budget {
                    layout,
                    ..untimed(when)
                },
                ..CompileOptions::default()
            };
            let (opts, compact_opts) = (in_layout(Layout::Dense), in_layout(Layout::Compact));
            for agent in agents_of(&body, 2) {
                let c = compile(&body, &agent, &opts).unwrap();
                let compact = compile(&body, &agent, &compact_opts).unwrap();
                let auto = compile(&body, &agent, &in_layout(Layout::Auto)).unwrap();
                assert_eq!(c.data.automata.len(), compact.data.automata.len(), "{name}");
                for ((a, b), o) in c
                    .data
                    .automata
                    .iter()
                    .zip(&compact.data.automata)
                    .zip(&auto.data.automata)
                {
                    if a.prog != b.prog {
                        rewritten += 1;
                        registers += usize::from(!a.ranked.is_empty());
                        assert_eq!(a.dense_len as usize, a.prog.len(), "{name}: rows only");
                    } else if (b.dense_len as usize) < b.prog.len() {
                        // Rows past 2-byte targets: kept compact.
                        kept += 1;
                    }
                    assert!(o == a || o == b, "{name}: auto is neither layout");
                    auto_rows += usize::from(o.prog != b.prog);
                }
                let pats: Vec<Vec<u8>> =
                    c.rule_set.rules.iter().map(|r| r.pattern.clone()).collect();
                let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
                let urls = urlgen::workload(seed, pats.iter().map(Vec::as_slice), 200);
                checked += assert_agree(&name, &body, &agent, &opts, &urls);
                let name = format!("{} (compact layout)", f.display());
                checked += assert_agree(&name, &body, &agent, &compact_opts, &urls);
            }
        }
    }
    assert!(
        rewritten > 60,
        "only {rewritten} automata rewritten as rows"
    );
    assert!(
        registers > 10,
        "only {registers} register automata rewritten"
    );
    assert!(kept > 0, "no automaton too large for rows was met");
    assert!(
        auto_rows > 30,
        "the default wrote rows for only {auto_rows} automata"
    );
    assert!(checked > 40_000, "only {checked} URLs checked");
}

#[test]
fn corpus_real_other_dialects_match_reference() {
    let files = txt_files(&common::root().join("corpus/real"));
    let readings = [Reading::Draft1996, Reading::Robots2, Reading::Robots2V2];
    let checked: usize = files.iter().map(|f| check_file(f, 120, 3, &readings)).sum();
    assert!(checked > 20_000, "only {checked} URLs checked");
    report_known_differences("corpus/real", checked);
}

/// Prints what `common::DialectOracles` counted instead of failing.
fn report_known_differences(what: &str, checked: usize) {
    let octets = take_known_differences();
    eprintln!("{what}: {checked} URLs; the octet reading of escapes would change {octets}");
}

/// Every file of ../shared/corpus/real: the unlisted agent and the first
/// named one, 40 URLs each, each file in one of the five readings in turn
/// (`ROBOCC_FULL=1`: every reading, 3 agents, 300 URLs). Two tests share the
/// files so both cores work.
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
            check_file(f, 300, 3, &ALL_READINGS)
        } else {
            check_file(f, 40, 2, &[ALL_READINGS[(i / 2) % ALL_READINGS.len()]])
        };
    }
    assert!(checked > 80_000, "only {checked} URLs checked");
    report_known_differences(&format!("../shared/corpus/real part {part}"), checked);
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

pub(crate) fn url() -> impl Strategy<Value = String> {
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

    /// The same with every rule set lowered to a register automaton.
    #[test]
    fn random_rules_register_automaton_matches_reference(
        rules in proptest::collection::vec(rule_line(), 0..10),
        urls in proptest::collection::vec(url(), 1..20),
        rfc in any::<bool>(),
    ) {
        let body = format!("User-agent: *\n{}\n", rules.join("\n"));
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            budget: Budget { registers: Registers::Always, ..Budget::default() },
            ..CompileOptions::default()
        };
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        assert_agree("proptest (register)", body.as_bytes(), "AnyBot", &opts, &urls);
    }

    /// The same with a state budget so small that the rules are split over
    /// several automata, whose outcomes the engine combines (stopping at
    /// the first that cannot outrank the best so far: `max_rank`).
    #[test]
    fn random_rules_split_over_automata_match_reference(
        rules in proptest::collection::vec(rule_line(), 2..12),
        urls in proptest::collection::vec(url(), 1..20),
        rfc in any::<bool>(),
        dense in any::<bool>(),
    ) {
        let body = format!("User-agent: *\n{}\n", rules.join("\n"));
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            budget: Budget {
                max_states: 24,
                registers: Registers::Never,
                layout: if dense { Layout::Dense } else { Layout::Compact },
                ..untimed(Registers::Never)
            },
            ..CompileOptions::default()
        };
        // A single rule over the budget fails to compile: nothing to compare.
        let Ok(compiled) = compile(body.as_bytes(), "AnyBot", &opts) else {
            return Ok(());
        };
        let ranks: Vec<u32> = compiled.data.automata.iter().map(|a| a.max_rank).collect();
        prop_assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        assert_agree("proptest (split)", body.as_bytes(), "AnyBot", &opts, &urls);
    }

    /// The same in the dense layout, plain or register automata.
    #[test]
    fn random_rules_dense_layout_matches_reference(
        rules in proptest::collection::vec(rule_line(), 0..10),
        urls in proptest::collection::vec(url(), 1..20),
        rfc in any::<bool>(),
        register in any::<bool>(),
    ) {
        let body = format!("User-agent: *\n{}\n", rules.join("\n"));
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            budget: Budget {
                registers: if register { Registers::Always } else { Registers::Auto },
                layout: Layout::Dense,
                ..Budget::default()
            },
            ..CompileOptions::default()
        };
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        assert_agree("proptest (dense layout)", body.as_bytes(), "AnyBot", &opts, &urls);
    }
}

/// A line of a whole robots.txt: rules, user-agent lines naming the
/// agent (`AnyBot`) in the ways Google reads them or not, other records,
/// keys Google reads by prefix or typo, lines it reads without a colon or
/// not at all, comments and blank lines.
pub(crate) fn file_line() -> impl Strategy<Value = String> {
    let agent_line = prop_oneof![
        Just("User-agent: *"),
        Just("User-agent: AnyBot"),
        Just("user-agent: anybot/2.1"),
        Just("User-agent: AnyBot Images"),
        Just("User-agent: AnyBot-Extra"),
        Just("User-agent: Other"),
        Just("User-agent: * other"),
        Just("User-agent: *bot"),
        Just("useragent: AnyBot"),
        Just("User agent: *"),
        Just("User-agent AnyBot"),
        Just("User-agent:"),
    ];
    let other_line = prop_oneof![
        Just(""),
        Just("   "),
        Just("# comment"),
        Just("Sitemap: https://example.com/s.xml"),
        Just("Crawl-delay: 5"),
        Just("Content-Signal: search=yes"),
        Just("Unknown-key: x"),
        Just("Disallow /b"),
        Just("Disallow /b /c"),
        Just("Disallowed: /a"),
        Just("Dissallow: /b*"),
        Just("Allowance: /b"),
        Just("Disallow: /a # c"),
        Just("Allow:\t/a\x0b"),
        Just(": /x"),
        Just("Disallow: /a\0/b"),
        Just("Disallow:"),
        Just("Allow: /a/index.html"),
        Just("Disallow: /\u{e9}"),
        Just("\u{feff}Disallow: /b"),
    ];
    prop_oneof![
        4 => rule_line(),
        2 => agent_line.prop_map(str::to_string),
        2 => other_line.prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    /// Whole files, for the parse and the group selection: every line
    /// shape above, any line ends, a byte-order mark or part of one, and
    /// small limits (bytes, line length, rules per group) that cut them.
    #[test]
    fn random_files_engine_matches_rfc9309_oracle(
        lines in proptest::collection::vec(file_line(), 0..16),
        ends in proptest::collection::vec(0..3usize, 16),
        bom in 0..4usize,
        agent in 0..3usize,
        urls in proptest::collection::vec(url(), 1..16),
        rfc in any::<bool>(),
        robots_txt in any::<bool>(),
        records_close_groups in any::<bool>(),
        max_bytes in prop_oneof![Just(0usize), 10..200usize],
        max_line_len in prop_oneof![Just(usize::MAX), 4..30usize],
        max_rules_per_group in prop_oneof![Just(usize::MAX), 1..4usize],
    ) {
        let mut body = b"\xef\xbb\xbf"[..bom].to_vec();
        for (line, end) in lines.iter().zip(&ends) {
            body.extend_from_slice(line.as_bytes());
            body.extend_from_slice(["\n", "\r\n", "\r"][*end].as_bytes());
        }
        let opts = CompileOptions {
            url_mode: if rfc { UrlMode::Rfc } else { UrlMode::Google },
            robots_txt_allowed: robots_txt,
            parse: robocc_compiler::ParseOptions {
                max_bytes,
                max_line_len,
                max_rules_per_group,
                records_close_groups,
                ..robocc_compiler::ParseOptions::default()
            },
            ..CompileOptions::default()
        };
        let mut urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        urls.extend([&b"/robots.txt"[..], b"/a/", b"/a/index.html", b"/b"].map(<[u8]>::to_vec));
        let agent = ["AnyBot", "Other", "Unlisted"][agent];
        assert_agree("proptest (files)", &body, agent, &opts, &urls);
    }
}

fn draft_rule_line() -> impl Strategy<Value = String> {
    let pattern = proptest::collection::vec(
        prop_oneof![
            3 => Just("*"), 2 => Just("?"), 1 => Just("[ab]"), 1 => Just("[!a]"), 1 => Just("$"),
            3 => Just("a"), 3 => Just("b"), 3 => Just("/"), 1 => Just("%2F"), 1 => Just("%61"),
            1 => Just("%25"), 1 => Just("\\*"), 1 => Just("[")
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat());
    (any::<bool>(), pattern)
        .prop_map(|(allow, p)| format!("{}: {}", if allow { "Allow" } else { "Disallow" }, p))
}

fn draft_url() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("/"),
            Just("*"),
            Just("?"),
            Just("["),
            Just("%2F"),
            Just("%2f"),
            Just("%61"),
            Just("%25"),
            Just("%"),
            Just("#"),
            Just("$")
        ],
        0..8,
    )
    .prop_map(|parts| format!("/{}", parts.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn random_rules_other_dialects_match_reference(
        rules in proptest::collection::vec(draft_rule_line(), 0..8),
        urls in proptest::collection::vec(draft_url(), 1..20),
        reading in 0..3usize,
        robots_txt in any::<bool>(),
        dense in any::<bool>(),
    ) {
        let reading = [Reading::Draft1996, Reading::Robots2, Reading::Robots2V2][reading];
        let body = reading.body(format!("User-agent: *\n{}\n", rules.join("\n")).as_bytes());
        let mut opts = CompileOptions {
            robots_txt_allowed: robots_txt,
            ..reading.options()
        };
        // Half in the dense layout: these dialects walk decoded bytes one
        // by one (`Walk::feed`), the path the Google fast loop does not take.
        if dense {
            opts.budget.layout = Layout::Dense;
        }
        let urls: Vec<Vec<u8>> = urls.into_iter().map(String::into_bytes).collect();
        assert_agree("proptest", &body, "AnyBot", &opts, &urls);
    }
}

#[test]
fn declare_v2_makes_version_2_rule_sets() {
    let body =
        declare_v2(b"User-agent: a\nUser-agent: b\nDisallow: /x*\n\nUser-agent: *\nDisallow: /y\n");
    for agent in ["a", "other"] {
        let c = compile(&body, agent, &Reading::Robots2V2.options()).unwrap();
        assert!(
            c.rule_set.robots2_v2,
            "{agent}: {}",
            String::from_utf8_lossy(&body)
        );
    }
}

/// Two readings the oracle found the engine getting wrong (fixed since),
/// each with the oracle's verdict:
///
/// * a Disallow that matches every path however it is spelled (`*/*`,
///   `?*`, `*?`, `[!x]*`) is the rule set's catch-all, below the wildcard
///   Allows (docs/dialects.md);
/// * a file-level record (Sitemap, Host, Clean-param) between the
///   user-agent lines and Robot-version means the version does not
///   "immediately follow": the rule set is read as 1.0.
#[test]
fn catch_all_spellings_and_robot_version_placement() {
    let v2 = |rules: &str| format!("User-agent: *\nRobot-version: 2.0\n{rules}");
    let cases: Vec<(String, &str, bool, Option<u32>)> =
        vec![
        (v2("Allow: /a*\nDisallow: */*\n"), "/ab", true, Some(3)),
        (v2("Allow: /a*\nDisallow: ?*\n"), "/ab", true, Some(3)),
        (v2("Allow: /a*\nDisallow: *?\n"), "/ab", true, Some(3)),
        (v2("Allow: *.html\nDisallow: [!x]*\n"), "/a.html", true, Some(3)),
        (
            "User-agent: *\nSitemap: https://example.com/s.xml\nRobot-version: 2.0\nDisallow: /a\n"
                .to_string(),
            "/ab",
            false,
            Some(4),
        ),
    ];
    let opts = Reading::Robots2.options();
    let mut wrong = Vec::new();
    for (body, url, allowed, line) in cases {
        let want = robocc_reference::OracleVerdict { allowed, line };
        let oracle = robocc_reference::robots2::check(
            body.as_bytes(),
            "AnyBot",
            &common::oracle_options(&opts),
            url.as_bytes(),
        );
        assert_eq!(oracle, want, "the oracle's verdict for {body:?} {url}");
        let c = compile(body.as_bytes(), "AnyBot", &opts).unwrap();
        let bytes = c.to_bytes();
        let got = robocc_engine::Policy::from_bytes(&bytes)
            .unwrap()
            .check(url.as_bytes());
        let line_got = got.rule.map(|id| c.rule_set.rules[id.index()].line);
        if (got.allowed, line_got) != (allowed, line) {
            wrong.push(format!(
                "{body:?} {url}: engine ({}, {line_got:?}), oracle ({allowed}, {line:?})",
                got.allowed
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
