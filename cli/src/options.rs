//! The clap argument groups the commands share, and what the command line
//! says beyond them: which flags were given ([`Given`]), a flag's name
//! ([`flag`]), `--usage` ([`UsageArg`]). What the compile flags mean is
//! [`crate::compile_flags`].

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, ValueEnum};
use robocc_compiler::lower::Budget;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum DialectArg {
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
pub(crate) enum UrlModeArg {
    /// Match URLs as given, as Google's robotstxt library does.
    Google,
    /// Normalise URLs and patterns per RFC 9309 §2.2.2.
    Rfc,
}
// draft1996 and robots2 always use the draft's decoding (`%xx` decoded except
// `%2F`), acap matches URLs as given; --url-mode only chooses between the two
// rfc9309 readings, and is refused with the others.

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum RobotsTxtArg {
    /// /robots.txt is always allowed (RFC 9309 §2.2.2).
    Allow,
    /// /robots.txt is judged by the rules like any URL (Google's library).
    Rules,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum PreferenceGroupingArg {
    /// Each preference syntax as its spec reads: a Content-Usage line is a
    /// rule (aipref attach-05), so a user-agent line after it starts a new
    /// group; Content-Signal lines stay in the crawl's groups.
    Spec,
    /// Every preference line in the crawl's groups (Google's grouping).
    Crawl,
}

/// Which crawler to compile for.
#[derive(Args, Clone)]
#[command(next_help_heading = "Agent")]
pub struct AgentArgs {
    /// The crawler's product token, e.g. Googlebot: letters, '_' and '-'
    /// (RFC 9309); draft1996 and robots2 also take digits and '.' (the 1996
    /// draft's RFC 1945 token, e.g. MJ12bot). `--user-agent` is the same
    /// flag (a full User-Agent header goes to --agent-from-header).
    /// Repeatable under rfc9309, for a crawler that obeys several tokens
    /// (e.g. --agent Googlebot-Image --agent Googlebot): the groups naming
    /// any of them apply, merged, as Google's library reads a list.
    #[arg(long, value_name = "NAME", visible_alias = "user-agent")]
    pub(crate) agent: Vec<String>,
    /// Take the product token from a full User-Agent header instead (a
    /// heuristic): among its name/version products (the first word too, and a
    /// crawler's name in a comment), browser ones skipped (Mozilla,
    /// AppleWebKit, KHTML, Gecko, Chrome, Safari, Firefox, Edg, Version,
    /// Mobile, Build), the first whose name contains bot, crawl, spider or
    /// slurp, else the first. Used whole: under rfc9309 and acap a name such
    /// as MJ12bot is refused with what to pass instead, never cut down.
    #[arg(long, value_name = "HEADER", conflicts_with = "agent")]
    pub(crate) agent_from_header: Option<String>,
    /// Answer each of these crawlers separately, from one policy walked
    /// once per URL (repeatable: --each-agent GPTBot --each-agent
    /// ClaudeBot): `check` prints VERDICT<TAB>AGENT<TAB>URL per agent
    /// (JSON: an `agents` object per URL); `compile` and `store build`
    /// write policies that answer each; `diff` reports per agent. Agents whose groups coincide share
    /// the policy's states. Not for --dialect acap.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["agent", "agent_from_header"])]
    pub(crate) each_agent: Vec<String>,
}

/// How to read the file.
#[derive(Args, Clone)]
#[command(next_help_heading = "Dialect")]
pub struct DialectArgs {
    /// Semantics to compile with.
    #[arg(long, value_enum, default_value = "rfc9309")]
    pub(crate) dialect: DialectArg,
    /// rfc9309 only: how URLs and patterns are encoded before matching.
    #[arg(long, value_enum, default_value = "google")]
    pub(crate) url_mode: UrlModeArg,
    /// Whether /robots.txt itself is always allowed.
    #[arg(long, value_enum, default_value = "allow")]
    pub(crate) robots_txt: RobotsTxtArg,
    /// The file is a /data.txt: /data.txt, not /robots.txt, is the path always
    /// allowed. draft1996 implies it for a file named data.txt, with a note
    /// on stderr; other dialects never infer it.
    #[arg(long)]
    pub(crate) data_txt: bool,
    /// Let any non-rule record (Crawl-delay, Sitemap, …) end a group's
    /// user-agent lines, so that a user-agent line after it starts a new
    /// group, as a strict reading of RFC 9309's grammar does (default:
    /// Google's reading, where only a rule line does).
    #[arg(long)]
    pub(crate) records_close_groups: bool,
    /// rfc9309: which groups the AI-usage preference lines belong to: each
    /// syntax's own grammar (spec: a Content-Usage line ends a group's
    /// user-agent lines, as attach-05 makes it a rule), or the crawl's
    /// groups (crawl: Google's grouping). Crawl itself is Google's either
    /// way.
    #[arg(long, value_enum, default_value = "spec")]
    pub(crate) preference_grouping: PreferenceGroupingArg,
    /// rfc9309: a product token AI operators use for training only (e.g.
    /// Google-Extended): where the group it obeys (its own, else `*`)
    /// disallows a URL, train-ai is disallowed. Repeatable.
    #[arg(long, value_name = "TOKEN")]
    pub(crate) training_agent: Vec<String>,
    /// acap: a usage purpose the crawler serves (ACAP 2.3.3); sub-records
    /// whose ACAP-usage-purpose pattern matches it apply. Repeatable.
    #[arg(long, value_name = "PURPOSE")]
    pub(crate) purpose: Vec<String>,
    /// acap: the file an ACAP-permissions-reference names (PATH as written
    /// in the field). Without it that record gets a prohibition of `/` for
    /// every usage (narrower permissions still override it).
    /// Repeatable.
    #[arg(long, value_name = "PATH=FILE")]
    pub(crate) reference: Vec<String>,
}

/// What a compile may spend; 0 lifts a limit.
#[derive(Args, Clone)]
#[command(next_help_heading = "Limits (0: no limit)")]
pub struct LimitArgs {
    /// Parse at most N bytes of robots.txt (RFC 9309 §2.5 asks for at least 500 KiB).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::DEFAULT_MAX_BYTES)]
    pub(crate) max_bytes: usize,
    /// Keep at most N bytes of one line (default: Google's 16,663).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::lines::MAX_LINE_LEN)]
    pub(crate) max_line_len: usize,
    /// Keep at most N rules per group.
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = robocc_compiler::parse::DEFAULT_MAX_RULES_PER_GROUP)]
    pub(crate) max_rules: usize,
    /// States of one automaton.
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = Budget::default().max_states)]
    pub(crate) max_states: usize,
    /// Transition-table bytes over all automata of a policy.
    #[arg(long, value_name = "BYTES", hide_short_help = true,
          default_value_t = Budget::default().total_bytes)]
    pub(crate) max_table_bytes: usize,
    /// Automata of one policy (each check runs them all).
    #[arg(long, value_name = "N", hide_short_help = true,
          default_value_t = Budget::default().max_automata)]
    pub(crate) max_automata: usize,
    /// Seconds one file may spend in the lowering (fractions allowed:
    /// 0.5, as Python's compile_timeout). A wall-clock limit: a file that
    /// nears it may fail on a busy machine and compile on an idle one (a
    /// store's bytes then differ; 0 or inf: no limit, for builds that must
    /// be reproducible).
    #[arg(long, value_name = "SECS", hide_short_help = true,
          default_value_t = Budget::default().time.as_secs_f64(),
          value_parser = parse_timeout)]
    pub(crate) compile_timeout: f64,
    /// When to build a register automaton (smaller where many `*` rules
    /// multiply the states; one more read per byte when checking).
    #[arg(long, value_name = "WHEN", hide_short_help = true, value_enum,
          default_value_t = RegistersArg::Auto)]
    pub(crate) registers: RegistersArg,
    /// State layout: auto (compact, with table rows where `*` rules would
    /// slow it: rows of at most 32 KiB per automaton, programs of at most
    /// 12x the robots.txt counted as at least 1 KiB), compact (artifacts
    /// about the size of the robots.txt, for the smallest stores) or dense
    /// (a table lookup per URL byte: the fastest checks, typically 3-7x the
    /// bytes).
    #[arg(long, value_name = "LAYOUT", value_enum, default_value_t = LayoutArg::Auto)]
    pub(crate) layout: LayoutArg,
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
    pub(crate) agent: AgentArgs,
    #[command(flatten)]
    pub(crate) dialect: DialectArgs,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// `--robots FILE` or `--policy FILE`: the policy URLs are judged by
/// (`check`, `explain`, `page`); the help heading is the command's.
#[derive(Args)]
pub struct PolicyInput {
    /// The robots.txt (`-`: standard input). `check` answers from its
    /// rules until compiling pays for itself; the others compile it first.
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

/// `URL...` or `--urls FILE`: the URLs a command judges (`check`,
/// `explain`), under the help heading "URLs". The commands read a list
/// differently (`check` streams lines of any bytes, whitespace kept;
/// `explain` reads UTF-8 lines, trimmed), so each words the help of both
/// arguments, and says whether URLs are required, with its [`UrlWording`].
#[derive(Args)]
pub struct UrlArgs<W: UrlWording> {
    /// The URL arguments (argument id `url`).
    #[arg(id = "url", value_name = "URL", help = W::URL,
          required_unless_present_any = W::REQUIRED_UNLESS, help_heading = "URLs")]
    pub args: Vec<String>,
    /// `--urls FILE` (argument id `urls`).
    #[arg(id = "urls", long = "urls", value_name = "FILE", help = W::URLS,
          conflicts_with = "url", help_heading = "URLs")]
    pub file: Option<PathBuf>,
    #[arg(skip)]
    wording: std::marker::PhantomData<W>,
}

/// How a command words its [`UrlArgs`] (a help text is shown as written:
/// no final period, as clap shows a one-paragraph doc comment).
pub trait UrlWording: 'static {
    /// The help of `URL...`.
    const URL: &'static str;
    /// The help of `--urls FILE`.
    const URLS: &'static str;
    /// `["urls"]` when URLs must be given, as arguments or with `--urls`;
    /// `[]` when the command has a default (standard input).
    const REQUIRED_UNLESS: &'static [&'static str];
}

impl<W: UrlWording> UrlArgs<W> {
    /// Refuses an empty URL argument, naming its place.
    pub fn refuse_empty(&self) -> Result<(), String> {
        match self.args.iter().position(String::is_empty) {
            Some(i) => Err(format!("URL argument {} is empty", i + 1)),
            None => Ok(()),
        }
    }
}

/// `--format`: text for people, or JSON (`check`, `explain`, `lint`,
/// `page`; each words what its two forms hold).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// `-v, --verbose` of the commands that compile a robots.txt on the fly
/// and show its diagnostics (`check`, `explain`).
#[derive(Args)]
pub struct ShowDiagnostics {
    /// Print every diagnostic of the robots.txt, not three per kind.
    #[arg(short, long, help_heading = "Output")]
    pub verbose: bool,
}

/// The flags given on the command line (not defaults), by argument id.
#[derive(Clone, Debug, Default)]
pub struct Given(BTreeSet<String>);

impl Given {
    pub(crate) fn of(m: &ArgMatches) -> Given {
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

    /// Forgets that the argument `id` was given.
    pub fn remove(&mut self, id: &str) {
        self.0.remove(id);
    }
}

/// `max_bytes` → `--max-bytes`.
pub fn flag(id: &str) -> String {
    format!("--{}", id.replace('_', "-"))
}

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

impl UsageArg {
    /// The usages it names for a policy of `dialect`: one, or for `all`
    /// an acap policy's usage types, or crawl and the AI-usage preference
    /// channels.
    pub fn usages(&self, dialect: robocc_engine::Dialect) -> &[robocc_engine::Usage] {
        use robocc_engine::Usage;
        const CRAWL_AND_SIGNALS: [Usage; 4] =
            [Usage::Crawl, Usage::Search, Usage::TrainAi, Usage::AiInput];
        match self {
            UsageArg::One(u) => std::slice::from_ref(u),
            UsageArg::All if dialect == robocc_engine::Dialect::Acap => Usage::ACAP,
            UsageArg::All => &CRAWL_AND_SIGNALS,
        }
    }
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
