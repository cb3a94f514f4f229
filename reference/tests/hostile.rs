//! Every hostile input (robocc_testkit::hostile) compiles, or is refused
//! with a clear error, within generous bounds of time and peak heap — and
//! when it compiles, the engine agrees with the reference matcher (and, for
//! rfc9309, with the independent oracle). The real
//! figures come from `cargo run -p robocc-bench --release --bin hostile`
//! (docs/RELIABILITY.md); the bounds here only catch a regression by an
//! order of magnitude on a noisy CI machine.

use robocc_testkit::paths::root;

use robocc_compiler::compile;
use robocc_reference::{Rfc9309Options, Rfc9309Oracle};
use robocc_testkit::heap::{peak_growth, PeakHeap};
use robocc_testkit::hostile::inputs;
use robocc_testkit::urlgen;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: PeakHeap = PeakHeap;

const TIME_BOUND: Duration = Duration::from_secs(60);
const HEAP_BOUND: usize = 2 << 30;

#[test]
fn hostile_inputs_compile_within_bounds() {
    let mut compiled = 0;
    for h in inputs() {
        let start = Instant::now();
        let (result, peak) = peak_growth(|| compile(&h.body, "Googlebot", &h.options));
        let took = start.elapsed();
        assert!(took < TIME_BOUND, "{}: {took:?}", h.name);
        assert!(peak < HEAP_BOUND, "{}: peak heap {peak} bytes", h.name);
        eprintln!("{}: {took:?}, peak heap {} MiB", h.name, peak >> 20);
        match result {
            Ok(c) if h.options.dialect == robocc_engine::Dialect::Acap => {
                compiled += 1;
                let bytes = c.to_bytes();
                let policy = robocc_engine::Policy::from_bytes(&bytes).unwrap();
                let oracle = robocc_reference::AcapOracle::new(&h.body, "Googlebot", &[], &[]);
                let urls = urlgen::workload(3, c.rule_set.patterns().take(200), 20);
                for url in &urls {
                    for &u in robocc_engine::Usage::ACAP {
                        let got = policy.check_usage(url, u);
                        let want = oracle.check(url, u);
                        assert_eq!(got.allowed, want.allowed, "{} {u}", h.name);
                    }
                }
            }
            Ok(c) => {
                compiled += 1;
                let bytes = c.to_bytes();
                let policy = robocc_engine::Policy::from_bytes(&bytes).unwrap();
                let urls = urlgen::workload(3, c.rule_set.patterns().take(200), 40);
                // rfc9309: the independent oracle too, which reads the body
                // under the same limits.
                let o = &h.options;
                let oracle = (o.dialect == robocc_engine::Dialect::Rfc9309).then(|| {
                    let limits = Rfc9309Options {
                        url_mode: o.url_mode,
                        self_allowed: o.robots_txt_allowed,
                        data_txt: o.data_txt,
                        records_close_groups: o.parse.records_close_groups,
                        max_bytes: o.parse.max_bytes,
                        max_line_len: o.parse.max_line_len,
                        max_rules_per_group: o.parse.max_rules_per_group,
                    };
                    Rfc9309Oracle::new(&h.body, "Googlebot", &limits)
                });
                for url in &urls {
                    let want = robocc_reference::check_url(&c.rule_set, url);
                    let got = policy.check(url);
                    assert_eq!(
                        (got.allowed, got.rule),
                        (want.allowed, want.rule),
                        "{}",
                        h.name
                    );
                    if let Some(oracle) = &oracle {
                        let line = got.rule.map(|id| c.rule_set.rules[id.index()].line);
                        let want = oracle.check(url);
                        assert_eq!((got.allowed, line), (want.allowed, want.line), "{}", h.name);
                    }
                }
            }
            Err(e) => {
                // Refusals are typed: a budget, named with its limit (the
                // CLI adds the flag that raises it).
                assert!(
                    matches!(e, robocc_compiler::CompileError::Budget(_)),
                    "{}: unexpected error {e}",
                    h.name
                );
            }
        }
    }
    assert!(compiled >= 10, "only {compiled} hostile inputs compiled");
}

/// The committed small inputs are the generated ones (regenerate with
/// `cargo run -p robocc-bench --release --bin hostile -- --write corpus/hostile`).
#[test]
fn committed_hostile_files_are_current() {
    let dir = root().join("corpus/hostile");
    for h in inputs().into_iter().filter(|h| h.body.len() <= 64 << 10) {
        let path = dir.join(format!("{}.txt", h.name));
        let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(on_disk == h.body, "{} is stale", path.display());
    }
}
