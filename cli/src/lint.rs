//! `robocc lint`: findings a site owner can act on.

use crate::diagnostics::printable;
use crate::options::{CompileFlags, Format, Given};
use clap::{Args, ValueEnum};
use robocc_compiler::diag::{DiagCode, Severity};
use robocc_compiler::lint::lint;
use std::fmt::Write as _;
use std::path::PathBuf;

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
    /// The robots.txt file to read, as `--robots FILE` (what a newcomer
    /// types first: `robocc lint robots.txt`).
    #[arg(
        value_name = "FILE",
        conflicts_with_all = ["robots", "html"],
        help_heading = "Input (one of)"
    )]
    file: Option<PathBuf>,
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
        match (args.robots.as_ref().or(args.file.as_ref()), &args.html) {
            (Some(p), _) => p,
            (None, Some(html)) => {
                let agent = agent
                    .map(|a| CompileFlags::one_agent(a, "a page's META tags are"))
                    .transpose()?;
                return lint_html(args, html, agent.as_deref(), given);
            }
            (None, None) => return Err(
                "nothing to lint: give a robots.txt (`robocc lint FILE` or --robots FILE) or --html PAGE.html (a page)"
                    .into(),
            ),
        };
    let mut options = args.flags.options(Some(path), given)?;
    let body = crate::input::read_robots(path)?;
    args.flags.resolve_auto(&mut options, &body, path, given)?;
    if agent.is_some() && args.flags.dialect_auto() {
        // As `compile_source`: by the dialect the file reads as.
        agent = Some(args.flags.agent_in(options.dialect)?);
    }
    let mut findings = lint(&body, agent.as_ref(), &options);
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
            .and_then(crate::diagnostics::flag_hint)
        {
            f.message = format!("{} ({hint})", f.message);
        }
    }
    // The gate's answer does not depend on the output being read whole
    // (`| head` closes it early).
    let code = gate(args, findings.iter().map(|f| f.severity));
    let shown = findings.iter().map(|f| Shown {
        line: f.line as usize,
        offset: None,
        severity: f.severity,
        code: f.code,
        message: &f.message,
        fix: &f.fix,
    });
    print_findings(
        args,
        path,
        shown,
        &[Severity::Error, Severity::Warning, Severity::Info],
    )?;
    Ok(code)
}

/// `lint --html`.
fn lint_html(
    args: &LintArgs,
    path: &std::path::Path,
    agent: Option<&str>,
    given: &Given,
) -> Result<i32, String> {
    if let Some(id) = crate::compile_flags::COMPILE_ONLY
        .iter()
        .chain(&["dialect", "url_mode", "robots_txt", "data_txt", "max_bytes"])
        .find(|id| given.has(id))
    {
        return Err(format!(
            "{} applies to a robots.txt (--robots FILE), not to --html: drop it",
            crate::options::flag(id)
        ));
    }
    let html = crate::input::read_file(path, "HTML")?;
    let findings = robocc_page::lint(&html, agent);
    let code = gate(args, findings.iter().map(|f| f.severity));
    let shown = findings.iter().map(|f| Shown {
        line: f.line,
        offset: Some(f.offset),
        severity: f.severity,
        code: f.code,
        message: &f.message,
        fix: f.fix,
    });
    // A page has no finding of severity error.
    print_findings(args, path, shown, &[Severity::Warning, Severity::Info])?;
    Ok(code)
}

/// A finding as `lint` prints it: a robots.txt's, or a page's (with the
/// byte offset of its tag).
struct Shown<'a> {
    line: usize,
    offset: Option<usize>,
    severity: Severity,
    code: &'a str,
    message: &'a str,
    fix: &'a str,
}

/// Prints the findings on the file at `path`: one line (or JSON object)
/// each on stdout; in text, how many there are of each severity in
/// `counted` on stderr.
fn print_findings<'a>(
    args: &LintArgs,
    path: &std::path::Path,
    findings: impl Iterator<Item = Shown<'a>>,
    counted: &[Severity],
) -> Result<(), String> {
    let mut text = String::new();
    let mut counts = vec![0; counted.len()];
    let mut total = 0;
    for f in findings {
        total += 1;
        if let Some(i) = counted.iter().position(|&s| s == f.severity) {
            counts[i] += 1;
        }
        if args.format == Format::Json {
            let mut obj = serde_json::json!({
                "file": path.display().to_string(),
                "line": f.line,
                "severity": f.severity.name(),
                "code": f.code,
                "message": f.message,
                "fix": f.fix,
            });
            if let Some(offset) = f.offset {
                obj["offset"] = offset.into();
            }
            let _ = writeln!(text, "{obj}");
        } else {
            let _ = writeln!(
                text,
                "{}:{}: {}: {}: {} ({}fix: {})",
                printable(path.as_os_str().as_encoded_bytes()),
                f.line,
                f.severity.name(),
                f.code,
                // A message may quote a rule value as written (a control
                // byte in the file); the JSON form is escaped by serde.
                printable(f.message.as_bytes()),
                f.offset.map_or(String::new(), |o| format!("byte {o}; ")),
                printable(f.fix.as_bytes())
            );
        }
    }
    crate::output::write_stdout(text.as_bytes())?;
    if args.format == Format::Text {
        let counts: Vec<String> = counted
            .iter()
            .zip(counts)
            .map(|(s, n)| match s {
                Severity::Error => format!("{n} error{}", if n == 1 { "" } else { "s" }),
                Severity::Warning => format!("{n} warning{}", if n == 1 { "" } else { "s" }),
                Severity::Info => format!("{n} info"),
            })
            .collect();
        diag!(
            "{}: {total} finding{} ({})",
            path.display(),
            if total == 1 { "" } else { "s" },
            counts.join(", ")
        );
    }
    Ok(())
}

/// `--fail-on`'s exit code for findings of these severities.
fn gate(args: &LintArgs, found: impl IntoIterator<Item = Severity>) -> i32 {
    let failing = |s: Severity| args.fail_on.is_some_and(|f| s >= f.severity());
    i32::from(found.into_iter().any(failing))
}
