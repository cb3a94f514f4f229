//! ACAP inputs for the differential tests of `--dialect acap` (the compiled
//! engine against `reference::acap`'s oracle).
//!
//! * [`synthesize`]: a real robots.txt with ACAP records appended, made from
//!   its own Allow/Disallow values (deterministic from a seed): a `*` record
//!   and a record for [`AGENT`], usages of every kind (`present`, its
//!   sub-types, `other`), permissions and prohibitions, sub-records for the
//!   purposes `news` and `images`, a resource set, a qualified and a
//!   composite usage, sometimes `ACAP-ignore-conventional-records`.
//! * [`acap_file`]: a proptest strategy for small random ACAP files whose
//!   patterns use the alphabet `/ a A b * $`, so that conflicts, equal
//!   patterns and undecidable pairs are frequent; [`acap_urls`] makes paths
//!   that hit (and just miss) a file's patterns.

use crate::urlgen::Rng;
use proptest::prelude::*;
use robocc_compiler::parse::keys::split_line;
use robocc_compiler::parse::lines::Lines;
use robocc_compiler::parse::{parse, ParseOptions};
use robocc_compiler::Usage;

/// The named crawler of the synthesised and generated records.
pub const AGENT: &str = "acapbot";

/// The purposes the synthesised and generated sub-records name.
pub const PURPOSES: &[&str] = &["news", "images"];

/// The conventional Allow/Disallow values of `body` (non-empty, as
/// written, deduplicated, in file order).
fn conventional_values(body: &[u8]) -> Vec<Vec<u8>> {
    let robots = parse(body, &ParseOptions::default());
    let mut out: Vec<Vec<u8>> = Vec::new();
    for (_, rule) in robots.rules() {
        let v = rule.raw;
        let usable = !v.is_empty() && !v.iter().any(|b| b.is_ascii_whitespace());
        if usable && !out.iter().any(|o| o == v) {
            out.push(v.to_vec());
        }
    }
    out
}

/// A pattern made from `value`: as written, or case-flipped, anchored,
/// starred or cut.
fn vary(rng: &mut Rng, value: &[u8]) -> Vec<u8> {
    let mut p = value.to_vec();
    match rng.below(8) {
        0 => p.iter_mut().for_each(|b| {
            *b = if b.is_ascii_lowercase() {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            }
        }),
        1 if !p.ends_with(b"$") => p.push(b'$'),
        2 => p.push(b'*'),
        3 if p.len() > 2 => p.truncate(1 + rng.below(p.len() - 1)),
        4 => {
            p.insert(0, b'*');
        }
        _ => {}
    }
    p
}

fn rule_line(out: &mut Vec<u8>, allow: bool, usage: &str, spec: &[u8], tail: &str) {
    let verb = if allow { "allow" } else { "disallow" };
    out.extend_from_slice(format!("ACAP-{verb}-{usage}: ").as_bytes());
    out.extend_from_slice(spec);
    out.extend_from_slice(tail.as_bytes());
    out.push(b'\n');
}

/// Some rules for one record, over `values`.
fn record_rules(rng: &mut Rng, values: &[Vec<u8>], out: &mut Vec<u8>, count: usize) {
    for _ in 0..count {
        let value = rng.pick(values).clone();
        let pattern = vary(rng, &value);
        let usage = match rng.below(6) {
            0 | 1 => "crawl",
            2 => "present",
            // `present` and its sub-types; any of the 14.
            3 => rng.pick(&Usage::ACAP[4..13]).name(),
            _ => rng.pick(Usage::ACAP).name(),
        };
        let allow = rng.one_in(2);
        let tail = if allow && rng.one_in(4) {
            " time-limit=3-days"
        } else {
            ""
        };
        rule_line(out, allow, usage, &pattern, tail);
    }
}

/// `body` with ACAP records appended, synthesised from its conventional
/// Allow/Disallow values; deterministic from `seed`.
pub fn synthesize(body: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut values = conventional_values(body);
    if values.is_empty() {
        values = vec![b"/".to_vec(), b"/private/".to_vec(), b"/*.pdf$".to_vec()];
    }
    values.truncate(40);
    let mut out = body.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") && !out.ends_with(b"\r") {
        out.push(b'\n');
    }
    out.extend_from_slice(
        format!("\n# ACAP records synthesised by robocc-testkit (seed {seed})\n").as_bytes(),
    );
    if rng.one_in(4) {
        out.extend_from_slice(b"ACAP-ignore-conventional-records\n");
    }
    // Definitions.
    out.extend_from_slice(b"ACAP-resource-set: synth");
    for _ in 0..1 + rng.below(3) {
        out.push(b' ');
        let v = rng.pick(&values).clone();
        out.extend_from_slice(&vary(&mut rng, &v));
    }
    out.push(b'\n');
    let qualified = *rng.pick(&["index", "preserve", "present", "present-snippet"]);
    out.extend_from_slice(
        format!("ACAP-qualified-usage: q {qualified} time-limit=until-recrawled\n").as_bytes(),
    );
    let constituent = *rng.pick(&["crawl", "follow", "present-thumbnail", "other"]);
    out.extend_from_slice(
        format!("ACAP-composite-usage: comp crawl (q) {constituent}\n").as_bytes(),
    );
    // Records: `*` and the named crawler.
    for crawler in ["*", AGENT] {
        out.extend_from_slice(format!("\nACAP-crawler: {crawler}\n").as_bytes());
        let n = 1 + rng.below(5);
        record_rules(&mut rng, &values, &mut out, n);
        if rng.one_in(2) {
            let allow = rng.one_in(2);
            let usage = if allow { "(comp)" } else { "(q)" };
            rule_line(&mut out, allow, usage, b"the-acap:resource-set:synth", "");
        }
        if rng.one_in(3) {
            let v = rng.pick(&values).clone();
            let p = vary(&mut rng, &v);
            rule_line(&mut out, false, "other", &p, "");
        }
        if rng.one_in(3) {
            let v = rng.pick(&values).clone();
            rule_line(&mut out, true, "(comp)", &v, "");
        }
        for purpose in PURPOSES {
            if rng.one_in(2) {
                let pattern = match rng.below(3) {
                    0 => purpose.to_string(),
                    1 => format!("{}*", &purpose[..2]),
                    _ => format!("*{}$", &purpose[purpose.len() - 2..]),
                };
                out.extend_from_slice(format!("ACAP-usage-purpose: {pattern}\n").as_bytes());
                let n = 1 + rng.below(3);
                record_rules(&mut rng, &values, &mut out, n);
            }
        }
    }
    out
}

/// A small pattern over the alphabet `/ a A b * $`.
fn pattern() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(vec!["/", "a", "A", "b", "*"]), 0..4),
        prop::sample::select(vec!["", "", "", "$"]),
        prop::sample::select(vec!["/", "/", "/", "*", ""]),
    )
        .prop_map(|(parts, end, start)| format!("{start}{}{end}", parts.concat()))
}

/// A rule line: usage (a few standard ones, `other`, the composite, the
/// qualified usage), verdict, and a pattern or the resource set.
fn rule() -> impl Strategy<Value = String> {
    let usage = prop::sample::select(vec![
        "crawl",
        "crawl",
        "index",
        "present",
        "present-snippet",
        "present-link",
        "preserve",
        "other",
        "(comp)",
        "(q)",
    ]);
    let spec = prop_oneof![
        6 => pattern(),
        1 => Just("the-acap:resource-set:rs".to_string()),
    ];
    (any::<bool>(), usage, spec).prop_map(|(allow, usage, spec)| {
        let verb = if allow { "allow" } else { "disallow" };
        format!("ACAP-{verb}-{usage}: {spec}\n")
    })
}

/// An ACAP record: crawler lines, general rules, maybe a sub-record.
fn record() -> impl Strategy<Value = String> {
    let crawler = prop::sample::select(vec!["*", "*", AGENT, "ACAPBOT", "otherbot"]);
    let purpose = prop::sample::select(vec!["news", "images", "*s$", "new*", "video"]);
    (
        crawler,
        prop::collection::vec(rule(), 0..4),
        prop::option::weighted(0.4, (purpose, prop::collection::vec(rule(), 1..3))),
    )
        .prop_map(|(crawler, rules, sub)| {
            let mut s = format!("ACAP-crawler: {crawler}\n");
            rules.iter().for_each(|r| s.push_str(r));
            if let Some((purpose, rules)) = sub {
                s.push_str(&format!("ACAP-usage-purpose: {purpose}\n"));
                rules.iter().for_each(|r| s.push_str(r));
            }
            s
        })
}

/// A conventional group: a user-agent and a few Allow/Disallow lines.
fn conventional() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["*", AGENT]),
        prop::collection::vec((any::<bool>(), pattern()), 1..4),
    )
        .prop_map(|(agent, rules)| {
            let mut s = format!("User-agent: {agent}\n");
            for (allow, p) in rules {
                s.push_str(if allow { "Allow: " } else { "Disallow: " });
                s.push_str(&p);
                s.push('\n');
            }
            s
        })
}

/// Small random ACAP files: maybe a conventional group and the
/// ignore-conventional directive, the definitions `rs`, `q` and `comp`,
/// and one to three records.
pub fn acap_file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::option::weighted(0.5, conventional()),
        prop::option::weighted(0.2, Just("ACAP-ignore-conventional-records\n")),
        prop::collection::vec(pattern(), 1..3),
        prop::sample::select(vec!["index", "present", "crawl"]),
        prop::collection::vec(record(), 1..4),
    )
        .prop_map(|(conv, ignore, set, qualified, records)| {
            let mut s = String::new();
            s.push_str(&conv.unwrap_or_default());
            s.push_str(ignore.unwrap_or_default());
            s.push_str(&format!("ACAP-resource-set: rs {}\n", set.join(" ")));
            s.push_str(&format!("ACAP-qualified-usage: q {qualified} x=1\n"));
            s.push_str("ACAP-composite-usage: comp crawl (q)\n");
            records.iter().for_each(|r| s.push_str(r));
            s.into_bytes()
        })
}

/// Paths that hit and just miss the patterns of `body` (ACAP rule values,
/// resource set patterns, conventional values): each pattern with its `*`s
/// filled, its `$` dropped, cased both ways, with short tails; plus a few
/// fixed paths. Deterministic, deduplicated.
pub fn acap_urls(body: &[u8]) -> Vec<Vec<u8>> {
    let mut patterns: Vec<Vec<u8>> = Vec::new();
    for line in Lines::new(body) {
        let Ok((key, value)) = split_line(line.text) else {
            continue;
        };
        let key = key.to_ascii_lowercase();
        let tokens: Vec<&[u8]> = value
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        if key.starts_with(b"acap-allow-")
            || key.starts_with(b"acap-disallow-")
            || key == b"allow"
            || key == b"disallow"
        {
            patterns.extend(tokens.first().map(|t| t.to_vec()));
        } else if key == b"acap-resource-set" {
            patterns.extend(tokens.iter().skip(1).map(|t| t.to_vec()));
        }
    }
    let mut out: Vec<Vec<u8>> = ["/", "/a", "/A", "/b", "/ab", "/aB", "/a/b", "/ba", "/a$"]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .collect();
    for p in patterns {
        if p.starts_with(b"the-acap:") {
            continue;
        }
        let body = p.strip_suffix(b"$").unwrap_or(&p);
        for fill in [&b""[..], b"a", b"b/"] {
            let mut path: Vec<u8> = Vec::new();
            for &b in body {
                if b == b'*' {
                    path.extend_from_slice(fill);
                } else {
                    path.push(b);
                }
            }
            if path.first() != Some(&b'/') {
                path.insert(0, b'/');
            }
            for tail in [&b""[..], b"a", b"/", b"B"] {
                let mut u = path.clone();
                u.extend_from_slice(tail);
                out.push(u.clone());
                out.push(u.to_ascii_uppercase());
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|u| seen.insert(u.clone()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use robocc_engine::Usage;
    use robocc_reference::AcapOracle;

    const REAL: &[u8] = b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nDisallow: /*.pdf$\n\nUser-agent: acapbot\nDisallow: /news/\n";

    #[test]
    fn synthesize_is_deterministic_and_appends_acap_records() {
        let a = synthesize(REAL, 7);
        assert_eq!(a, synthesize(REAL, 7));
        assert!(a.starts_with(REAL));
        let text = String::from_utf8(a).unwrap();
        assert!(text.contains("ACAP-crawler: *\n"));
        assert!(text.contains("ACAP-crawler: acapbot\n"));
        assert!(text.contains("ACAP-resource-set: synth "));
        let many: Vec<Vec<u8>> = (0..40).map(|s| synthesize(REAL, s)).collect();
        let joined = String::from_utf8(many.concat()).unwrap();
        for needle in [
            "ACAP-usage-purpose:",
            "ACAP-ignore-conventional-records",
            "-other:",
            "-present",
            "ACAP-allow-(comp):",
        ] {
            assert!(joined.contains(needle), "{needle}");
        }
        // The oracle reads every one of them.
        let purposes = vec!["news".to_string()];
        for body in &many {
            let oracle = AcapOracle::new(body, AGENT, &purposes, &[]);
            for url in acap_urls(body).iter().take(50) {
                let a = oracle.check(url, Usage::Crawl);
                assert!(!a.undecidable || (!a.allowed && a.line.is_none()));
            }
        }
        assert!(synthesize(b"", 1).windows(12).any(|w| w == b"ACAP-crawler"));
    }

    #[test]
    fn urls_hit_the_patterns() {
        let urls = acap_urls(b"ACAP-crawler: *\nACAP-allow-crawl: /a*b$\nDisallow: /x\n");
        for want in [&b"/ab"[..], b"/aab", b"/AB", b"/x", b"/xa", b"/"] {
            assert!(
                urls.iter().any(|u| u == want),
                "{:?}",
                String::from_utf8_lossy(want)
            );
        }
    }

    #[test]
    fn generated_files_have_conflicts() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut undecidable, mut allowed, mut disallowed) = (0, 0, 0);
        for _ in 0..200 {
            let body = acap_file().new_tree(&mut runner).unwrap().current();
            let oracle = AcapOracle::new(&body, AGENT, &["news".to_string()], &[]);
            for url in acap_urls(&body) {
                let a = oracle.check(&url, Usage::Crawl);
                match (a.undecidable, a.allowed) {
                    (true, _) => undecidable += 1,
                    (false, true) => allowed += 1,
                    (false, false) => disallowed += 1,
                }
            }
        }
        assert!(
            undecidable > 20 && allowed > 100 && disallowed > 100,
            "{undecidable} undecidable, {allowed} allowed, {disallowed} disallowed"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn generated_files_are_read(body in acap_file()) {
            let text = String::from_utf8(body.clone()).unwrap();
            prop_assert!(text.contains("ACAP-crawler: "));
            let oracle = AcapOracle::new(&body, AGENT, &["news".to_string()], &[]);
            let urls = acap_urls(&body);
            prop_assert!(urls.len() >= 9);
            for url in &urls {
                for &usage in Usage::ACAP {
                    let a = oracle.check(url, usage);
                    prop_assert!(!a.undecidable || (!a.allowed && a.line.is_none()));
                    prop_assert!(a.allowed || a.undecidable || a.line.is_some());
                }
            }
        }
    }
}
