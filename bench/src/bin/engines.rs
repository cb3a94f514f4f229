//! The same checks through two builds of robocc: this binary uses only the
//! compiler's `compile`, `Compiled::to_bytes`, `Policy::from_bytes` and
//! `Policy::check`, which format 2 (683dd38, the last commit before the
//! compact programs) had too, so `bench/scripts/format2.sh` builds it
//! unchanged in a worktree of that commit and alternates the two builds
//! over the same URL files. It is issue 12's "not lower than before the
//! change" measured against the engine that came before, not only against
//! the old table layout re-implemented in `layout`.
//!
//! `engines write DIR FILE...` (the script runs this build's) writes
//! `DIR/NAME.urls`, the report's URLs for each
//! file (20,000, absolute), each as a little-endian `u32` length then the
//! bytes.
//! `engines time DIR ROUNDS FILE...` compiles each file for Googlebot,
//! checks its URLs `ROUNDS` times and prints `NAME<TAB>checks/s<TAB>URLs
//! allowed<TAB>artifact bytes<TAB>verdicts` (the median round; verdicts:
//! a 64-bit FNV-1a of each URL's allowed bit, in order).

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

/// Ends the process with status 2 (as the other bench binaries do on bad
/// input; their `args` module is newer than format 2's tree).
fn fail(what: &str) -> ! {
    eprintln!("engines: {what}");
    std::process::exit(2)
}

fn urls_path(dir: &str, file: &str) -> std::path::PathBuf {
    let name = Path::new(file)
        .file_name()
        .unwrap_or_else(|| fail(&format!("{file}: not a file name")));
    Path::new(dir).join(format!("{}.urls", name.to_string_lossy()))
}

fn read_urls(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    let mut urls = Vec::new();
    let mut rest = &bytes[..];
    while let [a, b, c, d, tail @ ..] = rest {
        let n = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
        let Some(url) = tail.get(..n) else {
            fail(&format!("{}: truncated", path.display()))
        };
        urls.push(url.to_vec());
        rest = &tail[n..];
    }
    urls
}

fn write(dir: &str, files: &[String]) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{dir}: {e}")));
    for file in files {
        let body = std::fs::read(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let name = urls_path(dir, file);
        let name = name.file_stem().unwrap_or_default().to_string_lossy();
        // 20,000: `robocc_bench::URLS`, which format 2's bench library
        // does not have.
        let w = robocc_bench::Workload::new(&name, body, "Googlebot", 20_000);
        let mut out = Vec::new();
        for u in w.absolute_urls() {
            out.extend_from_slice(&(u.len() as u32).to_le_bytes());
            out.extend_from_slice(u.as_bytes());
        }
        let path = urls_path(dir, file);
        std::fs::write(&path, out).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
}

fn time(dir: &str, rounds: usize, files: &[String]) {
    for file in files {
        let body = std::fs::read(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let name = urls_path(dir, file);
        let name = name.file_stem().unwrap_or_default().to_string_lossy();
        let compiled = robocc_compiler::compile(
            &body,
            "Googlebot",
            &robocc_compiler::CompileOptions::default(),
        )
        .unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let bytes = compiled.to_bytes();
        let policy = robocc_engine::Policy::from_bytes(&bytes)
            .unwrap_or_else(|e| fail(&format!("{file}: its own artifact: {e}")));
        let urls = read_urls(&urls_path(dir, file));
        // Each URL's verdict, in order: FNV-1a 64 of the allowed bits.
        let (mut allowed, mut verdicts) = (0, 0xcbf2_9ce4_8422_2325u64);
        for u in &urls {
            let a = policy.check(u).allowed;
            allowed += usize::from(a);
            verdicts = (verdicts ^ u64::from(a)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut times: Vec<f64> = (0..rounds)
            .map(|_| {
                let t = Instant::now();
                for u in &urls {
                    black_box(policy.check(black_box(u)));
                }
                t.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let rate = urls.len() as f64 / times[times.len() / 2];
        println!(
            "{name}\t{rate:.0}\t{allowed}\t{}\t{verdicts:016x}",
            bytes.len()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, dir, files @ ..] if mode == "write" && !files.is_empty() => write(dir, files),
        [mode, dir, rounds, files @ ..] if mode == "time" && !files.is_empty() => {
            let rounds = rounds.parse().ok().filter(|&r| r > 0).unwrap_or_else(|| {
                eprintln!("engines time: ROUNDS is a count above 0, not {rounds:?}");
                std::process::exit(2)
            });
            time(dir, rounds, files)
        }
        _ => {
            eprintln!("usage: engines write DIR FILE... | engines time DIR ROUNDS FILE...");
            std::process::exit(2)
        }
    }
}
