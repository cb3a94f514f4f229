//! `readers-*` findings (issue 46, "readers that disagree"): each claims a
//! URL and two answers; here every claim is checked against the readings
//! compiled on their own (Google's, `records_close_groups`, the two
//! preference groupings) or, for first match, against a first-match walk
//! over the lines as written, and files whose readings agree get none.

use robocc_compiler::diag::Severity;
use robocc_compiler::lint::{lint, Finding};
use robocc_compiler::{compile, Agents, CompileOptions, PreferenceGrouping};
use robocc_engine::{Policy, Usage};

fn findings(body: &str, code: &str) -> Vec<Finding> {
    lint(body.as_bytes(), None, &CompileOptions::default())
        .into_iter()
        .filter(|f| f.code == code)
        .collect()
}

/// The URL a finding's message quotes first (between backticks).
fn witness(f: &Finding) -> String {
    let start = f.message.find('`').unwrap() + 1;
    let len = f.message[start..].find('`').unwrap();
    f.message[start..start + len].to_string()
}

fn crawl(body: &str, agent: &str, options: &CompileOptions, url: &str) -> bool {
    let bytes = compile(body.as_bytes(), agent, options).unwrap().to_bytes();
    Policy::from_bytes(&bytes)
        .unwrap()
        .check(url.as_bytes())
        .allowed
}

#[test]
fn grouping_findings_hold_for_both_readings() {
    let strict = CompileOptions {
        parse: robocc_compiler::ParseOptions {
            records_close_groups: true,
            ..Default::default()
        },
        ..CompileOptions::default()
    };
    let cases = [
        // (file, agent, line, severity)
        (
            "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /private\n",
            "a",
            1,
            Severity::Warning,
        ),
        // Joined to `*`: what owners expect, info.
        (
            "User-agent: a\nCrawl-delay: 5\nUser-agent: *\nDisallow: /admin/\n",
            "a",
            1,
            Severity::Info,
        ),
        (
            "User-agent: x\nSitemap: https://e.com/s.xml\nUser-agent: y\nAllow: /a\nDisallow: /\n",
            "x",
            1,
            Severity::Warning,
        ),
    ];
    for (body, agent, line, severity) in cases {
        let found = findings(body, "readers-grouping");
        let f = found
            .iter()
            .find(|f| f.line == line)
            .unwrap_or_else(|| panic!("{body}: {found:#?}"));
        assert_eq!(f.severity, severity, "{body}");
        let url = witness(f);
        let (g, s) = (
            crawl(body, agent, &CompileOptions::default(), &url),
            crawl(body, agent, &strict, &url),
        );
        assert_ne!(g, s, "{body}: {url}");
        let word = |allowed| if allowed { "allowed" } else { "disallowed" };
        assert!(
            f.message
                .contains(&format!("is {} in Google's reading", word(g))),
            "{}",
            f.message
        );
        assert!(
            f.message.contains(&format!("and {} in RFC 9309", word(s))),
            "{}",
            f.message
        );
    }
    // Records after the rules: both readings group alike.
    let agree = "User-agent: a\nDisallow: /x\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n";
    assert!(findings(agree, "readers-grouping").is_empty());
}

#[test]
fn content_usage_findings_hold_for_both_groupings() {
    let body = "User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: NewsBot\nAllow: /\n";
    let found = findings(body, "readers-content-usage");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].line, found[0].severity), (2, Severity::Warning));
    let pref = |grouping| {
        let options = CompileOptions {
            preference_grouping: grouping,
            ..CompileOptions::default()
        };
        let bytes = compile(body.as_bytes(), "NewsBot", &options)
            .unwrap()
            .to_bytes();
        Policy::from_bytes(&bytes)
            .unwrap()
            .preference(b"/", Usage::TrainAi)
            .map(|v| v.allowed)
    };
    assert_eq!(
        (
            pref(PreferenceGrouping::Spec),
            pref(PreferenceGrouping::Crawl)
        ),
        (None, Some(false))
    );
    assert!(found[0]
        .message
        .contains("is unknown in attach-05's reading"));
    assert!(found[0]
        .message
        .contains("and disallow in Google's grouping"));
    // Content-Usage after the rules, no user-agent line after it: none.
    let agree =
        "User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n\nUser-agent: NewsBot\nAllow: /\n";
    assert!(findings(agree, "readers-content-usage").is_empty());
}

/// First match over the lines as written: the first Allow/Disallow (file
/// order) whose pattern (Google's `*` and `$`) matches the path.
fn first_match(body: &str, path: &str) -> bool {
    fn matches(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => true,
            Some((b'$', [])) => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| matches(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && matches(rest, &s[1..]),
        }
    }
    for line in body.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let allow = match key.trim().to_ascii_lowercase().as_str() {
            "allow" => true,
            "disallow" => false,
            _ => continue,
        };
        if !value.is_empty() && matches(value.as_bytes(), path.as_bytes()) {
            return allow;
        }
    }
    true
}

#[test]
fn first_match_findings_hold_for_both_readings() {
    let bodies = [
        "User-agent: *\nDisallow: /shop\nAllow: /shop/catalog\n",
        "User-agent: *\nAllow: /*.js\nDisallow: /static/private/\n",
        "User-agent: *\nDisallow: /\nAllow: /$\nAllow: /public/\n",
    ];
    for body in bodies {
        let found = findings(body, "readers-first-match");
        assert!(!found.is_empty(), "{body}");
        for f in &found {
            assert_eq!(f.severity, Severity::Info);
            let url = witness(f);
            let google = crawl(body, "x", &CompileOptions::default(), &url);
            assert_ne!(google, first_match(body, &url), "{body}: {url}");
        }
    }
    // Longer rules first: both readings agree on every path.
    let agree = "User-agent: *\nAllow: /shop/catalog\nDisallow: /shop\n";
    assert!(findings(agree, "readers-first-match").is_empty());
}

/// A crawler given by name is the only one compared.
#[test]
fn given_agents_are_the_ones_compared() {
    let body = "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /private\n";
    let only_b = lint(
        body.as_bytes(),
        Some(&Agents::from("b")),
        &CompileOptions::default(),
    );
    assert!(
        only_b.iter().all(|f| f.code != "readers-grouping"),
        "{only_b:#?}"
    );
    let only_a = lint(
        body.as_bytes(),
        Some(&Agents::from("a")),
        &CompileOptions::default(),
    );
    assert!(only_a.iter().any(|f| f.code == "readers-grouping"));
}
