//! What a build did ([`StoreReport`], with [`HostNote`]s and
//! [`SourceCounts`]) and why one could not be done ([`StoreError`]).

use crate::host::HostNote;
use crate::inputs::InputError;
use robocc_compiler::CompileError;
use robocc_engine::{HostSource, SetIndexError, WriteStoreError};
use std::fmt;

/// Hosts per [`HostSource`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceCounts {
    /// 2xx, compiled.
    pub fetched: usize,
    /// 4xx but 429, or too many redirects: allow all.
    pub unavailable: usize,
    /// 5xx, 429, unreachable, broken redirects: disallow all.
    pub unreachable: usize,
    /// The redirect target's rules.
    pub redirected: usize,
    /// The body failed to compile: the fallback.
    pub failed: usize,
}

impl SourceCounts {
    pub(crate) fn add(&mut self, s: HostSource) {
        *match s {
            HostSource::Fetched => &mut self.fetched,
            HostSource::Unavailable => &mut self.unavailable,
            HostSource::Unreachable => &mut self.unreachable,
            HostSource::Redirected => &mut self.redirected,
            HostSource::Failed => &mut self.failed,
        } += 1;
    }
}

impl fmt::Display for SourceCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fetched {}, unavailable (allow all) {}, unreachable (disallow all) {}, \
             redirected {}, failed {}",
            self.fetched, self.unavailable, self.unreachable, self.redirected, self.failed
        )
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreReport {
    /// Hosts in the index.
    pub hosts: usize,
    /// Distinct policies in the store.
    pub unique_policies: usize,
    /// Distinct bodies compiled now (a body whose compile failed is not
    /// counted: it is listed in `failures`).
    pub compiled: usize,
    /// Distinct base store policies reused.
    pub reused: usize,
    /// Body files read (`HostInput::body_path`).
    pub bodies_read: usize,
    /// Body files not read: their input's `sha256` named a policy of the
    /// base store.
    pub bodies_skipped: usize,
    /// Body files that could not be read (missing, not a regular file, an
    /// I/O error): each made its host a failure, listed in `failures`
    /// with the file (unless a later input of the host replaced it).
    pub bodies_unreadable: usize,
    /// Store size in bytes.
    pub bytes: usize,
    /// Hosts per source.
    pub by_source: SourceCounts,
    /// Hosts whose policy was compiled on the split (several automata) path.
    pub split: Vec<HostNote>,
    /// Distinct policies on the split path (what `robocc inspect` counts).
    pub split_policies: usize,
    /// Hosts whose robots.txt was not read as written (a limit cut it, lines
    /// were lost, the body is not text or was decoded): the diagnostics that
    /// can change a verdict, summarised.
    pub unread: Vec<HostNote>,
    /// Hosts whose body failed to compile, with the reason.
    pub failures: Vec<HostNote>,
    /// Hosts given more than once (the last one wins), in key order, once
    /// per extra input. A redirect of a host to itself set aside beside
    /// another input of that host is not one ([`StoreReport::self_redirects`]).
    pub duplicates: Vec<String>,
    /// Hosts that answered 304 Not Modified (a conditional fetch: the
    /// robots.txt the crawler holds is current) and keep the base store's
    /// policy of that host.
    pub not_modified: usize,
    /// Hosts that answered 304 Not Modified with no policy to keep, and
    /// why: no base store, not in it, held there as another source than
    /// fetched, or its policy not one this build may reuse. They are
    /// unreachable (disallow all); in key order.
    pub not_modified_lost: Vec<HostNote>,
    /// Redirects of a host to itself (Common Crawl's `http://` → `https://`
    /// hop) set aside beside another input of the same host, the capture
    /// they lead to: the expected shape of a crawl, not a duplicate.
    pub self_redirects: usize,
}

impl StoreReport {
    /// Hosts per distinct policy.
    pub fn dedup_ratio(&self) -> f64 {
        self.hosts as f64 / self.unique_policies.max(1) as f64
    }
}

/// Why a store could not be built. (No equality: an input error may
/// keep an [`std::io::Error`], which has none.)
#[derive(Clone, Debug)]
pub enum StoreError {
    /// The agent token is invalid (nothing can compile).
    Compile(CompileError),
    /// An input could not be read.
    Input(InputError),
    /// A limit of the store format: its size, hosts whose key hashes
    /// collide in the index ([`write_store`](robocc_engine::write_store)'s
    /// error).
    Write(WriteStoreError),
    /// A store set's index could not be written (its shard count).
    SetIndex(SetIndexError),
    /// A shard outside a set of `shards`: `which`, or the set's shard
    /// count itself when `None` (a set has 1 to
    /// [`MAX_SHARDS`](robocc_engine::MAX_SHARDS), numbered from 0).
    Shard {
        /// The shard asked for.
        which: Option<usize>,
        /// The set's shard count.
        shards: usize,
    },
    /// The base store ([`StoreBuilder::base`](crate::StoreBuilder::base)) failed
    /// [`Store::validate_all`](robocc_engine::Store::validate_all): nothing is taken from a damaged base (a
    /// damaged slot would hand a 304 another host's policy, and the new
    /// store would carry it as valid).
    Base(robocc_engine::LoadError),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let max = robocc_engine::MAX_SHARDS;
        match self {
            StoreError::Compile(e) => e.fmt(f),
            StoreError::Input(e) => e.fmt(f),
            StoreError::Write(e) => e.fmt(f),
            StoreError::SetIndex(e) => e.fmt(f),
            StoreError::Shard {
                which: None,
                shards,
            } => write!(f, "{shards} shards: a store set has 1 to {max}"),
            StoreError::Shard {
                which: Some(which),
                shards,
            } => write!(
                f,
                "shard {which} of {shards}: a store set has 1 to {max} shards, numbered from 0"
            ),
            StoreError::Base(e) => {
                write!(
                    f,
                    "the base store is damaged, so nothing is taken from it: {e}"
                )
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // The variants that display their error alone are transparent:
        // its source is theirs (an input's I/O error).
        match self {
            StoreError::Compile(e) => e.source(),
            StoreError::Input(e) => e.source(),
            StoreError::Write(e) => e.source(),
            StoreError::SetIndex(e) => e.source(),
            StoreError::Shard { .. } => None,
            StoreError::Base(e) => Some(e),
        }
    }
}
