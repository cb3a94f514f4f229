//! `robocc lint`: findings a site owner can act on.

use super::{CompileFlags, Given};
use clap::{Args, ValueEnum};
use robocc_compiler::diag::{DiagCode, Severity};
use robocc_compiler::lint::lint;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct LintArgs {
    /// The robots.txt file to read.
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    robots: PathBuf,
    /// Output: `text` (one finding per line) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    #[command(flatten)]
    flags: CompileFlags,
}

pub fn run(args: &LintArgs, given: &Given) -> Result<i32, String> {
    let path = &args.robots;
    let agent = if args.flags.agent_given() {
        Some(args.flags.agent()?)
    } else {
        None
    };
    let mut options = args.flags.options(Some(path), given)?;
    let body = super::read_robots(path)?;
    args.flags.resolve_auto(&mut options, &body, path, given)?;
    let mut findings = lint(&body, agent.as_deref(), &options);
    for f in &mut findings {
        // A limit's finding carries the library's message, which names no
        // flag: say which one raises the limit.
        let limits = [
            DiagCode::ParseLimit,
            DiagCode::LineTooLong,
            DiagCode::RulesPerGroupLimit,
        ];
        if let Some(hint) = limits
            .into_iter()
            .find(|c| c.name() == f.code)
            .and_then(super::flag_hint)
        {
            f.message = format!("{} ({hint})", f.message);
        }
    }
    for f in &findings {
        if args.format == Format::Json {
            let obj = serde_json::json!({
                "file": path.display().to_string(),
                "line": f.line,
                "severity": f.severity.name(),
                "code": f.code,
                "message": f.message,
                "fix": f.fix,
            });
            println!("{obj}");
        } else {
            println!(
                "{}:{}: {}: {}: {} (fix: {})",
                path.display(),
                f.line,
                f.severity.name(),
                f.code,
                f.message,
                f.fix
            );
        }
    }
    if args.format == Format::Text {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        eprintln!(
            "{}: {} findings ({} errors, {} warnings, {} info)",
            path.display(),
            findings.len(),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
    }
    Ok(0)
}
