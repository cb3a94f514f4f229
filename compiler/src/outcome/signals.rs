//! The AI-usage preferences' resolution: the four channels (crawl, then
//! `search`, `train-ai`, `ai-input`) of an automaton state, from the rules
//! it matched, and the signal side of a rule set it reads
//! (docs/dialects.md, "AI-usage preferences"). The statements themselves
//! are read by [`crate::signals`].
//!
//! The lowering runs in set mode (a state keeps what it matched) and
//! [`outcome`] resolves the four channels of a state. [`Canon`] keeps the
//! states as small as rank pruning would: per family only what can still
//! decide.

use super::{Canonical, RuleFacts};
use robocc_engine::artifact::{outcome_word, NO_RULE, UNKNOWN_RULE};
use robocc_engine::Usage;

/// A channel's statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pref {
    /// Nothing stated.
    #[default]
    Unknown,
    /// Allowed (`y`, `yes`).
    Allow,
    /// Disallowed (`n`, `no`, a training token's Disallow).
    Disallow,
}

/// What a rule of a rule set with signals is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// An Allow/Disallow of the agent: decides crawl.
    Crawl,
    /// A Content-Usage line.
    ContentUsage,
    /// A Content-Signal line.
    ContentSignal,
    /// An Allow/Disallow of training token number `.0`.
    Training(u16),
}

/// The signal side of one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalRule {
    /// What the rule is.
    pub family: Family,
    /// Its statement per channel (search, train-ai, ai-input).
    pub prefs: [Pref; 3],
}

/// The signal side of a rule set: one entry per rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignalRules {
    /// One per rule of the rule set, in rule order.
    pub rules: Vec<SignalRule>,
    /// The training tokens compiled for.
    pub training_agents: Vec<String>,
}

/// The index of a preference channel in [`SignalRule::prefs`].
pub fn channel(usage: Usage) -> usize {
    debug_assert!(usage.is_signal());
    usage as usize - Usage::Search as usize
}

/// What a set-mode state must remember of the rules it matched, as rank
/// pruning would: the best crawl rule (longest match), the Content-Usage
/// lines of the longest matching path, every Content-Signal line, and each
/// training token's best rule.
pub struct Canon {
    family: Vec<Family>,
    rank: Vec<u32>,
    priority: Vec<u32>,
}

impl Canon {
    /// The families and ranks of the rules.
    pub fn new<R: RuleFacts>(rules: &[R], signals: &SignalRules) -> Canon {
        Canon {
            family: signals.rules.iter().map(|r| r.family).collect(),
            rank: rules.iter().map(RuleFacts::rank).collect(),
            priority: rules.iter().map(RuleFacts::priority).collect(),
        }
    }

    /// Does rule `a` beat rule `b` of the same ranked family (crawl or one
    /// token): higher rank, then the earlier rule.
    fn beats(&self, a: usize, b: usize) -> bool {
        self.rank[a] > self.rank[b] || (self.rank[a] == self.rank[b] && a < b)
    }
}

impl Canonical for Canon {
    fn matters(&self, r: usize, matched: &[usize]) -> bool {
        let f = self.family[r];
        let same = matched.iter().filter(|&&m| self.family[m] == f);
        match f {
            Family::ContentSignal => true,
            Family::ContentUsage => same
                .into_iter()
                .all(|&m| self.priority[m] <= self.priority[r]),
            Family::Crawl | Family::Training(_) => {
                same.into_iter().all(|&m| m == r || self.beats(r, m))
            }
        }
    }

    fn reduce(&self, matched: &mut Vec<usize>) {
        let all = matched.clone();
        matched.retain(|&r| {
            let f = self.family[r];
            let mut same = all.iter().filter(|&&m| m != r && self.family[m] == f);
            match f {
                Family::ContentSignal => true,
                Family::ContentUsage => same.all(|&m| self.priority[m] <= self.priority[r]),
                Family::Crawl | Family::Training(_) => same.all(|&m| self.beats(r, m)),
            }
        });
    }
}

/// The outcome words of a state that matched `matched` (sorted ids):
/// crawl, then search, train-ai, ai-input.
pub fn outcome<R: RuleFacts>(rules: &[R], signals: &SignalRules, matched: &[usize]) -> Vec<u32> {
    let mut words = Vec::with_capacity(4);
    outcome_into(rules, signals, matched, &mut words);
    words
}

/// [`outcome`] appended to `out`: no allocation once it has grown.
pub fn outcome_into<R: RuleFacts>(
    rules: &[R],
    signals: &SignalRules,
    matched: &[usize],
    out: &mut Vec<u32>,
) {
    let fam = |i: usize| signals.rules[i].family;
    let beats = |a: usize, b: usize| super::beats(rules, a, b);
    // Crawl: Google's longest match among the crawl rules.
    let mut crawl: Option<usize> = None;
    for &i in matched.iter().filter(|&&i| fam(i) == Family::Crawl) {
        if crawl.is_none_or(|b| beats(i, b)) {
            crawl = Some(i);
        }
    }
    let crawlable = crawl.is_none_or(|i| rules[i].allow());
    out.push(super::ranked_word(rules, crawl));
    // The statements of each source (Content-Usage, Content-Signal, the
    // training tokens), per channel: (pref, first rule).
    let mut sources = [[(Pref::Unknown, NO_RULE); 3]; 3];
    let mut n = 0;
    // Content-Usage: the lines of the longest matching path.
    let cu = || {
        matched
            .iter()
            .copied()
            .filter(|&i| fam(i) == Family::ContentUsage)
    };
    let longest = cu().map(|i| rules[i].priority()).max();
    let combine = |ids: &mut dyn Iterator<Item = usize>| {
        let mut out = [(Pref::Unknown, NO_RULE); 3];
        for i in ids {
            for (c, o) in out.iter_mut().enumerate() {
                let p = signals.rules[i].prefs[c];
                let stronger = matches!(
                    (o.0, p),
                    (Pref::Unknown, Pref::Allow | Pref::Disallow) | (Pref::Allow, Pref::Disallow)
                );
                if stronger {
                    *o = (p, i as u32);
                }
            }
        }
        out
    };
    if let Some(len) = longest {
        sources[n] = combine(&mut cu().filter(|&i| rules[i].priority() == len));
        n += 1;
    }
    sources[n] = combine(
        &mut matched
            .iter()
            .copied()
            .filter(|&i| fam(i) == Family::ContentSignal),
    );
    n += 1;
    // Training tokens: each token's longest match; of the tokens that
    // disallow, the lowest line is named.
    let mut token_disallow: Option<usize> = None;
    for t in 0..signals.training_agents.len() {
        let mut best: Option<usize> = None;
        for &i in matched
            .iter()
            .filter(|&&i| fam(i) == Family::Training(t as u16))
        {
            if best.is_none_or(|b| beats(i, b)) {
                best = Some(i);
            }
        }
        if let Some(b) = best.filter(|&b| !rules[b].allow()) {
            if token_disallow.is_none_or(|d| rules[b].line() < rules[d].line()) {
                token_disallow = Some(b);
            }
        }
    }
    if let Some(b) = token_disallow {
        sources[n][channel(Usage::TrainAi)] = (Pref::Disallow, b as u32);
    }
    n += 1;
    let sources = &sources[..n];
    for c in 0..3 {
        let first = |p: Pref| sources.iter().find(|s| s[c].0 == p).map(|s| s[c].1);
        let word = if !crawlable {
            outcome_word(false, UNKNOWN_RULE)
        } else if let Some(rule) = first(Pref::Disallow) {
            outcome_word(false, rule)
        } else if let Some(rule) = first(Pref::Allow) {
            outcome_word(true, rule)
        } else {
            outcome_word(false, UNKNOWN_RULE)
        };
        out.push(word);
    }
}
