//! Helpers shared by the integration tests.
#![allow(dead_code)]

use robocc_compiler::{compile, CompileOptions, Compiled};
use robocc_engine::Policy;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The shared real-world corpus beside the checkout, when present.
pub fn shared_real() -> Option<PathBuf> {
    let p = root().join("../shared/corpus/real");
    p.is_dir().then_some(p)
}

/// Every `*.txt` file under `dir`, sorted.
pub fn txt_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

/// Compiles and checks that the engine and the reference agree on every URL;
/// returns the number of URLs checked.
pub fn assert_agree(
    name: &str,
    body: &[u8],
    agent: &str,
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    let compiled: Compiled = compile(body, agent, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    for url in urls {
        let got = policy.check(url);
        let want = robocc_compiler::reference::check_url(&compiled.rule_set, url);
        assert!(
            got.allowed == want.allowed && got.rule == want.rule,
            "{name} agent={agent} url={:?}: engine {got:?}, reference {want:?}\nrules: {:#?}",
            String::from_utf8_lossy(url),
            compiled
                .rule_set
                .rules
                .iter()
                .map(|r| (r.allow, String::from_utf8_lossy(&r.pattern).into_owned()))
                .collect::<Vec<_>>()
        );
    }
    urls.len()
}

/// Agents worth checking a file for: the tokens it names (up to `max`) and
/// one it does not.
pub fn agents_of(body: &[u8], max: usize) -> Vec<String> {
    let robots = robocc_compiler::parse::parse(body, &Default::default());
    let mut agents = vec!["UnlistedBot".to_string()];
    for g in &robots.groups {
        for a in &g.agents {
            let t = robocc_compiler::agent::value_token(a.value);
            if !t.is_empty() {
                let t = String::from_utf8_lossy(t).into_owned();
                if !agents.iter().any(|x| x.eq_ignore_ascii_case(&t)) && agents.len() < max {
                    agents.push(t);
                }
            }
        }
    }
    agents
}

/// The robots.txt files of a corpus directory as store inputs (status 200),
/// in name order. Corpus file names (`<source>__<site>.txt`) are not host
/// names: each becomes a valid, unique one (characters outside
/// `[a-z0-9.-]` become `-`, and a repeated name gets a numeric suffix).
pub fn corpus_inputs(dir: &std::path::Path) -> Vec<robocc_compiler::store::HostInput> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let mut seen = std::collections::HashSet::new();
    paths
        .iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_ascii_lowercase();
            let site = stem.rsplit("__").next().unwrap_or(&stem);
            let labels: Vec<String> = site
                .split('.')
                .map(|l| {
                    let l: String = l
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                        .collect();
                    let l = l.trim_matches('-');
                    if l.is_empty() {
                        "x".to_string()
                    } else {
                        l.chars().take(63).collect()
                    }
                })
                .collect();
            let base = labels.join(".");
            let mut host = base.clone();
            let mut n = 1;
            while !seen.insert(host.clone()) {
                n += 1;
                host = format!("{base}-{n}");
            }
            robocc_compiler::store::HostInput {
                host,
                status: 200,
                body: Some(std::fs::read(p).unwrap()),
                ..Default::default()
            }
        })
        .collect()
}
