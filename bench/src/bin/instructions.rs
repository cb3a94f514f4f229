//! A fixed amount of checking work for instruction counts: compile FILE,
//! generate 1,000 absolute URLs from its patterns, then check them all
//! ROUNDS times with `check` or `check_batch`, inside `run_checks`. Run it
//! under callgrind collecting only in that function
//! (`--toggle-collect=*run_checks*`): the total ÷ (1,000 × ROUNDS) is the
//! instructions per check, whatever the set-up cost
//! (bench/scripts/instructions.sh).
//!
//! `instructions FILE single|batch ROUNDS`

use robocc_bench::Workload;
use robocc_engine::{Policy, Verdict};
use std::hint::black_box;

fn main() {
    let mut args = robocc_bench::args::Args::new("instructions FILE single|batch ROUNDS");
    let (Some(file), Some(mode)) = (args.next(), args.next()) else {
        args.fail("FILE, mode and ROUNDS are needed");
    };
    let rounds = args.number("ROUNDS", 1..=1_000_000);
    if mode != "single" && mode != "batch" {
        args.fail(&format!("mode {mode:?}: single or batch"));
    }
    let file = &args.operand(file);
    let body = robocc_bench::args::read(file);
    // Untimed: under valgrind the lowering runs ~50× slower, and a deadline
    // would change what is compiled between runs.
    let options = robocc_compiler::CompileOptions {
        budget: robocc_compiler::Budget {
            time: std::time::Duration::from_secs(24 * 3600),
            ..Default::default()
        },
        ..Default::default()
    };
    let w = Workload::with_options(file, body, "Googlebot", 1000, &options);
    let urls = w.absolute_urls();
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let bytes = w.compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).expect("a valid artifact");
    let mut out = vec![
        Verdict {
            allowed: false,
            rule: None
        };
        refs.len()
    ];
    let allowed = run_checks(&policy, &refs, &mut out, &mode, rounds);
    println!("{allowed}");
}

#[inline(never)]
fn run_checks(
    policy: &Policy<'_>,
    refs: &[&[u8]],
    out: &mut [Verdict],
    mode: &str,
    rounds: usize,
) -> usize {
    let mut allowed = 0usize;
    for _ in 0..rounds {
        match mode {
            "single" => {
                for u in refs {
                    allowed += usize::from(policy.check(black_box(u)).allowed);
                }
            }
            "batch" => {
                policy.check_batch(black_box(refs), out);
                allowed += out.iter().filter(|v| v.allowed).count();
            }
            _ => panic!("mode: single or batch"),
        }
    }
    allowed
}
