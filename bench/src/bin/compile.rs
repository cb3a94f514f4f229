//! Serial compile time of a corpus (issue 12): compiles every `*.txt` file of
//! a directory for one agent, one after another on this thread, and prints
//! the total CPU time, the mean/median/p90/p99/max per file and the slowest
//! files (with `ROBOCC_DEBUG_LOWER` set, each file's name on stderr before
//! the lowering's lines about it). `--hashes FILE` writes one `name fnv1a64` line per file (of the
//! artifact bytes, or of the error text) to check that a change to the
//! compiler leaves every artifact byte-identical; `--sizes FILE` one
//! `name source_bytes artifact_bytes` line per compiled file. It also prints the
//! footprint: artifact bytes over source bytes (a source counted as at
//! least 1 KiB, as the report does), median, p90, p99, max and in total.
//!
//! `--rounds N` compiles the corpus N times over and keeps each file's least
//! time (for comparisons on a machine shared with other work).
//!
//! `cargo run --release -p robocc-bench --bin compile -- [DIR] [--agent A] [--hashes FILE] [--sizes FILE] [--slowest N] [--layout auto|compact|dense] [--rounds N]`
//!
//! DIR defaults to `../shared/corpus/real`; the agent to Googlebot.

use robocc_compiler::{compile, CompileOptions};
use robocc_engine::artifact::fnv1a64;
use std::time::Duration;

fn main() {
    let mut dir = String::from("../shared/corpus/real");
    let mut agent = String::from("Googlebot");
    let mut hashes: Option<String> = None;
    let mut sizes: Option<String> = None;
    let mut slowest = 20usize;
    let mut rounds = 1;
    let mut opts = CompileOptions::default();
    let mut args = robocc_bench::args::Args::new(
        "compile [DIR] [--agent A] [--hashes FILE] [--sizes FILE] [--slowest N] [--layout auto|compact|dense] [--rounds N]",
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--agent" => agent = args.value("--agent"),
            "--hashes" => hashes = Some(args.value("--hashes")),
            "--sizes" => sizes = Some(args.value("--sizes")),
            "--layout" => opts.budget.layout = args.layout(),
            "--slowest" => slowest = args.number("--slowest", 0..=100_000),
            "--rounds" => rounds = args.rounds(),
            _ => dir = args.operand(a),
        }
    }
    if !std::path::Path::new(&dir).is_dir() {
        args.fail(&format!("{dir} is not a directory"));
    }
    let files = robocc_testkit::corpus::txt_files(std::path::Path::new(&dir));
    if files.is_empty() {
        eprintln!("no *.txt files in {dir}");
        std::process::exit(2);
    }
    let debug = std::env::var_os("ROBOCC_DEBUG_LOWER").is_some();
    let mut times: Vec<(Duration, String)> = Vec::with_capacity(files.len());
    let mut lines = String::new();
    let mut size_lines = String::new();
    let mut failed = 0usize;
    let mut ratios: Vec<f64> = Vec::with_capacity(files.len());
    let (mut all_artifacts, mut all_sources) = (0usize, 0usize);
    for f in &files {
        let body = robocc_bench::args::read(f);
        let name = f.file_name().map_or_else(
            || f.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        if debug {
            // Names the file the lowering's lines that follow are about.
            eprintln!("file {name}");
        }
        let t0 = robocc_bench::cpu_time(true);
        let out = compile(&body, &agent, &opts).map(|c| c.to_bytes());
        let dt = robocc_bench::cpu_time(true) - t0;
        let hash = match &out {
            Ok(bytes) => {
                ratios.push(bytes.len() as f64 / body.len().max(1024) as f64);
                all_artifacts += bytes.len();
                size_lines.push_str(&format!("{name} {} {}\n", body.len(), bytes.len()));
                all_sources += body.len();
                format!("{:016x}", fnv1a64(bytes))
            }
            Err(e) => {
                failed += 1;
                format!("error {:016x}", fnv1a64(e.to_string().as_bytes()))
            }
        };
        lines.push_str(&format!("{name} {hash}\n"));
        times.push((dt, name));
    }
    // More passes over the corpus: each file's least time (what a busy
    // machine adds to one pass is not the compiler's).
    for _ in 1..rounds {
        for (f, t) in files.iter().zip(&mut times) {
            let body = robocc_bench::args::read(f);
            let t0 = robocc_bench::cpu_time(true);
            let out = compile(&body, &agent, &opts).map(|c| c.to_bytes());
            t.0 = t.0.min(robocc_bench::cpu_time(true) - t0);
            drop(out);
        }
    }
    if let Some(path) = hashes {
        robocc_bench::args::write(&path, lines);
    }
    if let Some(path) = sizes {
        robocc_bench::args::write(&path, size_lines);
    }
    let total: Duration = times.iter().map(|t| t.0).sum();
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].0.as_micros()
    };
    println!(
        "{} files for {agent} ({failed} errors) in {:.2} s CPU: mean {} µs, median {} µs, p90 {} µs, p99 {} µs, max {} µs per file",
        times.len(),
        total.as_secs_f64(),
        total.as_micros() / times.len() as u128,
        at(0.5),
        at(0.9),
        at(0.99),
        times.last().map_or(0, |t| t.0.as_micros()),
    );
    ratios.sort_by(f64::total_cmp);
    let q = |q: f64| {
        let i = ((ratios.len() as f64 * q).ceil() as usize).clamp(1, ratios.len().max(1)) - 1;
        ratios.get(i).copied().unwrap_or(0.0)
    };
    println!(
        "artifact / source (source counted as at least 1 KiB): median {:.2}x, p90 {:.2}x, p99 {:.2}x, max {:.1}x; all artifacts {} bytes / all sources {} bytes = {:.2}x",
        q(0.5),
        q(0.9),
        q(0.99),
        ratios.last().copied().unwrap_or(0.0),
        all_artifacts,
        all_sources,
        all_artifacts as f64 / all_sources.max(1) as f64
    );
    println!("slowest:");
    for (dt, name) in times.iter().rev().take(slowest) {
        println!("{:>12} µs  {name}", dt.as_micros());
    }
}
