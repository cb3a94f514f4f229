//! A 20-agent survey of an existing store (issue 49), on the calling
//! thread: the store is built first (each-agent, the 20 crawlers of
//! `robocc_testkit::crawlers`), untimed; then timed, single-threaded:
//!
//! * `facts`: [`Survey::new`], every distinct policy worked out once (the
//!   classes by reachability, the probe paths' verdicts and preferences);
//! * `rows`: every host's CSV row written to memory, with the summary.
//!
//! Hosts/s is hosts over both. `--million` surveys the million-host store
//! (`robocc_bench::million`: the corpus bodies round robin, with 404s,
//! 503s and redirects) instead of one host per corpus file.
//!
//! `cargo run --release -p robocc-bench --bin survey -- [DIR] [--every K] [--million]`

use robocc_store::survey::{Format, Summary, Survey, SurveyOptions};
use robocc_store::StoreBuilder;
use robocc_testkit::crawlers::CRAWLERS;
use std::time::Instant;

fn main() {
    let mut dir = String::from("../shared/corpus/real");
    let mut every = 1usize;
    let mut million = false;
    let mut args = robocc_bench::args::Args::new("survey [DIR] [--every K] [--million]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--every" => every = args.number("--every", 1..=100_000),
            "--million" => million = true,
            _ => dir = args.operand(a),
        }
    }
    let bodies: Vec<_> = robocc_testkit::corpus::inputs(std::path::Path::new(&dir))
        .into_iter()
        .step_by(every)
        .collect();
    let t = Instant::now();
    let mut builder = StoreBuilder::new(CRAWLERS);
    builder.each_agent(true);
    let built = if million {
        builder.build(robocc_bench::million::hosts(&bodies).map(Ok))
    } else {
        builder.build(bodies.iter().cloned().map(Ok))
    };
    let (bytes, report) = built.expect("the store builds");
    let store = robocc_engine::Store::from_slice(&bytes).expect("the store loads");
    println!(
        "store: {} hosts, {} policies, {} failed, built in {:.1} s (untimed)",
        store.host_count(),
        store.policy_count(),
        report.by_source.failed,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let survey = Survey::new(&store, SurveyOptions::new(CRAWLERS)).expect("surveys");
    let facts = t.elapsed();
    let t = Instant::now();
    let mut out = Vec::new();
    let mut summary = Summary::new(&survey.options().agents);
    survey.write_header(Format::Csv, &mut out).expect("writes");
    let mut hosts = 0usize;
    for row in survey.rows() {
        let row = row.expect("row");
        summary.add(&row);
        survey
            .write_row(Format::Csv, &row, &mut out)
            .expect("writes");
        hosts += 1;
    }
    let rows = t.elapsed();
    let total = facts + rows;
    println!(
        "facts: {:.3} s ({:.2} ms a policy); rows: {:.3} s ({:.0} hosts/s, {} CSV bytes)",
        facts.as_secs_f64(),
        facts.as_secs_f64() * 1e3 / store.policy_count().max(1) as f64,
        rows.as_secs_f64(),
        hosts as f64 / rows.as_secs_f64(),
        out.len()
    );
    println!(
        "survey of {hosts} hosts x {} agents: {:.3} s, {:.0} hosts/s",
        CRAWLERS.len(),
        total.as_secs_f64(),
        hosts as f64 / total.as_secs_f64()
    );
    if let Some(p) = robocc_bench::peak_rss() {
        println!("peak RSS: {p}");
    }
}
