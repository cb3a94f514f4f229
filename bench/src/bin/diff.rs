//! `robocc diff` on real pairs (issue 45): every `--stride`-th file of a
//! corpus against itself with one rule deleted (its middle `Allow` or
//! `Disallow` line), for one agent. Prints how many pairs went over the
//! product budget, the median time to diff a pair against the median time
//! to compile both files (thread CPU time, least of `--rounds` runs each),
//! the median of the per-pair ratio, and the pairs whose product is
//! largest.
//!
//! With `--million`: the million-host store (`robocc_bench::million`, the
//! corpus bodies round robin) against a rebuild where 1% of the distinct
//! bodies changed (every 100th body loses its middle rule), both built in
//! this process; prints the time of `diff_stores` (wall and thread CPU,
//! least of `--rounds`), the hosts listed and the pairs diffed.
//!
//! `cargo run --release -p robocc-bench --bin diff -- [DIR] [--agent A] [--stride N] [--rounds N] [--max-pairs N] [--slowest N] [--million]`
//!
//! DIR defaults to `../shared/corpus/real`; the agent to Googlebot.

use robocc_compiler::diff::diff_stores;
use robocc_compiler::{compile, diff, CompileOptions, DiffError, DiffOptions};
use robocc_engine::{Policy, Store, Usage};
use std::time::{Duration, Instant};

/// The million-host store against a rebuild with 1% of its bodies changed.
fn million(dir: &str, rounds: usize, max_pairs: usize) {
    use robocc_store::StoreBuilder;
    let inputs = robocc_testkit::corpus::inputs(std::path::Path::new(dir));
    let changed: Vec<robocc_store::HostInput> = inputs
        .iter()
        .enumerate()
        .map(|(b, h)| {
            let mut h = h.clone();
            if b % 100 == 0 {
                if let Some(cut) = h.body.as_deref().and_then(without_middle_rule) {
                    h.body = Some(cut);
                }
            }
            h
        })
        .collect();
    let build = |bodies: &[robocc_store::HostInput]| {
        let hosts = robocc_bench::million::hosts(bodies).map(Ok);
        let (bytes, _) = StoreBuilder::new("Googlebot")
            .build(hosts)
            .unwrap_or_else(|e| robocc_bench::args::die(&e.to_string()));
        bytes
    };
    let (old, new) = (build(&inputs), build(&changed));
    let (old, new) = (
        Store::from_slice(&old).expect("valid"),
        Store::from_slice(&new).expect("valid"),
    );
    let mut result = None;
    let wall = Instant::now();
    let cpu = least(rounds, || {
        result = Some(diff_stores(&old, &new, &[Usage::Crawl], max_pairs));
    });
    let wall = wall.elapsed() / rounds as u32;
    match result {
        Some(Ok(d)) => println!(
            "million-host store against 1% of bodies changed: {} hosts listed, {} in both, \
             {} policy pairs diffed; {:.2} s CPU (least of {rounds}), {:.2} s wall (mean)",
            d.hosts.len(),
            d.common,
            d.diffed,
            cpu.as_secs_f64(),
            wall.as_secs_f64()
        ),
        Some(Err(e)) => println!("million-host store: {e}"),
        None => unreachable!("rounds >= 1"),
    }
}

/// `body` without its middle rule line; `None` when it has no rule.
fn without_middle_rule(body: &[u8]) -> Option<Vec<u8>> {
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let rules: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let key = lines[i].split(|&b| b == b':').next().unwrap_or(b"");
            let key = String::from_utf8_lossy(key).trim().to_ascii_lowercase();
            key == "allow" || key == "disallow"
        })
        .collect();
    let cut = *rules.get(rules.len() / 2)?;
    let kept: Vec<&[u8]> = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != cut)
        .map(|(_, l)| *l)
        .collect();
    Some(kept.join(&b'\n'))
}

/// Least thread CPU time of `rounds` runs of `f`.
fn least(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t0 = robocc_bench::cpu_time(true);
            f();
            robocc_bench::cpu_time(true) - t0
        })
        .min()
        .unwrap_or_default()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let mut dir = String::from("../shared/corpus/real");
    let mut agent = String::from("Googlebot");
    let mut stride = 1usize;
    let mut rounds = 3usize;
    let mut slowest = 10usize;
    let mut options = DiffOptions::default();
    let mut stores = false;
    let mut args = robocc_bench::args::Args::new(
        "diff [DIR] [--agent A] [--stride N] [--rounds N] [--max-pairs N] [--slowest N] [--million]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--agent" => agent = args.value("--agent"),
            "--stride" => stride = args.number("--stride", 1..=100_000),
            "--rounds" => rounds = args.rounds(),
            "--max-pairs" => options.max_pairs = args.number("--max-pairs", 0..=usize::MAX),
            "--slowest" => slowest = args.number("--slowest", 0..=100_000),
            "--million" => stores = true,
            _ => dir = args.operand(a),
        }
    }
    if stores {
        return million(&dir, rounds, options.max_pairs);
    }
    let files = robocc_testkit::corpus::txt_files(std::path::Path::new(&dir));
    let compile_opts = CompileOptions::default();
    let (mut diffs, mut compiles, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut over: Vec<String> = Vec::new();
    let mut largest: Vec<(usize, Duration, String)> = Vec::new();
    let (mut pairs, mut skipped) = (0usize, 0usize);
    for f in files.iter().step_by(stride) {
        let body = robocc_bench::args::read(f);
        let name = f
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let Some(cut) = without_middle_rule(&body) else {
            skipped += 1;
            continue;
        };
        let (Ok(old), Ok(new)) = (
            compile(&body, &agent, &compile_opts),
            compile(&cut, &agent, &compile_opts),
        ) else {
            skipped += 1;
            continue;
        };
        let (old, new) = (old.to_bytes(), new.to_bytes());
        let (a, b) = (
            Policy::from_bytes(&old).expect("valid"),
            Policy::from_bytes(&new).expect("valid"),
        );
        pairs += 1;
        let mut result = None;
        let dt = least(rounds, || result = Some(diff(&a, &b, &options)));
        match result {
            Some(Ok(d)) => {
                let ct = least(rounds, || {
                    std::hint::black_box(compile(&body, &agent, &compile_opts).is_ok());
                    std::hint::black_box(compile(&cut, &agent, &compile_opts).is_ok());
                });
                diffs.push(dt);
                compiles.push(ct);
                ratios.push(dt.as_secs_f64() / ct.as_secs_f64().max(1e-9));
                largest.push((d.pairs, dt, name));
            }
            Some(Err(DiffError::TooManyPairs { .. })) => over.push(name),
            Some(Err(e)) => println!("{name}: {e}"),
            None => unreachable!("rounds >= 1"),
        }
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "{pairs} pairs ({skipped} files without a rule or not compiled), {} over the budget of {} product states",
        over.len(),
        options.max_pairs
    );
    let (d, c) = (median(&mut diffs), median(&mut compiles));
    println!(
        "median diff {:.1} µs, median compile of both {:.1} µs ({:.2}×); median per-pair ratio {:.2}, p90 {:.2}, max {:.2}",
        d.as_secs_f64() * 1e6,
        c.as_secs_f64() * 1e6,
        d.as_secs_f64() / c.as_secs_f64().max(1e-9),
        ratios.get(ratios.len() / 2).copied().unwrap_or(0.0),
        ratios.get(ratios.len() * 9 / 10).copied().unwrap_or(0.0),
        ratios.last().copied().unwrap_or(0.0),
    );
    largest.sort_by_key(|x| std::cmp::Reverse(x.0));
    for (states, dt, name) in largest.iter().take(slowest) {
        println!(
            "  {name}: {states} product states, {:.1} ms",
            dt.as_secs_f64() * 1e3
        );
    }
    for name in &over {
        println!("  over the budget: {name}");
    }
}
