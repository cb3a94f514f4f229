//! A crawler's robots.txt cache: hosts → their [`Kept`] decision, bounded
//! in hosts and bytes, one fetch in flight per host. No network code: the
//! crawler fetches when told to ([`Ask::FetchNow`]) and reports the
//! [`Fetched`] back.

use super::{Decision, Fetch, FetchOptions, Fetched, Kept};
use crate::{Agents, Checker, CompileError, CompileOptions};
use robocc_engine::Verdict;
use std::collections::HashMap;
use std::sync::Arc;

/// What a caller does for a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask<T> {
    /// Fetch its robots.txt now and [`Cache::report`] it: this caller is
    /// the one fetching.
    FetchNow,
    /// Another caller is fetching it: ask again later.
    Wait,
    /// The decision in force.
    Use(T),
}

impl<T> Ask<T> {
    /// The decision in force mapped by `f`; the other answers as they are.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Ask<U> {
        match self {
            Ask::Use(t) => Ask::Use(f(t)),
            Ask::FetchNow => Ask::FetchNow,
            Ask::Wait => Ask::Wait,
        }
    }
}

/// A [`Cache`]'s bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// Hosts held; past it, the least recently asked are dropped.
    pub max_hosts: usize,
    /// Estimated bytes held (host names, bodies, compiled policies), the
    /// same way.
    pub max_bytes: usize,
    /// Seconds a fetch may stay in flight unreported before another caller
    /// is told to fetch (the first one's crawler may have lost it).
    pub fetch_timeout: u64,
}

impl Default for CacheLimits {
    fn default() -> Self {
        CacheLimits {
            max_hosts: 100_000,
            max_bytes: 1 << 30,
            fetch_timeout: 120,
        }
    }
}

/// Bytes counted per host besides its name and body: the slot, the
/// checker's fixed parts.
const SLOT_BYTES: usize = 512;

struct Slot {
    kept: Option<Kept<Arc<Checker>>>,
    /// When the fetch in flight began.
    fetching_since: Option<u64>,
    /// The last time a caller asked (what eviction orders by).
    used: u64,
    /// Estimated bytes, as last counted.
    bytes: usize,
    /// Bytes of the body its checker read.
    body_len: usize,
}

/// Hosts → their robots.txt decisions, for a crawler (see the module
/// documentation). A host is any key the crawler chooses, normally the
/// origin (`https://example.com:443`) whose `/robots.txt` decides it.
/// Time is the caller's (Unix seconds); share it between threads behind a
/// lock.
///
/// ```
/// use robocc_compiler::fetch::{Ask, Cache, CacheLimits, Fetch, FetchOptions, Headers, Response, Step};
/// use robocc_compiler::CompileOptions;
/// let mut cache = Cache::new("ExampleBot", CompileOptions::default(), FetchOptions::default(), CacheLimits::default()).unwrap();
/// let host = "https://example.com";
/// assert_eq!(cache.check(host, b"https://example.com/a", 0), Ask::FetchNow);
/// assert_eq!(cache.check(host, b"https://example.com/a", 0), Ask::Wait);
/// let options = FetchOptions::default();
/// let mut fetch = Fetch::new("https://example.com/robots.txt", &options).unwrap();
/// let ok = Response::Http { status: 200, headers: Headers::default(), body: Some(b"User-agent: *\nDisallow: /a\n") };
/// let Step::Done(fetched) = fetch.answer(ok, 0) else { unreachable!() };
/// cache.report(host, &fetched, 0);
/// assert_eq!(cache.check(host, b"https://example.com/a", 1).map(|v| v.allowed), Ask::Use(false));
/// assert_eq!(cache.check(host, b"https://example.com/a", 86_400), Ask::FetchNow);
/// ```
pub struct Cache {
    options: FetchOptions,
    agents: Agents,
    compile: CompileOptions,
    limits: CacheLimits,
    hosts: HashMap<Box<str>, Slot>,
    bytes: usize,
}

impl Cache {
    /// An empty cache deciding for `agents` as `compile` reads bodies.
    ///
    /// # Errors
    ///
    /// `agents` are invalid for the dialect ([`Checker::new`]'s errors).
    pub fn new(
        agents: impl Into<Agents>,
        compile: CompileOptions,
        options: FetchOptions,
        limits: CacheLimits,
    ) -> Result<Cache, CompileError> {
        let agents = agents.into();
        Checker::new(b"", agents.clone(), &compile)?;
        Ok(Cache {
            options,
            agents,
            compile,
            limits,
            hosts: HashMap::new(),
            bytes: 0,
        })
    }

    /// The fetch rules it applies.
    pub fn options(&self) -> &FetchOptions {
        &self.options
    }

    /// A fetch of `robots_url` by this cache's rules ([`Fetch::new`]).
    pub fn fetch(&self, robots_url: &str) -> Option<Fetch> {
        Fetch::new(robots_url, &self.options)
    }

    /// What to do for `host` at `now`: use its decision while it holds;
    /// once it has expired (or was never had), the first caller is told to
    /// fetch and the others to wait until it reports. Allocates only for a
    /// host not yet held.
    pub fn ask(&mut self, host: &str, now: u64) -> Ask<&Kept<Arc<Checker>>> {
        let timeout = self.limits.fetch_timeout;
        if !self.hosts.contains_key(host) {
            self.insert(host, now);
            return Ask::FetchNow;
        }
        let slot = self.hosts.get_mut(host).expect("held");
        slot.used = slot.used.max(now);
        match &slot.kept {
            Some(k) if now < k.until => Ask::Use(k),
            _ => match slot.fetching_since {
                Some(t) if now < t.saturating_add(timeout) => Ask::Wait,
                _ => {
                    slot.fetching_since = Some(now);
                    Ask::FetchNow
                }
            },
        }
    }

    /// May `url` of `host` be crawled at `now` ([`Cache::ask`], then the
    /// decision's answer). No allocation once the host is held.
    pub fn check(&mut self, host: &str, url: &[u8], now: u64) -> Ask<Verdict> {
        self.ask(host, now).map(|k| answer(k, url))
    }

    /// Records the end of `host`'s fetch at `now` (from the caller told
    /// [`Ask::FetchNow`], or any fetch the crawler made): the decision in
    /// force until it expires.
    pub fn report(&mut self, host: &str, fetched: &Fetched, now: u64) -> &Kept<Arc<Checker>> {
        let rules = match (&fetched.decision, &fetched.body) {
            (Decision::Rules, Some(body)) => Checker::new(body, self.agents.clone(), &self.compile)
                .ok()
                .map(Arc::new),
            _ => None,
        };
        if !self.hosts.contains_key(host) {
            self.insert(host, now);
        }
        let options = &self.options;
        let slot = self.hosts.get_mut(host).expect("inserted above");
        if rules.is_some() {
            slot.body_len = fetched.body.as_ref().map_or(0, Vec::len);
        }
        let kept = Kept::next(slot.kept.as_ref(), fetched, rules, options, now);
        if kept.last_good.is_none() {
            slot.body_len = 0;
        }
        let bytes = slot_bytes(host, slot.body_len, &kept);
        self.bytes = self.bytes - slot.bytes + bytes;
        slot.bytes = bytes;
        slot.kept = Some(kept);
        slot.fetching_since = None;
        slot.used = slot.used.max(now);
        if self.over() {
            self.evict(Some(host));
        }
        let slot = self.hosts.get(host).expect("never evicted");
        slot.kept.as_ref().expect("set above")
    }

    /// `host`'s latest decision, expired or not (`None`: none held),
    /// without asking: [`Kept::until`] says until when it holds,
    /// [`Kept::reason`] whether it is a failure retried then.
    pub fn held(&self, host: &str) -> Option<&Kept<Arc<Checker>>> {
        self.hosts.get(host)?.kept.as_ref()
    }

    /// Hosts held.
    pub fn len(&self) -> usize {
        self.hosts.len()
    }

    /// Whether no host is held.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }

    /// Estimated bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn insert(&mut self, host: &str, now: u64) {
        let bytes = host.len() + SLOT_BYTES;
        self.hosts.insert(
            host.into(),
            Slot {
                kept: None,
                fetching_since: Some(now),
                used: now,
                bytes,
                body_len: 0,
            },
        );
        self.bytes += bytes;
        if self.over() {
            self.evict(Some(host));
        }
    }

    fn over(&self) -> bool {
        self.hosts.len() > self.limits.max_hosts || self.bytes > self.limits.max_bytes
    }

    /// Drops the least recently asked hosts (but `keep`) until an eighth
    /// below the bounds, so that eviction's sort is paid once per many
    /// inserts. Byte counts are taken again first: a checker grows when it
    /// promotes itself to its compiled policy.
    fn evict(&mut self, keep: Option<&str>) {
        let mut total = 0;
        for (host, slot) in &mut self.hosts {
            if let Some(k) = &slot.kept {
                slot.bytes = slot_bytes(host, slot.body_len, k);
            }
            total += slot.bytes;
        }
        self.bytes = total;
        let hosts_goal = self.limits.max_hosts - self.limits.max_hosts / 8;
        let bytes_goal = self.limits.max_bytes - self.limits.max_bytes / 8;
        let mut order: Vec<(u64, &str)> = self
            .hosts
            .iter()
            .filter(|(h, _)| Some(&***h) != keep)
            .map(|(h, s)| (s.used, &**h))
            .collect();
        order.sort_unstable();
        let mut dropped = Vec::new();
        let (mut n, mut bytes) = (self.hosts.len(), self.bytes);
        for (_, host) in order {
            if n <= hosts_goal && bytes <= bytes_goal {
                break;
            }
            n -= 1;
            bytes -= self.hosts[host].bytes;
            dropped.push(host.to_string());
        }
        for host in dropped {
            self.hosts.remove(host.as_str());
        }
        self.bytes = bytes;
    }
}

/// The answer of a decision for `url`.
fn answer(k: &Kept<Arc<Checker>>, url: &[u8]) -> Verdict {
    match (k.decision, &k.rules) {
        (Decision::Rules, Some(c)) => c.check(url),
        (Decision::AllowAll, _) => Verdict {
            allowed: true,
            rule: None,
        },
        // Disallow all, and rules that could not be read (the agents were
        // checked when the cache was made: not expected).
        _ => Verdict {
            allowed: false,
            rule: None,
        },
    }
}

/// A host's estimated bytes: its name, the body its checker keeps (twice:
/// the body and the rules read from it), the compiled policy once
/// promoted, and the fixed parts.
fn slot_bytes(host: &str, body_len: usize, k: &Kept<Arc<Checker>>) -> usize {
    let compiled = k
        .last_good
        .as_ref()
        .and_then(|c| c.compiled())
        .map_or(0, |f| f.as_bytes().len());
    host.len() + SLOT_BYTES + 2 * body_len + compiled
}
