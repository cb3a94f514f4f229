//! Threads and their closure: a thread is a position in a pattern; a DFA
//! state under construction is the live threads and what matched for good
//! (kept in [`States`](super::states::States)). [`Patterns::normalize`]
//! closes threads under "a `*` may match nothing" and prunes what can no
//! longer decide (rank, star dominance, set mode's [`Canonical`]).

use super::states::{thread_hash, union};
use super::{FxHashMap, Mode};
use crate::glob::{Atom, Glob};
use crate::outcome::{self, Canonical};
use crate::ruleset::RuleSet;

/// A thread: a position in a pattern, numbered over all the automaton's
/// patterns in order ([`Patterns::offset`]: pattern `i`'s position `j` is
/// `offset[i] + j`), so that threads sort by pattern, then position.
///
/// A DFA state under construction is its live threads (sorted) and the
/// best permanently matched pattern (`NONE` if none); in *set* mode
/// (acap), every permanently matched pattern instead (sorted).
pub(super) type Thread = u32;

pub(super) const NONE: u32 = u32::MAX;

/// The patterns of one automaton, in the form the construction needs.
pub(super) struct Patterns<'a> {
    /// What the states keep ([`Mode::Register`]: a state's `best` is only
    /// what completes on entering it, not carried to its successors;
    /// [`Mode::Sets`]: no rank, so nothing is pruned by rank, and a state
    /// keeps the set of patterns matched for good, its outcome resolved
    /// from that set by [`crate::outcome::Resolution::outcome`]).
    pub(super) mode: Mode,
    /// Set mode: which matched rules still matter ([`Canonical`]).
    pub(super) canon: Option<Box<dyn Canonical>>,
    /// Atoms of each (simplified) pattern.
    pub(super) body: Vec<&'a [Atom]>,
    /// Must the pattern reach the end of the path?
    pub(super) dollar: Vec<bool>,
    /// Rule id of each pattern.
    pub(super) rule: Vec<usize>,
    /// Place of each pattern when sorted by rank, best first (rules break
    /// ties by id: [`outcome::beats`]).
    pub(super) place: Vec<u32>,
    /// Where each pattern's positions start in `kind` (its first thread).
    pub(super) offset: Vec<u32>,
    /// The pattern of each position.
    pub(super) pat: Vec<u32>,
    /// What each position of each pattern (its end included) reads: see
    /// [`Patterns::kind`].
    pub(super) kind: Vec<u16>,
    /// Scratch space of [`Patterns::new`], kept with the rest.
    seen: Vec<bool>,
    pub(super) set: &'a RuleSet,
}

/// [`Patterns::kind`]: the end of the pattern.
pub(super) const KIND_END: u16 = u16::MAX;
/// [`Patterns::kind`]: a `*`.
pub(super) const KIND_STAR: u16 = u16::MAX - 1;
/// [`Patterns::kind`]: a set or any byte (the atom says which classes).
pub(super) const KIND_SET: u16 = u16::MAX - 2;

impl<'a> Patterns<'a> {
    /// The patterns of rules `ids` of `set` (`simple`: every rule's glob,
    /// simplified), built in `mode`; positions are indexed once the byte
    /// classes are known. A rule equal to an earlier one in atoms, anchoring
    /// and rank never wins, so it is left out (in set mode every rule
    /// counts: its usage and tier matter). `same`: per rule, the first rule
    /// equal to it in those (see [`same_rules`]).
    pub(super) fn new(
        set: &'a RuleSet,
        simple: &[&'a Glob],
        same: &[u32],
        ids: &[usize],
        mode: Mode,
        storage: PatternStorage,
    ) -> Self {
        let PatternStorage {
            mut dollar,
            mut rule,
            mut place,
            mut offset,
            mut pat,
            mut kind,
            mut seen,
        } = storage;
        rule.clear();
        if mode == Mode::Sets {
            rule.extend_from_slice(ids);
        } else {
            // Stamps of the rules kept (`same` numbers them below
            // `simple.len()`).
            seen.clear();
            seen.resize(simple.len(), false);
            for &i in ids {
                let first = same[i] as usize;
                if !seen[first] {
                    seen[first] = true;
                    rule.push(i);
                }
            }
        }
        dollar.clear();
        dollar.extend(rule.iter().map(|&i| simple[i].anchored));
        // Each pattern's place in rank order, best first (`offset` holds
        // the order meanwhile).
        offset.clear();
        offset.extend(0..rule.len() as u32);
        offset.sort_unstable_by_key(|&p| {
            let rule = rule[p as usize];
            (std::cmp::Reverse(set.rules[rule].rank), rule)
        });
        place.clear();
        place.resize(rule.len(), 0);
        for (k, &p) in offset.iter().enumerate() {
            place[p as usize] = k as u32;
        }
        offset.clear();
        pat.clear();
        kind.clear();
        Patterns {
            mode,
            canon: set.resolution.canon(&set.rules),
            body: rule.iter().map(|&i| simple[i].atoms.as_slice()).collect(),
            dollar,
            rule,
            place,
            offset,
            pat,
            kind,
            seen,
            set,
        }
    }

    /// Its tables' storage, for another construction ([`Patterns::new`]).
    pub(super) fn storage(&mut self) -> PatternStorage {
        PatternStorage {
            dollar: std::mem::take(&mut self.dollar),
            rule: std::mem::take(&mut self.rule),
            place: std::mem::take(&mut self.place),
            offset: std::mem::take(&mut self.offset),
            pat: std::mem::take(&mut self.pat),
            kind: std::mem::take(&mut self.kind),
            seen: std::mem::take(&mut self.seen),
        }
    }
}

/// The storage of a [`Patterns`]' tables, kept from one construction to
/// the next ([`super::buffers`]).
#[derive(Default)]
pub(super) struct PatternStorage {
    dollar: Vec<bool>,
    rule: Vec<usize>,
    place: Vec<u32>,
    offset: Vec<u32>,
    pat: Vec<u32>,
    kind: Vec<u16>,
    seen: Vec<bool>,
}

impl PatternStorage {
    /// Bytes held (for the pool's limit).
    pub(super) fn capacity_bytes(&self) -> usize {
        self.dollar.capacity()
            + self.seen.capacity()
            + 8 * self.rule.capacity()
            + 4 * (self.place.capacity() + self.offset.capacity() + self.pat.capacity())
            + 2 * self.kind.capacity()
    }
}

/// Per rule of `set`, the first rule with the same simplified glob
/// (`simple`) and rank: of rules equal in both, only the first of a
/// construction's can win.
pub(super) fn same_rules(set: &RuleSet, simple: &[&Glob]) -> Vec<u32> {
    let mut first: FxHashMap<(&Glob, u32), u32> = FxHashMap::default();
    (0..set.rules.len())
        .map(|i| {
            *first
                .entry((simple[i], set.rules[i].rank))
                .or_insert(i as u32)
        })
        .collect()
}

impl Patterns<'_> {
    /// Does pattern `a` beat pattern `b`?
    pub(super) fn beats(&self, a: u32, b: u32) -> bool {
        // `place` orders the patterns as [`outcome::beats`] orders their
        // rules (checked in debug builds).
        debug_assert!(
            b == NONE
                || (self.place[a as usize] < self.place[b as usize])
                    == outcome::beats(
                        &self.set.rules,
                        self.rule[a as usize],
                        self.rule[b as usize],
                    )
        );
        b == NONE || self.place[a as usize] < self.place[b as usize]
    }

    /// The atom thread `t` reads (none at the end of its pattern).
    pub(super) fn at(&self, t: Thread) -> Option<Atom> {
        let i = self.pat(t);
        let j = t - self.offset[i as usize];
        self.body[i as usize].get(j as usize).copied()
    }

    /// The pattern of thread `t`.
    #[inline]
    pub(super) fn pat(&self, t: Thread) -> u32 {
        self.pat[t as usize]
    }

    /// What thread `t` reads next: the class of its byte, or [`KIND_END`],
    /// [`KIND_STAR`], [`KIND_SET`].
    #[inline]
    pub(super) fn kind(&self, t: Thread) -> u16 {
        self.kind[t as usize]
    }

    /// The closure of `threads` under "a `*` may match nothing", into
    /// `closed` (overwritten); `ended` is called with the pattern of each
    /// thread that reaches its pattern's end. Sorted threads close into
    /// sorted, distinct threads when `sorted` says so: a thread at or before
    /// the last closed one is inside its pattern's `*` run, whose closure is
    /// the rest of that run, already there, so it is skipped.
    #[inline]
    fn close(
        &self,
        threads: &[Thread],
        sorted: bool,
        closed: &mut Vec<Thread>,
        mut ended: impl FnMut(u32),
    ) {
        closed.clear();
        for &t in threads {
            if sorted && closed.last().is_some_and(|&l| l >= t) {
                continue;
            }
            let mut t = t;
            loop {
                closed.push(t);
                match self.kind(t) {
                    KIND_STAR => t += 1,
                    KIND_END => {
                        ended(self.pat(t));
                        break;
                    }
                    _ => break,
                }
            }
        }
    }

    /// Ranked mode: [`Patterns::close`], folding each completed pattern
    /// without `$` into `best`.
    #[inline]
    fn close_ranked(
        &self,
        threads: &[Thread],
        sorted: bool,
        best: &mut u32,
        closed: &mut Vec<Thread>,
    ) {
        self.close(threads, sorted, closed, |i| {
            if !self.dollar[i as usize] && self.beats(i, *best) {
                *best = i;
            }
        });
    }

    /// Closes `threads` under "a `*` may match nothing", records permanent
    /// matches (set mode: in `matched`; ranked: in `best`, by
    /// `normalize_ranked`), and prunes threads that can no longer decide.
    /// `closed` is scratch space (its contents are overwritten).
    pub(super) fn normalize(
        &self,
        threads: &mut Vec<Thread>,
        best: &mut u32,
        matched: &mut Vec<u32>,
        closed: &mut Vec<Thread>,
    ) {
        if self.mode != Mode::Sets {
            self.normalize_ranked(threads, best, closed);
            return;
        }
        // Sorted threads (as `successors` makes them) close into sorted,
        // distinct threads. A finished pattern without `$` is matched for
        // good.
        let sorted = threads.is_sorted();
        self.close(threads, sorted, closed, |i| {
            if !self.dollar[i as usize] {
                if let Err(at) = matched.binary_search(&i) {
                    matched.insert(at, i);
                }
            }
        });
        closed.retain(|&t| {
            let i = self.pat(t);
            // A finished pattern without `$` was put in `matched` above; a
            // pattern matched for good has nothing left to say.
            let permanent = self.kind(t) == KIND_END && !self.dollar[i as usize];
            !permanent && matched.binary_search(&i).is_err()
        });
        if let Some(canon) = &self.canon {
            // Set mode: forget matched rules that no longer change any
            // outcome, and threads of rules that could not either.
            let mut ids: Vec<usize> = matched.iter().map(|&p| self.rule[p as usize]).collect();
            canon.reduce(&mut ids);
            matched.retain(|&p| ids.binary_search(&self.rule[p as usize]).is_ok());
            closed.retain(|&t| canon.matters(self.rule[self.pat(t) as usize], &ids));
        }
        sort_distinct(closed);
        // Star dominance: keep, per pattern, only positions at or after its
        // furthest active `*`.
        let out = threads;
        out.clear();
        for (_, run) in self.runs(closed) {
            let group = &closed[run];
            let floor = self.star_floor(group);
            out.extend(group.iter().filter(|&&t| t >= floor));
        }
    }

    /// [`Patterns::normalize`] for ranked rules (not set mode), in two
    /// passes: close (and fold completed patterns into `best`), then drop
    /// per pattern what is beaten, completed, or behind its last `*`.
    pub(super) fn normalize_ranked(
        &self,
        threads: &mut Vec<Thread>,
        best: &mut u32,
        closed: &mut Vec<Thread>,
    ) {
        let sorted = threads.is_sorted();
        self.close_ranked(threads, sorted, best, closed);
        if !sorted {
            sort_distinct(closed);
        }
        let out = threads;
        out.clear();
        for (i, run) in self.runs(closed) {
            // A register automaton prunes nothing by rank: its states must
            // depend on the recent input only, not on what matched before
            // (the register remembers that).
            if self.mode == Mode::Register || self.beats(i, *best) {
                let group = &closed[run];
                // Star dominance: positions at or after the last active `*`.
                let floor = self.star_floor(group);
                // A finished pattern without `$` was folded into `best`.
                let last = self.span(i).1;
                let permanent = |t: Thread| t == last && !self.dollar[i as usize];
                out.extend(group.iter().filter(|&&t| t >= floor && !permanent(t)));
            }
        }
    }

    /// The runs of `threads` (sorted, distinct) of one pattern each, in
    /// order: the pattern and where its threads are. A pattern's positions
    /// are consecutive, so its run ends after its last position.
    #[inline]
    fn runs<'t>(
        &'t self,
        threads: &'t [Thread],
    ) -> impl Iterator<Item = (u32, std::ops::Range<usize>)> + 't {
        let mut k = 0;
        std::iter::from_fn(move || {
            let i = self.pat(*threads.get(k)?);
            let last = self.span(i).1;
            let start = k;
            k += 1 + threads[k + 1..].iter().take_while(|&&t| t <= last).count();
            Some((i, start..k))
        })
    }

    /// The position of the last `*` among one pattern's threads `group`
    /// (sorted), 0 if none: the threads before it can no longer decide
    /// (star dominance).
    #[inline]
    fn star_floor(&self, group: &[Thread]) -> Thread {
        group
            .iter()
            .rev()
            .find(|&&t| self.kind(t) == KIND_STAR)
            .map_or(0, |&t| t)
    }

    /// Ranked mode: the successor whose threads are the star threads and
    /// `extra` (sorted), given the star threads normalized alone (`base`,
    /// with `base_best`): as [`Patterns::normalize`] of both, which it
    /// equals, but only the patterns `extra` reaches are merged and
    /// filtered again. Its threads go to `out` (overwritten); its best is
    /// returned.
    ///
    /// When, in a plain automaton, `extra` completes a pattern that beats
    /// `base_best`, the patterns of `base` it beats are dropped too:
    /// closing is a union, so the best of both is the better of the two
    /// bests, and a pattern `base` kept beats `base_best`, so only the new
    /// best can beat it (and one `base` dropped for rank is beaten by the
    /// new best as well).
    pub(super) fn join_ranked(
        &self,
        base: &[Thread],
        base_best: u32,
        extra: &[Thread],
        closed: &mut Vec<Thread>,
        group: &mut Vec<Thread>,
        out: &mut Vec<Thread>,
    ) -> u32 {
        debug_assert!(extra.windows(2).all(|w| w[0] < w[1]));
        let mut best = base_best;
        self.close_ranked(extra, true, &mut best, closed);
        // Is `base` filtered by the new best?
        let beaten = self.mode != Mode::Register && best != base_best;
        out.clear();
        let mut cur = 0;
        for (i, run) in self.runs(closed) {
            let (first, last) = self.span(i);
            // Pattern `i`'s threads in `base`: they were kept with the same
            // best, so `i` is not beaten if it has any. The patterns come
            // in order: search forward from the last one.
            let a_start = cur + gallop(&base[cur..], |t| t < first);
            let a_end = a_start + gallop(&base[a_start..], |t| t <= last);
            self.copy_unbeaten(&base[cur..a_start], beaten, best, out);
            if self.mode == Mode::Register || self.beats(i, best) {
                self.join_group(i, &base[a_start..a_end], &closed[run], group);
                out.extend_from_slice(group);
            }
            cur = a_end;
        }
        self.copy_unbeaten(&base[cur..], beaten, best, out);
        best
    }

    /// Ranked mode, the common case of [`Patterns::join_ranked`]: its
    /// successor as the threads by which it differs from `base` (the star
    /// threads normalized alone, with best `key_best`; `index`: where each
    /// pattern's threads are in it), into `diff` (overwritten), with its
    /// best and the sum of `diff`'s hashes; or `None` when the successor's
    /// base is another (its best is not `key_best`, in a plain automaton,
    /// or a pattern `extra` reaches gains, loses or moves its `*`): the
    /// caller makes it whole. Only the patterns `extra` reaches can differ
    /// from `base`, and only they are read.
    ///
    /// A pattern's threads in `base` start at its `*` (its last: `base` is
    /// normalized), and what `extra` adds keeps that `*` unless it brings a
    /// later one; so the pattern's threads in the successor are those of
    /// `base` and those `extra` brings from the `*` on, but for its end
    /// (without `$`: folded into the best), and the difference is the
    /// latter less the former.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn join_diff(
        &self,
        base: &[Thread],
        index: &BaseIndex,
        base_best: u32,
        key_best: u32,
        extra: &[Thread],
        closed: &mut Vec<Thread>,
        diff: &mut Vec<Thread>,
    ) -> Option<(u32, u64)> {
        debug_assert!(extra.windows(2).all(|w| w[0] < w[1]));
        let mut best = base_best;
        self.close_ranked(extra, true, &mut best, closed);
        if self.mode != Mode::Register && best != key_best {
            return None;
        }
        diff.clear();
        let mut h = 0u64;
        for (i, run) in self.runs(closed) {
            let last = self.span(i).1;
            let old = index.get(base, i);
            if self.mode != Mode::Register && !self.beats(i, best) {
                // Dropped whole: not in `base` either (it was normalized
                // with the same best), or the caller decides.
                if !old.is_empty() {
                    return None;
                }
                continue;
            }
            debug_assert!(old.first().is_none_or(|&t| self.kind(t) == KIND_STAR));
            let floor = old.first().copied().unwrap_or(0);
            let permanent = if self.dollar[i as usize] { NONE } else { last };
            let mut y = 0;
            for &t in &closed[run] {
                if t < floor {
                    continue;
                }
                if self.kind(t) == KIND_STAR && (old.is_empty() || t > floor) {
                    return None;
                }
                if t == permanent {
                    continue;
                }
                while y < old.len() && old[y] < t {
                    y += 1;
                }
                if y < old.len() && old[y] == t {
                    continue;
                }
                diff.push(t);
                h = h.wrapping_add(thread_hash(t));
            }
        }
        Some((best, h))
    }

    /// The first and last positions of pattern `i` (its end).
    #[inline]
    fn span(&self, i: u32) -> (Thread, Thread) {
        (self.offset[i as usize], self.offset[i as usize + 1] - 1)
    }

    /// What `normalize_ranked` keeps of pattern `i` (not beaten) whose
    /// threads are `a` and `b` (sorted, distinct), into `group`
    /// (overwritten): their union from its last `*` on, without its end
    /// unless it has `$`. (What `a` or `b` dropped of it by its own last
    /// `*`, a later one drops too.)
    #[inline]
    fn join_group(&self, i: u32, a: &[Thread], b: &[Thread], group: &mut Vec<Thread>) {
        union(a, b, group);
        let floor = group
            .iter()
            .rposition(|&t| self.kind(t) == KIND_STAR)
            .unwrap_or(0);
        group.drain(..floor);
        let last = self.span(i).1;
        if !self.dollar[i as usize] && group.last() == Some(&last) {
            // A finished pattern without `$` was folded into the best.
            group.pop();
        }
    }

    /// Appends `part` (whole patterns' threads of a normalized state) to
    /// `out`; when `beaten`, only the patterns that beat `best`.
    #[inline]
    fn copy_unbeaten(&self, part: &[Thread], beaten: bool, best: u32, out: &mut Vec<Thread>) {
        if !beaten {
            out.extend_from_slice(part);
            return;
        }
        for (i, run) in self.runs(part) {
            if self.beats(i, best) {
                out.extend_from_slice(&part[run]);
            }
        }
    }

    /// Set mode: the rules matched if the path ends in the state of
    /// `threads` and `matched` (sorted rule ids).
    pub(super) fn matched_rules(&self, threads: &[Thread], matched: &[u32]) -> Vec<usize> {
        let ended = threads
            .iter()
            .filter(|&&t| self.kind(t) == KIND_END && self.dollar[self.pat(t) as usize])
            .map(|&t| self.pat(t));
        let mut rules: Vec<usize> = matched
            .iter()
            .copied()
            .chain(ended)
            .map(|p| self.rule[p as usize])
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// The winning pattern if the path ends in the state of `threads` and
    /// `best` (a register automaton: among the emit and the `$` patterns
    /// completed there).
    pub(super) fn winning_pattern(&self, threads: &[Thread], best: u32) -> Option<u32> {
        let mut best = best;
        for &t in threads {
            if self.kind(t) == KIND_END {
                let i = self.pat(t);
                if self.dollar[i as usize] && self.beats(i, best) {
                    best = i;
                }
            }
        }
        (best != NONE).then_some(best)
    }
}

/// Sorts `threads` and drops repeats, unless they are sorted and distinct
/// already.
fn sort_distinct(threads: &mut Vec<Thread>) {
    if !threads.windows(2).all(|w| w[0] < w[1]) {
        threads.sort_unstable();
        threads.dedup();
    }
}

/// How many leading elements of `s` (sorted) satisfy `pred` (true on a
/// prefix of `s`): an exponential search, in steps of the logarithm of the
/// answer rather than of `s`'s length.
#[inline]
fn gallop(s: &[Thread], pred: impl Fn(Thread) -> bool) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step <= s.len() && pred(s[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step - 1).min(s.len());
    lo + s[lo..hi].partition_point(|&t| pred(t))
}

/// Where each pattern's threads are in a normalized set of threads (a
/// base): built in the size of the set, read in constant time.
#[derive(Default)]
pub(super) struct BaseIndex {
    /// Per pattern: its threads' range, valid when its stamp is `stamp`.
    range: Vec<(u32, u32)>,
    stamps: Vec<u32>,
    stamp: u32,
}

impl BaseIndex {
    /// Nothing indexed, for `patterns` patterns (the storage kept).
    pub(super) fn reset(&mut self, patterns: usize) {
        self.range.clear();
        self.range.resize(patterns, (0, 0));
        self.stamps.clear();
        self.stamps.resize(patterns, 0);
        self.stamp = 0;
    }

    /// Indexes `base` (of `pats`), forgetting what was indexed before.
    pub(super) fn build(&mut self, pats: &Patterns<'_>, base: &[Thread]) {
        self.stamp += 1;
        if self.stamp == u32::MAX {
            self.stamps.fill(0);
            self.stamp = 1;
        }
        for (i, run) in pats.runs(base) {
            self.range[i as usize] = (run.start as u32, run.end as u32);
            self.stamps[i as usize] = self.stamp;
        }
    }

    /// Pattern `i`'s threads in `base` (as indexed).
    #[inline]
    fn get<'b>(&self, base: &'b [Thread], i: u32) -> &'b [Thread] {
        if self.stamps[i as usize] == self.stamp {
            let (a, b) = self.range[i as usize];
            &base[a as usize..b as usize]
        } else {
            &[]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::gallop;

    #[test]
    fn gallop_is_partition_point() {
        let s: Vec<u32> = (0..100).map(|k| k * 2).collect();
        for n in 0..s.len() {
            for x in 0..=200 {
                let p = |t: u32| t < x;
                assert_eq!(gallop(&s[..n], p), s[..n].partition_point(|&t| p(t)));
            }
        }
    }
}
