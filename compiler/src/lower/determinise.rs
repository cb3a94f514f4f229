//! Determinisation: the byte classes of one automaton's patterns, and the
//! subset construction over them ([`build_one`]), which interns each state
//! ([`States`]) by first appearance and resolves its outcome once.

use super::buffers::Buffers;
use super::closure::{BaseIndex, Patterns, Thread, KIND_END, KIND_SET, KIND_STAR, NONE};
use super::layout::{emit, plan, program_len, runs_of, Register, Succ};
use super::minimise::{minimize, MINIMIZE_LIMIT};
use super::states::{rest_hash, symmetric_difference, threads_hash, States};
use super::{Budget, BudgetExceeded, Ctx, FxHashMap, FxHashSet, Mode};
use crate::clock::Instant;
use crate::glob::{Atom, ByteSet};
use robocc_engine::artifact::Automaton;
use std::io::Write as _;

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
    // A literal byte is a one-byte set of its own (marked in `literal`);
    // the other sets are kept once each. The classes are the same whatever
    // the order of the sets: two bytes are in the same class when they are
    // in the same sets.
    let mut literal = [false; 256];
    let mut sets: Vec<ByteSet> = Vec::new();
    let mut seen = FxHashSet::default();
    for body in bodies {
        for &a in body.iter() {
            match a {
                Atom::Byte(b) => literal[usize::from(b)] = true,
                Atom::Set(set) => {
                    if seen.insert(set) {
                        sets.push(set);
                    }
                }
                Atom::Any | Atom::Star => {}
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
        } else if literal[usize::from(b)] {
            // Its own set makes it a class alone, whatever other sets it
            // is in.
            representative.push(Some(b));
            representative.len() - 1
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
#[derive(Default)]
pub(super) struct Scratch {
    /// Threads at a `*`.
    stars: Vec<Thread>,
    /// Per class: the threads that step on it.
    by_class: Vec<Vec<Thread>>,
    /// Classes whose `by_class` entry is not empty.
    touched: Vec<usize>,
    /// [`Patterns::normalize`]'s closure.
    pub(super) closed: Vec<Thread>,
    /// The base of the state whose successors are made (a copy: bases are
    /// interned meanwhile), its best, and its id.
    base: Vec<Thread>,
    base_best: u32,
    base_id: u32,
    /// Whether `base` holds base `base_id`'s threads.
    base_loaded: bool,
    /// Where each pattern's threads are in the base `indexed`.
    index: BaseIndex,
    indexed: Option<u32>,
    /// [`Patterns::join_ranked`]'s threads of one pattern.
    group: Vec<Thread>,
    /// The successor being made: its threads beyond its base and (set
    /// mode) its matched patterns.
    next: Vec<Thread>,
    next_matched: Vec<u32>,
    /// A successor's threads, whole, when it has another base.
    whole: Vec<Thread>,
    /// The state whose successors are made: its threads, whole, and its
    /// matched patterns.
    own: Vec<Thread>,
    own_matched: Vec<u32>,
    /// The classes of a row that do not go where its base's row goes, and
    /// where they go.
    patches: Vec<(u8, u32)>,
    /// Room for a row, whole.
    row: Vec<u32>,
}

impl Scratch {
    /// Ready for a construction of `nclasses` classes and `npatterns`
    /// patterns, the storage kept.
    pub(super) fn reset(&mut self, nclasses: usize, npatterns: usize) {
        self.by_class.truncate(nclasses);
        for list in &mut self.by_class {
            list.clear();
        }
        self.by_class.resize_with(nclasses, Vec::new);
        self.touched.clear();
        self.base_best = NONE;
        self.base_id = 0;
        self.base_loaded = false;
        self.index.reset(npatterns);
        self.indexed = None;
        // The others are cleared where they are filled.
    }
}

/// The bases of one construction's states (see [`States`]): the star
/// threads of a state normalized alone with its best (ranked mode; a
/// register automaton's with none), interned by stars and best. Set mode
/// has one base, empty.
#[derive(Default)]
pub(super) struct Bases {
    /// The stars and the best of each base.
    keys: States,
    /// Each base's threads (`at[i]..at[i + 1]`), and its best after
    /// normalizing.
    threads: Vec<Thread>,
    at: Vec<usize>,
    best: Vec<u32>,
    /// Each base's threads at the end of a pattern with `$`
    /// (`ends[end_at[i]..end_at[i + 1]]`).
    ends: Vec<Thread>,
    end_at: Vec<usize>,
    /// Ranked mode: what each base's threads read, and its successors,
    /// once a state of it has been expanded.
    steps: Vec<Option<Box<BaseSteps>>>,
    /// Those of earlier constructions, to fill again (boxed as `steps`
    /// holds them: they move between the two without a new allocation).
    #[allow(clippy::vec_box)]
    spare: Vec<Box<BaseSteps>>,
}

/// What the threads of a base read on each class, advanced (as
/// [`Patterns::distribute`] makes them), and the successors made from those
/// alone, per class and (last) for the classes none of them reads.
pub(super) struct BaseSteps {
    /// `steps[at[c]..at[c + 1]]`: class `c`'s.
    at: Vec<u32>,
    steps: Vec<Thread>,
    /// Per class and one more: the successor, or `u32::MAX` until made.
    memo: Vec<u32>,
    /// The memo entries a row needs (each live class's, or the shared
    /// one) still to make; once none, `row` is the row of a state with no
    /// thread beyond the base, as runs ([`Succ`]).
    missing: usize,
    row: (Vec<u32>, Vec<u8>),
}

impl BaseSteps {
    /// Fills `into` (a spare one, or a new one) for `base`.
    fn fill(
        into: Option<Box<BaseSteps>>,
        pats: &Patterns<'_>,
        base: &[Thread],
        classes: &Classes,
        s: &mut Scratch,
    ) -> Box<BaseSteps> {
        let mut b = into.unwrap_or_else(|| {
            Box::new(BaseSteps {
                at: Vec::new(),
                steps: Vec::new(),
                memo: Vec::new(),
                missing: 0,
                row: (Vec::new(), Vec::new()),
            })
        });
        let mut stars = std::mem::take(&mut s.stars);
        stars.clear();
        pats.distribute(base, classes, &mut s.by_class, &mut s.touched, &mut stars);
        s.stars = stars;
        s.touched.clear();
        let (at, steps) = (&mut b.at, &mut b.steps);
        at.clear();
        steps.clear();
        at.push(0);
        for list in &mut s.by_class[..classes.count] {
            steps.extend_from_slice(list);
            list.clear();
            at.push(steps.len() as u32);
        }
        let live = (0..classes.count).filter(|&c| c != END_CLASS);
        let read = live.clone().filter(|&c| at[c] != at[c + 1]).count();
        b.missing = read + usize::from(read < live.count());
        b.memo.clear();
        b.memo.resize(classes.count + 1, u32::MAX);
        b.row.0.clear();
        b.row.1.clear();
        b
    }

    /// Records the successor `id` on class `c` (`classes`: the shared
    /// one) of the base alone.
    fn remember(&mut self, c: usize, id: u32, classes: usize) {
        debug_assert_eq!(self.memo[c], u32::MAX);
        self.memo[c] = id;
        // The shared successor is one a row needs only if the base leaves
        // a live class unread.
        let needed =
            c < classes || (0..classes).any(|k| k != END_CLASS && self.at[k] == self.at[k + 1]);
        if !needed {
            return;
        }
        self.missing -= 1;
        if self.missing == 0 {
            let row: Vec<u32> = (0..classes)
                .map(|c| match self.at[c] == self.at[c + 1] {
                    true => self.memo[classes],
                    false => self.memo[c],
                })
                .collect();
            runs_of(&row, &mut self.row.0, &mut self.row.1);
        }
    }

    /// What the base's threads read on class `c`, advanced.
    #[inline]
    fn on(&self, c: usize) -> &[Thread] {
        &self.steps[self.at[c] as usize..self.at[c + 1] as usize]
    }
}

impl Bases {
    /// No base, the storage kept.
    pub(super) fn reset(&mut self) {
        self.keys.reset();
        self.threads.clear();
        self.at.clear();
        self.at.push(0);
        self.best.clear();
        self.ends.clear();
        self.end_at.clear();
        self.end_at.push(0);
        self.spare.extend(self.steps.drain(..).flatten());
    }

    /// Bytes held (for the pool's limit).
    pub(super) fn capacity_bytes(&self) -> usize {
        let steps = |b: &BaseSteps| {
            4 * (b.at.capacity() + b.steps.capacity() + b.memo.capacity() + b.row.0.capacity())
                + b.row.1.capacity()
        };
        self.keys.capacity_bytes()
            + 4 * (self.threads.capacity() + self.best.capacity() + self.ends.capacity())
            + 8 * (self.at.capacity() + self.end_at.capacity() + self.steps.capacity())
            + self.spare.iter().map(|b| steps(b)).sum::<usize>()
    }

    /// The id of the base of the star threads `stars` and the best `key`
    /// (`NONE` in a register automaton).
    fn intern(
        &mut self,
        pats: &Patterns<'_>,
        stars: &[Thread],
        key: u32,
        closed: &mut Vec<Thread>,
    ) -> u32 {
        let h = rest_hash(0, key, &[]).wrapping_add(threads_hash(stars));
        let id = self.keys.intern(stars, 0, key, &[], h, 0);
        if id == self.best.len() {
            let mut threads = stars.to_vec();
            let mut best = key;
            if pats.mode != Mode::Sets {
                pats.normalize_ranked(&mut threads, &mut best, closed);
            }
            self.threads.extend_from_slice(&threads);
            self.at.push(self.threads.len());
            self.best.push(best);
            self.ends.extend(
                threads
                    .iter()
                    .filter(|&&t| pats.kind(t) == KIND_END && pats.dollar[pats.pat(t) as usize]),
            );
            self.end_at.push(self.ends.len());
            self.steps.push(None);
        }
        id as u32
    }

    fn threads(&self, id: u32) -> &[Thread] {
        &self.threads[self.at[id as usize]..self.at[id as usize + 1]]
    }

    fn ends(&self, id: u32) -> &[Thread] {
        &self.ends[self.end_at[id as usize]..self.end_at[id as usize + 1]]
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

    /// Interns the state of `threads` (whole, normalized), `best` and
    /// `matched`, keeping it as its base and the threads beyond it.
    fn intern_whole(
        &self,
        states: &mut States,
        bases: &mut Bases,
        s: &mut Scratch,
        best: u32,
    ) -> u32 {
        let base = if self.mode == Mode::Sets {
            0
        } else {
            s.stars.clear();
            s.stars
                .extend(s.whole.iter().filter(|&&t| self.kind(t) == KIND_STAR));
            let key = if self.mode == Mode::Register {
                NONE
            } else {
                best
            };
            bases.intern(self, &s.stars, key, &mut s.closed)
        };
        symmetric_difference(&s.whole, bases.threads(base), &mut s.next);
        let h = rest_hash(base, best, &s.next_matched).wrapping_add(threads_hash(&s.next));
        let live = s.whole.len();
        states.intern(&s.next, base, best, &s.next_matched, h, live) as u32
    }

    /// Loads state `i` into `s` (its base; in set mode its threads, whole,
    /// and its matched patterns) and returns its number of threads and its
    /// winning pattern if the path ends there. In ranked mode the state's
    /// threads are not made whole: it has those of its base and those
    /// beyond it (`diff`) but for those in both.
    pub(super) fn load(
        &self,
        states: &States,
        bases: &Bases,
        i: usize,
        s: &mut Scratch,
    ) -> (usize, Option<u32>) {
        let base = states.base(i);
        if !s.base_loaded || s.base_id != base {
            s.base_id = base;
            s.base.clear();
            s.base.extend_from_slice(bases.threads(base));
            s.base_best = bases.best[base as usize];
            s.base_loaded = true;
        }
        let diff = states.threads(i);
        let best = states.best(i);
        if self.mode == Mode::Sets {
            symmetric_difference(&s.base, diff, &mut s.own);
            s.own_matched.clear();
            s.own_matched.extend_from_slice(states.matched(i));
            return (s.own.len(), self.winning_pattern(&s.own, best));
        }
        let in_base = |t: Thread| s.base.binary_search(&t).is_ok();
        let live = states.live(i);
        debug_assert_eq!(
            live,
            s.base.len() + diff.len() - 2 * diff.iter().filter(|&&t| in_base(t)).count()
        );
        // The threads at the end of a `$` pattern: the base's not in
        // `diff`, and those of `diff` not in the base.
        let mut winner = best;
        let ends = bases
            .ends(base)
            .iter()
            .filter(|&t| diff.binary_search(t).is_err())
            .chain(diff.iter().filter(|&&t| {
                self.kind(t) == KIND_END && self.dollar[self.pat(t) as usize] && !in_base(t)
            }));
        for &t in ends {
            let p = self.pat(t);
            if self.beats(p, winner) {
                winner = p;
            }
        }
        (live, (winner != NONE).then_some(winner))
    }

    /// The successor of the loaded state (best `key_best`) whose threads
    /// are its star threads (`stars`) and `extra`, interned.
    fn make(
        &self,
        states: &mut States,
        bases: &mut Bases,
        key_best: u32,
        stars: &[Thread],
        extra: &[Thread],
        s: &mut Scratch,
    ) -> u32 {
        if self.mode != Mode::Sets {
            if s.indexed != Some(s.base_id) {
                s.index.build(self, &s.base);
                s.indexed = Some(s.base_id);
            }
            if let Some((best, h)) = self.join_diff(
                &s.base,
                &s.index,
                s.base_best,
                key_best,
                extra,
                &mut s.closed,
                &mut s.next,
            ) {
                let h = h.wrapping_add(rest_hash(s.base_id, best, &[]));
                // What `join_diff` adds is beyond the base, which it keeps.
                let live = s.base.len() + s.next.len();
                return states.intern(&s.next, s.base_id, best, &[], h, live) as u32;
            }
            let best = self.join_ranked(
                &s.base,
                s.base_best,
                extra,
                &mut s.closed,
                &mut s.group,
                &mut s.whole,
            );
            s.next_matched.clear();
            return self.intern_whole(states, bases, s, best);
        }
        // Set mode. Both are sorted: merge them (normalize is quicker on
        // sorted threads).
        let next = &mut s.whole;
        next.clear();
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
        let mut best = key_best;
        s.next_matched.clear();
        s.next_matched.extend_from_slice(&s.own_matched);
        self.normalize(next, &mut best, &mut s.next_matched, &mut s.closed);
        self.intern_whole(states, bases, s, best)
    }

    /// The states reached from the loaded state (state `i` of `states`) on
    /// every class at once, interned in class order (states are numbered
    /// by first appearance) and appended to `succ` as its row: a thread at
    /// a `*` goes to every class, a thread at byte `c` only to `c`'s class,
    /// a thread at a set to the classes inside it, so classes no thread
    /// names share one successor, computed once and interned where its
    /// first class comes. The end class's entry repeats class 0's
    /// ([`Succ`]): it ends the path.
    pub(super) fn successors(
        &self,
        states: &mut States,
        bases: &mut Bases,
        i: usize,
        classes: &Classes,
        s: &mut Scratch,
        succ: &mut Succ,
    ) {
        let mut row = std::mem::take(&mut s.row);
        row.resize(classes.count, 0);
        if self.mode == Mode::Sets {
            self.successors_sets(states, bases, i, classes, s, &mut row);
            succ.push_row(&row);
        } else {
            self.successors_ranked(states, bases, i, classes, s, succ, &mut row);
        }
        s.row = row;
    }

    /// Steps `threads` (sorted): into `by_class`, per class, the threads
    /// reading it, advanced (sorted), with `touched` the classes whose list
    /// was empty (in order of appearance); into `stars` the threads at a
    /// `*`.
    fn distribute(
        &self,
        threads: &[Thread],
        classes: &Classes,
        by_class: &mut [Vec<Thread>],
        touched: &mut Vec<usize>,
        stars: &mut Vec<Thread>,
    ) {
        for &t in threads {
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
    }

    /// [`Patterns::successors`] in ranked mode. A successor is a function
    /// of the state's base and of what its threads read on the class (its
    /// `extra`): the base's threads read the same in every state of the
    /// base ([`BaseSteps`]), so on a class none of the threads beyond the
    /// base reads, the successor is the base's for that class, made once
    /// per base (the base implies the best in a plain automaton; a register
    /// automaton's successors do not depend on it).
    #[allow(clippy::too_many_arguments)]
    fn successors_ranked(
        &self,
        states: &mut States,
        bases: &mut Bases,
        i: usize,
        classes: &Classes,
        s: &mut Scratch,
        succ: &mut Succ,
        row: &mut [u32],
    ) {
        let key_best = states.best(i);
        let b = states.base(i) as usize;
        // Taken out while the successors are made (bases are interned
        // meanwhile); put back at the end.
        let mut steps = match bases.steps[b].take() {
            Some(steps) => steps,
            None => {
                let spare = bases.spare.pop();
                BaseSteps::fill(spare, self, bases.threads(b as u32), classes, s)
            }
        };
        let mut stars = std::mem::take(&mut s.stars);
        stars.clear();
        // Read before any successor is interned (which may move them).
        let diff = states.threads(i);
        self.distribute(diff, classes, &mut s.by_class, &mut s.touched, &mut stars);
        debug_assert!(stars.is_empty(), "the base has the stars");
        s.touched.sort_unstable();
        let touched = std::mem::take(&mut s.touched);
        // On the classes the threads beyond the base read, what all the
        // state's threads read: the symmetric difference of the two (a
        // thread beyond the base may be one the state does not have).
        let mut tmp = std::mem::take(&mut s.group);
        for &c in &touched {
            symmetric_difference(steps.on(c), &s.by_class[c], &mut tmp);
            std::mem::swap(&mut s.by_class[c], &mut tmp);
        }
        let shared = classes.count;
        if steps.missing == 0 {
            // Every class but those the threads beyond the base read goes
            // where the base alone goes; those are made in class order (on
            // one they leave unread, the shared successor).
            let mut patches = std::mem::take(&mut s.patches);
            patches.clear();
            for &c in &touched {
                if c == END_CLASS {
                    continue;
                }
                let id = if s.by_class[c].is_empty() {
                    match steps.memo[shared] {
                        u32::MAX => {
                            let id = self.make(states, bases, key_best, &[], &[], s);
                            steps.memo[shared] = id;
                            id
                        }
                        id => id,
                    }
                } else {
                    let extra = std::mem::take(&mut s.by_class[c]);
                    let id = self.make(states, bases, key_best, &[], &extra, s);
                    s.by_class[c] = extra;
                    id
                };
                patches.push((c as u8, id));
            }
            succ.push_patched(&steps.row.0, &steps.row.1, &patches);
            s.patches = patches;
        } else {
            let mut shared_id = None;
            let mut k = 0;
            for (c, slot) in row.iter_mut().enumerate() {
                let by_diff = k < touched.len() && touched[k] == c;
                if by_diff {
                    k += 1;
                }
                if c == END_CLASS {
                    continue;
                }
                let id = if by_diff && !s.by_class[c].is_empty() {
                    let extra = std::mem::take(&mut s.by_class[c]);
                    let id = self.make(states, bases, key_best, &[], &extra, s);
                    s.by_class[c] = extra;
                    Some(id)
                } else if !by_diff && !steps.on(c).is_empty() {
                    Some(match steps.memo[c] {
                        u32::MAX => {
                            let id = self.make(states, bases, key_best, &[], steps.on(c), s);
                            steps.remember(c, id, shared);
                            id
                        }
                        id => id,
                    })
                } else {
                    None
                };
                *slot = match id {
                    Some(id) => id,
                    // A class no thread names: the shared successor, made
                    // where its first class comes.
                    None => match shared_id {
                        Some(id) => id,
                        None => {
                            let id = match steps.memo[shared] {
                                u32::MAX => {
                                    let id = self.make(states, bases, key_best, &[], &[], s);
                                    steps.remember(shared, id, shared);
                                    id
                                }
                                id => id,
                            };
                            shared_id = Some(id);
                            id
                        }
                    },
                };
            }
            succ.push_row(row);
        }
        for &c in &touched {
            s.by_class[c].clear();
        }
        bases.steps[b] = Some(steps);
        s.group = tmp;
        s.touched = touched;
        s.touched.clear();
        s.stars = stars;
    }

    /// [`Patterns::successors`] in set mode.
    fn successors_sets(
        &self,
        states: &mut States,
        bases: &mut Bases,
        i: usize,
        classes: &Classes,
        s: &mut Scratch,
        row: &mut [u32],
    ) {
        let key_best = states.best(i);
        let mut stars = std::mem::take(&mut s.stars);
        stars.clear();
        self.distribute(&s.own, classes, &mut s.by_class, &mut s.touched, &mut stars);
        s.touched.sort_unstable();
        let touched = std::mem::take(&mut s.touched);
        // The first live class no thread names: where the shared successor
        // is interned, if any class needs it.
        let mut shared_at = None;
        {
            let mut k = 0;
            for c in 0..classes.count {
                if k < touched.len() && touched[k] == c {
                    k += 1;
                } else if c != END_CLASS {
                    shared_at = Some(c);
                    break;
                }
            }
        }
        let mut shared_id = None;
        for &c in &touched {
            if c == END_CLASS {
                s.by_class[c].clear();
                continue;
            }
            if shared_id.is_none() && shared_at.is_some_and(|at| at < c) {
                shared_id = Some(self.make(states, bases, key_best, &stars, &[], s));
            }
            let extra = std::mem::take(&mut s.by_class[c]);
            row[c] = self.make(states, bases, key_best, &stars, &extra, s);
            s.by_class[c] = extra;
            s.by_class[c].clear();
        }
        if shared_at.is_some() {
            let id = match shared_id {
                Some(id) => id,
                None => self.make(states, bases, key_best, &stars, &[], s),
            };
            let mut k = 0;
            for (c, r) in row.iter_mut().enumerate() {
                if k < touched.len() && touched[k] == c {
                    k += 1;
                } else if c != END_CLASS {
                    *r = id;
                }
            }
        }
        s.touched = touched;
        s.touched.clear();
        s.stars = stars;
    }
}

/// One automaton of the rules `ids` in `mode`, by subset construction
/// within `budget`: states are numbered by first appearance, each state's
/// outcome resolved once; then set-mode automata are minimised and the
/// automaton is written as a program ([`plan`], [`emit`]).
pub(super) fn build_one(
    ctx: &mut Ctx<'_>,
    ids: &[usize],
    budget: &Budget,
    mode: Mode,
) -> Result<Automaton, BudgetExceeded> {
    let mut c = Construction::new(ctx, ids, mode);
    c.run(ctx, budget)?;
    Ok(c.finish(ctx))
}

/// A subset construction under way: its states are expanded in the order
/// they were numbered, and one that ran out of a budget of states or
/// threads can go on under a larger one ([`Construction::run`] again) and
/// ends where a construction under that budget from the start would: the
/// states, their numbers and what was interned in the outcome table come
/// in the same order.
pub(super) struct Construction<'a> {
    mode: Mode,
    pats: Patterns<'a>,
    classes: Classes,
    /// Its states, their rows and outcomes, and scratch space; register
    /// automata: each pattern's priority (1 + its place in rank order; 0
    /// is no match), each state's emit and whether it is dead; plain mode:
    /// the outcome id of each winning pattern (index `npatterns`: no
    /// winner), or `u32::MAX` until interned.
    b: Buffers,
    /// Register automata: each priority's outcome id.
    ranked: Vec<u32>,
    /// Live threads summed over the states expanded so far.
    threads_total: usize,
    /// The next state to expand.
    next: usize,
    /// The highest rank of its rules (ranked modes).
    max_rank: u32,
    started: Instant,
}

impl Drop for Construction<'_> {
    fn drop(&mut self) {
        self.b.patterns = self.pats.storage();
        std::mem::take(&mut self.b).give();
    }
}

impl<'a> Construction<'a> {
    /// The construction of the rules `ids` in `mode`, its start state
    /// interned (and, for a register automaton, its priorities' outcomes).
    pub(super) fn new(ctx: &mut Ctx<'a>, ids: &[usize], mode: Mode) -> Construction<'a> {
        let started = Instant::now();
        let set = ctx.set;
        debug_assert_eq!(mode == Mode::Sets, set.resolution.by_sets());
        let mut b = Buffers::take();
        let storage = std::mem::take(&mut b.patterns);
        let mut pats = Patterns::new(set, ctx.simple, ctx.same, ids, mode, storage);
        let classes = byte_classes(&pats.body);
        pats.index_positions(&classes);
        b.reset(classes.count, pats.rule.len());
        if mode == Mode::Sets {
            b.bases.intern(&pats, &[], NONE, &mut b.scratch.closed);
        }
        {
            let s = &mut b.scratch;
            s.whole.clear();
            s.whole.extend_from_slice(&pats.offset[..pats.rule.len()]);
            s.next_matched.clear();
            let mut best = NONE;
            pats.normalize(&mut s.whole, &mut best, &mut s.next_matched, &mut s.closed);
            pats.intern_whole(&mut b.states, &mut b.bases, s, best);
        }
        let ranked = if mode == Mode::Register {
            register_priorities(ctx, &pats, &mut b.prio)
        } else {
            Vec::new()
        };
        b.winner_outcome.resize(pats.rule.len() + 1, u32::MAX);
        Construction {
            mode,
            max_rank: ids.iter().map(|&i| set.rules[i].rank).max().unwrap_or(0),
            pats,
            classes,
            b,
            ranked,
            threads_total: 0,
            next: 0,
            started,
        }
    }

    /// Expands states until none is left, or until one more would exceed
    /// `budget` (the construction can then go on under a larger one) or
    /// the lowering's deadline passes.
    pub(super) fn run(&mut self, ctx: &mut Ctx<'_>, budget: &Budget) -> Result<(), BudgetExceeded> {
        let mode = self.mode;
        let (pats, classes) = (&self.pats, &self.classes);
        let b = &mut self.b;
        let (states, bases, scratch) = (&mut b.states, &mut b.bases, &mut b.scratch);
        let nclasses = classes.count;
        let set = ctx.set;
        let prio = &b.prio;
        let priority = |p: Option<u32>| p.map_or(0, |p| prio[p as usize]);
        let (npatterns, started) = (pats.rule.len(), self.started);
        let say = |ctx: &Ctx<'_>, what: std::fmt::Arguments<'_>| {
            let took = started.elapsed();
            note(
                ctx,
                format_args!(
                    "{npatterns} patterns {what} ({mode:?}, {nclasses} classes, {took:?})"
                ),
            );
        };
        while self.next < states.len() {
            let i = self.next;
            if states.len() > budget.max_states {
                say(ctx, format_args!("FAIL {} states", states.len()));
                return Err(BudgetExceeded::States(budget.max_states));
            }
            if i % 256 == 0 && ctx.past_deadline() {
                return Err(BudgetExceeded::Time(ctx.budget.time));
            }
            let (live, winner) = pats.load(states, bases, i, scratch);
            let matched = if mode == Mode::Sets {
                scratch.own_matched.len()
            } else {
                0
            };
            // Counted only once within the budget: a construction that
            // goes on expands this state again.
            let threads_total = self.threads_total + live + matched;
            if threads_total > budget.max_threads {
                let at = states.len();
                say(
                    ctx,
                    format_args!("FAIL {threads_total} threads at {at} states"),
                );
                return Err(BudgetExceeded::Threads(budget.max_threads));
            }
            self.threads_total = threads_total;
            if live == 0 {
                // Nothing left to match: the state loops on itself.
                b.succ.push_loop(i as u32);
            } else {
                pats.successors(states, bases, i, classes, scratch, &mut b.succ);
            }
            let best = states.best(i);
            match mode {
                Mode::Register => {
                    b.outcome.push(priority(winner));
                    b.emit.push(priority((best != NONE).then_some(best)));
                    b.dead.push(live == 0);
                }
                Mode::Sets => {
                    let matched = pats.matched_rules(&scratch.own, &scratch.own_matched);
                    b.outcome.push(
                        ctx.table
                            .intern(set.resolution.outcome(&set.rules, None, &matched)),
                    );
                }
                Mode::Plain => {
                    let slot = winner.unwrap_or(pats.rule.len() as u32) as usize;
                    if b.winner_outcome[slot] == u32::MAX {
                        let winner = pats.rule.get(slot).copied();
                        b.winner_outcome[slot] = ctx.table.ranked(&set.rules, winner);
                    }
                    b.outcome.push(b.winner_outcome[slot]);
                }
            }
            self.next += 1;
        }
        let (n, threads) = (states.len(), self.threads_total);
        say(ctx, format_args!("-> {n} states, {threads} threads"));
        Ok(())
    }

    /// The automaton of a construction that ran to its end: set-mode
    /// automata minimised, then written as a program.
    pub(super) fn finish(self, ctx: &Ctx<'_>) -> Automaton {
        self.plan(ctx).emit()
    }

    /// A construction that ran to its end, its program planned ([`plan`]):
    /// set-mode automata minimised first.
    pub(super) fn plan(mut self, ctx: &Ctx<'_>) -> Planned<'a> {
        debug_assert_eq!(
            self.next,
            self.b.states.len(),
            "the construction ran to its end"
        );
        let b = &mut self.b;
        // Set mode keeps every matched rule in its states, so states that
        // differ only in rules that no longer change any outcome abound:
        // merge states with the same outcome and the same future.
        let minimal = (self.mode == Mode::Sets && b.succ.len() <= MINIMIZE_LIMIT)
            .then(|| minimize(&b.succ, &b.outcome, END_CLASS));
        let (succ, outcome) = match &minimal {
            Some((succ, outcome)) => (succ, outcome),
            None => (&b.succ, &b.outcome),
        };
        let register = (self.mode == Mode::Register).then_some(Register {
            emit: &b.emit,
            dead: &b.dead,
            ranked: Vec::new(),
        });
        plan(succ, outcome, END_CLASS, register.as_ref(), &mut b.finish);
        let outcomes = match self.mode {
            Mode::Register => self.ranked.len(),
            _ => ctx.table.ids.len(),
        };
        let len = program_len(
            &b.finish,
            self.classes.count,
            self.mode == Mode::Register,
            outcomes,
        );
        Planned {
            c: self,
            minimal,
            outcomes,
            len,
        }
    }
}

/// A construction that ran to its end, its program planned but not yet
/// written: its size is known first.
pub(super) struct Planned<'a> {
    c: Construction<'a>,
    /// Set mode: the minimal automaton.
    minimal: Option<(Succ, Vec<u32>)>,
    /// The outcome ids there were when it was planned (a register
    /// automaton: its priorities).
    outcomes: usize,
    len: usize,
}

impl Planned<'_> {
    /// The size of its program.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The automaton, its program written.
    pub(super) fn emit(mut self) -> Automaton {
        let c = &mut self.c;
        let b = &mut c.b;
        let (succ, outcome) = match &self.minimal {
            Some((succ, outcome)) => (succ, outcome),
            None => (&b.succ, &b.outcome),
        };
        let register = (c.mode == Mode::Register).then(|| Register {
            emit: &b.emit,
            dead: &b.dead,
            ranked: std::mem::take(&mut c.ranked),
        });
        let mut a = emit(
            succ,
            outcome,
            c.classes.of,
            self.outcomes,
            register,
            &mut b.finish,
        );
        debug_assert_eq!(a.prog.len(), self.len, "the planned size");
        // Set mode resolves by scope, not rank: no automaton may be skipped.
        if c.mode != Mode::Sets {
            a.max_rank = c.max_rank;
        }
        a
    }
}

/// Register automata: each pattern's priority (1 + its place in rank
/// order; 0 is no match), into `prio`, and per priority its outcome id.
fn register_priorities(ctx: &mut Ctx<'_>, pats: &Patterns<'_>, prio: &mut Vec<u32>) -> Vec<u32> {
    prio.clear();
    prio.resize(pats.rule.len(), 0);
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
        ranked.push(ctx.table.ranked(&ctx.set.rules, rule));
    }
    ranked
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
