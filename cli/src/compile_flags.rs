//! What the compile flags ([`CompileFlags`]) mean: the crawler's product
//! token, validated by the dialect's rule; the [`CompileOptions`] of a
//! compile; and, given an artifact instead of a robots.txt, whether the
//! flags agree with what it was compiled with ([`Built`]).

use crate::input::read_robots;
use crate::options::{
    flag, CompileFlags, DialectArg, Given, LayoutArg, PreferenceGroupingArg, RegistersArg,
    RobotsTxtArg, UrlModeArg,
};
use robocc_compiler::agent::{
    token_from_header, validate_agent, validate_token, value_token, TokenRule,
};
use robocc_compiler::dialect::semantics;
use robocc_compiler::lower::Budget;
use robocc_compiler::{Agents, CompileError, CompileOptions, ParseOptions};
use robocc_engine::{Dialect, UrlMode};
use std::path::Path;

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

/// The compile flags that only shape a compile: with an artifact they
/// would be ignored.
pub(crate) const COMPILE_ONLY: &[&str] = &[
    "records_close_groups",
    "preference_grouping",
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

/// Refuses the flags of one dialect given with another (they would change
/// nothing).
fn dialect_flags_apply(dialect: Dialect, given: &Given) -> Result<(), String> {
    for (id, wants) in [
        ("purpose", Dialect::Acap),
        ("reference", Dialect::Acap),
        ("training_agent", Dialect::Rfc9309),
        ("preference_grouping", Dialect::Rfc9309),
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
    /// The product tokens, each validated by the rule of the dialect
    /// given (with `--dialect auto`, by the widest rule auto can end with,
    /// robots2's, several allowed: [`CompileFlags::agent_in`] checks them
    /// again once the file says which dialect it is).
    pub fn agent(&self) -> Result<Agents, String> {
        if self.dialect_auto() {
            self.agents_with(TokenRule::Rfc1945)
        } else {
            self.agent_in(self.dialect())
        }
    }

    /// The product tokens, validated by the rule of `dialect`; several
    /// only where it reads them together (rfc9309).
    pub fn agent_in(&self, dialect: Dialect) -> Result<Agents, String> {
        let sem = semantics(dialect);
        let agents = self.agents_with(sem.agent_token)?;
        if agents.len() > 1 && !sem.several_agents {
            let e = CompileError::SeveralAgents {
                dialect,
                agents: agents.to_string(),
            };
            return Err(format!("--agent given {} times: {e}", agents.len()));
        }
        Ok(agents)
    }

    /// The one product token of a command that reads one crawler's
    /// instructions (`what`: a page's META tags), refusing several.
    pub fn one_agent(agents: Agents, what: &str) -> Result<String, String> {
        match agents.single() {
            Some(a) => Ok(a.to_string()),
            None => Err(format!(
                "--agent given {} times ({agents}): {what} one crawler's; give one --agent",
                agents.len()
            )),
        }
    }

    /// Whether `--each-agent` was given.
    pub fn each_agent_given(&self) -> bool {
        !self.agent.each_agent.is_empty()
    }

    /// The `--each-agent` tokens, each validated by the rule of `dialect`
    /// (by the widest, robots2's, while `--dialect auto` has not read the
    /// file: `None`).
    pub fn each_agents(&self, dialect: Option<Dialect>) -> Result<Agents, String> {
        let rule = dialect.map_or(TokenRule::Rfc1945, |d| semantics(d).agent_token);
        let tokens = (self.agent.each_agent.iter())
            .map(|t| token_with(t.clone(), None, rule).map_err(|e| format!("--each-agent: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Agents::new(tokens))
    }

    fn agents_with(&self, rule: TokenRule) -> Result<Agents, String> {
        if self.each_agent_given() {
            return Err(
                "--each-agent applies to check, compile, diff and store build only: this command                  answers one crawler (or several read together: --agent A --agent B)"
                    .into(),
            );
        }
        let tokens = match (&self.agent.agent[..], &self.agent.agent_from_header) {
            ([], Some(h)) => {
                let token = token_from_header(h).ok_or_else(|| {
                    format!(
                        "no crawler product found in User-Agent header {h:?} (browser products \
                         such as Mozilla/5.0 are skipped): give the token with --agent NAME"
                    )
                })?;
                vec![token_with(token, Some(h), rule)?]
            }
            ([], None) => {
                return Err(
                    "--agent NAME is required: the crawler whose rules apply (e.g. --agent \
                     Googlebot, or --agent-from-header UA)"
                        .to_string(),
                )
            }
            (given, _) => given
                .iter()
                .map(|t| token_with(t.clone(), None, rule))
                .collect::<Result<_, _>>()?,
        };
        Ok(Agents::new(tokens))
    }

    /// Whether an agent was named.
    pub fn agent_given(&self) -> bool {
        !self.agent.agent.is_empty() || self.agent.agent_from_header.is_some()
    }

    pub(crate) fn dialect(&self) -> Dialect {
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

    pub(crate) fn url_mode(&self) -> UrlMode {
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
            preference_grouping: match self.dialect.preference_grouping {
                PreferenceGroupingArg::Spec => robocc_compiler::PreferenceGrouping::Spec,
                PreferenceGroupingArg::Crawl => robocc_compiler::PreferenceGrouping::Crawl,
            },
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
        if given.has("each_agent") {
            // An each-agent artifact answers the agents it names; a
            // one-agent one, its one.
            let have = Agents::from_header(built.agent);
            let want = self.each_agents(Some(built.dialect))?;
            let missing = want
                .iter()
                .find(|a| !have.iter().any(|h| h.eq_ignore_ascii_case(a)))
                .map(str::to_string);
            if let Some(a) = missing {
                return redo(format!("answers agent {}, not {a}", built.agent));
            }
        }
        if given.has("agent") || given.has("agent_from_header") {
            // The artifact's dialect says which names an agent may have;
            // the agents' order changes no verdict.
            let agent = self.agent_in(built.dialect)?;
            let set = |a: &Agents| {
                let mut t: Vec<String> = a.iter().map(str::to_ascii_lowercase).collect();
                t.sort_unstable();
                t
            };
            if set(&agent) != set(&Agents::from_header(built.agent)) {
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

/// One product token (`header`: the User-Agent header it was found in),
/// validated by `rule`, with what to type instead when it is refused.
fn token_with(token: String, header: Option<&String>, rule: TokenRule) -> Result<String, String> {
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
