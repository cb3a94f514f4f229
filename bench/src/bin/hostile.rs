//! Compile time and peak memory of every hostile input, each in its own
//! process (peak RSS is per process).
//!
//! ```text
//! cargo run -p robocc-bench --release --bin hostile            # the table
//! cargo run -p robocc-bench --release --bin hostile -- --write corpus/hostile
//! ```
//!
//! `--write DIR` also writes the inputs of at most 64 KiB to DIR.

use robocc_compiler::compile;
use robocc_engine::Policy;
use robocc_testkit::hostile::inputs;
use std::process::Command;
use std::time::Instant;

/// The process's peak resident set in KiB (0 where Linux does not say).
fn peak_rss_kib() -> u64 {
    robocc_bench::peak_rss()
        .and_then(|kb| kb.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Child: compile one input, check a few URLs, print one table row.
fn one(name: &str) {
    let h = inputs()
        .into_iter()
        .find(|h| h.name == name)
        .expect("known input");
    let start = Instant::now();
    let result = compile(&h.body, "Googlebot", &h.options);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let outcome = match &result {
        Ok(c) => {
            let bytes = c.to_bytes();
            let policy = Policy::from_bytes(&bytes).expect("compiler output loads");
            let acap = (h.options.dialect == robocc_engine::Dialect::Acap)
                .then(|| robocc_reference::AcapOracle::new(&h.body, "Googlebot", &[], &[]));
            for url in [&b"/"[..], b"/dir1/page-1.html", b"/a/b?c", b"/xabcd"] {
                match &acap {
                    Some(oracle) => {
                        for &u in robocc_engine::Usage::ACAP {
                            let want = oracle.check(url, u).allowed;
                            assert_eq!(policy.check_usage(url, u).allowed, want, "{name} {u}");
                        }
                    }
                    None => {
                        let want = robocc_reference::check_url(&c.rule_set, url);
                        assert_eq!(policy.check(url).allowed, want.allowed, "{name}");
                    }
                }
            }
            let program: usize = c.data.automata.iter().map(|a| a.prog.len()).sum();
            format!(
                "ok: {} rules, {} automata, {program} program bytes, {} KiB artifact, {} diagnostics",
                c.rule_set.rules.len(),
                c.data.automata.len(),
                bytes.len() / 1024,
                c.diagnostics.len()
            )
        }
        Err(e) => format!("refused: {e}"),
    };
    println!(
        "| {} | {} | {:.0} | {} | {} | {} |",
        h.name,
        h.body.len(),
        ms,
        peak_rss_kib() / 1024,
        outcome,
        h.what
    );
}

fn main() {
    // `--one NAME` is how the process runs each input in a child of its own.
    let mut args = robocc_bench::args::Args::new("hostile [--write DIR]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--one" => {
                one(&args.value::<String>("--one"));
                return;
            }
            "--write" => {
                let dir = std::path::PathBuf::from(args.value::<String>("--write"));
                if let Err(e) = std::fs::create_dir_all(&dir) {
                    args.fail(&format!("{}: {e}", dir.display()));
                }
                for h in inputs().into_iter().filter(|h| h.body.len() <= 64 << 10) {
                    robocc_bench::args::write(dir.join(format!("{}.txt", h.name)), &h.body);
                }
            }
            _ => args.fail(&format!("unexpected argument {a:?}")),
        }
    }
    println!("| input | bytes | compile ms | peak RSS MiB | result | what |");
    println!("|---|---:|---:|---:|---|---|");
    let me = std::env::current_exe().expect("own path");
    for h in inputs() {
        let out = Command::new(&me)
            .args(["--one", h.name])
            .output()
            .expect("run child");
        if out.status.success() {
            print!("{}", String::from_utf8_lossy(&out.stdout));
        } else {
            println!(
                "| {} | {} | - | - | CHILD FAILED: {} | {} |",
                h.name,
                h.body.len(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or(""),
                h.what
            );
        }
    }
}
