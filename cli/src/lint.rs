//! `robocc lint`: findings a site owner can act on.

use super::{CompileFlags, Given};
use clap::{Args, ValueEnum};
use robocc_compiler::diag::{DiagCode, Severity};
use robocc_compiler::lint::lint;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// The least severe finding that makes `lint --fail-on` exit 1.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum FailOn {
    /// The body is not a robots.txt (binary, HTML, UTF-16, a robocc file).
    Error,
    /// Or something was ignored or read otherwise than written (a rule a
    /// crawler never reads, a limit that cut the file, a shadowed rule…).
    Warning,
    /// Any finding.
    Info,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

#[derive(Args)]
pub struct LintArgs {
    /// The robots.txt file to read (`-`: standard input).
    #[arg(long, value_name = "FILE", help_heading = "Input (one of)")]
    robots: Option<PathBuf>,
    /// An HTML page instead: its Robots/ACAP META tags and class
    /// permissions (conflicts, names that never match, ACAP version,
    /// page-wide fallbacks). --agent reads it as that crawler does.
    #[arg(
        long,
        value_name = "PAGE.html",
        conflicts_with = "robots",
        help_heading = "Input (one of)"
    )]
    html: Option<PathBuf>,
    /// Output: `text` (one finding per line) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// Exit 1 when a finding is at least this severe (a CI gate); without
    /// it lint exits 0 whatever it finds.
    #[arg(long, value_enum, value_name = "SEVERITY", help_heading = "Output")]
    fail_on: Option<FailOn>,
    #[command(flatten)]
    flags: CompileFlags,
}

pub fn run(args: &LintArgs, given: &Given) -> Result<i32, String> {
    let mut agent = if args.flags.agent_given() {
        Some(args.flags.agent()?)
    } else {
        None
    };
    let path =
        match (&args.robots, &args.html) {
            (Some(p), _) => p,
            (None, Some(html)) => return lint_html(args, html, agent.as_deref(), given),
            (None, None) => return Err(
                "nothing to lint: give --robots FILE (a robots.txt) or --html PAGE.html (a page)"
                    .into(),
            ),
        };
    let mut options = args.flags.options(Some(path), given)?;
    let body = super::read_robots(path)?;
    args.flags.resolve_auto(&mut options, &body, path, given)?;
    if agent.is_some() && args.flags.dialect_auto() {
        // As `compile_source`: by the dialect the file reads as.
        agent = Some(args.flags.agent_in(options.dialect)?);
    }
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
    // The gate's answer does not depend on the output being read whole
    // (`| head` closes it early).
    let code = gate(args, findings.iter().map(|f| f.severity));
    let mut text = String::new();
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
            let _ = writeln!(text, "{obj}");
        } else {
            let _ = writeln!(
                text,
                "{}:{}: {}: {}: {} (fix: {})",
                super::printable(path.as_os_str().as_encoded_bytes()),
                f.line,
                f.severity.name(),
                f.code,
                // A message may quote a rule value as written (a control
                // byte in the file); the JSON form is escaped by serde.
                super::printable(f.message.as_bytes()),
                super::printable(f.fix.as_bytes())
            );
        }
    }
    super::write_stdout(text.as_bytes())?;
    if args.format == Format::Text {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        diag!(
            "{}: {} findings ({} errors, {} warnings, {} info)",
            path.display(),
            findings.len(),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
    }
    Ok(code)
}

/// `lint --html`.
fn lint_html(
    args: &LintArgs,
    path: &std::path::Path,
    agent: Option<&str>,
    given: &Given,
) -> Result<i32, String> {
    if let Some(id) = super::COMPILE_ONLY
        .iter()
        .chain(&["dialect", "url_mode", "robots_txt", "data_txt", "max_bytes"])
        .find(|id| given.has(id))
    {
        return Err(format!(
            "{} applies to a robots.txt (--robots FILE), not to --html: drop it",
            super::flag(id)
        ));
    }
    let html = super::read_file(path, "HTML")?;
    let findings = robocc_page::lint(&html, agent);
    let code = gate(args, findings.iter().map(|f| f.severity));
    let mut text = String::new();
    for f in &findings {
        if args.format == Format::Json {
            let obj = serde_json::json!({
                "file": path.display().to_string(),
                "line": f.line,
                "offset": f.offset,
                "severity": f.severity.name(),
                "code": f.code,
                "message": f.message,
                "fix": f.fix,
            });
            let _ = writeln!(text, "{obj}");
        } else {
            let _ = writeln!(
                text,
                "{}:{}: {}: {}: {} (byte {}; fix: {})",
                super::printable(path.as_os_str().as_encoded_bytes()),
                f.line,
                f.severity.name(),
                f.code,
                super::printable(f.message.as_bytes()),
                f.offset,
                super::printable(f.fix.as_bytes())
            );
        }
    }
    super::write_stdout(text.as_bytes())?;
    if args.format == Format::Text {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        diag!(
            "{}: {} findings ({} warnings, {} info)",
            path.display(),
            findings.len(),
            count(Severity::Warning),
            count(Severity::Info)
        );
    }
    Ok(code)
}

/// `--fail-on`'s exit code for findings of these severities.
fn gate(args: &LintArgs, found: impl IntoIterator<Item = Severity>) -> i32 {
    let failing = |s: Severity| args.fail_on.is_some_and(|f| s >= f.severity());
    i32::from(found.into_iter().any(failing))
}
