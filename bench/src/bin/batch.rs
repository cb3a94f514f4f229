//! `check` against `check_batch` on the same absolute URLs in one process:
//! the two are timed in turn, round after round, and the medians compared
//! (so a machine that gets busier during the run slows both alike).
//!
//! A third loop checks each URL [`REPEAT`] times in a row (the first
//! 1/`REPEAT` of them, so as many checks): the branch predictor then learns
//! each URL's walk, and `repeated ÷ check` is what a check costs for
//! walking unpredictable paths (the exit of the walk, mostly) rather than
//! for its loads and instructions (docs/performance-log.md).
//!
//! `--shuffle`: `check` and `check_batch` take the URLs in another order
//! each round (one of eight seeded shuffles), so that the branch predictor
//! cannot learn the sequence; with up to ~10,000 URLs, it does
//! (`robocc_bench::URLS`).
//!
//! `cargo run --release -p robocc-bench --bin batch -- FILE... [--urls N] [--rounds R] [--shuffle] [--layout auto|compact|dense]`

use robocc_bench::Workload;
use robocc_engine::{Policy, Verdict};
use std::hint::black_box;
use std::time::Instant;

/// How many times in a row the third loop checks each URL.
const REPEAT: usize = 20;

fn main() {
    let mut count = robocc_bench::URLS;
    let mut rounds = 15;
    let mut files = Vec::new();
    let mut options = robocc_compiler::CompileOptions::default();
    let mut args = robocc_bench::args::Args::new(
        "batch FILE... [--urls N] [--rounds R] [--shuffle] [--layout auto|compact|dense]",
    );
    let mut shuffle = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--urls" => count = args.urls(),
            "--rounds" => rounds = args.rounds(),
            "--layout" => options.budget.layout = args.layout(),
            "--shuffle" => shuffle = true,
            _ => files.push(args.operand(a)),
        }
    }
    let files = args.files(files);
    println!("| file | program bytes | check M/s | check_batch M/s | batch ÷ check | each URL repeated M/s | repeated ÷ check |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, body) in files {
        let w = Workload::with_options(&name, body, "Googlebot", count, &options);
        let urls = w.absolute_urls();
        let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let none = Verdict {
            allowed: false,
            rule: None,
        };
        let mut out = vec![none; refs.len()];
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        let few = &refs[..refs.len().div_ceil(REPEAT)];
        let orders = if shuffle {
            shuffles(&refs, 8)
        } else {
            vec![refs.clone()]
        };
        for round in 0..rounds {
            let refs = &orders[round % orders.len()];
            let t = Instant::now();
            for u in refs {
                black_box(policy.check(black_box(u)));
            }
            times[0].push(t.elapsed());
            let t = Instant::now();
            for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
                policy.check_batch(black_box(u), o);
            }
            black_box(&out);
            times[1].push(t.elapsed());
            let t = Instant::now();
            for u in few {
                for _ in 0..REPEAT {
                    black_box(policy.check(black_box(u)));
                }
            }
            times[2].push(t.elapsed());
        }
        let rate = |checks: usize, v: &mut Vec<std::time::Duration>| {
            v.sort();
            checks as f64 / v[v.len() / 2].as_secs_f64() / 1e6
        };
        let [t_single, t_batch, t_repeated] = &mut times;
        let single = rate(refs.len(), t_single);
        let batch = rate(refs.len(), t_batch);
        let repeated = rate(few.len() * REPEAT, t_repeated);
        println!(
            "| {name} | {} | {single:.1} | {batch:.1} | {:.2}× | {repeated:.1} | {:.2}× |",
            policy.sizes().program_bytes,
            batch / single,
            repeated / single,
        );
    }
}

/// `n` seeded shuffles of `items` (xorshift64 and Fisher-Yates: a fixed
/// sequence, so that runs compare).
fn shuffles<'a>(items: &[&'a [u8]], n: usize) -> Vec<Vec<&'a [u8]>> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            let mut v = items.to_vec();
            for i in (1..v.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v.swap(i, (x % (i as u64 + 1)) as usize);
            }
            v
        })
        .collect()
}
