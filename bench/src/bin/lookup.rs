//! Host lookup + check over a store, in process, in stages: the host key
//! and its hash, the index search (`Store::host`), the whole
//! `Store::check`, and `Store::check_batch` over the same URLs
//! ([`robocc_bench::lookup_times`]: one URL per host, shuffled, medians),
//! beside the memory latency of the same minute (a pointer chase over a
//! buffer the store's size).
//!
//! `cargo run --release -p robocc-bench --bin lookup -- STORE [--sample N] [--rounds R] [--check-only | --batch-only] [--in-memory]`
//!
//! The 1,000,000-host store of docs/PERFORMANCE.md is built by the report
//! (`cargo bench -p robocc-bench --bench report`), or from a manifest as
//! docs/performance-log.md says; this binary only reads a store.

use robocc_engine::Store;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut sample = usize::MAX;
    let mut rounds = 9;
    let mut path = None;
    // `--check-only` / `--batch-only`: run `Store::check` or
    // `Store::check_batch` over the URLs `rounds` times and nothing else
    // (for a profiler: `run_checks` holds the loop, for callgrind's
    // `--toggle-collect`; bench/scripts/store_instructions.sh).
    let mut only = None;
    // `--in-memory`: `Store::from_slice` of the file's bytes (as the report
    // does) instead of mapping it.
    let mut in_memory = false;
    let mut args = robocc_bench::args::Args::new(
        "lookup STORE [--sample N] [--rounds R] [--check-only | --batch-only] [--in-memory]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sample" => sample = args.number("--sample", 1..=usize::MAX),
            "--rounds" => rounds = args.rounds(),
            "--check-only" | "--batch-only" => {
                let batch = a == "--batch-only";
                if only.is_some_and(|b| b != batch) {
                    args.fail("--check-only and --batch-only: give one");
                }
                only = Some(batch);
            }
            "--in-memory" => in_memory = true,
            _ => path = Some(args.operand(a)),
        }
    }
    let Some(path) = path else {
        args.fail("no STORE given");
    };
    let t = Instant::now();
    let store = if in_memory {
        Store::from_slice(&robocc_bench::args::read(&path))
    } else {
        Store::open(&path)
    }
    .unwrap_or_else(|e| args.fail(&e.to_string()));
    let open = t.elapsed();
    if store.host_count() == 0 {
        args.fail(&format!("{path}: the store has no hosts to look up"));
    }
    if let Some(batch) = only {
        // The URLs `lookup_times` times.
        let urls =
            robocc_bench::lookup_urls(&store, sample).unwrap_or_else(|e| args.fail(&e.to_string()));
        let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
        // Once untimed: every policy validated (lazily) before the loop.
        run_checks(&store, &refs, 1, batch);
        run_checks(&store, &refs, rounds, batch);
        // For a script that divides a count by it (a store may have fewer
        // hosts than `--sample`).
        println!("urls {}", refs.len());
        return;
    }
    let t = robocc_bench::lookup_times(&store, sample, rounds)
        .unwrap_or_else(|e| args.fail(&e.to_string()));
    println!(
        "{path}: {} hosts, {} policies, {:.1} MB, opened in {:.1} µs; {} URLs, {rounds} rounds",
        store.host_count(),
        store.policy_count(),
        store.len_bytes() as f64 / 1e6,
        open.as_secs_f64() * 1e6,
        t.urls
    );
    println!("| stage | ns per URL (median) |\n|---|---:|");
    println!("| host key + hash | {:.0} |", t.key_hash);
    println!("| + index search (`Store::host`) | {:.0} |", t.host);
    println!("| + policy + check (`Store::check`) | {:.0} |", t.check);
    println!(
        "| `Store::check_batch`, 1,000 URLs a call | {:.0} |",
        t.batch
    );
    println!(
        "| baseline: one random line read, store-sized buffer | {:.0} |",
        t.line_read
    );
    println!(
        "\n`Store::check` took {:.2} line reads, `check_batch` {:.2}.",
        t.check / t.line_read,
        t.batch / t.line_read
    );
}

/// `rounds` passes of `Store::check` (or `check_batch`, 1,000 URLs a call)
/// over `urls`; out of line so that a profiler can count only this.
#[inline(never)]
fn run_checks(store: &Store, urls: &[&[u8]], rounds: usize, batch: bool) {
    let mut out = vec![None; 1000];
    for _ in 0..rounds {
        if batch {
            for u in urls.chunks(1000) {
                if let Err(e) = store.check_batch(black_box(u), &mut out[..u.len()]) {
                    robocc_bench::args::die(&e.to_string());
                }
            }
        } else {
            for u in urls {
                let v = store.check(black_box(u));
                black_box(v.unwrap_or_else(|e| robocc_bench::args::die(&e.to_string())));
            }
        }
    }
    black_box(&out);
}
