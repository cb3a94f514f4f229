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
//!
//! The stages, one module each, in the order [`lower`] runs them:
//!
//! * `closure`: threads, their closure under `*` and pruning (rank, star
//!   dominance, [`Canonical`](crate::outcome::Canonical));
//! * `states`: the states of one construction, interned (a state is kept
//!   as its *base*, its `*` threads normalized alone, and the few threads
//!   by which it differs from it; hashed once per candidate);
//! * `determinise`: byte classes, a state's successors (made once per base
//!   on the classes only the base reads) and the subset construction of
//!   one automaton;
//! * `minimise`: set-mode automata's equal states merged;
//! * `layout`: decided states, and the automaton written as a program
//!   (compact nodes or dense rows);
//! * `buffers`: the tables of a construction and its layout, kept per
//!   thread from one automaton to the next.
//!
//! This module chooses the form (plain or register, one automaton or the
//! rules split over several) within the budget.

mod buffers;
mod closure;
mod determinise;
mod layout;
mod minimise;
mod states;

use crate::clock::Instant;
use crate::glob::{Atom, Glob};
use crate::ruleset::RuleSet;
use determinise::{build_one, Construction, Planned};
pub use layout::{AUTO_MAX_ROWS, AUTO_ROWS_PER_SOURCE_BYTE};
use robocc_engine::artifact::Automaton;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Duration;

/// The multiply-rotate hasher of rustc (`rustc-hash` 2): the subset
/// construction hashes every successor of every state (vectors of small
/// integers), where SipHash dominated the profile. Not DoS-resistant, which
/// does not matter here: the keys are pattern and position numbers, and the
/// budgets bound the work whatever the input.
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher {
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
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`] (only insertions).
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

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
    /// Ranked rule sets: each rule's outcome as the winner (and, last,
    /// no winner's), `u32::MAX` until interned: every construction of the
    /// rule asks again (a register automaton for each of its rules).
    ranked: Vec<u32>,
}

impl OutcomeTable {
    /// The id of [`crate::outcome::ranked`] of `rule` among `rules`.
    fn ranked(&mut self, rules: &[crate::ruleset::SetRule], rule: Option<usize>) -> u32 {
        let slot = rule.unwrap_or(rules.len());
        if self.ranked.len() <= rules.len() {
            self.ranked.resize(rules.len() + 1, u32::MAX);
        }
        if self.ranked[slot] == u32::MAX {
            self.ranked[slot] = self.intern(crate::outcome::ranked(rules, rule));
        }
        self.ranked[slot]
    }

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

/// What one automaton's construction keeps in its states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Ranked rules; a state keeps the best permanent match (rank pruning).
    Plain,
    /// Ranked rules; the engine keeps the best match in a register, and a
    /// state is its live threads and what completed on entering it (its
    /// emit). See [`Registers`].
    Register,
    /// Set mode (acap, AI-usage preferences): no rank; a state keeps the
    /// rules matched for good, resolved by the rule set's
    /// [`Resolution`](crate::outcome::Resolution).
    Sets,
}

/// What a lowering run shares across its automata.
struct Ctx<'a> {
    set: &'a RuleSet,
    /// Each rule's glob, simplified (once: every attempt reads them).
    simple: &'a [&'a Glob],
    /// Per rule, the first rule with the same simplified glob and rank
    /// (`closure::same_rules`).
    same: &'a [u32],
    budget: &'a Budget,
    /// None: the time budget is beyond what the clock can represent (no
    /// limit in practice).
    deadline: Option<Instant>,
    table: OutcomeTable,
    automata: Vec<Automaton>,
    spent_bytes: usize,
    first_failure: Option<BudgetExceeded>,
    /// What the attempts on all the rules left when they ran out of a
    /// budget of states or threads (see [`Retry`]).
    retry: Retry<'a>,
    /// `ROBOCC_DEBUG_LOWER` is set: each construction says on stderr what
    /// it built or ran out of.
    debug: bool,
}

/// The first attempt, one automaton of all the rules on the quick budget,
/// may fail where a bin of the split path is all the rules again (all of
/// them literal, say): that bin's plain construction then goes on from
/// where the first one stopped, and its register one, which failed under
/// the same budget, is not built again. Exact: a construction under way
/// ends where one under the larger budget from the start would
/// ([`Construction`]), and the construction of a set of rules does not
/// depend on their order (the first attempt lists them by id, bins by
/// rank) while rules equal in pattern and rank keep theirs (both list
/// those by id), as `order_does_not_matter` checks.
#[derive(Default)]
struct Retry<'a> {
    /// The plain construction of all the rules and the budget it ran out
    /// of (states, threads).
    plain: Option<(Construction<'a>, usize, usize)>,
    /// The register construction of all the rules: the budget it ran out
    /// of and why.
    register: Option<(usize, usize, BudgetExceeded)>,
}

impl<'a> Ctx<'a> {
    fn new(
        set: &'a RuleSet,
        simple: &'a [&'a Glob],
        same: &'a [u32],
        budget: &'a Budget,
    ) -> Ctx<'a> {
        let mut ctx = Ctx {
            set,
            simple,
            same,
            budget,
            deadline: Instant::now().checked_add(budget.time),
            table: OutcomeTable {
                ids: FxHashMap::default(),
                flat: Vec::new(),
                ranked: Vec::new(),
            },
            automata: Vec::new(),
            spent_bytes: 0,
            first_failure: None,
            retry: Retry::default(),
            debug: std::env::var_os("ROBOCC_DEBUG_LOWER").is_some(),
        };
        // Outcome 0 is the outcome of matching nothing.
        ctx.table
            .intern(set.resolution.outcome(&set.rules, None, &[]));
        ctx
    }

    /// Whether `ids` (distinct rules) are all the rules.
    fn all_rules(&self, ids: &[usize]) -> bool {
        ids.len() == self.set.rules.len()
    }

    /// The plain automaton of `ids` within `budget`, planned (it may be
    /// measured and dropped: [`Planned`]).
    fn build_plain(
        &mut self,
        ids: &[usize],
        budget: &Budget,
    ) -> Result<Planned<'a>, BudgetExceeded> {
        let all = self.all_rules(ids);
        let within = |(_, states, threads): &(Construction<'a>, usize, usize)| {
            budget.max_states >= *states && budget.max_threads >= *threads
        };
        let mut c = match self.retry.plain.take() {
            Some(retry) if all && within(&retry) => retry.0,
            _ => Construction::new(self, ids, Mode::Plain),
        };
        match c.run(self, budget) {
            Ok(()) => Ok(c.plan(self)),
            Err(e) => {
                if all && matches!(e, BudgetExceeded::States(_) | BudgetExceeded::Threads(_)) {
                    self.retry.plain = Some((c, budget.max_states, budget.max_threads));
                }
                Err(e)
            }
        }
    }

    /// The register automaton of `ids` within `budget`.
    fn build_register(
        &mut self,
        ids: &[usize],
        budget: &Budget,
    ) -> Result<Automaton, BudgetExceeded> {
        let all = self.all_rules(ids);
        let limits = (budget.max_states, budget.max_threads);
        match self.retry.register {
            Some((states, threads, e)) if all && (states, threads) == limits => return Err(e),
            _ => {}
        }
        let r = build_one(self, ids, budget, Mode::Register);
        if let Err(e @ (BudgetExceeded::States(_) | BudgetExceeded::Threads(_))) = r {
            if all {
                self.retry.register = Some((limits.0, limits.1, e));
            }
        }
        r
    }
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
}

/// Lowers `set` (its rules carry their dialect's ranks), read from a source
/// of `source_len` bytes (which [`Layout::Auto`]'s allowance scales with:
/// the footprint is judged against the file as fetched).
pub fn lower(set: &RuleSet, budget: &Budget, source_len: usize) -> Result<Lowered, LowerError> {
    let lowered = lower_within(set, budget, source_len);
    buffers::Buffers::trim_pool();
    lowered
}

fn lower_within(set: &RuleSet, budget: &Budget, source_len: usize) -> Result<Lowered, LowerError> {
    let owned = simplified(set);
    let simple = simple_globs(set, &owned);
    let same = if set.resolution.by_sets() {
        Vec::new()
    } else {
        closure::same_rules(set, &simple)
    };
    let mut ctx = Ctx::new(set, &simple, &same, budget);
    if set.resolution.by_sets() {
        // Set mode: resolution is not by rank, so the rules cannot be split
        // over automata combined by rank, nor kept in a rank register. One
        // plain automaton within the budget, or a refusal.
        let all: Vec<usize> = (0..set.rules.len()).collect();
        let a = build_one(&mut ctx, &all, budget, Mode::Sets).map_err(|exceeded| LowerError {
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
            if !bins.iter().any(|bin| ctx.all_rules(bin)) {
                ctx.retry = Retry::default();
            }
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

/// Whether [`Glob::simplified`] would change `g` (a `**`, or a trailing
/// `*`).
fn simplifies(g: &Glob) -> bool {
    g.atoms.last() == Some(&Atom::Star)
        || g.atoms
            .windows(2)
            .any(|w| w[0] == Atom::Star && w[1] == Atom::Star)
}

/// The simplified globs of the rules of `set` that [`simplifies`] changes,
/// in rule order.
fn simplified(set: &RuleSet) -> Vec<Glob> {
    set.rules
        .iter()
        .filter(|r| simplifies(&r.glob))
        .map(|r| r.glob.simplified())
        .collect()
}

/// Each rule's glob, simplified: its own when that changes nothing (most
/// are: a copy of every pattern's atoms, 40 bytes each, was a sizeable
/// part of lowering a file of thousands of rules), else from `owned`
/// ([`simplified`]).
fn simple_globs<'a>(set: &'a RuleSet, owned: &'a [Glob]) -> Vec<&'a Glob> {
    let mut owned = owned.iter();
    set.rules
        .iter()
        .map(|r| match simplifies(&r.glob) {
            true => owned
                .next()
                .expect("one simplified glob per rule that changes"),
            false => &r.glob,
        })
        .collect()
}

/// A program larger than this many times its rules' pattern bytes (and
/// than [`BLOWUP_FLOOR`]) is rebuilt as a register automaton, which is kept
/// when it is at most half the size.
pub(crate) const BLOWUP_FACTOR: usize = 8;
pub(crate) const BLOWUP_FLOOR: usize = 4096;

/// Most independent progress one automaton may have to track (the product of
/// its patterns' floating segments); see [`plan_bins`].
const BIN_PROGRESS_LIMIT: u64 = 16;

/// Patterns with one floating segment per automaton on the split path.
const SINGLE_CHUNK: usize = 32;
/// The same for register automata.
const REGISTER_CHUNK: usize = 128;

/// Budget of the first attempt, one automaton of all rules.
pub(crate) const QUICK_STATES: usize = 60_000;
/// Threads budget of the first attempt.
pub(crate) const QUICK_THREADS: usize = 500_000;

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
fn plan_bins(simple: &[&Glob], ids: &[usize], registers: bool) -> Vec<Vec<usize>> {
    let mut literal = Vec::new();
    let mut single = Vec::new();
    let mut bins: Vec<(Vec<usize>, u64)> = Vec::new();
    for &id in ids {
        let glob = simple[id];
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
    let blown_up = |len: usize| len > BLOWUP_FLOOR && len > BLOWUP_FACTOR * pattern_bytes;
    if budget.registers == Registers::Never {
        return ctx.build_plain(ids, budget).map(Planned::emit);
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
        return ctx.build_register(ids, &register_budget);
    }
    let plain = match budget.registers {
        Registers::Always => Err(BudgetExceeded::States(0)),
        _ => ctx.build_plain(ids, budget),
    };
    match plain {
        // The plain program is written only if it is kept.
        Ok(a) if blown_up(a.len()) => match ctx.build_register(ids, &register_budget) {
            Ok(r) if 2 * r.prog.len() <= a.len() => Ok(r),
            _ => Ok(a.emit()),
        },
        Ok(a) => Ok(a.emit()),
        Err(why) => ctx.build_register(ids, &register_budget).map_err(|_| why),
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
        let glob = ctx.simple[i];
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

#[cfg(test)]
mod tests {
    use super::determinise::{build_one, Construction};
    use super::{closure, floating_segments, Budget, Ctx, Mode};
    use crate::glob::Glob;
    use crate::ruleset::RuleSet;
    use crate::CompileOptions;
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

    /// Rule sets with `*`s, `$`s, equal patterns of equal rank, and many
    /// floating patterns whose plain automaton multiplies its states.
    fn rule_sets() -> Vec<RuleSet> {
        let mut bodies = vec![
            "User-agent: *\nDisallow: /a\nAllow: /a/b$\nDisallow: /*.pdf$\nAllow: /*?lang=\n\
             Disallow: /a\nDisallow: /x/*/y\nAllow: /\nDisallow: /*/private/*\n"
                .to_string(),
            "User-agent: *\nDisallow: /*a\nAllow: /*ab\nDisallow: /*abc$\nAllow: /b*\n".to_string(),
        ];
        let words: String = (0..40)
            .map(|w| format!("Disallow: /*w{w}x\nAllow: /*w{w}x/ok\n"))
            .collect();
        bodies.push(format!("User-agent: *\n{words}"));
        bodies
            .iter()
            .map(|b| {
                crate::compile::front(
                    b.as_bytes(),
                    None,
                    &"bot".into(),
                    &CompileOptions::default(),
                    |f| Ok(f.rule_set),
                )
                .unwrap()
            })
            .collect()
    }

    /// The automaton of rules `ids` in `mode` and the outcome table it
    /// filled, built from the start, or first on `first` and then on to
    /// the default budget.
    fn build(
        set: &RuleSet,
        ids: &[usize],
        mode: Mode,
        first: Option<Budget>,
    ) -> (robocc_engine::artifact::Automaton, Vec<u32>) {
        let owned = super::simplified(set);
        let simple = super::simple_globs(set, &owned);
        let same = closure::same_rules(set, &simple);
        let budget = Budget::default();
        let mut ctx = Ctx::new(set, &simple, &same, &budget);
        let a = match first {
            None => build_one(&mut ctx, ids, &budget, mode).unwrap(),
            Some(small) => {
                let mut c = Construction::new(&mut ctx, ids, mode);
                assert!(c.run(&mut ctx, &small).is_err(), "{small:?}");
                c.run(&mut ctx, &budget).unwrap();
                c.finish(&ctx)
            }
        };
        (a, ctx.table.flat)
    }

    /// The retried constructions of the split path (`Retry`) rest on this:
    /// a set of rules lowers to the same automaton and outcome table
    /// whatever the order of their ids, but for rules equal in pattern and
    /// rank, of which the first listed is kept (ids and bins list them in
    /// id order).
    #[test]
    fn order_does_not_matter() {
        for set in rule_sets() {
            let ids: Vec<usize> = (0..set.rules.len()).collect();
            let mut by_rank = ids.clone();
            by_rank.sort_by_key(|&i| (std::cmp::Reverse(set.rules[i].rank), i));
            // Rules equal in pattern and rank stay in order: the first
            // listed is the one kept (`Patterns::new`).
            let owned = super::simplified(&set);
            let same = closure::same_rules(&set, &super::simple_globs(&set, &owned));
            let mut shuffled = ids.clone();
            shuffled.sort_by_key(|&i| (same[i] as usize * 7919) % ids.len());
            for mode in [Mode::Plain, Mode::Register] {
                let want = build(&set, &ids, mode, None);
                assert_eq!(build(&set, &by_rank, mode, None), want, "{mode:?}");
                assert_eq!(build(&set, &shuffled, mode, None), want, "{mode:?}");
            }
        }
    }

    /// A construction that ran out of a budget and went on under a larger
    /// one ends where one under the larger budget from the start does.
    #[test]
    fn a_construction_goes_on_where_it_stopped() {
        for set in rule_sets() {
            let ids: Vec<usize> = (0..set.rules.len()).collect();
            for mode in [Mode::Plain, Mode::Register] {
                let want = build(&set, &ids, mode, None);
                let states = Budget {
                    max_states: 3,
                    ..Budget::default()
                };
                assert_eq!(build(&set, &ids, mode, Some(states)), want, "{mode:?}");
                let threads = Budget {
                    max_threads: 5,
                    ..Budget::default()
                };
                assert_eq!(build(&set, &ids, mode, Some(threads)), want, "{mode:?}");
            }
        }
    }
}
