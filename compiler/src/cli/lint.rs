//! `robocc lint`: findings a site owner can act on.

use super::SourceArgs;
use clap::{Args, ValueEnum};
use robocc_compiler::diag::DiagCode;
use robocc_compiler::lint::lint;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct LintArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Output: `text` (one finding per line) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: &LintArgs) -> Result<i32, String> {
    let path = args.source.robots_path()?;
    let agent = match (
        &args.source.agent_given(),
        &args.source.agent_from_header_given(),
    ) {
        (false, false) => None,
        _ => Some(args.source.agent()?),
    };
    let body = super::read_file(&path, "robots.txt")?;
    let mut findings = lint(&body, agent.as_deref(), &args.source.compile_options());
    for f in &mut findings {
        // The parse-limit finding carries the library's message, which names
        // no flag: say which one raises the limit.
        if f.code == DiagCode::ParseLimit.name() {
            if let Some(hint) = super::flag_hint(DiagCode::ParseLimit) {
                f.message = format!("{} ({hint})", f.message);
            }
        }
    }
    for f in &findings {
        if args.format == Format::Json {
            let obj = serde_json::json!({
                "file": path.display().to_string(),
                "line": f.line,
                "code": f.code,
                "message": f.message,
                "fix": f.fix,
            });
            println!("{obj}");
        } else {
            println!(
                "{}:{}: {}: {} (fix: {})",
                path.display(),
                f.line,
                f.code,
                f.message,
                f.fix
            );
        }
    }
    if args.format == Format::Text {
        eprintln!("{}: {} findings", path.display(), findings.len());
    }
    Ok(0)
}
