//! acap: checks per second for one usage (`check_usage`) and for all
//! fourteen from one walk (`usages`), against the crawl-only `check` of the
//! same policy and the independent ACAP oracle (a plain walk over the
//! rules with pairwise narrowest-scope comparison), on the same absolute
//! URLs in one process, timed in turn.
//!
//! `cargo run --release -p robocc-bench --bin acap -- [FILE --agent NAME --purpose P…] [--urls N] [--rounds R]`
//!
//! Default: corpus/examples/acap-publisher.txt for `newsbot`, purpose `news`.

use robocc_bench::Workload;
use robocc_compiler::CompileOptions;
use robocc_engine::{Dialect, Policy, Usage};
use robocc_reference::AcapOracle;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let mut count = robocc_bench::URLS;
    let mut rounds = 15;
    let mut file = None;
    let mut agent = "newsbot".to_string();
    let mut purposes = Vec::new();
    let mut args = robocc_bench::args::Args::new(
        "acap [FILE --agent NAME --purpose P...] [--urls N] [--rounds R]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--urls" => count = args.urls(),
            "--rounds" => rounds = args.rounds(),
            "--agent" => agent = args.value("--agent"),
            "--purpose" => purposes.push(args.value("--purpose")),
            _ => file = Some(args.operand(a)),
        }
    }
    let file = file.unwrap_or_else(|| {
        if purposes.is_empty() {
            purposes.push("news".to_string());
        }
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../corpus/examples/acap-publisher.txt"
        )
        .to_string()
    });
    let body = robocc_bench::args::read(&file);
    let options = CompileOptions {
        dialect: Dialect::Acap,
        purposes: purposes.clone(),
        ..CompileOptions::default()
    };
    let w = Workload::with_options(&file, body.clone(), &agent, count, &options);
    let urls = w.absolute_urls();
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let bytes = w.compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let oracle = AcapOracle::new(&body, &agent, &purposes, &[]);
    // The oracle is slow: it gets a tenth of the URLs.
    let few = &refs[..refs.len().div_ceil(10)];
    let mut times: [Vec<Duration>; 5] = Default::default();
    for _ in 0..rounds {
        let t = Instant::now();
        for u in &refs {
            black_box(policy.check(black_box(u)));
        }
        times[0].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            black_box(policy.check_usage(black_box(u), black_box(Usage::PresentSnippet)));
        }
        times[1].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            black_box(policy.usages(black_box(u)));
        }
        times[2].push(t.elapsed());
        let t = Instant::now();
        for u in few {
            black_box(oracle.check(black_box(u), Usage::PresentSnippet));
        }
        times[3].push(t.elapsed() * 10);
        let t = Instant::now();
        for u in few {
            for &usage in Usage::ACAP {
                black_box(oracle.check(black_box(u), usage));
            }
        }
        times[4].push(t.elapsed() * 10);
    }
    let rate = |v: &mut Vec<Duration>| {
        v.sort();
        refs.len() as f64 / v[v.len() / 2].as_secs_f64() / 1e6
    };
    let [check, one, all, oracle_one, oracle_all] = times.map(|mut v| rate(&mut v));
    let s = policy.sizes();
    println!(
        "{file}: agent {agent}, purposes {purposes:?}, {} rules, {} program bytes, {} URLs, \
         {rounds} rounds (medians, M checks/s)",
        policy.rule_count(),
        s.program_bytes,
        refs.len()
    );
    println!("| API | M URLs/s | vs oracle |");
    println!("|---|---:|---:|");
    println!(
        "| check (crawl) | {check:.2} | {:.0}× |",
        check / oracle_one
    );
    println!(
        "| check_usage(present-snippet) | {one:.2} | {:.0}× |",
        one / oracle_one
    );
    println!(
        "| usages (all 14 from one walk) | {all:.2} | {:.0}× |",
        all / oracle_all
    );
    println!("| oracle, one usage | {oracle_one:.4} | 1× |");
    println!("| oracle, 14 usages | {oracle_all:.4} | 1× |");
}
