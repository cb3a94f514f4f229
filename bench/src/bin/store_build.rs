//! Store build times (issue 43): the store of every `*.txt` file of a
//! corpus directory (hosts named as `robocc_testkit::corpus::inputs` names
//! them) and the million-host store (`robocc_bench::million`, the corpus
//! bodies round robin), each built in this process by `StoreBuilder` on
//! every core, as the report builds them. Each build prints its wall time
//! and the process's CPU time (user + system, all threads: on a shared
//! machine the steadier figure), `rounds` times. The corpus bodies are read
//! before the clock starts; the million hosts are made while the build
//! streams them.
//!
//! `cargo run --release -p robocc-bench --bin store_build -- [DIR] [--only corpus|million] [--rounds N]`
//!
//! DIR defaults to `../shared/corpus/real`.

use robocc_bench::cpu_time;
use robocc_store::{StoreBuilder, StoreReport};
use std::time::Instant;

/// Builds a store of `inputs` and prints what it took.
fn timed<I>(name: &str, inputs: impl FnOnce() -> I)
where
    I: Iterator<Item = robocc_store::HostInput>,
{
    let (wall, cpu) = (Instant::now(), cpu_time(false));
    let (bytes, report): (_, StoreReport) = StoreBuilder::new("Googlebot")
        .build(inputs().map(Ok))
        .unwrap_or_else(|e| robocc_bench::args::die(&format!("{name}: {e}")));
    let (wall, cpu) = (wall.elapsed(), cpu_time(false) - cpu);
    println!(
        "{name}: {} hosts, {} policies, {:.1} MB in {:.2} s wall, {:.2} s CPU (peak RSS {})",
        report.hosts,
        report.unique_policies,
        bytes.len() as f64 / 1e6,
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        robocc_bench::peak_rss().unwrap_or_default(),
    );
}

fn main() {
    let mut dir = String::from("../shared/corpus/real");
    let mut only: Option<String> = None;
    let mut rounds = 1;
    let mut args =
        robocc_bench::args::Args::new("store_build [DIR] [--only corpus|million] [--rounds N]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--only" => only = Some(args.value("--only")),
            "--rounds" => rounds = args.rounds(),
            _ => dir = args.operand(a),
        }
    }
    if only
        .as_deref()
        .is_some_and(|o| o != "corpus" && o != "million")
    {
        args.fail("--only takes corpus or million");
    }
    if !std::path::Path::new(&dir).is_dir() {
        args.fail(&format!("{dir} is not a directory"));
    }
    let inputs = robocc_testkit::corpus::inputs(std::path::Path::new(&dir));
    let wants = |what: &str| only.as_deref().is_none_or(|o| o == what);
    for _ in 0..rounds {
        if wants("corpus") {
            timed("corpus", || inputs.iter().cloned());
        }
        if wants("million") {
            timed("million", || robocc_bench::million::hosts(&inputs));
        }
    }
}
