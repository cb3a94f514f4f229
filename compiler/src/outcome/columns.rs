//! Each agent answered separately (`--each-agent`): the agent dimension of
//! the outcome words, beside the usage channels.
//!
//! Agents whose rule sets are identical share a *column* (most agents of a
//! file fall to the `*` group), so the automaton's states are the product
//! of the distinct rule sets only. The rule table is the union of the
//! columns' rules (a rule several columns hold is one entry); each column
//! keeps its own numbering of its rules and its own resolution over that
//! numbering, exactly as a one-agent compile of one of its agents has them,
//! so that ties between equal ranks break as they would alone. An outcome
//! is `channels` words per column, column after column; a column with
//! fewer channels (crawl only, where another column states AI-usage
//! preferences) is padded with unknown words, which answer as a policy
//! without those channels does.
//!
//! Lowering runs in set mode: a state keeps the rules it matched, reduced
//! per column to what can still decide ([`Canon`]).

use super::{beats, Canonical, Resolution, RuleFacts};
use robocc_engine::artifact::{
    outcome_word, NO_RULE, OUTCOME_ALLOWED, OUTCOME_RULE_MASK, UNKNOWN_RULE,
};

/// The rules of one column: one or more agents whose rule sets are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The column's rules in its own order (its rule ids), each the index
    /// of the same rule in the shared table.
    pub rules: Vec<usize>,
    /// How the column's rules resolve, over its own rule ids (never
    /// [`Resolution::Columns`]).
    pub resolution: Resolution,
    /// Words of this column's outcome (1, or the signal channels).
    pub channels: usize,
}

/// The columns of an each-agent rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnRules {
    /// The distinct rule sets, in the order of the first agent of each.
    pub columns: Vec<Column>,
    /// Words per column in an outcome: the widest column's channels.
    pub channels: usize,
}

/// An unknown word: nothing stated (pads a column without preference
/// channels).
const UNKNOWN: u32 = outcome_word(false, UNKNOWN_RULE);

/// No local id (the rule is not in the column).
const NONE: u32 = u32::MAX;

/// The rules of `column` as its own rule set sees them (its ids index this).
fn local<'r, R: RuleFacts>(rules: &'r [R], column: &Column) -> Vec<&'r R> {
    column.rules.iter().map(|&g| &rules[g]).collect()
}

/// Of the shared ids `matched` (sorted), those in the column, as its own
/// ids, sorted.
fn local_matched(to_local: &[u32], matched: &[usize], out: &mut Vec<usize>) {
    out.clear();
    out.extend(
        matched
            .iter()
            .map(|&g| to_local[g])
            .filter(|&l| l != NONE)
            .map(|l| l as usize),
    );
    out.sort_unstable();
}

/// Each column's map from shared ids to its own (or [`NONE`]).
fn to_local(columns: &ColumnRules, shared: usize) -> Vec<Vec<u32>> {
    columns
        .columns
        .iter()
        .map(|c| {
            let mut m = vec![NONE; shared];
            for (l, &g) in c.rules.iter().enumerate() {
                m[g] = l as u32;
            }
            m
        })
        .collect()
}

/// The best of `matched` (a column's own ids) by rank.
fn best<R: RuleFacts>(rules: &[R], matched: &[usize]) -> Option<usize> {
    matched
        .iter()
        .copied()
        .reduce(|b, m| if beats(rules, m, b) { m } else { b })
}

/// The outcome of a state that matched the shared rules `matched` (sorted):
/// each column's words, resolved over its own rules, rule ids made shared.
pub fn outcome_into<R: RuleFacts>(
    rules: &[R],
    columns: &ColumnRules,
    matched: &[usize],
    work: &mut Vec<usize>,
    out: &mut Vec<u32>,
) {
    out.clear();
    let maps = to_local(columns, rules.len());
    let (mut mine, mut words) = (Vec::new(), Vec::new());
    for (c, map) in columns.columns.iter().zip(&maps) {
        let own = local(rules, c);
        local_matched(map, matched, &mut mine);
        let winner = match c.resolution {
            Resolution::Ranked => best(&own, &mine),
            _ => None,
        };
        c.resolution
            .column_outcome_into(&own, winner, &mine, work, &mut words);
        push_column(&words, |l| c.rules[l], columns.channels, out);
    }
}

/// Appends a column's outcome `words` (its own rule ids, which `shared`
/// maps to the shared table's) as `channels` words of the shared outcome:
/// rule ids made shared, missing channels unknown.
pub fn push_column(
    words: &[u32],
    shared: impl Fn(usize) -> usize,
    channels: usize,
    out: &mut Vec<u32>,
) {
    for &w in words {
        let rule = w & OUTCOME_RULE_MASK;
        out.push(if rule == NO_RULE || rule == UNKNOWN_RULE {
            w
        } else {
            outcome_word(w & OUTCOME_ALLOWED != 0, shared(rule as usize) as u32)
        });
    }
    out.extend(std::iter::repeat_n(
        UNKNOWN,
        channels.saturating_sub(words.len()),
    ));
}

/// What a state keeps of the shared rules it matched: per column, what the
/// column's own resolution keeps (by rank: its best rule only).
pub struct Canon {
    columns: Vec<ColumnCanon>,
}

struct ColumnCanon {
    to_local: Vec<u32>,
    to_shared: Vec<usize>,
    /// Set mode: the column's own canon; `None`: by rank.
    inner: Option<Box<dyn Canonical>>,
    /// By rank: the ranks of the column's rules.
    rank: Vec<u32>,
}

impl ColumnCanon {
    /// Does the column's rule `a` beat its rule `b` (own ids)?
    fn beats(&self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.rank[a], self.rank[b]);
        ra > rb || (ra == rb && a < b)
    }

    fn matters(&self, rule: usize, mine: &[usize]) -> bool {
        match &self.inner {
            Some(c) => c.matters(rule, mine),
            None => mine.iter().all(|&m| m == rule || self.beats(rule, m)),
        }
    }

    fn reduce(&self, mine: &mut Vec<usize>) {
        match &self.inner {
            Some(c) => c.reduce(mine),
            None => {
                let b = mine
                    .iter()
                    .copied()
                    .reduce(|b, m| if self.beats(m, b) { m } else { b });
                mine.clear();
                mine.extend(b);
            }
        }
    }
}

impl Canon {
    /// The canon of `columns` over the shared `rules`.
    pub fn new<R: RuleFacts>(rules: &[R], columns: &ColumnRules) -> Canon {
        let maps = to_local(columns, rules.len());
        Canon {
            columns: columns
                .columns
                .iter()
                .zip(maps)
                .map(|(c, to_local)| {
                    let own = local(rules, c);
                    ColumnCanon {
                        to_local,
                        to_shared: c.rules.clone(),
                        inner: c.resolution.column_canon(&own),
                        rank: own.iter().map(|r| r.rank()).collect(),
                    }
                })
                .collect(),
        }
    }
}

impl Canonical for Canon {
    fn matters(&self, rule: usize, matched: &[usize]) -> bool {
        let mut mine = Vec::new();
        self.columns.iter().any(|c| {
            let l = c.to_local[rule];
            l != NONE && {
                local_matched(&c.to_local, matched, &mut mine);
                c.matters(l as usize, &mine)
            }
        })
    }

    fn reduce(&self, matched: &mut Vec<usize>) {
        let mut keep = Vec::new();
        let mut mine = Vec::new();
        for c in &self.columns {
            local_matched(&c.to_local, matched, &mut mine);
            c.reduce(&mut mine);
            keep.extend(mine.iter().map(|&l| c.to_shared[l]));
        }
        keep.sort_unstable();
        keep.dedup();
        *matched = keep;
    }
}
