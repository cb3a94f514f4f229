//! Shared pieces of robocc's benchmarks: workloads and timing helpers.
//!
//! The criterion suite and the report (issue 5) build on these; the
//! `measure` binary is the quick figure for a handful of files.

use robocc_compiler::{compile, CompileOptions, Compiled};
use robocc_testkit::urlgen;
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

/// Medians of `runs` timings of `f` and of `g`, taken in turn (f, g, f,
/// g, …) so that a machine that gets busier during the measurement slows
/// both alike: for ratios between two ways of doing the same work.
pub fn median_times_paired(
    runs: usize,
    mut f: impl FnMut(),
    mut g: impl FnMut(),
) -> (Duration, Duration) {
    let mut a = Vec::with_capacity(runs);
    let mut b = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f();
        a.push(t.elapsed());
        let t = Instant::now();
        g();
        b.push(t.elapsed());
    }
    a.sort();
    b.sort();
    (a[a.len() / 2], b[b.len() / 2])
}
