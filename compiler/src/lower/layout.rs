//! Laying out: which states are decided, and the automaton written as a
//! program ([`plan`], [`emit`]: compact nodes and dense rows); then, per
//! [`Layout`], automata rewritten as rows ([`densify`]).

use super::determinise::END_CLASS;
use super::{Ctx, Layout};
use robocc_engine::artifact::Automaton;
use robocc_engine::program::{
    decode, encode, node_len, Node, Target, END_CLASS as PROGRAM_END_CLASS, TAG_CHAIN, TAG_FALLBACK,
};

/// [`Layout::Auto`]: rows only while one automaton's stay within this many
/// bytes, where they and the rest of a check's reads stay in a 48 KiB L1
/// data cache (measured: files whose rows pass 32 KiB gained least).
pub const AUTO_MAX_ROWS: usize = 32 << 10;

/// [`Layout::Auto`]: a policy's programs may grow to this many times its
/// source (counted as at least 1 KiB), which keeps the corpus's p99
/// artifact/source ratio far inside issue 12's 20× (docs/artifact.md).
pub const AUTO_ROWS_PER_SOURCE_BYTE: usize = 12;

/// Whether a walk of `a` can leave a row for a fallback node (a `*`
/// pattern's literal, read against its scanning row) and come back: the
/// node dispatch and the row loop's exit that rows would save; and the
/// rows [`densify`] would make of `a` (one per node, one per chain
/// position). Read from the compact nodes' tags, which follow the dense
/// rows ([`robocc_engine::program`]).
fn compact_nodes(a: &Automaton) -> (bool, usize) {
    let prog = a.prog.as_slice();
    let w = if a.wide { 4 } else { 2 };
    let e = if a.ranked.is_empty() { 0 } else { w };
    let mut rows = a.dense_len as usize / (e + (usize::from(a.classes_len) + 1) * w);
    let mut fallback = false;
    let mut at = a.dense_len as usize + e;
    while let Some(&tag) = prog.get(at) {
        fallback |= tag & TAG_FALLBACK != 0;
        let n = usize::from(tag & !(TAG_CHAIN | TAG_FALLBACK));
        rows += if tag < TAG_CHAIN { 1 } else { n + 1 };
        at += e + node_len(tag, w);
    }
    (fallback, rows)
}

impl Ctx<'_> {
    /// The last stage: with [`Layout::Dense`], each automaton rewritten as
    /// rows ([`densify`]) where the rows stay within the table budget; with
    /// [`Layout::Auto`], only automata with fallback nodes, within the auto
    /// limits too (`source_len`: the length of the source, as given). The
    /// form (plain or register, one automaton or split) was chosen, and the
    /// budget met, on compact sizes: a file that compiles compact compiles
    /// in any layout.
    pub(super) fn lay_out(&mut self, source_len: usize) {
        let auto = match self.budget.layout {
            Layout::Compact => return,
            Layout::Auto => true,
            Layout::Dense => false,
        };
        let allowance = AUTO_ROWS_PER_SOURCE_BYTE.saturating_mul(source_len.max(1024));
        let mut programs: usize = self.automata.iter().map(|a| a.prog.len()).sum();
        let outcomes = self.table.ids.len();
        for a in &mut self.automata {
            // Rows are never smaller than the nodes they replace: a program
            // past the cap is not decoded at all (it may be megabytes).
            let (fallback, rows) = compact_nodes(a);
            if auto && (a.prog.len() > AUTO_MAX_ROWS || !fallback) {
                continue;
            }
            // The rows' size, known before they are made (most are over
            // the limits): 2-byte targets, as `densify` makes them or none.
            let register = usize::from(!a.ranked.is_empty());
            let size = rows * 2 * (usize::from(a.classes_len) + 1 + register);
            let grown = size.saturating_sub(a.prog.len());
            let spent = self.spent_bytes + grown;
            if auto && (size > AUTO_MAX_ROWS || programs + grown > allowance)
                || spent > self.budget.total_bytes
            {
                continue;
            }
            let Some(d) = densify(a, outcomes) else {
                continue;
            };
            debug_assert_eq!(d.prog.len(), size);
            self.spent_bytes = spent;
            programs += grown;
            *a = d;
        }
    }
}

/// `a` (of a policy with `outcomes` outcome ids) with a dense row for
/// every state ([`Layout::Dense`]): every chain position becomes a row of
/// its own, and what a compact node leaves to its default (consumed, or
/// read again at the default's row) is written into the row. `None` when the dense program would need 4-byte targets (it
/// would no longer be the small, cache-resident table that makes it fast)
/// or `a` does not decode.
fn densify(a: &Automaton, outcomes: usize) -> Option<Automaton> {
    // Rows are never smaller than the nodes they replace.
    if a.prog.len() > 0xFFFF {
        return None;
    }
    let (start, nodes, emits) = decode(a)?;
    let classes_len = usize::from(a.classes_len);
    let register = !a.ranked.is_empty();
    // The row of each node's first state; chains take one per class.
    let mut first = Vec::with_capacity(nodes.len());
    let mut states = 0usize;
    for node in &nodes {
        first.push(states as u32);
        states += match node {
            Node::Chain { classes, .. } => classes.len(),
            _ => 1,
        };
    }
    let row_bytes = 2 * (classes_len + 1 + usize::from(register));
    // Decided targets are offsets past the program: they must fit too.
    let outcomes = if register { a.ranked.len() } else { outcomes };
    let rows_already = nodes.iter().all(|n| matches!(n, Node::Dense { .. }));
    if rows_already || states.checked_mul(row_bytes)? + outcomes > 0xFFFF {
        return None;
    }
    let map = |t: Target| match t {
        Target::Node(i) => Target::Node(first[i as usize]),
        decided => decided,
    };
    // A fallback reads the class again at its default, a dense row (the
    // validator admits no other); checked here rather than assumed.
    let fallbacks_ok = nodes.iter().all(|n| match n {
        Node::Sparse {
            fallback: true,
            default,
            ..
        }
        | Node::Chain {
            fallback: true,
            default,
            ..
        } => matches!(default, Target::Node(d) if matches!(nodes[*d as usize], Node::Dense { .. })),
        _ => true,
    });
    if !fallbacks_ok {
        return None;
    }
    // Where class `c` goes when a compact node does not list it.
    let miss = |default: Target, fallback: bool, c: usize| -> Target {
        match (fallback, default) {
            (true, Target::Node(d)) => match &nodes[d as usize] {
                Node::Dense { row, .. } => map(row[c]),
                // Excluded by `fallbacks_ok`.
                _ => map(default),
            },
            _ => map(default),
        }
    };
    let end = usize::from(PROGRAM_END_CLASS);
    let mut rows = Vec::with_capacity(states);
    let mut row_emits = Vec::with_capacity(if register { states } else { 0 });
    for (i, node) in nodes.iter().enumerate() {
        match node {
            Node::Dense { outcome, row } => rows.push(Node::Dense {
                outcome: *outcome,
                row: row.iter().map(|&t| map(t)).collect(),
            }),
            Node::Sparse {
                outcome,
                default,
                fallback,
                exceptions,
            } => rows.push(Node::Dense {
                outcome: *outcome,
                row: (0..classes_len)
                    .map(
                        |c| match exceptions.iter().find(|e| usize::from(e.0) == c) {
                            _ if c == end => Target::Outcome(*outcome),
                            Some(e) => map(e.1),
                            None => miss(*default, *fallback, c),
                        },
                    )
                    .collect(),
            }),
            Node::Chain {
                outcome,
                default,
                fallback,
                classes,
                next,
            } => {
                for (j, &want) in classes.iter().enumerate() {
                    rows.push(Node::Dense {
                        outcome: *outcome,
                        row: (0..classes_len)
                            .map(|c| {
                                if c == end {
                                    Target::Outcome(*outcome)
                                } else if c != usize::from(want) {
                                    miss(*default, *fallback, c)
                                } else if j + 1 < classes.len() {
                                    Target::Node(first[i] + j as u32 + 1)
                                } else {
                                    map(*next)
                                }
                            })
                            .collect(),
                    });
                }
            }
        }
        if register {
            // Chains hold only states without an emit after their head.
            let k = rows.len() - row_emits.len();
            row_emits.push(emits[i]);
            row_emits.extend(std::iter::repeat_n(0, k - 1));
        }
    }
    let classes: [u8; 256] = a.classes.as_slice().try_into().ok()?;
    let mut d = encode(
        classes,
        a.classes_len,
        map(start),
        &rows,
        &row_emits,
        a.ranked.clone(),
        outcomes,
    );
    d.max_rank = a.max_rank;
    Some(d)
}

/// What a register automaton adds to its states (see
/// [`robocc_engine::program`]); its `outcome`s are priorities.
pub(super) struct Register<'a> {
    /// Priority completed on entering each state (0: none).
    pub(super) emit: &'a [u32],
    /// States without live threads: nothing can change after them.
    pub(super) dead: &'a [bool],
    /// Priority → outcome id.
    pub(super) ranked: Vec<u32>,
}

/// Sweeps over the states [`mark_undecided`] makes before it searches
/// over their predecessors instead.
const SWEEPS: usize = 4;

/// Rows of at most this many runs have their targets counted on the stack
/// ([`plan`]).
const FEW_RUNS: usize = 16;

/// States with more exceptions to their default target than this are
/// written as dense rows whatever the size (a sparse node is a linear scan;
/// the node format holds at most 63).
const SPARSE_LIMIT: usize = 12;
/// A state is written dense when its row costs at most this many times its
/// sparse form: a branchy state is cheap to make one lookup.
const DENSE_FACTOR: usize = 3;
/// The first nodes in breadth-first order (the first bytes of every path)
/// are dense from this many exceptions on; the start state always is.
const HOT_NODES: usize = 4;
const HOT_EXCEPTIONS: usize = 2;

/// Which states are undecided (into `undecided`): some state reachable
/// from them has another outcome (a register automaton: they have live
/// threads, since what the register holds is known only at run time). The
/// others are decided, and a transition into one is written as its
/// outcome. `pred_at`, `fill`, `preds` and `queue` are scratch space.
#[allow(clippy::too_many_arguments)]
fn mark_undecided(
    runs: &Succ,
    outcome: &[u32],
    register: Option<&Register<'_>>,
    undecided: &mut Vec<bool>,
    pred_at: &mut Vec<u32>,
    fill: &mut Vec<u32>,
    preds: &mut Vec<u32>,
    queue: &mut Vec<u32>,
) {
    let n = runs.len();
    let undecided = filled(undecided, n, false);
    if let Some(r) = register {
        // What the register holds is known only at run time: a state is
        // decided when nothing can happen after it.
        for (u, &dead) in undecided.iter_mut().zip(r.dead) {
            *u = !dead;
        }
        return;
    }
    if !sweep_undecided(runs, outcome, undecided) {
        undecided.fill(false);
        search_undecided(runs, outcome, undecided, pred_at, fill, preds, queue);
    }
    #[cfg(debug_assertions)]
    {
        let mut searched = vec![false; n];
        search_undecided(runs, outcome, &mut searched, pred_at, fill, preds, queue);
        assert_eq!(*undecided, searched, "the sweeps and the search agree");
    }
}

/// [`mark_undecided`] of a plain automaton by sweeps: a state is undecided
/// when a successor has another outcome or is undecided. States are
/// numbered as the construction found them, mostly after their
/// predecessors: sweeps from the last state to the first settle most
/// automata in two (the second changes nothing), reaching the least
/// fixpoint, which the search finds too. False when [`SWEEPS`] did not
/// settle it. A run of a row is one edge.
fn sweep_undecided(runs: &Succ, outcome: &[u32], undecided: &mut [bool]) -> bool {
    for _ in 0..SWEEPS {
        let mut changed = false;
        for s in (0..runs.len()).rev() {
            if !undecided[s]
                && runs
                    .targets(s)
                    .iter()
                    .any(|&t| outcome[t as usize] != outcome[s] || undecided[t as usize])
            {
                undecided[s] = true;
                changed = true;
            }
        }
        if !changed {
            return true;
        }
    }
    false
}

/// [`mark_undecided`] of a plain automaton (`undecided` all false) by a
/// search: seeded with the states that have a successor of another
/// outcome, propagated backwards over the predecessors (one array:
/// `pred_at[t]..pred_at[t + 1]` are `t`'s).
fn search_undecided(
    runs: &Succ,
    outcome: &[u32],
    undecided: &mut [bool],
    pred_at: &mut Vec<u32>,
    fill: &mut Vec<u32>,
    preds: &mut Vec<u32>,
    queue: &mut Vec<u32>,
) {
    let n = runs.len();
    let pred_at = filled(pred_at, n + 1, 0);
    queue.clear();
    for s in 0..n {
        for &t in runs.targets(s) {
            pred_at[t as usize + 1] += 1;
            if outcome[t as usize] != outcome[s] && !undecided[s] {
                undecided[s] = true;
                queue.push(s as u32);
            }
        }
    }
    for t in 0..n {
        pred_at[t + 1] += pred_at[t];
    }
    fill.clear();
    fill.extend_from_slice(pred_at);
    let preds = filled(preds, pred_at[n] as usize, 0);
    for s in 0..n {
        for &t in runs.targets(s) {
            preds[fill[t as usize] as usize] = s as u32;
            fill[t as usize] += 1;
        }
    }
    while let Some(t) = queue.pop() {
        let t = t as usize;
        for &p in &preds[pred_at[t] as usize..pred_at[t + 1] as usize] {
            if !undecided[p as usize] {
                undecided[p as usize] = true;
                queue.push(p);
            }
        }
    }
}

/// An automaton's transitions: each state's row (its successor on each
/// class) as runs of equal targets, which rows mostly are (the successor
/// of the classes no thread names, and a few others): `targets(s)` and
/// `starts(s)`, the class each run starts at (it ends where the next
/// starts, or at the row's end). The end class (class 1) ends the path:
/// its entry repeats class 0's (which is never the end class), so it is
/// inside the first run, a pass that reads a row as a set of edges needs
/// no test per class, and a count of a row's entries counts class 0's
/// target once too many. (Whole rows, 4 bytes a class, were most of what
/// a construction wrote and `finish` read.)
#[derive(Default)]
pub(super) struct Succ {
    target: Vec<u32>,
    start: Vec<u8>,
    at: Vec<u32>,
    pub(super) nclasses: usize,
}

/// Runs being appended to a [`Succ`]: a run is appended unless the last
/// one goes to the same target (state ids are below `u32::MAX`).
struct RunsOut<'v> {
    target: &'v mut Vec<u32>,
    start: &'v mut Vec<u8>,
    last: u32,
}

impl RunsOut<'_> {
    /// Class `c` on goes to `t`.
    #[inline]
    fn emit(&mut self, c: usize, t: u32) {
        if t != self.last {
            self.last = t;
            self.target.push(t);
            self.start.push(c as u8);
        }
    }

    /// The runs `range` of `targets` and `starts`, as they are
    /// (consecutive runs differ: only the first may join the last one).
    #[inline]
    fn copy(&mut self, targets: &[u32], starts: &[u8], range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        self.emit(usize::from(starts[range.start]), targets[range.start]);
        self.target
            .extend_from_slice(&targets[range.start + 1..range.end]);
        self.start
            .extend_from_slice(&starts[range.start + 1..range.end]);
        self.last = targets[range.end - 1];
    }
}

/// The runs of `row` (a row whole; its end class's entry is not read: it
/// repeats class 0's), into `target` and `start` (appended).
pub(super) fn runs_of(row: &[u32], target: &mut Vec<u32>, start: &mut Vec<u8>) {
    let mut prev = row[0];
    target.push(prev);
    start.push(0);
    for (c, &t) in row.iter().enumerate().skip(END_CLASS + 1) {
        if t != prev {
            prev = t;
            target.push(t);
            start.push(c as u8);
        }
    }
}

impl Succ {
    pub(super) fn new(nclasses: usize) -> Succ {
        debug_assert!(nclasses > END_CLASS && nclasses <= 256);
        Succ {
            target: Vec::new(),
            start: Vec::new(),
            at: vec![0],
            nclasses,
        }
    }

    /// No row, for `nclasses` classes (the storage kept).
    pub(super) fn reset(&mut self, nclasses: usize) {
        debug_assert!(nclasses > END_CLASS && nclasses <= 256);
        self.target.clear();
        self.start.clear();
        self.at.clear();
        self.at.push(0);
        self.nclasses = nclasses;
    }

    /// Bytes held (for the pool's limit).
    pub(super) fn capacity_bytes(&self) -> usize {
        4 * (self.target.capacity() + self.at.capacity()) + self.start.capacity()
    }

    /// Number of states.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.at.len() - 1
    }

    /// State `s`'s runs' targets.
    #[inline]
    pub(super) fn targets(&self, s: usize) -> &[u32] {
        &self.target[self.at[s] as usize..self.at[s + 1] as usize]
    }

    /// The class each of state `s`'s runs starts at.
    #[inline]
    pub(super) fn starts(&self, s: usize) -> &[u8] {
        &self.start[self.at[s] as usize..self.at[s + 1] as usize]
    }

    /// State `s`'s row, whole, into `out` (`nclasses` long).
    pub(super) fn row_into(&self, s: usize, out: &mut [u32]) {
        let (targets, starts) = (self.targets(s), self.starts(s));
        for (k, &t) in targets.iter().enumerate() {
            let end = starts.get(k + 1).map_or(self.nclasses, |&c| usize::from(c));
            out[usize::from(starts[k])..end].fill(t);
        }
    }

    /// The classes but the end class where the rows of states `s` and `d`
    /// differ, ascending, each with `s`'s target, to `f` until it returns
    /// false.
    pub(super) fn differences(&self, s: usize, d: usize, mut f: impl FnMut(usize, u32) -> bool) {
        let (ta, sa) = (self.targets(s), self.starts(s));
        let (tb, sb) = (self.targets(d), self.starts(d));
        let n = self.nclasses;
        let (mut i, mut j, mut c) = (0, 0, 0);
        while c < n {
            let ea = sa.get(i + 1).map_or(n, |&x| usize::from(x));
            let eb = sb.get(j + 1).map_or(n, |&x| usize::from(x));
            let end = ea.min(eb);
            if ta[i] != tb[j] {
                for k in c..end {
                    if k != END_CLASS && !f(k, ta[i]) {
                        return;
                    }
                }
            }
            c = end;
            i += usize::from(ea == end);
            j += usize::from(eb == end);
        }
    }

    #[inline]
    fn end_row(&mut self) {
        self.at.push(self.target.len() as u32);
    }

    /// Appends a row whose every class goes to `t`.
    pub(super) fn push_loop(&mut self, t: u32) {
        self.target.push(t);
        self.start.push(0);
        self.end_row();
    }

    /// Appends `row` (whole; its end class's entry is not read).
    pub(super) fn push_row(&mut self, row: &[u32]) {
        debug_assert_eq!(row.len(), self.nclasses);
        runs_of(row, &mut self.target, &mut self.start);
        self.end_row();
    }

    /// Appends the row of runs `targets` and `starts` but for the classes
    /// of `patches` (ascending, never the end class), which go where they
    /// say: in the size of the runs and the patches, not of the row.
    pub(super) fn push_patched(&mut self, targets: &[u32], starts: &[u8], patches: &[(u8, u32)]) {
        let n = self.nclasses;
        let end = |k: usize| starts.get(k + 1).map_or(n, |&c| usize::from(c));
        let mut out = RunsOut {
            target: &mut self.target,
            start: &mut self.start,
            last: u32::MAX,
        };
        // Base run `k` from class `c` on is still to push.
        let (mut k, mut c) = (0, 0);
        for &(pc, pt) in patches {
            let pc = usize::from(pc);
            debug_assert!(pc != END_CLASS && pc >= c);
            // The run holding `pc`; the whole runs before it are pushed as
            // they are.
            let mut kk = k;
            while starts.get(kk + 1).is_some_and(|&s| usize::from(s) <= pc) {
                kk += 1;
            }
            if kk > k {
                if c < end(k) {
                    out.emit(c, targets[k]);
                }
                out.copy(targets, starts, k + 1..kk);
                (k, c) = (kk, usize::from(starts[kk]));
            }
            if c < pc {
                out.emit(c, targets[k]);
            }
            out.emit(pc, pt);
            // Class 0's target is the end class's too.
            c = if pc == 0 { END_CLASS + 1 } else { pc + 1 };
        }
        if c < end(k) {
            out.emit(c, targets[k]);
        }
        out.copy(targets, starts, k + 1..targets.len());
        self.end_row();
        #[cfg(debug_assertions)]
        {
            // The same runs as the row whole.
            let s = self.len() - 1;
            let mut row = vec![0; self.nclasses];
            for (k, &t) in targets.iter().enumerate() {
                let end = starts.get(k + 1).map_or(self.nclasses, |&c| usize::from(c));
                row[usize::from(starts[k])..end].fill(t);
            }
            for &(c, t) in patches {
                row[usize::from(c)] = t;
            }
            let (mut t, mut st) = (Vec::new(), Vec::new());
            runs_of(&row, &mut t, &mut st);
            assert_eq!((self.targets(s), self.starts(s)), (&t[..], &st[..]));
        }
    }
}

/// What [`plan`] fills per state and per node (and [`emit`] reads), kept
/// from one automaton to the next.
#[derive(Default)]
pub(super) struct FinishBuffers {
    undecided: Vec<bool>,
    pred_at: Vec<u32>,
    fill: Vec<u32>,
    preds: Vec<u32>,
    queue: Vec<u32>,
    indegree: Vec<u32>,
    default: Vec<u32>,
    /// Each state's number of exceptions to its default.
    excn: Vec<u32>,
    count: Vec<u32>,
    seen: Vec<u32>,
    rank: Vec<u32>,
    order: Vec<u32>,
    is_dense: Vec<bool>,
    node_of: Vec<u32>,
    absorbed: Vec<bool>,
    plans: Vec<Plan>,
    /// The plans' exceptions and chain classes.
    plan_exc: Vec<(u8, u32)>,
    plan_classes: Vec<u8>,
    listed: Vec<(u8, u32)>,
    next_listed: Vec<(u8, u32)>,
    whole: Vec<u32>,
}

impl FinishBuffers {
    /// Bytes held (for the pool's limit).
    pub(super) fn capacity_bytes(&self) -> usize {
        self.undecided.capacity()
            + self.is_dense.capacity()
            + self.absorbed.capacity()
            + self.plan_classes.capacity()
            + 4 * (self.pred_at.capacity()
                + self.fill.capacity()
                + self.preds.capacity()
                + self.queue.capacity()
                + self.indegree.capacity()
                + self.default.capacity()
                + self.excn.capacity()
                + self.count.capacity()
                + self.seen.capacity()
                + self.rank.capacity()
                + self.order.capacity()
                + self.node_of.capacity()
                + self.whole.capacity())
            + 8 * (self.plan_exc.capacity() + self.listed.capacity() + self.next_listed.capacity())
            + std::mem::size_of::<Plan>() * self.plans.capacity()
    }
}

/// `v` as `n` copies of `x`, its storage kept.
fn filled<T: Clone>(v: &mut Vec<T>, n: usize, x: T) -> &mut Vec<T> {
    v.clear();
    v.resize(n, x);
    v
}

/// How [`emit`] writes an undecided state.
#[derive(Clone, Copy)]
enum Plan {
    Dense(usize),
    /// State, fallback, default, and its exceptions: `plan_exc[from..to]`.
    Sparse(usize, bool, usize, u32, u32),
    /// Head state, fallback, default, its classes (`plan_classes[from..to]`)
    /// and the next state.
    Chain(usize, bool, usize, u32, u32, usize),
}

/// The first half of laying out an automaton (into `bufs`): marks decided
/// states ([`mark_undecided`]) and plans the program
/// ([`robocc_engine::program`]): breadth-first from the start, runs of
/// single-exception states as chains, others sparse or dense, and every
/// transition into a decided state as that state's outcome. The end class
/// is class 1 (its entries in `succ` are not read). [`program_len`] is its
/// program's size, [`emit`] writes it: a program that is only measured
/// (the plain automaton a register one replaces) is never written.
pub(super) fn plan(
    succ: &Succ,
    outcome: &[u32],
    end_class: usize,
    register: Option<&Register<'_>>,
    bufs: &mut FinishBuffers,
) {
    assert_eq!(end_class, 1, "the end class is class 1");
    let FinishBuffers {
        undecided,
        pred_at,
        fill,
        preds,
        queue,
        indegree,
        default,
        excn,
        count,
        seen,
        rank,
        order,
        is_dense,
        node_of,
        absorbed,
        plans,
        plan_exc,
        plan_classes,
        listed,
        next_listed,
        whole: _,
    } = bufs;
    let n = succ.len();
    let nclasses = succ.nclasses;
    let runs = succ;
    mark_undecided(
        runs, outcome, register, undecided, pred_at, fill, preds, queue,
    );
    let undecided = &*undecided;
    // Register automata: the walk reads an emit only when it moves to a
    // node, so a chain may absorb only states without one.
    let emit_of = |s: usize| register.map_or(0, |r| r.emit[s]);
    // Per undecided state: its default (the most frequent live target, the
    // lowest of those) and how many exceptions it has (the live classes
    // that go elsewhere); and the edges into each state from undecided
    // states (`indegree`: a chain may absorb a state only if its one way
    // in is the chain itself).
    let indegree = filled(indegree, n, 0);
    let default = filled(default, n, 0);
    let excn = filled(excn, n, 0);
    {
        // Occurrences in the row being read of each target, and the
        // targets seen (to clear them), for rows of many runs.
        // Filled only for a row of many runs (and cleared after each).
        count.clear();
        seen.clear();
        for s in 0..n {
            if undecided[s] {
                let (targets, starts) = (runs.targets(s), runs.starts(s));
                let end = |k: usize| starts.get(k + 1).map_or(nclasses, |&c| usize::from(c));
                let first = targets[0];
                if targets.len() == 1 {
                    // One target: the default, no exceptions.
                    indegree[first as usize] += nclasses as u32 - 1;
                    default[s] = first;
                } else {
                    // The first run holds the end class.
                    let len =
                        |k: usize| (end(k) - usize::from(starts[k])) as u32 - u32::from(k == 0);
                    let mut d = first;
                    let mut most = 0;
                    let mut pick = |t: u32, k: u32| {
                        if k > most || (k == most && t < d) {
                            (d, most) = (t, k);
                        }
                        indegree[t as usize] += k;
                    };
                    if targets.len() <= FEW_RUNS {
                        // Few runs (most rows): their targets counted
                        // here, not in an array as long as the automaton.
                        let mut seen = [(0u32, 0u32); FEW_RUNS];
                        let mut m = 0;
                        for (k, &t) in targets.iter().enumerate() {
                            match seen[..m].iter_mut().find(|(u, _)| *u == t) {
                                Some((_, c)) => *c += len(k),
                                None => {
                                    seen[m] = (t, len(k));
                                    m += 1;
                                }
                            }
                        }
                        for &(t, k) in &seen[..m] {
                            pick(t, k);
                        }
                    } else {
                        count.resize(n, 0);
                        for (k, &t) in targets.iter().enumerate() {
                            if count[t as usize] == 0 {
                                seen.push(t);
                            }
                            count[t as usize] += len(k);
                        }
                        for &t in seen.iter() {
                            pick(t, count[t as usize]);
                            count[t as usize] = 0;
                        }
                        seen.clear();
                    }
                    default[s] = d;
                    // Every live class but the default's.
                    excn[s] = nclasses as u32 - 1 - most;
                }
            }
        }
    }
    let (indegree, default, excn) = (&*indegree, &*default, &*excn);
    // State `s`'s exceptions, class and target in class order, into `out`
    // (listed only for the states that may be written as lists).
    let exceptions = |s: usize, out: &mut Vec<(u8, u32)>| {
        let (targets, starts) = (runs.targets(s), runs.starts(s));
        let d = default[s];
        for (k, &t) in targets.iter().enumerate() {
            if t != d {
                let end = starts.get(k + 1).map_or(nclasses, |&c| usize::from(c));
                out.extend(
                    (usize::from(starts[k])..end)
                        .filter(|&c| c != end_class)
                        .map(|c| (c as u8, t)),
                );
            }
        }
    };
    // Breadth-first rank of each undecided state: how early paths reach it.
    let rank = filled(rank, n, u32::MAX);
    order.clear();
    if undecided[0] {
        rank[0] = 0;
        order.push(0);
    }
    let mut k = 0;
    while k < order.len() {
        let s = order[k] as usize;
        k += 1;
        for &t in runs.targets(s) {
            let t = t as usize;
            if undecided[t] && rank[t] == u32::MAX {
                rank[t] = order.len() as u32;
                order.push(t as u32);
            }
        }
    }
    let rank = &*rank;
    // Which states get a dense row. Row sizes with 2-byte targets: a
    // sparse node is tag, outcome, default and per exception a class byte
    // and a target; a dense row is a target per class and the outcome.
    // Register automata are Aho-Corasick-like: a state inside a word
    // differs from the scanning state only where the word goes on, but
    // names every word's first byte; count what a fallback node lists.
    let scanning = |s: usize| undecided[s] && default[s] as usize == s;
    let differ_count = |s: usize, d: usize| {
        let mut count = 0;
        succ.differences(s, d, |_, _| {
            count += 1;
            true
        });
        count
    };
    is_dense.clear();
    is_dense.extend((0..n).map(|s| {
        if !undecided[s] {
            return false;
        }
        let d = default[s] as usize;
        let mut m = excn[s] as usize;
        if register.is_some() && d != s && scanning(d) {
            m = m.min(differ_count(s, d));
        }
        let sparse_size = 5 + 3 * m;
        let dense_size = 2 * (nclasses + 1);
        // A state whose default is itself is where a `*` scans the
        // path: every byte of it passes there.
        m > SPARSE_LIMIT
            || d == s
            || dense_size <= DENSE_FACTOR * sparse_size
            || (rank[s] < HOT_NODES as u32 && m >= HOT_EXCEPTIONS)
            // Every walk starts here: a chain or sparse node would
            // cost each check a dispatch.
            || rank[s] == 0
    }));
    let is_dense = &*is_dense;
    // The others: listed exceptions and a consuming default, or only the
    // classes where they differ from their default's dense row (fallback),
    // whichever lists fewer. Into `out`; returns fallback and default.
    let shape = |s: usize, out: &mut Vec<(u8, u32)>| -> (bool, usize) {
        let d = default[s] as usize;
        let listed = excn[s] as usize;
        out.clear();
        if undecided[d] && is_dense[d] && d != s {
            // Only used if shorter than the list: stop when it is not.
            let mut shorter = listed != 0;
            if shorter {
                succ.differences(s, d, |c, x| {
                    out.push((c as u8, x));
                    shorter = out.len() < listed;
                    shorter
                });
            }
            if shorter {
                return (true, d);
            }
            out.clear();
        }
        exceptions(s, out);
        debug_assert_eq!(out.len(), listed);
        (false, d)
    };
    // Lay out nodes breadth-first; `node_of[s]` is the node a state starts
    // (`u32::MAX`: none).
    let node_of = filled(node_of, n, u32::MAX);
    let absorbed = filled(absorbed, n, false);
    plans.clear();
    plan_exc.clear();
    plan_classes.clear();
    for &s in order.iter() {
        let s = s as usize;
        if absorbed[s] {
            continue;
        }
        node_of[s] = plans.len() as u32;
        if is_dense[s] {
            plans.push(Plan::Dense(s));
            continue;
        }
        let (fallback, default) = shape(s, listed);
        if listed.len() != 1 {
            let from = plan_exc.len() as u32;
            plan_exc.extend_from_slice(listed);
            plans.push(Plan::Sparse(
                s,
                fallback,
                default,
                from,
                plan_exc.len() as u32,
            ));
            continue;
        }
        // Extend a chain while the next state has one way in (from here),
        // the same default, kind and outcome, and one exception.
        let from = plan_classes.len();
        plan_classes.push(listed[0].0);
        let mut next = listed[0].1 as usize;
        while plan_classes.len() - from < robocc_engine::program::MAX_CHAIN
            && undecided[next]
            && !is_dense[next]
            && next != 0
            && indegree[next] == 1
            && !absorbed[next]
            && node_of[next] == u32::MAX
            && outcome[next] == outcome[s]
            && emit_of(next) == 0
        {
            let (f, d) = shape(next, next_listed);
            if f != fallback || d != default || next_listed.len() != 1 {
                break;
            }
            absorbed[next] = true;
            plan_classes.push(next_listed[0].0);
            next = next_listed[0].1 as usize;
        }
        let to = plan_classes.len() as u32;
        plans.push(Plan::Chain(s, fallback, default, from as u32, to, next));
    }
}

/// The size of the program [`plan`] planned into `bufs` (of an automaton
/// of `nclasses` classes, a register one or not, with `outcomes` outcome
/// ids, or priorities): what [`emit`] writes.
pub(super) fn program_len(
    bufs: &FinishBuffers,
    nclasses: usize,
    register: bool,
    outcomes: usize,
) -> usize {
    let size = |w: usize| -> usize {
        let e = if register { w } else { 0 };
        let nodes: usize = bufs
            .plans
            .iter()
            .map(|plan| match *plan {
                Plan::Dense(_) => (nclasses + 1) * w,
                Plan::Sparse(.., from, to) => node_len((to - from) as u8, w),
                Plan::Chain(_, _, _, from, to, _) => node_len(TAG_CHAIN | (to - from - 1) as u8, w),
            })
            .sum();
        nodes + e * bufs.plans.len()
    };
    // As `encode` chooses the width of targets.
    let narrow = size(2);
    if narrow + outcomes > 0x1_0000 {
        size(4)
    } else {
        narrow
    }
}

/// The second half of laying out an automaton: the program [`plan`]
/// planned into `bufs`, written (`outcomes`: the outcome ids there were
/// when it was planned).
pub(super) fn emit(
    succ: &Succ,
    outcome: &[u32],
    class_of: [u8; 256],
    outcomes: usize,
    register: Option<Register<'_>>,
    bufs: &mut FinishBuffers,
) -> Automaton {
    let FinishBuffers {
        undecided,
        node_of,
        plans,
        plan_exc,
        plan_classes,
        whole,
        ..
    } = bufs;
    let nclasses = succ.nclasses;
    let is_live = |c: usize| c != END_CLASS;
    let target = |t: usize| -> Target {
        match node_of[t] {
            node if node != u32::MAX && undecided[t] => Target::Node(node),
            _ => Target::Outcome(outcome[t]),
        }
    };
    whole.resize(nclasses, 0);
    let nodes: Vec<Node> = plans
        .iter()
        .map(|&plan| match plan {
            Plan::Dense(s) => Node::Dense {
                outcome: outcome[s],
                row: {
                    succ.row_into(s, whole);
                    &*whole
                }
                .iter()
                .enumerate()
                .map(|(c, &t)| {
                    if is_live(c) {
                        target(t as usize)
                    } else {
                        // The path ends here: this state's outcome.
                        Target::Outcome(outcome[s])
                    }
                })
                .collect(),
            },
            Plan::Chain(s, fallback, default, from, to, next) => Node::Chain {
                outcome: outcome[s],
                default: target(default),
                fallback,
                classes: plan_classes[from as usize..to as usize].to_vec(),
                next: target(next),
            },
            Plan::Sparse(s, fallback, default, from, to) => Node::Sparse {
                outcome: outcome[s],
                default: target(default),
                fallback,
                exceptions: plan_exc[from as usize..to as usize]
                    .iter()
                    .map(|&(c, t)| (c, target(t as usize)))
                    .collect(),
            },
        })
        .collect();
    let (emits, ranked, outcomes) = match register {
        Some(r) => {
            let emits = plans
                .iter()
                .map(|plan| match *plan {
                    Plan::Dense(s) | Plan::Sparse(s, ..) | Plan::Chain(s, ..) => r.emit[s],
                })
                .collect();
            let count = r.ranked.len();
            (emits, r.ranked, count)
        }
        None => (Vec::new(), Vec::new(), outcomes),
    };
    encode(
        class_of,
        nclasses as u16,
        target(0),
        &nodes,
        &emits,
        ranked,
        outcomes,
    )
}

/// `Layout::Auto`'s two limits, each shown deciding on its own.
#[cfg(test)]
mod auto_layout {
    use super::{Layout, AUTO_MAX_ROWS, AUTO_ROWS_PER_SOURCE_BYTE};
    use crate::{compile, CompileOptions};

    /// Twitter's Googlebot rules: `*` scans whose rows are ~30 KB.
    const RULES: &str = "User-agent: Googlebot\nAllow: /?_escaped_fragment_\nAllow: /*?lang=\n\
        Allow: /hashtag/*?src=\nAllow: /search?q=%23\nAllow: /i/api/\nDisallow: /search/realtime\n\
        Disallow: /search/users\nDisallow: /search/*/grid\nAllow: /*?ref_src=\nAllow: /*?src=\n\
        Disallow: /*?\nDisallow: /*/followers\nDisallow: /*/following\n\
        Disallow: /account/deactivated\nDisallow: /settings/deactivated\n";

    /// Program bytes of each automaton of `body` compiled in `layout`.
    fn automata(body: &str, layout: Layout) -> Vec<usize> {
        let mut opts = CompileOptions::default();
        opts.budget.layout = layout;
        let c = compile(body.as_bytes(), "Googlebot", &opts).unwrap();
        c.data.automata.iter().map(|a| a.prog.len()).collect()
    }

    fn programs(body: &str, layout: Layout) -> usize {
        automata(body, layout).iter().sum()
    }

    /// `body` padded with a comment to `len` bytes: the same rules.
    fn padded(body: &str, len: usize) -> String {
        format!(
            "{body}#{}\n",
            "x".repeat(len.saturating_sub(body.len() + 2))
        )
    }

    #[test]
    fn the_source_allowance_decides_with_the_rules_unchanged() {
        let (compact, dense) = (
            programs(RULES, Layout::Compact),
            programs(RULES, Layout::Dense),
        );
        // The premise: rows past a short source's allowance, under the cap.
        assert!(dense > AUTO_ROWS_PER_SOURCE_BYTE * 1024, "{dense}");
        assert!(
            dense <= AUTO_MAX_ROWS && compact < dense,
            "{compact} {dense}"
        );
        assert_eq!(programs(RULES, Layout::Auto), compact);
        // The same rules in a longer file (a comment): within the allowance.
        let long = padded(RULES, dense.div_ceil(AUTO_ROWS_PER_SOURCE_BYTE));
        assert_eq!(programs(&long, Layout::Auto), dense);
        let short = padded(RULES, dense / AUTO_ROWS_PER_SOURCE_BYTE - 64);
        assert_eq!(programs(&short, Layout::Auto), compact);
    }

    #[test]
    fn rows_past_the_cap_stay_compact_whatever_the_source() {
        let more: String = (0..8)
            .map(|w| format!("Disallow: /settings/section{w}/page\n"))
            .collect();
        let body = format!("{RULES}{more}");
        let (compact, dense) = (
            programs(&body, Layout::Compact),
            programs(&body, Layout::Dense),
        );
        // The premise: rows past the cap, yet rewritable (2-byte targets).
        assert!(dense > AUTO_MAX_ROWS && dense <= 0xFFFF, "{dense}");
        let long = padded(&body, 100_000);
        assert_eq!(programs(&long, Layout::Auto), compact);
    }

    /// A split policy shares one allowance: the automata are rewritten in
    /// order while the policy's programs fit, not each against it alone.
    #[test]
    fn split_automata_share_the_allowance() {
        let more: String = (0..8)
            .map(|w| format!("Disallow: /*/section{w}/\nAllow: /*/section{w}/*?lang=\n"))
            .collect();
        let body = format!("{RULES}{more}");
        let (compact, dense) = (
            automata(&body, Layout::Compact),
            automata(&body, Layout::Dense),
        );
        // The premise: several automata that rows would rewrite, each
        // within the cap.
        let rewritable = compact.iter().zip(&dense).filter(|(c, d)| c != d).count();
        assert!(rewritable >= 2, "{compact:?} {dense:?}");
        assert!(dense.iter().all(|&d| d <= AUTO_MAX_ROWS), "{dense:?}");
        // An allowance halfway between all compact and all rows.
        let (c, d): (usize, usize) = (compact.iter().sum(), dense.iter().sum());
        let len = (c + d) / 2 / AUTO_ROWS_PER_SOURCE_BYTE;
        assert!(len > 1024 && dense.iter().all(|&x| x <= len * AUTO_ROWS_PER_SOURCE_BYTE));
        let auto = automata(&padded(&body, len), Layout::Auto);
        let total: usize = auto.iter().sum();
        assert!(total <= len * AUTO_ROWS_PER_SOURCE_BYTE, "{auto:?}");
        assert!(total > c && auto != dense, "{auto:?}");
        for ((a, c), d) in auto.iter().zip(&compact).zip(&dense) {
            assert!(a == c || a == d, "{auto:?}");
        }
    }
}
