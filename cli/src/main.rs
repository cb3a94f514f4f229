//! The `robocc` command line: compile robots.txt files and check URLs.
//!
//! Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL,
//! `lint --fail-on SEVERITY` a finding that severe, or `diff` a URL whose
//! verdict changes; 2 usage, input or
//! output error (the message names the file).
//!
//! Argument parsing and dispatch; one module per subcommand, and the pieces
//! they share: [`options`] (the clap argument groups the commands flatten,
//! which flags were given), [`compile_flags`] (what the compile flags mean:
//! the agent's token, the compile options, their agreement with an
//! artifact), [`artifacts`] (opening policies and stores), [`input`]
//! (reading files), [`diagnostics`] (how findings and errors are shown) and
//! [`output`] (how `-o` and standard output are written).

// clap turns the CLI's doc comments into --help text, where `<host>.txt` and
// `verdict<TAB>URL` are meant literally, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

/// `eprintln!` for diagnostics and errors: a failed write (stderr a closed
/// pipe) is ignored, so that it cannot stop a command before its output.
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod artifacts;
mod check;
mod compile;
mod compile_flags;
mod diagnostics;
mod diff;
mod explain;
mod input;
mod inspect;
mod lint;
mod options;
mod output;
mod page;
mod store;
mod survey;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use diagnostics::error;
use options::Given;

/// Exit code for usage and input errors.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser)]
#[command(
    name = "robocc",
    version,
    about = "Compiles robots.txt into a DFA policy and checks URLs against it.",
    long_about = "Compiles robots.txt into a DFA policy and checks URLs against it.\n\n\
                  Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL, \
                  `lint --fail-on SEVERITY` a finding that severe, or `diff` a URL whose \
                  verdict changes; 2 usage, input or output error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Short help (-h) leaves the limits out; this says where they are.
const LIMITS_NOTE: &str = "Limits (--max-bytes, --max-rules, --compile-timeout, …): see --help.";

#[derive(Subcommand)]
enum Command {
    /// Check URLs: prints `allow<TAB>URL` or `disallow<TAB>URL` per URL, in input order.
    #[command(after_help = format!(
        "Examples:\n  robocc check --robots corpus/examples/example.com.txt \
         --agent Googlebot https://example.com/search?q=x\n  \
         robocc check --policy site.policy --urls urls.txt\n  \
         robocc check --store hosts.store --format json < urls.txt\n\n{LIMITS_NOTE}"
    ))]
    Check(check::CheckArgs),
    /// Compile a robots.txt for one agent into a policy artifact.
    #[command(after_help = format!(
        "Example:\n  robocc compile --robots robots.txt --agent Googlebot -o site.policy\n\n{LIMITS_NOTE}"
    ))]
    Compile(compile::CompileArgs),
    /// Which URLs a robots.txt change gives another verdict: each change of
    /// deciding rules, with a shortest URL that shows it. Exit 0: no change,
    /// 1: some URL changes verdict, 2: error.
    #[command(after_help = format!(
        "Examples:\n  robocc diff old/robots.txt new/robots.txt --agent Googlebot\n  \
         robocc diff old.policy new.policy --format json\n\n{LIMITS_NOTE}"
    ))]
    Diff(diff::DiffArgs),
    /// Explain verdicts: the deciding rule, the groups chosen and why, the path as matched.
    #[command(after_help = format!(
        "Example:\n  robocc explain --robots robots.txt --agent Googlebot https://example.com/cart\n\n{LIMITS_NOTE}"
    ))]
    Explain(explain::ExplainArgs),
    /// Findings a site owner can act on, each with its line and a fix.
    ///
    /// Without --agent, the rule analyses run for every agent the file names
    /// and for crawlers it does not name.
    #[command(after_help = format!(
        "Examples:\n  robocc lint --robots robots.txt\n  \
         robocc lint --robots robots.txt --agent Googlebot --format json\n\n{LIMITS_NOTE}"
    ))]
    Lint(lint::LintArgs),
    /// One fetched page's permissions per usage: its META tags, class
    /// attributes and X-Robots-Tag headers over the site's robots.txt.
    #[command(after_help = format!(
        "Examples:\n  robocc page --html page.html --agent Googlebot --url https://example.com/a.html\n  \
         robocc page --html page.html --headers headers.txt --agent searchbot --url https://example.com/a.html \
         --robots robots.txt --dialect acap --usage index --format json\n\n{LIMITS_NOTE}"
    ))]
    Page(page::PageArgs),
    /// Show what a policy or store holds.
    #[command(
        after_help = "Examples:\n  robocc inspect --sizes site.policy\n  robocc inspect --hosts hosts.store"
    )]
    Inspect(inspect::InspectArgs),
    /// A row per host: each agent's class (may it crawl nothing, part or all
    /// of the site, exactly), its verdicts and AI-usage preferences at probe
    /// paths, and what the file says beside its rules; a summary per agent
    /// on standard error (docs/survey.md).
    #[command(after_help = format!(
        "Examples:\n  robocc survey --store hosts.store --each-agent GPTBot --each-agent CCBot -o survey.csv\n  \
         robocc survey --warc CC-robots-*.warc.gz --each-agent GPTBot --path / --path /news/ \
         --format jsonl -o survey.jsonl\n\n{LIMITS_NOTE}"
    ))]
    Survey(survey::SurveyArgs),
    /// Build policy stores: many hosts in one mmap-able file.
    #[command(subcommand)]
    Store(store::StoreCommand),
}

/// Parses `args` (the program name first), runs the command, returns the
/// exit code.
pub fn run_with(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    let matches = match Cli::command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e),
    };
    // The leaf subcommand's matches say which flags were typed.
    let mut leaf = &matches;
    while let Some((_, sub)) = leaf.subcommand() {
        leaf = sub;
    }
    let given = Given::of(leaf);
    let result = match cli.command {
        Command::Check(args) => check::run(&args, &given),
        Command::Compile(args) => compile::run(&args, &given),
        Command::Diff(args) => diff::run(&args, &given),
        Command::Explain(args) => explain::run(&args, &given),
        Command::Inspect(args) => inspect::run(&args),
        Command::Lint(args) => lint::run(&args, &given),
        Command::Page(args) => page::run(&args, &given),
        Command::Store(cmd) => store::run(&cmd, &given),
        Command::Survey(args) => survey::run(&args, &given),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            error(&msg);
            EXIT_USAGE
        }
    }
}

fn clap_error(e: &clap::Error) -> i32 {
    let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
    let _ = e.print();
    code
}

/// Parses the process's arguments, runs the command, returns the exit code.
pub fn run() -> i32 {
    run_with(std::env::args_os())
}

fn main() {
    // `robocc explain … | head` closes stdout early: `println!` then panics
    // with "failed printing to stdout: Broken pipe". Like `check` (which
    // handles the error itself), end quietly instead of printing a panic.
    // Any other failed write to stdout (a full disk, /dev/full) is an error
    // of the output, not a bug: say so, exit 2. (Diagnostics go through
    // `diag!`, which ignores a closed stderr.)
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            if why.contains("Broken pipe") {
                std::process::exit(0);
            }
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "robocc: error: cannot write to standard output: {why}"
            );
            std::process::exit(2);
        }
        default_hook(info);
    }));
    std::process::exit(run());
}
