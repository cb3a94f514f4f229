//! Conflict resolution, evaluated at compile time.
//!
//! A dialect supplies one function: given the rules a URL path matches, what
//! is the outcome on each usage channel? The lowering calls it once per
//! automaton state, so the engine never compares rules.

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

/// Resolves the outcome (one entry per channel) of a set of matched rules,
/// given as ids into `rules` in increasing order. Only dialects for which
/// [`is_supported`] holds reach it (`compile` refuses the others).
pub fn resolve(dialect: Dialect, rules: &[SetRule], matched: &[usize]) -> Vec<ChannelOutcome> {
    debug_assert!(
        is_supported(dialect),
        "{} is not implemented",
        dialect.name()
    );
    vec![longest_match(rules, matched)]
}

/// RFC 9309 §2.2.2 as Google implements it: the matching rule with the highest
/// priority wins; on equal priority Allow wins; among equals the first rule in
/// file order is named.
///
/// The rank orders outcomes when automata are combined on the fallback path:
/// `priority * 2 + allow + 1`, so that a higher priority, then Allow, wins, and
/// "no rule" (rank 0) loses to everything.
pub fn longest_match(rules: &[SetRule], matched: &[usize]) -> ChannelOutcome {
    let mut best: Option<usize> = None;
    for &i in matched {
        let better = match best {
            None => true,
            Some(b) => key(&rules[i]) > key(&rules[b]),
        };
        if better {
            best = Some(i);
        }
    }
    match best {
        None => DEFAULT_ALLOW,
        Some(i) => ChannelOutcome {
            allowed: rules[i].allow,
            rule: i as u32,
            rank: key(&rules[i]),
        },
    }
}

fn key(r: &SetRule) -> u32 {
    r.priority * 2 + u32::from(r.allow) + 1
}
