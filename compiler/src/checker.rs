//! Answers from a fetched body at once: [`Checker`].
//!
//! Lowering rules to an automaton costs far more than reading them (the
//! median real file: 1–2 µs to parse, ~50 µs to lower), and pays off only
//! over many checks. A crawler that fetched a robots.txt a moment ago and
//! has a handful of URLs for the host should not pay it. A [`Checker`]
//! answers from the rules themselves (each check tries the rules in rank
//! order until one matches) and lowers them to the automaton once the
//! checks so far have cost about what lowering will: the ski-rental rule,
//! which never costs more than twice the better of "interpret every check"
//! and "compile first" chosen in hindsight, to within how well the cost of
//! lowering is estimated ([`Checker::new`] does that from the rules).
//!
//! Both paths answer alike: the same [`Verdict`] and deciding rule, on
//! every channel (the interpreter resolves through the same
//! [`Resolution`](crate::outcome::Resolution) the lowering does, and the same
//! [`robocc_engine::answer`] reads the outcome words). A policy the
//! lowering could not build as written (over its budget, or only with the
//! AI-usage preferences dropped) is never switched to: the checker keeps
//! interpreting, so no answer ever changes.
//!
//! What else the compiled policy would say is there too, without lowering:
//! its header's agent, dialect, URL mode and channels, its records
//! ([`Checker::metadata`]: Crawl-delay, Sitemap, …), the compiler's
//! findings on the body ([`Checker::diagnostics`]), and the compiled
//! policy itself with all its findings once it is needed
//! ([`Checker::promoted`]: to write the artifact).

use crate::agent::Agents;
use crate::compile::{compile_as_written, front, front_records, CompileError, CompileOptions};
use crate::diag::Diagnostic;
use crate::glob::{Atom, ByteSet};
use crate::ruleset::RuleSet;
use robocc_engine::answer;
use robocc_engine::artifact::{outcome_word, MetaData, NO_RULE};
use robocc_engine::normalize::{feed_decoded, feed_rfc};
use robocc_engine::url::path_parts;
use robocc_engine::{
    Dialect, PolicyFile, RuleId, RuleRef, UrlMode, Usage, UsageSet, UsageStates, Verdict,
};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Answers checks for an agent (or several read together, as
/// [`compile`](crate::compile()) reads them) straight from a robots.txt body: by
/// interpreting its rules while checks are few, from the compiled automaton
/// once they have cost about what compiling does (see the module
/// documentation). `Send + Sync`: share it between threads by reference.
///
/// ```
/// use robocc_compiler::{Checker, CompileOptions};
/// let body = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
/// let checker = Checker::new(body, "ExampleBot", &CompileOptions::default()).unwrap();
/// assert!(!checker.check(b"https://example.com/private/x").allowed);
/// assert!(checker.check(b"https://example.com/private/ok").allowed);
/// ```
pub struct Checker {
    rules: Rules,
    /// What promotion compiles.
    body: Vec<u8>,
    agents: Agents,
    options: CompileOptions,
    /// The compiled policy once promoted; an error inside when it could
    /// not be built as written (the checker then interprets for good).
    compiled: OnceLock<Result<Promoted, CompileError>>,
    /// The compiled policy's records and the compiler's findings, read
    /// when first asked for.
    records: OnceLock<(MetaData, Vec<Diagnostic>)>,
    /// What the interpreted checks (and failed attempts to compile) have
    /// cost so far, in estimated nanoseconds.
    spent: AtomicU64,
    /// The next attempt to compile happens once `spent` reaches this: at
    /// first the estimated cost of compiling, then twice what was spent
    /// when an attempt ran out of time.
    price: AtomicU64,
    /// One thread attempts at a time; the others keep interpreting.
    attempt: Mutex<()>,
}

/// The policy a [`Checker`] compiled: the one it answers from since it
/// promoted ([`Checker::promoted`]).
pub struct Promoted {
    /// The artifact ([`PolicyFile::as_bytes`] are the bytes
    /// [`crate::Compiled::to_bytes`] gives).
    pub file: PolicyFile,
    /// What the compiler reported, as [`crate::Compiled::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
}

/// When a [`Checker`] lowers its rules to an automaton.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Promotion {
    /// Once the interpreted checks have cost about what compiling will
    /// (the ski-rental rule).
    #[default]
    Auto,
    /// Before the first check ([`Checker::new`] compiles): a checker that
    /// will answer many URLs.
    Now,
    /// Never: interpret every check (measurements, and callers that answer
    /// a few URLs and drop the checker).
    Never,
}

impl Checker {
    /// Reads `body` for `agents` (a product token, or several: see
    /// [`Agents`]) as [`compile`](crate::compile()) would, up to the rules,
    /// and answers from them; nothing is lowered yet.
    ///
    /// # Errors
    ///
    /// An invalid product token, or several agents where the dialect takes
    /// one (as [`compile`](crate::compile())).
    pub fn new(
        body: &[u8],
        agents: impl Into<Agents>,
        options: &CompileOptions,
    ) -> Result<Checker, CompileError> {
        Checker::with_promotion(body, agents, options, Promotion::Auto)
    }

    /// [`Checker::new`], promoting as `promotion` says.
    ///
    /// # Errors
    ///
    /// As [`Checker::new`].
    pub fn with_promotion(
        body: &[u8],
        agents: impl Into<Agents>,
        options: &CompileOptions,
        promotion: Promotion,
    ) -> Result<Checker, CompileError> {
        let agents = agents.into();
        let rules = front(body, None, &agents, options, |f| {
            let channels = f.channels();
            Ok(Rules::new(f.rule_set, channels, f.sem.acap_records))
        })?;
        let price = match promotion {
            Promotion::Auto => rules.compile_cost_ns,
            Promotion::Now => 0,
            Promotion::Never => u64::MAX,
        };
        let checker = Checker {
            rules,
            body: body.to_vec(),
            agents,
            options: options.clone(),
            compiled: OnceLock::new(),
            records: OnceLock::new(),
            spent: AtomicU64::new(0),
            price: AtomicU64::new(price),
            attempt: Mutex::new(()),
        };
        if promotion == Promotion::Now {
            checker.promote();
        }
        Ok(checker)
    }

    /// The verdict for `url` on crawl, naming the deciding rule (see
    /// [`Checker::rule`]): what [`robocc_engine::Policy::check`] of the
    /// compiled policy says.
    #[inline]
    pub fn check(&self, url: &[u8]) -> Verdict {
        if let Some(p) = self.policy() {
            return p.policy().check(url);
        }
        answer::verdict(self.interpret(url, |words| words[0]))
    }

    /// The verdict for `url` on `usage`, as
    /// [`robocc_engine::Policy::check_usage`].
    #[inline]
    pub fn check_usage(&self, url: &[u8], usage: Usage) -> Verdict {
        if let Some(p) = self.policy() {
            return p.policy().check_usage(url, usage);
        }
        let (acap, channels) = (self.rules.acap, self.rules.channels);
        match answer::channel_of(acap, channels, usage) {
            Some(c) => answer::verdict(self.interpret(url, |words| words[c.index()])),
            None => answer::usage_verdict(acap, channels, usage, |_| NO_RULE),
        }
    }

    /// The tri-state answer for `url` on `usage`, as
    /// [`robocc_engine::Policy::preference`].
    #[inline]
    pub fn preference(&self, url: &[u8], usage: Usage) -> Option<Verdict> {
        if let Some(p) = self.policy() {
            return p.policy().preference(url, usage);
        }
        let (acap, channels) = (self.rules.acap, self.rules.channels);
        let c = answer::channel_of(acap, channels, usage)?;
        let w = self.interpret(url, |words| words[c.index()]);
        answer::preference(acap, channels, usage, |_| w)
    }

    /// Every usage's tri-state answer for `url`, as
    /// [`robocc_engine::Policy::usage_states`].
    pub fn usage_states(&self, url: &[u8]) -> UsageStates {
        if let Some(p) = self.policy() {
            return p.policy().usage_states(url);
        }
        let acap = self.rules.acap;
        self.interpret(url, |words| {
            answer::usage_states(acap, words.iter().copied())
        })
    }

    /// The usages [`Checker::check_usage`] allows for `url`.
    pub fn usages(&self, url: &[u8]) -> UsageSet {
        let s = self.usage_states(url);
        UsageSet::from_bits(UsageSet::ALL.bits() & !s.disallowed.bits())
    }

    /// Rule `id` (a [`Verdict::rule`]), as the compiled policy's
    /// [`robocc_engine::Policy::rule`] shows it.
    pub fn rule(&self, id: RuleId) -> Option<RuleRef<'_>> {
        let r = self.rules.set.rules.get(id.index())?;
        Some(RuleRef {
            allow: r.allow,
            pattern: &r.pattern,
            line: r.line,
            group: r.group,
            rank: r.rank,
            origin: r.origin,
            syntax: r.syntax,
            class: r.class,
        })
    }

    /// The product token the checker answers for (several joined by `,`),
    /// as the compiled policy's header says it.
    pub fn agent(&self) -> &str {
        self.agents.as_str()
    }

    /// The agents the checker answers for.
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// The dialect, as the compiled policy's header says it.
    pub fn dialect(&self) -> Dialect {
        self.options.dialect
    }

    /// How URLs are read, as the compiled policy's header says it.
    pub fn url_mode(&self) -> UrlMode {
        self.rules.set.url_mode
    }

    /// The usage channels the compiled policy answers, in order (as its
    /// [`robocc_engine::Policy::channels`]).
    pub fn channels(&self) -> &'static [&'static str] {
        self.rules.channel_names
    }

    /// How many rules there are (ids `0..rule_count()`, see
    /// [`Checker::rule`]), as the compiled policy's
    /// [`robocc_engine::Policy::rule_count`].
    pub fn rule_count(&self) -> usize {
        self.rules.set.rules.len()
    }

    /// The compiled policy's records (Crawl-delay, Sitemap, Host,
    /// Visit-time, Request-rate, the agent's and the file's other records;
    /// [`robocc_engine::Policy::meta`] reads the same from the artifact),
    /// read from the body when first asked for: no lowering.
    pub fn metadata(&self) -> &MetaData {
        &self.records().0
    }

    /// What the compiler reports of the body ([`crate::Compiled::diagnostics`])
    /// but for what only lowering finds (`DiagCode::SplitPath`, and
    /// `DiagCode::SignalsDropped`, which never applies to the checker's
    /// answers): read from the body when first asked for, with
    /// [`Checker::metadata`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.records().1
    }

    /// The records and findings, read again from the body (`new` keeps
    /// neither: a first answer does not wait for them).
    fn records(&self) -> &(MetaData, Vec<Diagnostic>) {
        self.records.get_or_init(|| {
            front(&self.body, None, &self.agents, &self.options, |f| {
                Ok(front_records(f))
            })
            // `new` read the same body with the same options.
            .expect("a body the checker read reads again")
        })
    }

    /// acap: what rule `id` is about besides its pattern (its usage, tier,
    /// qualifiers; [`robocc_engine::Policy::acap_rule`] shows the same);
    /// `None` for other dialects or an unknown id.
    pub fn acap_rule(&self, id: RuleId) -> Option<&crate::acap::AcapRule> {
        self.rules.set.acap()?.rules.get(id.index())
    }

    /// Has the checker switched to the compiled automaton?
    pub fn is_compiled(&self) -> bool {
        self.compiled().is_some()
    }

    /// The compiled policy it answers from, once promoted (never
    /// compiles).
    pub fn compiled(&self) -> Option<&PolicyFile> {
        match self.compiled.get() {
            Some(Ok(p)) => Some(&p.file),
            _ => None,
        }
    }

    /// Whether the next check compiles first (the checks so far have paid
    /// for it and nothing was compiled yet): a caller that holds a lock
    /// other threads wait on (Python's GIL) releases it for that check.
    pub fn promotion_due(&self) -> bool {
        self.compiled.get().is_none()
            && self.spent.load(Ordering::Relaxed) >= self.price.load(Ordering::Relaxed)
    }

    /// Compiles now (if not yet done) and answers from the automaton from
    /// then on; `false` when the rules cannot be lowered as written within
    /// the budget (the checker then keeps interpreting).
    pub fn promote(&self) -> bool {
        self.promoted().is_ok()
    }

    /// [`Checker::promote`], returning the compiled policy with the
    /// compiler's findings (what writing the artifact needs), or why the
    /// rules cannot be lowered as written within the budget: the
    /// [`compile`](crate::compile()) error, or, where that compile would
    /// drop the AI-usage preference statements to fit
    /// (`DiagCode::SignalsDropped`), the budget they do not fit. Compiles
    /// once, within the whole time budget; later calls return the same.
    pub fn promoted(&self) -> Result<&Promoted, &CompileError> {
        let _one = self.attempt.lock().unwrap_or_else(|e| e.into_inner());
        self.compiled
            .get_or_init(|| self.lower(self.options.budget.time))
            .as_ref()
    }

    /// Compiles as written, lowering within `time` at most: the policy and the compiler's
    /// findings, or why not (the [`compile`](crate::compile()) error, or
    /// the budget the AI-usage preference statements do not fit: a
    /// lowering that dropped them would answer them "unknown" where the
    /// rules state them).
    fn lower(&self, time: Duration) -> Result<Promoted, CompileError> {
        let c = compile_as_written(&self.body, &self.agents, &self.options, time)?;
        let file = PolicyFile::from_aligned(c.to_bytes())
            .map_err(|e| CompileError::TooLarge(format!("the artifact was refused: {e}")))?;
        Ok(Promoted {
            file,
            diagnostics: c.diagnostics,
        })
    }

    /// The compiled policy, after an attempt to compile when the checks so
    /// far have paid for one.
    #[inline]
    fn policy(&self) -> Option<&PolicyFile> {
        if let Some(p) = self.compiled.get() {
            return p.as_ref().ok().map(|p| &p.file);
        }
        let spent = self.spent.load(Ordering::Relaxed);
        if spent >= self.price.load(Ordering::Relaxed) {
            self.try_promote(spent);
        }
        self.compiled.get()?.as_ref().ok().map(|p| &p.file)
    }

    /// An automatic promotion: lowering may take as long as the checks so
    /// far have cost (at least [`PROMOTE_MIN_TIME`]). When that is not
    /// enough, the time is counted as spent and the next attempt comes
    /// once twice as much has been spent: attempts that fail cost at most
    /// what was spent in all, so a cost of lowering that the estimate
    /// missed by any factor keeps the total within ~4× the better choice.
    #[cold]
    fn try_promote(&self, spent: u64) {
        // Another thread is attempting: keep interpreting meanwhile.
        let Ok(_one) = self.attempt.try_lock() else {
            return;
        };
        if self.compiled.get().is_some() {
            return;
        }
        let time = Duration::from_nanos(spent).max(PROMOTE_MIN_TIME);
        let capped = time < self.options.budget.time;
        match self.lower(time) {
            // Within less time than the budget allows, a failure may be
            // the time's: try again once the checks have paid for more.
            Err(_) if capped => {
                let paid = time.as_nanos().min(u128::from(u64::MAX)) as u64;
                let now = self.spent.fetch_add(paid, Ordering::Relaxed) + paid;
                self.price.store(now.saturating_mul(2), Ordering::Relaxed);
            }
            done => {
                let _ = self.compiled.set(done);
            }
        }
    }

    /// Interprets the rules for `url` and hands `read` the outcome words
    /// (one per channel); counts the cost.
    fn interpret<R>(&self, url: &[u8], read: impl FnOnce(&[u32]) -> R) -> R {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let scratch = &mut *scratch;
            path_of(url, self.rules.set.url_mode, &mut scratch.path);
            let tried = self.rules.outcome(scratch);
            let cost =
                CHECK_NS + TRY_NS * tried as u64 + PATH_NS_PER_BYTE * scratch.path.len() as u64 / 8;
            self.spent.fetch_add(cost, Ordering::Relaxed);
            read(&scratch.words)
        })
    }
}

/// The least time an automatic promotion is given (the lowering looks at
/// the clock every 256 states, and a clock tick is no budget).
const PROMOTE_MIN_TIME: Duration = Duration::from_micros(200);

/// Estimated cost of an interpreted check besides its rules: finding and
/// copying the path, the bookkeeping (measured: `bench --bin first`).
const CHECK_NS: u64 = 25;
/// Estimated cost of trying one rule.
const TRY_NS: u64 = 3;
/// Estimated cost of eight path bytes.
const PATH_NS_PER_BYTE: u64 = 1;

/// Buffers a thread's interpreted checks reuse: no allocation once they
/// have grown to the longest path and the most rules seen.
#[derive(Default)]
struct Scratch {
    /// The path matched.
    path: Vec<u8>,
    /// Set mode: the rules that match it.
    matched: Vec<usize>,
    /// Set mode: the resolution's room.
    work: Vec<usize>,
    /// The outcome words, one per channel.
    words: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The path `url` is matched by, into `out`: as the engine reads it (the
/// fragment dropped; `#` and NUL end it; encoded per `mode`).
fn path_of(url: &[u8], mode: UrlMode, out: &mut Vec<u8>) {
    out.clear();
    let parts = path_parts(url);
    if parts.slash {
        out.push(b'/');
    }
    let mut push = |b: u8| {
        if b == b'#' || b == 0 {
            return true;
        }
        out.push(b);
        false
    };
    match mode {
        UrlMode::Google => {
            for &b in parts.rest {
                if push(b) {
                    break;
                }
            }
        }
        UrlMode::Rfc => {
            feed_rfc(parts.rest, push);
        }
        UrlMode::Decode => {
            feed_decoded(parts.rest, push);
        }
    }
}

/// The rules, as the interpreter reads them.
struct Rules {
    /// The rules, their globs' atoms moved to `atoms`.
    set: RuleSet,
    /// Every rule's pattern, compact ([`compact`]), end to end: rule `i`'s
    /// are `atoms[starts[i]..starts[i + 1]]` (one allocation, not one per
    /// rule: reading a body is what a first answer costs).
    atoms: Vec<u32>,
    starts: Vec<u32>,
    /// The byte sets `atoms` name.
    sets: Vec<ByteSet>,
    /// Ranked rules: rule ids by rank, best first (the first rule on ties),
    /// so that the first one that matches decides; each id is the low half
    /// of its sort key.
    order: Vec<u64>,
    /// Channels of the compiled policy.
    channels: usize,
    channel_names: &'static [&'static str],
    acap: bool,
    /// What lowering these rules is estimated to cost, in nanoseconds.
    compile_cost_ns: u64,
}

impl Rules {
    /// `acap`: an acap policy's rules (one channel per usage type).
    fn new(mut set: RuleSet, channel_names: &'static [&'static str], acap: bool) -> Rules {
        let n = set.rules.len();
        // By rank, best first, then by id: one number each (the rank's
        // complement above the id) sorts as both.
        let mut order: Vec<u64> = (set.rules.iter().enumerate())
            .map(|(i, r)| u64::from(!r.rank) << 32 | i as u64)
            .collect();
        order.sort_unstable();
        let compile_cost_ns = compile_cost_ns(&set);
        let total = set.rules.iter().map(|r| r.glob.atoms.len()).sum();
        let (mut atoms, mut starts, mut sets) = (
            Vec::with_capacity(total),
            Vec::with_capacity(n + 1),
            Vec::new(),
        );
        starts.push(0);
        for r in &mut set.rules {
            compact(&std::mem::take(&mut r.glob.atoms), &mut atoms, &mut sets);
            starts.push(atoms.len() as u32);
        }
        Rules {
            set,
            atoms,
            starts,
            sets,
            order,
            channels: channel_names.len(),
            channel_names,
            acap,
            compile_cost_ns,
        }
    }

    /// Does rule `i` match `path`?
    #[inline]
    fn matches(&self, i: usize, path: &[u8]) -> bool {
        let anchored = self.set.rules[i].glob.anchored;
        let atoms = &self.atoms[self.starts[i] as usize..self.starts[i + 1] as usize];
        glob_matches(atoms, anchored, path, &self.sets)
    }

    /// The outcome words for `s.path`, into `s.words`; how many rules were
    /// tried.
    fn outcome(&self, s: &mut Scratch) -> usize {
        let (rules, path) = (&self.set.rules, &s.path[..]);
        s.words.clear();
        if !self.set.resolution.by_sets() {
            for (k, &key) in self.order.iter().enumerate() {
                let i = key as u32;
                if self.matches(i as usize, path) {
                    let allow = rules[i as usize].allow;
                    s.words.push(outcome_word(allow, i));
                    return k + 1;
                }
            }
            s.words.push(outcome_word(true, NO_RULE));
            return self.order.len();
        }
        s.matched.clear();
        s.matched
            .extend((0..rules.len()).filter(|&i| self.matches(i, path)));
        self.set
            .resolution
            .outcome_into(rules, None, &s.matched, &mut s.work, &mut s.words);
        rules.len()
    }
}

/// What lowering `set` is estimated to cost, in nanoseconds (fitted on the
/// real corpus: `bench --bin first --fit`).
fn compile_cost_ns(set: &RuleSet) -> u64 {
    let (mut atoms, mut stars) = (0u64, 0u64);
    for r in &set.rules {
        atoms += r.glob.atoms.len() as u64;
        stars += r.glob.atoms.iter().filter(|a| **a == Atom::Star).count() as u64;
    }
    let rules = set.rules.len() as u64;
    COMPILE_BASE_NS + COMPILE_NS_PER_ATOM * atoms + COMPILE_NS_PER_STAR * stars * stars.min(rules)
}

/// A compact atom: a byte (0–255), [`ANY`], [`STAR`], or [`SET`] + the
/// index of a byte set. Four bytes where an [`Atom`] takes forty (its byte
/// set inline): a checker then holds about what its compiled policy does,
/// not ten times more (a crawler keeps one per site).
const ANY: u32 = 256;
/// `*`.
const STAR: u32 = 257;
/// The first byte set.
const SET: u32 = 258;

/// `atoms` as compact atoms, appended to `out`; their byte sets to `sets`.
fn compact(atoms: &[Atom], out: &mut Vec<u32>, sets: &mut Vec<ByteSet>) {
    out.extend(atoms.iter().map(|a| match a {
        Atom::Byte(b) => u32::from(*b),
        Atom::Any => ANY,
        Atom::Star => STAR,
        Atom::Set(s) => {
            sets.push(*s);
            SET + (sets.len() - 1) as u32
        }
    }));
}

/// Does compact atom `atom` take byte `b`? (`*` takes any, repeatedly.)
#[inline]
fn accepts(atom: u32, b: u8, sets: &[ByteSet]) -> bool {
    match atom {
        0..=255 => atom == u32::from(b),
        ANY | STAR => true,
        s => sets[(s - SET) as usize].contains(b),
    }
}

/// Fixed cost of a compile (the parse again, the artifact, its validation).
const COMPILE_BASE_NS: u64 = 20_000;
/// Per pattern atom.
const COMPILE_NS_PER_ATOM: u64 = 150;
/// Per `*`, times the number of `*` (their threads multiply).
const COMPILE_NS_PER_STAR: u64 = 100;

/// Does a pattern of compact `atoms` (`anchored`: it must reach the end of the
/// path) match `path` from its first byte? [`crate::glob::Glob::matches`]
/// without allocating: wildcard matching that backtracks to the last `*`
/// only, which suffices when every other atom reads exactly one byte.
fn glob_matches(atoms: &[u32], anchored: bool, path: &[u8], sets: &[ByteSet]) -> bool {
    let (mut a, mut p) = (0usize, 0usize);
    // After the last `*` seen: (the atom after it, the path byte it would
    // take next).
    let mut star: Option<(usize, usize)> = None;
    loop {
        match atoms.get(a) {
            None if !anchored || p == path.len() => return true,
            Some(&STAR) => {
                a += 1;
                star = Some((a, p));
                continue;
            }
            Some(&atom) if p < path.len() && accepts(atom, path[p], sets) => {
                a += 1;
                p += 1;
                continue;
            }
            _ => {}
        }
        // A mismatch: let the last `*` take one more byte.
        match star {
            Some((after, taken)) if taken < path.len() => {
                star = Some((after, taken + 1));
                a = after;
                p = taken + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile;
    use crate::glob::Glob;
    use robocc_engine::PatternSyntax;

    fn both_as(pattern: &[u8], syntax: PatternSyntax, path: &[u8]) -> (bool, bool) {
        let g = Glob::parse(pattern, syntax, UrlMode::Google);
        let (mut atoms, mut sets) = (Vec::new(), Vec::new());
        compact(&g.atoms, &mut atoms, &mut sets);
        (
            g.matches(path),
            glob_matches(&atoms, g.anchored, path, &sets),
        )
    }

    #[test]
    fn glob_matching_agrees_with_the_reachability_matcher() {
        let patterns: &[&[u8]] = &[
            b"/", b"/a", b"/a*b", b"/a*b$", b"*", b"*$", b"/a$", b"/*a*a*a", b"/**b", b"$", b"",
            b"/a*", b"/a*$", b"/*.php$", b"/*/x*y$",
        ];
        let paths: &[&[u8]] = &[
            b"/",
            b"/a",
            b"/ab",
            b"/aab",
            b"/abb",
            b"/abab",
            b"/aaa",
            b"/baaa",
            b"/x.php",
            b"/x.php?y",
            b"/q/xzy",
            b"/q/xyzy",
            b"",
        ];
        // Shell patterns (robots2 "wildcard"): `?` and byte sets too.
        let shell: &[&[u8]] = &[b"/[ab]*", b"/?a*", b"/*[!a]b", b"/[a-c]?[xy]*", b"*.[pP]hp"];
        for (syntax, patterns) in [
            (PatternSyntax::Glob, patterns),
            (PatternSyntax::Shell, shell),
        ] {
            for p in patterns {
                for q in paths {
                    let (want, got) = both_as(p, syntax, q);
                    assert_eq!(
                        want,
                        got,
                        "{} on {}",
                        String::from_utf8_lossy(p),
                        String::from_utf8_lossy(q)
                    );
                }
            }
        }
    }

    #[test]
    fn answers_the_same_before_and_after_promotion() {
        let body = b"User-agent: *\nDisallow: /a\nAllow: /a/b*c$\nDisallow: /*.gif$\n";
        let o = CompileOptions::default();
        let interp = Checker::with_promotion(body, "Bot", &o, Promotion::Never).unwrap();
        let now = Checker::with_promotion(body, "Bot", &o, Promotion::Now).unwrap();
        assert!(!interp.is_compiled());
        assert!(now.is_compiled());
        for url in [
            "/a",
            "/a/bxc",
            "/a/bxc?",
            "/x.gif",
            "/x.gif?1",
            "/",
            "/robots.txt",
            "/a#x",
        ] {
            assert_eq!(
                interp.check(url.as_bytes()),
                now.check(url.as_bytes()),
                "{url}"
            );
        }
        assert_eq!(
            interp
                .check(b"/a/bxc")
                .rule
                .map(|i| interp.rule(i).unwrap().line),
            Some(3)
        );
        assert!(!interp.check(b"/x.gif").allowed);
    }

    #[test]
    fn promotes_once_checks_have_paid() {
        let body = b"User-agent: *\nDisallow: /a\n";
        let c = Checker::new(body, "Bot", &CompileOptions::default()).unwrap();
        assert!(!c.is_compiled());
        let mut n = 0;
        while !c.is_compiled() {
            c.check(b"/a/b");
            n += 1;
            assert!(n < 100_000, "never promoted");
        }
        assert!(n > 1, "promoted at the first check");
        assert!(!c.check(b"/a/b").allowed);
        // Promoted within a time cap, the artifact is compile's, byte for
        // byte (the options fingerprint included).
        let want = compile(body, "Bot", &CompileOptions::default())
            .unwrap()
            .to_bytes();
        assert_eq!(c.compiled().unwrap().as_bytes(), &want[..]);
    }

    /// Bodies whose records and findings cover what the metadata holds, in
    /// each dialect that reads them.
    fn readings() -> Vec<(&'static [u8], CompileOptions)> {
        let o = CompileOptions::default();
        let with = |dialect| CompileOptions {
            dialect,
            ..CompileOptions::default()
        };
        vec![
            (
                b"Sitemap: https://a.example/s.xml\nHost: a.example\nUser-agent: *\nCrawl-delay: 2.5\n\
                  Crawl-delay: 9\nVisit-time: 0400-0845\nVisit-time: nope\nRequest-rate: 1/10s 0100-0200\n\
                  Disallow: /a*b\nAlow: /typo\nClean-param: x /\n",
                o.clone(),
            ),
            (
                b"User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\nContent-Signal: search=yes\n",
                o.clone(),
            ),
            (
                b"User-agent: *\nRobot-version: 2.0\nAllow: /a*\nDisallow: *\nVisit-time: 0100-0300\n",
                with(Dialect::Robots2),
            ),
            (
                b"User-agent: *\nDisallow: /a%2Fb\nCrawl-delay: 1\n",
                with(Dialect::Draft1996),
            ),
            (
                b"##ACAP version=1.0\nACAP-crawler: *\nACAP-disallow-crawl: /x\nACAP-allow-index: /x/y\n",
                with(Dialect::Acap),
            ),
        ]
    }

    #[test]
    fn says_what_the_compiled_policy_says_without_lowering() {
        for (body, o) in readings() {
            let shown = String::from_utf8_lossy(body);
            let c = Checker::with_promotion(body, "Bot", &o, Promotion::Never).unwrap();
            let compiled = compile(body, "Bot", &o).unwrap();
            let file = PolicyFile::from_aligned(compiled.to_bytes()).unwrap();
            let p = file.policy();
            let h = p.header();
            assert_eq!(c.metadata(), &compiled.data.meta, "{shown}");
            let lowering_only = [crate::DiagCode::SplitPath, crate::DiagCode::SignalsDropped];
            let found: Vec<_> = compiled
                .diagnostics
                .iter()
                .filter(|d| !lowering_only.contains(&d.code))
                .cloned()
                .collect();
            assert_eq!(c.diagnostics(), &found[..], "{shown}");
            for id in (0..c.rule_count() as u32).map(RuleId::new) {
                let a = c
                    .acap_rule(id)
                    .map(|a| (a.usage, a.named, a.conventional, a.qualifiers.join(" ")));
                let b = p
                    .acap_rule(id)
                    .map(|a| (a.usage, a.named, a.conventional, a.qualifiers.to_string()));
                assert_eq!(a, b, "{shown}");
            }
            assert_eq!(
                (c.agent(), c.dialect(), c.url_mode(), c.rule_count()),
                (h.agent, h.dialect, h.url_mode, p.rule_count()),
                "{shown}"
            );
            assert_eq!(
                c.channels().to_vec(),
                p.channels().collect::<Vec<_>>(),
                "{shown}"
            );
            assert!(!c.is_compiled() && c.compiled().is_none() && !c.promotion_due());
            // Forced: the same artifact and findings as compiling.
            let promoted = c.promoted().unwrap();
            assert_eq!(promoted.file.as_bytes(), file.as_bytes(), "{shown}");
            assert_eq!(promoted.diagnostics, compiled.diagnostics, "{shown}");
            assert!(c.is_compiled() && c.compiled().is_some() && !c.promotion_due());
        }
    }

    #[test]
    fn never_promotes_to_a_policy_that_dropped_the_preferences() {
        // Over the budget with its preference statements, within it without:
        // compiling drops them, the checker keeps them and says why it
        // cannot promote.
        let body = b"User-agent: *\nDisallow: /*a*b\nContent-Usage: /*c*d train-ai=n\n";
        let tight = (1..200).find_map(|max_states| {
            let o = CompileOptions {
                budget: crate::Budget {
                    max_states,
                    max_automata: 1,
                    ..crate::Budget::default()
                },
                ..CompileOptions::default()
            };
            let c = compile(body, "Bot", &o).ok()?;
            c.diagnostics
                .iter()
                .any(|d| d.code == crate::DiagCode::SignalsDropped)
                .then_some(o)
        });
        let o = tight.expect("a budget that drops the preferences");
        let c = Checker::new(body, "Bot", &o).unwrap();
        assert!(matches!(c.promoted(), Err(CompileError::Budget(_))));
        assert!(!c.promote() && !c.is_compiled() && !c.promotion_due());
        assert_eq!(c.channels().len(), 4);
        assert_eq!(
            c.preference(b"/c-d", Usage::TrainAi).map(|v| v.allowed),
            Some(false)
        );
    }

    #[test]
    fn checker_is_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<Checker>();
    }
}
