//! Register automata against the plain program they replace, in one
//! process on the same URLs: bytes, automata and checks per second of each
//! file compiled with `Registers::Never` (the lowering before register
//! automata existed) and with the default `Registers::Auto`.
//!
//! `cargo run --release -p robocc-bench --bin registers -- FILE...`
//!
//! `REGISTERS_ONLY=never|auto` runs one side only (for cachegrind).

use robocc_bench::{median_time, Workload};
use robocc_compiler::{compile, Budget, CompileOptions, Registers};
use robocc_engine::Policy;
use std::hint::black_box;

fn main() {
    let mut args = robocc_bench::args::Args::new("registers FILE...");
    let mut files = Vec::new();
    while let Some(a) = args.next() {
        files.push(args.operand(a));
    }
    let files = args.files(files);
    println!("| file | never: automata | never: bytes | auto: automata (register) | auto: bytes | never checks/s | auto checks/s | auto/never |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, body) in files {
        let w = Workload::new(&name, body.clone(), "Googlebot", robocc_bench::URLS);
        let never = CompileOptions {
            budget: Budget {
                registers: Registers::Never,
                ..Budget::default()
            },
            ..CompileOptions::default()
        };
        let plain = match compile(&body, "Googlebot", &never) {
            Ok(c) => c.to_bytes(),
            Err(e) => {
                println!("| {name} | ({e}) | | | | | | |");
                continue;
            }
        };
        let auto = w.compiled.to_bytes();
        let (p, a) = (
            Policy::from_bytes(&plain).unwrap(),
            Policy::from_bytes(&auto).unwrap(),
        );
        for u in &w.urls {
            assert_eq!(
                p.check(u),
                a.check(u),
                "{name}: {}",
                String::from_utf8_lossy(u)
            );
        }
        let run = |policy: &Policy<'_>| {
            w.urls.iter().for_each(|u| {
                black_box(policy.check(black_box(u)));
            })
        };
        match std::env::var("REGISTERS_ONLY").as_deref() {
            Ok("never") => {
                run(&p);
                continue;
            }
            Ok("auto") => {
                run(&a);
                continue;
            }
            _ => {}
        }
        let n = w.urls.len() as f64;
        let rp = n / median_time(9, || run(&p)).as_secs_f64();
        let ra = n / median_time(9, || run(&a)).as_secs_f64();
        println!(
            "| {name} | {} | {} | {} ({}) | {} | {:.1} M | {:.1} M | {:.2} |",
            p.header().automata,
            plain.len(),
            a.header().automata,
            a.sizes().register_automata,
            auto.len(),
            rp / 1e6,
            ra / 1e6,
            ra / rp
        );
    }
}
