//! What each dialect means, evaluated at compile time.
//!
//! A dialect is a parsing mode (how records are grouped, which record an
//! agent obeys, how a pattern is read) plus a **rank** for every rule: among
//! the rules a path matches, the one with the highest rank decides (equal
//! ranks: the first in file order). Longest match (rfc9309), first match
//! (draft1996, robots2 1.0 rule sets) and robots2's precedence classes are
//! all of this form. Because the winner is a maximum, the lowering can forget
//! every rule that ranks below a rule already matched for good — which is
//! what keeps the automata small — and the fallback path can combine the
//! outcomes of several automata by rank. docs/dialects.md gives each choice
//! with the spec sentence it rests on.

use crate::glob::Glob;
use crate::parse::keys::KeyKind;
use crate::parse::RobotsTxt;
use crate::ruleset::{SetRule, ROBOTS_TXT_PRIORITY};
use robocc_engine::artifact::{outcome_word, NO_RULE};
pub use robocc_engine::Dialect;
use robocc_engine::UrlMode;
use robocc_engine::{PatternSyntax, RankClass, RuleOrigin};

/// Outcome when no rule matches: allowed, decided by no rule.
pub const DEFAULT_ALLOW: u32 = outcome_word(true, NO_RULE);

/// Rank of the implicit allow of the file's own path: above every rule.
pub const SELF_RANK: u32 = u32::MAX - 1;

/// Usage channels a dialect's outcomes carry, in order.
pub fn channels(dialect: Dialect) -> Vec<String> {
    match dialect {
        Dialect::Rfc9309 | Dialect::Draft1996 | Dialect::Robots2 | Dialect::Acap => {
            vec!["crawl".to_string()]
        }
    }
}

/// Whether this build of the compiler implements `dialect`.
pub fn is_supported(dialect: Dialect) -> bool {
    dialect != Dialect::Acap
}

/// Parses a dialect name as used on the command line.
pub fn from_name(name: &str) -> Option<Dialect> {
    [
        Dialect::Rfc9309,
        Dialect::Draft1996,
        Dialect::Robots2,
        Dialect::Acap,
    ]
    .into_iter()
    .find(|d| d.name().eq_ignore_ascii_case(name))
}

/// The URL encoding a dialect matches with: rfc9309 lets the caller choose
/// Google's or the RFC's; the draft's decoding is part of draft1996 and
/// robots2 (robots2 changes nothing in how URLs are compared).
pub fn url_mode(dialect: Dialect, requested: UrlMode) -> UrlMode {
    match dialect {
        Dialect::Rfc9309 | Dialect::Acap => requested,
        Dialect::Draft1996 | Dialect::Robots2 => UrlMode::Decode,
    }
}

/// Default cache lifetime of a fetched file, in seconds: RFC 9309 §2.4
/// ("SHOULD NOT use the cached version for more than 24 hours"), the 1996
/// draft's §3.4 ("default to an expiry of 7 days"), which robots2 inherits.
pub fn expiry_secs(dialect: Dialect) -> u64 {
    match dialect {
        Dialect::Rfc9309 | Dialect::Acap => 24 * 3600,
        Dialect::Draft1996 | Dialect::Robots2 => 7 * 24 * 3600,
    }
}

/// How a rule value is read (`robots2_v2`: the rule set declared 2.0).
pub fn syntax_of(dialect: Dialect, robots2_v2: bool, raw: &[u8]) -> PatternSyntax {
    match dialect {
        Dialect::Rfc9309 | Dialect::Acap => PatternSyntax::Glob,
        Dialect::Draft1996 => PatternSyntax::Prefix,
        Dialect::Robots2 if !robots2_v2 => PatternSyntax::Prefix,
        Dialect::Robots2 => {
            if raw.iter().any(|b| matches!(b, b'*' | b'?' | b'[')) {
                PatternSyntax::Shell
            } else {
                PatternSyntax::Exact
            }
        }
    }
}

/// A robots2 rule set's version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Robots2Version {
    /// The Robot-version value that counts, as written.
    pub written: Option<String>,
    /// Read with the 2.0 rules.
    pub is_v2: bool,
    /// Why a Robot-version line was not taken as written.
    pub notes: Vec<(u32, String)>,
}

/// Reads a record's Robot-version: it counts only if it is the first line
/// after the user-agent lines ("If it does not immediately follow, or is
/// missing, then the robot is to assume the rule set follows the Version
/// 1.0 standard"); major 2 with an even minor reads as 2.0, an odd minor is
/// experimental ("should probably ignore that rule set and use the
/// default") and reads as 1.0, as does anything else.
pub fn robots2_version(robots: &RobotsTxt<'_>, g: usize) -> Robots2Version {
    let group = &robots.groups[g];
    let mut out = Robots2Version {
        written: None,
        is_v2: false,
        notes: Vec::new(),
    };
    // The first keyed line after the user-agent lines: the group's own
    // rules and records, and file-level records (a Sitemap line between the
    // user-agent lines and Robot-version also breaks "immediately").
    let last_agent = group.agents.iter().map(|a| a.line).max().unwrap_or(0);
    let first_line = group
        .rules
        .iter()
        .map(|r| r.line)
        .chain(group.records.iter().map(|r| r.line))
        .chain(
            robots
                .global
                .iter()
                .map(|r| r.line)
                .filter(|&l| l > last_agent),
        )
        .min();
    for (n, r) in group
        .records
        .iter()
        .filter(|r| r.kind == KeyKind::RobotVersion)
        .enumerate()
    {
        let value = String::from_utf8_lossy(r.value).into_owned();
        if n > 0 {
            out.notes.push((
                r.line,
                "a second Robot-version in the rule set: ignored (only one is allowed)".into(),
            ));
            continue;
        }
        if Some(r.line) != first_line {
            out.notes.push((
                r.line,
                "Robot-version does not immediately follow the user-agent lines: \
                 the rule set is read as version 1.0"
                    .into(),
            ));
            continue;
        }
        let mut parts = value.split('.').map(|p| p.trim().parse::<u32>().ok());
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(2), Some(minor)) if minor % 2 == 0 => out.is_v2 = true,
            (Some(2), Some(_)) => out.notes.push((
                r.line,
                format!("Robot-version {value} is experimental (odd minor): read as 1.0"),
            )),
            (Some(1), _) => {}
            _ => out.notes.push((
                r.line,
                format!("Robot-version {value:?} is not 1.x or 2.x: read as 1.0"),
            )),
        }
        out.written = Some(value);
    }
    out
}

/// Gives every rule its rank.
///
/// * rfc9309 (RFC 9309 §2.2.2 as Google implements it): the longest pattern
///   wins, Allow wins ties: `priority * 2 + allow + 1`.
/// * draft1996 and robots2 1.0 rule sets: the first matching rule wins:
///   earlier rules rank higher.
/// * robots2 2.0 rule sets: explicit Allow (4) over Disallow (3) over
///   wildcard Allow (2) over a Disallow that matches every path (1, the
///   rule set's "nothing else"), first in file order within a class.
///
/// The implicit allow of the file's own path ranks above all.
pub fn assign_ranks(dialect: Dialect, rules: &mut [SetRule]) {
    let n = rules.len() as u32;
    for (i, r) in rules.iter_mut().enumerate() {
        r.rank = if r.origin == RuleOrigin::RobotsTxt {
            match dialect {
                Dialect::Rfc9309 | Dialect::Acap => ROBOTS_TXT_PRIORITY * 2 + 2,
                _ => SELF_RANK,
            }
        } else {
            match (dialect, r.syntax) {
                (Dialect::Rfc9309 | Dialect::Acap, _) => r.priority * 2 + u32::from(r.allow) + 1,
                (_, PatternSyntax::Prefix | PatternSyntax::Glob) => n - i as u32,
                (_, syntax) => robots2_class(r.allow, syntax, &r.glob),
            }
        };
    }
}

fn robots2_class(allow: bool, syntax: PatternSyntax, glob: &Glob) -> u32 {
    match (allow, syntax) {
        (true, PatternSyntax::Exact) => 4,
        (true, _) => 2,
        (false, _) if glob.is_universal() => 1,
        (false, _) => 3,
    }
}

/// The named resolution that ranked `rule`.
pub fn rank_class(dialect: Dialect, robots2_v2: bool, rule: &SetRule) -> RankClass {
    if rule.origin == RuleOrigin::RobotsTxt {
        return RankClass::SelfPath;
    }
    match dialect {
        Dialect::Rfc9309 | Dialect::Acap => RankClass::LongestMatch,
        Dialect::Robots2 if robots2_v2 => {
            match robots2_class(rule.allow, rule.syntax, &rule.glob) {
                4 => RankClass::ExplicitAllow,
                3 => RankClass::Disallow,
                2 => RankClass::WildcardAllow,
                _ => RankClass::CatchAllDisallow,
            }
        }
        Dialect::Draft1996 | Dialect::Robots2 => RankClass::FirstMatch,
    }
}

/// Does rule `a` beat rule `b` (ids into `rules`)?
pub fn beats(rules: &[SetRule], a: usize, b: usize) -> bool {
    let (ra, rb) = (rules[a].rank, rules[b].rank);
    ra > rb || (ra == rb && a < b)
}

/// The outcome (one word per channel) when `winner` decides.
pub fn outcome(rules: &[SetRule], winner: Option<usize>) -> Vec<u32> {
    vec![match winner {
        None => DEFAULT_ALLOW,
        Some(i) => outcome_word(rules[i].allow, i as u32),
    }]
}
