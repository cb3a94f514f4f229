//! acap's conflict resolution (ACAP 2.4.5), evaluated once per automaton
//! state over the set of rules the state has matched, and the acap side of
//! a rule set it reads.
//!
//! Narrowest scope is not a total order — two rules may be incomparable,
//! and then the usage is prohibited — so acap rules carry no rank: the
//! lowering keeps, per state, the *set* of rules matched so far ([`Canon`]
//! says which still matter), and [`outcome`] resolves every usage from it.
//! docs/dialects.md ("acap") states each choice made here with the spec
//! sentence it rests on. The rules themselves are made by
//! [`crate::acap`].

use super::{Canonical, RuleFacts};
use robocc_engine::artifact::{outcome_word, NO_RULE, OUTCOME_ALLOWED};
use robocc_engine::{Usage, UsageSet};

/// What an acap rule is about besides its pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcapRule {
    /// The usage it is on.
    pub usage: Usage,
    /// From a record naming the crawler (the named tier), else a `*`
    /// record.
    pub named: bool,
    /// A conventional Allow/Disallow, read as a rule on `crawl`.
    pub conventional: bool,
    /// Purpose patterns of its sub-record (empty: a general rule).
    pub purposes: Vec<String>,
    /// Qualifiers as the reader keeps them (`type=value`).
    pub qualifiers: Vec<String>,
    /// How it was written when not plainly (`(name)`, a resource set, a
    /// permissions reference).
    pub via: String,
    /// The pattern as written, ASCII lower-cased: what 2.4.5 compares.
    pub scope: Vec<u8>,
}

/// The acap side of a rule set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AcapRules {
    /// One per rule of the rule set, in rule order.
    pub rules: Vec<AcapRule>,
    /// `##ACAP version=` as written.
    pub version: Option<String>,
    /// The file says `ACAP-ignore-conventional-records`.
    pub ignore_conventional: bool,
    /// The purposes compiled for.
    pub purposes: Vec<String>,
    /// Action requests of the records that apply.
    pub requests: Vec<RequestField>,
}

/// An action request field (§2.6): kept, never a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestField {
    /// The action, lower-cased: `take-down` or `re-crawl` (§3; another
    /// action is not kept).
    pub action: String,
    /// The resource path.
    pub path: String,
    /// 1-based line.
    pub line: u32,
}

/// How two patterns compare in scope (2.4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The first pattern is narrower.
    First,
    /// The second pattern is narrower.
    Second,
    /// The same pattern.
    Equal,
    /// They differ at a position where neither is a wildcard.
    Undetermined,
}

/// 2.4.5's character-by-character comparison of two patterns (ASCII case
/// already folded).
pub fn narrower(a: &[u8], b: &[u8]) -> Scope {
    let mut i = 0;
    loop {
        match (a.get(i), b.get(i)) {
            (None, None) => return Scope::Equal,
            // "If one pattern has run out of characters, the other pattern
            // has the narrower scope."
            (None, Some(_)) => return Scope::Second,
            (Some(_), None) => return Scope::First,
            (Some(x), Some(y)) if x == y => i += 1,
            // "$ where the other pattern contains any other character
            // (including the asterisk *), the other pattern has the
            // narrower scope."
            (Some(b'$'), _) => return Scope::Second,
            (_, Some(b'$')) => return Scope::First,
            // "* where the other pattern contains any other character
            // except the dollar sign $, the other pattern has the narrower
            // scope."
            (Some(b'*'), _) => return Scope::Second,
            (_, Some(b'*')) => return Scope::First,
            _ => return Scope::Undetermined,
        }
    }
}

/// How a usage's verdict was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No rule concerns the usage at this URL: allowed.
    Default,
    /// The rules agree; this one (the narrowest, else the first) is named.
    Agreed(usize),
    /// The rules conflict and this one is narrower than every other.
    Narrowest(usize),
    /// The rules conflict and no single narrowest one exists: prohibited.
    /// The pair: the best candidate and a rule it is not narrower than.
    Undecidable(usize, usize),
}

/// The resolution of one usage at one URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageResolution {
    /// The verdict.
    pub allowed: bool,
    /// How.
    pub decision: Decision,
    /// The tier that spoke: rules of records naming the crawler (true) or
    /// of `*` records.
    pub named: bool,
    /// The rules that competed (ids), `other` rules included when they
    /// applied.
    pub competing: Vec<usize>,
    /// Conventional lines that matched and lost to another conventional
    /// line as rfc9309 settles them (2.9.2), before the competition.
    pub settled: Vec<usize>,
}

/// Does rule `a` concern usage `u` explicitly (its own usage, or `present`
/// for a sub-type)?
fn explicit(a: &AcapRule, u: Usage) -> bool {
    a.usage == u || (a.usage == Usage::Present && u.is_present() && u != Usage::Present)
}

/// Resolves usage `u` over the matched rules `matched` (ids).
pub fn resolve<R: RuleFacts>(
    rules: &[R],
    acap: &AcapRules,
    matched: &[usize],
    u: Usage,
) -> UsageResolution {
    let (mut competing, mut settled) = (Vec::new(), Vec::new());
    let (allowed, decision, named) =
        resolve_into(rules, acap, matched, u, &mut competing, Some(&mut settled));
    UsageResolution {
        allowed,
        decision,
        named,
        competing,
        settled,
    }
}

/// [`resolve`] with the competing rules written to `competing` (cleared
/// first) and the settled ones to `settled` when asked for: the verdict,
/// how, and the tier that spoke.
fn resolve_into<R: RuleFacts>(
    rules: &[R],
    acap: &AcapRules,
    matched: &[usize],
    u: Usage,
    competing: &mut Vec<usize>,
    settled: Option<&mut Vec<usize>>,
) -> (bool, Decision, bool) {
    let info = |i: usize| &acap.rules[i];
    let concerns = |i: usize| {
        let a = info(i);
        if u == Usage::Other {
            a.usage == Usage::Other
        } else {
            explicit(a, u) || a.usage == Usage::Other
        }
    };
    // Named over any (2.2).
    let named = matched.iter().any(|&i| info(i).named && concerns(i));
    let tier = |i: &usize| info(*i).named == named;
    competing.clear();
    competing.extend(matched.iter().copied().filter(tier).filter(|&i| {
        if u == Usage::Other {
            info(i).usage == Usage::Other
        } else {
            explicit(info(i), u)
        }
    }));
    conventional_as_normal(rules, acap, competing, settled);
    // `other` (2.5.6) speaks where no permission of the tier does.
    if u != Usage::Other && !competing.iter().any(|&i| rules[i].allow()) {
        competing.extend(
            matched
                .iter()
                .copied()
                .filter(tier)
                .filter(|&i| info(i).usage == Usage::Other),
        );
        competing.sort_unstable();
    }
    let (allowed, decision) = decide(rules, acap, competing);
    (allowed, decision, named)
}

/// Conventional Allow/Disallow lines that disagree are settled "as normal"
/// (2.9.2): of them only rfc9309's winner competes further, the longest
/// encoded pattern, Allow on a tie, the first in file order among equals.
/// 2.4.5 speaks of ACAP permission and prohibition fields; adding an ACAP
/// record to a file must not change what its conventional lines decide
/// between themselves. Conventional lines that agree are left as they are
/// (no conflict among them; a state keeps only the first of a one-verdict
/// slot, [`Canon`]). The lines that lost are appended to `lost`, when
/// given.
fn conventional_as_normal<R: RuleFacts>(
    rules: &[R],
    acap: &AcapRules,
    competing: &mut Vec<usize>,
    lost: Option<&mut Vec<usize>>,
) {
    let conventional = || {
        competing
            .iter()
            .copied()
            .filter(|&i| acap.rules[i].conventional)
    };
    let mut verdicts = conventional().map(|i| rules[i].allow());
    let Some(first) = verdicts.next() else {
        return;
    };
    if verdicts.all(|v| v == first) {
        return;
    }
    // Ids are in file order, so `max_by_key` must not pick a later equal.
    let winner = conventional()
        .rev()
        .max_by_key(|&i| (rules[i].priority(), rules[i].allow()))
        .expect("a conventional rule");
    if let Some(lost) = lost {
        lost.extend(conventional().filter(|&i| i != winner));
    }
    competing.retain(|&i| !acap.rules[i].conventional || i == winner);
}

/// 2.4.5 over the competing rules `r` (sorted ids, so the first is the
/// first in file order).
fn decide<R: RuleFacts>(rules: &[R], acap: &AcapRules, r: &[usize]) -> (bool, Decision) {
    let Some(&first) = r.first() else {
        return (true, Decision::Default);
    };
    let scope = |i: usize| acap.rules[i].scope.as_slice();
    let agree = r.iter().all(|&i| rules[i].allow() == rules[first].allow());
    // Tournament: a rule narrower than every other wins every comparison,
    // so it is the last candidate standing; then verify it.
    let mut best = first;
    for &i in &r[1..] {
        if narrower(scope(i), scope(best)) == Scope::First {
            best = i;
        }
    }
    let ok = |i: usize, s: usize| match narrower(scope(i), scope(s)) {
        Scope::First => true,
        Scope::Equal => agree || rules[i].allow() == rules[s].allow(),
        _ => false,
    };
    let failed = r.iter().copied().find(|&s| s != best && !ok(best, s));
    // The first in file order of the winner's twins (equal pattern and
    // verdict): they are interchangeable, and the first is named.
    let twin = |w: usize| {
        r.iter()
            .copied()
            .find(|&i| scope(i) == scope(w) && rules[i].allow() == rules[w].allow())
            .unwrap_or(w)
    };
    // Permissions that agree, one with qualifiers: the narrowest names the
    // verdict, so that its qualifiers (or its lack of them) are the ones
    // reported (2.4.1.2: qualifiers restrict a permission; the narrowest
    // is the one that applies, as 2.4.5 picks it in a conflict).
    let qualified = rules[first].allow() && r.iter().any(|&i| !acap.rules[i].qualifiers.is_empty());
    match (agree, failed) {
        (true, None) if qualified => (true, Decision::Agreed(twin(best))),
        // No conflict: the first in file order names it.
        (true, _) => (rules[first].allow(), Decision::Agreed(first)),
        (false, None) => (rules[best].allow(), Decision::Narrowest(twin(best))),
        (false, Some(s)) => (false, Decision::Undecidable(best, s)),
    }
}

/// What a set-mode state must remember of the rules it matched for good.
///
/// For a usage and a tier whose rules (explicit, and `other`) all have the
/// same verdict and carry no qualifiers, no conflict can arise: the
/// outcome depends only on whether a rule matched and on the first one in
/// file order. So of those rules a
/// state keeps the first explicit one and the first `other` one, and a rule
/// that comes after them in file order can no longer change anything (its
/// thread is dropped). Where verdicts are mixed, every matched rule is kept.
/// This is what keeps real files whose ACAP prohibitions are many `/*word`
/// patterns from multiplying their states.
pub struct Canon {
    /// Per rule, the (usage, tier, other?) slots it concerns.
    slots: Vec<Vec<usize>>,
    /// Per slot: all rules of it have one verdict.
    single: Vec<bool>,
}

/// Slot of (usage, tier, via `other`).
fn slot(u: Usage, named: bool, other: bool) -> usize {
    (u as usize * 2 + usize::from(named)) * 2 + usize::from(other)
}

fn slot_named(k: usize) -> bool {
    (k / 2) % 2 == 1
}

fn slot_usage(k: usize) -> usize {
    k / 4
}

impl Canon {
    /// The slots of the rules of `acap`.
    pub fn new<R: RuleFacts>(rules: &[R], acap: &AcapRules) -> Canon {
        let n_slots = Usage::ACAP_COUNT * 4;
        let mut slots = Vec::with_capacity(rules.len());
        let mut verdicts = vec![[false; 2]; n_slots / 2];
        let mut qualified = vec![false; n_slots / 2];
        for (r, a) in rules.iter().zip(&acap.rules) {
            let mut s = Vec::new();
            for &u in Usage::ACAP {
                let (e, o) = (explicit(a, u), a.usage == Usage::Other);
                if e || o {
                    let k = slot(u, a.named, o && !e);
                    s.push(k);
                    verdicts[k / 2][usize::from(r.allow())] = true;
                    qualified[k / 2] |= r.allow() && !a.qualifiers.is_empty();
                }
            }
            slots.push(s);
        }
        // Where a permission carries qualifiers, agreeing rules still name
        // the narrowest (`decide`), so every matched rule is kept; so are
        // rules that disagree.
        let single = (0..n_slots)
            .map(|k| {
                let [no, yes] = verdicts[k / 2];
                !(qualified[k / 2] || (no && yes))
            })
            .collect();
        Canon { slots, single }
    }
}

impl Canonical for Canon {
    fn matters(&self, r: usize, matched: &[usize]) -> bool {
        self.slots[r].iter().any(|&k| {
            // A `*` record's rule on a usage the named tier already speaks
            // of (a matched rule is matched for good) can never count.
            let named_speaks = !slot_named(k)
                && matched.iter().any(|&m| {
                    self.slots[m]
                        .iter()
                        .any(|&j| slot_named(j) && slot_usage(j) == slot_usage(k))
                });
            let shadowed =
                self.single[k] && matched.iter().any(|&m| m < r && self.slots[m].contains(&k));
            !named_speaks && !shadowed
        })
    }

    fn reduce(&self, matched: &mut Vec<usize>) {
        let mut kept: Vec<usize> = Vec::with_capacity(matched.len());
        for &r in matched.iter() {
            if self.matters(r, &kept) {
                kept.push(r);
            }
        }
        *matched = kept;
    }
}

/// The outcome words of a state that matched `matched` (sorted ids): one
/// per usage, in channel order.
pub fn outcome<R: RuleFacts>(rules: &[R], acap: &AcapRules, matched: &[usize]) -> Vec<u32> {
    let mut out = Vec::new();
    outcome_into(rules, acap, matched, &mut Vec::new(), &mut out);
    out
}

/// [`outcome`] appended to `out`, with `work` as room for the competing
/// rules: no allocation once both have grown.
pub fn outcome_into<R: RuleFacts>(
    rules: &[R],
    acap: &AcapRules,
    matched: &[usize],
    work: &mut Vec<usize>,
    out: &mut Vec<u32>,
) {
    for &u in Usage::ACAP {
        let (allowed, decision, _) = resolve_into(rules, acap, matched, u, work, None);
        let rule = match decision {
            Decision::Agreed(i) | Decision::Narrowest(i) => i as u32,
            Decision::Default | Decision::Undecidable(..) => NO_RULE,
        };
        out.push(outcome_word(allowed, rule));
    }
}

/// The usages allowed at a URL, from [`outcome`] words.
pub fn allowed_set(words: &[u32]) -> UsageSet {
    Usage::ACAP
        .iter()
        .zip(words)
        .filter(|(_, &w)| w & OUTCOME_ALLOWED != 0)
        .map(|(&u, _)| u)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{narrower, Scope};

    #[test]
    fn narrowest_scope_comparison_2_4_5() {
        assert_eq!(narrower(b"/a", b"/a/b"), Scope::Second, "ran out");
        assert_eq!(narrower(b"/a$", b"/a"), Scope::First, "ran out");
        assert_eq!(narrower(b"/a$", b"/a*"), Scope::Second, "$ against *");
        assert_eq!(narrower(b"/a*", b"/ab"), Scope::Second, "* against a");
        assert_eq!(narrower(b"/a*x", b"/a*y"), Scope::Undetermined);
        assert_eq!(narrower(b"/news/", b"/news/"), Scope::Equal);
        assert_eq!(narrower(b"*.gif", b"/a"), Scope::Second);
    }
}
