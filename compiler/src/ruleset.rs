//! Selected groups → the flat list of rules the automaton is built from.
//!
//! Every rule's pattern is in its final, encoded form (Google escaping or RFC
//! normalisation), with its priority, so the lowering and the reference
//! matcher see exactly the same rules. Implicit rules are added here too:
//! Google's `index.htm` rule and the `/robots.txt` allow. Every rule gets its
//! dialect's rank (see [`dialect::Ranking`]) and the set its
//! [`Resolution`]: how the lowering resolves conflicts between them
//! ([`crate::outcome`]).

use crate::agent::Selection;
use crate::dialect::{self, Dialect, PatternRule, RankClass};
use crate::glob::Glob;
use crate::normalize::normalize_pattern;
use crate::outcome::{acap::AcapRules, signals::SignalRules, Resolution, RuleFacts};
use crate::parse::escape::google_escape;
use crate::parse::{RobotsTxt, Rule, RuleKind};
use robocc_engine::artifact::{PatternSyntax, RuleOrigin};
use robocc_engine::UrlMode;

/// Priority of the implicit `/robots.txt` allow: above any real pattern.
pub const ROBOTS_TXT_PRIORITY: u32 = 1 << 30;

/// A rule ready to be matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetRule {
    /// Allow (true) or Disallow.
    pub allow: bool,
    /// The pattern as shown: for rfc9309 the encoded pattern (`*` any run of
    /// bytes, a final `$` the end of the path); for the other dialects the
    /// value as written.
    pub pattern: Vec<u8>,
    /// How `pattern` is read.
    pub syntax: PatternSyntax,
    /// The pattern in the form the lowering and the reference match.
    pub glob: Glob,
    /// Match priority: octets of the encoded pattern (`*` and `$` counted);
    /// rfc9309's longest-match key, shown by the explainer.
    pub priority: u32,
    /// The dialect's rank (> 0): the matching rule of highest rank decides,
    /// the first one on ties (see [`dialect::Ranking::rank`]).
    pub rank: u32,
    /// Why the rule ranks as it does (what the explainer shows).
    pub class: RankClass,
    /// 1-based source line (0 for the `/robots.txt` rule).
    pub line: u32,
    /// Group index in the source file (`u32::MAX` for the `/robots.txt` rule).
    pub group: u32,
    /// Why the rule exists.
    pub origin: RuleOrigin,
}

/// What shapes a rule set besides the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSetOptions {
    /// How patterns are encoded.
    pub url_mode: UrlMode,
    /// Add Google's `index.htm` rule (`CompileOptions::rule_set_options`
    /// sets it where the dialect's [`dialect::Semantics::index_htm`] does).
    pub index_htm: bool,
    /// Add an allow of the file's own path that beats every other rule.
    pub robots_txt_allowed: bool,
    /// The file is a /data.txt (its own path is `/data.txt`).
    pub data_txt: bool,
    /// Whose semantics.
    pub dialect: Dialect,
}

/// The rules that apply to one agent, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The rules; an index here is a rule id.
    pub rules: Vec<SetRule>,
    /// How URLs are encoded before they meet the patterns.
    pub url_mode: UrlMode,
    /// Whose semantics.
    pub dialect: Dialect,
    /// robots2: the rule set follows version 2.0 (explicit and wildcard
    /// patterns); false for 1.0 rule sets and every other dialect.
    pub robots2_v2: bool,
    /// How conflicts are resolved: by rank; acap's usage, tier and scope of
    /// every rule ([`crate::outcome::acap`]); or the AI-usage preferences'
    /// family of every rule (crawl rules, then Content-Usage,
    /// Content-Signal and training-token rules: [`crate::outcome::signals`]).
    pub resolution: Resolution,
}

impl RuleFacts for SetRule {
    #[inline]
    fn allow(&self) -> bool {
        self.allow
    }
    #[inline]
    fn priority(&self) -> u32 {
        self.priority
    }
    #[inline]
    fn rank(&self) -> u32 {
        self.rank
    }
    #[inline]
    fn line(&self) -> u32 {
        self.line
    }
}

impl RuleSet {
    /// The encoded patterns, in rule order (what URL workloads are made from).
    pub fn patterns(&self) -> impl Iterator<Item = &[u8]> {
        self.rules.iter().map(|r| r.pattern.as_slice())
    }

    /// acap: the acap side of the rules ([`Resolution::Acap`]).
    pub fn acap(&self) -> Option<&AcapRules> {
        self.resolution.acap()
    }

    /// AI-usage preferences: the signal side of the rules
    /// ([`Resolution::Signals`]).
    pub fn signals(&self) -> Option<&SignalRules> {
        self.resolution.signals()
    }

    /// Collects the rules of the selected groups.
    pub fn build(robots: &RobotsTxt<'_>, selection: &Selection, opts: RuleSetOptions) -> RuleSet {
        let sem = dialect::semantics(opts.dialect);
        let url_mode = sem.url_mode.resolve(opts.url_mode);
        let robots2_v2 = sem.patterns.reads_robot_version()
            && selection
                .groups
                .first()
                .is_some_and(|&g| dialect::robots2_version(robots, g).is_v2);
        let written: usize = selection
            .groups
            .iter()
            .map(|&g| robots.groups[g].rules.len())
            .sum();
        // Room for every rule written and the own path's.
        let mut rules = Vec::with_capacity(written + 1);
        for &g in &selection.groups {
            // An empty value is no rule at all (RFC 9309 §2.2.2; Google gives
            // it priority 0, which never decides; the 1996 draft's
            // `Disallow:` allows everything).
            for rule in robots.groups[g].rules.iter().filter(|r| !r.raw.is_empty()) {
                match sem.patterns {
                    PatternRule::GoogleGlob => {
                        push_glob_rules(&mut rules, rule, g, url_mode, opts.index_htm);
                    }
                    patterns => {
                        let syntax = patterns.syntax(robots2_v2, rule.raw);
                        rules.push(written_rule(rule, g, syntax, url_mode));
                    }
                }
            }
        }
        if opts.robots_txt_allowed {
            rules.push(self_path_rule(sem, opts.data_txt, url_mode));
        }
        assign_ranks(sem.ranking, &mut rules);
        RuleSet {
            rules,
            url_mode,
            dialect: opts.dialect,
            robots2_v2,
            resolution: Resolution::Ranked,
        }
    }
}

/// Gives every rule its class and its rank under `ranking`.
fn assign_ranks(ranking: dialect::Ranking, rules: &mut [SetRule]) {
    let count = rules.len();
    for (position, r) in rules.iter_mut().enumerate() {
        let self_path = r.origin == RuleOrigin::RobotsTxt;
        r.class = ranking.class(self_path, r.allow, r.syntax, &r.glob);
        r.rank = ranking.rank(r.class, r.allow, r.priority, position, count);
    }
}

/// A rule read as written (every dialect but rfc9309), in `syntax`.
fn written_rule(
    rule: &Rule<'_>,
    group: usize,
    syntax: PatternSyntax,
    url_mode: UrlMode,
) -> SetRule {
    SetRule {
        allow: rule.kind == RuleKind::Allow,
        pattern: rule.raw.to_vec(),
        syntax,
        glob: Glob::parse(rule.raw, syntax, url_mode),
        priority: len_u32(rule.raw.len()),
        // Rank and class are set by `assign_ranks`.
        rank: 0,
        class: RankClass::FirstMatch,
        line: rule.line,
        group: group as u32,
        origin: RuleOrigin::Line,
    }
}

/// An rfc9309 rule over its encoded pattern (Google's escaping, or the RFC's
/// normalisation), and the `<dir>/$` allow Google's `index.htm` rule adds.
fn push_glob_rules(
    rules: &mut Vec<SetRule>,
    rule: &Rule<'_>,
    group: usize,
    url_mode: UrlMode,
    index_htm: bool,
) {
    let allow = rule.kind == RuleKind::Allow;
    let pattern = encoded_pattern(rule.raw, url_mode);
    let index_dir = (allow && index_htm)
        .then(|| index_htm_dir(&pattern))
        .flatten();
    rules.push(glob_rule(
        allow,
        pattern,
        rule.line,
        group,
        RuleOrigin::Line,
    ));
    if let Some(dir_pattern) = index_dir {
        rules.push(glob_rule(
            true,
            dir_pattern,
            rule.line,
            group,
            RuleOrigin::IndexHtm,
        ));
    }
}

/// An rfc9309 path pattern as the rule set matches it: the RFC's
/// normalisation in rfc mode, else Google's escaping. Content-Usage paths
/// are encoded here too (attach-05 §3.1: "the same percent-encoding rules
/// as used for Allow/Disallow rules"), and their length is this one's.
pub(crate) fn encoded_pattern(raw: &[u8], url_mode: UrlMode) -> Vec<u8> {
    match url_mode {
        UrlMode::Rfc => normalize_pattern(raw),
        _ => google_escape(raw).into_owned(),
    }
}

/// The implicit allow of the file's own path (`/robots.txt`, or
/// `/data.txt`), written as the dialect writes it.
fn self_path_rule(sem: &dialect::Semantics, data_txt: bool, url_mode: UrlMode) -> SetRule {
    let path: &[u8] = if data_txt {
        b"/data.txt"
    } else {
        b"/robots.txt"
    };
    let (pattern, syntax) = sem.self_rule(path);
    SetRule {
        allow: true,
        glob: Glob::parse(&pattern, syntax, url_mode),
        pattern,
        syntax,
        priority: ROBOTS_TXT_PRIORITY,
        rank: 0,
        class: RankClass::SelfPath,
        line: 0,
        group: u32::MAX,
        origin: RuleOrigin::RobotsTxt,
    }
}

/// An rfc9309 rule: Google glob syntax over the encoded pattern.
fn glob_rule(
    allow: bool,
    pattern: Vec<u8>,
    line: u32,
    group: usize,
    origin: RuleOrigin,
) -> SetRule {
    SetRule {
        allow,
        glob: Glob::parse(&pattern, PatternSyntax::Glob, UrlMode::Google),
        priority: len_u32(pattern.len()),
        pattern,
        syntax: PatternSyntax::Glob,
        rank: 0,
        class: RankClass::LongestMatch,
        line,
        group: group as u32,
        origin,
    }
}

/// A pattern length as a priority, capped below the own path's.
pub(crate) fn len_u32(n: usize) -> u32 {
    u32::try_from(n)
        .unwrap_or(u32::MAX / 4)
        .min(ROBOTS_TXT_PRIORITY - 1)
}

/// Google's `index.htm` rule: an Allow whose last path segment starts with
/// `/index.htm` also allows `<dir>/` exactly, i.e. the pattern `<dir>/$`.
fn index_htm_dir(pattern: &[u8]) -> Option<Vec<u8>> {
    let slash = pattern.iter().rposition(|&b| b == b'/')?;
    if !pattern[slash..].starts_with(b"/index.htm") {
        return None;
    }
    let mut p = pattern[..=slash].to_vec();
    p.push(b'$');
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::index_htm_dir;

    #[test]
    fn index_htm() {
        assert_eq!(
            index_htm_dir(b"/allowed-slash/index.html").as_deref(),
            Some(&b"/allowed-slash/$"[..])
        );
        assert_eq!(index_htm_dir(b"/index.htm").as_deref(), Some(&b"/$"[..]));
        assert_eq!(index_htm_dir(b"/a/index.php"), None);
        assert_eq!(index_htm_dir(b"/index.htm/x"), None);
    }
}
