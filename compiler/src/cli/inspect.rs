//! `robocc inspect`: what a policy or store holds.

use clap::Args;
use robocc_engine::artifact::ArchivedPolicyData;
use robocc_engine::store::STORE_MAGIC;
use robocc_engine::{Policy, Store};
use std::path::PathBuf;

#[derive(Args)]
pub struct InspectArgs {
    /// A policy (robocc compile) or store (robocc store build).
    #[arg(value_name = "POLICY|STORE")]
    path: PathBuf,
}

fn describe_policy(d: &ArchivedPolicyData, indent: &str) {
    let h = &d.header;
    let states: usize = d
        .automata
        .iter()
        .map(|a| a.trans.len() / a.stride.to_native() as usize)
        .sum();
    let table: usize = d.automata.iter().map(|a| a.trans.len() * 4).sum();
    println!("{indent}dialect: {}", h.dialect.to_native().name());
    println!("{indent}agent: {} (groups: {})", h.agent, h.selection);
    println!(
        "{indent}options: url-mode {:?}, {} {}, max-bytes {}",
        h.url_mode,
        h.self_path,
        if h.robots_txt_allowed {
            "always allowed"
        } else {
            "by the rules"
        },
        h.max_bytes
    );
    println!(
        "{indent}source: {} bytes, fnv1a64 {:016x}; compiler {}",
        h.source_len, h.source_hash, h.compiler_version
    );
    println!("{indent}build: {}", h.build);
    println!(
        "{indent}automata: {}, states {states}, transition bytes {table}, outcomes {}, rules {}",
        d.automata.len(),
        d.outcomes.len() / h.channels.len().max(1),
        d.rules.len()
    );
    let m = &d.meta;
    if let Some(ms) = m.crawl_delay_ms.as_ref() {
        println!("{indent}crawl-delay: {} ms", ms);
    }
    for r in m.agent_records.iter() {
        println!("{indent}record (line {}): {}: {}", r.line, r.key, r.value);
    }
    for s in m.sitemaps.iter() {
        println!("{indent}sitemap: {s}");
    }
    for s in m.hosts.iter() {
        println!("{indent}host: {s}");
    }
    for s in m.clean_params.iter() {
        println!("{indent}clean-param: {s}");
    }
    for s in m.content_signals.iter() {
        println!("{indent}content-signal: {s}");
    }
    println!(
        "{indent}cache expiry: {} h (when the server sends no cache directive)",
        m.expiry_secs.to_native() / 3600
    );
    if let Some(v) = m.robot_version.as_ref() {
        println!("{indent}robot-version: {v}");
    }
    let hhmm = |m: u16| format!("{:02}{:02}", m / 60, m % 60);
    for w in m.visit_times.iter() {
        let w = w.to_native();
        println!("{indent}visit-time: {}-{} UTC", hhmm(w.start), hhmm(w.end));
    }
    for r in m.request_rates.iter() {
        let window = r.window.as_ref().map_or(String::from("all day"), |w| {
            let w = w.to_native();
            format!("{}-{} UTC", hhmm(w.start), hhmm(w.end))
        });
        println!(
            "{indent}request-rate (line {}): {}/{} s, {window}",
            r.line, r.documents, r.seconds
        );
    }
    for c in m.comments.iter() {
        println!("{indent}comment: {c}");
    }
}

pub fn run(args: &InspectArgs) -> Result<i32, String> {
    let head = std::fs::read(&args.path)
        .map_err(|e| format!("cannot read {}: {e}", args.path.display()))?;
    let size = head.len();
    if head.starts_with(&STORE_MAGIC) {
        let store = Store::open(&args.path).map_err(|e| e.to_string())?;
        let d = store.data();
        println!(
            "{}: robocc store, format version {}",
            args.path.display(),
            robocc_engine::store::STORE_FORMAT_VERSION
        );
        println!(
            "agent: {}; dialect: {}; compiler {}",
            d.agent,
            d.dialect.to_native().name(),
            d.compiler_version
        );
        println!(
            "hosts: {}; unique policies: {}; size: {size} bytes",
            d.hosts.len(),
            d.policies.len()
        );
        let split = d.policies.iter().filter(|p| p.automata.len() > 1).count();
        println!("policies on the split path: {split}");
        return Ok(0);
    }
    let policy = Policy::open(&args.path).map_err(|e| e.to_string())?;
    println!(
        "{}: robocc policy, format version {}, {size} bytes",
        args.path.display(),
        robocc_engine::artifact::FORMAT_VERSION
    );
    describe_policy(policy.data(), "");
    Ok(0)
}
