//! The footprint of answering each of 20 agents from one policy (issue 44,
//! part 3): over a corpus, for the 20-agent list of AI crawlers and search
//! engines, every file compiled once answering each agent
//! (`compile_each`) and 20 times for one agent (`compile`):
//!
//! * artifact bytes over source bytes (a source counted as at least 1 KiB,
//!   as the report does), median and p99, of the each-agent policy;
//! * the each-agent policy's bytes over the largest of the file's 20
//!   one-agent policies, median and p99 (target: ≤ 2× on the median file);
//! * compile time per file, one each-agent compile against the 20
//!   one-agent ones, median and p99;
//! * check time per URL, over ≥ 20,000 shuffled (file, URL) pairs from a
//!   sample of the files: one walk answering all 20 (`check_each`), one
//!   agent's `check`, and 20 separate policies' checks (target: the one
//!   walk ≤ 3× one agent's check), medians of `--rounds` paired runs.
//!
//! Also how many policies of several columns take the per-column form
//! (each column's own automata, walked in turn) because the columns' joint
//! automaton is over the quick budget or blown up.
//!
//! `cargo run --release -p robocc-bench --bin each_agent -- [DIR] [--urls N] [--rounds R] [--every K] [--list]`
//!
//! DIR defaults to `../shared/corpus/real`; `--every K` times the checks
//! of every K-th file (default 20); `--list` names the files whose joint
//! automaton was over the budget.

use robocc_compiler::{compile, compile_each, CompileError, CompileOptions};
use robocc_engine::{Policy, Verdict};
use robocc_testkit::crawlers::CRAWLERS as AGENTS;
use robocc_testkit::urlgen;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The `q` quantile of `v` (sorted here).
fn quantile<T: PartialOrd + Copy>(v: &mut [T], q: f64) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// One file's policies: the each-agent one and the 20 alone.
struct Compiled {
    each: robocc_engine::AlignedBytes,
    alone: Vec<robocc_engine::AlignedBytes>,
    /// The shared rules' patterns (what its URLs are made from), and the
    /// seed of those URLs.
    patterns: Vec<Vec<u8>>,
    seed: u64,
}

fn main() {
    let mut dir = String::from("../shared/corpus/real");
    let mut count = robocc_bench::URLS;
    let mut rounds = 11;
    let mut every = 20usize;
    let mut list = false;
    let mut args = robocc_bench::args::Args::new(
        "each_agent [DIR] [--urls N] [--rounds R] [--every K] [--list]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--list" => list = true,
            "--urls" => count = args.urls(),
            "--rounds" => rounds = args.rounds(),
            "--every" => every = args.number("--every", 1..=100_000),
            _ => dir = args.operand(a),
        }
    }
    let files = robocc_testkit::corpus::txt_files(std::path::Path::new(&dir));
    if files.is_empty() {
        args.fail(&format!("no *.txt files in {dir}"));
    }
    let options = CompileOptions::default();
    let (mut per_source, mut per_largest) = (Vec::new(), Vec::new());
    let (mut each_time, mut alone_time) = (Vec::new(), Vec::new());
    let (mut columns, mut over_budget, mut alone_failed) = (Vec::new(), 0usize, 0usize);
    // Several columns in the per-column form: the joint automaton over the
    // quick budget, or blown up.
    let (mut joint_over, mut joint_larger) = (0usize, 0usize);
    let mut timed: Vec<Compiled> = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let body = robocc_bench::args::read(path);
        let t = Instant::now();
        let alone: Result<Vec<_>, CompileError> = AGENTS
            .iter()
            .map(|a| compile(&body, *a, &options))
            .collect();
        let alone_t = t.elapsed();
        let Ok(alone) = alone else {
            alone_failed += 1;
            continue;
        };
        let t = Instant::now();
        let each = match compile_each(&body, AGENTS, &options) {
            Ok(e) => e,
            Err(CompileError::Budget(_)) => {
                over_budget += 1;
                continue;
            }
            Err(e) => panic!("{}: {e}", path.display()),
        };
        let each_t = t.elapsed();
        let each_bytes = each.to_bytes();
        let largest = alone.iter().map(|c| c.to_bytes().len()).max().unwrap_or(1);
        per_source.push(each_bytes.len() as f64 / body.len().max(1024) as f64);
        per_largest.push(each_bytes.len() as f64 / largest as f64);
        each_time.push(each_t);
        alone_time.push(alone_t);
        columns.push(each.data.columns);
        if each.data.columns > 1 && !each.data.parts.is_empty() {
            let why = &each.data.policy.header.split_reason;
            if why.contains("table bytes") {
                joint_larger += 1;
            } else {
                joint_over += 1;
                if list {
                    println!("joint over the budget: {}", path.display());
                }
            }
        }
        if i % every == 0 {
            timed.push(Compiled {
                each: each_bytes,
                alone: alone.iter().map(|c| c.to_bytes()).collect(),
                patterns: each.rule_set.patterns().map(<[u8]>::to_vec).collect(),
                seed: robocc_engine::artifact::fnv1a64(path.as_os_str().as_encoded_bytes()),
            });
        }
    }
    let n = per_source.len();
    println!(
        "{n} files of {} compiled for the 20 agents ({over_budget} each-agent policies over \
         the budget, {alone_failed} files over it for one agent alone)",
        files.len()
    );
    println!(
        "several columns, each lowered alone: {joint_over} (joint automaton over the quick \
         budget), {joint_larger} (joint automaton over twice their bytes)"
    );
    println!(
        "distinct rule sets (columns) per file: median {}, p99 {}, max {}",
        quantile(&mut columns, 0.5),
        quantile(&mut columns, 0.99),
        quantile(&mut columns, 1.0)
    );
    println!(
        "each-agent artifact / source (≥ 1 KiB): median {:.2}, p99 {:.2}",
        quantile(&mut per_source, 0.5),
        quantile(&mut per_source, 0.99)
    );
    println!(
        "each-agent artifact / largest one-agent artifact: median {:.2}, p99 {:.2}, max {:.2}",
        quantile(&mut per_largest, 0.5),
        quantile(&mut per_largest, 0.99),
        quantile(&mut per_largest, 1.0)
    );
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "compile per file: each-agent median {:.0} µs, p99 {:.0} µs; 20 one-agent compiles \
         median {:.0} µs, p99 {:.0} µs",
        us(quantile(&mut each_time, 0.5)),
        us(quantile(&mut each_time, 0.99)),
        us(quantile(&mut alone_time, 0.5)),
        us(quantile(&mut alone_time, 0.99))
    );
    check_times(&timed, count, rounds);
}

/// Check time per URL over (file, URL) pairs of the timed files.
fn check_times(timed: &[Compiled], count: usize, rounds: usize) {
    let each: Vec<Policy<'_>> = timed
        .iter()
        .map(|c| Policy::from_bytes(&c.each).unwrap())
        .collect();
    let alone: Vec<Vec<Policy<'_>>> = timed
        .iter()
        .map(|c| {
            c.alone
                .iter()
                .map(|b| Policy::from_bytes(b).unwrap())
                .collect()
        })
        .collect();
    // URLs made from each file's own patterns, as many per file.
    let per_file = count.div_ceil(timed.len().max(1));
    let mut pairs: Vec<(usize, Vec<u8>)> = Vec::with_capacity(count);
    for (f, c) in timed.iter().enumerate() {
        let patterns = c.patterns.iter().map(Vec::as_slice);
        for u in urlgen::workload(c.seed, patterns, per_file) {
            pairs.push((f, u));
        }
    }
    robocc_bench::shuffle(&mut pairs);
    let blank = Verdict {
        allowed: true,
        rule: None,
    };
    let one_walk = || {
        let mut out = [blank; 20];
        let mut allowed = 0usize;
        for (f, u) in &pairs {
            each[*f].check_each(u, &mut out);
            allowed += out.iter().filter(|v| v.allowed).count();
        }
        black_box(allowed);
    };
    let one_agent = || {
        let mut allowed = 0usize;
        for (f, u) in &pairs {
            allowed += usize::from(alone[*f][0].check(u).allowed);
        }
        black_box(allowed);
    };
    let twenty = || {
        let mut allowed = 0usize;
        for (f, u) in &pairs {
            for p in &alone[*f] {
                allowed += usize::from(p.check(u).allowed);
            }
        }
        black_box(allowed);
    };
    let (walk, one) = robocc_bench::median_times_paired(rounds, one_walk, one_agent);
    let (_, separate) = robocc_bench::median_times_paired(rounds.div_ceil(3), one_walk, twenty);
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / pairs.len() as f64;
    println!(
        "check per URL ({} shuffled URLs of {} files): one walk answering 20 {:.1} ns, one \
         agent's check {:.1} ns ({:.2}×), 20 separate policies {:.1} ns ({:.2}× the one walk)",
        pairs.len(),
        timed.len(),
        ns(walk),
        ns(one),
        walk.as_secs_f64() / one.as_secs_f64(),
        ns(separate),
        separate.as_secs_f64() / walk.as_secs_f64()
    );
}
