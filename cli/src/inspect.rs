//! `robocc inspect`: what a policy or store holds.

use crate::diagnostics::printable;
use crate::options::Format;
use clap::Args;
use robocc_engine::{FileKind, Policy, PolicyFile};
use std::io::Read;
use std::path::PathBuf;

#[derive(Args)]
pub struct InspectArgs {
    /// A policy (robocc compile), store (robocc store build) or store set's
    /// directory (robocc store build --shards N). Every policy and every
    /// host record is checked (a set's shards against their checksums too):
    /// exit 2 names the first problem.
    #[arg(value_name = "POLICY|STORE|DIR")]
    path: PathBuf,
    /// Show what each part of a policy costs in bytes.
    #[arg(long)]
    sizes: bool,
    /// For a store or store set: list every host with its source (fetched, redirected,
    /// unavailable, unreachable, failed), status and policy (a set's: the
    /// number in its shard, named).
    #[arg(long)]
    hosts: bool,
    /// Output: text, or JSON (a single policy only): its header, the
    /// agent's records, the file's global records and their lists
    /// (sitemaps, hosts, RSL licenses).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// A single policy as JSON: what `describe_policy` prints of its header
/// and records, as data.
fn policy_json(p: &Policy<'_>) -> serde_json::Value {
    use serde_json::json;
    let h = p.header();
    let m = p.meta();
    let record = |r: robocc_engine::RecordRef<'_>| json!({"kind": r.kind.name(), "key": r.key, "value": r.value, "line": r.line});
    let values = |v: &mut dyn Iterator<Item = &str>| v.map(str::to_string).collect::<Vec<_>>();
    let mut obj = json!({
        "dialect": h.dialect.name(),
        "agent": h.agent,
        "selection": h.selection.name(),
        "url_mode": h.url_mode.name(),
        "source_len": h.source_len,
        "source_sha256": robocc_store::hex(&h.source_sha256),
        "compiler_version": h.compiler_version,
        "unread": h.unread,
        "channels": p.channels().collect::<Vec<_>>(),
        "crawl_delay_ms": m.crawl_delay_ms(),
        "records": m.records().map(record).collect::<Vec<_>>(),
        "global_records": m.global_records().map(record).collect::<Vec<_>>(),
        "sitemaps": values(&mut m.sitemaps()),
        "hosts": values(&mut m.hosts()),
        "licenses": values(&mut m.licenses()),
    });
    if p.is_each_agent() {
        // Each agent answered separately: its groups and Crawl-delay, in
        // the order given (the records above are the first agent's).
        let agents = (0..p.agent_count())
            .filter_map(|i| p.each_agent(i))
            .map(|(a, selection, delay)| {
                json!({"agent": a, "selection": selection.name(), "crawl_delay_ms": delay})
            })
            .collect::<Vec<_>>();
        obj["agents"] = json!(agents);
    }
    obj
}

fn describe_policy(p: &Policy<'_>, indent: &str, sizes: bool) {
    let h = p.header();
    println!("{indent}dialect: {}", h.dialect);
    if p.is_each_agent() {
        // Each agent answered separately: its groups, its Crawl-delay.
        println!("{indent}agents, each answered separately:");
        for i in 0..p.agent_count() {
            if let Some((a, selection, delay)) = p.each_agent(i) {
                let delay = delay.map_or(String::new(), |d| format!(", crawl-delay {d} ms"));
                println!("{indent}  {a} (groups: {selection}{delay})");
            }
        }
    } else {
        println!("{indent}agent: {} (groups: {})", h.agent, h.selection);
    }
    println!(
        "{indent}options: url-mode {}, {} {}, max-bytes {}",
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
        "{indent}source: {} bytes, sha256 {}; compiler {}",
        h.source_len,
        robocc_store::hex(&h.source_sha256),
        h.compiler_version
    );
    if let Some(what) = h.unread {
        println!("{indent}not read whole: {what}");
    }
    match h.split_reason {
        None => println!("{indent}build: one automaton"),
        Some(why) => println!("{indent}build: {} automata ({why})", h.automata),
    }
    let s = p.sizes();
    println!(
        "{indent}automata: {} ({} with a register, {} rows only), program bytes {}, outcomes {}, rules {}",
        h.automata,
        s.register_automata,
        s.rows_only_automata,
        s.program_bytes,
        s.outcome_count,
        p.rule_count()
    );
    if sizes {
        println!(
            "{indent}sizes: automata {} B (programs {} B), rules {} B, outcomes {} B",
            s.automata, s.program_bytes, s.rules, s.outcomes
        );
    }
    let m = p.meta();
    // Each agent's own Crawl-delay is listed with it above; the records
    // below are the first agent's.
    if let (Some(ms), false) = (m.crawl_delay_ms(), p.is_each_agent()) {
        println!("{indent}crawl-delay: {ms} ms");
    }
    if p.is_each_agent() {
        println!(
            "{indent}records: the first agent's ({})",
            p.agents().next().unwrap_or_default()
        );
    }
    print_records(indent, "record", m.records());
    for r in m.global_records() {
        println!(
            "{indent}{} (line {}): {}",
            r.kind,
            r.line,
            printable(r.value.as_bytes())
        );
    }
    println!(
        "{indent}cache expiry: {} h (when the server sends no cache directive)",
        h.expiry_secs / 3600
    );
    if let Some(v) = m.robot_version() {
        println!("{indent}robot-version: {}", printable(v.as_bytes()));
    }
    if p.channels()
        .eq(robocc_engine::Usage::SIGNAL_CHANNELS.iter().copied())
    {
        println!(
            "{indent}channels: {} (AI-usage preferences)",
            p.channels().collect::<Vec<_>>().join(" ")
        );
        for id in p.rule_ids() {
            let (Some(r), Some(source)) = (p.rule(id), p.signal_source(id)) else {
                continue;
            };
            let what = match source {
                robocc_engine::SignalSource::Rule => continue,
                robocc_engine::SignalSource::ContentUsage => {
                    format!("Content-Usage {}", printable(r.pattern))
                }
                robocc_engine::SignalSource::ContentSignal => "Content-Signal".to_string(),
                robocc_engine::SignalSource::TrainingToken(t) => format!(
                    "training token {t}: {} {}",
                    if r.allow { "Allow" } else { "Disallow" },
                    printable(r.pattern)
                ),
            };
            println!("{indent}preference rule {id} (line {}): {what}", r.line);
        }
    }
    if h.dialect == robocc_engine::Dialect::Acap {
        println!(
            "{indent}acap: version {}, conventional records {}, purposes [{}]",
            m.acap_version()
                .map_or("(no ##ACAP comment)".into(), |v| printable(v.as_bytes())),
            if m.acap_ignores_conventional() {
                "ignored"
            } else {
                "read (as crawl)"
            },
            printable(m.acap_purposes().collect::<Vec<_>>().join(", ").as_bytes())
        );
        println!(
            "{indent}usages: {}",
            p.channels().collect::<Vec<_>>().join(" ")
        );
        for id in p.rule_ids() {
            let (Some(r), Some(a)) = (p.rule(id), p.acap_rule(id)) else {
                continue;
            };
            let mut extra = String::new();
            for (k, v) in [
                ("purpose", a.purposes),
                ("qualifiers", a.qualifiers),
                ("via", a.via),
            ] {
                if !v.is_empty() {
                    extra.push_str(&format!("; {k} {}", printable(v.as_bytes())));
                }
            }
            println!(
                "{indent}rule {id} (line {}): {} {} {} ({}{}){extra}",
                r.line,
                if r.allow { "allow" } else { "disallow" },
                a.usage,
                printable(r.pattern),
                if a.named { "named record" } else { "* record" },
                if a.conventional { ", conventional" } else { "" },
            );
        }
        print_records(indent, "action request", m.acap_requests());
    }
    let hhmm = |m: u16| format!("{:02}{:02}", m / 60, m % 60);
    for w in m.visit_times() {
        println!("{indent}visit-time: {}-{} UTC", hhmm(w.start), hhmm(w.end));
    }
    for r in m.request_rates() {
        let window = r.window.map_or(String::from("all day"), |w| {
            format!("{}-{} UTC", hhmm(w.start), hhmm(w.end))
        });
        println!(
            "{indent}request-rate (line {}): {}/{} s, {window}",
            r.line, r.rate.documents, r.rate.seconds
        );
    }
}

/// One line per record: `{what} (line N): KEY: VALUE`.
fn print_records<'a>(
    indent: &str,
    what: &str,
    records: impl Iterator<Item = robocc_engine::RecordRef<'a>>,
) {
    for r in records {
        println!(
            "{indent}{what} (line {}): {}: {}",
            r.line,
            printable(r.key.as_bytes()),
            printable(r.value.as_bytes())
        );
    }
}

#[derive(Default)]
struct Sum {
    automata: usize,
    program_bytes: usize,
    rules: usize,
    outcomes: usize,
}

impl std::ops::AddAssign for Sum {
    fn add_assign(&mut self, s: Sum) {
        self.program_bytes += s.program_bytes;
        self.automata += s.automata;
        self.rules += s.rules;
        self.outcomes += s.outcomes;
    }
}

impl From<robocc_engine::Sizes> for Sum {
    fn from(s: robocc_engine::Sizes) -> Sum {
        Sum {
            automata: s.automata,
            program_bytes: s.program_bytes,
            rules: s.rules,
            outcomes: s.outcomes,
        }
    }
}

impl Sum {
    /// `inspect --sizes`: the sums' line.
    fn print_sizes(&self) {
        println!(
            "sizes over all policies: automata {} B (programs {} B), rules {} B, outcomes {} B",
            self.automata, self.program_bytes, self.rules, self.outcomes
        );
    }
}

fn describe_store(args: &InspectArgs) -> Result<i32, String> {
    if args.format == Format::Json {
        return Err("--format json describes a single policy, not a store".into());
    }
    let store = crate::artifacts::open_store(&args.path)?;
    println!(
        "{}: robocc store, format version {}, {} bytes",
        printable(args.path.as_os_str().as_encoded_bytes()),
        robocc_engine::STORE_FORMAT_VERSION,
        store.len_bytes()
    );
    println!(
        "agent: {}; dialect: {}; compiler {}",
        store.agent(),
        store.dialect(),
        store.compiler_version()
    );
    println!(
        "hosts: {}; unique policies: {}",
        store.host_count(),
        store.policy_count()
    );
    // Inspect is the full check of a file: every policy, and every host
    // record where a lookup looks for it (as a set's shards are verified).
    store.validate_all().map_err(|e| {
        let e = if e.path().is_some() {
            e
        } else {
            e.with_path(args.path.display().to_string())
        };
        crate::artifacts::kind_hint(e)
    })?;
    let (split, sum) = policy_sums(&store)?;
    println!(
        "policies on the split path: {split}; program bytes in all: {}",
        sum.program_bytes
    );
    if args.sizes {
        sum.print_sizes();
        let [slots, strings, policies] = store.index_sizes();
        println!(
            "index: host slots {slots} B, long keys and fetch times {strings} B, policy records {policies} B ({:.1} B per host)",
            (slots + strings) as f64 / store.host_count().max(1) as f64
        );
    }
    if args.hosts {
        print_hosts(&store, None)?;
    }
    Ok(0)
}

/// Prints the policies of `store` (validating each: inspect is the full
/// check of a file) and returns their sums.
fn policy_sums(store: &robocc_engine::Store) -> Result<(usize, Sum), String> {
    let mut split = 0;
    let mut sum = Sum::default();
    for i in store.policy_ids() {
        let p = store.policy(i).map_err(|e| e.to_string())?;
        split += usize::from(p.header().automata > 1);
        sum += Sum::from(p.sizes());
    }
    Ok((split, sum))
}

/// One line per host; a set's shard (`shard`) numbers its own policies, so
/// its file is named with the policy.
fn print_hosts(store: &robocc_engine::Store, shard: Option<usize>) -> Result<(), String> {
    let of = shard
        .map(|i| format!(" of {}", robocc_engine::shard_file_name(i)))
        .unwrap_or_default();
    for h in store.hosts() {
        let h = h.map_err(|e| e.to_string())?;
        println!(
            "{}\t{}\tstatus {}\tpolicy {}{of}{}",
            h.key,
            h.source.name(),
            h.status,
            h.policy,
            h.fetched_at
                .map(|t| format!("\tfetched {t}"))
                .unwrap_or_default()
        );
    }
    Ok(())
}

/// A store set: its index, then every shard verified (checksum, policies,
/// records, partition), one line each.
fn describe_set(args: &InspectArgs, dir: &std::path::Path) -> Result<i32, String> {
    if args.format == Format::Json {
        return Err("--format json describes a single policy, not a store".into());
    }
    let set = crate::artifacts::open_store_set(dir)?;
    let n = set.shard_count();
    println!(
        "{}: robocc store set, format version {}, {n} shards, {} bytes",
        printable(dir.as_os_str().as_encoded_bytes()),
        robocc_engine::STORE_SET_FORMAT_VERSION,
        set.len_bytes()
    );
    println!(
        "agent: {}; dialect: {}; compiler {}; options {:016x}",
        set.agent(),
        set.dialect(),
        set.compiler_version(),
        set.options_hash()
    );
    println!("partition: FNV-1a 64 of the host key, mod {n}");
    println!("hosts: {}", set.host_count());
    let mut failed: Vec<String> = Vec::new();
    let (mut policies, mut split, mut sum) = (0, 0, Sum::default());
    for i in 0..n {
        let info = set.shard_info(i).unwrap_or(robocc_engine::ShardInfo {
            bytes: 0,
            hosts: 0,
            checksum: 0,
        });
        // Opened afresh and dropped: a set of tens of thousands of shards
        // must not keep every one mapped (the process's mapping limit).
        let verdict = match set.verified_shard(i) {
            Ok(store) => {
                let (sp, s) = policy_sums(&store)?;
                policies += store.policy_count();
                split += sp;
                sum += s;
                "ok".to_string()
            }
            Err(e) => {
                failed.push(e.to_string());
                format!("FAILED: {e}")
            }
        };
        println!(
            "{}\thosts {}\tbytes {}\tfnv1a64 {:016x}\t{verdict}",
            robocc_engine::shard_file_name(i),
            info.hosts,
            info.bytes,
            info.checksum
        );
    }
    println!(
        "policies in all shards: {policies}; on the split path: {split}; program bytes in all: {}",
        sum.program_bytes
    );
    if args.sizes {
        sum.print_sizes();
    }
    if let Some(first) = failed.first() {
        return Err(format!(
            "{} of {n} shards failed verification; the first: {first}",
            failed.len()
        ));
    }
    if args.hosts {
        for i in 0..n {
            print_hosts(&set.load_shard(i).map_err(|e| e.to_string())?, Some(i))?;
        }
    }
    Ok(0)
}

pub fn run(args: &InspectArgs) -> Result<i32, String> {
    if args.format == Format::Json && (args.hosts || args.sizes) {
        return Err("--format json describes a single policy: drop --hosts and --sizes".into());
    }
    if args.path.is_dir() {
        return describe_set(args, &args.path);
    }
    // The magic decides the kind: read 8 bytes, not the whole file.
    let mut head = Vec::with_capacity(8);
    // A regular file only: a FIFO is refused, not waited on.
    let n = robocc_engine::open_regular(&args.path)
        .and_then(|f| f.take(8).read_to_end(&mut head))
        .map_err(|e| format!("cannot read {}: {e}", args.path.display()))?;
    match FileKind::sniff(&head[..n]) {
        Some(FileKind::Store) => describe_store(args),
        Some(FileKind::StoreSet) => describe_set(
            args,
            args.path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new(".")),
        ),
        Some(FileKind::Policy) => {
            if args.hosts {
                return Err(format!(
                    "{}: --hosts lists the hosts of a store; this is a single policy",
                    args.path.display()
                ));
            }
            let file = crate::artifacts::open_policy(&args.path)?;
            if args.format == Format::Json {
                println!("{}", policy_json(&file.policy()));
                return Ok(0);
            }
            println!(
                "{}: robocc policy, format version {}, {} bytes",
                printable(args.path.as_os_str().as_encoded_bytes()),
                if file.policy().is_each_agent() {
                    format!("{} (each agent)", robocc_engine::EACH_AGENT_FORMAT_VERSION)
                } else {
                    robocc_engine::POLICY_FORMAT_VERSION.to_string()
                },
                file.as_bytes().len()
            );
            describe_policy(&file.policy(), "", args.sizes);
            Ok(0)
        }
        None => match PolicyFile::open(&args.path) {
            Err(e) if matches!(e.kind(), robocc_engine::LoadErrorKind::TooShort(_)) => {
                Err(e.to_string())
            }
            _ => Err(format!(
                "{}: not a robocc policy or store (to look at a robots.txt, use robocc lint --robots FILE)",
                args.path.display()
            )),
        },
    }
}
