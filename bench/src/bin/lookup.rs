//! Host lookup + check over a store, in process, in stages: the host key
//! and its hash, the index search (`Store::host`), and the whole
//! `Store::check`. Every host of the store (or a sample) gets one URL, in a
//! shuffled order (so consecutive lookups do not share cache lines by
//! construction); each stage is timed over all of them in turn, round after
//! round, and the medians are printed in nanoseconds per URL.
//!
//! `cargo run --release -p robocc-bench --bin lookup -- STORE [--sample N] [--rounds R] [--batch-only]`
//!
//! The 1,000,000-host store of docs/PERFORMANCE.md is built as described
//! there; this binary only reads it.

use robocc_engine::{HostKey, Store};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let mut sample = usize::MAX;
    let mut rounds = 9;
    let mut path = None;
    // `--batch-only`: time nothing else (for a profiler).
    let mut batch_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sample" => {
                sample = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--sample N")
            }
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds R")
            }
            "--batch-only" => batch_only = true,
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: lookup STORE [--sample N] [--rounds R]");
        std::process::exit(2);
    };
    let t = Instant::now();
    let store = Store::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let open = t.elapsed();
    let mut keys: Vec<&str> = store.hosts().map(|h| h.expect("host record").key).collect();
    // Fisher-Yates with a fixed xorshift: the same order every run.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..keys.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        keys.swap(i, (x % (i as u64 + 1)) as usize);
    }
    keys.truncate(sample);
    // Made in the order they are checked, so reading a URL streams through
    // memory as a crawler's freshly made URL would be in cache: the misses
    // timed are the store's.
    let urls: Vec<String> = keys
        .iter()
        .map(|k| format!("https://{k}/some/path?x=1"))
        .collect();
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    // First use validates each policy; time the steady state.
    let mut found = 0usize;
    for u in &refs {
        if store.check(u).expect("store check").is_some() {
            found += 1;
        }
    }
    assert_eq!(found, refs.len(), "every host of the store is found");
    let mut out = vec![None; refs.len()];
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..rounds {
        if batch_only {
            for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
                store
                    .check_batch(black_box(u), o)
                    .expect("store check_batch");
            }
            continue;
        }
        let t = Instant::now();
        for u in &refs {
            black_box(HostKey::of_url(black_box(u)).map(|k| k.hash()));
        }
        times[0].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            let _ = black_box(store.host(black_box(u)));
        }
        times[1].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            let _ = black_box(store.check(black_box(u)));
        }
        times[2].push(t.elapsed());
        let t = Instant::now();
        for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
            store
                .check_batch(black_box(u), o)
                .expect("store check_batch");
        }
        times[3].push(t.elapsed());
    }
    black_box(&out);
    if batch_only {
        return;
    }
    let ns = |t: &mut Vec<Duration>| {
        t.sort();
        t[t.len() / 2].as_secs_f64() * 1e9 / refs.len() as f64
    };
    println!(
        "{path}: {} hosts, {} policies, {:.1} MB, opened in {:.1} µs; {} URLs, {rounds} rounds",
        store.host_count(),
        store.policy_count(),
        store.len_bytes() as f64 / 1e6,
        open.as_secs_f64() * 1e6,
        refs.len()
    );
    println!("| stage | ns per URL (median) |\n|---|---:|");
    println!("| host key + hash | {:.0} |", ns(&mut times[0]));
    println!(
        "| + index search (`Store::host`) | {:.0} |",
        ns(&mut times[1])
    );
    println!(
        "| + policy + check (`Store::check`) | {:.0} |",
        ns(&mut times[2])
    );
    println!(
        "| `Store::check_batch`, 1,000 URLs a call | {:.0} |",
        ns(&mut times[3])
    );
}
