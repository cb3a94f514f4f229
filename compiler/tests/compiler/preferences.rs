//! Issue 46's preference readings: each preference syntax grouped as the
//! text that defines it reads (attach-05's Content-Usage is a rule), crawl
//! Google-exact either way; a training token obeys the `*` group when none
//! names it; RSL `License` lines carried as site-wide records. The
//! independent oracle's side is `reference/tests/agreement`
//! (`signals_differential`, the conformance cases); here, the compiler's
//! own contract: what changes between the two groupings and what does not.

use robocc_compiler::{compile, lint, Agents, CompileOptions, PreferenceGrouping};
use robocc_engine::{Policy, RecordKind, Usage};

fn policy_bytes(body: &str, agent: &str, options: &CompileOptions) -> Vec<u8> {
    compile(body.as_bytes(), agent, options)
        .unwrap()
        .to_bytes()
        .to_vec()
}

fn grouped(grouping: PreferenceGrouping) -> CompileOptions {
    CompileOptions {
        preference_grouping: grouping,
        ..CompileOptions::default()
    }
}

/// `(crawl allowed, train-ai)` of `url`.
fn answers(bytes: &[u8], url: &str) -> (bool, Option<bool>) {
    let p = Policy::from_bytes(bytes).unwrap();
    (
        p.check(url.as_bytes()).allowed,
        p.preference(url.as_bytes(), Usage::TrainAi)
            .map(|v| v.allowed),
    )
}

/// The case of the issue: under attach-05's grammar the Content-Usage line
/// ends the `*` group, so NewsBot's own group states nothing; Google's
/// grouping (the option) merges them and NewsBot reads train-ai=n.
#[test]
fn content_usage_ends_the_user_agent_lines_of_its_group() {
    let body = "User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: NewsBot\nAllow: /\n";
    let spec = policy_bytes(body, "NewsBot", &grouped(PreferenceGrouping::Spec));
    let crawl = policy_bytes(body, "NewsBot", &grouped(PreferenceGrouping::Crawl));
    assert_eq!(answers(&spec, "/a"), (true, None));
    assert_eq!(answers(&crawl, "/a"), (true, Some(false)));
    // Every other crawler obeys the `*` group, which keeps its line.
    let other = policy_bytes(body, "OtherBot", &grouped(PreferenceGrouping::Spec));
    assert_eq!(answers(&other, "/a"), (true, Some(false)));
    // The statement names its line, and the crawl's group (line 1).
    let p = Policy::from_bytes(&other).unwrap();
    let v = p.preference(b"/a", Usage::TrainAi).unwrap();
    let rule = p.rule(v.rule.unwrap()).unwrap();
    assert_eq!((rule.line, rule.group), (2, 0));
}

/// Crawl never moves: the same file compiled under both groupings answers
/// crawl identically for agents named in either reading's groups, and a
/// file without Content-Usage lines compiles to the same rules and
/// outcomes (only the options fingerprint differs).
#[test]
fn crawl_is_the_same_under_both_groupings() {
    let body = "User-agent: a\nContent-Usage: /p train-ai=n\nUser-agent: b\nDisallow: /x\n\n\
                User-agent: *\nContent-Usage: train-ai=y\nUser-agent: c\nDisallow: /y\n";
    for agent in ["a", "b", "c", "d"] {
        let spec = policy_bytes(body, agent, &grouped(PreferenceGrouping::Spec));
        let crawl = policy_bytes(body, agent, &grouped(PreferenceGrouping::Crawl));
        for url in ["/", "/p", "/x", "/y", "/z"] {
            assert_eq!(
                answers(&spec, url).0,
                answers(&crawl, url).0,
                "{agent} {url}"
            );
        }
    }
    // b: its own group under attach-05 has no Content-Usage line.
    let b = policy_bytes(body, "b", &grouped(PreferenceGrouping::Spec));
    assert_eq!(answers(&b, "/p"), (true, None));
    let b = policy_bytes(body, "b", &grouped(PreferenceGrouping::Crawl));
    assert_eq!(answers(&b, "/p"), (true, Some(false)));
    // Without a Content-Usage line the grouping changes nothing but the
    // fingerprint.
    let plain = "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n";
    let one = compile(plain.as_bytes(), "b", &grouped(PreferenceGrouping::Spec)).unwrap();
    let two = compile(plain.as_bytes(), "b", &grouped(PreferenceGrouping::Crawl)).unwrap();
    assert_eq!(one.data.rules, two.data.rules);
    assert_eq!(one.data.automata, two.data.automata);
    assert_ne!(one.data.header.options_hash, two.data.header.options_hash);
    // The default's fingerprint is the one written before the option
    // existed (pinned in compile.rs's unit tests).
    assert_eq!(
        robocc_compiler::options_hash("b", &CompileOptions::default()),
        one.data.header.options_hash
    );
}

/// Content-Signal lines stay in the crawl's groups under both groupings:
/// the Content Signals Policy adds a line to robots.txt's groups and no
/// grammar of its own.
#[test]
fn content_signal_keeps_the_crawl_groups() {
    let body = "User-agent: a\nContent-Signal: ai-train=no\nUser-agent: b\nDisallow: /x\n";
    for g in [PreferenceGrouping::Spec, PreferenceGrouping::Crawl] {
        let b = policy_bytes(body, "b", &grouped(g));
        assert_eq!(answers(&b, "/y"), (true, Some(false)), "{g:?}");
    }
}

/// Google documents Google-Extended among its common crawlers, which obey
/// robots.txt and the `*` group (only special-case crawlers ignore it):
/// where no group names the token, `*` speaks for it.
#[test]
fn a_training_token_obeys_the_star_group() {
    let options = CompileOptions {
        training_agents: vec!["Google-Extended".into()],
        ..CompileOptions::default()
    };
    let body = "User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /private\n";
    let p = policy_bytes(body, "Googlebot", &options);
    assert_eq!(answers(&p, "/private/a"), (true, Some(false)));
    assert_eq!(answers(&p, "/public"), (true, None));
    // The file of the issue: the token obeys `Disallow: /`, but nothing
    // but /robots.txt may be crawled, and uncrawlable URLs have no
    // preferences (attach-05 §3).
    let only = policy_bytes("User-agent: *\nDisallow: /\n", "Googlebot", &options);
    assert_eq!(answers(&only, "/a"), (false, None));
    assert_eq!(answers(&only, "/robots.txt"), (true, None));
    // A group naming the token still wins over `*`.
    let named = "User-agent: Googlebot\nAllow: /\n\nUser-agent: Google-Extended\nAllow: /\n\n\
                 User-agent: *\nDisallow: /\n";
    let p = policy_bytes(named, "Googlebot", &options);
    assert_eq!(answers(&p, "/a"), (true, None));
}

/// RSL 1.0's `License` is a site-wide record wherever it stands: a global
/// record of its own kind in the artifact, listed by `Meta::licenses`,
/// and no `unknown-key` finding.
#[test]
fn license_lines_are_site_wide_records() {
    let body = "User-agent: a\nDisallow: /x\nLicense: https://example.com/license.xml\n\n\
                User-agent: *\nAllow: /\nlicense: https://example.com/b.xml\nLicense: none\n";
    for agent in ["a", "b"] {
        let bytes = policy_bytes(body, agent, &CompileOptions::default());
        let p = Policy::from_bytes(&bytes).unwrap();
        let m = p.meta();
        assert_eq!(
            m.licenses().collect::<Vec<_>>(),
            [
                "https://example.com/license.xml",
                "https://example.com/b.xml",
                "none"
            ]
        );
        assert!(m.records().all(|r| r.kind != RecordKind::License));
        let lines: Vec<u32> = m
            .global_records()
            .filter(|r| r.kind == RecordKind::License)
            .map(|r| r.line)
            .collect();
        assert_eq!(lines, [3, 7, 8]);
    }
    let findings = lint::lint(
        body.as_bytes(),
        Some(&Agents::from("a")),
        &CompileOptions::default(),
    );
    assert!(
        findings.iter().all(|f| f.code != "unknown-key"),
        "{findings:?}"
    );
    // Only the value that is no absolute URL is reported.
    let license: Vec<u32> = findings
        .iter()
        .filter(|f| f.code == "license")
        .map(|f| f.line)
        .collect();
    assert_eq!(license, [8]);
}
