//! What the rules an automaton state matched resolve to.
//!
//! A rule set is resolved one of three ways ([`Resolution`]): by rank (the
//! matching rule of highest rank decides, [`beats`] and [`ranked`]), by
//! acap's narrowest scope ([`acap`]) or into the AI-usage preference
//! channels ([`signals`]). The last two are *set mode*: a state keeps the
//! rules it matched, and [`Canonical`] says which of them still matter.
//! A fourth dimension, agents answered each separately ([`columns`]),
//! holds one of those per distinct rule set and is set mode too.
//!
//! A leaf: the algebra reads rules only through [`RuleFacts`] and depends on
//! no other module of the compiler, so the front ends that make the rules
//! and the lowering that calls the algebra both point here, and nothing
//! points back.

pub mod acap;
pub mod columns;
pub mod signals;

use robocc_engine::artifact::{outcome_word, NO_RULE};

/// Outcome when no rule matches: allowed, decided by no rule.
pub const DEFAULT_ALLOW: u32 = outcome_word(true, NO_RULE);

/// What the resolution reads of a rule (a rule set's rules implement it).
pub trait RuleFacts {
    /// Allow (true) or Disallow.
    fn allow(&self) -> bool;
    /// Match priority (the encoded pattern's length).
    fn priority(&self) -> u32;
    /// The dialect's rank: the matching rule of highest rank decides.
    fn rank(&self) -> u32;
    /// 1-based source line.
    fn line(&self) -> u32;
}

// A column of an each-agent rule set sees the shared rules through
// references, in its own order ([`columns`]).
impl<R: RuleFacts> RuleFacts for &R {
    fn allow(&self) -> bool {
        (**self).allow()
    }
    fn priority(&self) -> u32 {
        (**self).priority()
    }
    fn rank(&self) -> u32 {
        (**self).rank()
    }
    fn line(&self) -> u32 {
        (**self).line()
    }
}

/// How the conflicts of a rule set are resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Resolution {
    /// By rank: the matching rule of highest rank decides, the first on
    /// ties; one channel, crawl.
    #[default]
    Ranked,
    /// acap: every usage by narrowest scope (2.4.5), over the set of rules
    /// matched; the usage, tier and scope of every rule.
    Acap(acap::AcapRules),
    /// AI-usage preferences (rfc9309): crawl by rank among the crawl rules,
    /// the three preference channels from the statements; the family of
    /// every rule.
    Signals(signals::SignalRules),
    /// Each agent answered separately: one of the above per distinct rule
    /// set (column), over the column's own rule ids; an outcome is each
    /// column's words in turn.
    Columns(columns::ColumnRules),
}

impl Resolution {
    /// The acap side, if acap resolves.
    pub fn acap(&self) -> Option<&acap::AcapRules> {
        match self {
            Resolution::Acap(a) => Some(a),
            _ => None,
        }
    }

    /// The signal side, if the preference channels resolve.
    pub fn signals(&self) -> Option<&signals::SignalRules> {
        match self {
            Resolution::Signals(s) => Some(s),
            _ => None,
        }
    }

    /// Set mode: resolution is not by rank, so a state keeps the rules it
    /// matched (and rules cannot be split over automata combined by rank).
    pub fn by_sets(&self) -> bool {
        !matches!(self, Resolution::Ranked)
    }

    /// Set mode: which matched rules of `rules` still matter.
    pub fn canon<R: RuleFacts>(&self, rules: &[R]) -> Option<Box<dyn Canonical>> {
        match self {
            Resolution::Columns(c) => Some(Box::new(columns::Canon::new(rules, c))),
            one => one.column_canon(rules),
        }
    }

    /// [`Resolution::canon`] of one column's resolution (columns never
    /// nest: a column answers one agent).
    fn column_canon<R: RuleFacts>(&self, rules: &[R]) -> Option<Box<dyn Canonical>> {
        match self {
            Resolution::Ranked | Resolution::Columns(_) => None,
            Resolution::Acap(a) => Some(Box::new(acap::Canon::new(rules, a))),
            Resolution::Signals(s) => Some(Box::new(signals::Canon::new(rules, s))),
        }
    }

    /// The outcome (one word per channel) of a state whose matched rules
    /// are `matched` (sorted ids; set mode) and, by rank, whose best is
    /// `winner`.
    pub fn outcome<R: RuleFacts>(
        &self,
        rules: &[R],
        winner: Option<usize>,
        matched: &[usize],
    ) -> Vec<u32> {
        let mut out = Vec::new();
        self.outcome_into(rules, winner, matched, &mut Vec::new(), &mut out);
        out
    }

    /// [`Resolution::outcome`] written to `out` (cleared first), with
    /// `work` as the resolution's room (acap's competing rules): no
    /// allocation once both have grown, which a check needs (the
    /// [`Checker`](crate::Checker) keeps them per thread).
    pub fn outcome_into<R: RuleFacts>(
        &self,
        rules: &[R],
        winner: Option<usize>,
        matched: &[usize],
        work: &mut Vec<usize>,
        out: &mut Vec<u32>,
    ) {
        match self {
            Resolution::Columns(c) => columns::outcome_into(rules, c, matched, work, out),
            one => one.column_outcome_into(rules, winner, matched, work, out),
        }
    }

    /// [`Resolution::outcome_into`] of one column's resolution (columns
    /// never nest: a column answers one agent).
    fn column_outcome_into<R: RuleFacts>(
        &self,
        rules: &[R],
        winner: Option<usize>,
        matched: &[usize],
        work: &mut Vec<usize>,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        match self {
            Resolution::Ranked | Resolution::Columns(_) => out.push(ranked_word(rules, winner)),
            Resolution::Acap(a) => acap::outcome_into(rules, a, matched, work, out),
            Resolution::Signals(s) => signals::outcome_into(rules, s, matched, out),
        }
    }
}

/// Does rule `a` beat rule `b` (ids into `rules`)? The higher rank wins;
/// on equal ranks, the earlier rule.
pub fn beats<R: RuleFacts>(rules: &[R], a: usize, b: usize) -> bool {
    let (ra, rb) = (rules[a].rank(), rules[b].rank());
    ra > rb || (ra == rb && a < b)
}

/// The outcome (one word, crawl) when `winner` decides by rank.
pub fn ranked<R: RuleFacts>(rules: &[R], winner: Option<usize>) -> Vec<u32> {
    vec![ranked_word(rules, winner)]
}

/// The crawl word when `winner` decides by rank.
pub fn ranked_word<R: RuleFacts>(rules: &[R], winner: Option<usize>) -> u32 {
    match winner {
        None => DEFAULT_ALLOW,
        Some(i) => outcome_word(rules[i].allow(), i as u32),
    }
}

/// What a set-mode state keeps of the rules it matched for good: the
/// dialect's (or the signals') knowledge of which matched rules can still
/// change an outcome.
pub trait Canonical {
    /// Could matching rule `rule` still change an outcome, given the rules
    /// `matched` (sorted rule ids, already reduced)?
    fn matters(&self, rule: usize, matched: &[usize]) -> bool;
    /// Drops from `matched` (sorted rule ids) the rules that no longer
    /// matter.
    fn reduce(&self, matched: &mut Vec<usize>);
}
