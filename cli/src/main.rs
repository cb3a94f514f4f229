//! The `robocc` command line: compile robots.txt files and check URLs.
//!
//! Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL,
//! or `lint --fail-on SEVERITY` a finding that severe; 2 usage, input or
//! output error (the message names the file).
//!
//! Argument parsing and dispatch; one module per subcommand, and the pieces
//! they share: the compile flags (agent, dialect, limits) in help groups,
//! which flags were given, how diagnostics are shown, how `-o` writes and
//! how artifacts are opened.

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

mod check;
mod compile;
mod explain;
mod inspect;
mod lint;
mod output;
mod page;
mod store;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use robocc_compiler::agent::{
    token_from_header, validate_agent, validate_token, value_token, TokenRule,
};
use robocc_compiler::diag::{DiagCode, Diagnostic};
use robocc_compiler::dialect::semantics;
use robocc_compiler::lower::Budget;
use robocc_compiler::{CompileOptions, ParseOptions};
use robocc_engine::{Dialect, PolicyFile, Store, UrlMode};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use output::write_output;

/// Exit code for usage and input errors.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser)]
#[command(
    name = "robocc",
    version,
    about = "Compiles robots.txt into a DFA policy and checks URLs against it.",
    long_about = "Compiles robots.txt into a DFA policy and checks URLs against it.\n\n\
                  Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL, \
                  or `lint --fail-on SEVERITY` a finding that severe; 2 usage, input or \
                  output error."
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
    /// Build policy stores: many hosts in one mmap-able file.
    #[command(subcommand)]
    Store(store::StoreCommand),
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    Rfc9309,
    Draft1996,
    Robots2,
    /// ACAP 1.0 robots.txt extensions: a verdict per usage type (--usage).
    Acap,
    /// acap when the file has ACAP- fields, robots2 when it has
    /// Robot-version, else rfc9309 (the choice is reported).
    Auto,
}

#[derive(Clone, Copy, ValueEnum)]
enum UrlModeArg {
    /// Match URLs as given, as Google's robotstxt library does.
    Google,
    /// Normalise URLs and patterns per RFC 9309 §2.2.2.
    Rfc,
}
// draft1996 and robots2 always use the draft's decoding (`%xx` decoded except
// `%2F`), acap matches URLs as given; --url-mode only chooses between the two
// rfc9309 readings, and is refused with the others.

/// What a dialect other than rfc9309 does with URLs, which --url-mode
/// cannot change (from the dialect's semantics, so the message cannot
/// drift from what it does).
fn fixed_url_reading(dialect: Dialect) -> &'static str {
    use robocc_compiler::dialect::{semantics, UrlModeRule};
    match semantics(dialect).url_mode {
        UrlModeRule::Fixed(UrlMode::Decode) => "always decodes %xx except %2F",
        UrlModeRule::Fixed(UrlMode::Google) => "matches URLs as given, without decoding",
        UrlModeRule::Fixed(UrlMode::Rfc) => "always normalises URLs per RFC 9309 §2.2.2",
        UrlModeRule::Requested => "reads --url-mode",
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RobotsTxtArg {
    /// /robots.txt is always allowed (RFC 9309 §2.2.2).
    Allow,
    /// /robots.txt is judged by the rules like any URL (Google's library).
    Rules,
}

/// Which crawler to compile for.
#[derive(Args, Clone)]
#[command(next_help_heading = "Agent")]
pub struct AgentArgs {
    /// The crawler's product token, e.g. Googlebot: letters, '_' and '-'
    /// (RFC 9309); draft1996 and robots2 also take digits and '.' (the 1996
    /// draft's RFC 1945 token, e.g. MJ12bot). `--user-agent` is the same
    /// flag (a full User-Agent header goes to --agent-from-header).
    #[arg(long, value_name = "NAME", visible_alias = "user-agent")]
    agent: Option<String>,
    /// Take the product token from a full User-Agent header instead (a
    /// heuristic): among its name/version products (the first word too, and a
    /// crawler's name in a comment), browser ones skipped (Mozilla,
    /// AppleWebKit, KHTML, Gecko, Chrome, Safari, Firefox, Edg, Version,
    /// Mobile, Build), the first whose name contains bot, crawl, spider or
    /// slurp, else the first. Used whole: under rfc9309 and acap a name such
    /// as MJ12bot is refused with what to pass instead, never cut down.
    #[arg(long, value_name = "HEADER", conflicts_with = "agent")]
    agent_from_header: Option<String>,
}

/// How to read the file.
#[derive(Args, Clone)]
#[command(next_help_heading = "Dialect")]
pub struct DialectArgs {
    /// Semantics to compile with.
    #[arg(long, value_enum, default_value = "rfc9309")]
    dialect: DialectArg,
    /// rfc9309 only: how URLs and patterns are encoded before matching.
    #[arg(long, value_enum, default_value = "google")]
    url_mode: UrlModeArg,
    /// Whether /robots.txt itself is always allowed.
    #[arg(long, value_enum, default_value = "allow")]
    robots_txt: RobotsTxtArg,
    /// The file is a /data.txt: /data.txt, not /robots.txt, is the path always
    /// allowed. draft1996 implies it for a file named data.txt, with a note
    /// on stderr; other dialects never infer it.
    #[arg(long)]
    data_txt: bool,
    /// Let any non-rule record (Crawl-delay, Sitemap, …) end a group's
    /// user-agent lines, so that a user-agent line after it starts a new
    /// group, as a strict reading of RFC 9309's grammar does (default:
    /// Google's reading, where only a rule line does).
    #[arg(long)]
    records_close_groups: bool,
    /// rfc9309: a product token AI operators use for training only (e.g.
    /// Google-Extended): where its group disallows a URL, train-ai is
    /// disallowed. Repeatable.
    #[arg(long, value_name = "TOKEN")]
    training_agent: Vec<String>,
    /// acap: a usage purpose the crawler serves (ACAP 2.3.3); sub-records
    /// whose ACAP-usage-purpose pattern matches it apply. Repeatable.
    #[arg(long, value_name = "PURPOSE")]
    purpose: Vec<String>,
    /// acap: the file an ACAP-permissions-reference names (PATH as written
    /// in the field). Without it that record gets a prohibition of `/` for
    /// every usage (narrower permissions still override it).
    /// Repeatable.
    #[arg(long, value_name = "PATH=FILE")]
    reference: Vec<String>,
}

/// What a compile may spend; 0 lifts a limit.
#[derive(Args, Clone)]
#[command(next_help_heading = "Limits (0: no limit)")]
pub struct LimitArgs {
    /// Parse at most N bytes of robots.txt (RFC 9309 §2.5 asks for at least 500 KiB).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// Keep at most N bytes of one line (default: Google's 16,663).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::lines::MAX_LINE_LEN)]
    max_line_len: usize,
    /// Keep at most N rules per group.
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::DEFAULT_MAX_RULES_PER_GROUP)]
    max_rules: usize,
    /// States of one automaton.
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = Budget::default().max_states)]
    max_states: usize,
    /// Transition-table bytes over all automata of a policy.
    #[arg(long, value_name = "BYTES", hide_short_help = true,
          default_value_t = Budget::default().total_bytes)]
    max_table_bytes: usize,
    /// Automata of one policy (each check runs them all).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = Budget::default().max_automata)]
    max_automata: usize,
    /// Seconds one file may spend in the lowering (fractions allowed:
    /// 0.5, as Python's compile_timeout). A wall-clock limit: a file that
    /// nears it may fail on a busy machine and compile on an idle one (a
    /// store's bytes then differ; 0 or inf: no limit, for builds that must
    /// be reproducible).
    #[arg(long, value_name = "SECS", hide_short_help = true,
          default_value_t = Budget::default().time.as_secs_f64(),
          value_parser = parse_timeout)]
    compile_timeout: f64,
    /// When to build a register automaton (smaller where many `*` rules
    /// multiply the states; one more read per byte when checking).
    #[arg(long, value_name = "WHEN", hide_short_help = true, value_enum,
          default_value_t = RegistersArg::Auto)]
    registers: RegistersArg,
    /// State layout: auto (compact, with table rows where `*` rules would
    /// slow it: rows of at most 32 KiB per automaton, programs of at most
    /// 12x the robots.txt counted as at least 1 KiB), compact (artifacts
    /// about the size of the robots.txt, for the smallest stores) or dense
    /// (a table lookup per URL byte: the fastest checks, typically 3-7x the
    /// bytes).
    #[arg(long, value_name = "LAYOUT", value_enum, default_value_t = LayoutArg::Auto)]
    layout: LayoutArg,
}

/// `--layout`: the library's [`robocc_compiler::Layout`] as a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    /// Compact, with rows for automata whose `*` scans pass compact nodes.
    Auto,
    /// Dense rows where every path passes, compact nodes elsewhere.
    Compact,
    /// A dense row for every state (automata under 64 KiB of rows).
    Dense,
}

/// `--registers`: the library's [`robocc_compiler::Registers`] as a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RegistersArg {
    /// Where the plain automaton blows up and the register one is smaller.
    Auto,
    /// For every automaton.
    Always,
    /// Never (split into several plain automata instead).
    Never,
}

/// Everything that shapes a compile besides the robots.txt itself.
#[derive(Args, Clone)]
pub struct CompileFlags {
    #[command(flatten)]
    agent: AgentArgs,
    #[command(flatten)]
    dialect: DialectArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// `--robots FILE` or `--policy FILE`: the policy URLs are judged by
/// (`check`, `explain`, `page`); the help heading is the command's.
#[derive(Args)]
pub struct PolicyInput {
    /// The robots.txt (compiled on the fly; `-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,
    /// A compiled policy (robocc compile).
    #[arg(long, value_name = "FILE", conflicts_with = "robots")]
    pub policy: Option<PathBuf>,
}

/// [`PolicyInput`], or `--store STORE|DIR`: each URL judged by its host's
/// policy (`check`, `explain`).
#[derive(Args)]
pub struct Input {
    #[command(flatten)]
    pub site: PolicyInput,
    /// A policy store, or a store set's directory: each URL is judged by
    /// its host's policy.
    #[arg(long, value_name = "STORE|DIR", conflicts_with_all = ["robots", "policy"])]
    pub store: Option<PathBuf>,
}

/// The flags given on the command line (not defaults), by argument id.
#[derive(Clone, Debug, Default)]
pub struct Given(BTreeSet<String>);

impl Given {
    fn of(m: &ArgMatches) -> Given {
        Given(
            m.ids()
                .map(|id| id.as_str())
                .filter(|id| m.value_source(id) == Some(ValueSource::CommandLine))
                .map(str::to_string)
                .collect(),
        )
    }

    /// Whether the argument `id` (a field name) was given.
    pub fn has(&self, id: &str) -> bool {
        self.0.contains(id)
    }
}

/// `max_bytes` → `--max-bytes`.
pub fn flag(id: &str) -> String {
    format!("--{}", id.replace('_', "-"))
}

/// The compile flags that only shape a compile: with an artifact they
/// would be ignored.
pub(crate) const COMPILE_ONLY: &[&str] = &[
    "records_close_groups",
    "purpose",
    "reference",
    "training_agent",
    "max_line_len",
    "max_rules",
    "max_states",
    "max_table_bytes",
    "max_automata",
    "compile_timeout",
    "registers",
    "layout",
];

/// `--compile-timeout SECS`: a number of seconds ≥ 0, fractions allowed,
/// as Python's `compile_timeout` takes it (`timeout_from_secs`).
fn parse_timeout(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|&t| robocc_compiler::timeout_from_secs(t).is_some())
        .ok_or_else(|| format!("{s:?} is not a number of seconds ≥ 0 (0 or inf: no limit)"))
}

/// `--usage`: one usage, or all of them (`check`, `page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageArg {
    /// One usage.
    One(robocc_engine::Usage),
    /// Every usage the dialect (or the page) speaks of.
    All,
}

/// Reads `--usage`: a usage name (any case), or `all`.
pub fn parse_usage_arg(s: &str) -> Result<UsageArg, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(UsageArg::All);
    }
    s.parse::<robocc_engine::Usage>()
        .map(UsageArg::One)
        .map_err(|e| format!("{e}, or all"))
}

/// Refuses the flags of one dialect given with another (they would change
/// nothing).
fn dialect_flags_apply(dialect: Dialect, given: &Given) -> Result<(), String> {
    for (id, wants) in [
        ("purpose", Dialect::Acap),
        ("reference", Dialect::Acap),
        ("training_agent", Dialect::Rfc9309),
    ] {
        if given.has(id) && dialect != wants {
            return Err(format!(
                "{} applies to --dialect {}, and the file is read as {}: add --dialect {}, or \
                 drop {}",
                flag(id),
                wants.name(),
                dialect.name(),
                wants.name(),
                flag(id)
            ));
        }
    }
    Ok(())
}

impl CompileFlags {
    /// The product token, validated by the rule of the dialect given
    /// (with `--dialect auto`, by the widest rule auto can end with,
    /// robots2's: [`CompileFlags::agent_in`] checks it again once the file
    /// says which dialect it is).
    pub fn agent(&self) -> Result<String, String> {
        if self.dialect_auto() {
            self.agent_with(TokenRule::Rfc1945)
        } else {
            self.agent_in(self.dialect())
        }
    }

    /// The product token, validated by the rule of `dialect`.
    pub fn agent_in(&self, dialect: Dialect) -> Result<String, String> {
        self.agent_with(semantics(dialect).agent_token)
    }

    fn agent_with(&self, rule: TokenRule) -> Result<String, String> {
        let (token, header) = match (&self.agent.agent, &self.agent.agent_from_header) {
            (Some(a), _) => (a.clone(), None),
            (None, Some(h)) => (
                token_from_header(h).ok_or_else(|| {
                    format!(
                        "no crawler product found in User-Agent header {h:?} (browser products \
                         such as Mozilla/5.0 are skipped): give the token with --agent NAME"
                    )
                })?,
                Some(h),
            ),
            (None, None) => {
                return Err(
                    "--agent NAME is required: the crawler whose rules apply (e.g. --agent \
                     Googlebot, or --agent-from-header UA)"
                        .to_string(),
                )
            }
        };
        if token == "*" {
            return Err(
                "--agent '*' is not a crawler's product token: the `User-agent: *` group is \
                 what a crawler reads when no group names it, so to see it pass any token the \
                 file does not name (e.g. --agent UnlistedBot)"
                    .into(),
            );
        }
        let Err(e) = validate_agent(&token, rule) else {
            return Ok(token);
        };
        if e.token().is_empty() {
            return Err(format!("{e} (use e.g. --agent Googlebot)"));
        }
        // The rule cited names the dialect's grammar.
        let found = match header {
            Some(h) => format!("{}, found in User-Agent header {h:?}", e.fact()),
            None => e.fact(),
        };
        // A name the 1996 draft's dialects take (`MJ12bot`) that RFC 9309's
        // rule refuses: say how an RFC 9309 reader sees it, and what to
        // type; never cut it down silently.
        if rule == TokenRule::Rfc9309 && TokenRule::Rfc1945.accepts(&token) {
            let lead = String::from_utf8_lossy(value_token(token.as_bytes())).into_owned();
            let read_as = if lead.is_empty() {
                format!(
                    "No user-agent line names {token:?} under RFC 9309 as Google reads \
                     it (the value's leading letters, '_' and '-' are compared, and it has \
                     none)"
                )
            } else {
                format!(
                    "Under RFC 9309 as Google reads it, a line `User-agent: {token}` names \
                     {lead:?} (the value's leading letters, '_' and '-'): pass --agent {lead} \
                     to obey such lines (and those of any other name that starts with \
                     {lead:?} followed by another character)"
                )
            };
            return Err(format!(
                "{found}. {read_as}; or read the file with --dialect draft1996 or robots2, \
                 whose agent is an RFC 1945 token (digits and '.' allowed)"
            ));
        }
        Err(match header {
            Some(_) => format!("{found}: give the crawler's product token with --agent NAME"),
            None => format!(
                "{found}; pass the product token (e.g. --agent Googlebot, not \
                 Googlebot/2.1), or use --agent-from-header to extract it from a full \
                 User-Agent string"
            ),
        })
    }

    /// Whether an agent was named.
    pub fn agent_given(&self) -> bool {
        self.agent.agent.is_some() || self.agent.agent_from_header.is_some()
    }

    fn dialect(&self) -> Dialect {
        match self.dialect.dialect {
            DialectArg::Rfc9309 => Dialect::Rfc9309,
            DialectArg::Draft1996 => Dialect::Draft1996,
            DialectArg::Robots2 => Dialect::Robots2,
            DialectArg::Acap => Dialect::Acap,
            // Decided from the body (`resolve_auto`); rfc9309 until then.
            DialectArg::Auto => Dialect::Rfc9309,
        }
    }

    /// Whether the dialect is to be detected from the file.
    pub fn dialect_auto(&self) -> bool {
        matches!(self.dialect.dialect, DialectArg::Auto)
    }

    /// `--dialect auto`: sets the dialect `body` is written in, and says so
    /// on stderr. Refuses --url-mode when the file is not rfc9309.
    pub fn resolve_auto(
        &self,
        options: &mut CompileOptions,
        body: &[u8],
        path: &Path,
        given: &Given,
    ) -> Result<(), String> {
        if !self.dialect_auto() {
            return Ok(());
        }
        options.dialect = robocc_compiler::dialect::detect(body);
        diag!(
            "{}: read as dialect {} (--dialect auto)",
            path.display(),
            options.dialect.name()
        );
        dialect_flags_apply(options.dialect, given)?;
        if given.has("url_mode") && options.dialect != Dialect::Rfc9309 {
            return Err(format!(
                "--url-mode applies to --dialect rfc9309 only, and {} reads as {}, which {}: \
                 drop --url-mode",
                path.display(),
                options.dialect.name(),
                fixed_url_reading(options.dialect)
            ));
        }
        Ok(())
    }

    fn url_mode(&self) -> UrlMode {
        match self.dialect.url_mode {
            UrlModeArg::Google => UrlMode::Google,
            UrlModeArg::Rfc => UrlMode::Rfc,
        }
    }

    /// The compile options the flags describe, for the robots.txt at
    /// `robots` (in draft1996, a file named data.txt implies --data-txt).
    /// Refuses flags that contradict each other.
    pub fn options(&self, robots: Option<&Path>, given: &Given) -> Result<CompileOptions, String> {
        let dialect = self.dialect();
        if given.has("url_mode") && dialect != Dialect::Rfc9309 && !self.dialect_auto() {
            return Err(format!(
                "--url-mode applies to --dialect rfc9309 only; {} {}: drop --url-mode",
                dialect.name(),
                fixed_url_reading(dialect)
            ));
        }
        if !self.dialect_auto() {
            dialect_flags_apply(dialect, given)?;
        }
        // Checked here to name the flag (the library refuses it too).
        if let Some(t) = self
            .dialect
            .training_agent
            .iter()
            .find(|t| validate_token(t).is_err())
        {
            return Err(format!(
                "--training-agent {t:?} is not a product token (RFC 9309 §2.2.1: letters, \
                 '_' and '-' only): give the token, e.g. --training-agent Google-Extended"
            ));
        }
        let l = &self.limits;
        Ok(CompileOptions {
            dialect,
            url_mode: self.url_mode(),
            robots_txt_allowed: matches!(self.dialect.robots_txt, RobotsTxtArg::Allow),
            data_txt: self.dialect.data_txt || self.infers_data_txt(dialect, robots),
            parse: ParseOptions {
                // The library also reads 0 as "no limit" here.
                max_bytes: l.max_bytes,
                records_close_groups: self.dialect.records_close_groups,
                max_line_len: robocc_compiler::zero_is_unlimited(l.max_line_len),
                max_rules_per_group: robocc_compiler::zero_is_unlimited(l.max_rules),
                ..ParseOptions::default()
            },
            budget: Budget {
                max_states: robocc_compiler::zero_is_unlimited(l.max_states),
                total_bytes: robocc_compiler::zero_is_unlimited(l.max_table_bytes),
                // 0, and past the clock's range, is no deadline
                // (`parse_timeout` refused what has none).
                time: robocc_compiler::timeout_from_secs(l.compile_timeout)
                    .unwrap_or(std::time::Duration::MAX),
                max_automata: robocc_compiler::zero_is_unlimited(l.max_automata),
                registers: match l.registers {
                    RegistersArg::Auto => robocc_compiler::Registers::Auto,
                    RegistersArg::Always => robocc_compiler::Registers::Always,
                    RegistersArg::Never => robocc_compiler::Registers::Never,
                },
                layout: match l.layout {
                    LayoutArg::Auto => robocc_compiler::Layout::Auto,
                    LayoutArg::Compact => robocc_compiler::Layout::Compact,
                    LayoutArg::Dense => robocc_compiler::Layout::Dense,
                },
                ..Budget::default()
            },
            training_agents: self.dialect.training_agent.clone(),
            purposes: self.dialect.purpose.clone(),
            references: self.references()?,
        })
    }

    /// Whether the robots.txt at `robots` is read as a /data.txt without
    /// --data-txt: named data.txt, in the one dialect that has such a file
    /// (draft1996). Said on stderr, since it changes the path always
    /// allowed.
    fn infers_data_txt(&self, dialect: Dialect, robots: Option<&Path>) -> bool {
        let Some(path) = robots else {
            return false;
        };
        let named = path
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case("data.txt"));
        if self.dialect.data_txt
            || !named
            || self.dialect_auto()
            || !semantics(dialect).data_txt_variant
        {
            return false;
        }
        diag!(
            "{}: note: read as the 1996 draft's /data.txt (the file is named data.txt, as \
             --data-txt says): /data.txt, not /robots.txt, is the path always allowed; give \
             the file another name to read it as a /robots.txt",
            path.display()
        );
        true
    }

    /// `--reference PATH=FILE`: each file read.
    fn references(&self) -> Result<Vec<(String, Vec<u8>)>, String> {
        let mut out = Vec::new();
        for r in &self.dialect.reference {
            let Some((path, file)) = r.split_once('=') else {
                return Err(format!(
                    "--reference {r:?} is not PATH=FILE (e.g. --reference \
                     /searchbot.txt=searchbot.txt)"
                ));
            };
            let body = read_robots(Path::new(file))?;
            out.push((path.to_string(), body));
        }
        Ok(out)
    }

    /// With an artifact (at `path`) instead of a robots.txt: a compile
    /// flag is honoured when it agrees with what the artifact was compiled
    /// with, and refused otherwise (never ignored).
    pub fn check_against(
        &self,
        given: &Given,
        path: &Path,
        built: &Built<'_>,
    ) -> Result<(), String> {
        let what = path.display();
        // A store (or set) records no policy header.
        let how = if built.policy.is_some() {
            "compile from the robots.txt with the flags you want (--robots FILE)"
        } else {
            "rebuild the store with the flags you want (robocc store build)"
        };
        let redo = |why: String| Err(format!("{what} {why}; {how}, or drop them"));
        if given.has("agent") || given.has("agent_from_header") {
            // The artifact's dialect says which names an agent may have.
            let agent = self.agent_in(built.dialect)?;
            if !agent.eq_ignore_ascii_case(built.agent) {
                return redo(format!(
                    "was compiled for agent {}, not {agent}",
                    built.agent
                ));
            }
        }
        if given.has("dialect") && !self.dialect_auto() && self.dialect() != built.dialect {
            return redo(format!(
                "was compiled with dialect {}, not {}",
                built.dialect.name(),
                self.dialect().name()
            ));
        }
        let mut fixed: Vec<&str> = COMPILE_ONLY.to_vec();
        match &built.policy {
            Some(h) => {
                if given.has("url_mode") && self.url_mode() != h.url_mode {
                    return redo(format!("was compiled with url-mode {}", h.url_mode));
                }
                let allow = matches!(self.dialect.robots_txt, RobotsTxtArg::Allow);
                if given.has("robots_txt") && allow != h.robots_txt_allowed {
                    return redo(format!(
                        "was compiled with {} {}",
                        h.self_path,
                        if h.robots_txt_allowed {
                            "always allowed (--robots-txt allow)"
                        } else {
                            "judged by the rules (--robots-txt rules)"
                        }
                    ));
                }
                if given.has("data_txt") && h.self_path != "/data.txt" {
                    return redo("was compiled from a robots.txt, not a /data.txt".into());
                }
                if given.has("max_bytes") && self.limits.max_bytes as u64 != h.max_bytes {
                    return redo(format!("was compiled with --max-bytes {}", h.max_bytes));
                }
            }
            // A store records its agent and dialect only.
            None => fixed.extend(["url_mode", "robots_txt", "data_txt", "max_bytes"]),
        }
        if let Some(id) = fixed.into_iter().find(|id| given.has(id)) {
            return redo(format!(
                "is already compiled: {} applies when compiling",
                flag(id)
            ));
        }
        Ok(())
    }
}

impl CompileFlags {
    /// `--policy FILE`, opened, once the flags `given` agree with what it
    /// was compiled with ([`CompileFlags::check_against`]).
    pub fn open_policy(&self, path: &Path, given: &Given) -> Result<PolicyFile, String> {
        let file = open_policy(path)?;
        self.check_against(given, path, &Built::policy(file.policy().header()))?;
        Ok(file)
    }

    /// `--store STORE|DIR`, opened (a directory as a store set), once the
    /// flags `given` agree with what it was built with.
    pub fn open_stores(&self, path: &Path, given: &Given) -> Result<Stores, String> {
        let stores = if path.is_dir() {
            Stores::Set(open_store_set(path)?)
        } else {
            Stores::One(open_store(path)?)
        };
        let built = match &stores {
            Stores::One(s) => Built::store(s.agent(), s.dialect()),
            Stores::Set(s) => Built::store(s.agent(), s.dialect()),
        };
        self.check_against(given, path, &built)?;
        Ok(stores)
    }
}

/// What `--store` names: one store file, or a store set's directory.
pub enum Stores {
    One(Store),
    Set(robocc_engine::StoreSet),
}

/// What an artifact was compiled with, for [`CompileFlags::check_against`].
pub struct Built<'a> {
    /// The product token.
    pub agent: &'a str,
    /// The dialect.
    pub dialect: Dialect,
    /// A policy's header (a store records only agent and dialect).
    pub policy: Option<robocc_engine::Header<'a>>,
}

impl<'a> Built<'a> {
    /// A policy's: its header says it all.
    pub fn policy(h: robocc_engine::Header<'a>) -> Built<'a> {
        Built {
            agent: h.agent,
            dialect: h.dialect,
            policy: Some(h),
        }
    }

    /// A store's or a store set's: agent and dialect only.
    pub fn store(agent: &'a str, dialect: Dialect) -> Built<'a> {
        Built {
            agent,
            dialect,
            policy: None,
        }
    }
}

pub use robocc_compiler::diag::printable;

/// An output path as messages name it (`-` is standard output).
pub fn output_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard output".into()
    } else {
        path.display().to_string()
    }
}

/// `--tdmrep FILE`: the site's tdmrep.json, its findings on stderr.
pub fn read_tdmrep(path: &Path) -> Result<robocc_page::tdmrep::Tdmrep, String> {
    let bytes = read_file(path, "tdmrep.json")?;
    let t = robocc_page::tdmrep::Tdmrep::parse(&bytes).map_err(|e| {
        format!(
            "{}: {e}: give the site's /.well-known/tdmrep.json (a JSON array of \
             {{\"location\": …, \"tdm-reservation\": 0 or 1}} rules)",
            path.display()
        )
    })?;
    // A hostile file can hold 10,000 broken rules: name the first few,
    // count the rest.
    const SHOWN: usize = 20;
    let name = printable(path.as_os_str().as_encoded_bytes());
    for f in t.findings.iter().take(SHOWN) {
        diag!("{name}: warning: {f}");
    }
    if t.findings.len() > SHOWN {
        diag!(
            "{name}: warning: {} more findings not shown (robocc names the first {SHOWN})",
            t.findings.len() - SHOWN
        );
    }
    Ok(t)
}

/// Reads a whole file, with an error that names it.
pub fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        return robocc_compiler::input::read_all(std::io::stdin().lock())
            .map_err(|e| format!("cannot read {what} from standard input: {e}"));
    }
    if path.is_dir() {
        return Err(format!(
            "{} is a directory, not a {what} file",
            path.display()
        ));
    }
    robocc_compiler::input::read_file(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))
}

/// Reads a robots.txt; a robocc artifact given in its place is refused with
/// the flag that reads it.
pub fn read_robots(path: &Path) -> Result<Vec<u8>, String> {
    let body = read_file(path, "robots.txt")?;
    if let Some(kind) = robocc_engine::FileKind::sniff(&body) {
        let flag = match kind {
            robocc_engine::FileKind::Policy => "--policy FILE",
            robocc_engine::FileKind::Store => "--store FILE",
            robocc_engine::FileKind::StoreSet => "--store DIR (the set's directory)",
        };
        return Err(format!(
            "{} is a robocc {}, not a robots.txt (read it with {flag}, or look at it \
             with robocc inspect)",
            path.display(),
            kind.name()
        ));
    }
    Ok(body)
}

/// Refuses an artifact path that is not a regular file, with what to type:
/// policies and stores are mapped, never read from a stream (a FIFO with no
/// writer would block the open forever). The check reads the file's type
/// without opening it; the engine checks the opened file again, so a swap
/// in between is refused too, not waited on.
fn regular_artifact(path: &Path, kind: robocc_engine::FileKind) -> Result<(), String> {
    let what = kind.name();
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, not a {what} file",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "{} is {}, not a regular file: a {what} is mapped from a file (save it to a file \
             first)",
            path.display(),
            robocc_engine::file_type_name(meta.file_type())
        ));
    }
    Ok(())
}

/// Opens a policy (a regular file, mapped); the error names the file, and
/// the flag that reads it when it is a store.
pub fn open_policy(path: &Path) -> Result<PolicyFile, String> {
    regular_artifact(path, robocc_engine::FileKind::Policy)?;
    PolicyFile::open(path).map_err(kind_hint)
}

/// Opens a store, as [`open_policy`] does a policy.
pub fn open_store(path: &Path) -> Result<Store, String> {
    open_store_hinted(path, kind_hint)
}

/// Opens the store given to `store build --base`: as [`open_store`], but a
/// store of another format says that it cannot be a base (every format
/// change breaks a daily rebuild once).
pub fn open_base_store(path: &Path) -> Result<Store, String> {
    use robocc_engine::{FileKind, LoadErrorKind};
    const SET: &str = "a store set cannot be a base yet: build without --base";
    if path.is_dir() {
        return Err(if path.join(robocc_engine::STORE_SET_INDEX).is_file() {
            format!(
                "--base {}: a store set's directory; --base takes a single store file ({SET})",
                path.display()
            )
        } else {
            format!(
                "--base {}: a directory; --base takes a store file that robocc store build wrote",
                path.display()
            )
        });
    }
    open_store_hinted(path, |e| match e.kind() {
        LoadErrorKind::Version { .. } => {
            format!("{e} (a store of another format cannot be a base: build once without --base)")
        }
        LoadErrorKind::BadMagic {
            other: None | Some(FileKind::Policy),
        } => {
            format!("{e} (--base takes a store that robocc store build wrote)")
        }
        LoadErrorKind::BadMagic {
            other: Some(FileKind::StoreSet),
        } => format!("{e} ({SET})"),
        _ => kind_hint(e),
    })
}

fn open_store_hinted(
    path: &Path,
    hint: impl Fn(robocc_engine::LoadError) -> String,
) -> Result<Store, String> {
    regular_artifact(path, robocc_engine::FileKind::Store)?;
    Store::open(path).map_err(&hint)
}

/// Opens the store set in directory `path`; the error says when the
/// directory is not one.
pub fn open_store_set(path: &Path) -> Result<robocc_engine::StoreSet, String> {
    if !path.join(robocc_engine::STORE_SET_INDEX).exists() {
        return Err(format!(
            "{} is a directory, not a store file, and not a store set (it has no {})",
            path.display(),
            robocc_engine::STORE_SET_INDEX
        ));
    }
    robocc_engine::StoreSet::open(path).map_err(|e| e.to_string())
}

/// A load error, with the flag that reads the file when it is the other
/// kind of robocc file, and what to do about a damaged one.
pub(crate) fn kind_hint(e: robocc_engine::LoadError) -> String {
    use robocc_engine::{FileKind, LoadErrorKind};
    match e.kind() {
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Policy),
        } => format!("{e} (check it with --policy FILE)"),
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Store),
        } => format!("{e} (check it with --store FILE)"),
        LoadErrorKind::BadMagic {
            other: Some(FileKind::StoreSet),
        } => format!("{e} (it is a store set's index: give its directory to --store DIR)"),
        // Most often a robots.txt given where its compiled form goes.
        LoadErrorKind::BadMagic { other: None } => match e.file_kind() {
            FileKind::Store => format!(
                "{e} (robocc store build writes stores; a robots.txt is read with --robots FILE)"
            ),
            _ => format!(
                "{e} (robocc compile writes policies; a robots.txt is read with --robots FILE)"
            ),
        },
        // Damaged or cut short (a copy that did not finish, a disk fault):
        // robocc never writes such a file.
        LoadErrorKind::Length { .. }
        | LoadErrorKind::TooShort(_)
        | LoadErrorKind::Archive(_)
        | LoadErrorKind::Checksum { .. }
        | LoadErrorKind::Invalid(_) => match e.file_kind() {
            FileKind::Policy => format!("{e} (recompile the policy or copy it again)"),
            _ => format!("{e} (rebuild the {} or copy it again)", e.file_kind().name()),
        },
        LoadErrorKind::BigEndian => {
            format!("{e} (robocc writes little-endian files: rebuild it with robocc)")
        }
        // Artifacts are cheap to rebuild and there is no migration: say how.
        LoadErrorKind::Version { .. } => match e.file_kind() {
            FileKind::Store => format!(
                "{e} (rebuild it with this robocc: robocc store build --agent AGENT --manifest FILE -o STORE)"
            ),
            _ => format!(
                "{e} (recompile it with this robocc: robocc compile --robots ROBOTS.TXT --agent AGENT -o POLICY)"
            ),
        },
        _ => e.to_string(),
    }
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
        DiagCode::LineTooLong => Some("raise it with --max-line-len, 0 for no limit"),
        DiagCode::RulesPerGroupLimit => Some("raise it with --max-rules, 0 for no limit"),
        _ => None,
    }
}

/// Line-level findings of one kind shown before the rest are counted.
const SHOWN_PER_KIND: usize = 3;

/// Prints `diagnostics` of `path` on stderr, readably: file-level findings
/// each; line-level ones up to three per kind and then a count (all of
/// them with `verbose`); when the body is not a robots.txt at all (HTML,
/// binary), one count of the lines ignored.
pub fn print_diagnostics(path: &Path, diagnostics: &[&Diagnostic], verbose: bool) {
    let p = path.display();
    let not_robots = diagnostics.iter().any(|d| d.code.is_not_robots_txt());
    let mut per_kind: std::collections::BTreeMap<DiagCode, usize> = Default::default();
    let mut hidden: std::collections::BTreeMap<DiagCode, usize> = Default::default();
    for d in diagnostics {
        let seen = per_kind.entry(d.code).or_default();
        *seen += 1;
        let show = verbose || d.line == 0 || (!not_robots && *seen <= SHOWN_PER_KIND);
        if show {
            // A message may quote the file's bytes.
            diag!("{p}: {}", printable(show_diagnostic(d).as_bytes()));
        } else {
            *hidden.entry(d.code).or_default() += 1;
        }
    }
    if hidden.is_empty() {
        return;
    }
    let lines: usize = hidden.values().sum();
    let kinds: Vec<String> = hidden
        .iter()
        .map(|(code, n)| format!("{n} {}", code.name()))
        .collect();
    if not_robots {
        diag!(
            "{p}: {lines} lines ignored as rules ({}); --verbose lists them",
            kinds.join(", ")
        );
    } else {
        diag!(
            "{p}: … and {lines} more like these ({}); --verbose lists every one",
            kinds.join(", ")
        );
    }
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
        Command::Explain(args) => explain::run(&args, &given),
        Command::Inspect(args) => inspect::run(&args),
        Command::Lint(args) => lint::run(&args, &given),
        Command::Page(args) => page::run(&args, &given),
        Command::Store(cmd) => store::run(&cmd, &given),
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

/// Writes a command's whole output to stdout. A closed pipe (`| head`) is
/// not an error, and leaves the command's exit code as it is.
pub fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Prints an error the way every command does.
pub fn error(msg: &str) {
    diag!("robocc: error: {msg}");
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
