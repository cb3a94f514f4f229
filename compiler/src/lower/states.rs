//! The states of one subset construction, interned: every state's threads
//! (and, in set mode, its matched patterns) in one arena, and an
//! open-addressing table of state ids keyed by a hash computed once per
//! candidate. A candidate successor is built in a reused buffer and
//! compared with a state's threads only when their hashes agree; only a
//! new state is copied, into the arena. (A hash map of thread vectors
//! allocated, hashed and freed a vector per successor, and kept two copies
//! of each state.)

use super::closure::Thread;

/// The interned states, numbered by first appearance.
pub(super) struct States {
    /// Every state's threads, one after the other.
    threads: Vec<Thread>,
    /// Where each state's threads start in `threads` (one more entry: the
    /// end of the last state's).
    thread_at: Vec<usize>,
    /// Each state's best permanent match.
    best: Vec<u32>,
    /// Set mode: every state's matched patterns, one after the other.
    matched: Vec<u32>,
    /// Where each state's matched patterns start in `matched`.
    matched_at: Vec<usize>,
    /// Each state's hash.
    hash: Vec<u64>,
    /// Open addressing, linear probing: the hash's high half and the state
    /// id, or [`EMPTY`]. The length is a power of two, at most half full.
    slots: Vec<u64>,
}

const EMPTY: u64 = u64::MAX;

/// murmur3's 64-bit finaliser: every input bit moves every output bit.
#[inline]
pub(super) fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// The hash of thread `t` ([`Patterns::thread_hash`](super::closure::Patterns)).
#[inline]
pub(super) fn thread_hash(t: Thread) -> u64 {
    mix(u64::from(t) ^ 0x9e37_79b9_7f4a_7c15)
}

/// The part of a state's hash that is not its threads': its best and its
/// matched patterns. A state's hash is this plus the (wrapping) sum of its
/// threads' hashes, so that a successor made of pieces of another state
/// sums the pieces' hashes instead of reading every thread again.
#[inline]
pub(super) fn rest_hash(best: u32, matched: &[u32]) -> u64 {
    let mut h = mix(u64::from(best) ^ 0x2545_f491_4f6c_dd1d);
    for &m in matched {
        h = h.wrapping_add(mix(u64::from(m) ^ 0x6a09_e667_f3bc_c909));
    }
    h
}

/// The hash of a state, read whole (see [`rest_hash`]).
pub(super) fn state_hash(threads: &[Thread], best: u32, matched: &[u32]) -> u64 {
    threads.iter().fold(rest_hash(best, matched), |h, &t| {
        h.wrapping_add(thread_hash(t))
    })
}

impl States {
    pub(super) fn new() -> States {
        States {
            threads: Vec::new(),
            thread_at: vec![0],
            best: Vec::new(),
            matched: Vec::new(),
            matched_at: vec![0],
            hash: Vec::new(),
            slots: vec![EMPTY; 64],
        }
    }

    /// Number of states.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.best.len()
    }

    /// State `i`'s threads.
    #[inline]
    pub(super) fn threads(&self, i: usize) -> &[Thread] {
        &self.threads[self.thread_at[i]..self.thread_at[i + 1]]
    }

    /// State `i`'s best permanent match.
    #[inline]
    pub(super) fn best(&self, i: usize) -> u32 {
        self.best[i]
    }

    /// State `i`'s matched patterns (set mode).
    #[inline]
    pub(super) fn matched(&self, i: usize) -> &[u32] {
        &self.matched[self.matched_at[i]..self.matched_at[i + 1]]
    }

    /// The id of the state of `threads`, `best` and `matched`, whose hash
    /// is `h` ([`state_hash`]), a new one (the next number) if there is none
    /// yet.
    #[inline]
    pub(super) fn intern(
        &mut self,
        threads: &[Thread],
        best: u32,
        matched: &[u32],
        h: u64,
    ) -> usize {
        let mask = self.slots.len() - 1;
        let tag = h & 0xFFFF_FFFF_0000_0000;
        let mut at = (h as usize) & mask;
        loop {
            let slot = self.slots[at];
            if slot == EMPTY {
                break;
            }
            if slot & 0xFFFF_FFFF_0000_0000 == tag {
                let id = (slot & 0xFFFF_FFFF) as usize;
                if self.best[id] == best
                    && self.threads(id) == threads
                    && self.matched(id) == matched
                {
                    return id;
                }
            }
            at = (at + 1) & mask;
        }
        let id = self.len();
        // State ids stay below 2^32 - 1 (the empty slot's low half): the
        // budgets stop constructions long before.
        assert!(id < 0xFFFF_FFFF, "state ids fit 32 bits");
        self.slots[at] = tag | id as u64;
        self.threads.extend_from_slice(threads);
        self.thread_at.push(self.threads.len());
        self.best.push(best);
        self.matched.extend_from_slice(matched);
        self.matched_at.push(self.matched.len());
        self.hash.push(h);
        if 2 * self.len() > self.slots.len() {
            self.grow();
        }
        id
    }

    /// Doubles the table.
    fn grow(&mut self) {
        let cap = 2 * self.slots.len();
        self.slots.clear();
        self.slots.resize(cap, EMPTY);
        let mask = cap - 1;
        for (id, &h) in self.hash.iter().enumerate() {
            let mut at = (h as usize) & mask;
            while self.slots[at] != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = (h & 0xFFFF_FFFF_0000_0000) | id as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{state_hash, Thread};

    struct States(super::States);

    impl States {
        fn new() -> States {
            States(super::States::new())
        }
        fn intern(&mut self, t: &[Thread], best: u32, m: &[u32]) -> usize {
            self.0.intern(t, best, m, state_hash(t, best, m))
        }
        fn threads(&self, i: usize) -> &[Thread] {
            self.0.threads(i)
        }
        fn matched(&self, i: usize) -> &[u32] {
            self.0.matched(i)
        }
        fn best(&self, i: usize) -> u32 {
            self.0.best(i)
        }
    }

    #[test]
    fn interns_by_content_in_order_of_appearance() {
        let mut s = States::new();
        assert_eq!(s.intern(&[1, 2, 3], 7, &[]), 0);
        assert_eq!(s.intern(&[1, 2], 7, &[]), 1);
        assert_eq!(s.intern(&[1, 2, 3], 8, &[]), 2);
        assert_eq!(s.intern(&[1, 2], 7, &[4]), 3);
        assert_eq!(s.intern(&[1, 2, 3], 7, &[]), 0);
        assert_eq!(s.intern(&[1, 2], 7, &[4]), 3);
        // Past several growths, every state is still found.
        for k in 0..1000u32 {
            let t: Vec<u32> = (0..k % 20).map(|j| j * 3 + k).collect();
            let id = s.intern(&t, k % 3, &[]);
            assert_eq!(s.intern(&t, k % 3, &[]), id);
            assert_eq!(s.threads(id), t.as_slice());
        }
        assert_eq!(s.intern(&[1, 2, 3], 7, &[]), 0);
        assert_eq!(s.matched(3), &[4]);
        assert_eq!(s.best(2), 8);
    }
}
