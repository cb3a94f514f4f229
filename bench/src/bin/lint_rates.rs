//! `robocc lint`'s false-alarm rate (issue 46): every file of a corpus
//! linted as `robocc lint --robots FILE` does (rfc9309, no agent: every
//! crawler the file names and one it does not), and per code the files and
//! findings above info, the info findings, and the time lint took (total,
//! and the slowest file). The corpus is ordinary files: each finding above
//! info is an alarm, and docs/lint.md says per code why its rate is what
//! it is.
//!
//! `cargo run --release -p robocc-bench --bin lint_rates -- [DIR] [--code CODE…]`
//!
//! Default DIR: `../shared/corpus/real`. `--code CODE` (repeatable) also
//! prints each finding of that code above info, with its file, to sample.

use robocc_compiler::diag::Severity;
use robocc_compiler::lint::lint;
use robocc_compiler::CompileOptions;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Count {
    files: usize,
    findings: usize,
    info: usize,
}

fn main() {
    let mut dir = robocc_testkit::paths::shared_real()
        .unwrap_or_else(|| PathBuf::from("../shared/corpus/real"));
    let mut show: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--code" => show.push(args.next().expect("--code CODE")),
            _ => dir = PathBuf::from(a),
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"))
        .collect();
    files.sort();
    let mut counts: BTreeMap<&'static str, Count> = BTreeMap::new();
    let (mut loud_files, mut total, mut slowest) = (0, Duration::ZERO, (Duration::ZERO, None));
    let options = CompileOptions::default();
    for path in &files {
        let body = std::fs::read(path).unwrap();
        let start = Instant::now();
        let findings = lint(&body, None, &options);
        let took = start.elapsed();
        total += took;
        if took > slowest.0 {
            slowest = (took, Some(path.clone()));
        }
        let mut loud_codes: Vec<&'static str> = Vec::new();
        for f in &findings {
            let c = counts.entry(f.code).or_default();
            if f.severity > Severity::Info {
                c.findings += 1;
                loud_codes.push(f.code);
                if show.iter().any(|s| s == f.code) {
                    println!(
                        "{}:{}: {}",
                        path.file_name().unwrap().to_string_lossy(),
                        f.line,
                        f.message
                    );
                }
            } else {
                c.info += 1;
            }
        }
        loud_files += usize::from(!loud_codes.is_empty());
        loud_codes.sort_unstable();
        loud_codes.dedup();
        for code in loud_codes {
            counts.entry(code).or_default().files += 1;
        }
    }
    let n = files.len();
    println!("{n} files, {loud_files} with a finding above info");
    println!(
        "lint time: {:.1} s in all, {:.2} ms per file on average, slowest {:.1} ms ({})",
        total.as_secs_f64(),
        total.as_secs_f64() * 1e3 / n.max(1) as f64,
        slowest.0.as_secs_f64() * 1e3,
        slowest.1.map_or(String::new(), |p| p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned())
    );
    println!("| code | files above info (rate) | findings above info | info findings |");
    println!("|---|---|---|---|");
    for (code, c) in &counts {
        println!(
            "| `{code}` | {} ({:.1}%) | {} | {} |",
            c.files,
            100.0 * c.files as f64 / n.max(1) as f64,
            c.findings,
            c.info
        );
    }
}
