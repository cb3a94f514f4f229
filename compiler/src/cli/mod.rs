//! Argument parsing and dispatch; one module per subcommand.

mod check;
mod compile;
mod explain;
mod inspect;
mod lint;
mod store;

use clap::{Args, Parser, Subcommand, ValueEnum};
use robocc_compiler::agent::{token_from_header, validate_token};
use robocc_compiler::diag::{DiagCode, Diagnostic};
use robocc_compiler::lower::Budget;
use robocc_compiler::{CompileOptions, ParseOptions};
use robocc_engine::{Dialect, UrlMode};
use std::path::{Path, PathBuf};

/// Exit code for usage and input errors.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser)]
#[command(
    name = "robocc",
    version,
    about = "Compiles robots.txt into a DFA policy and checks URLs against it.",
    long_about = "Compiles robots.txt into a DFA policy and checks URLs against it.\n\n\
                  Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL; \
                  2 usage or input error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check URLs: prints `allow<TAB>URL` or `disallow<TAB>URL` per URL, in input order.
    #[command(
        after_help = "Example:\n  robocc check --robots corpus/examples/example.com.txt \
                            --agent Googlebot https://example.com/search?q=x\n  \
                            robocc check --policy site.policy --urls urls.txt"
    )]
    Check(check::CheckArgs),
    /// Compile a robots.txt for one agent into a policy artifact.
    #[command(
        after_help = "Example:\n  robocc compile --robots robots.txt --agent Googlebot -o site.policy"
    )]
    Compile(compile::CompileArgs),
    /// Explain verdicts: the deciding rule, the groups chosen and why, the path as matched.
    #[command(
        after_help = "Example:\n  robocc explain --robots robots.txt --agent Googlebot https://example.com/cart"
    )]
    Explain(explain::ExplainArgs),
    /// Findings a site owner can act on, each with its line and a fix.
    #[command(
        after_help = "Example:\n  robocc lint --robots robots.txt\n  robocc lint --robots robots.txt --agent Googlebot --format json"
    )]
    Lint(lint::LintArgs),
    /// Show what a policy or store holds.
    #[command(after_help = "Example:\n  robocc inspect site.policy")]
    Inspect(inspect::InspectArgs),
    /// Build policy stores: many hosts in one mmap-able file.
    #[command(subcommand)]
    Store(store::StoreCommand),
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    Rfc9309,
    Draft1996,
    Robots2,
    Acap,
}

#[derive(Clone, Copy, ValueEnum)]
enum UrlModeArg {
    /// Match URLs as given, as Google's robotstxt library does.
    Google,
    /// Normalise URLs and patterns per RFC 9309 §2.2.2.
    Rfc,
}
// draft1996 and robots2 always use the draft's decoding (`%xx` decoded except
// `%2F`); --url-mode only chooses between the two rfc9309 readings.

#[derive(Clone, Copy, ValueEnum)]
enum RobotsTxtArg {
    /// /robots.txt is always allowed (RFC 9309 §2.2.2).
    Allow,
    /// /robots.txt is judged by the rules like any URL (Google's library).
    Rules,
}

/// Options of every command that reads a robots.txt.
#[derive(Args, Clone)]
pub struct SourceArgs {
    /// The robots.txt file to read.
    #[arg(long, value_name = "FILE")]
    robots: Option<PathBuf>,
    /// The crawler's product token, e.g. Googlebot (letters, '_' and '-').
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Take the product token from a full User-Agent header instead (a heuristic).
    #[arg(long, value_name = "HEADER", conflicts_with = "agent")]
    agent_from_header: Option<String>,
    /// Semantics to compile with.
    #[arg(long, value_enum, default_value = "rfc9309")]
    dialect: DialectArg,
    /// How URLs and patterns are encoded before matching.
    #[arg(long, value_enum, default_value = "google")]
    url_mode: UrlModeArg,
    /// Whether /robots.txt itself is always allowed.
    #[arg(long, value_enum, default_value = "allow")]
    robots_txt: RobotsTxtArg,
    /// The file is a /data.txt: /data.txt, not /robots.txt, is the path always
    /// allowed (implied when the file is named data.txt).
    #[arg(long)]
    data_txt: bool,
    /// Parse at most N bytes of robots.txt (0: no limit).
    #[arg(long, value_name = "N", default_value_t = robocc_compiler::parse::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// Let any non-rule record (Crawl-delay, Sitemap, …) end a group, as a
    /// strict reading of RFC 9309's grammar does (default: Google's reading).
    #[arg(long)]
    records_close_groups: bool,
    /// Keep at most N bytes of one line (default: Google's 16,663).
    #[arg(long, value_name = "N", default_value_t = robocc_compiler::parse::lines::MAX_LINE_LEN)]
    max_line_len: usize,
    /// Keep at most N rules per group.
    #[arg(long, value_name = "N", default_value_t = robocc_compiler::parse::DEFAULT_MAX_RULES_PER_GROUP)]
    max_rules: usize,
    /// Automaton budget: states of one automaton.
    #[arg(long, value_name = "N", default_value_t = Budget::default().max_states)]
    max_states: usize,
    /// Automaton budget: transition-table bytes over all automata of a policy.
    #[arg(long, value_name = "BYTES", default_value_t = Budget::default().total_bytes)]
    max_table_bytes: usize,
    /// Automaton budget: automata of one policy (each check runs them all).
    #[arg(long, value_name = "N", default_value_t = Budget::default().max_automata)]
    max_automata: usize,
    /// Automaton budget: seconds one file may spend in the lowering.
    #[arg(long, value_name = "SECS", default_value_t = Budget::default().time.as_secs())]
    compile_timeout: u64,
}

impl SourceArgs {
    /// The robots.txt path, required.
    pub fn robots_path(&self) -> Result<PathBuf, String> {
        self.robots
            .clone()
            .ok_or_else(|| "--robots FILE is required".to_string())
    }

    /// Whether --agent was given.
    pub fn agent_given(&self) -> bool {
        self.agent.is_some()
    }

    /// Whether --agent-from-header was given.
    pub fn agent_from_header_given(&self) -> bool {
        self.agent_from_header.is_some()
    }

    /// The product token, validated.
    pub fn agent(&self) -> Result<String, String> {
        let token = match (&self.agent, &self.agent_from_header) {
            (Some(a), _) => a.clone(),
            (None, Some(h)) => token_from_header(h)
                .ok_or_else(|| format!("no product token found in User-Agent header {h:?}"))?,
            (None, None) => return Err("--agent NAME is required with --robots".to_string()),
        };
        validate_token(&token).map_err(|e| {
            if e.token().is_empty() {
                format!("{e} (use e.g. --agent Googlebot)")
            } else {
                format!(
                    "{e}, or use --agent-from-header to extract it from a full User-Agent \
                     string"
                )
            }
        })?;
        Ok(token)
    }

    /// The compile options the flags describe.
    pub fn compile_options(&self) -> CompileOptions {
        CompileOptions {
            dialect: match self.dialect {
                DialectArg::Rfc9309 => Dialect::Rfc9309,
                DialectArg::Draft1996 => Dialect::Draft1996,
                DialectArg::Robots2 => Dialect::Robots2,
                DialectArg::Acap => Dialect::Acap,
            },
            url_mode: match self.url_mode {
                UrlModeArg::Google => UrlMode::Google,
                UrlModeArg::Rfc => UrlMode::Rfc,
            },
            robots_txt_allowed: matches!(self.robots_txt, RobotsTxtArg::Allow),
            data_txt: self.data_txt
                || self
                    .robots
                    .as_deref()
                    .and_then(|p| p.file_name())
                    .is_some_and(|n| n.eq_ignore_ascii_case("data.txt")),
            parse: ParseOptions {
                max_bytes: self.max_bytes,
                records_close_groups: self.records_close_groups,
                max_line_len: self.max_line_len,
                max_rules_per_group: self.max_rules,
                ..ParseOptions::default()
            },
            budget: Budget {
                max_states: self.max_states,
                total_bytes: self.max_table_bytes,
                time: std::time::Duration::from_secs(self.compile_timeout),
                max_automata: self.max_automata,
                ..Budget::default()
            },
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so that a process that has the old file memory-mapped keeps
/// a consistent (old) view and never sees a half-written or truncated one.
pub fn write_replacing(path: &Path, bytes: &[u8], what: &str) -> Result<(), String> {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("out"),
        std::ffi::OsStr::to_os_string,
    );
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(&name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let fail = |e: std::io::Error| format!("cannot write {what} {}: {e}", path.display());
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// Reads a whole file, with an error that names it.
pub fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {what} {}: {e}", path.display()))
}

/// A diagnostic as the command line prints it: the library's message, and
/// for a limit the flag that raises it (the library names no flags).
pub fn show_diagnostic(d: &Diagnostic) -> String {
    match flag_hint(d.code) {
        Some(hint) => format!("{d} ({hint})"),
        None => d.to_string(),
    }
}

/// The flag that changes what a finding of kind `code` reports, if any.
pub fn flag_hint(code: DiagCode) -> Option<&'static str> {
    match code {
        DiagCode::ParseLimit => Some("raise it with --max-bytes, 0 for no limit"),
        DiagCode::LineTooLong => Some("raise it with --max-line-len"),
        DiagCode::RulesPerGroupLimit => Some("raise it with --max-rules"),
        _ => None,
    }
}

/// Prints an error the way every command does.
pub fn error(msg: &str) {
    eprintln!("robocc: error: {msg}");
}

/// Parses arguments, runs the command, returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Inspect(args) => inspect::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Store(cmd) => store::run(&cmd),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            error(&msg);
            EXIT_USAGE
        }
    }
}
