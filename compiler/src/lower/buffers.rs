//! The storage of a construction and of its layout, kept on each thread
//! from one automaton to the next: a lowering may build several automata,
//! and a store build compiles thousands of files on each of its threads;
//! allocating these tables anew, and faulting their pages in, each time
//! cost about a tenth of a compile (issue 43).

use super::closure::PatternStorage;
use super::determinise::{Bases, Scratch};
use super::layout::{FinishBuffers, Succ};
use super::states::States;
use std::cell::RefCell;

/// Buffers a thread keeps at most: a construction that ran out of the
/// quick budget may wait, holding its own, while another is built.
const POOLED: usize = 2;

/// Bytes of one set of buffers a thread keeps from one lowering to the
/// next: those of an automaton of tens of thousands of states are kept
/// only while its lowering lasts (a large file's attempts reuse them,
/// where fresh pages would cost a third of its time).
const POOLED_BYTES: usize = 4 << 20;

/// A construction's and its layout's tables ([`Buffers::take`] them,
/// [`Buffers::give`] them back).
#[derive(Default)]
pub(super) struct Buffers {
    pub(super) patterns: PatternStorage,
    pub(super) scratch: Scratch,
    pub(super) states: States,
    pub(super) bases: Bases,
    pub(super) succ: Succ,
    pub(super) outcome: Vec<u32>,
    pub(super) emit: Vec<u32>,
    pub(super) dead: Vec<bool>,
    pub(super) winner_outcome: Vec<u32>,
    pub(super) prio: Vec<u32>,
    pub(super) finish: FinishBuffers,
}

thread_local! {
    static POOL: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Buffers {
    /// Buffers from this thread's pool (new ones if it has none).
    pub(super) fn take() -> Buffers {
        POOL.try_with(|p| p.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Ready for a construction of `nclasses` classes and `npatterns`
    /// patterns (the patterns' own storage aside: [`PatternStorage`]).
    pub(super) fn reset(&mut self, nclasses: usize, npatterns: usize) {
        let b = self;
        b.scratch.reset(nclasses, npatterns);
        b.states.reset();
        b.bases.reset();
        b.succ.reset(nclasses);
        b.outcome.clear();
        b.emit.clear();
        b.dead.clear();
        b.winner_outcome.clear();
        b.prio.clear();
    }

    /// Back to this thread's pool, unless it is full.
    pub(super) fn give(self) {
        // `try_with`: while the thread ends, its pool may be gone.
        let _ = POOL.try_with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < POOLED {
                p.push(self);
            }
        });
    }

    /// Frees the pooled buffers larger than a lowering may leave behind
    /// (when one ends).
    pub(super) fn trim_pool() {
        let _ = POOL.try_with(|p| {
            p.borrow_mut()
                .retain(|b| b.capacity_bytes() <= POOLED_BYTES)
        });
    }

    fn capacity_bytes(&self) -> usize {
        self.patterns.capacity_bytes()
            + self.states.capacity_bytes()
            + self.bases.capacity_bytes()
            + self.succ.capacity_bytes()
            + self.finish.capacity_bytes()
            + self.dead.capacity()
            + 4 * (self.outcome.capacity()
                + self.emit.capacity()
                + self.winner_outcome.capacity()
                + self.prio.capacity())
    }
}
