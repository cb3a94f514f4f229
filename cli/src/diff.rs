//! `robocc diff`: which URLs a robots.txt change gives another verdict,
//! exactly, with a URL that shows each change.

use crate::compile::{
    compile_each_reading, compile_reading, compile_source, read_source_each, Reading,
};
use crate::options::{parse_usage_arg, CompileFlags, Format, Given, UsageArg};
use clap::Args;
use robocc_compiler::diff::{
    diff_stores, Change, Decision, Diff, DiffError, DiffOptions, HostChange, HostDiff, HostSide,
    StoreDiffError, DEFAULT_MAX_PAIRS,
};
use robocc_compiler::Agents;
use robocc_engine::{Dialect, FileKind, PolicyFile, Usage};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Exit code when some URL changes verdict (as `diff` and `cmp` say a
/// difference).
const EXIT_CHANGED: i32 = 1;

#[derive(Args)]
pub struct DiffArgs {
    /// The old robots.txt, or a policy compiled from it (robocc compile).
    #[arg(
        value_name = "OLD",
        help_heading = "Input",
        required_unless_present = "store"
    )]
    old: Option<PathBuf>,
    /// The new robots.txt, or a policy compiled from it.
    #[arg(
        value_name = "NEW",
        help_heading = "Input",
        required_unless_present = "store"
    )]
    new: Option<PathBuf>,
    /// Two stores (`--store OLD --store NEW`) instead of two files: the
    /// hosts whose answers changed (added, removed, or whose policies give
    /// some URL another verdict), each distinct pair of policies diffed
    /// once.
    #[arg(long, value_name = "STORE", num_args = 1, conflicts_with_all = ["old", "new"],
          help_heading = "Input")]
    store: Vec<PathBuf>,
    /// The usage whose verdicts are compared (default: crawl), or `all`:
    /// one report per usage the policies' dialect speaks of (crawl and the
    /// AI-usage channels; an acap policy's usage types).
    #[arg(long, value_name = "USAGE", default_value = "crawl", value_parser = parse_usage_arg,
          help_heading = "Output")]
    usage: UsageArg,
    /// Output: `text` (one line per change, grouped by direction) or
    /// `json`: an object with `usage`, `count` and `changes`, one object
    /// per change with `from`, `to`, `old_line`, `new_line`, `old_rule`,
    /// `new_rule` and `witness` (with `--usage all`: `count` and a
    /// `usages` object of such reports by usage; with `--store`: `hosts`,
    /// one object per host).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// Most pairs of states (one per policy) the comparison explores; over
    /// it the diff fails rather than answer in part. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PAIRS,
          help_heading = "Limits (0: no limit)")]
    max_pairs: usize,
    #[command(flatten)]
    flags: CompileFlags,
}

/// Is the file at `path` a compiled policy (by its first bytes)?
fn is_policy(path: &Path) -> bool {
    let mut head = [0u8; 8];
    path != Path::new("-")
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && FileKind::sniff(&head) == Some(FileKind::Policy)
}

/// OLD or NEW as a policy: opened when compiled, else compiled with the
/// flags (its diagnostics that can change a verdict on stderr).
fn policy(path: &Path, flags: &CompileFlags, given: &Given) -> Result<PolicyFile, String> {
    if is_policy(path) {
        return flags.open_one_agent_policy(path, given);
    }
    let source = compile_source(path, flags, given)?;
    source.report(false, false);
    source.policy_file()
}

/// How one side's decision reads: `line 12: Disallow: /private/`, `no
/// rule`, or an implicit rule's text.
fn decided_by(d: &Decision) -> String {
    match (&d.line, &d.text) {
        (Some(line), Some(text)) => format!("line {line}: {text}"),
        (None, Some(text)) => format!("{text} (implicit)"),
        _ => "no rule".into(),
    }
}

fn text(changes: &[Change], indent: &str) -> String {
    let mut out = String::new();
    let width = changes
        .iter()
        .map(|c| c.witness_text().len())
        .max()
        .unwrap_or(0);
    for allowed in [true, false] {
        for c in changes.iter().filter(|c| c.old.allowed == allowed) {
            let new = match &c.new.text {
                Some(_) => format!("new {}", decided_by(&c.new)),
                None => "new: no rule".into(),
            };
            let was = match &c.old.text {
                Some(_) => format!("was {}", decided_by(&c.old)),
                None => "was: no rule".into(),
            };
            out.push_str(&format!(
                "{indent}{} → {}  {:width$}  ({new}, {was})\n",
                c.old.word(),
                c.new.word(),
                c.witness_text(),
            ));
        }
    }
    out
}

/// The reports of several usages as text: each under its usage's name
/// when there are several.
fn texts(reports: &[(Usage, Diff)], several: bool, indent: &str) -> String {
    if !several {
        return reports
            .iter()
            .map(|(_, d)| text(&d.changes, indent))
            .collect();
    }
    let mut out = String::new();
    for (usage, d) in reports {
        out.push_str(&format!(
            "{indent}{}: {}\n",
            usage.name(),
            match d.changes.len() {
                0 => "no change".to_string(),
                1 => "1 change".to_string(),
                n => format!("{n} changes"),
            }
        ));
        out.push_str(&text(&d.changes, &format!("{indent}  ")));
    }
    out
}

fn json(changes: &[Change]) -> serde_json::Value {
    let changes: Vec<serde_json::Value> = changes
        .iter()
        .map(|c| {
            serde_json::json!({
                "from": c.old.word(),
                "to": c.new.word(),
                "old_line": c.old.line,
                "new_line": c.new.line,
                "old_rule": c.old.text,
                "new_rule": c.new.text,
                "witness": c.witness_text(),
            })
        })
        .collect();
    serde_json::json!({
        "count": changes.len(),
        "changes": changes,
    })
}

/// The reports of several usages as JSON: one report with its `usage`, or
/// with `several` the total `count` and a `usages` object by usage name.
fn jsons(reports: &[(Usage, Diff)], several: bool) -> serde_json::Value {
    if let ([(usage, d)], false) = (reports, several) {
        let mut one = json(&d.changes);
        one["usage"] = usage.name().into();
        return one;
    }
    let usages: serde_json::Map<String, serde_json::Value> = reports
        .iter()
        .map(|(u, d)| (u.name().to_string(), json(&d.changes)))
        .collect();
    serde_json::json!({
        "count": reports.iter().map(|(_, d)| d.changes.len()).sum::<usize>(),
        "usages": usages,
    })
}

/// The usages compared: `--usage`'s, for OLD's dialect and NEW's.
fn usages(arg: UsageArg, old: Dialect, new: Dialect) -> Vec<Usage> {
    let mut all = arg.usages(old).to_vec();
    for &u in arg.usages(new) {
        if !all.contains(&u) {
            all.push(u);
        }
    }
    all
}

fn over_budget_hint(e: &DiffError) -> &'static str {
    match e {
        DiffError::TooManyPairs { .. } => " (raise the limit with --max-pairs, 0 for no limit)",
        DiffError::UrlModes { .. } => "",
    }
}

pub fn run(args: &DiffArgs, given: &Given) -> Result<i32, String> {
    let changed = match (&args.store[..], &args.old, &args.new) {
        ([_, _], _, _) if args.flags.each_agent_given() => {
            return Err(
                "--each-agent diffs two robots.txt files; a store answers the one \
                        agent it was built for"
                    .into(),
            )
        }
        ([old, new], _, _) => run_stores(args, old, new)?,
        ([], Some(old), Some(new)) => run_files(args, given, old, new)?,
        _ => return Err("give OLD and NEW, or --store OLD --store NEW (twice)".into()),
    };
    Ok(if changed { EXIT_CHANGED } else { 0 })
}

/// `robocc diff OLD NEW`: whether some URL changes verdict.
fn run_files(
    args: &DiffArgs,
    given: &Given,
    old_path: &Path,
    new_path: &Path,
) -> Result<bool, String> {
    if args.flags.each_agent_given() {
        return run_each(args, given, old_path, new_path);
    }
    let old = policy(old_path, &args.flags, given)?;
    let new = policy(new_path, &args.flags, given)?;
    let reports = diff_usages(args, &old, &new, old_path, new_path)?;
    let several = args.usage == UsageArg::All;
    let out = match args.format {
        Format::Text => texts(&reports, several, ""),
        Format::Json => jsons(&reports, several).to_string() + "\n",
    };
    crate::output::write_stdout(out.as_bytes())?;
    let changed = reports.iter().any(|(_, d)| !d.changes.is_empty());
    if args.format == Format::Text && !changed {
        diag!(
            "{} → {}: no URL changes verdict",
            old_path.display(),
            new_path.display()
        );
    }
    Ok(changed)
}

/// OLD and NEW's reports, one per usage `--usage` names.
fn diff_usages(
    args: &DiffArgs,
    old: &PolicyFile,
    new: &PolicyFile,
    old_path: &Path,
    new_path: &Path,
) -> Result<Vec<(Usage, Diff)>, String> {
    let (a, b) = (old.policy(), new.policy());
    let mut reports = Vec::new();
    for usage in usages(args.usage, a.header().dialect, b.header().dialect) {
        let options = DiffOptions {
            usage,
            max_pairs: args.max_pairs,
        };
        let d = robocc_compiler::diff(&a, &b, &options).map_err(|e| {
            format!(
                "{} → {}: {e}{}",
                old_path.display(),
                new_path.display(),
                over_budget_hint(&e)
            )
        })?;
        reports.push((usage, d));
    }
    Ok(reports)
}

/// `robocc diff OLD NEW --each-agent A --each-agent B …`: one report per
/// agent, each file compiled once per agent (the diff walks one agent's
/// automata); whether some URL changes verdict for some agent.
fn run_each(
    args: &DiffArgs,
    given: &Given,
    old_path: &Path,
    new_path: &Path,
) -> Result<bool, String> {
    if let Some(p) = [old_path, new_path].into_iter().find(|p| is_policy(p)) {
        return Err(format!(
            "{}: --each-agent diffs robots.txt files (compiled once per agent); a compiled \
             policy is not taken here: give the robots.txt, or diff one agent's compiled \
             policies with --agent",
            p.display()
        ));
    }
    let old = read_source_each(old_path, &args.flags, given)?;
    let new = read_source_each(new_path, &args.flags, given)?;
    // The findings that can change a verdict, of every agent's reading,
    // once per file.
    for (path, reading) in [(old_path, &old), (new_path, &new)] {
        crate::compile::report(
            path,
            &compile_each_reading(path, reading)?.diagnostics,
            false,
            false,
        );
    }
    let one = |path: &Path, r: &Reading, agent: &str| {
        compile_reading(
            path,
            Reading {
                body: r.body.clone(),
                agent: Agents::from(agent),
                options: r.options.clone(),
            },
        )?
        .policy_file()
    };
    let several = args.usage == UsageArg::All;
    let mut by_agent: Vec<(String, Vec<(Usage, Diff)>)> = Vec::new();
    for agent in old.agent.iter() {
        let (a, b) = (one(old_path, &old, agent)?, one(new_path, &new, agent)?);
        let reports = diff_usages(args, &a, &b, old_path, new_path)
            .map_err(|e| format!("{e} (agent {agent})"))?;
        by_agent.push((agent.to_string(), reports));
    }
    let count =
        |reports: &[(Usage, Diff)]| -> usize { reports.iter().map(|(_, d)| d.changes.len()).sum() };
    let out = match args.format {
        Format::Text => {
            let mut out = String::new();
            for (agent, reports) in &by_agent {
                out.push_str(&format!(
                    "{agent}: {}\n",
                    match count(reports) {
                        0 => "no change".to_string(),
                        1 => "1 change".to_string(),
                        n => format!("{n} changes"),
                    }
                ));
                out.push_str(&texts(reports, several, "  "));
            }
            out
        }
        Format::Json => {
            // Written by hand: the object keeps the agents' order (a JSON
            // map would sort them).
            let agents: Vec<String> = by_agent
                .iter()
                .map(|(agent, reports)| {
                    format!(
                        "{}:{}",
                        serde_json::Value::from(agent.as_str()),
                        jsons(reports, several)
                    )
                })
                .collect();
            let total: usize = by_agent.iter().map(|(_, r)| count(r)).sum();
            format!(
                "{{\"count\":{total},\"agents\":{{{}}}}}\n",
                agents.join(",")
            )
        }
    };
    crate::output::write_stdout(out.as_bytes())?;
    let changed = by_agent.iter().any(|(_, r)| count(r) > 0);
    if args.format == Format::Text && !changed {
        diag!(
            "{} → {}: no URL changes verdict for any agent",
            old_path.display(),
            new_path.display()
        );
    }
    Ok(changed)
}

fn side_json(side: Option<&HostSide>) -> serde_json::Value {
    side.map_or(
        serde_json::Value::Null,
        |s| serde_json::json!({"source": s.source.name(), "status": s.status}),
    )
}

fn side_text(s: &HostSide) -> String {
    format!("{} {}", s.status, s.source.name())
}

/// `robocc diff --store OLD --store NEW`: whether some host's answers
/// changed.
fn run_stores(args: &DiffArgs, old_path: &Path, new_path: &Path) -> Result<bool, String> {
    let old = crate::artifacts::open_store(old_path)?;
    let new = crate::artifacts::open_store(new_path)?;
    let usages = usages(args.usage, old.dialect(), new.dialect());
    let d = diff_stores(&old, &new, &usages, args.max_pairs).map_err(|e| {
        let hint = match &e {
            StoreDiffError::Pair { error, .. } => over_budget_hint(error),
            _ => "",
        };
        format!("{} → {}: {e}{hint}", old_path.display(), new_path.display())
    })?;
    let several = args.usage == UsageArg::All;
    let sides = |h: &HostDiff| match &h.change {
        HostChange::Added(s) => ("added", None, Some(*s), None),
        HostChange::Removed(s) => ("removed", Some(*s), None, None),
        HostChange::Changed { old, new, pair } => {
            ("changed", Some(*old), Some(*new), d.pairs.get(*pair))
        }
    };
    let out = match args.format {
        Format::Json => {
            let hosts: Vec<serde_json::Value> = d
                .hosts
                .iter()
                .map(|h| {
                    let (change, o, n, pair) = sides(h);
                    let mut v = serde_json::json!({
                        "host": h.key,
                        "change": change,
                        "old": side_json(o.as_ref()),
                        "new": side_json(n.as_ref()),
                    });
                    if let Some(p) = pair {
                        v["diff"] = jsons(&p.by_usage, several);
                    }
                    v
                })
                .collect();
            serde_json::json!({
                "count": hosts.len(),
                "common_hosts": d.common,
                "policy_pairs_diffed": d.diffed,
                "hosts": hosts,
            })
            .to_string()
                + "\n"
        }
        Format::Text => {
            let mut out = String::new();
            for h in &d.hosts {
                let (change, o, n, pair) = sides(h);
                let status = match (o, n) {
                    (Some(o), Some(n)) => format!("{} → {}", side_text(&o), side_text(&n)),
                    (Some(s), None) | (None, Some(s)) => side_text(&s),
                    (None, None) => String::new(),
                };
                out.push_str(&format!("{change} {}  ({status})\n", h.key));
                if let Some(p) = pair {
                    out.push_str(&texts(&p.by_usage, several, "  "));
                }
            }
            out
        }
    };
    crate::output::write_stdout(out.as_bytes())?;
    if args.format == Format::Text {
        diag!(
            "{} → {}: {} of {} hosts changed ({} in both; {} policy pairs diffed)",
            old_path.display(),
            new_path.display(),
            d.hosts.len(),
            old.host_count().max(new.host_count()),
            d.common,
            d.diffed
        );
    }
    Ok(!d.hosts.is_empty())
}
