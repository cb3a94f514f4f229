//! Stepping a policy's automata one path byte at a time (with the `build`
//! feature), for tools that explore what every path does (`robocc diff`
//! walks two policies' product). The steps are the check path's own walk
//! (`Walk::feed`), resumed from a saved [`Position`]; the check path is
//! unchanged.
//!
//! The bytes are those the automata read: a URL's path after the policy's
//! URL mode has encoded it ([`Policy::header`]'s `url_mode`), starting
//! with its `/`.

use crate::answer::{self, verdict, Verdict};
use crate::artifact::ArchivedAutomaton;
use crate::policy::{Policy, NO_OUTCOME};
use crate::program::{Narrow, Position, Walk, Wide, Width};
use crate::types::{Dialect, Usage};

/// Where a path leaves a policy's walk: one [`Position`] per automaton
/// (several when the rules were split; their answers combine by rank, as
/// [`Policy::check`] combines them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathState(Vec<Position>);

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

fn done<W: Width>(a: &ArchivedAutomaton, at: Position) -> bool {
    Walk::<W>::resume(a, classes(a), at).done()
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

impl Policy<'_> {
    /// The state before any path byte is read.
    pub fn path_start(&self) -> PathState {
        PathState(
            self.data
                .automata
                .iter()
                .map(|a| by_width!(a, start()))
                .collect(),
        )
    }

    /// The state after `state` reads `byte`. A decided automaton reads
    /// nothing more.
    pub fn path_step(&self, state: &PathState, byte: u8) -> PathState {
        PathState(
            self.data
                .automata
                .iter()
                .zip(&state.0)
                .map(|(a, &at)| by_width!(a, step(at, byte)))
                .collect(),
        )
    }

    /// No further byte can change what `state` answers: every automaton
    /// has decided.
    pub fn path_decided(&self, state: &PathState) -> bool {
        self.data
            .automata
            .iter()
            .zip(&state.0)
            .all(|(a, &at)| by_width!(a, done(at)))
    }

    /// The class of `byte` in each automaton: bytes of equal classes are
    /// read alike in every state.
    pub fn path_byte_classes(&self, byte: u8) -> impl Iterator<Item = u8> + '_ {
        self.data
            .automata
            .iter()
            .map(move |a| classes(a)[usize::from(byte)])
    }

    /// The verdict on `usage` of a path that ends in `state`: what
    /// [`Policy::check_usage`] answers for it.
    pub fn path_verdict(&self, state: &PathState, usage: Usage) -> Verdict {
        let d = self.data;
        let channels = d.header.channels.len();
        let outcomes = d.outcomes.as_slice();
        let (stride, base) = (self.stride, self.base);
        // Validation: outcome ids are below outcomes.len() / stride. An
        // each-agent policy answers its first agent, as `check` does.
        let word = |c: usize| -> u32 {
            let mut best = NO_OUTCOME;
            for (a, &at) in d.automata.iter().zip(&state.0) {
                let o = by_width!(a, outcome(at));
                let w = outcomes
                    .get(o as usize * stride + base + c)
                    .map_or(NO_OUTCOME, |w| w.to_native());
                if best == NO_OUTCOME || self.outranks(w, best) {
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
