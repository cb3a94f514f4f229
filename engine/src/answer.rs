//! From outcome words to answers: how a policy's channels answer usages.
//!
//! An outcome is one word per channel (crawl first; an `acap` policy has
//! one channel per usage type, the others crawl or crawl and the three
//! AI-usage preference channels). This module is the one home of how those
//! words become verdicts, so that every path that answers — [`Policy`]
//! reading its artifact, and the compiler's `Checker`, which answers from
//! the rules before it has an artifact — answers alike.
//!
//! [`Policy`]: crate::Policy

use crate::artifact::{NO_RULE, OUTCOME_ALLOWED, OUTCOME_RULE_MASK, UNKNOWN_RULE};
use crate::ids::{ChannelId, RuleId};
use crate::types::{Usage, UsageSet, UsageStates};

/// The answer to one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// May the URL be fetched (used, for other channels)?
    pub allowed: bool,
    /// The deciding rule (see [`Policy::rule`](crate::Policy::rule)); `None` when no rule
    /// matched and the default applies.
    pub rule: Option<RuleId>,
}

/// Outcome when no rule matches: allowed, decided by no rule.
pub(crate) const DEFAULT_ALLOW: u32 = OUTCOME_ALLOWED | NO_RULE;

/// The verdict an outcome word gives (an unknown preference is allowed by
/// default, decided by no rule).
#[inline(always)]
pub fn verdict(word: u32) -> Verdict {
    let rule = word & OUTCOME_RULE_MASK;
    if rule == UNKNOWN_RULE {
        // An AI-usage preference nothing stated: allowed by default.
        return verdict(DEFAULT_ALLOW);
    }
    Verdict {
        allowed: word & OUTCOME_ALLOWED != 0,
        rule: (rule != NO_RULE).then_some(RuleId::new(rule)),
    }
}

/// Did something in the file state this word's answer? (Not so for a
/// preference channel nothing spoke of.)
#[inline]
pub fn stated(word: u32) -> bool {
    word & OUTCOME_RULE_MASK != UNKNOWN_RULE
}

/// The channel that answers `usage` in a policy of `channels` channels
/// (`acap`: an `acap` policy, one channel per usage type), if it has one.
#[inline]
pub fn channel_of(acap: bool, channels: usize, usage: Usage) -> Option<ChannelId> {
    let c = match usage {
        Usage::Crawl => 0,
        // Validation: an acap policy has one channel per usage type.
        u if acap && !u.is_signal() => u as u32,
        // Validation: the others have crawl, or crawl and the three
        // signal channels in `Usage::SIGNALS` order.
        u if !acap && u.is_signal() && channels == Usage::SIGNAL_CHANNELS.len() => {
            1 + (u as u32 - Usage::Search as u32)
        }
        _ => return None,
    };
    Some(ChannelId::new(c))
}

/// The verdict on `usage`: its channel's word (`word(channel)`), or allowed
/// by default when the policy has no channel for it (nothing prohibits it).
#[inline]
pub fn usage_verdict(
    acap: bool,
    channels: usize,
    usage: Usage,
    word: impl FnOnce(ChannelId) -> u32,
) -> Verdict {
    match channel_of(acap, channels, usage) {
        Some(c) => verdict(word(c)),
        None => verdict(DEFAULT_ALLOW),
    }
}

/// The tri-state answer on `usage`: `None` when nothing stated a
/// preference (or the policy has no channel for it); crawl, and acap's
/// usage types, are always decided.
#[inline]
pub fn preference(
    acap: bool,
    channels: usize,
    usage: Usage,
    word: impl FnOnce(ChannelId) -> u32,
) -> Option<Verdict> {
    match channel_of(acap, channels, usage)? {
        ChannelId::CRAWL => Some(verdict(word(ChannelId::CRAWL))),
        c => {
            let w = word(c);
            stated(w).then(|| verdict(w))
        }
    }
}

/// Every usage's tri-state answer from one outcome's words, in channel
/// order (crawl first).
pub fn usage_states(acap: bool, words: impl Iterator<Item = u32>) -> UsageStates {
    let (mut allowed, mut disallowed) = (0u32, 0u32);
    for (c, w) in words.enumerate() {
        let usage = if acap || c == 0 {
            c
        } else {
            Usage::Search as usize + c - 1
        };
        if !stated(w) && c != 0 {
            continue;
        }
        if w & OUTCOME_ALLOWED != 0 {
            allowed |= 1 << usage;
        } else {
            disallowed |= 1 << usage;
        }
    }
    UsageStates {
        allowed: UsageSet::from_bits(allowed),
        disallowed: UsageSet::from_bits(disallowed),
    }
}

/// The answer of a policy that reads crawl only (no outcome row for the
/// other channels: several automata): crawl allowed or not.
pub(crate) fn crawl_only(crawl: bool) -> UsageStates {
    let bit = 1u32 << (Usage::Crawl as u8);
    UsageStates {
        allowed: UsageSet::from_bits(if crawl { bit } else { 0 }),
        disallowed: UsageSet::from_bits(if crawl { 0 } else { bit }),
    }
}
