//! The states of one subset construction, interned.
//!
//! A state is its live threads, its best permanent match and (set mode) its
//! matched patterns. Most of a state's threads are usually those of its
//! `*`s, normalized alone: its *base* (the stars of every `/*word` pattern
//! after the first `/`, say), which its successors on most classes share.
//! A state is therefore kept as its base (an id: the star threads and the
//! best they were normalized with, [`Bases`](super::determinise::Bases))
//! and the threads by which it differs from that base (the symmetric
//! difference: sorted, and usually a handful), so that a successor is made,
//! hashed and compared in the size of what changed rather than of the
//! state. Those differences and the matched patterns are kept in arenas,
//! and an open-addressing table of state ids is keyed by a hash computed
//! once per candidate, which is compared with a state only when the hashes
//! agree. (A hash map of thread vectors allocated, hashed and freed a
//! vector per successor, and kept two copies of each state.)
//!
//! The representation is canonical: the base is a function of the state's
//! threads and best (their stars, and the best), so equal states have equal
//! bases and then equal differences.

use super::closure::Thread;

/// The interned states, numbered by first appearance. A default `States`
/// is empty storage: [`States::reset`] before use.
#[derive(Default)]
pub(super) struct States {
    /// Every state's threads (beyond its base), one after the other.
    threads: Vec<Thread>,
    /// Where each state's threads start in `threads` (one more entry: the
    /// end of the last state's).
    thread_at: Vec<usize>,
    /// Each state's base.
    base: Vec<u32>,
    /// Each state's best permanent match.
    best: Vec<u32>,
    /// Each state's number of live threads (its base's and its own).
    live: Vec<u32>,
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

/// Slots of a table that starts (most automata have a few hundred states:
/// growing from fewer rehashed them several times).
const INITIAL_SLOTS: usize = 512;

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

/// The hash of thread `t`.
#[inline]
pub(super) fn thread_hash(t: Thread) -> u64 {
    mix(u64::from(t) ^ 0x9e37_79b9_7f4a_7c15)
}

/// The part of a state's hash that is not its threads': its base, its
/// best and its matched patterns. A state's hash is this plus the
/// (wrapping) sum of its threads' hashes, so that a successor made of
/// pieces sums the pieces' hashes.
#[inline]
pub(super) fn rest_hash(base: u32, best: u32, matched: &[u32]) -> u64 {
    let mut h = mix((u64::from(base) << 32 | u64::from(best)) ^ 0x2545_f491_4f6c_dd1d);
    for &m in matched {
        h = h.wrapping_add(mix(u64::from(m) ^ 0x6a09_e667_f3bc_c909));
    }
    h
}

/// The sum of the hashes of `threads`.
#[inline]
pub(super) fn threads_hash(threads: &[Thread]) -> u64 {
    threads
        .iter()
        .fold(0u64, |h, &t| h.wrapping_add(thread_hash(t)))
}

impl States {
    #[cfg(test)]
    pub(super) fn new() -> States {
        let mut s = States::default();
        s.reset();
        s
    }

    /// No state, the storage kept.
    pub(super) fn reset(&mut self) {
        self.threads.clear();
        self.thread_at.clear();
        self.thread_at.push(0);
        self.base.clear();
        self.best.clear();
        self.live.clear();
        self.matched.clear();
        self.matched_at.clear();
        self.matched_at.push(0);
        self.hash.clear();
        // The table starts small again: clearing a large one would cost
        // more than a small construction.
        self.slots.truncate(INITIAL_SLOTS);
        self.slots.fill(EMPTY);
        self.slots.resize(INITIAL_SLOTS, EMPTY);
    }

    /// Bytes held (for the pool's limit).
    pub(super) fn capacity_bytes(&self) -> usize {
        4 * (self.threads.capacity()
            + self.base.capacity()
            + self.best.capacity()
            + self.live.capacity()
            + self.matched.capacity())
            + 8 * (self.thread_at.capacity()
                + self.matched_at.capacity()
                + self.hash.capacity()
                + self.slots.capacity())
    }

    /// Number of states.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.best.len()
    }

    /// State `i`'s threads beyond its base.
    #[inline]
    pub(super) fn threads(&self, i: usize) -> &[Thread] {
        &self.threads[self.thread_at[i]..self.thread_at[i + 1]]
    }

    /// State `i`'s base.
    #[inline]
    pub(super) fn base(&self, i: usize) -> u32 {
        self.base[i]
    }

    /// State `i`'s best permanent match.
    #[inline]
    pub(super) fn best(&self, i: usize) -> u32 {
        self.best[i]
    }

    /// State `i`'s number of live threads.
    #[inline]
    pub(super) fn live(&self, i: usize) -> usize {
        self.live[i] as usize
    }

    /// State `i`'s matched patterns (set mode).
    #[inline]
    pub(super) fn matched(&self, i: usize) -> &[u32] {
        &self.matched[self.matched_at[i]..self.matched_at[i + 1]]
    }

    /// The id of the state of `threads` (beyond `base`), `best` and
    /// `matched`, whose hash is `h` ([`rest_hash`] plus [`threads_hash`]),
    /// a new one (the next number, of `live` live threads) if there is
    /// none yet.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn intern(
        &mut self,
        threads: &[Thread],
        base: u32,
        best: u32,
        matched: &[u32],
        h: u64,
        live: usize,
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
                    && self.base[id] == base
                    && same(self.threads(id), threads)
                    && same(self.matched(id), matched)
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
        self.base.push(base);
        self.best.push(best);
        self.live.push(live as u32);
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

/// `a == b`, inline: the slices compared are short (a state's threads
/// beyond its base), where a call to `memcmp` costs more than the loop.
#[inline]
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The symmetric difference of `a` and `b` (sorted, distinct), sorted, into
/// `out` (overwritten).
pub(super) fn symmetric_difference(a: &[Thread], b: &[Thread], out: &mut Vec<Thread>) {
    merge(a, b, false, out);
}

/// The union of `a` and `b` (sorted, distinct), sorted, into `out`
/// (overwritten).
#[inline]
pub(super) fn union(a: &[Thread], b: &[Thread], out: &mut Vec<Thread>) {
    merge(a, b, true, out);
}

/// `a` and `b` (sorted, distinct) merged into `out` (overwritten), sorted;
/// the threads in both once when `common`, else not at all.
#[inline]
fn merge(a: &[Thread], b: &[Thread], common: bool, out: &mut Vec<Thread>) {
    out.clear();
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        match a[x].cmp(&b[y]) {
            std::cmp::Ordering::Less => {
                out.push(a[x]);
                x += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[y]);
                y += 1;
            }
            std::cmp::Ordering::Equal => {
                if common {
                    out.push(a[x]);
                }
                x += 1;
                y += 1;
            }
        }
    }
    out.extend_from_slice(&a[x..]);
    out.extend_from_slice(&b[y..]);
}

#[cfg(test)]
mod tests {
    use super::{rest_hash, symmetric_difference, threads_hash, union, Thread};

    struct States(super::States);

    impl States {
        fn new() -> States {
            States(super::States::new())
        }
        fn intern(&mut self, t: &[Thread], best: u32, m: &[u32]) -> usize {
            let h = rest_hash(best % 2, best, m).wrapping_add(threads_hash(t));
            self.0.intern(t, best % 2, best, m, h, 0)
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

    #[test]
    fn symmetric_differences() {
        let mut out = Vec::new();
        symmetric_difference(&[1, 3, 5, 7], &[2, 3, 7, 9], &mut out);
        assert_eq!(out, [1, 2, 5, 9]);
        symmetric_difference(&[], &[2], &mut out);
        assert_eq!(out, [2]);
        symmetric_difference(&[4, 6], &[4, 6], &mut out);
        assert!(out.is_empty());
        union(&[1, 3, 5, 7], &[2, 3, 7, 9], &mut out);
        assert_eq!(out, [1, 2, 3, 5, 7, 9]);
        union(&[4], &[], &mut out);
        assert_eq!(out, [4]);
    }
}
