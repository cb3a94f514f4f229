//! Determinisation: the byte classes of one automaton's patterns, and the
//! subset construction over them ([`build_one`]), which interns each state
//! ([`StateKey`]) by first appearance and resolves its outcome once.

use super::closure::{Patterns, StateKey, Thread, KIND_END, KIND_SET, KIND_STAR, NONE};
use super::layout::{finish, Register};
use super::minimise::{minimize, MINIMIZE_LIMIT};
use super::{Budget, BudgetExceeded, Ctx, FxHashMap, FxHashSet, Mode};
use crate::glob::{Atom, ByteSet};
use crate::outcome;
use robocc_engine::artifact::Automaton;
use std::io::Write as _;
use std::time::Instant;

/// Bytes that end the path in Google's reading of a URL.
fn is_end_byte(b: u8) -> bool {
    b == b'#' || b == 0
}

/// Byte equivalence classes of one automaton.
pub(super) struct Classes {
    /// Byte → class.
    pub(super) of: [u8; 256],
    /// Number of classes.
    pub(super) count: usize,
    /// A byte of each class (`None` for an empty "other" class).
    pub(super) representative: Vec<Option<u8>>,
}

/// Class 0: bytes no pattern distinguishes; class 1: the end bytes; then one
/// class per distinct signature — the patterns' byte sets a byte belongs to
/// (a literal byte is a one-byte set). Two bytes of a class are accepted by
/// exactly the same atoms, so the automaton can read classes.
const OTHER_CLASS: usize = 0;
pub(super) const END_CLASS: usize = 1;

fn byte_classes(bodies: &[&[Atom]]) -> Classes {
    let mut sets: Vec<ByteSet> = Vec::new();
    let mut seen = FxHashSet::default();
    for body in bodies {
        for &a in body.iter() {
            let set = match a {
                Atom::Byte(b) => {
                    let mut s = ByteSet::EMPTY;
                    s.insert(b);
                    s
                }
                Atom::Set(s) => s,
                Atom::Any | Atom::Star => continue,
            };
            if seen.insert(set) {
                sets.push(set);
            }
        }
    }
    let mut ids: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let mut of = [0u8; 256];
    let mut representative = vec![None, None];
    for b in 0..=255u8 {
        let class = if is_end_byte(b) {
            representative[END_CLASS] = Some(b);
            END_CLASS
        } else {
            let sig: Vec<u32> = (0..sets.len() as u32)
                .filter(|&k| sets[k as usize].contains(b))
                .collect();
            if sig.is_empty() {
                representative[OTHER_CLASS].get_or_insert(b);
                OTHER_CLASS
            } else {
                let next = representative.len();
                *ids.entry(sig).or_insert_with(|| {
                    representative.push(Some(b));
                    next
                })
            }
        };
        // At most 254 non-end bytes + 2 classes: every class fits in a u8.
        of[usize::from(b)] = class as u8;
    }
    Classes {
        of,
        count: representative.len(),
        representative,
    }
}

/// Buffers the subset construction reuses from state to state.
pub(super) struct Scratch {
    /// Threads at a `*`.
    stars: Vec<Thread>,
    /// Per class: the threads that step on it.
    by_class: Vec<Vec<Thread>>,
    /// Classes whose `by_class` entry is not empty.
    touched: Vec<usize>,
    /// [`Patterns::normalize`]'s closure.
    pub(super) closed: Vec<Thread>,
    /// Ranked mode: the star threads normalized alone.
    base: Vec<Thread>,
    /// [`Patterns::join_ranked`]'s threads of one pattern.
    group: Vec<Thread>,
}

impl Scratch {
    pub(super) fn new(nclasses: usize) -> Scratch {
        Scratch {
            stars: Vec::new(),
            by_class: vec![Vec::new(); nclasses],
            touched: Vec::new(),
            closed: Vec::new(),
            base: Vec::new(),
            group: Vec::new(),
        }
    }
}

impl Patterns<'_> {
    /// Fills `offset`, `pat` and `kind` (once the byte classes are known).
    pub(super) fn index_positions(&mut self, classes: &Classes) {
        self.offset.clear();
        self.kind.clear();
        self.pat.clear();
        for (i, body) in self.body.iter().enumerate() {
            self.offset.push(self.kind.len() as u32);
            self.kind.extend(body.iter().map(|&a| match a {
                Atom::Star => KIND_STAR,
                Atom::Byte(c) => u16::from(classes.of[usize::from(c)]),
                Atom::Any | Atom::Set(_) => KIND_SET,
            }));
            self.kind.push(KIND_END);
            self.pat.resize(self.kind.len(), i as u32);
        }
        // One past the last pattern's end.
        self.offset.push(self.kind.len() as u32);
    }

    /// The states reached from `key` on every class at once: a thread at a
    /// `*` goes to every class, a thread at byte `c` only to `c`'s class, a
    /// thread at a set to the classes inside it, so classes no thread names
    /// share one successor, computed once. Fills `named` with (class,
    /// successor) for the classes some thread names, in class order, and
    /// returns the shared successor if a class (the end class aside) needs
    /// it. The end class's successor is not computed: it ends the path.
    pub(super) fn successors(
        &self,
        key: &StateKey,
        classes: &Classes,
        scratch: &mut Scratch,
        named: &mut Vec<(usize, StateKey)>,
    ) -> Option<StateKey> {
        let Scratch {
            stars,
            by_class,
            touched,
            closed,
            base,
            group,
        } = scratch;
        stars.clear();
        named.clear();
        for &t in &key.threads {
            let step = t + 1;
            let mut push = |c: usize| {
                if by_class[c].is_empty() {
                    touched.push(c);
                }
                by_class[c].push(step);
            };
            match self.kind(t) {
                KIND_STAR => stars.push(t),
                KIND_END => {}
                KIND_SET => {
                    let atom = self.at(t).expect("a set or any byte");
                    for (c, &rep) in classes.representative.iter().enumerate() {
                        if rep.is_some_and(|r| atom.accepts(r)) {
                            push(c);
                        }
                    }
                }
                class => push(usize::from(class)),
            }
        }
        // Ranked mode: the star threads go to every successor; normalize
        // them once.
        let mut base_best = if self.mode == Mode::Register {
            NONE
        } else {
            key.best
        };
        if self.mode != Mode::Sets {
            base.clear();
            base.extend_from_slice(stars);
            self.normalize_ranked(base, &mut base_best, closed);
        }
        let mut make = |extra: &[Thread]| {
            if self.mode != Mode::Sets {
                if let Some(next) = self.join_ranked(base, base_best, extra, closed, group) {
                    return next;
                }
            }
            // Both are sorted: merge them (normalize is quicker on sorted
            // threads).
            let mut next = Vec::with_capacity(stars.len() + extra.len());
            let (mut a, mut b) = (0, 0);
            while a < stars.len() && b < extra.len() {
                if stars[a] <= extra[b] {
                    next.push(stars[a]);
                    a += 1;
                } else {
                    next.push(extra[b]);
                    b += 1;
                }
            }
            next.extend_from_slice(&stars[a..]);
            next.extend_from_slice(&extra[b..]);
            let mut best = if self.mode == Mode::Register {
                NONE
            } else {
                key.best
            };
            let mut matched = key.matched.clone();
            self.normalize(&mut next, &mut best, &mut matched, closed);
            StateKey {
                threads: next,
                best,
                matched,
            }
        };
        touched.sort_unstable();
        for &c in touched.iter() {
            if c != END_CLASS {
                named.push((c, make(&by_class[c])));
            }
            by_class[c].clear();
        }
        let live_named = named.len();
        touched.clear();
        // Live classes: all but the end class.
        (live_named < classes.count - 1).then(|| make(&[]))
    }
}

/// One automaton of the rules `ids` in `mode`, by subset construction
/// within `budget`: states are numbered by first appearance, each state's
/// outcome resolved once; then set-mode automata are minimised and the
/// automaton is written as a program ([`finish`]).
pub(super) fn build_one(
    ctx: &mut Ctx<'_>,
    ids: &[usize],
    budget: &Budget,
    mode: Mode,
) -> Result<Automaton, BudgetExceeded> {
    let started = Instant::now();
    let set = ctx.set;
    debug_assert_eq!(mode == Mode::Sets, set.resolution.by_sets());
    let mut pats = Patterns::new(set, ctx.simple, ids, mode);
    let classes = byte_classes(&pats.body);
    pats.index_positions(&classes);
    let (nclasses, end_class) = (classes.count, END_CLASS);

    let mut start = StateKey {
        threads: pats.offset[..pats.rule.len()].to_vec(),
        best: NONE,
        matched: Vec::new(),
    };
    let mut scratch = Scratch::new(nclasses);
    pats.normalize(
        &mut start.threads,
        &mut start.best,
        &mut start.matched,
        &mut scratch.closed,
    );

    let mut index: FxHashMap<StateKey, usize> = FxHashMap::default();
    let mut keys: Vec<StateKey> = vec![start.clone()];
    index.insert(start, 0);
    let mut succ: Vec<Vec<usize>> = Vec::new();
    let mut outcome: Vec<u32> = Vec::new();
    // Register automata: priority of each pattern (1 + its place in rank
    // order; 0 is no match), and each state's emit.
    let (prio, ranked) = if mode == Mode::Register {
        register_priorities(ctx, &pats)
    } else {
        (Vec::new(), Vec::new())
    };
    let priority = |p: Option<u32>| p.map_or(0, |p| prio[p as usize]);
    let mut emit: Vec<u32> = Vec::new();
    let mut dead: Vec<bool> = Vec::new();
    let mut threads_total = 0usize;
    let mut named = Vec::new();
    // Outcome id of each winning pattern (index `npatterns`: no winner).
    let mut winner_outcome = vec![u32::MAX; pats.rule.len() + 1];
    let mut i = 0;
    while i < keys.len() {
        if keys.len() > budget.max_states {
            note(
                ctx,
                format_args!(
                    "{} patterns FAIL {} states ({mode:?}, {nclasses} classes, {:?})",
                    pats.rule.len(),
                    keys.len(),
                    started.elapsed()
                ),
            );
            return Err(BudgetExceeded::States(budget.max_states));
        }
        if i % 256 == 0 && ctx.past_deadline() {
            return Err(BudgetExceeded::Time(ctx.budget.time));
        }
        // The index keeps its own copy of the key.
        let key = std::mem::take(&mut keys[i]);
        threads_total += key.threads.len() + key.matched.len();
        if threads_total > budget.max_threads {
            note(
                ctx,
                format_args!(
                    "{} patterns FAIL {threads_total} threads at {} states ({mode:?}, {nclasses} classes, {:?})",
                    pats.rule.len(),
                    keys.len(),
                    started.elapsed()
                ),
            );
            return Err(BudgetExceeded::Threads(budget.max_threads));
        }
        let mut row = vec![0usize; nclasses];
        if key.threads.is_empty() {
            // Nothing left to match: the state loops on itself.
            for (c, r) in row.iter_mut().enumerate() {
                if c != end_class {
                    *r = i;
                }
            }
        } else {
            let mut intern = |next: StateKey| {
                let n = keys.len();
                *index.entry(next).or_insert_with_key(|k| {
                    keys.push(k.clone());
                    n
                })
            };
            // Interned in class order, as states are numbered by first
            // appearance.
            let mut shared = pats.successors(&key, &classes, &mut scratch, &mut named);
            let mut shared_id = None;
            // Classes `from..to` (the end class aside) go to the shared
            // successor, interned where its first class comes.
            let mut fill_shared =
                |row: &mut [usize],
                 from: usize,
                 to: usize,
                 intern: &mut dyn FnMut(StateKey) -> usize| {
                    for (c, r) in row.iter_mut().enumerate().take(to).skip(from) {
                        if c != end_class {
                            *r = *shared_id.get_or_insert_with(|| {
                                intern(shared.take().expect("a class needs it"))
                            });
                        }
                    }
                };
            let mut from = 0;
            for (c, next) in named.drain(..) {
                fill_shared(&mut row, from, c, &mut intern);
                row[c] = intern(next);
                from = c + 1;
            }
            fill_shared(&mut row, from, nclasses, &mut intern);
        }
        match mode {
            Mode::Register => {
                outcome.push(priority(pats.winning_pattern(&key)));
                emit.push(priority((key.best != NONE).then_some(key.best)));
                dead.push(key.threads.is_empty());
            }
            Mode::Sets => {
                let matched = pats.matched_rules(&key);
                outcome.push(
                    ctx.table
                        .intern(set.resolution.outcome(&set.rules, None, &matched)),
                );
            }
            Mode::Plain => {
                let slot = pats.winning_pattern(&key).unwrap_or(pats.rule.len() as u32) as usize;
                if winner_outcome[slot] == u32::MAX {
                    let winner = pats.rule.get(slot).copied();
                    winner_outcome[slot] = ctx.table.intern(outcome::ranked(&set.rules, winner));
                }
                outcome.push(winner_outcome[slot]);
            }
        }
        succ.push(row);
        i += 1;
    }
    note(
        ctx,
        format_args!(
            "{} patterns -> {} states, {threads_total} threads ({mode:?}, {nclasses} classes, {:?})",
            pats.rule.len(),
            keys.len(),
            started.elapsed()
        ),
    );
    let outcomes = ctx.table.ids.len();
    // Set mode keeps every matched rule in its states, so states that
    // differ only in rules that no longer change any outcome abound:
    // merge states with the same outcome and the same future.
    let (succ, outcome) = if mode == Mode::Sets && succ.len() <= MINIMIZE_LIMIT {
        minimize(&succ, &outcome, end_class)
    } else {
        (succ, outcome)
    };
    let register = (mode == Mode::Register).then_some(Register { emit, dead, ranked });
    let mut a = finish(succ, outcome, classes.of, end_class, outcomes, register);
    // Set mode resolves by scope, not rank: no automaton may be skipped.
    if mode != Mode::Sets {
        a.max_rank = ids.iter().map(|&i| set.rules[i].rank).max().unwrap_or(0);
    }
    Ok(a)
}

/// Register automata: each pattern's priority (1 + its place in rank
/// order; 0 is no match) and, per priority, its outcome id.
fn register_priorities(ctx: &mut Ctx<'_>, pats: &Patterns<'_>) -> (Vec<u32>, Vec<u32>) {
    let mut prio = vec![0u32; pats.rule.len()];
    let mut ranked = Vec::new();
    let mut order: Vec<u32> = (0..pats.rule.len() as u32).collect();
    order.sort_by(|&a, &b| {
        if pats.beats(b, a) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    });
    ranked.push(0);
    for (k, &p) in order.iter().enumerate() {
        prio[p as usize] = k as u32 + 1;
        let rule = Some(pats.rule[p as usize]);
        ranked.push(ctx.table.intern(outcome::ranked(&ctx.set.rules, rule)));
    }
    (prio, ranked)
}

/// `ROBOCC_DEBUG_LOWER`: one line on stderr.
fn note(ctx: &Ctx<'_>, what: std::fmt::Arguments<'_>) {
    if ctx.debug {
        let _ = writeln!(std::io::stderr(), "lower: {what}");
    }
}

#[cfg(test)]
mod tests {
    use super::{byte_classes, END_CLASS, OTHER_CLASS};
    use crate::glob::Glob;
    use robocc_engine::artifact::PatternSyntax;
    use robocc_engine::UrlMode;

    #[test]
    fn classes_refine_sets() {
        let g = Glob::parse(b"/[a-c]b", PatternSyntax::Shell, UrlMode::Decode);
        let c = byte_classes(&[g.atoms.as_slice()]);
        // 'a' and 'c' are only in the set; 'b' is in the set and a literal.
        assert_eq!(c.of[usize::from(b'a')], c.of[usize::from(b'c')]);
        assert_ne!(c.of[usize::from(b'a')], c.of[usize::from(b'b')]);
        assert_eq!(usize::from(c.of[usize::from(b'z')]), OTHER_CLASS);
        assert_eq!(usize::from(c.of[usize::from(b'#')]), END_CLASS);
        assert_eq!(c.count, 5);
    }
}
