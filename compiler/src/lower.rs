//! Rules → automata whose states carry resolved outcomes.
//!
//! Every dialect's pattern is a [`Glob`]: bytes, byte sets, any byte, `*` (any
//! run), and whether it must reach the end of the path. Its NFA is the
//! pattern itself: a thread is a position in a pattern. We
//! determinize the union of all patterns ourselves (subset construction) so
//! that we can prune while we go, which a general regex determinizer cannot:
//!
//! * **Rank pruning.** The outcome is the matching rule of highest rank
//!   ([`SetRule::rank`](crate::ruleset::SetRule::rank), from
//!   [`Ranking::rank`](crate::dialect::Ranking::rank)). Once an unanchored pattern has matched, it matches
//!   every continuation, so every thread of a rule that ranks below it can
//!   never decide anything: it is dropped. The state remembers only that best
//!   permanent match.
//! * **Star dominance.** Once a thread of a pattern has passed a `*`, that `*`
//!   stays active forever and accepts everything an earlier position of the
//!   same pattern would: earlier threads of that pattern are dropped.
//!
//! A DFA state is the set of live threads plus the best permanent match. Its
//! outcome (what holds if the path ends there) is resolved once, here. A state
//! with no live thread can never change its outcome; more generally a state is
//! *decided* when every state reachable from it has its outcome, and decided
//! states are numbered last so the engine stops at the first one. `#` and NUL,
//! which end a path in Google's reading of a URL, get a class of their own
//! that leads to a decided state with the current state's outcome.
//!
//! * **Registers.** Rank pruning makes a state remember the best permanent
//!   match, which multiplies the states of rule sets such as many `/*word`
//!   patterns. A *register automaton* ([`Registers`]) does not: its state is
//!   the live threads and what completed on entering it (its emit), and the
//!   engine keeps the best emit in a register while it walks
//!   ([`robocc_engine::program`]).
//!
//! When a DFA of all rules exceeds the budget, the rules are split in halves
//! until each part fits; because the outcome is a maximum by rank, the engine
//! combines the parts' outcomes exactly (the fallback path, recorded in the
//! artifact header and the diagnostics).
//!
//! regex-automata's dense DFA builder was the first implementation; on the
//! real corpus it took from 1 s to over a minute for 16 of 54 files with
//! wildcard rules (it tracks every thread of every pattern), which is why
//! this module does its own subset construction.

use crate::glob::{Atom, ByteSet, Glob};
use crate::outcome::{self, Canonical};
use crate::ruleset::RuleSet;
use robocc_engine::artifact::Automaton;
use robocc_engine::program::{decode, encode, Node, Target, END_CLASS as PROGRAM_END_CLASS};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::Write as _;
use std::time::{Duration, Instant};

/// The multiply-rotate hasher of rustc (`rustc-hash` 2): the subset
/// construction hashes every successor of every state (vectors of small
/// integers), where SipHash dominated the profile. Not DoS-resistant, which
/// does not matter here: the keys are pattern and position numbers, and the
/// budgets bound the work whatever the input.
#[derive(Clone, Copy, Default)]
struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = self.hash.wrapping_add(word).wrapping_mul(Self::K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// A hash map with [`FxHasher`]. Nothing iterates these maps where the order
/// could reach the output: lookups and insertions, and one maximum with a
/// total tie-break (`finish`).
type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`] (only insertions).
type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

/// Limits on what lowering may spend per automaton and in total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// States of one automaton.
    pub max_states: usize,
    /// Live threads summed over the states of one automaton (bounds the
    /// memory of the construction: 8 bytes each).
    pub max_threads: usize,
    /// Transition-table bytes over all automata of a policy.
    pub total_bytes: usize,
    /// Wall-clock time for the whole lowering.
    pub time: Duration,
    /// Automata of one policy: the engine runs each of them per check, so
    /// this bounds the cost of a check (the real corpus needs at most 18).
    pub max_automata: usize,
    /// When to build a register automaton (see [`Registers`]).
    pub registers: Registers,
    /// How the states are laid out (see [`Layout`]).
    pub layout: Layout,
}

/// How the lowering lays out an automaton's states in the artifact
/// (docs/artifact.md). Both answer the same; they trade bytes for speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// [`Layout::Compact`], except that an automaton whose `*` patterns
    /// make its walks leave a scanning row for a compact node and come
    /// back (it has fallback nodes) is written as rows, while its rows
    /// stay within [`AUTO_MAX_ROWS`] bytes and the policy's programs within
    /// [`AUTO_ROWS_PER_SOURCE_BYTE`] times its source (counted as at least
    /// 1 KiB). Measured on the shared corpus: such files check 1.29×
    /// faster (median), for +0.17 on the median artifact/source ratio
    /// (docs/artifact.md, "Layout").
    #[default]
    Auto,
    /// Dense rows for the states every path passes through, compact nodes
    /// (sparse lists, chains of literal bytes) for the rest: artifacts
    /// about the size of their robots.txt. For the smallest stores.
    Compact,
    /// A dense row for every state — one table lookup per path byte and no
    /// node dispatch, the fastest checks — for each automaton whose dense
    /// program fits 2-byte targets (under 64 KiB) and the table budget;
    /// others stay compact. Typically 3–7× the compact artifact: for a
    /// crawler checking against few policies.
    Dense,
}

/// When the lowering builds a *register* automaton, which keeps the best
/// match so far in a register during the walk instead of in its states
/// (smaller where many `*` patterns multiply the states, one more read per
/// byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registers {
    /// Where the plain automaton is over budget or blown up (larger than
    /// 4 KiB and 8× its rules' pattern bytes) and the register one is at
    /// most half its size.
    #[default]
    Auto,
    /// Always (tests, measurements).
    Always,
    /// Never.
    Never,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_states: 200_000,
            max_threads: 4_000_000,
            total_bytes: 256 << 20,
            time: Duration::from_secs(30),
            max_automata: 1024,
            registers: Registers::Auto,
            layout: Layout::Auto,
        }
    }
}

/// The lowering's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// The automata (one unless split).
    pub automata: Vec<Automaton>,
    /// Outcome table, `channels` words per outcome id; id 0 is "no match".
    pub outcomes: Vec<u32>,
    /// Why one automaton of all rules was not possible, when the rules were
    /// split over several.
    pub split_reason: Option<BudgetExceeded>,
}

/// Which budget a lowering ran out of, with the limit in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetExceeded {
    /// One automaton needed more states than this.
    States(usize),
    /// One automaton's construction tracked more live threads than this.
    Threads(usize),
    /// The lowering took longer than this.
    Time(Duration),
    /// The rules needed more automata than this.
    Automata(usize),
    /// The automata needed more table bytes than this in total.
    TableBytes(usize),
}

impl std::fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BudgetExceeded::States(n) => write!(f, "one automaton needs more than {n} states"),
            BudgetExceeded::Threads(n) => {
                write!(f, "one automaton tracks more than {n} pattern positions")
            }
            BudgetExceeded::Time(d) => write!(f, "lowering takes longer than {d:?}"),
            BudgetExceeded::Automata(n) => write!(
                f,
                "the rules need more than {n} automata (a check runs every one)"
            ),
            BudgetExceeded::TableBytes(n) => {
                write!(f, "the automata need more than {n} bytes of tables")
            }
        }
    }
}

/// Lowering failed within the budget even with the rules split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// The budget that was exceeded.
    pub exceeded: BudgetExceeded,
    /// The line of a rule that is over the budget on its own.
    pub rule_line: Option<u32>,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rule_line {
            // Line 0: the implicit allow of the file's own path.
            Some(0) => write!(
                f,
                "the implicit rule that allows the file's own path (/robots.txt or \
                 /data.txt) alone: {}",
                self.exceeded
            ),
            Some(line) => write!(f, "the rule on line {line} alone: {}", self.exceeded),
            None => self.exceeded.fmt(f),
        }
    }
}

/// Interns per-state outcomes so that equal outcomes share an id.
struct OutcomeTable {
    ids: FxHashMap<Vec<u32>, u32>,
    flat: Vec<u32>,
}

impl OutcomeTable {
    fn intern(&mut self, o: Vec<u32>) -> u32 {
        if let Some(&id) = self.ids.get(&o) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.flat.extend_from_slice(&o);
        self.ids.insert(o, id);
        id
    }
}

/// What a lowering run shares across its automata.
struct Ctx<'a> {
    set: &'a RuleSet,
    /// Each rule's glob, simplified (once: every attempt reads them).
    simple: &'a [Glob],
    budget: &'a Budget,
    /// None: the time budget is beyond what the clock can represent (no
    /// limit in practice).
    deadline: Option<Instant>,
    table: OutcomeTable,
    automata: Vec<Automaton>,
    spent_bytes: usize,
    first_failure: Option<BudgetExceeded>,
}

impl Ctx<'_> {
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    /// Adds an automaton if the policy's automata count and table bytes
    /// stay within the budget (the one-automaton path included).
    fn admit(&mut self, a: Automaton) -> Result<(), BudgetExceeded> {
        if self.automata.len() >= self.budget.max_automata {
            return Err(BudgetExceeded::Automata(self.budget.max_automata));
        }
        self.spent_bytes += a.prog.len() + a.classes.len();
        if self.spent_bytes > self.budget.total_bytes {
            return Err(BudgetExceeded::TableBytes(self.budget.total_bytes));
        }
        self.automata.push(a);
        Ok(())
    }

    /// The last stage: with [`Layout::Dense`], each automaton rewritten as
    /// rows ([`densify`]) where the rows stay within the table budget; with
    /// [`Layout::Auto`], only automata with fallback nodes, within the auto
    /// limits too (`source_len`: the length of the source, as given). The
    /// form (plain or register, one automaton or split) was chosen, and the
    /// budget met, on compact sizes: a file that compiles compact compiles
    /// in any layout.
    fn lay_out(&mut self, source_len: usize) {
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
            if auto && (a.prog.len() > AUTO_MAX_ROWS || !has_fallback(a)) {
                continue;
            }
            let Some(d) = densify(a, outcomes) else {
                continue;
            };
            let grown = d.prog.len().saturating_sub(a.prog.len());
            if auto && (d.prog.len() > AUTO_MAX_ROWS || programs + grown > allowance) {
                continue;
            }
            let spent = self.spent_bytes + grown;
            if spent <= self.budget.total_bytes {
                self.spent_bytes = spent;
                programs += grown;
                *a = d;
            }
        }
    }
}

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
/// node dispatch and the row loop's exit that rows would save.
fn has_fallback(a: &Automaton) -> bool {
    decode(a).is_some_and(|(_, nodes, _)| {
        nodes.iter().any(|n| {
            matches!(
                n,
                Node::Sparse { fallback: true, .. } | Node::Chain { fallback: true, .. }
            )
        })
    })
}

/// Lowers `set` (its rules carry their dialect's ranks), read from a source
/// of `source_len` bytes (which [`Layout::Auto`]'s allowance scales with:
/// the footprint is judged against the file as fetched).
pub fn lower(set: &RuleSet, budget: &Budget, source_len: usize) -> Result<Lowered, LowerError> {
    let simple: Vec<Glob> = set.rules.iter().map(|r| r.glob.simplified()).collect();
    let mut ctx = Ctx {
        set,
        simple: &simple,
        budget,
        deadline: Instant::now().checked_add(budget.time),
        table: OutcomeTable {
            ids: FxHashMap::default(),
            flat: Vec::new(),
        },
        automata: Vec::new(),
        spent_bytes: 0,
        first_failure: None,
    };
    // Outcome 0 is the outcome of matching nothing.
    ctx.table
        .intern(set.resolution.outcome(&set.rules, None, &[]));
    if set.resolution.by_sets() {
        // Set mode: resolution is not by rank, so the rules cannot be split
        // over automata combined by rank, nor kept in a rank register. One
        // plain automaton within the budget, or a refusal.
        let all: Vec<usize> = (0..set.rules.len()).collect();
        let a = build_one(&mut ctx, &all, budget, false).map_err(|exceeded| LowerError {
            exceeded,
            rule_line: None,
        })?;
        ctx.admit(a).map_err(|exceeded| LowerError {
            exceeded,
            rule_line: None,
        })?;
        ctx.lay_out(source_len);
        return Ok(Lowered {
            automata: ctx.automata,
            outcomes: ctx.table.flat,
            split_reason: None,
        });
    }
    // First try one automaton of everything, on a small budget: real files
    // almost always fit. Past it, plan groups that do not multiply each
    // other's states and give them the full budget.
    let all: Vec<usize> = (0..set.rules.len()).collect();
    let quick = Budget {
        max_states: budget.max_states.min(QUICK_STATES),
        max_threads: budget.max_threads.min(QUICK_THREADS),
        ..*budget
    };
    match build_best(&mut ctx, &all, &quick, false) {
        Ok(a) => ctx.admit(a).map_err(|exceeded| LowerError {
            exceeded,
            rule_line: None,
        })?,
        Err(why) => {
            ctx.first_failure = Some(why);
            // Highest rank first, so that each bin's `max_rank` is below the
            // previous bins' and checks can stop early (`Automaton::max_rank`).
            let mut by_rank = all.clone();
            by_rank.sort_by_key(|&i| (std::cmp::Reverse(set.rules[i].rank), i));
            let bins = plan_bins(&simple, &by_rank, budget.registers != Registers::Never);
            for bin in bins {
                build_split(&mut ctx, &bin)?;
            }
        }
    }
    let split_reason = if ctx.automata.len() > 1 {
        ctx.first_failure
    } else {
        None
    };
    // The engine stops at the first automaton that cannot outrank the best
    // outcome so far (`Automaton::max_rank`). Stable: equal ranks keep the
    // order they were built in.
    ctx.automata.sort_by_key(|a| std::cmp::Reverse(a.max_rank));
    ctx.lay_out(source_len);
    Ok(Lowered {
        automata: ctx.automata,
        outcomes: ctx.table.flat,
        split_reason,
    })
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

/// A program larger than this many times its rules' pattern bytes (and
/// than [`BLOWUP_FLOOR`]) is rebuilt as a register automaton, which is kept
/// when it is at most half the size.
const BLOWUP_FACTOR: usize = 8;
const BLOWUP_FLOOR: usize = 4096;

/// Most independent progress one automaton may have to track (the product of
/// its patterns' floating segments); see [`plan_bins`].
const BIN_PROGRESS_LIMIT: u64 = 16;

/// Patterns with one floating segment per automaton on the split path.
const SINGLE_CHUNK: usize = 32;
/// The same for register automata.
const REGISTER_CHUNK: usize = 128;

/// Budget of the first attempt, one automaton of all rules.
const QUICK_STATES: usize = 60_000;
/// Threads budget of the first attempt.
const QUICK_THREADS: usize = 500_000;

/// Number of literal runs that follow a `*`: each is a progress counter the
/// automaton must keep independently of every other pattern's, so their
/// product bounds how many states a set of such patterns can need.
fn floating_segments(body: &[Atom]) -> usize {
    let mut n = 0;
    let mut after_star = false;
    let mut in_run = false;
    for &a in body {
        if a == Atom::Star {
            after_star = true;
            in_run = false;
        } else if !in_run {
            in_run = true;
            if after_star {
                n += 1;
            }
        }
    }
    n
}

/// Splits the rules into groups that are lowered separately when one
/// automaton of all of them is over budget. Literal patterns (a trie, linear
/// in their bytes) form one group; patterns with one floating segment
/// (`/dir/*.pdf`, `*.gif$`, an Aho-Corasick-like automaton) another; patterns
/// with several floating segments are packed so that the product of their
/// segment counts — the independent progress one automaton tracks — stays
/// under [`BIN_PROGRESS_LIMIT`].
fn plan_bins(simple: &[Glob], ids: &[usize], registers: bool) -> Vec<Vec<usize>> {
    let mut literal = Vec::new();
    let mut single = Vec::new();
    let mut bins: Vec<(Vec<usize>, u64)> = Vec::new();
    for &id in ids {
        let glob = &simple[id];
        match floating_segments(&glob.atoms) as u64 {
            0 => literal.push(id),
            1 => single.push(id),
            segs => match bins
                .iter_mut()
                .find(|(_, cost)| cost.saturating_mul(segs) <= BIN_PROGRESS_LIMIT)
            {
                Some((bin, cost)) => {
                    bin.push(id);
                    *cost *= segs;
                }
                None => bins.push((vec![id], segs)),
            },
        }
    }
    // Single-floating patterns multiply with the best match so far (a state
    // must remember which rule to name): chunk them. A register automaton
    // does not multiply (Aho-Corasick size) but tracks every pattern in
    // every state: its chunks are larger.
    let chunk = if registers {
        REGISTER_CHUNK
    } else {
        SINGLE_CHUNK
    };
    let singles = single.chunks(chunk).map(<[usize]>::to_vec);
    std::iter::once(literal)
        .chain(singles)
        .chain(bins.into_iter().map(|(bin, _)| bin))
        .filter(|bin| !bin.is_empty())
        .collect()
}

/// One automaton of the rules `ids`: the plain one, or the register one
/// where the plain one is over budget or blown up (see [`Registers`]).
/// `register_first`: only the register one, within the quick budget (on the
/// split path, for rules whose plain automaton multiplies its states).
fn build_best(
    ctx: &mut Ctx<'_>,
    ids: &[usize],
    budget: &Budget,
    register_first: bool,
) -> Result<Automaton, BudgetExceeded> {
    let pattern_bytes: usize = ids.iter().map(|&i| ctx.set.rules[i].pattern.len()).sum();
    let blown_up =
        |a: &Automaton| a.prog.len() > BLOWUP_FLOOR && a.prog.len() > BLOWUP_FACTOR * pattern_bytes;
    if budget.registers == Registers::Never {
        return build_one(ctx, ids, budget, false);
    }
    // Register automata that need more than the quick budget are not the
    // small ones they are for: give up on them early.
    let register_budget = Budget {
        max_states: budget.max_states.min(QUICK_STATES),
        max_threads: budget.max_threads.min(QUICK_THREADS),
        ..*budget
    };
    if register_first {
        // Past the quick budget the caller halves the rules: cheaper than
        // a plain automaton of patterns known to multiply each other.
        return build_one(ctx, ids, &register_budget, true);
    }
    let plain = match budget.registers {
        Registers::Always => Err(BudgetExceeded::States(0)),
        _ => build_one(ctx, ids, budget, false),
    };
    match plain {
        Ok(a) if blown_up(&a) => match build_one(ctx, ids, &register_budget, true) {
            Ok(r) if 2 * r.prog.len() <= a.prog.len() => Ok(r),
            _ => Ok(a),
        },
        Ok(a) => Ok(a),
        Err(why) => build_one(ctx, ids, &register_budget, true).map_err(|_| why),
    }
}

fn build_split(ctx: &mut Ctx<'_>, ids: &[usize]) -> Result<(), LowerError> {
    let budget = *ctx.budget;
    let fail = |exceeded| LowerError {
        exceeded,
        rule_line: None,
    };
    // Patterns with one floating segment are where a plain automaton
    // multiplies its states by the rules it may have matched.
    let floating = ids.iter().any(|&i| {
        let glob = &ctx.simple[i];
        floating_segments(&glob.atoms) == 1
    });
    match build_best(ctx, ids, &budget, floating) {
        Ok(a) => ctx.admit(a).map_err(fail),
        Err(e) if ids.len() > 1 && !ctx.past_deadline() => {
            ctx.first_failure.get_or_insert(e);
            let (a, b) = ids.split_at(ids.len() / 2);
            build_split(ctx, a)?;
            build_split(ctx, b)
        }
        // Past the deadline, the deadline is why lowering stops, whatever
        // this group ran into; and it is the whole file's, so no rule is
        // named (not the one being lowered when it passed).
        Err(_) if ctx.past_deadline() => Err(LowerError {
            exceeded: BudgetExceeded::Time(budget.time),
            rule_line: None,
        }),
        // A rule alone over a size budget is named.
        Err(e) => Err(LowerError {
            rule_line: (ids.len() == 1).then(|| ctx.set.rules[ids[0]].line),
            exceeded: e,
        }),
    }
}

/// A thread: a position in a pattern, numbered over all the automaton's
/// patterns in order ([`Patterns::offset`]: pattern `i`'s position `j` is
/// `offset[i] + j`), so that threads sort by pattern, then position.
type Thread = u32;

/// A DFA state under construction: live threads (sorted) and the best
/// permanently matched pattern (`NONE` if none); in *set* mode (acap),
/// every permanently matched pattern instead (sorted).
#[derive(Clone, Default, PartialEq, Eq)]
struct StateKey {
    threads: Vec<Thread>,
    best: u32,
    matched: Vec<u32>,
}

impl Hash for StateKey {
    /// Two threads per word.
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.threads.len());
        let mut pairs = self.threads.chunks_exact(2);
        for pair in &mut pairs {
            h.write_u64((u64::from(pair[0]) << 32) | u64::from(pair[1]));
        }
        if let [last] = pairs.remainder() {
            h.write_u32(*last);
        }
        h.write_u32(self.best);
        h.write_usize(self.matched.len());
        for &m in &self.matched {
            h.write_u32(m);
        }
    }
}

const NONE: u32 = u32::MAX;

/// The patterns of one automaton, in the form the construction needs.
struct Patterns<'a> {
    /// Build a register automaton: a state's `best` is only what completes
    /// on entering it (its emit), not carried to its successors.
    register: bool,
    /// Set mode (acap): no rank, so nothing is pruned by rank; a state keeps
    /// the set of patterns matched for good, and its outcome is resolved
    /// from that set ([`crate::outcome::Resolution::outcome`]).
    sets: bool,
    /// Set mode: which matched rules still matter ([`Canonical`]).
    canon: Option<Box<dyn Canonical>>,
    /// Atoms of each (simplified) pattern.
    body: Vec<&'a [Atom]>,
    /// Must the pattern reach the end of the path?
    dollar: Vec<bool>,
    /// Rule id of each pattern.
    rule: Vec<usize>,
    /// Place of each pattern when sorted by rank, best first (rules break
    /// ties by id: [`outcome::beats`]).
    place: Vec<u32>,
    /// Where each pattern's positions start in `kind` (its first thread).
    offset: Vec<u32>,
    /// The pattern of each position.
    pat: Vec<u32>,
    /// What each position of each pattern (its end included) reads: see
    /// [`Patterns::kind`].
    kind: Vec<u16>,
    set: &'a RuleSet,
}

/// [`Patterns::kind`]: the end of the pattern.
const KIND_END: u16 = u16::MAX;
/// [`Patterns::kind`]: a `*`.
const KIND_STAR: u16 = u16::MAX - 1;
/// [`Patterns::kind`]: a set or any byte (the atom says which classes).
const KIND_SET: u16 = u16::MAX - 2;

impl Patterns<'_> {
    /// Does pattern `a` beat pattern `b`?
    fn beats(&self, a: u32, b: u32) -> bool {
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
    fn at(&self, t: Thread) -> Option<Atom> {
        let i = self.pat(t);
        let j = t - self.offset[i as usize];
        self.body[i as usize].get(j as usize).copied()
    }

    /// The pattern of thread `t`.
    #[inline]
    fn pat(&self, t: Thread) -> u32 {
        self.pat[t as usize]
    }

    /// What thread `t` reads next: the class of its byte, or [`KIND_END`],
    /// [`KIND_STAR`], [`KIND_SET`].
    #[inline]
    fn kind(&self, t: Thread) -> u16 {
        self.kind[t as usize]
    }

    /// Fills `offset`, `pat` and `kind` (once the byte classes are known).
    fn index_positions(&mut self, classes: &Classes) {
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

    /// Closes `threads` under "a `*` may match nothing", records permanent
    /// matches (set mode: in `matched`; ranked: in `best`, by
    /// `normalize_ranked`), and prunes threads that can no longer decide.
    /// `closed` is scratch space (its contents are overwritten).
    fn normalize(
        &self,
        threads: &mut Vec<Thread>,
        best: &mut u32,
        matched: &mut Vec<u32>,
        closed: &mut Vec<Thread>,
    ) {
        if !self.sets {
            self.normalize_ranked(threads, best, closed);
            return;
        }
        closed.clear();
        // Sorted threads (as `successors` makes them) close into sorted,
        // distinct threads when a thread already inside the `*` run closed
        // before it is skipped: its closure is the rest of that run.
        let sorted = threads.is_sorted();
        for &t in threads.iter() {
            // Sorted: a thread at or before the last closed one is inside its
            // pattern's `*` run.
            if sorted && closed.last().is_some_and(|&l| l >= t) {
                continue;
            }
            let mut t = t;
            loop {
                closed.push(t);
                if self.kind(t) == KIND_STAR {
                    t += 1;
                } else {
                    break;
                }
            }
        }
        for &t in closed.iter() {
            let i = self.pat(t);
            let done = self.kind(t) == KIND_END;
            if done && !self.dollar[i as usize] {
                if let Err(at) = matched.binary_search(&i) {
                    matched.insert(at, i);
                }
            }
        }
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
        if !closed.windows(2).all(|w| w[0] < w[1]) {
            closed.sort_unstable();
            closed.dedup();
        }
        // Star dominance: keep, per pattern, only positions at or after its
        // furthest active `*`.
        let out = threads;
        out.clear();
        let mut k = 0;
        while k < closed.len() {
            let i = self.pat(closed[k]);
            let end = k + closed[k..]
                .iter()
                .take_while(|&&t| self.pat(t) == i)
                .count();
            let floor = closed[k..end]
                .iter()
                .rev()
                .find(|&&t| self.kind(t) == KIND_STAR)
                .map_or(0, |&t| t);
            out.extend(closed[k..end].iter().filter(|&&t| t >= floor));
            k = end;
        }
    }

    /// [`Patterns::normalize`] for ranked rules (not set mode), in two
    /// passes: close (and fold completed patterns into `best`), then drop
    /// per pattern what is beaten, completed, or behind its last `*`.
    fn normalize_ranked(
        &self,
        threads: &mut Vec<Thread>,
        best: &mut u32,
        closed: &mut Vec<Thread>,
    ) {
        closed.clear();
        // As in `normalize`: sorted threads close into sorted, distinct ones.
        let sorted = threads.is_sorted();
        for &t in threads.iter() {
            if sorted && closed.last().is_some_and(|&l| l >= t) {
                continue;
            }
            let mut t = t;
            loop {
                closed.push(t);
                match self.kind(t) {
                    KIND_STAR => t += 1,
                    KIND_END => {
                        let i = self.pat(t);
                        if !self.dollar[i as usize] && self.beats(i, *best) {
                            *best = i;
                        }
                        break;
                    }
                    _ => break,
                }
            }
        }
        if !sorted && !closed.windows(2).all(|w| w[0] < w[1]) {
            closed.sort_unstable();
            closed.dedup();
        }
        let out = threads;
        out.clear();
        let mut k = 0;
        while k < closed.len() {
            let i = self.pat(closed[k]);
            // The pattern's end position; its threads are up to there.
            let last = self.offset[i as usize + 1] - 1;
            let mut end = k + 1;
            while end < closed.len() && closed[end] <= last {
                end += 1;
            }
            // A register automaton prunes nothing by rank: its states must
            // depend on the recent input only, not on what matched before
            // (the register remembers that).
            if self.register || self.beats(i, *best) {
                let group = &closed[k..end];
                // Star dominance: positions at or after the last active `*`.
                let floor = group
                    .iter()
                    .rev()
                    .find(|&&t| self.kind(t) == KIND_STAR)
                    .map_or(0, |&t| t);
                // A finished pattern without `$` was folded into `best`.
                let permanent = |t: Thread| t == last && !self.dollar[i as usize];
                out.extend(group.iter().filter(|&&t| t >= floor && !permanent(t)));
            }
            k = end;
        }
    }

    /// The states reached from `key` on every class at once: a thread at a
    /// `*` goes to every class, a thread at byte `c` only to `c`'s class, a
    /// thread at a set to the classes inside it, so classes no thread names
    /// share one successor, computed once. Fills `named` with (class,
    /// successor) for the classes some thread names, in class order, and
    /// returns the shared successor if a class (the end class aside) needs
    /// it. The end class's successor is not computed: it ends the path.
    fn successors(
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
        let mut base_best = if self.register { NONE } else { key.best };
        if !self.sets {
            base.clear();
            base.extend_from_slice(stars);
            self.normalize_ranked(base, &mut base_best, closed);
        }
        let mut make = |extra: &[Thread]| {
            if !self.sets {
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
            let mut best = if self.register { NONE } else { key.best };
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

    /// Ranked mode: the successor whose threads are the star threads and
    /// `extra` (sorted), given the star threads normalized alone (`base`,
    /// with `base_best`): as [`Patterns::normalize`] of both, which it
    /// equals, but only the patterns `extra` reaches are merged and
    /// filtered again. `None` when, in a plain automaton, `extra` completes
    /// a pattern that beats `base_best` (any pattern of `base` may then be
    /// beaten: the caller normalizes the whole).
    fn join_ranked(
        &self,
        base: &[Thread],
        base_best: u32,
        extra: &[Thread],
        closed: &mut Vec<Thread>,
        group: &mut Vec<Thread>,
    ) -> Option<StateKey> {
        debug_assert!(extra.windows(2).all(|w| w[0] < w[1]));
        closed.clear();
        let mut best = base_best;
        for &t in extra {
            // As in `normalize`: sorted threads close into sorted, distinct
            // ones.
            if closed.last().is_some_and(|&l| l >= t) {
                continue;
            }
            let mut t = t;
            loop {
                closed.push(t);
                match self.kind(t) {
                    KIND_STAR => t += 1,
                    KIND_END => {
                        let i = self.pat(t);
                        if !self.dollar[i as usize] && self.beats(i, best) {
                            best = i;
                        }
                        break;
                    }
                    _ => break,
                }
            }
        }
        if !self.register && best != base_best {
            return None;
        }
        let mut out = Vec::with_capacity(base.len() + closed.len());
        let (mut cur, mut k) = (0, 0);
        while k < closed.len() {
            let i = self.pat(closed[k]);
            let first = self.offset[i as usize];
            let last = self.offset[i as usize + 1] - 1;
            let mut end = k + 1;
            while end < closed.len() && closed[end] <= last {
                end += 1;
            }
            // Pattern `i`'s threads in `base`: they were kept with the same
            // best, so `i` is not beaten if it has any.
            let a_start = cur + base[cur..].partition_point(|&t| t < first);
            let a_end = a_start + base[a_start..].partition_point(|&t| t <= last);
            out.extend_from_slice(&base[cur..a_start]);
            if self.register || self.beats(i, best) {
                // The union of both, then what `normalize_ranked` keeps of a
                // pattern (what `base` dropped of it by its own last `*`, a
                // later one drops too).
                group.clear();
                let (a, b) = (&base[a_start..a_end], &closed[k..end]);
                let (mut x, mut y) = (0, 0);
                while x < a.len() && y < b.len() {
                    match a[x].cmp(&b[y]) {
                        std::cmp::Ordering::Less => {
                            group.push(a[x]);
                            x += 1;
                        }
                        std::cmp::Ordering::Greater => {
                            group.push(b[y]);
                            y += 1;
                        }
                        std::cmp::Ordering::Equal => {
                            group.push(a[x]);
                            x += 1;
                            y += 1;
                        }
                    }
                }
                group.extend_from_slice(&a[x..]);
                group.extend_from_slice(&b[y..]);
                let floor = group
                    .iter()
                    .rev()
                    .find(|&&t| self.kind(t) == KIND_STAR)
                    .map_or(0, |&t| t);
                let permanent = |t: Thread| t == last && !self.dollar[i as usize];
                out.extend(group.iter().filter(|&&t| t >= floor && !permanent(t)));
            }
            cur = a_end;
            k = end;
        }
        out.extend_from_slice(&base[cur..]);
        Some(StateKey {
            threads: out,
            best,
            matched: Vec::new(),
        })
    }

    /// Set mode: the rules matched if the path ends in state `key` (sorted
    /// rule ids).
    fn matched_rules(&self, key: &StateKey) -> Vec<usize> {
        let ended = key
            .threads
            .iter()
            .filter(|&&t| self.kind(t) == KIND_END && self.dollar[self.pat(t) as usize])
            .map(|&t| self.pat(t));
        let mut rules: Vec<usize> = key
            .matched
            .iter()
            .copied()
            .chain(ended)
            .map(|p| self.rule[p as usize])
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// The winning pattern if the path ends in state `key` (a register
    /// automaton: among the emit and the `$` patterns completed there).
    fn winning_pattern(&self, key: &StateKey) -> Option<u32> {
        let mut best = key.best;
        for &t in &key.threads {
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

/// Buffers the subset construction reuses from state to state.
struct Scratch {
    /// Threads at a `*`.
    stars: Vec<Thread>,
    /// Per class: the threads that step on it.
    by_class: Vec<Vec<Thread>>,
    /// Classes whose `by_class` entry is not empty.
    touched: Vec<usize>,
    /// [`Patterns::normalize`]'s closure.
    closed: Vec<Thread>,
    /// Ranked mode: the star threads normalized alone.
    base: Vec<Thread>,
    /// [`Patterns::join_ranked`]'s threads of one pattern.
    group: Vec<Thread>,
}

impl Scratch {
    fn new(nclasses: usize) -> Scratch {
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

/// Bytes that end the path in Google's reading of a URL.
fn is_end_byte(b: u8) -> bool {
    b == b'#' || b == 0
}

/// Byte equivalence classes of one automaton.
struct Classes {
    /// Byte → class.
    of: [u8; 256],
    /// Number of classes.
    count: usize,
    /// A byte of each class (`None` for an empty "other" class).
    representative: Vec<Option<u8>>,
}

/// Class 0: bytes no pattern distinguishes; class 1: the end bytes; then one
/// class per distinct signature — the patterns' byte sets a byte belongs to
/// (a literal byte is a one-byte set). Two bytes of a class are accepted by
/// exactly the same atoms, so the automaton can read classes.
const OTHER_CLASS: usize = 0;
const END_CLASS: usize = 1;

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

fn build_one(
    ctx: &mut Ctx<'_>,
    ids: &[usize],
    budget: &Budget,
    register: bool,
) -> Result<Automaton, BudgetExceeded> {
    let started = Instant::now();
    let set = ctx.set;
    let sets = set.resolution.by_sets();
    // A rule equal to an earlier one in atoms, anchoring and rank never wins
    // (in set mode every rule counts: its usage and tier matter).
    let mut seen = FxHashSet::default();
    let mut simplified: Vec<(&Glob, usize)> = Vec::new();
    for &i in ids {
        let glob = &ctx.simple[i];
        let key = if sets {
            i as u64
        } else {
            u64::from(set.rules[i].rank)
        };
        if seen.insert((glob, key)) {
            simplified.push((glob, i));
        }
    }
    let mut pats = Patterns {
        register,
        sets,
        canon: set.resolution.canon(&set.rules),
        body: simplified.iter().map(|(g, _)| g.atoms.as_slice()).collect(),
        dollar: simplified.iter().map(|(g, _)| g.anchored).collect(),
        rule: simplified.iter().map(|&(_, i)| i).collect(),
        place: {
            let mut order: Vec<usize> = (0..simplified.len()).collect();
            order.sort_unstable_by_key(|&p| {
                let rule = simplified[p].1;
                (std::cmp::Reverse(set.rules[rule].rank), rule)
            });
            let mut place = vec![0u32; order.len()];
            for (k, &p) in order.iter().enumerate() {
                place[p] = k as u32;
            }
            place
        },
        offset: Vec::new(),
        pat: Vec::new(),
        kind: Vec::new(),
        set,
    };
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
    let mut prio = vec![0u32; pats.rule.len()];
    let mut ranked = Vec::new();
    if register {
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
            ranked.push(ctx.table.intern(outcome::ranked(&set.rules, rule)));
        }
    }
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
            if std::env::var_os("ROBOCC_DEBUG_LOWER").is_some() {
                let _ = writeln!(
                    std::io::stderr(),
                    "lower: {} patterns FAIL {} states (register: {register}, {} classes, {:?})",
                    pats.rule.len(),
                    keys.len(),
                    nclasses,
                    started.elapsed()
                );
            }
            return Err(BudgetExceeded::States(budget.max_states));
        }
        if i % 256 == 0 && ctx.past_deadline() {
            return Err(BudgetExceeded::Time(ctx.budget.time));
        }
        // The index keeps its own copy of the key.
        let key = std::mem::take(&mut keys[i]);
        threads_total += key.threads.len() + key.matched.len();
        if threads_total > budget.max_threads {
            if std::env::var_os("ROBOCC_DEBUG_LOWER").is_some() {
                let _ = writeln!(
                    std::io::stderr(),
                    "lower: {} patterns FAIL {} threads at {} states (register: {register}, {} classes, {:?})",
                    pats.rule.len(),
                    threads_total,
                    keys.len(),
                    nclasses,
                    started.elapsed()
                );
            }
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
        if register {
            outcome.push(priority(pats.winning_pattern(&key)));
            emit.push(priority((key.best != NONE).then_some(key.best)));
            dead.push(key.threads.is_empty());
        } else if sets {
            let matched = pats.matched_rules(&key);
            outcome.push(
                ctx.table
                    .intern(set.resolution.outcome(&set.rules, None, &matched)),
            );
        } else {
            let slot = pats.winning_pattern(&key).unwrap_or(pats.rule.len() as u32) as usize;
            if winner_outcome[slot] == u32::MAX {
                let winner = pats.rule.get(slot).copied();
                winner_outcome[slot] = ctx.table.intern(outcome::ranked(&set.rules, winner));
            }
            outcome.push(winner_outcome[slot]);
        }
        succ.push(row);
        i += 1;
    }
    if std::env::var_os("ROBOCC_DEBUG_LOWER").is_some() {
        let _ = writeln!(
            std::io::stderr(),
            "lower: {} patterns -> {} states, {} threads (register: {register}, {} classes, {:?})",
            pats.rule.len(),
            keys.len(),
            threads_total,
            nclasses,
            started.elapsed()
        );
    }
    let outcomes = ctx.table.ids.len();
    // Set mode keeps every matched rule in its states, so states that
    // differ only in rules that no longer change any outcome abound:
    // merge states with the same outcome and the same future.
    let (succ, outcome) = if sets && succ.len() <= MINIMIZE_LIMIT {
        minimize(&succ, &outcome, end_class)
    } else {
        (succ, outcome)
    };
    let register = register.then_some(Register { emit, dead, ranked });
    let mut a = finish(succ, outcome, classes.of, end_class, outcomes, register);
    // Set mode resolves by scope, not rank: no automaton may be skipped.
    if !sets {
        a.max_rank = ids.iter().map(|&i| set.rules[i].rank).max().unwrap_or(0);
    }
    Ok(a)
}

/// States above which set-mode automata are not minimized (the refinement
/// is O(states × classes) per round).
const MINIMIZE_LIMIT: usize = 100_000;

/// Moore's partition refinement: states with the same outcome whose
/// successors on every class (the end class aside: it leads to the state's
/// own outcome) are in the same blocks are one state. Block 0 holds the
/// start state; the other blocks are numbered by first appearance.
fn minimize(succ: &[Vec<usize>], outcome: &[u32], end_class: usize) -> (Vec<Vec<usize>>, Vec<u32>) {
    let n = succ.len();
    let mut block: Vec<usize> = {
        let mut ids: FxHashMap<u32, usize> = FxHashMap::default();
        outcome
            .iter()
            .map(|o| {
                let next = ids.len();
                *ids.entry(*o).or_insert(next)
            })
            .collect()
    };
    let mut count = block.iter().max().map_or(0, |m| m + 1);
    loop {
        let mut ids: FxHashMap<Vec<usize>, usize> =
            FxHashMap::with_capacity_and_hasher(count * 2, Default::default());
        let mut next = Vec::with_capacity(n);
        for s in 0..n {
            let mut sig = Vec::with_capacity(succ[s].len() + 1);
            sig.push(block[s]);
            sig.extend(
                succ[s]
                    .iter()
                    .enumerate()
                    .filter(|&(c, _)| c != end_class)
                    .map(|(_, &t)| block[t]),
            );
            let fresh = ids.len();
            next.push(*ids.entry(sig).or_insert(fresh));
        }
        let refined = ids.len();
        block = next;
        if refined == count {
            break;
        }
        count = refined;
    }
    // Block ids are by first appearance, so the start state's is 0.
    let mut rep = vec![usize::MAX; count];
    for (s, &b) in block.iter().enumerate() {
        if rep[b] == usize::MAX {
            rep[b] = s;
        }
    }
    let succ = rep
        .iter()
        .map(|&s| succ[s].iter().map(|&t| block[t]).collect())
        .collect();
    let outcome = rep.iter().map(|&s| outcome[s]).collect();
    (succ, outcome)
}

/// What a register automaton adds to its states (see
/// [`robocc_engine::program`]); its `outcome`s are priorities.
struct Register {
    /// Priority completed on entering each state (0: none).
    emit: Vec<u32>,
    /// States without live threads: nothing can change after them.
    dead: Vec<bool>,
    /// Priority → outcome id.
    ranked: Vec<u32>,
}

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

/// A state's default target and its exceptions (class, target).
type Shape = (usize, Vec<(u8, usize)>);

/// Marks decided states, then writes the undecided ones as a program
/// ([`robocc_engine::program`]): breadth-first from the start, runs of
/// single-exception states as chains, others sparse or dense, and every
/// transition into a decided state as that state's outcome.
fn finish(
    succ: Vec<Vec<usize>>,
    outcome: Vec<u32>,
    class_of: [u8; 256],
    end_class: usize,
    outcomes: usize,
    register: Option<Register>,
) -> Automaton {
    let n = succ.len();
    let nclasses = succ.first().map_or(2, Vec::len);
    let live = |c: usize| c != end_class;
    let mut undecided = vec![false; n];
    if let Some(r) = &register {
        // What the register holds is known only at run time: a state is
        // decided when nothing can happen after it.
        for (u, &dead) in undecided.iter_mut().zip(&r.dead) {
            *u = !dead;
        }
    } else {
        // A state is undecided when some reachable state has another
        // outcome: seed with states that have such a successor, propagate
        // backwards.
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut queue = Vec::new();
        for s in 0..n {
            for (c, &t) in succ[s].iter().enumerate() {
                if !live(c) {
                    continue;
                }
                preds[t].push(s);
                if outcome[t] != outcome[s] && !undecided[s] {
                    undecided[s] = true;
                    queue.push(s);
                }
            }
        }
        while let Some(t) = queue.pop() {
            for &p in &preds[t] {
                if !undecided[p] {
                    undecided[p] = true;
                    queue.push(p);
                }
            }
        }
    }
    // Register automata: the walk reads an emit only when it moves to a
    // node, so a chain may absorb only states without one.
    let emit_of = |s: usize| register.as_ref().map_or(0, |r| r.emit[s]);
    // Edges into each undecided state from undecided states: a chain may
    // absorb a state only if its one way in is the chain itself.
    let mut indegree = vec![0usize; n];
    for s in (0..n).filter(|&s| undecided[s]) {
        for (c, &t) in succ[s].iter().enumerate() {
            if live(c) {
                indegree[t] += 1;
            }
        }
    }
    // Per undecided state: its default (most frequent live target) and its
    // exceptions.
    // One map for every state (cleared): allocating one per state showed.
    let mut counts: FxHashMap<usize, usize> = FxHashMap::default();
    let mut consume_shape = |s: usize| -> Shape {
        counts.clear();
        for (c, &t) in succ[s].iter().enumerate() {
            if live(c) {
                *counts.entry(t).or_default() += 1;
            }
        }
        let default = counts
            .iter()
            .max_by_key(|&(&t, &k)| (k, std::cmp::Reverse(t)))
            .map_or(s, |(&t, _)| t);
        let exceptions = succ[s]
            .iter()
            .enumerate()
            .filter(|&(c, &t)| live(c) && t != default)
            .map(|(c, &t)| (c as u8, t))
            .collect();
        (default, exceptions)
    };
    // Breadth-first rank of each undecided state: how early paths reach it.
    let mut rank = vec![usize::MAX; n];
    let mut order = Vec::new();
    if undecided[0] {
        rank[0] = 0;
        order.push(0);
    }
    let mut k = 0;
    while k < order.len() {
        let s = order[k];
        k += 1;
        for (c, &t) in succ[s].iter().enumerate() {
            if live(c) && undecided[t] && rank[t] == usize::MAX {
                rank[t] = order.len();
                order.push(t);
            }
        }
    }
    // Which states get a dense row. Row sizes with 2-byte targets: a
    // sparse node is tag, outcome, default and per exception a class byte
    // and a target; a dense row is a target per class and the outcome.
    let consume: Vec<Option<Shape>> = (0..n)
        .map(|s| undecided[s].then(|| consume_shape(s)))
        .collect();
    // Register automata are Aho-Corasick-like: a state inside a word
    // differs from the scanning state only where the word goes on, but
    // names every word's first byte; count what a fallback node lists.
    let scanning = |s: usize| match &consume[s] {
        Some((default, _)) => *default == s,
        None => false,
    };
    let differ_count = |s: usize, d: usize| {
        (0..nclasses)
            .filter(|&c| live(c) && succ[s][c] != succ[d][c])
            .count()
    };
    let is_dense: Vec<bool> = (0..n)
        .map(|s| match &consume[s] {
            None => false,
            Some((default, exceptions)) => {
                let mut m = exceptions.len();
                if register.is_some() && *default != s && scanning(*default) {
                    m = m.min(differ_count(s, *default));
                }
                let sparse_size = 5 + 3 * m;
                let dense_size = 2 * (nclasses + 1);
                // A state whose default is itself is where a `*` scans the
                // path: every byte of it passes there.
                m > SPARSE_LIMIT
                    || *default == s
                    || dense_size <= DENSE_FACTOR * sparse_size
                    || (rank[s] < HOT_NODES && m >= HOT_EXCEPTIONS)
                    // Every walk starts here: a chain or sparse node would
                    // cost each check a dispatch.
                    || rank[s] == 0
            }
        })
        .collect();
    // The others: listed exceptions and a consuming default, or only the
    // classes where they differ from their default's dense row (fallback),
    // whichever lists fewer.
    let shape = |s: usize| -> (bool, usize, Vec<(u8, usize)>) {
        let (default, exceptions) = consume[s].clone().unwrap_or((s, Vec::new()));
        if undecided[default] && is_dense[default] && default != s {
            let differ: Vec<(u8, usize)> = succ[s]
                .iter()
                .enumerate()
                .filter(|&(c, &t)| live(c) && t != succ[default][c])
                .map(|(c, &t)| (c as u8, t))
                .collect();
            if differ.len() < exceptions.len() {
                return (true, default, differ);
            }
        }
        (false, default, exceptions)
    };
    // Lay out nodes breadth-first; `node_of[s]` is the node a state starts.
    let mut node_of: Vec<Option<u32>> = vec![None; n];
    let mut absorbed = vec![false; n];
    enum Plan {
        Dense(usize),
        /// State, fallback, default, exceptions.
        Sparse(usize, bool, usize, Vec<(u8, usize)>),
        /// Head state, fallback, default, classes, next state.
        Chain(usize, bool, usize, Vec<u8>, usize),
    }
    let mut plans: Vec<Plan> = Vec::new();
    for &s in &order {
        if absorbed[s] {
            continue;
        }
        node_of[s] = Some(plans.len() as u32);
        if is_dense[s] {
            plans.push(Plan::Dense(s));
            continue;
        }
        let (fallback, default, exceptions) = shape(s);
        if exceptions.len() != 1 {
            plans.push(Plan::Sparse(s, fallback, default, exceptions));
            continue;
        }
        // Extend a chain while the next state has one way in (from here),
        // the same default, kind and outcome, and one exception.
        let mut classes = vec![exceptions[0].0];
        let mut next = exceptions[0].1;
        while classes.len() < robocc_engine::program::MAX_CHAIN
            && undecided[next]
            && !is_dense[next]
            && next != 0
            && indegree[next] == 1
            && !absorbed[next]
            && node_of[next].is_none()
            && outcome[next] == outcome[s]
            && emit_of(next) == 0
        {
            let (f, d, e) = shape(next);
            if f != fallback || d != default || e.len() != 1 {
                break;
            }
            absorbed[next] = true;
            classes.push(e[0].0);
            next = e[0].1;
        }
        plans.push(Plan::Chain(s, fallback, default, classes, next));
    }
    let target = |t: usize| -> Target {
        match node_of[t] {
            Some(node) if undecided[t] => Target::Node(node),
            _ => Target::Outcome(outcome[t]),
        }
    };
    let nodes: Vec<Node> = plans
        .iter()
        .map(|plan| match plan {
            Plan::Dense(s) => Node::Dense {
                outcome: outcome[*s],
                row: succ[*s]
                    .iter()
                    .enumerate()
                    .map(|(c, &t)| {
                        if live(c) {
                            target(t)
                        } else {
                            // The path ends here: this state's outcome.
                            Target::Outcome(outcome[*s])
                        }
                    })
                    .collect(),
            },
            Plan::Chain(s, fallback, default, classes, next) => Node::Chain {
                outcome: outcome[*s],
                default: target(*default),
                fallback: *fallback,
                classes: classes.clone(),
                next: target(*next),
            },
            Plan::Sparse(s, fallback, default, exceptions) => Node::Sparse {
                outcome: outcome[*s],
                default: target(*default),
                fallback: *fallback,
                exceptions: exceptions.iter().map(|&(c, t)| (c, target(t))).collect(),
            },
        })
        .collect();
    let (emits, ranked, outcomes) = match register {
        Some(r) => {
            let emits = plans
                .iter()
                .map(|plan| match plan {
                    Plan::Dense(s) | Plan::Sparse(s, ..) | Plan::Chain(s, ..) => r.emit[*s],
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

#[cfg(test)]
mod tests {
    use super::{byte_classes, floating_segments, END_CLASS, OTHER_CLASS};
    use crate::glob::Glob;
    use robocc_engine::artifact::PatternSyntax;
    use robocc_engine::UrlMode;

    fn atoms(p: &str) -> Vec<crate::glob::Atom> {
        Glob::parse(p.as_bytes(), PatternSyntax::Glob, UrlMode::Google)
            .simplified()
            .atoms
    }

    #[test]
    fn segments() {
        assert_eq!(floating_segments(&atoms("/a/b")), 0);
        assert_eq!(floating_segments(&atoms("*.pdf")), 1);
        assert_eq!(floating_segments(&atoms("/dir/*.pdf")), 1);
        assert_eq!(floating_segments(&atoms("*/*max-price=")), 2);
    }

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
