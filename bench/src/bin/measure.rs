//! Quick figures for a few robots.txt files: compile time, artifact size,
//! engine and reference checks per second, bytes read per check.
//!
//! `cargo run --release -p robocc-bench --bin measure -- FILE... [--agent NAME] [--urls N] [--dialect D]`

use robocc_bench::{median_time, Workload};
use robocc_engine::Policy;
use std::hint::black_box;

fn main() {
    let mut agent = "Googlebot".to_string();
    let mut count = robocc_bench::URLS;
    let mut files = Vec::new();
    let mut options = robocc_compiler::CompileOptions::default();
    let mut args =
        robocc_bench::args::Args::new("measure FILE... [--agent NAME] [--urls N] [--dialect D]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--agent" => agent = args.value("--agent"),
            "--urls" => count = args.urls(),
            "--dialect" => {
                let d: String = args.value("--dialect");
                options.dialect = robocc_compiler::dialect::from_name(&d)
                    .unwrap_or_else(|| args.fail(&format!("--dialect: unknown dialect {d:?}")));
            }
            _ => files.push(args.operand(a)),
        }
    }
    let files = args.files(files);
    println!("| file | bytes | rules | compile ms | automata | program bytes | artifact bytes | engine checks/s | reference checks/s | speed-up | avg path bytes read | avg URL bytes |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, body) in files {
        let compile_time = median_time(5, || {
            black_box(robocc_compiler::compile(&body, &agent, &options).unwrap());
        });
        let w = Workload::with_options(&name, body, &agent, count, &options);
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let engine = median_time(7, || {
            for u in &w.urls {
                black_box(policy.check(black_box(u)));
            }
        });
        let set = &w.compiled.rule_set;
        let reference = median_time(3, || {
            for u in &w.urls {
                black_box(robocc_reference::check_url(set, u));
            }
        });
        let read: usize = w
            .urls
            .iter()
            .map(|u| policy.check_traced(u).bytes_read)
            .sum();
        let n = w.urls.len() as f64;
        let program: usize = w.compiled.data.automata.iter().map(|a| a.prog.len()).sum();
        println!(
            "| {name} | {} | {} | {:.3} | {} | {} | {} | {:.2} M | {:.3} M | {:.0}x | {:.1} | {:.1} |",
            w.body.len(),
            w.compiled.data.rules.len(),
            compile_time.as_secs_f64() * 1e3,
            w.compiled.data.automata.len(),
            program,
            bytes.len(),
            n / engine.as_secs_f64() / 1e6,
            n / reference.as_secs_f64() / 1e6,
            reference.as_secs_f64() / engine.as_secs_f64(),
            read as f64 / n,
            w.url_bytes() as f64 / n,
        );
    }
}
