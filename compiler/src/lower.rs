//! Rules → automata whose states carry resolved outcomes.
//!
//! 1. Each rule pattern becomes a regex over bytes that must match the whole
//!    path: `*` is `.*`, a final `$` anchors, and a pattern without `$` gets a
//!    trailing `.*` (it is a prefix).
//! 2. regex-automata builds one anchored, multi-pattern DFA with
//!    `MatchKind::All`, so the patterns matching a path are exactly the match
//!    set of the state reached after the path and the end-of-input transition.
//! 3. We walk that DFA and write our own table: for every state, the dialect's
//!    resolution of that match set becomes the state's outcome (interned in a
//!    shared outcome table), so the engine only looks it up.
//! 4. States from which every reachable state has the same outcome are
//!    "decided"; they are numbered last so the engine stops at the first one.
//!    `#` and NUL (which end a path in Google's reading) get a class of their
//!    own that leads to a decided state with the current state's outcome.
//!
//! When the DFA of all rules is over budget, the rules are split in halves
//! until each part fits, and the engine combines the parts' outcomes by rank
//! (the fallback path, recorded in the artifact's header).

use crate::dialect::{resolve, Dialect};
use crate::ruleset::RuleSet;
use regex_automata::dfa::{dense, Automaton as _, StartKind};
use regex_automata::nfa::thompson;
use regex_automata::util::{primitives::StateID, start, syntax};
use regex_automata::{Anchored, MatchKind};
use robocc_engine::artifact::{Automaton, ChannelOutcome};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Limits on what lowering may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Size limit of one regex-automata DFA, in bytes.
    pub dfa_bytes: usize,
    /// Memory regex-automata may use while determinizing one DFA, in bytes.
    pub determinize_bytes: usize,
    /// Total transition-table bytes over all automata of a policy.
    pub total_bytes: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            dfa_bytes: 16 << 20,
            determinize_bytes: 32 << 20,
            total_bytes: 256 << 20,
        }
    }
}

/// The lowering's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// The automata (one unless split).
    pub automata: Vec<Automaton>,
    /// Outcome table, `channels` entries per outcome id; id 0 is "no match".
    pub outcomes: Vec<ChannelOutcome>,
    /// How the rules were lowered, for the header and diagnostics.
    pub build: String,
}

/// Lowering failed within the budget even one rule at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError(pub String);

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Interns per-state outcomes so that equal outcomes share an id.
struct OutcomeTable {
    ids: HashMap<Vec<ChannelOutcome>, u32>,
    flat: Vec<ChannelOutcome>,
}

impl OutcomeTable {
    fn intern(&mut self, o: Vec<ChannelOutcome>) -> u32 {
        if let Some(&id) = self.ids.get(&o) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.flat.extend_from_slice(&o);
        self.ids.insert(o, id);
        id
    }
}

/// Lowers `set` under `dialect`.
pub fn lower(set: &RuleSet, dialect: Dialect, budget: &Budget) -> Result<Lowered, LowerError> {
    let mut table = OutcomeTable {
        ids: HashMap::new(),
        flat: Vec::new(),
    };
    // Outcome 0 is the outcome of matching nothing.
    table.intern(resolve(dialect, &set.rules, &[]));
    let all: Vec<usize> = (0..set.rules.len()).collect();
    let mut automata = Vec::new();
    let mut spent = 0usize;
    let mut reasons = Vec::new();
    build_split(
        set,
        dialect,
        budget,
        &all,
        &mut table,
        &mut automata,
        &mut spent,
        &mut reasons,
    )?;
    let build = if automata.len() == 1 {
        "dfa".to_string()
    } else {
        format!(
            "split-dfa ({} automata; the single DFA was over budget: {})",
            automata.len(),
            reasons.first().map_or("", String::as_str)
        )
    };
    Ok(Lowered {
        automata,
        outcomes: table.flat,
        build,
    })
}

#[allow(clippy::too_many_arguments)]
fn build_split(
    set: &RuleSet,
    dialect: Dialect,
    budget: &Budget,
    ids: &[usize],
    table: &mut OutcomeTable,
    out: &mut Vec<Automaton>,
    spent: &mut usize,
    reasons: &mut Vec<String>,
) -> Result<(), LowerError> {
    match build_one(set, dialect, budget, ids, table) {
        Ok(a) => {
            *spent += a.trans.len() * 4;
            if *spent > budget.total_bytes {
                return Err(LowerError(format!(
                    "automata need more than the {} byte budget in total",
                    budget.total_bytes
                )));
            }
            out.push(a);
            Ok(())
        }
        Err(e) if ids.len() > 1 => {
            reasons.push(e);
            let (a, b) = ids.split_at(ids.len() / 2);
            build_split(set, dialect, budget, a, table, out, spent, reasons)?;
            build_split(set, dialect, budget, b, table, out, spent, reasons)
        }
        Err(e) => Err(LowerError(format!(
            "rule {} (line {}) alone is over the automaton budget: {e}",
            ids[0], set.rules[ids[0]].line
        ))),
    }
}

/// The regex for one pattern, matching whole paths.
pub fn pattern_regex(pattern: &[u8]) -> String {
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', head)) => (head, true),
        _ => (pattern, false),
    };
    let mut re = String::with_capacity(body.len() * 2 + 4);
    let mut last_star = false;
    for &b in body {
        if b == b'*' {
            // `**` is `*`: fewer NFA states, same language.
            if !last_star {
                re.push_str(".*");
            }
            last_star = true;
            continue;
        }
        last_star = false;
        if b.is_ascii_alphanumeric() || b == b'/' {
            re.push(char::from(b));
        } else {
            let _ = write!(re, r"\x{b:02X}");
        }
    }
    if !anchored && !last_star {
        re.push_str(".*");
    }
    re
}

/// Bytes that end the path in Google's reading of a URL.
fn is_end_byte(b: u8) -> bool {
    b == b'#' || b == 0
}

fn build_one(
    set: &RuleSet,
    dialect: Dialect,
    budget: &Budget,
    ids: &[usize],
    table: &mut OutcomeTable,
) -> Result<Automaton, String> {
    let patterns: Vec<String> = ids
        .iter()
        .map(|&i| pattern_regex(&set.rules[i].pattern))
        .collect();
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                .byte_classes(true)
                .minimize(false)
                .dfa_size_limit(Some(budget.dfa_bytes))
                .determinize_size_limit(Some(budget.determinize_bytes)),
        )
        .syntax(
            syntax::Config::new()
                .unicode(false)
                .utf8(false)
                .dot_matches_new_line(true),
        )
        .thompson(thompson::Config::new().utf8(false).shrink(false))
        .build_many(&patterns)
        .map_err(|e| e.to_string())?;

    // Our byte classes: regex-automata's, with the end bytes split off.
    let ra = dfa.byte_classes();
    let mut class_of = [0u8; 256];
    let mut keys: Vec<u16> = Vec::new();
    let mut reps: Vec<u8> = Vec::new();
    for b in 0..=255u8 {
        let key = if is_end_byte(b) {
            u16::MAX
        } else {
            u16::from(ra.get(b))
        };
        let id = match keys.iter().position(|&k| k == key) {
            Some(id) => id,
            None => {
                keys.push(key);
                reps.push(b);
                keys.len() - 1
            }
        };
        class_of[usize::from(b)] = id as u8;
    }
    let end_class = keys
        .iter()
        .position(|&k| k == u16::MAX)
        .expect("NUL is an end byte");
    let nclasses = keys.len();

    // Walk the DFA breadth-first from its anchored start state.
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::Yes))
        .map_err(|e| e.to_string())?;
    let mut index: HashMap<StateID, usize> = HashMap::new();
    let mut order: Vec<StateID> = vec![start];
    index.insert(start, 0);
    let mut succ: Vec<Vec<usize>> = Vec::new();
    let mut outcome: Vec<u32> = Vec::new();
    let mut matched: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let sid = order[i];
        let mut row = vec![0usize; nclasses];
        for (c, &rep) in reps.iter().enumerate() {
            if c == end_class {
                continue;
            }
            let t = dfa.next_state(sid, rep);
            let n = order.len();
            row[c] = *index.entry(t).or_insert_with(|| {
                order.push(t);
                n
            });
        }
        let eoi = dfa.next_eoi_state(sid);
        matched.clear();
        if dfa.is_match_state(eoi) {
            for k in 0..dfa.match_len(eoi) {
                matched.push(ids[dfa.match_pattern(eoi, k).as_usize()]);
            }
            matched.sort_unstable();
        }
        outcome.push(table.intern(resolve(dialect, &set.rules, &matched)));
        succ.push(row);
        i += 1;
    }
    Ok(finish(succ, outcome, class_of, end_class))
}

/// Marks decided states, adds end-byte sinks, orders and premultiplies.
fn finish(
    mut succ: Vec<Vec<usize>>,
    mut outcome: Vec<u32>,
    class_of: [u8; 256],
    end_class: usize,
) -> Automaton {
    let n = succ.len();
    let nclasses = class_of.iter().map(|&c| usize::from(c)).max().unwrap_or(0) + 1;
    // A state is undecided when some reachable state has another outcome:
    // seed with states that have such a successor, propagate backwards.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut undecided = vec![false; n];
    let mut queue = Vec::new();
    for s in 0..n {
        for (c, &t) in succ[s].iter().enumerate() {
            if c == end_class {
                continue;
            }
            preds[t].push(s);
            if outcome[t] != outcome[s] && !undecided[s] {
                undecided[s] = true;
                queue.push(s);
            }
        }
    }
    while let Some(t) = queue.pop() {
        for &p in &preds[t] {
            if !undecided[p] {
                undecided[p] = true;
                queue.push(p);
            }
        }
    }
    // End bytes: a decided state stays put; an undecided one goes to a sink
    // that keeps its current outcome.
    let mut sinks: HashMap<u32, usize> = HashMap::new();
    for s in 0..n {
        let target = if undecided[s] {
            let o = outcome[s];
            *sinks.entry(o).or_insert_with(|| {
                let id = succ.len();
                succ.push(vec![id; nclasses]);
                outcome.push(o);
                undecided.push(false);
                id
            })
        } else {
            s
        };
        succ[s][end_class] = target;
    }
    // Undecided states first, so "decided" is one comparison in the engine.
    let total = succ.len();
    let mut new_id = vec![0usize; total];
    let mut next = 0;
    for pass_undecided in [true, false] {
        for s in 0..total {
            if undecided[s] == pass_undecided {
                new_id[s] = next;
                next += 1;
            }
        }
    }
    let first_decided = undecided.iter().filter(|&&u| u).count();
    let stride = nclasses + 1;
    let mut trans = vec![0u32; total * stride];
    for s in 0..total {
        let base = new_id[s] * stride;
        for c in 0..nclasses {
            trans[base + c] = (new_id[succ[s][c]] * stride) as u32;
        }
        trans[base + nclasses] = outcome[s];
    }
    Automaton {
        classes: class_of.to_vec(),
        stride: stride as u32,
        trans,
        start: (new_id[0] * stride) as u32,
        first_decided: (first_decided * stride) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::pattern_regex;

    #[test]
    fn regexes() {
        assert_eq!(pattern_regex(b"/a"), "/a.*");
        assert_eq!(pattern_regex(b"/a$"), "/a");
        assert_eq!(pattern_regex(b"/*.php$"), r"/.*\x2Ephp");
        assert_eq!(pattern_regex(b"/a**b*"), "/a.*b.*");
        assert_eq!(pattern_regex(b"/a$b"), r"/a\x24b.*");
    }
}
