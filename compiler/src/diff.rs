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

use crate::lower::FxHashMap;
use robocc_engine::normalize::{is_unreserved, must_encode, stays_escaped};
use robocc_engine::{PathState, PathSteps, Policy, RuleId, UrlMode, Usage, Verdict};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};

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
        (_, Lex::Percent) => upper_hex(b).map(Lex::Digit),
        (_, Lex::Digit(h)) => {
            let v = (h << 4) | upper_hex(b)?;
            // An escape the encoding keeps (else it would decode it).
            let kept = if mode == UrlMode::Rfc {
                !is_unreserved(v)
            } else {
                stays_escaped(v)
            };
            kept.then_some(Lex::Free)
        }
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

/// The bytes that stand for all others: one per set of bytes that every
/// automaton of the policies, and the URL mode's lexer, read alike (and
/// each byte of `keep` apart: a caller that reads them itself); the most
/// readable of each.
pub(crate) fn alphabet(sides: &[&PathSteps<'_>], mode: UrlMode, keep: &[u8]) -> Vec<u8> {
    let mut best: HashMap<Vec<u8>, u8> = HashMap::new();
    for b in 0..=255u8 {
        if b == b'#' || b == 0 {
            continue;
        }
        // The lexer reads escapes' digits and `%` each apart, and other
        // bytes by whether they may stand raw.
        let lexed = if b == b'%' || upper_hex(b).is_some() || keep.contains(&b) {
            b
        } else {
            u8::from(lex(mode, Lex::Free, b).is_some())
        };
        let key: Vec<u8> = std::iter::once(lexed)
            .chain(sides.iter().flat_map(|s| s.byte_classes(b)))
            .collect();
        match best.entry(key) {
            Entry::Occupied(mut e) => {
                if readability(b) < readability(*e.get()) {
                    e.insert(b);
                }
            }
            Entry::Vacant(e) => {
                e.insert(b);
            }
        }
    }
    let mut bytes: Vec<u8> = best.into_values().collect();
    bytes.sort_by_key(|&b| (readability(b), b));
    bytes
}

/// A verdict as a map key.
type Key = (bool, Option<RuleId>);

fn key(v: Verdict) -> Key {
    (v.allowed, v.rule)
}

/// One policy's side of the product: each distinct [`PathState`] met
/// gets a number, and its steps over the alphabet and its verdict are
/// computed once, however many product states hold it.
struct Side<'p> {
    steps: PathSteps<'p>,
    usage: Usage,
    ids: FxHashMap<PathState, u32>,
    states: Vec<PathState>,
    /// `alphabet.len()` steps per state, filled when the state is first
    /// expanded (`NONE` until then).
    next: Vec<u32>,
    verdicts: Vec<Verdict>,
    decided: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl<'p> Side<'p> {
    fn new(policy: &Policy<'p>, usage: Usage) -> Side<'p> {
        Side {
            steps: policy.path_steps(),
            usage,
            ids: FxHashMap::default(),
            states: Vec::new(),
            next: Vec::new(),
            verdicts: Vec::new(),
            decided: Vec::new(),
        }
    }

    fn intern(&mut self, state: PathState, width: usize) -> u32 {
        if let Some(&id) = self.ids.get(&state) {
            return id;
        }
        let id = self.states.len() as u32;
        self.verdicts.push(self.steps.verdict(&state, self.usage));
        self.decided.push(self.steps.decided(&state));
        self.next.extend(std::iter::repeat_n(NONE, width));
        self.ids.insert(state.clone(), id);
        self.states.push(state);
        id
    }

    /// The state `id` goes to on the alphabet's `k`th byte `b`.
    fn step(&mut self, id: u32, k: usize, b: u8, width: usize) -> u32 {
        let at = id as usize * width + k;
        if self.next[at] == NONE {
            let next = self.steps.step(&self.states[id as usize], b);
            self.next[at] = self.intern(next, width);
        }
        self.next[at]
    }
}

/// A lexer state as a small number (for product keys).
pub(crate) fn lex_code(at: Lex) -> u8 {
    match at {
        Lex::Free => 0,
        Lex::Percent => 1,
        Lex::Digit(h) => 2 + h,
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
    let (mut os, mut ns) = (Side::new(old, options.usage), Side::new(new, options.usage));
    let alphabet = alphabet(&[&os.steps, &ns.steps], mode, &[]);
    let width = alphabet.len();
    // Each product state's parent and the byte that reached it: witnesses
    // are rebuilt from these.
    let mut seen: FxHashMap<(u32, u32, u8), ()> = FxHashMap::default();
    let mut parents: Vec<(usize, u8)> = Vec::new();
    let mut queue: VecDeque<(u32, u32, Lex, usize)> = VecDeque::new();
    let mut classes: HashSet<(Key, Key)> = HashSet::new();
    let mut found: Vec<(Verdict, Verdict, usize)> = Vec::new();
    // Every path starts with `/`.
    let o0 = os.intern(os.steps.start(), width);
    let o0 = os.intern(os.steps.step(&os.states[o0 as usize], b'/'), width);
    let n0 = ns.intern(ns.steps.start(), width);
    let n0 = ns.intern(ns.steps.step(&ns.states[n0 as usize], b'/'), width);
    seen.insert((o0, n0, lex_code(Lex::Free)), ());
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
        for (k, &b) in alphabet.iter().enumerate() {
            let Some(next_at) = lex(mode, at, b) else {
                continue;
            };
            let next = (os.step(o, k, b, width), ns.step(n, k, b, width));
            if let Entry::Vacant(e) = seen.entry((next.0, next.1, lex_code(next_at))) {
                if parents.len() >= limit {
                    return Err(DiffError::TooManyPairs { limit });
                }
                e.insert(());
                queue.push_back((next.0, next.1, next_at, parents.len()));
                parents.push((id, b));
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
