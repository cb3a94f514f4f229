//! AI-usage preference inputs for the differential tests of the signals
//! channels (the compiled engine against `reference::signals`'s oracle).
//!
//! * [`synthesize`]: a real robots.txt with `Content-Usage` and
//!   `Content-Signal` lines added (deterministic from a seed): file-level
//!   Content-Signal lines before the first group, Content-Usage lines with
//!   the paths of the group's own Allow/Disallow values (so they tie with
//!   each other and overlap the crawl rules) or without a path, some
//!   malformed (uppercase keys, strings, trailing commas), some repeated
//!   with a conflicting value, and Content-Signal lines inside groups.
//! * [`signals_file`]: a proptest strategy for small random files over the
//!   path alphabet `/ a b * $`, so that equal-length and identical paths
//!   (ties), parse failures and uncrawlable paths are frequent; [`PATHS`]
//!   are paths over the same alphabet.
//!
//! Real lines are rare: of the 4,259 files of `../shared/corpus/real`, none
//! has a `Content-Usage` or `Content-Signal` line (2026-11-23); of the
//! fixtures, `crawler-commons__extensions-group-merging.txt` has one
//! file-level `Content-Signal` line (a conformance case) and
//! `crawler-commons__extension-robots.txt` a `Content-Signals:` line (not
//! the key). Hence the synthesis.

use crate::urlgen::Rng;
use proptest::prelude::*;
use robocc_compiler::parse::keys::split_line;
use robocc_compiler::parse::lines::Lines;

/// The crawler the generated files name.
pub const AGENT: &str = "signalbot";

/// The training token the generated files name.
pub const TRAINING_AGENT: &str = "Google-Extended";

/// Content-Usage preferences: valid, unknown and malformed.
pub const USAGE_PREFS: &[&str] = &[
    "train-ai=n",
    "train-ai=y",
    "search=n",
    "search=y",
    "train-ai=n, search=y",
    "train-ai=y, search=n",
    "train-ai=y;p=1, search=n;q",
    "train-ai=n, train-ai=y",
    "ai-use=n, train-ai=n",
    "Train-ai=n",
    "train-ai=\"n\"",
    "train-ai",
    "train-ai=n,",
    "train-ai=yes",
    "",
    // RFC 9651's Date and Display String: valid, then malformed.
    "train-ai=n;d=@1700000000, search=y",
    "search=n, x=%\"f%c3%bc\"",
    "search=n, x=%\"f%C3%BC\"",
    "train-ai=n;d=@1.5",
];

/// Content-Signal values: valid, unknown and malformed.
pub const SIGNAL_VALUES: &[&str] = &[
    "search=yes, ai-train=no",
    "search=yes, ai-input=no, ai-train=no",
    "ai-train=yes",
    "ai-input=yes, search=no",
    "AI-Train=No",
    "search=maybe, ai-train",
    "ai-train=no, ai-train=yes",
    "ai-train=n",
];

/// Paths over the generated files' alphabet, and a few more.
pub const PATHS: &[&str] = &[
    "/",
    "/a",
    "/b",
    "/aa",
    "/ab",
    "/ba",
    "/bb",
    "/a/b",
    "/b/a",
    "/aab",
    "/a$",
    "/ab/",
    "/x",
    "/robots.txt",
];

fn is_rule_key(key: &[u8]) -> bool {
    key.eq_ignore_ascii_case(b"allow") || key.eq_ignore_ascii_case(b"disallow")
}

fn usage_line(rng: &mut Rng, path: Option<&[u8]>) -> Vec<u8> {
    let mut line = b"Content-Usage: ".to_vec();
    if let Some(p) = path {
        line.extend_from_slice(p);
        line.push(if rng.one_in(4) { b'\t' } else { b' ' });
    }
    line.extend_from_slice(rng.pick(USAGE_PREFS).as_bytes());
    line.push(b'\n');
    line
}

fn signal_line(rng: &mut Rng) -> Vec<u8> {
    format!("Content-Signal: {}\n", rng.pick(SIGNAL_VALUES)).into_bytes()
}

/// `body` with Content-Usage and Content-Signal lines added; deterministic
/// from `seed`. Lines are added after user-agent and rule lines (so they
/// stay in their group: they never end one) and before the first line.
pub fn synthesize(body: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(body.len() + 1024);
    out.extend_from_slice(
        format!(
            "# Content-Usage/Content-Signal lines synthesised by robocc-testkit (seed {seed})\n"
        )
        .as_bytes(),
    );
    if rng.one_in(2) {
        out.extend_from_slice(&signal_line(&mut rng));
    }
    let mut added = 0;
    for line in Lines::new(body) {
        out.extend_from_slice(line.text);
        out.push(b'\n');
        if added >= 200 {
            continue;
        }
        let Ok((key, value)) = split_line(line.text) else {
            continue;
        };
        if is_rule_key(key) && value.first() == Some(&b'/') && rng.one_in(3) {
            // The rule's own value as the path: overlaps the crawl rules,
            // and sometimes a second line with the same path (a tie).
            out.extend_from_slice(&usage_line(&mut rng, Some(value)));
            added += 1;
            if rng.one_in(3) {
                out.extend_from_slice(&usage_line(&mut rng, Some(value)));
                added += 1;
            }
        } else if key.eq_ignore_ascii_case(b"user-agent") && rng.one_in(3) {
            let extra = match rng.below(4) {
                0 => signal_line(&mut rng),
                1 => usage_line(&mut rng, Some(b"/")),
                _ => usage_line(&mut rng, None),
            };
            out.extend_from_slice(&extra);
            added += 1;
        }
    }
    out
}

/// A small pattern over `/ a b * $`, starting with `/`.
fn path() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(vec!["/", "a", "b", "*"]), 0..3),
        prop::sample::select(vec!["", "", "", "$"]),
    )
        .prop_map(|(parts, end)| format!("/{}{end}", parts.concat()))
}

/// A line of a group: a rule, a Content-Usage line (with or without a
/// path) or a Content-Signal line.
fn group_line() -> impl Strategy<Value = String> {
    let pref = prop::sample::select(USAGE_PREFS.to_vec());
    let signal = prop::sample::select(SIGNAL_VALUES.to_vec());
    prop_oneof![
        3 => (any::<bool>(), path()).prop_map(|(allow, p)| {
            format!("{}: {p}\n", if allow { "Allow" } else { "Disallow" })
        }),
        4 => (path(), pref.clone(), any::<bool>())
            .prop_map(|(p, pref, tab)| format!("Content-Usage: {p}{}{pref}\n", if tab { "\t" } else { " " })),
        2 => pref.prop_map(|pref| format!("Content-Usage: {pref}\n")),
        1 => signal.prop_map(|v| format!("Content-Signal: {v}\n")),
    ]
}

/// A group: one or two user-agent lines, then a few lines.
fn group() -> impl Strategy<Value = String> {
    let agent = prop::sample::select(vec![
        "*",
        "*",
        AGENT,
        "SignalBot/1.0",
        TRAINING_AGENT,
        "other",
    ]);
    (
        prop::collection::vec(agent, 1..3),
        prop::collection::vec(group_line(), 0..6),
    )
        .prop_map(|(agents, lines)| key_lines_then("User-agent", &agents, &lines))
}

/// A `key: value` line per value, then `rest` (whole lines).
fn key_lines_then(key: &str, values: &[&str], rest: &[String]) -> String {
    let mut s = String::new();
    values
        .iter()
        .for_each(|v| s.push_str(&format!("{key}: {v}\n")));
    rest.iter().for_each(|l| s.push_str(l));
    s
}

/// Small random files: maybe file-level Content-Signal lines, then one to
/// three groups (for [`AGENT`], `*`, [`TRAINING_AGENT`] or another crawler).
pub fn signals_file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::sample::select(SIGNAL_VALUES.to_vec()), 0..2),
        prop::collection::vec(group(), 1..4),
    )
        .prop_map(|(signals, groups)| {
            key_lines_then("Content-Signal", &signals, &groups).into_bytes()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use robocc_reference::{Channel, Pref, SignalsOracle};

    const REAL: &[u8] =
        b"User-agent: *\r\nDisallow: /private/\r\nAllow: /private/ok\r\n\r\nUser-agent: Googlebot\r\nDisallow: /nogoogle\r\n";

    fn count(body: &[u8], key: &[u8]) -> usize {
        Lines::new(body)
            .filter(|l| split_line(l.text).is_ok_and(|(k, _)| k.eq_ignore_ascii_case(key)))
            .count()
    }

    #[test]
    fn synthesize_is_deterministic_and_adds_lines() {
        assert_eq!(synthesize(REAL, 7), synthesize(REAL, 7));
        let added: usize = (0..32)
            .map(|seed| {
                let s = synthesize(REAL, seed);
                // The original lines are all kept, in order.
                assert_eq!(count(&s, b"disallow"), 2);
                count(&s, b"content-usage") + count(&s, b"content-signal")
            })
            .sum();
        assert!(added > 16, "{added}");
    }

    #[test]
    fn synthesized_files_state_preferences() {
        let training = vec![TRAINING_AGENT.to_string()];
        let mut stated = 0;
        for seed in 0..32 {
            let body = synthesize(REAL, seed);
            let oracle = SignalsOracle::new(&body, "Googlebot", &training);
            for path in ["/", "/private/x", "/private/ok", "/nogoogle", "/a"] {
                for channel in Channel::ALL {
                    let a = oracle.check(path.as_bytes(), channel);
                    assert_eq!(a.line.is_none(), a.pref == Pref::Unknown);
                    stated += usize::from(a.pref != Pref::Unknown);
                }
            }
        }
        assert!(stated > 0);
    }

    #[test]
    fn generated_files_have_ties_and_failures() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut ties, mut failures) = (0, 0);
        for _ in 0..64 {
            let body = signals_file().new_tree(&mut runner).unwrap().current();
            let paths: Vec<Vec<u8>> = Lines::new(&body)
                .filter_map(|l| split_line(l.text).ok())
                .filter(|(k, _)| k.eq_ignore_ascii_case(b"content-usage"))
                .map(|(_, v)| {
                    v.split(|&b| b == b' ' || b == b'\t')
                        .next()
                        .unwrap()
                        .to_vec()
                })
                .collect();
            ties += usize::from((1..paths.len()).any(|i| paths[..i].contains(&paths[i])));
            failures += usize::from(Lines::new(&body).any(|l| {
                let t = l.text;
                t.windows(8).any(|w| w == b"Train-ai") || t.ends_with(b"n,")
            }));
        }
        assert!(ties > 8 && failures > 8, "{ties} ties, {failures} failures");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn generated_files_are_answered(body in signals_file()) {
            let training = vec![TRAINING_AGENT.to_string()];
            let oracle = SignalsOracle::new(&body, AGENT, &training);
            for path in PATHS {
                let crawl = oracle.crawl_allowed(path.as_bytes());
                for channel in Channel::ALL {
                    let a = oracle.check(path.as_bytes(), channel);
                    prop_assert_eq!(a.line.is_none(), a.pref == Pref::Unknown);
                    if !crawl {
                        prop_assert_eq!(a.pref, Pref::Unknown);
                    }
                    if let Some(line) = a.line {
                        prop_assert!(line >= 1 && line as usize <= body.split(|&b| b == b'\n').count());
                    }
                }
            }
        }
    }
}
