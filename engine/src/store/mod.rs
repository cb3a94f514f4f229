//! [`Store`]: the compiled policies of many hosts in one mmap-able file.
//!
//! Opening a store costs the same at a thousand hosts or a million: it
//! checks the frame and the small index header, and nothing else. A host
//! lookup hashes the URL's host on the fly (no allocation), goes straight to
//! the slot the hash's top bits name in an ordered linear-probing table
//! (records sorted by hash, each at or a little after its home slot, the key
//! inline), compares keys there, and runs that host's policy. Each policy is
//! validated the first time any host uses it: a corrupted policy is refused
//! with an error naming the host, and nobody pays for policies they never
//! touch. Every slot a lookup reads, every long key it compares and every
//! policy record it follows carries a check word that the lookup verifies
//! (a few multiply-adds on bytes already in cache): a flipped byte of the
//! index is an error at the lookup that reads it, never another answer or
//! a host that seems absent.
//!
//! Layout (docs/artifact.md is normative):
//!
//! ```text
//! frame      32 bytes: "ROBOCC\0S", version, length of the rest, its
//!            checksum (compared by `validate_all`, not at open: O(size))
//! head       16 bytes: index offset u64, index length u64 (from the head)
//! policies   one complete policy artifact (frame + archive) per distinct
//!            policy, each 16-byte aligned
//! index      rkyv archive of StoreIndex: three byte tables — host slots
//!            (64 bytes each, one cache line: a check word, the record,
//!            where its policy lies as a prefetch hint, and keys of up to
//!            26 bytes inline), strings (longer keys, fetch times, each
//!            host's with a check word) and policy records (offset, length,
//!            check word) — then agent, dialect, options hash, host count,
//!            home slot count, seed and a checksum of all these
//! ```

mod batch;
mod host_key;
#[cfg(feature = "idna")]
mod host_names;
mod layout;
mod read;
#[cfg(feature = "build")]
mod write;

pub(crate) use batch::check_batch_in;
pub use batch::BatchError;
pub use host_key::HostKey;
#[cfg(feature = "idna")]
pub use host_names::{host_key, idna_lookup_url, url_host_key, HostKeyError};
#[cfg(feature = "build")]
pub use layout::MAX_PROBE;
pub use read::Store;
#[cfg(feature = "build")]
pub use write::{fetched_at_kept, write_store, HostEntry, StoreMeta, WriteStoreError};

use crate::ids::PolicyId;

/// Why a host has the policy it has (RFC 9309 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HostSource {
    /// 2xx: the robots.txt body was compiled.
    Fetched = 0,
    /// 4xx but 429 (or too many redirects): "unavailable", everything
    /// allowed.
    Unavailable = 1,
    /// 5xx, 429 or unreachable: everything disallowed.
    Unreachable = 2,
    /// Redirected: the rules of the redirect target apply.
    Redirected = 3,
    /// The body could not be compiled; the builder's fallback policy applies.
    Failed = 4,
}

impl HostSource {
    /// Every source, in numeric order.
    pub const ALL: [HostSource; 5] = [
        HostSource::Fetched,
        HostSource::Unavailable,
        HostSource::Unreachable,
        HostSource::Redirected,
        HostSource::Failed,
    ];

    /// The name shown by the CLI.
    pub fn name(self) -> &'static str {
        match self {
            HostSource::Fetched => "fetched",
            HostSource::Unavailable => "unavailable",
            HostSource::Unreachable => "unreachable",
            HostSource::Redirected => "redirected",
            HostSource::Failed => "failed",
        }
    }

    /// The policy was compiled from a robots.txt body (the host's own, or
    /// its redirect target's), so its rules are lines of that file. The
    /// other sources stand for a status, and their rules are robocc's own.
    pub fn has_lines(self) -> bool {
        matches!(self, HostSource::Fetched | HostSource::Redirected)
    }

    /// The source with this number.
    pub fn from_u8(v: u8) -> Option<HostSource> {
        HostSource::ALL.get(usize::from(v)).copied()
    }
}
/// One host as the store knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo<'a> {
    /// Lower-cased host, with `:port` when the port is not the scheme's
    /// default.
    pub key: &'a str,
    /// Why this policy.
    pub source: HostSource,
    /// HTTP status the input gave (0: unreachable).
    pub status: u16,
    /// When the robots.txt was fetched, as the input gave it.
    pub fetched_at: Option<&'a str>,
    /// The host's policy ([`Store::policy`]).
    pub policy: PolicyId,
}
