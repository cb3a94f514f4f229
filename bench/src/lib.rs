//! Shared pieces of robocc's benchmarks: workloads and timing helpers.
//!
//! The criterion suite and the report (issue 5) build on these; the
//! `measure` binary is the quick figure for a handful of files.

use robocc_compiler::{compile, urlgen, CompileOptions, Compiled};
use std::time::{Duration, Instant};

/// A compiled file with its URL workload.
pub struct Workload {
    /// File name.
    pub name: String,
    /// robots.txt bytes.
    pub body: Vec<u8>,
    /// The compiled policy (and its rule set, for the reference matcher).
    pub compiled: Compiled,
    /// URLs derived from the file's own patterns (seeded).
    pub urls: Vec<Vec<u8>>,
}

impl Workload {
    /// Compiles `body` for `agent` and generates `count` URLs.
    pub fn new(name: &str, body: Vec<u8>, agent: &str, count: usize) -> Workload {
        Workload::with_options(name, body, agent, count, &CompileOptions::default())
    }

    /// As [`Workload::new`], with compile options (e.g. another dialect).
    pub fn with_options(
        name: &str,
        body: Vec<u8>,
        agent: &str,
        count: usize,
        options: &CompileOptions,
    ) -> Workload {
        let compiled = compile(&body, agent, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
        let urls = urlgen::workload(seed, compiled.rule_set.patterns(), count);
        Workload {
            name: name.to_string(),
            body,
            compiled,
            urls,
        }
    }

    /// Total URL bytes.
    pub fn url_bytes(&self) -> usize {
        self.urls.iter().map(Vec::len).sum()
    }

    /// The URLs as absolute `https://example.com/…` strings, the form every
    /// compared implementation accepts.
    pub fn absolute_urls(&self) -> Vec<String> {
        self.urls
            .iter()
            .map(|u| {
                let u = String::from_utf8_lossy(u).into_owned();
                if u.starts_with('/') {
                    format!("https://example.com{u}")
                } else {
                    u
                }
            })
            .collect()
    }
}

/// The workspace's corpus/real directory.
pub fn corpus_real() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real")
}

/// Median of `runs` timings of `f`.
pub fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
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
