//! Conflict resolution, evaluated at compile time.
//!
//! A dialect ranks rules: among the rules a path matches, the one with the
//! highest rank decides (equal ranks: the first in file order). Longest match
//! (rfc9309) and first match (draft1996) are both of this form. Because the
//! winner is a maximum, the lowering can forget every rule that ranks below a
//! rule already matched for good — which is what keeps the automata small —
//! and the fallback path can combine the outcomes of several automata by rank.

use crate::ruleset::SetRule;
use robocc_engine::artifact::{ChannelOutcome, NO_RULE};
pub use robocc_engine::Dialect;

/// Outcome when no rule matches: allowed, decided by no rule.
pub const DEFAULT_ALLOW: ChannelOutcome = ChannelOutcome {
    allowed: true,
    rule: NO_RULE,
    rank: 0,
};

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
    dialect == Dialect::Rfc9309
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

/// The rank of a rule (> 0). Only dialects for which [`is_supported`] holds
/// reach it (`compile` refuses the others).
///
/// rfc9309 (RFC 9309 §2.2.2 as Google implements it): the longest pattern
/// wins, Allow wins ties: `priority * 2 + allow + 1`.
pub fn rank(dialect: Dialect, rule: &SetRule) -> u32 {
    debug_assert!(
        is_supported(dialect),
        "{} is not implemented",
        dialect.name()
    );
    rule.priority * 2 + u32::from(rule.allow) + 1
}

/// Does rule `a` beat rule `b` (ids into `rules`)?
pub fn beats(dialect: Dialect, rules: &[SetRule], a: usize, b: usize) -> bool {
    let (ra, rb) = (rank(dialect, &rules[a]), rank(dialect, &rules[b]));
    ra > rb || (ra == rb && a < b)
}

/// The outcome (one entry per channel) when `winner` decides.
pub fn outcome(dialect: Dialect, rules: &[SetRule], winner: Option<usize>) -> Vec<ChannelOutcome> {
    vec![match winner {
        None => DEFAULT_ALLOW,
        Some(i) => ChannelOutcome {
            allowed: rules[i].allow,
            rule: i as u32,
            rank: rank(dialect, &rules[i]),
        },
    }]
}
