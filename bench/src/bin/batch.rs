//! `check` against `check_batch` on the same absolute URLs in one process:
//! the two are timed in turn, round after round, and the medians compared
//! (so a machine that gets busier during the run slows both alike).
//!
//! `cargo run --release -p robocc-bench --bin batch -- FILE... [--urls N] [--rounds R] [--layout auto|compact|dense]`

use robocc_bench::Workload;
use robocc_engine::{Policy, Verdict};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut count = 10_000;
    let mut rounds = 15;
    let mut files = Vec::new();
    let mut options = robocc_compiler::CompileOptions::default();
    let mut args = robocc_bench::args::Args::new(
        "batch FILE... [--urls N] [--rounds R] [--layout auto|compact|dense]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--urls" => count = args.number("--urls", 1..=10_000_000),
            "--rounds" => rounds = args.number("--rounds", 1..=100_000),
            "--layout" => options.budget.layout = args.layout(),
            _ => files.push(args.operand(a)),
        }
    }
    if files.is_empty() {
        args.fail("no FILE given");
    }
    println!("| file | program bytes | check M/s | check_batch M/s | batch ÷ check |");
    println!("|---|---:|---:|---:|---:|");
    for file in files {
        let body = robocc_bench::args::read(&file);
        let name = std::path::Path::new(&file)
            .file_name()
            .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
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
        let mut times = [Vec::new(), Vec::new()];
        for _ in 0..rounds {
            let t = Instant::now();
            for u in &refs {
                black_box(policy.check(black_box(u)));
            }
            times[0].push(t.elapsed());
            let t = Instant::now();
            for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
                policy.check_batch(black_box(u), o);
            }
            black_box(&out);
            times[1].push(t.elapsed());
        }
        let rate = |v: &mut Vec<std::time::Duration>| {
            v.sort();
            refs.len() as f64 / v[v.len() / 2].as_secs_f64() / 1e6
        };
        let [single, batch] = times.map(|mut v| rate(&mut v));
        println!(
            "| {name} | {} | {single:.1} | {batch:.1} | {:.2}× |",
            policy.sizes().program_bytes,
            batch / single,
        );
    }
}
