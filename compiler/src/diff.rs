//! What a robots.txt change does, exactly: the product of two compiled
//! policies' automata, explored from the start over the path bytes they
//! read.
//!
//! Every path ends in a pair of states, one per policy, and each state
//! names the rule that decides there (or none). [`diff`] visits every
//! reachable pair breadth-first and reports each pair of deciding rules
//! whose verdicts differ as a [`Change`], with the shortest path that
//! reaches it (its witness). The answer is complete — every verdict change
//! any path shows is one of the changes — because the product is explored
//! whole; a product larger than the budget is an error, never a partial
//! answer.
//!
//! The paths explored are those a URL can give the automata: they start
//! with `/`, never hold `#` (the fragment) or NUL, and, where the URL mode
//! encodes the path first (`rfc`, `decode`), are in the encoded form — which
//! the encoding leaves as it is, so that a witness appended to
//! `https://example.com` exhibits its change when checked.

use crate::lower::{FxHashMap, FxHashSet};
use robocc_engine::normalize::{is_unreserved, must_encode, stays_escaped};
use robocc_engine::{PathState, PathSteps, Policy, RuleId, UrlMode, Usage, Verdict};
use std::collections::hash_map::Entry;
use std::collections::{HashSet, VecDeque};
use std::sync::OnceLock;

mod stores;

pub use stores::{
    diff_stores, HostChange, HostDiff, HostSide, PairDiff, StoreDiff, StoreDiffError,
};

/// The default budget of product states (pairs of states, one per policy).
pub const DEFAULT_MAX_PAIRS: usize = 1_000_000;

/// What to compare.
#[derive(Clone, Copy, Debug)]
pub struct DiffOptions {
    /// The usage whose verdicts are compared ([`Policy::check_usage`]).
    pub usage: Usage,
    /// Most product states explored; 0: no limit.
    pub max_pairs: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            usage: Usage::Crawl,
            max_pairs: DEFAULT_MAX_PAIRS,
        }
    }
}

/// Why two policies could not be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffError {
    /// The product has more states than the budget
    /// ([`DiffOptions::max_pairs`]); nothing is answered.
    TooManyPairs {
        /// The budget.
        limit: usize,
    },
    /// The policies read URLs differently (their dialects' URL modes
    /// differ), so one path is not the same bytes to both.
    UrlModes {
        /// OLD's URL mode.
        old: UrlMode,
        /// NEW's URL mode.
        new: UrlMode,
    },
}

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffError::TooManyPairs { limit } => write!(
                f,
                "the two policies' product has more than {limit} states (the diff's budget)"
            ),
            DiffError::UrlModes { old, new } => write!(
                f,
                "the policies read URLs differently (URL mode {} and {}): compile both \
                 with one dialect",
                old.name(),
                new.name()
            ),
        }
    }
}

impl std::error::Error for DiffError {}

/// One side of a [`Change`]: a verdict and the rule that decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The verdict.
    pub allowed: bool,
    /// The deciding rule; `None` when no rule decides (the default).
    pub rule: Option<RuleId>,
    /// The rule's source line; `None` when no rule decides or no line
    /// wrote it (the implicit `/robots.txt` allow).
    pub line: Option<u32>,
    /// The rule as `Allow: pattern` or `Disallow: pattern` (`None`: no
    /// rule).
    pub text: Option<String>,
}

impl Decision {
    fn of(policy: &Policy<'_>, v: Verdict) -> Decision {
        let rule = v.rule.and_then(|id| policy.rule(id));
        Decision {
            allowed: v.allowed,
            rule: v.rule,
            line: rule.and_then(|r| r.source_line()),
            text: rule.map(|r| {
                let kind = if r.allow { "Allow" } else { "Disallow" };
                format!("{kind}: {}", r.pattern_text())
            }),
        }
    }

    /// `allow` or `disallow`.
    pub fn word(&self) -> &'static str {
        if self.allowed {
            "allow"
        } else {
            "disallow"
        }
    }
}

/// A change class: paths that OLD decides by one rule and NEW by another,
/// with different verdicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// OLD's verdict and deciding rule.
    pub old: Decision,
    /// NEW's verdict and deciding rule.
    pub new: Decision,
    /// A shortest path (and query) that shows the change: the bytes the
    /// automata read, starting with `/`. Checked as `https://example.com`
    /// followed by these bytes, OLD and NEW answer `old` and `new`.
    pub witness: Vec<u8>,
}

impl Change {
    /// The witness as URL text: printable ASCII as it is, other bytes as
    /// `%XX`. In the `rfc` URL mode the witness holds no such byte, and
    /// the `decode` mode decodes them back, so the text shows the change;
    /// in Google's reading (bytes as given) a witness that needs a byte
    /// outside printable ASCII (a pattern held one) shows it only as bytes
    /// ([`Change::witness`]).
    pub fn witness_text(&self) -> String {
        let mut s = String::with_capacity(self.witness.len());
        for &b in &self.witness {
            if b.is_ascii_graphic() {
                s.push(char::from(b));
            } else {
                s.push_str(&format!("%{b:02X}"));
            }
        }
        s
    }
}

/// What [`diff`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// Every change class, in the order breadth-first search found them
    /// (shorter witnesses first).
    pub changes: Vec<Change>,
    /// Product states explored.
    pub pairs: usize,
}

/// Where the path is in the encoded form a URL mode gives: the witness must
/// be text the mode leaves as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lex {
    /// Between escapes: a path may end here.
    Free,
    /// After `%`.
    Percent,
    /// After `%` and a hex digit of value `h`.
    Digit(u8),
}

/// Upper-case hex digit value (the encoded form's escapes).
fn upper_hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The lexer state after `b`, or `None` when no URL gives the automata `b`
/// here in `mode`.
pub(crate) fn lex(mode: UrlMode, at: Lex, b: u8) -> Option<Lex> {
    if b == b'#' || b == 0 {
        // The fragment: never part of the path. NUL: no URL holds one raw
        // (Google's reading ends the path there).
        return None;
    }
    match (mode, at) {
        (UrlMode::Google, _) => Some(Lex::Free),
        (_, Lex::Free) if b == b'%' => Some(Lex::Percent),
        (UrlMode::Rfc, Lex::Free) => {
            (!(b == b'*' || b == b'$' || must_encode(b))).then_some(Lex::Free)
        }
        (_, Lex::Free) => Some(Lex::Free),
        // A first digit no second one completes to a kept escape leads
        // nowhere: refused here, so that it is no state of the product.
        (_, Lex::Percent) => upper_hex(b)
            .filter(|&h| (0..16).any(|l| kept(mode, h << 4 | l)))
            .map(Lex::Digit),
        (_, Lex::Digit(h)) => kept(mode, (h << 4) | upper_hex(b)?).then_some(Lex::Free),
    }
}

/// An escape of `v` that the encoding of `mode` keeps (else it would
/// decode it, and no URL gives the automata `%` there).
fn kept(mode: UrlMode, v: u8) -> bool {
    if mode == UrlMode::Rfc {
        !is_unreserved(v)
    } else {
        stays_escaped(v)
    }
}

/// How readable a byte is in a witness (lower: preferred).
fn readability(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => 0,
        b'0'..=b'9' => 1,
        b'/' => 2,
        b'A'..=b'Z' => 3,
        b'-' | b'.' | b'_' | b'~' => 4,
        b'?' | b'=' | b'&' | b';' => 5,
        b'%' => 7,
        _ if b.is_ascii_graphic() => 6,
        _ => 8,
    }
}

/// Refines `ids` (a class number per byte) by `keys` (another), so that
/// two bytes share a number exactly when they shared one and share a key.
/// Both are below 256: the pairs go in a small open-addressing table (the
/// diff of two small policies is a few dozen microseconds; a hash map per
/// pass showed).
fn refine(ids: &mut [u16; 256], keys: impl Iterator<Item = u8>) {
    const SLOTS: usize = 1024;
    // Each slot: the pair + 1 (0: empty) and its new number.
    let mut table = [(0u32, 0u16); SLOTS];
    let mut count = 0u16;
    for (id, key) in ids.iter_mut().zip(keys) {
        let pair = (u32::from(*id) << 8 | u32::from(key)) + 1;
        let mut slot = (pair.wrapping_mul(0x9E37_79B9) >> 22) as usize;
        loop {
            let (p, n) = &mut table[slot];
            if *p == 0 {
                (*p, *n) = (pair, count);
                count += 1;
            }
            if *p == pair {
                *id = *n;
                break;
            }
            slot = (slot + 1) % SLOTS;
        }
    }
}

/// The bytes one policy's automata all read alike share a number.
pub(crate) fn side_classes(steps: &PathSteps<'_>) -> [u16; 256] {
    let mut ids = [0u16; 256];
    for a in 0..steps.automata() {
        refine(&mut ids, (0..=255u8).map(|b| steps.byte_class(a, b)));
    }
    ids
}

/// The bytes the URL mode's lexer reads alike (from every one of its
/// states) share a number; computed once per mode.
fn lex_classes(mode: UrlMode) -> &'static [u16; 256] {
    static CLASSES: [OnceLock<[u16; 256]>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    // One slot per mode (a new mode fails to compile here).
    let slot = match mode {
        UrlMode::Google => 0,
        UrlMode::Rfc => 1,
        UrlMode::Decode => 2,
    };
    CLASSES[slot].get_or_init(|| {
        let mut ids = [0u16; 256];
        for at in lex_states() {
            refine(
                &mut ids,
                (0..=255u8).map(|b| lex(mode, at, b).map_or(0, |next| lex_code(next) as u8 + 1)),
            );
        }
        ids
    })
}

/// The bytes that stand for all others: one per set of bytes that every
/// automaton of the policies (each side numbered by [`side_classes`]), and
/// the URL mode's lexer, read alike, with each byte of `keep` apart (a
/// caller that reads them itself; never NUL); the most readable of each.
pub(crate) fn alphabet(sides: &[&[u16; 256]], mode: UrlMode, keep: &[u8]) -> Vec<u8> {
    let mut ids = [0u16; 256];
    // Class numbers are below 256 (there are 256 bytes).
    for side in sides {
        refine(&mut ids, side.iter().map(|&c| c as u8));
    }
    refine(&mut ids, lex_classes(mode).iter().map(|&c| c as u8));
    if !keep.is_empty() {
        refine(
            &mut ids,
            (0..=255u8).map(|b| if keep.contains(&b) { b } else { 0 }),
        );
    }
    let mut best: [Option<u8>; 256] = [None; 256];
    for b in 0..=255u8 {
        if b == b'#' || b == 0 {
            continue;
        }
        let e = &mut best[usize::from(ids[usize::from(b)])];
        if e.is_none_or(|e| readability(b) < readability(e)) {
            *e = Some(b);
        }
    }
    let mut bytes: Vec<u8> = best.into_iter().flatten().collect();
    bytes.sort_by_key(|&b| (readability(b), b));
    bytes
}

/// A verdict as a map key.
type Key = (bool, Option<RuleId>);

fn key(v: Verdict) -> Key {
    (v.allowed, v.rule)
}

/// One policy's side of the product: each distinct [`PathState`] met
/// gets a number, and its steps and its verdict are computed once, however
/// many product states hold it. Steps are kept per class of the side's own
/// automata (fewer than the alphabet's bytes, which both sides and the
/// lexer tell apart).
struct Side<'p> {
    steps: PathSteps<'p>,
    usage: Usage,
    ids: FxHashMap<PathState, u32>,
    states: Vec<PathState>,
    /// The side's class of each alphabet byte, and one byte per class.
    class_of: Vec<u32>,
    class_bytes: Vec<u8>,
    /// `class_bytes.len()` steps per state, filled when the state is first
    /// expanded (`NONE` until then).
    next: Vec<u32>,
    verdicts: Vec<Verdict>,
    decided: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl<'p> Side<'p> {
    fn new(steps: PathSteps<'p>, usage: Usage, ids: &[u16; 256], alphabet: &[u8]) -> Side<'p> {
        let mut class_of = Vec::with_capacity(alphabet.len());
        let mut class_bytes = Vec::new();
        let mut number = [NONE; 256];
        for &b in alphabet {
            let c = &mut number[usize::from(ids[usize::from(b)])];
            if *c == NONE {
                *c = class_bytes.len() as u32;
                class_bytes.push(b);
            }
            class_of.push(*c);
        }
        Side {
            steps,
            usage,
            ids: FxHashMap::default(),
            states: Vec::new(),
            class_of,
            class_bytes,
            next: Vec::new(),
            verdicts: Vec::new(),
            decided: Vec::new(),
        }
    }

    fn intern(&mut self, state: PathState) -> u32 {
        match self.ids.entry(state) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let id = self.states.len() as u32;
                let state = e.key().clone();
                e.insert(id);
                self.verdicts.push(self.steps.verdict(&state, self.usage));
                self.decided.push(self.steps.decided(&state));
                self.next
                    .extend(std::iter::repeat_n(NONE, self.class_bytes.len()));
                self.states.push(state);
                id
            }
        }
    }

    /// The state `id` goes to on the alphabet's `k`th byte.
    fn step(&mut self, id: u32, k: usize) -> u32 {
        if self.decided[id as usize] {
            // Every automaton has decided: a byte leaves the state as it is.
            return id;
        }
        let c = self.class_of[k] as usize;
        let at = id as usize * self.class_bytes.len() + c;
        if self.next[at] == NONE {
            let next = self
                .steps
                .step(&self.states[id as usize], self.class_bytes[c]);
            self.next[at] = self.intern(next);
        }
        self.next[at]
    }
}

/// A lexer state as a small number (below [`LEX_STATES`]).
pub(crate) fn lex_code(at: Lex) -> usize {
    match at {
        Lex::Free => 0,
        Lex::Percent => 1,
        Lex::Digit(h) => 2 + usize::from(h),
    }
}

const LEX_STATES: usize = 18;

fn lex_states() -> impl Iterator<Item = Lex> {
    [Lex::Free, Lex::Percent]
        .into_iter()
        .chain((0..16u8).map(Lex::Digit))
}

/// The product states met, one set per lexer state, each keyed by the two
/// sides' numbers in one word (one multiply to hash).
struct Seen([FxHashSet<u64>; LEX_STATES]);

impl Seen {
    /// Whether `(o, n, at)` is new (and now met).
    fn insert(&mut self, o: u32, n: u32, at: Lex) -> bool {
        self.0[lex_code(at)].insert(u64::from(o) << 32 | u64::from(n))
    }
}

/// Every change of verdict on `options.usage` from `old` to `new`, each
/// with a shortest witness.
///
/// # Errors
///
/// [`DiffError::UrlModes`] when the policies read URLs differently;
/// [`DiffError::TooManyPairs`] when the product is larger than the budget.
pub fn diff(old: &Policy<'_>, new: &Policy<'_>, options: &DiffOptions) -> Result<Diff, DiffError> {
    let mode = old.header().url_mode;
    if new.header().url_mode != mode {
        return Err(DiffError::UrlModes {
            old: mode,
            new: new.header().url_mode,
        });
    }
    let limit = if options.max_pairs == 0 {
        usize::MAX
    } else {
        options.max_pairs
    };
    let (old_steps, new_steps) = (old.path_steps(), new.path_steps());
    let (old_ids, new_ids) = (side_classes(&old_steps), side_classes(&new_steps));
    let alphabet = alphabet(&[&old_ids, &new_ids], mode, &[]);
    let (mut os, mut ns) = (
        Side::new(old_steps, options.usage, &old_ids, &alphabet),
        Side::new(new_steps, options.usage, &new_ids, &alphabet),
    );
    // Per lexer state, the alphabet's bytes it takes and where to.
    let mut moves: [Vec<(usize, Lex)>; LEX_STATES] = Default::default();
    // (Google's reading has no escapes: its lexer stays `Free`.)
    for at in lex_states().take(if mode == UrlMode::Google {
        1
    } else {
        LEX_STATES
    }) {
        moves[lex_code(at)] = (alphabet.iter().enumerate())
            .filter_map(|(k, &b)| Some((k, lex(mode, at, b)?)))
            .collect();
    }
    // Each product state's parent and the byte that reached it: witnesses
    // are rebuilt from these.
    let mut seen = Seen(Default::default());
    let mut parents: Vec<(usize, u8)> = Vec::new();
    let mut queue: VecDeque<(u32, u32, Lex, usize)> = VecDeque::new();
    let mut classes: HashSet<(Key, Key)> = HashSet::new();
    let mut found: Vec<(Verdict, Verdict, usize)> = Vec::new();
    // Every path starts with `/`.
    let o0 = os.intern(os.steps.step(&os.steps.start(), b'/'));
    let n0 = ns.intern(ns.steps.step(&ns.steps.start(), b'/'));
    seen.insert(o0, n0, Lex::Free);
    parents.push((usize::MAX, b'/'));
    queue.push_back((o0, n0, Lex::Free, 0));
    while let Some((o, n, at, id)) = queue.pop_front() {
        if at == Lex::Free {
            let (vo, vn) = (os.verdicts[o as usize], ns.verdicts[n as usize]);
            if vo.allowed != vn.allowed && classes.insert((key(vo), key(vn))) {
                found.push((vo, vn, id));
            }
            if os.decided[o as usize] && ns.decided[n as usize] {
                // No byte changes either answer any more.
                continue;
            }
        }
        // Most bytes lead where another byte of this state already led
        // (the default move of both): the last few targets skip the set.
        let mut recent = [(o, n, at); 4];
        for (i, &(k, next_at)) in moves[lex_code(at)].iter().enumerate() {
            let next = (os.step(o, k), ns.step(n, k), next_at);
            if recent.contains(&next) {
                continue;
            }
            recent[i % 4] = next;
            if seen.insert(next.0, next.1, next_at) {
                if parents.len() >= limit {
                    return Err(DiffError::TooManyPairs { limit });
                }
                queue.push_back((next.0, next.1, next_at, parents.len()));
                parents.push((id, alphabet[k]));
            }
        }
    }
    let witness = |mut id: usize| {
        let mut bytes = Vec::new();
        while id != usize::MAX {
            let (parent, b) = parents[id];
            bytes.push(b);
            id = parent;
        }
        bytes.reverse();
        bytes
    };
    Ok(Diff {
        changes: found
            .into_iter()
            .map(|(vo, vn, id)| Change {
                old: Decision::of(old, vo),
                new: Decision::of(new, vn),
                witness: witness(id),
            })
            .collect(),
        pairs: parents.len(),
    })
}
