//! The automaton program: how a DFA's states are laid out in bytes, how the
//! engine walks them, how a loaded program is validated, and how the
//! compiler writes one. Reader, validator and writer of the layout live here
//! together so that they cannot drift apart.
//!
//! A program holds one node per undecided DFA state. Decided states have no
//! node: a transition into one is a *target* `prog.len() + outcome`, and the
//! engine stops there. Targets are byte offsets, `W` bytes wide (2, or 4
//! when the program needs it), little-endian, unaligned. The program has two
//! regions:
//!
//! ```text
//! [0, dense_len)          dense rows, (classes_len + 1) × W bytes each:
//!                         a target per class, then the outcome id
//! [dense_len, prog.len()) compact nodes:
//!   tag 0b00nnnnnn   sparse, n exceptions, the default consumes the byte:
//!                    [tag][outcome W][default W][n class bytes][n targets W]
//!   tag 0b01nnnnnn   sparse, n exceptions, falling back to a dense row
//!   tag 0b10kkkkkk   chain of k + 1 classes, the default consumes the byte:
//!                    [tag][outcome W][default W][next W][k + 1 class bytes]
//!   tag 0b11kkkkkk   chain of k + 1 classes, falling back to a dense row
//! ```
//!
//! A byte that a compact node does not list either goes to `default` (the
//! byte is consumed), or — *fallback* nodes — is read again at the dense
//! row `default` names: the node stores only where it differs from that
//! row. Inside a `*` pattern every state behaves like the state scanning
//! for the pattern's next literal except on that literal, so a fallback
//! node there has one exception and runs of them become chains (the
//! default-transition compression of delayed-input DFAs, one level deep).
//!
//! `outcome` is what holds if the path ends in the state. Dense rows are the
//! states every path passes through (the branchy top of the trie, the states
//! where a `*` scans the path): a dense walk is one lookup per byte and one
//! comparison, `t = row[s + class]; if t >= dense_len { leave }`, the loop
//! robocc always had. A sparse node goes to the target listed for the
//! byte's class, else to `default`. A chain is a run of states that each
//! have one exception (the next class of the run) and share `default` and
//! `outcome`: literal pattern text, most of a robots.txt automaton, costs one
//! byte per pattern byte, and the walk compares the run against the input in
//! one tight loop.
//!
//! Class [`END_CLASS`] (`#` and NUL, which end the path in Google's reading)
//! leads from a dense row to the decided outcome of that row; at a compact
//! node the engine stops with the node's outcome.
//!
//! ## Register automata
//!
//! When a state must remember which rule matched so far, rule sets such as
//! many `/*word` patterns multiply the scanning states by the rules they can
//! have matched (a 1.4 KB file became a 600 KB program). A *register*
//! automaton (`ranked` not empty) keeps that best match in a register
//! instead: its states are the live pattern positions only (Aho-Corasick
//! size), and every node is preceded by a `W`-byte *emit*, the priority of
//! the best pattern completed on entering the state (0: none). Outcome
//! fields and decided targets hold priorities too. The walk keeps the
//! maximum of the emits it passes; the answer is `ranked[max(register,
//! final priority)]`, priorities being numbered in the rules' rank order.
//! Chains absorb only states without an emit, so the walk reads an emit
//! exactly when it moves to a target.

#[cfg(feature = "build")]
use crate::artifact::Automaton;

/// The class of the bytes that end a path.
pub const END_CLASS: u8 = 1;
/// Tag bit: a chain node (else sparse).
pub const TAG_CHAIN: u8 = 0x80;
/// Tag bit: mismatches fall back to a dense row (else they consume the
/// byte and go to the default).
pub const TAG_FALLBACK: u8 = 0x40;
/// Tag bits of the count.
const TAG_COUNT: u8 = 0x3F;
/// Longest chain one node holds.
#[cfg(feature = "build")]
pub const MAX_CHAIN: usize = 64;
/// Most exceptions a sparse node holds.
#[cfg(feature = "build")]
pub const MAX_SPARSE: usize = 63;

/// Target width: 2 or 4 bytes.
pub(crate) trait Width {
    const W: usize;
    /// Reads the target at `i`.
    ///
    /// # Safety
    ///
    /// `i + W <= prog.len()`.
    unsafe fn read(prog: &[u8], i: usize) -> u32;
}

pub(crate) struct Narrow;
pub(crate) struct Wide;

/// The `N` bytes at `i` (unaligned).
///
/// # Safety
///
/// `i + N <= prog.len()`.
#[inline(always)]
unsafe fn bytes_at<const N: usize>(prog: &[u8], i: usize) -> [u8; N] {
    debug_assert!(i + N <= prog.len());
    // SAFETY: the caller guarantees `i + N <= prog.len()`.
    unsafe { prog.as_ptr().add(i).cast::<[u8; N]>().read_unaligned() }
}

impl Width for Narrow {
    const W: usize = 2;
    #[inline(always)]
    unsafe fn read(prog: &[u8], i: usize) -> u32 {
        // SAFETY: the caller guarantees `i + 2 <= prog.len()`.
        u32::from(u16::from_le_bytes(unsafe { bytes_at(prog, i) }))
    }
}

impl Width for Wide {
    const W: usize = 4;
    #[inline(always)]
    unsafe fn read(prog: &[u8], i: usize) -> u32 {
        // SAFETY: the caller guarantees `i + 4 <= prog.len()`.
        u32::from_le_bytes(unsafe { bytes_at(prog, i) })
    }
}

/// A walk through one validated automaton.
///
/// Every read below is unchecked. [`validate`] proved, before any `Walk`
/// could be made, that: every target is a dense row start, a compact node
/// start or a decided outcome; every row and node lies inside `prog`; every
/// class in `classes` and in a node is `< classes_len`. The walk only ever
/// holds a row or node start in `s` and a chain position `j < k`, so each
/// read is in bounds.
pub(crate) struct Walk<'a, W: Width> {
    prog: &'a [u8],
    classes: &'a [u8; 256],
    dense_len: u32,
    /// Offset of the outcome in a dense row.
    row_outcome: usize,
    /// Current row or node offset.
    s: u32,
    /// Position inside the current chain node.
    j: u32,
    /// Decided outcome, or `UNDECIDED`.
    out: u32,
    /// Register automata: priority → outcome id (empty otherwise).
    ranked: &'a [rkyv::Archived<u32>],
    /// Best priority emitted so far (register automata).
    reg: u32,
    _w: std::marker::PhantomData<W>,
}

const UNDECIDED: u32 = u32::MAX;

/// A walk's position in one automaton (with the `build` feature): its
/// row or node, chain position, decided outcome and register. Two walks at
/// equal positions read every further byte alike.
#[cfg(feature = "build")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    s: u32,
    j: u32,
    out: u32,
    reg: u32,
}

#[cfg(feature = "build")]
impl Position {
    /// A decided position that answers `out` (a priority in a register
    /// automaton) whatever follows. Decided walks keep the row or node they
    /// left, which no longer matters: this is their one form.
    pub(crate) fn decided(out: u32) -> Position {
        Position {
            s: 0,
            j: 0,
            out,
            reg: 0,
        }
    }

    /// The decided outcome field, if the walk has decided.
    pub(crate) fn decided_outcome(self) -> Option<u32> {
        (self.out != UNDECIDED).then_some(self.out)
    }

    /// The row or node the walk is at.
    pub(crate) fn node(self) -> u32 {
        self.s
    }

    /// At the first position of its row or node (not inside a chain).
    pub(crate) fn chain_start(self) -> bool {
        self.j == 0
    }

    /// The register (0 outside register automata).
    pub(crate) fn register(self) -> u32 {
        self.reg
    }

    /// The same position with the register set to `reg`.
    pub(crate) fn with_register(self, reg: u32) -> Position {
        Position { reg, ..self }
    }
}

impl<'a, W: Width> Walk<'a, W> {
    /// Starts a walk (`classes` must be the automaton's 256 classes).
    #[inline(always)]
    pub(crate) fn new(a: &'a crate::artifact::ArchivedAutomaton, classes: &'a [u8; 256]) -> Self {
        let prog = a.prog.as_slice();
        let start = a.start.to_native();
        let decided = prog.len() as u32;
        let mut walk = Walk {
            prog,
            classes,
            dense_len: a.dense_len.to_native(),
            row_outcome: usize::from(a.classes_len.to_native()) * W::W,
            s: start,
            j: 0,
            out: if start >= decided {
                start - decided
            } else {
                UNDECIDED
            },
            ranked: a.ranked.as_slice(),
            reg: 0,
            _w: std::marker::PhantomData,
        };
        walk.enter(start);
        walk
    }

    /// Resumes a walk of `a` at `at` (a position [`Walk::position`] gave
    /// for the same automaton). For tools that explore every path
    /// (`crate::step`); the check path never stops a walk.
    #[cfg(feature = "build")]
    pub(crate) fn resume(
        a: &'a crate::artifact::ArchivedAutomaton,
        classes: &'a [u8; 256],
        at: Position,
    ) -> Self {
        Walk {
            prog: a.prog.as_slice(),
            classes,
            dense_len: a.dense_len.to_native(),
            row_outcome: usize::from(a.classes_len.to_native()) * W::W,
            s: at.s,
            j: at.j,
            out: at.out,
            ranked: a.ranked.as_slice(),
            reg: at.reg,
            _w: std::marker::PhantomData,
        }
    }

    /// Where the walk is: everything that decides what it does next.
    #[cfg(feature = "build")]
    pub(crate) fn position(&self) -> Position {
        Position {
            s: self.s,
            j: self.j,
            out: self.out,
            reg: self.reg,
        }
    }

    /// Register automata: takes the emit of the node at `t`, if `t` is one.
    #[inline(always)]
    fn enter(&mut self, t: u32) {
        if !self.ranked.is_empty() && t < self.prog.len() as u32 {
            // Validation: every node of a register automaton is preceded
            // by its emit, so `t >= W`.
            self.reg = self.reg.max(self.read(t as usize - W::W));
        }
    }

    /// The outcome is final.
    #[inline(always)]
    pub(crate) fn done(&self) -> bool {
        self.out != UNDECIDED
    }

    #[inline(always)]
    fn read(&self, i: usize) -> u32 {
        // SAFETY: see the type's comment: `i` is a field of a validated
        // row or node.
        unsafe { W::read(self.prog, i) }
    }

    #[inline(always)]
    fn byte(&self, i: usize) -> u8 {
        // SAFETY: as for `read`.
        unsafe { *self.prog.get_unchecked(i) }
    }

    #[inline(always)]
    fn sparse(&self, s: usize, tag: u8, c: u8) -> u32 {
        // SAFETY: `s` is a validated sparse node (see the type's comment).
        unsafe { sparse::<W>(self.prog, s, tag, c) }
    }

    #[inline(always)]
    fn miss(&self, s: usize, tag: u8, c: u8) -> u32 {
        // SAFETY: `s` is a validated compact node (see the type's comment).
        unsafe { miss::<W>(self.prog, s, tag, c) }
    }

    /// Moves to target `t`; returns `true` when it is a decided outcome.
    #[inline(always)]
    fn go(&mut self, t: u32) -> bool {
        self.j = 0;
        let decided = self.prog.len() as u32;
        if t >= decided {
            self.out = t - decided;
            true
        } else {
            self.enter(t);
            self.s = t;
            false
        }
    }

    /// One step at a compact node on class `c`; `None` while inside a chain.
    #[inline(always)]
    fn compact_step(&mut self, c: u8) -> Option<u32> {
        let w = W::W;
        let s = self.s as usize;
        let tag = self.byte(s);
        if tag < TAG_CHAIN {
            return Some(self.sparse(s, tag, c));
        }
        let k = u32::from(tag & TAG_COUNT) + 1;
        if self.byte(s + 1 + 3 * w + self.j as usize) == c {
            self.j += 1;
            if self.j < k {
                return None;
            }
            Some(self.read(s + 1 + 2 * w))
        } else {
            Some(self.miss(s, tag, c))
        }
    }

    /// Feeds one path byte; returns `true` when the outcome is final. Must
    /// not be called once [`Walk::done`].
    #[inline(always)]
    pub(crate) fn feed(&mut self, b: u8) -> bool {
        let c = self.classes[usize::from(b)];
        let s = self.s as usize;
        if self.s < self.dense_len {
            let t = self.read(s + usize::from(c) * W::W);
            return self.go(t);
        }
        if c == END_CLASS {
            self.out = self.read(s + 1);
            return true;
        }
        match self.compact_step(c) {
            Some(t) => self.go(t),
            None => false,
        }
    }

    /// The outcome field before the register: the decided outcome, or the
    /// current state's (priorities in a register automaton).
    #[inline(always)]
    pub(crate) fn own_outcome(&self) -> u32 {
        if self.out != UNDECIDED {
            self.out
        } else if self.s < self.dense_len {
            self.read(self.s as usize + self.row_outcome)
        } else {
            self.read(self.s as usize + 1)
        }
    }

    /// The outcome id: the decided one, or the current state's.
    #[inline(always)]
    pub(crate) fn outcome(&self) -> u32 {
        let o = self.own_outcome();
        if self.ranked.is_empty() {
            o
        } else {
            // Validation: priorities are below `ranked.len()`.
            self.ranked
                .get(self.reg.max(o) as usize)
                .map_or(0, |r| r.to_native())
        }
    }
}

/// Walks `bytes` from the start of automaton `a` (Google mode: the bytes
/// as given) and returns the outcome id and the bytes read. The same
/// transitions as [`Walk::feed`] byte by byte, written with locals only so
/// that the hot loops stay in registers: dense rows are walked by the
/// one-lookup loop, a chain is compared against the input in one tight loop.
///
/// Safety of the unchecked reads: as for [`Walk`].
///
/// `REG`: `a` is a register automaton (see the module documentation); the
/// walk then takes the emit of every node it enters and maps the final
/// priority through `ranked`.
#[inline(always)]
pub(crate) fn walk_bytes<W: Width, const REG: bool>(
    a: &crate::artifact::ArchivedAutomaton,
    classes: &[u8; 256],
    bytes: &[u8],
) -> (u32, usize) {
    let w = W::W;
    let prog = a.prog.as_slice();
    let decided = prog.len() as u32;
    let dense_len = a.dense_len.to_native();
    // SAFETY (both helpers): callers pass offsets of fields of validated
    // rows and nodes (see `Walk`); in a register automaton every node is
    // preceded by its emit.
    let read = |i: usize| unsafe { W::read(prog, i) };
    let byte = |i: usize| unsafe { *prog.get_unchecked(i) };
    let class = |b: u8| classes[usize::from(b)];
    let mut reg = 0u32;
    let ranked = a.ranked.as_slice();
    // Validation: priorities are below `ranked.len()`.
    let fin = |reg: u32, o: u32| -> u32 {
        if REG {
            ranked.get(reg.max(o) as usize).map_or(0, |r| r.to_native())
        } else {
            o
        }
    };
    let mut s = a.start.to_native();
    let mut i = 0;
    loop {
        if s >= decided {
            return (fin(reg, s - decided), i);
        }
        if REG {
            reg = reg.max(read(s as usize - w));
        }
        if s < dense_len {
            loop {
                if i == bytes.len() {
                    let row_outcome = usize::from(a.classes_len.to_native()) * w;
                    return (fin(reg, read(s as usize + row_outcome)), i);
                }
                // SAFETY: `i < bytes.len()`, tested above.
                let b = unsafe { *bytes.get_unchecked(i) };
                let t = read(s as usize + usize::from(class(b)) * w);
                i += 1;
                s = t;
                if t >= dense_len {
                    break;
                }
                if REG {
                    reg = reg.max(read(t as usize - w));
                }
            }
            continue;
        }
        let n = s as usize;
        let tag = byte(n);
        if tag >= TAG_CHAIN {
            let k = usize::from(tag & TAG_COUNT) + 1;
            let run = n + 1 + 3 * w;
            let mut j = 0;
            while j < k && i < bytes.len() && class(bytes[i]) == byte(run + j) {
                i += 1;
                j += 1;
            }
            if j == k {
                s = read(n + 1 + 2 * w);
                continue;
            }
        }
        if i == bytes.len() {
            return (fin(reg, read(n + 1)), i);
        }
        let c = class(bytes[i]);
        i += 1;
        if c == END_CLASS {
            return (fin(reg, read(n + 1)), i);
        }
        // SAFETY: `n` is a validated compact node (see `Walk`).
        s = unsafe {
            if tag >= TAG_CHAIN {
                miss::<W>(prog, n, tag, c)
            } else {
                sparse::<W>(prog, n, tag, c)
            }
        };
    }
}

/// The target of class `c` at sparse node `s` (tag `tag`): the listed
/// exception, else [`miss`].
///
/// # Safety
///
/// `s` is the start of a sparse node of a validated program and `c` a class
/// below `classes_len`.
#[inline(always)]
unsafe fn sparse<W: Width>(prog: &[u8], s: usize, tag: u8, c: u8) -> u32 {
    let n = usize::from(tag & TAG_COUNT);
    let cls = s + 1 + 2 * W::W;
    let mut i = 0;
    while i < n {
        // SAFETY: the node's class bytes and targets lie inside `prog`.
        if unsafe { *prog.get_unchecked(cls + i) } == c {
            return unsafe { W::read(prog, cls + n + i * W::W) };
        }
        i += 1;
    }
    unsafe { miss::<W>(prog, s, tag, c) }
}

/// Where class `c` goes from compact node `s` when the node does not list
/// it: the default (the byte is consumed), or — a fallback node — the entry
/// of the dense row the default names.
///
/// # Safety
///
/// As for [`sparse`], for any compact node.
#[inline(always)]
unsafe fn miss<W: Width>(prog: &[u8], s: usize, tag: u8, c: u8) -> u32 {
    // SAFETY: the default field lies inside the node; a fallback default is
    // a validated dense row, and `c` is below its width.
    let d = unsafe { W::read(prog, s + 1 + W::W) };
    if tag & TAG_FALLBACK != 0 {
        unsafe { W::read(prog, d as usize + usize::from(c) * W::W) }
    } else {
        d
    }
}

/// Length of the compact node with tag `tag` and `w`-byte targets (a
/// register automaton's emit word before it aside).
pub fn node_len(tag: u8, w: usize) -> usize {
    let n = usize::from(tag & TAG_COUNT);
    if tag < TAG_CHAIN {
        1 + 2 * w + n + n * w
    } else {
        1 + 3 * w + n + 1
    }
}

/// Words of the node-start bitset kept on the stack.
const STACK_WORDS: usize = 512;

/// Checks everything [`Walk`] relies on. `outcomes` is the number of
/// outcome ids. Allocates one bit per compact program byte (node starts).
pub(crate) fn validate(
    a: &crate::artifact::ArchivedAutomaton,
    outcomes: usize,
) -> Result<(), String> {
    let prog = a.prog.as_slice();
    let classes_len = usize::from(a.classes_len.to_native());
    let w = if a.wide { 4 } else { 2 };
    if a.classes.len() != 256 {
        return Err(format!("{} byte classes (expected 256)", a.classes.len()));
    }
    if !(2..=256).contains(&classes_len) {
        return Err(format!("{classes_len} classes (expected 2 to 256)"));
    }
    if let Some(c) = a.classes.iter().find(|&&c| usize::from(c) >= classes_len) {
        return Err(format!("byte class {c} >= {classes_len}"));
    }
    // Exactly the bytes that end a path are in the end class.
    let ends_ok =
        (0..=255u8).all(|b| (a.classes[usize::from(b)] == END_CLASS) == matches!(b, b'#' | 0));
    if !ends_ok {
        return Err("the end class is not exactly '#' and NUL".into());
    }
    // Register automata: every node is preceded by an emit of `e` bytes,
    // and priorities replace outcome ids.
    let ranked = a.ranked.as_slice();
    let e = if ranked.is_empty() { 0 } else { w };
    if let Some(r) = ranked.iter().find(|r| r.to_native() as usize >= outcomes) {
        return Err(format!("register table names outcome {r}"));
    }
    if ranked.first().is_some_and(|r| r.to_native() != 0) {
        return Err("register table does not start with outcome 0".into());
    }
    let outcomes = if ranked.is_empty() {
        outcomes
    } else {
        ranked.len()
    };
    let row_len = (classes_len + 1) * w + e;
    let dense_len = a.dense_len.to_native() as usize;
    if dense_len > prog.len() || dense_len % row_len != 0 {
        return Err(format!("dense region of {dense_len} bytes invalid"));
    }
    let read = |i: usize| -> u32 {
        let mut v = 0u32;
        for k in 0..w {
            v |= u32::from(prog[i + k]) << (8 * k);
        }
        v
    };
    // Pass 1: compact node boundaries, lengths, outcomes and classes.
    // One bit per compact byte: on the stack up to 32 KiB of compact nodes
    // (most policies: validating a store's policy at first use allocates
    // nothing), on the heap beyond.
    let compact = prog.len() - dense_len;
    let mut stack = [0u64; STACK_WORDS];
    let mut heap = Vec::new();
    let starts: &mut [u64] = if compact / 64 < STACK_WORDS {
        &mut stack
    } else {
        heap.resize(compact / 64 + 1, 0u64);
        &mut heap
    };
    let mut p = dense_len;
    while p < prog.len() {
        let s = p + e;
        if s >= prog.len() {
            return Err(format!("node at {s} runs past the program end"));
        }
        let tag = prog[s];
        let len = node_len(tag, w);
        if s + len > prog.len() {
            return Err(format!("node at {s} runs past the program end"));
        }
        if e > 0 && read(p) as usize >= outcomes {
            return Err(format!("node at {s} emits priority {}", read(p)));
        }
        if read(s + 1) as usize >= outcomes {
            return Err(format!("node at {s} names outcome {}", read(s + 1)));
        }
        let class_bytes = if tag < TAG_CHAIN {
            s + 1 + 2 * w..s + 1 + 2 * w + usize::from(tag & TAG_COUNT)
        } else {
            s + 1 + 3 * w..s + len
        };
        if prog[class_bytes]
            .iter()
            .any(|&c| usize::from(c) >= classes_len)
        {
            return Err(format!("node at {s} names a class >= {classes_len}"));
        }
        let bit = s - dense_len;
        starts[bit / 64] |= 1 << (bit % 64);
        p = s + len;
    }
    let target_ok = |t: u32| -> bool {
        let t = t as usize;
        if t < dense_len {
            t >= e && (t - e) % row_len == 0
        } else if t < prog.len() {
            let bit = t - dense_len;
            starts[bit / 64] & (1 << (bit % 64)) != 0
        } else {
            t - prog.len() < outcomes
        }
    };
    if !target_ok(a.start.to_native()) {
        return Err(format!("start target {} invalid", a.start));
    }
    // Pass 2: every target.
    for p in (0..dense_len).step_by(row_len) {
        let row = p + e;
        if !(0..classes_len).all(|c| target_ok(read(row + c * w))) {
            return Err(format!("dense row at {row} has an invalid target"));
        }
        if read(row + classes_len * w) as usize >= outcomes {
            return Err(format!("dense row at {row} names an invalid outcome"));
        }
        if e > 0 && read(p) as usize >= outcomes {
            return Err(format!("dense row at {row} emits an invalid priority"));
        }
    }
    let mut p = dense_len;
    while p < prog.len() {
        let s = p + e;
        let tag = prog[s];
        let ok = |i: usize| target_ok(read(i));
        // A fallback node's default is a dense row, read with any class.
        let default_ok = if tag & TAG_FALLBACK != 0 {
            let d = read(s + 1 + w);
            (d as usize) < dense_len && target_ok(d)
        } else {
            ok(s + 1 + w)
        };
        let valid = default_ok
            && if tag < TAG_CHAIN {
                let n = usize::from(tag & TAG_COUNT);
                (0..n).all(|i| ok(s + 1 + 2 * w + n + i * w))
            } else {
                ok(s + 1 + 2 * w)
            };
        if !valid {
            return Err(format!("node at {s} has an invalid target"));
        }
        p = s + node_len(tag, w);
    }
    Ok(())
}

/// A transition target while a program is being written (with the `build`
/// feature).
#[cfg(feature = "build")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Node number (index into the node list).
    Node(u32),
    /// Decided outcome id.
    Outcome(u32),
}

/// One node to write ([`encode`]) or read back ([`decode`]), with the
/// `build` feature.
#[cfg(feature = "build")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Every class's target.
    Dense {
        /// Outcome if the path ends here.
        outcome: u32,
        /// Target per class (the end class's should be `Outcome(outcome)`).
        row: Vec<Target>,
    },
    /// A default target and exceptions (`class`, target).
    Sparse {
        /// Outcome if the path ends here.
        outcome: u32,
        /// Target of every class not listed; with `fallback`, a dense node
        /// whose row decides the classes not listed.
        default: Target,
        /// Classes not listed are read again at `default`.
        fallback: bool,
        /// At most [`MAX_SPARSE`] exceptions.
        exceptions: Vec<(u8, Target)>,
    },
    /// A run of classes (1 to [`MAX_CHAIN`]): each must be read in turn to
    /// reach `next`; any other class goes to `default`.
    Chain {
        /// Outcome if the path ends anywhere in the run.
        outcome: u32,
        /// Target on a mismatch; with `fallback`, a dense node whose row
        /// decides the mismatching class.
        default: Target,
        /// A mismatching class is read again at `default`.
        fallback: bool,
        /// The classes of the run.
        classes: Vec<u8>,
        /// Target after the last class.
        next: Target,
    },
}

#[cfg(feature = "build")]
impl Node {
    fn is_dense(&self) -> bool {
        matches!(self, Node::Dense { .. })
    }
}

/// Writes nodes as a program: dense nodes first (in list order), then the
/// others (in list order); `outcomes` is the number of outcome ids (of
/// priorities, for a register automaton). Targets are 2 bytes wide when
/// they fit, else 4.
///
/// `ranked` empty: a plain automaton, `emits` must be empty. Otherwise a
/// register automaton: `emits` has one priority per node and `ranked` maps
/// priorities to outcome ids. With the `build` feature.
///
/// # Panics
///
/// When `emits` does not have one entry per node of a register automaton
/// (or is not empty for a plain one), or a node is larger than the layout
/// allows (a chain of more than [`MAX_CHAIN`] classes, a sparse node of
/// more than [`MAX_SPARSE`] exceptions).
#[cfg(feature = "build")]
pub fn encode(
    classes: [u8; 256],
    classes_len: u16,
    start: Target,
    nodes: &[Node],
    emits: &[u32],
    ranked: Vec<u32>,
    outcomes: usize,
) -> Automaton {
    let register = !ranked.is_empty();
    assert_eq!(emits.len(), if register { nodes.len() } else { 0 });
    let len = |n: &Node, w: usize| {
        let e = if register { w } else { 0 };
        e + match n {
            Node::Dense { .. } => (usize::from(classes_len) + 1) * w,
            Node::Sparse { exceptions, .. } => node_len(exceptions.len() as u8, w),
            Node::Chain { classes, .. } => node_len(TAG_CHAIN | (classes.len() - 1) as u8, w),
        }
    };
    let size = |w: usize| -> usize { nodes.iter().map(|n| len(n, w)).sum() };
    let wide = size(2) + outcomes > 0x1_0000;
    let w = if wide { 4 } else { 2 };
    let order: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].is_dense())
        .chain((0..nodes.len()).filter(|&i| !nodes[i].is_dense()))
        .collect();
    let mut offsets = vec![0u32; nodes.len()];
    let mut at = 0usize;
    let mut dense_len = 0;
    let e = if register { w } else { 0 };
    for &i in &order {
        offsets[i] = (at + e) as u32;
        at += len(&nodes[i], w);
        if nodes[i].is_dense() {
            dense_len = at;
        }
    }
    let decided = at as u32;
    let resolve = |t: Target| -> u32 {
        match t {
            Target::Node(i) => offsets[i as usize],
            Target::Outcome(o) => decided + o,
        }
    };
    let mut prog = Vec::with_capacity(at);
    // Two fixed-size writes rather than one of `w` bytes: a copy of a
    // length known only at run time is a call per target.
    let put = |prog: &mut Vec<u8>, v: u32| match wide {
        false => prog.extend_from_slice(&(v as u16).to_le_bytes()),
        true => prog.extend_from_slice(&v.to_le_bytes()),
    };
    for &i in &order {
        if register {
            put(&mut prog, emits[i]);
        }
        match &nodes[i] {
            Node::Dense { outcome, row } => {
                for &t in row {
                    put(&mut prog, resolve(t));
                }
                put(&mut prog, *outcome);
            }
            Node::Sparse {
                outcome,
                default,
                fallback,
                exceptions,
            } => {
                assert!(exceptions.len() <= MAX_SPARSE);
                prog.push(exceptions.len() as u8 | if *fallback { TAG_FALLBACK } else { 0 });
                put(&mut prog, *outcome);
                put(&mut prog, resolve(*default));
                prog.extend(exceptions.iter().map(|e| e.0));
                for e in exceptions {
                    put(&mut prog, resolve(e.1));
                }
            }
            Node::Chain {
                outcome,
                default,
                fallback,
                classes,
                next,
            } => {
                assert!((1..=MAX_CHAIN).contains(&classes.len()));
                let fallback = if *fallback { TAG_FALLBACK } else { 0 };
                prog.push(TAG_CHAIN | fallback | (classes.len() - 1) as u8);
                put(&mut prog, *outcome);
                put(&mut prog, resolve(*default));
                put(&mut prog, resolve(*next));
                prog.extend_from_slice(classes);
            }
        }
    }
    debug_assert_eq!(prog.len(), at);
    Automaton {
        classes: classes.to_vec(),
        classes_len,
        wide,
        start: resolve(start),
        dense_len: dense_len as u32,
        prog,
        ranked,
        // Any rank, until the writer, which knows the rules, says less.
        max_rank: u32::MAX,
    }
}

/// Reads a program back into nodes, in layout order (dense rows first),
/// targets as indices into that order, with each node's emit (empty for a
/// plain automaton): the inverse of [`encode`] for a node list already in
/// that order. For tools and tests; `None` when the program is malformed.
/// With the `build` feature.
#[cfg(feature = "build")]
pub fn decode(a: &Automaton) -> Option<(Target, Vec<Node>, Vec<u32>)> {
    let prog = a.prog.as_slice();
    let w = if a.wide { 4 } else { 2 };
    let e = if a.ranked.is_empty() { 0 } else { w };
    let classes_len = usize::from(a.classes_len);
    let row_len = (classes_len + 1) * w + e;
    let dense_len = a.dense_len as usize;
    let read = |i: usize| -> Option<u32> {
        let b = prog.get(i..i + w)?;
        Some(b.iter().rev().fold(0u32, |v, &x| (v << 8) | u32::from(x)))
    };
    let mut starts: Vec<u32> = (0..dense_len)
        .step_by(row_len)
        .map(|s| (s + e) as u32)
        .collect();
    let mut s = dense_len + e;
    while s < prog.len() {
        starts.push(s as u32);
        s += node_len(*prog.get(s)?, w) + e;
    }
    let emits = if e > 0 {
        starts
            .iter()
            .map(|&s| read(s as usize - e))
            .collect::<Option<Vec<u32>>>()?
    } else {
        Vec::new()
    };
    let target = |t: u32| -> Option<Target> {
        if (t as usize) < prog.len() {
            starts
                .binary_search(&t)
                .ok()
                .map(|i| Target::Node(i as u32))
        } else {
            Some(Target::Outcome(t - prog.len() as u32))
        }
    };
    let mut nodes = Vec::with_capacity(starts.len());
    for &s in &starts {
        let s = s as usize;
        if s < dense_len {
            nodes.push(Node::Dense {
                outcome: read(s + classes_len * w)?,
                row: (0..classes_len)
                    .map(|c| target(read(s + c * w)?))
                    .collect::<Option<_>>()?,
            });
            continue;
        }
        let tag = prog[s];
        let outcome = read(s + 1)?;
        let fallback = tag & TAG_FALLBACK != 0;
        nodes.push(if tag < TAG_CHAIN {
            let n = usize::from(tag & TAG_COUNT);
            let cls = prog.get(s + 1 + 2 * w..s + 1 + 2 * w + n)?;
            Node::Sparse {
                outcome,
                default: target(read(s + 1 + w)?)?,
                fallback,
                exceptions: (0..n)
                    .map(|i| Some((cls[i], target(read(s + 1 + 2 * w + n + i * w)?)?)))
                    .collect::<Option<_>>()?,
            }
        } else {
            let k = usize::from(tag & TAG_COUNT) + 1;
            Node::Chain {
                outcome,
                default: target(read(s + 1 + w)?)?,
                fallback,
                next: target(read(s + 1 + 2 * w)?)?,
                classes: prog.get(s + 1 + 3 * w..s + 1 + 3 * w + k)?.to_vec(),
            }
        });
    }
    Some((target(a.start)?, nodes, emits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_then_decode_round_trips() {
        let mut classes = [0u8; 256];
        classes[usize::from(b'#')] = END_CLASS;
        classes[0] = END_CLASS;
        classes[usize::from(b'a')] = 2;
        classes[usize::from(b'b')] = 3;
        // Already in layout order: dense first.
        let nodes = vec![
            Node::Dense {
                outcome: 2,
                row: vec![
                    Target::Node(1),
                    Target::Outcome(2),
                    Target::Outcome(1),
                    Target::Node(0),
                ],
            },
            Node::Chain {
                outcome: 0,
                default: Target::Outcome(0),
                fallback: false,
                classes: vec![2, 3, 2],
                next: Target::Node(2),
            },
            Node::Sparse {
                outcome: 1,
                default: Target::Node(0),
                fallback: true,
                exceptions: vec![(3, Target::Node(2))],
            },
        ];
        let a = encode(classes, 4, Target::Node(1), &nodes, &[], Vec::new(), 3);
        assert!(!a.wide);
        assert_eq!(a.dense_len, 10);
        assert_eq!(
            decode(&a),
            Some((Target::Node(1), nodes.clone(), Vec::new()))
        );
        // The same nodes as a register automaton: an emit before each.
        let emits = vec![0, 2, 1];
        let r = encode(
            classes,
            4,
            Target::Node(1),
            &nodes,
            &emits,
            vec![0, 5, 7],
            3,
        );
        assert_eq!(r.dense_len, 12);
        assert_eq!(r.prog.len(), a.prog.len() + 3 * 2);
        assert_eq!(decode(&r), Some((Target::Node(1), nodes, emits)));
    }
}
