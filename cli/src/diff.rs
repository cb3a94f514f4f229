//! `robocc diff`: which URLs a robots.txt change gives another verdict,
//! exactly, with a URL that shows each change.

use crate::compile::compile_source;
use crate::options::{CompileFlags, Format, Given};
use clap::Args;
use robocc_compiler::diff::{Change, Decision, DiffOptions, DEFAULT_MAX_PAIRS};
use robocc_engine::{FileKind, PolicyFile, Usage};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Exit code when some URL changes verdict (as `diff` and `cmp` say a
/// difference).
const EXIT_CHANGED: i32 = 1;

#[derive(Args)]
pub struct DiffArgs {
    /// The old robots.txt, or a policy compiled from it (robocc compile).
    #[arg(value_name = "OLD", help_heading = "Input")]
    old: PathBuf,
    /// The new robots.txt, or a policy compiled from it.
    #[arg(value_name = "NEW", help_heading = "Input")]
    new: PathBuf,
    /// The usage whose verdicts are compared (default: crawl).
    #[arg(
        long,
        value_name = "USAGE",
        default_value = "crawl",
        help_heading = "Output"
    )]
    usage: Usage,
    /// Output: `text` (one line per change, grouped by direction) or
    /// `json`: an object with `count` and `changes`, one object per change
    /// with `from`, `to`, `old_line`, `new_line`, `old_rule`, `new_rule`
    /// and `witness`.
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

fn text(changes: &[Change]) -> String {
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
                "{} → {}  {:width$}  ({new}, {was})\n",
                c.old.word(),
                c.new.word(),
                c.witness_text(),
            ));
        }
    }
    out
}

fn json(changes: &[Change], usage: Usage) -> serde_json::Value {
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
        "usage": usage.name(),
        "count": changes.len(),
        "changes": changes,
    })
}

pub fn run(args: &DiffArgs, given: &Given) -> Result<i32, String> {
    let old = policy(&args.old, &args.flags, given)?;
    let new = policy(&args.new, &args.flags, given)?;
    let options = DiffOptions {
        usage: args.usage,
        max_pairs: args.max_pairs,
    };
    let d = robocc_compiler::diff(&old.policy(), &new.policy(), &options).map_err(|e| {
        let hint = match e {
            robocc_compiler::DiffError::TooManyPairs { .. } => {
                " (raise the limit with --max-pairs, 0 for no limit)"
            }
            _ => "",
        };
        format!("{} → {}: {e}{hint}", args.old.display(), args.new.display())
    })?;
    let out = match args.format {
        Format::Text => text(&d.changes),
        Format::Json => json(&d.changes, args.usage).to_string() + "\n",
    };
    crate::output::write_stdout(out.as_bytes())?;
    if args.format == Format::Text && d.changes.is_empty() {
        diag!(
            "{} → {}: no URL changes verdict",
            args.old.display(),
            args.new.display()
        );
    }
    Ok(if d.changes.is_empty() {
        0
    } else {
        EXIT_CHANGED
    })
}
