//! Answers "may this agent fetch this URL?" from a compiled robocc policy.
//!
//! `robocc-compiler` turns a robots.txt file and a chosen agent into an
//! artifact: one deterministic automaton over URL bytes whose states carry the
//! already-resolved verdict (longest match, first match… decided at compile
//! time). This crate reads that artifact in place — from a byte slice or a
//! memory-mapped file — and checks URLs against it:
//!
//! * no allocation and no parsing on the check path;
//! * one step per URL byte over a compact program (literal pattern text costs
//!   one byte per byte), stopping as soon as the verdict can no longer change;
//! * every table validated before it is read, so a corrupted artifact is
//!   refused, never read out of bounds.
//!
//! A crawler embedding a compiled policy:
//!
//! ```no_run
//! use robocc_engine::PolicyFile;
//! let file = PolicyFile::open("example.policy")?; // mmap + validation, once
//! let policy = file.policy();                       // a Copy view
//! if policy.is_allowed("https://example.com/some/page?x=1") {
//!     // fetch it
//! }
//! # Ok::<(), robocc_engine::LoadError>(())
//! ```
//!
//! And the policies of many hosts, in one store:
//!
//! ```no_run
//! use robocc_engine::Store;
//! let store = Store::open("hosts.store")?; // constant time, whatever its size
//! let verdict = store.check(b"https://www.example.com/cart")?; // None: host unknown
//! # Ok::<(), robocc_engine::LoadError>(())
//! ```
//!
//! A [`StoreSet`] splits the hosts over N shard stores in a directory
//! (opening reads a small index; each shard is mapped at its first use).
//!
//! The data flow, module by module: [`url`] finds the path in a URL,
//! [`normalize`] encodes it (RFC 9309 and 1996-draft modes), [`Policy`] runs
//! the automata (their byte layout and walk are in `program`),
//! [`Policy::visit_at_minute`] answers robots 2.0's Visit-time and
//! Request-rate, and [`Store`] maps many hosts to policies. The archived
//! layout (`artifact`, docs/artifact.md) is not part of the check path's
//! API: accessors return the plain types of this crate.
//!
//! # Cargo features
//!
//! * `build` (off by default): the writer side, for compilers, store
//!   builders and tools. It makes public the `artifact` module (the owned
//!   types a policy is archived from, and the outcome word's encoding),
//!   the `answer` module (how outcome words answer usages, for paths that
//!   answer without an artifact: the compiler's `Checker`),
//!   the `program` module's encoder and decoder, `frame`, the store
//!   writer (`write_store`, `HostEntry`, `StoreMeta`, `WriteStoreError`,
//!   `fetched_at_kept`, `MAX_PROBE`), a store set's `SetIndex` (and
//!   `SetIndexError`), and a few inspection hooks
//!   (`Store::index_sizes`, `Store::slot_table`, `HostKey::slot_hash`,
//!   `Policy::outcome_id`). A crawler that only checks URLs leaves it off:
//!   what it links is the check path alone, as regex-automata's
//!   `dfa-search` is without `dfa-build`. The artifacts and stores are the
//!   same bytes either way.
//! * `idna` (off by default): host names as a store build files them
//!   (`host_key`, `HostKeyError`, `url_host_key`) and `idna_lookup_url`,
//!   which a crawler needs to look up a host written in Unicode
//!   (`https://Bücher.example/`: a store holds its `xn--` form). It brings
//!   the `idna` crate; the check path never uses it.

#![deny(missing_docs)]

#[cfg(feature = "build")]
pub mod answer;
#[cfg(not(feature = "build"))]
mod answer;
#[cfg(feature = "build")]
pub mod artifact;
#[cfg(not(feature = "build"))]
mod artifact;
mod bytes;
mod format;
mod ids;
mod load;
pub mod normalize;
mod policy;
#[cfg(feature = "build")]
pub mod program;
#[cfg(not(feature = "build"))]
mod program;
mod set;
#[cfg(feature = "build")]
mod step;
mod store;
mod types;
pub mod url;
mod visit;

pub use answer::Verdict;
pub use bytes::AlignedBytes;
#[cfg(feature = "build")]
pub use format::{frame, frame_version};
pub use format::{
    frame_checksum, FileKind, EACH_AGENT_FORMAT_VERSION, FRAME_LEN, MAX_FRAMED_LEN,
    POLICY_FORMAT_VERSION, STORE_FORMAT_VERSION, STORE_SET_FORMAT_VERSION,
};
pub use ids::{ChannelId, OutcomeId, PolicyId, RuleId};
pub use load::{file_type_name, open_regular, LoadError, LoadErrorKind, READ_SHARDS_BELOW};
pub use policy::{
    AcapRuleRef, Header, Meta, Policy, PolicyFile, RecordRef, RuleRef, SignalSource, Sizes, Traced,
};
#[cfg(feature = "build")]
pub use program::Position;
pub use set::{shard_file_name, shard_of_hash, ShardInfo, StoreSet, MAX_SHARDS, STORE_SET_INDEX};
#[cfg(feature = "build")]
pub use set::{SetIndex, SetIndexError};
#[cfg(feature = "build")]
pub use step::{PathState, PathSteps};
#[cfg(feature = "build")]
pub use store::{fetched_at_kept, write_store, HostEntry, StoreMeta, WriteStoreError, MAX_PROBE};
#[cfg(feature = "idna")]
pub use store::{host_key, idna_lookup_url, url_host_key, HostKeyError};
pub use store::{BatchError, HostInfo, HostKey, HostSource, Store};
pub use types::{
    Dialect, PatternSyntax, RankClass, Rate, RecordKind, RequestRate, RuleOrigin, Selection,
    TimeWindow, UnknownName, UrlMode, Usage, UsageSet, UsageStates,
};
pub use visit::{VisitAdvice, MINUTES_PER_DAY};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type a crawler shares between threads, or sends to one, is
    /// `Send` and `Sync`: a change that loses it (a `Cell`, an `Rc`, a raw
    /// pointer in a view) fails to compile here, not in a user's crate.
    #[test]
    fn shared_types_are_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        // Owners and views.
        shared::<PolicyFile>();
        shared::<Policy<'static>>();
        shared::<Store>();
        shared::<StoreSet>();
        // Answers and what they name.
        shared::<Verdict>();
        shared::<Traced>();
        shared::<VisitAdvice>();
        shared::<Header<'static>>();
        shared::<Meta<'static>>();
        shared::<RuleRef<'static>>();
        shared::<RecordRef<'static>>();
        shared::<AcapRuleRef<'static>>();
        shared::<SignalSource<'static>>();
        shared::<Sizes>();
        // Store lookups.
        shared::<HostKey<'static>>();
        shared::<HostInfo<'static>>();
        shared::<HostSource>();
        shared::<ShardInfo>();
        shared::<url::PathParts<'static>>();
        // Errors (an error crosses threads in `Box<dyn Error + Send + Sync>`).
        shared::<LoadError>();
        shared::<LoadErrorKind>();
        shared::<BatchError>();
        shared::<FileKind>();
        shared::<UnknownName>();
        // Plain values.
        shared::<RuleId>();
        shared::<ChannelId>();
        shared::<OutcomeId>();
        shared::<PolicyId>();
        shared::<Dialect>();
        shared::<UrlMode>();
        shared::<Selection>();
        shared::<PatternSyntax>();
        shared::<RankClass>();
        shared::<RecordKind>();
        shared::<RuleOrigin>();
        shared::<Usage>();
        shared::<UsageSet>();
        shared::<UsageStates>();
        shared::<TimeWindow>();
        shared::<Rate>();
        shared::<RequestRate>();
        // The writer side.
        #[cfg(feature = "build")]
        {
            shared::<SetIndex>();
            shared::<SetIndexError>();
            shared::<WriteStoreError>();
            shared::<HostEntry<'static>>();
            shared::<StoreMeta>();
            shared::<artifact::PolicyData>();
            shared::<artifact::ArchivedPolicyData>();
            shared::<program::Node>();
            shared::<program::Target>();
        }
    }

    /// Artifacts are read in place, so they must be aligned as archives are.
    #[repr(C, align(16))]
    struct Aligned<T: ?Sized>(T);

    static SMALL: &Aligned<[u8]> = &Aligned(*include_bytes!("../tests/data/small.policy"));

    /// Slices of the same length are answered.
    #[test]
    fn check_batch_answers_slices_of_the_same_length() {
        let policy = Policy::from_bytes(&SMALL.0).unwrap();
        let urls: [&[u8]; 2] = [b"/", b"/private/x"];
        let mut out = [policy.check(b"/x"); 2];
        policy.check_batch(&urls, &mut out);
        assert_eq!(out, [policy.check(urls[0]), policy.check(urls[1])]);
    }

    /// Fewer verdict slots than URLs is the caller's mistake: a panic that
    /// says so, not URLs silently left unanswered.
    #[test]
    #[should_panic(expected = "check_batch: 2 URLs but 1 verdict slots")]
    fn policy_check_batch_refuses_fewer_slots_than_urls() {
        let policy = Policy::from_bytes(&SMALL.0).unwrap();
        let mut out = [policy.check(b"/")];
        policy.check_batch(&[b"/a", b"/b"], &mut out);
    }

    /// More verdict slots than URLs too: slots left as they were would read
    /// as answers.
    #[test]
    #[should_panic(expected = "check_batch: 1 URLs but 2 verdict slots")]
    fn policy_check_batch_refuses_more_slots_than_urls() {
        let policy = Policy::from_bytes(&SMALL.0).unwrap();
        let mut out = [policy.check(b"/"); 2];
        policy.check_batch(&[b"/a"], &mut out);
    }

    #[cfg(feature = "build")]
    fn empty_store() -> Store {
        let meta = StoreMeta {
            agent: "Googlebot".into(),
            dialect: Dialect::Rfc9309,
            compiler_version: "0.1.0".into(),
            options_hash: 7,
        };
        Store::from_slice(&write_store(&meta, Vec::new(), &[]).unwrap()).unwrap()
    }

    #[cfg(feature = "build")]
    #[test]
    #[should_panic(expected = "check_batch: 2 URLs but 1 verdict slots")]
    fn store_check_batch_refuses_mismatched_slices() {
        let mut out = [None];
        let _ = empty_store().check_batch(&[b"https://a.example/", b"/b"], &mut out);
    }

    #[cfg(feature = "build")]
    #[test]
    fn store_check_batch_answers_empty_slices() {
        empty_store().check_batch(&[], &mut []).unwrap();
    }
}
