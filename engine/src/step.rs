//! Stepping a policy's automata one path byte at a time (with the `build`
//! feature), for tools that explore what every path does (`robocc diff`
//! walks two policies' product). The steps are the check path's own walk
//! (`Walk::feed`), resumed from a saved [`Position`]; the check path is
//! unchanged.
//!
//! A state is kept in one form per answer it can still give, so that an
//! exploration meets each state once: a decided walk forgets where it
//! decided, and a register automaton's register is forgotten where no
//! further byte can make it matter (it is below every outcome the walk can
//! still end in) or kept as the answer where no further byte can change it
//! (it is above every priority the walk can still meet). Without this a
//! register automaton's states, told apart by every rule matched so far,
//! multiply in a product of two policies.
//!
//! The bytes are those the automata read: a URL's path after the policy's
//! URL mode has encoded it ([`Policy::header`]'s `url_mode`), starting
//! with its `/`.

use crate::answer::{self, verdict, Verdict};
use crate::artifact::ArchivedAutomaton;
use crate::policy::{Policy, NO_OUTCOME};
use crate::program::{Narrow, Position, Walk, Wide, Width};
use crate::types::{Dialect, Usage};
use std::collections::HashMap;

/// Where a path leaves a policy's walk: one [`Position`] per automaton
/// (several when the rules were split; their answers combine by rank, as
/// [`Policy::check`] combines them). Equal states answer every further
/// path alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathState(Positions);

/// A policy of one automaton (most) keeps its one position inline: an
/// exploration steps and hashes states by the million.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Positions {
    One(Position),
    Many(Vec<Position>),
}

impl PathState {
    fn new(mut positions: Vec<Position>) -> PathState {
        PathState(match positions.as_slice() {
            [one] => Positions::One(*one),
            _ => {
                positions.shrink_to_fit();
                Positions::Many(positions)
            }
        })
    }

    fn positions(&self) -> &[Position] {
        match &self.0 {
            Positions::One(at) => std::slice::from_ref(at),
            Positions::Many(v) => v,
        }
    }
}

/// What an automaton can still do from a node: in a register automaton,
/// the least outcome priority a walk from there can end in and the
/// greatest priority it can still meet (emits and outcomes); in any, the
/// same bounds on the ranks of the outcomes' deciding rules.
#[derive(Clone, Copy, Debug)]
struct Reach {
    least: u32,
    most: u32,
    /// The least rank of an outcome a walk from there can end in, and the
    /// greatest rank it can still meet (split policies: see
    /// [`PathSteps::prune`]).
    rank_least: u32,
    rank_most: u32,
}

/// A policy's automata ready to be stepped one path byte at a time
/// ([`Policy::path_steps`]).
#[derive(Clone, Debug)]
pub struct PathSteps<'a> {
    policy: Policy<'a>,
    /// Per automaton, each node's [`Reach`] (empty but for register
    /// automata and the automata of a split policy of one channel).
    reach: Vec<HashMap<u32, Reach>>,
    /// Split over several automata, of one channel: an automaton that can
    /// no longer outrank another's answer is dropped ([`PathSteps::prune`]).
    split: bool,
}

/// The decided outcome of an automaton whose answer can no longer matter
/// (outcome ids and priorities are far below it: validated).
const DROPPED: u32 = u32::MAX - 1;

/// The 256 classes of automaton `a` (validation checked there are 256).
fn classes(a: &ArchivedAutomaton) -> &[u8; 256] {
    a.classes.as_slice().try_into().unwrap_or(&[0; 256])
}

fn start<W: Width>(a: &ArchivedAutomaton) -> Position {
    Walk::<W>::new(a, classes(a)).position()
}

fn step<W: Width>(a: &ArchivedAutomaton, at: Position, b: u8) -> Position {
    let mut w = Walk::<W>::resume(a, classes(a), at);
    if !w.done() {
        w.feed(b);
    }
    w.position()
}

fn outcome<W: Width>(a: &ArchivedAutomaton, at: Position) -> u32 {
    Walk::<W>::resume(a, classes(a), at).outcome()
}

/// Runs `f` with the automaton's target width.
macro_rules! by_width {
    ($a:expr, $f:ident($($arg:expr),*)) => {
        if $a.wide {
            $f::<Wide>($a, $($arg),*)
        } else {
            $f::<Narrow>($a, $($arg),*)
        }
    };
}

/// Every node's [`Reach`] in automaton `a` (`rank`: the rank of an
/// outcome or priority): its positions are explored with the register held
/// at 0 (steps do not depend on it), then each position's bounds are
/// spread back along the steps until nothing changes. The positions are at most the
/// program's bytes; a step per class reached.
fn reach<W: Width>(a: &ArchivedAutomaton, rank: &dyn Fn(u32) -> u32) -> HashMap<u32, Reach> {
    let cls = classes(a);
    // One byte per class.
    let mut bytes: Vec<u8> = Vec::new();
    let mut seen_class = [false; 256];
    for b in 0..=255u8 {
        let c = usize::from(cls[usize::from(b)]);
        if !seen_class[c] {
            seen_class[c] = true;
            bytes.push(b);
        }
    }
    let mut index: HashMap<Position, usize> = HashMap::new();
    let mut positions: Vec<Position> = Vec::new();
    let mut values: Vec<Reach> = Vec::new();
    // Each position's predecessors (by index).
    let mut preds: Vec<Vec<usize>> = vec![Vec::new()];
    let first = start::<W>(a).with_register(0);
    if first.decided_outcome().is_some() {
        return HashMap::new();
    }
    index.insert(first, 0);
    positions.push(first);
    let mut i = 0;
    while i < positions.len() {
        let at = positions[i];
        let own = Walk::<W>::resume(a, cls, at).own_outcome();
        let mut r = Reach {
            least: own,
            most: own,
            rank_least: rank(own),
            rank_most: rank(own),
        };
        for &b in &bytes {
            let next = step::<W>(a, at, b);
            if !a.ranked.is_empty() {
                r.most = r.most.max(next.register());
                r.rank_most = r.rank_most.max(rank(next.register()));
            }
            if let Some(out) = next.decided_outcome() {
                r.least = r.least.min(out);
                r.most = r.most.max(out);
                r.rank_least = r.rank_least.min(rank(out));
                r.rank_most = r.rank_most.max(rank(out));
                continue;
            }
            let next = next.with_register(0);
            let k = *index.entry(next).or_insert_with(|| {
                positions.push(next);
                preds.push(Vec::new());
                positions.len() - 1
            });
            preds[k].push(i);
        }
        values.push(r);
        i += 1;
    }
    // Spread back: a position reaches what its successors reach.
    let mut work: Vec<usize> = (0..positions.len()).collect();
    while let Some(k) = work.pop() {
        let v = values[k];
        for &p in &preds[k] {
            let u = &mut values[p];
            if v.least < u.least
                || v.most > u.most
                || v.rank_least < u.rank_least
                || v.rank_most > u.rank_most
            {
                u.least = u.least.min(v.least);
                u.most = u.most.max(v.most);
                u.rank_least = u.rank_least.min(v.rank_least);
                u.rank_most = u.rank_most.max(v.rank_most);
                work.push(p);
            }
        }
    }
    // A node's first position reaches whatever its later chain positions
    // do (they read the rest of the chain or leave as it would).
    positions
        .iter()
        .zip(&values)
        .filter(|(p, _)| p.chain_start())
        .map(|(p, &v)| (p.node(), v))
        .collect()
}

impl<'a> Policy<'a> {
    /// The policy's automata, ready to be stepped one path byte at a time.
    /// Prepares each register automaton, and each automaton of a split
    /// policy of one channel, once (a walk over its states).
    pub fn path_steps(&self) -> PathSteps<'a> {
        let split = self.automata.len() > 1 && self.data.header.channels.len() == 1;
        let mut steps = PathSteps {
            policy: *self,
            reach: Vec::new(),
            split,
        };
        steps.reach = self
            .automata
            .iter()
            .map(|a| {
                if a.ranked.is_empty() && !split {
                    return HashMap::new();
                }
                let rank = |o: u32| steps.rank_of(a, o);
                by_width!(a, reach(&rank))
            })
            .collect();
        steps
    }
}

impl PathSteps<'_> {
    /// The rank of the rule that decides outcome `o` of automaton `a` (a
    /// priority in a register automaton) on the first channel; 0: none.
    fn rank_of(&self, a: &ArchivedAutomaton, o: u32) -> u32 {
        let o = if a.ranked.is_empty() {
            Some(o)
        } else {
            a.ranked.get(o as usize).map(|r| r.to_native())
        };
        let p = &self.policy;
        o.and_then(|o| p.outcomes.get(o as usize * p.stride + p.base))
            .map_or(0, |w| self.policy.rank(w.to_native()))
    }

    /// The least rank automaton `i` can end with from `at`, and the
    /// greatest it can still give. Ranks grow with priorities (register
    /// automata number them in the rules' rank order), so a register's
    /// rank bounds the answer from below.
    fn rank_bounds(&self, i: usize, a: &ArchivedAutomaton, at: Position) -> (u32, u32) {
        if let Some(out) = at.decided_outcome() {
            let r = self.rank_of(a, out);
            return (r, r);
        }
        let held = if a.ranked.is_empty() {
            0
        } else {
            self.rank_of(a, at.register())
        };
        match self.reach.get(i).and_then(|r| r.get(&at.node())) {
            Some(r) => (r.rank_least.max(held), r.rank_most.max(held)),
            None => (0, u32::MAX),
        }
    }

    /// In a split policy, drops each automaton whose best rank to come is
    /// below the least rank another is sure to answer with: however the
    /// path goes on, the other outranks it.
    fn prune(&self, mut state: Vec<Position>) -> Vec<Position> {
        if !self.split {
            return state;
        }
        let automata = self.policy.automata;
        let bounds: Vec<Option<(u32, u32)>> = automata
            .iter()
            .zip(&state)
            .enumerate()
            .map(|(i, (a, &at))| {
                (at.decided_outcome() != Some(DROPPED)).then(|| self.rank_bounds(i, a, at))
            })
            .collect();
        let sure = bounds.iter().flatten().map(|b| b.0).max().unwrap_or(0);
        for (at, b) in state.iter_mut().zip(&bounds) {
            if b.is_some_and(|(_, most)| most < sure) {
                *at = Position::decided(DROPPED);
            }
        }
        state
    }

    /// `at`, in automaton `i`, in its one form (see the module
    /// documentation).
    fn canonical(&self, i: usize, a: &ArchivedAutomaton, at: Position) -> Position {
        let register = !a.ranked.is_empty();
        if at.decided_outcome() == Some(DROPPED) {
            return at;
        }
        if let Some(out) = at.decided_outcome() {
            return Position::decided(if register {
                out.max(at.register())
            } else {
                out
            });
        }
        match self.reach.get(i).and_then(|r| r.get(&at.node())) {
            Some(r) if at.register() >= r.most => Position::decided(at.register()),
            Some(r) if at.register() <= r.least => at.with_register(0),
            _ => at,
        }
    }

    /// The state before any path byte is read.
    pub fn start(&self) -> PathState {
        PathState::new(
            self.prune(
                self.policy
                    .automata
                    .iter()
                    .enumerate()
                    .map(|(i, a)| self.canonical(i, a, by_width!(a, start())))
                    .collect(),
            ),
        )
    }

    /// The state after `state` reads `byte`. A decided automaton reads
    /// nothing more.
    pub fn step(&self, state: &PathState, byte: u8) -> PathState {
        let automata = self.policy.automata;
        if let (Positions::One(at), [a]) = (&state.0, automata) {
            // No split, nothing to prune: no vector either.
            return PathState(Positions::One(self.canonical(
                0,
                a,
                by_width!(a, step(*at, byte)),
            )));
        }
        PathState::new(
            self.prune(
                automata
                    .iter()
                    .zip(state.positions())
                    .enumerate()
                    .map(|(i, (a, &at))| self.canonical(i, a, by_width!(a, step(at, byte))))
                    .collect(),
            ),
        )
    }

    /// No further byte can change what `state` answers: every automaton
    /// has decided.
    pub fn decided(&self, state: &PathState) -> bool {
        state
            .positions()
            .iter()
            .all(|at| at.decided_outcome().is_some())
    }

    /// How many automata the policy has (split policies: several).
    pub fn automata(&self) -> usize {
        self.policy.automata.len()
    }

    /// The class of `byte` in automaton `automaton` (0 past the last):
    /// bytes of equal classes in every automaton are read alike in every
    /// state.
    pub fn byte_class(&self, automaton: usize, byte: u8) -> u8 {
        self.policy
            .automata
            .get(automaton)
            .map_or(0, |a| classes(a)[usize::from(byte)])
    }

    /// The verdict on `usage` of a path that ends in `state`: what
    /// [`Policy::check_usage`] answers for it.
    pub fn verdict(&self, state: &PathState, usage: Usage) -> Verdict {
        let policy = &self.policy;
        let d = policy.data;
        let channels = d.header.channels.len();
        let outcomes = policy.outcomes;
        let (stride, base) = (policy.stride, policy.base);
        // Validation: outcome ids are below outcomes.len() / stride. An
        // each-agent policy answers its first agent, as `check` does.
        let word = |c: usize| -> u32 {
            let mut best = NO_OUTCOME;
            for (a, &at) in policy.automata.iter().zip(state.positions()) {
                if at.decided_outcome() == Some(DROPPED) {
                    continue;
                }
                let o = by_width!(a, outcome(at));
                let w = outcomes
                    .get(o as usize * stride + base + c)
                    .map_or(NO_OUTCOME, |w| w.to_native());
                if best == NO_OUTCOME || policy.outranks(w, best) {
                    best = w;
                }
            }
            best
        };
        if usage == Usage::Crawl {
            return verdict(word(0));
        }
        let acap = d.header.dialect == Dialect::Acap as u8;
        answer::usage_verdict(acap, channels, usage, |c| word(c.index()))
    }
}
