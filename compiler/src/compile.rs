//! The whole pipeline: bytes → parse → select → rule set → automata →
//! artifact.

use crate::agent::{select, validate_token, BadAgent, Selection};
use crate::diag::{Diagnostic, Severity};
use crate::dialect::{channels, Dialect};
use crate::lower::{lower, Budget, LowerError};
use crate::parse::keys::KeyKind;
use crate::parse::{parse, ParseOptions, RobotsTxt};
use crate::ruleset::{RuleSet, RuleSetOptions};
use robocc_engine::artifact::{
    fnv1a64, Header, Metadata, PolicyData, Record, RuleInfo, FORMAT_VERSION, MAGIC,
};
use robocc_engine::{frame, UrlMode};
use std::fmt;

/// How to compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Semantics. Default: rfc9309.
    pub dialect: Dialect,
    /// URL and pattern encoding. Default: Google's (match as given).
    pub url_mode: UrlMode,
    /// Allow `/robots.txt` whatever the rules say (RFC 9309 §2.2.2: "The
    /// /robots.txt URI is implicitly allowed"). Default: true. Google's
    /// library does not special-case it; set false to match it exactly.
    pub robots_txt_allowed: bool,
    /// Parse limit and grouping.
    pub parse: ParseOptions,
    /// Automaton budget.
    pub budget: Budget,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            dialect: Dialect::Rfc9309,
            url_mode: UrlMode::Google,
            robots_txt_allowed: true,
            parse: ParseOptions::default(),
            budget: Budget::default(),
        }
    }
}

impl CompileOptions {
    /// The rule-set options these compile options imply.
    pub fn rule_set_options(&self) -> RuleSetOptions {
        RuleSetOptions {
            url_mode: self.url_mode,
            index_htm: self.dialect == Dialect::Rfc9309,
            robots_txt_allowed: self.robots_txt_allowed,
        }
    }
}

/// Why a file could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The agent product token is not valid.
    BadAgent(BadAgent),
    /// The automata do not fit the budget even on the fallback path.
    Budget(LowerError),
    /// The dialect is not implemented yet.
    UnsupportedDialect(Dialect),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::BadAgent(e) => e.fmt(f),
            CompileError::Budget(e) => write!(f, "cannot compile within the budget: {e}"),
            CompileError::UnsupportedDialect(d) => write!(
                f,
                "dialect {} is not implemented yet (supported: rfc9309)",
                d.name()
            ),
        }
    }
}

impl std::error::Error for CompileError {}

/// A compiled policy, before serialisation.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// What the artifact will hold.
    pub data: PolicyData,
    /// The rules, in the form the reference matcher takes.
    pub rule_set: RuleSet,
    /// Which groups were chosen, and how.
    pub selection: Selection,
    /// Parser and compiler findings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    /// The artifact bytes (16-byte aligned, ready for `Policy::from_bytes`).
    pub fn to_bytes(&self) -> rkyv::util::AlignedVec<16> {
        let archive = rkyv::to_bytes::<rkyv::rancor::Error>(&self.data)
            .expect("serialising plain owned data cannot fail");
        let mut out = rkyv::util::AlignedVec::<16>::with_capacity(archive.len() + 16);
        out.extend_from_slice(&frame(&MAGIC, FORMAT_VERSION, archive.len()));
        out.extend_from_slice(&archive);
        out
    }
}

/// Compiles `robots_txt` for product token `agent`.
///
/// # Errors
///
/// An invalid product token, or rules whose automata exceed the budget even
/// when split (hostile input far beyond real files).
pub fn compile(
    robots_txt: &[u8],
    agent: &str,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    validate_token(agent).map_err(CompileError::BadAgent)?;
    if !crate::dialect::is_supported(options.dialect) {
        return Err(CompileError::UnsupportedDialect(options.dialect));
    }
    let robots = parse(robots_txt, &options.parse);
    let selection = select(&robots, agent);
    let rule_set = RuleSet::build(&robots, &selection, options.rule_set_options());
    let lowered =
        lower(&rule_set, options.dialect, &options.budget).map_err(CompileError::Budget)?;
    let mut diagnostics = robots.diagnostics.clone();
    if lowered.automata.len() > 1 {
        diagnostics.push(Diagnostic::new(
            0,
            Severity::Warning,
            format!("fallback path taken: {}", lowered.build),
        ));
    }
    let rules = rule_set
        .rules
        .iter()
        .map(|r| RuleInfo {
            allow: r.allow,
            pattern: String::from_utf8_lossy(&r.pattern).into_owned(),
            line: r.line,
            priority: r.priority,
            group: r.group,
            origin: r.origin,
        })
        .collect();
    let data = PolicyData {
        header: Header {
            dialect: options.dialect,
            url_mode: options.url_mode,
            robots_txt_allowed: options.robots_txt_allowed,
            channels: channels(options.dialect),
            agent: agent.to_string(),
            selection: selection.via.name().to_string(),
            source_hash: fnv1a64(robots_txt),
            source_len: robots_txt.len() as u64,
            max_bytes: options.parse.max_bytes as u64,
            compiler_version: env!("CARGO_PKG_VERSION").to_string(),
            build: lowered.build,
        },
        automata: lowered.automata,
        outcomes: lowered.outcomes,
        rules,
        meta: metadata(&robots, &selection),
    };
    Ok(Compiled {
        data,
        rule_set,
        selection,
        diagnostics,
    })
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn metadata(robots: &RobotsTxt<'_>, selection: &Selection) -> Metadata {
    let agent_records: Vec<Record> = selection
        .groups
        .iter()
        .flat_map(|&g| robots.groups[g].records.iter())
        .map(|r| Record {
            key: text(r.key),
            value: text(r.value),
            line: r.line,
        })
        .collect();
    let crawl_delay_ms = selection
        .groups
        .iter()
        .flat_map(|&g| robots.groups[g].records.iter())
        .filter(|r| r.kind == KeyKind::CrawlDelay)
        .find_map(|r| parse_delay_ms(r.value));
    let globals = |kind| robots.global_values(kind).map(|r| text(r.value)).collect();
    Metadata {
        crawl_delay_ms,
        agent_records,
        sitemaps: globals(KeyKind::Sitemap),
        hosts: globals(KeyKind::Host),
        clean_params: globals(KeyKind::CleanParam),
        group_lines: selection
            .groups
            .iter()
            .filter_map(|&g| robots.groups[g].agents.first().map(|a| a.line))
            .collect(),
    }
}

/// Crawl-delay in seconds (fractions allowed) → milliseconds.
pub fn parse_delay_ms(value: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let secs: f64 = s.parse().ok()?;
    (0.0..1e9)
        .contains(&secs)
        .then(|| (secs * 1000.0).round() as u64)
}
