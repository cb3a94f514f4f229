//! The reference matchers the compiled engine is tested against.
//!
//! * [`check_url`] is the rule-set reference: a plain, obviously-correct
//!   walk over the compiler's [`RuleSet`] (for rfc9309 it mirrors Google's
//!   `RobotsMatcher` step by step — test every rule, keep the first rule of
//!   the highest priority per kind, Disallow wins only when strictly
//!   longer). It shares the rule list with the automaton, so it checks the
//!   lowering and the engine (to the exact rule id), not the parse or the
//!   group selection; it is also the "naive matcher" of the benchmarks. For
//!   draft1996 and robots2 it ranks with the same `rank` and `Glob` as the
//!   lowering.
//! * The independent oracles read the body themselves and answer with the
//!   deciding rule's source line: [`rfc9309`] (Google's robotstxt library,
//!   sharing no code with the compiler), [`draft1996`] and [`robots2`]
//!   (written from the specifications' text; they share the compiler's
//!   input stage and parser), [`acap`] (ACAP 1.0's robots.txt extensions:
//!   one answer per usage type) and [`signals`] (the AI-usage preferences).
//!   Each module says what it shares.

pub mod acap;
pub mod draft1996;
pub mod rfc9309;
pub mod robots2;
pub mod signals;

pub use acap::{AcapAnswer, AcapOracle};
pub use draft1996::{Draft1996Oracle, Escapes, OracleOptions, OracleVerdict};
pub use rfc9309::{Rfc9309Options, Rfc9309Oracle};
pub use robots2::Robots2Oracle;
pub use signals::{Channel, Pref, SignalAnswer, SignalsOracle};

use robocc_compiler::dialect::Dialect;
use robocc_compiler::normalize::matched_path;
use robocc_compiler::ruleset::RuleSet;
use robocc_engine::RuleId;

/// The reference verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefVerdict {
    /// May the path be fetched?
    pub allowed: bool,
    /// The deciding rule, if a rule decided.
    pub rule: Option<RuleId>,
}

/// Does `pattern` match `path`? Anchored at the first byte, `*` matches any
/// run of bytes, `$` is special only as the last byte, and a pattern is a
/// prefix unless it ends in `$`. Tracks the set of path positions the pattern
/// prefix can reach, so backtracking cases (`/*.php$` on `/a.php.php`) are
/// exact and time is O(pattern × path).
pub fn pattern_matches(pattern: &[u8], path: &[u8]) -> bool {
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for (i, &p) in pattern.iter().enumerate() {
        if p == b'$' && i + 1 == pattern.len() {
            return reach[path.len()];
        }
        if p == b'*' {
            // Everything at or after the first reachable position.
            if let Some(first) = reach.iter().position(|&r| r) {
                reach[first..].iter_mut().for_each(|r| *r = true);
            }
        } else {
            for j in (0..path.len()).rev() {
                reach[j + 1] = reach[j] && path[j] == p;
            }
            reach[0] = false;
        }
        if !reach.contains(&true) {
            return false;
        }
    }
    true
}

/// Checks an already extracted (and normalised) path against the rules, as
/// the rule set's dialect decides.
pub fn check_path(set: &RuleSet, path: &[u8]) -> RefVerdict {
    match set.dialect {
        Dialect::Rfc9309 | Dialect::Acap => check_path_longest(set, path),
        Dialect::Draft1996 | Dialect::Robots2 => check_path_ranked(set, path),
    }
}

/// The other dialects, written from their definition rather than Google's
/// bookkeeping: walk the rules in order, keep the first of the highest rank
/// among those that match (`rank` is assigned by `dialect::assign_ranks`).
fn check_path_ranked(set: &RuleSet, path: &[u8]) -> RefVerdict {
    let mut best: Option<usize> = None;
    for (id, rule) in set.rules.iter().enumerate() {
        if rule.glob.matches(path) && best.is_none_or(|b| rule.rank > set.rules[b].rank) {
            best = Some(id);
        }
    }
    match best {
        None => RefVerdict {
            allowed: true,
            rule: None,
        },
        Some(id) => RefVerdict {
            allowed: set.rules[id].allow,
            rule: Some(rule_id(id)),
        },
    }
}

/// The id of the rule at `index` in a rule set.
fn rule_id(index: usize) -> RuleId {
    RuleId::new(index as u32)
}

/// RFC 9309 §2.2.2 as Google's longest match decides, on the rules' encoded
/// patterns.
fn check_path_longest(set: &RuleSet, path: &[u8]) -> RefVerdict {
    // (priority, rule id) of the best Allow and the best Disallow so far.
    let mut allow: Option<(u32, usize)> = None;
    let mut disallow: Option<(u32, usize)> = None;
    // AI-usage preference statements are rules of the set too; crawl is
    // decided by the agent's Allow/Disallow rules only.
    let crawl = |id: usize| {
        set.signals()
            .is_none_or(|s| s.rules[id].family == robocc_compiler::signals::Family::Crawl)
    };
    for (id, rule) in set.rules.iter().enumerate().filter(|&(id, _)| crawl(id)) {
        if !pattern_matches(&rule.pattern, path) {
            continue;
        }
        let slot = if rule.allow {
            &mut allow
        } else {
            &mut disallow
        };
        if slot.is_none_or(|(p, _)| rule.priority > p) {
            *slot = Some((rule.priority, id));
        }
    }
    match (allow, disallow) {
        (None, None) => RefVerdict {
            allowed: true,
            rule: None,
        },
        (Some((_, a)), None) => RefVerdict {
            allowed: true,
            rule: Some(rule_id(a)),
        },
        (None, Some((_, d))) => RefVerdict {
            allowed: false,
            rule: Some(rule_id(d)),
        },
        (Some((ap, a)), Some((dp, d))) => {
            if dp > ap {
                RefVerdict {
                    allowed: false,
                    rule: Some(rule_id(d)),
                }
            } else {
                RefVerdict {
                    allowed: true,
                    rule: Some(rule_id(a)),
                }
            }
        }
    }
}

/// Checks a URL (absolute or a path) against the rules, encoded as the rule
/// set's URL mode says.
pub fn check_url(set: &RuleSet, url: &[u8]) -> RefVerdict {
    check_path(set, &matched_path(url, set.url_mode))
}

#[cfg(test)]
mod tests {
    use super::pattern_matches as m;

    #[test]
    fn matching() {
        assert!(m(b"/", b"/x"));
        assert!(m(b"/*.php$", b"/a.php.php"));
        assert!(!m(b"/*.php$", b"/a.php5"));
        assert!(m(b"/a$b", b"/a$bc"));
        assert!(m(b"*", b"/"));
        assert!(!m(b"$", b"/"));
        assert!(m(b"/fish*.php", b"/fishheads/catfish.php?parameters"));
        assert!(!m(b"/fish*.php", b"/Fish.PHP"));
        assert!(m(b"/**a", b"/xa"));
        assert!(!m(b"/a", b"/"));
    }
}
