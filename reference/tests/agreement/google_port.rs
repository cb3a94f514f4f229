//! robocc (Google mode, `/robots.txt` judged by the rules, no parse limit)
//! against the `robotstxt` crate, a line-by-line Rust port of Google's
//! robotstxt library, on the real corpus × generated URLs.
//!
//! The port is only a valid oracle where it is faithful to Google's C++:
//! its `*` matching does not backtrack correctly (`Disallow: /*ab` does not
//! match `/aab` there, though Google's algorithm matches it) and it trims
//! Unicode whitespace such as U+00A0 from values, where Google trims ASCII
//! only. So this test compares on ASCII files and on the agents whose rules
//! have no `*`; it checks parsing, grouping and agent selection end to end,
//! of the engine and of the independent oracle `reference::rfc9309` alike.
//! Wildcard matching is covered against Google's algorithm by the reference
//! matcher (differential.rs) and the conformance cases.

use crate::common;

use common::{agents_of, txt_files};
use robocc_compiler::{compile, CompileOptions, ParseOptions};
use robocc_engine::Policy;
use robocc_reference::{Rfc9309Options, Rfc9309Oracle};
use robocc_testkit::urlgen;

fn google_options() -> CompileOptions {
    CompileOptions {
        robots_txt_allowed: false,
        parse: ParseOptions {
            max_bytes: 0,
            ..ParseOptions::default()
        },
        ..CompileOptions::default()
    }
}

#[test]
fn agrees_with_the_google_port_on_corpus_real() {
    let opts = google_options();
    let mut checked = 0usize;
    let mut disagreements = Vec::new();
    for path in txt_files(&common::root().join("corpus/real")) {
        let body = std::fs::read(&path).unwrap();
        if !body.is_ascii() {
            continue;
        }
        let text = std::str::from_utf8(&body).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for agent in agents_of(&body, 3) {
            let oracle = Rfc9309Oracle::new(&body, &agent, &Rfc9309Options::google());
            if oracle.rules().iter().any(|r| r.pattern.contains(&b'*')) {
                continue;
            }
            let compiled = compile(&body, &agent, &opts).unwrap();
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).unwrap();
            let urls = urlgen::workload(3, compiled.rule_set.patterns(), 150);
            for url in urls {
                let Ok(url) = String::from_utf8(url) else {
                    continue;
                };
                let mut matcher = robotstxt::DefaultMatcher::default();
                let google = matcher.one_agent_allowed_by_robots(text, &agent, &url);
                let ours = policy.is_allowed(&url);
                let oracle = oracle.check(url.as_bytes()).allowed;
                checked += 1;
                if google != ours || google != oracle {
                    disagreements.push(format!(
                        "{name} {agent} {url:?}: google {google}, robocc {ours}, \
                         reference::rfc9309 {oracle}"
                    ));
                }
            }
        }
    }
    assert!(checked > 3_000, "only {checked} checks");
    assert!(
        disagreements.is_empty(),
        "{} of {checked} disagree:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
