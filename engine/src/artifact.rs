//! The archived layout of a policy: what `robocc compile` writes and
//! [`Policy`](crate::Policy) reads.
//!
//! An artifact is a 32-byte frame ([`crate::frame`]: magic, version, length,
//! checksum) followed by an rkyv archive of [`PolicyData`]. These types are
//! the *layout*: the compiler builds them and the engine validates and
//! reads their archived forms. They are not part of robocc's API promise
//! (their archived forms are rkyv's); callers read a policy through
//! [`Policy`](crate::Policy)'s accessors, which return robocc types.
//! docs/artifact.md is the normative, byte-level description; keep the two
//! in step.

use rkyv::Archive;
#[cfg(feature = "build")]
use rkyv::{Deserialize, Serialize};

// The plain types a layout field refers to, for writers that build one.
#[cfg(feature = "build")]
pub use crate::types::{
    Dialect, PatternSyntax, RankClass, RecordKind, RuleOrigin, Selection, UrlMode,
};

/// Format version written by this crate and the only one it reads.
///
/// Bump it on any change to [`PolicyData`], to the automaton program
/// ([`crate::program`]) or to the meaning of a field.
#[cfg(feature = "build")]
pub use crate::format::POLICY_FORMAT_VERSION as FORMAT_VERSION;
/// First eight bytes of every single-policy artifact.
#[cfg(feature = "build")]
pub use crate::format::POLICY_MAGIC as MAGIC;
/// `rule` value of an outcome that no rule decided.
pub const NO_RULE: u32 = OUTCOME_RULE_MASK;
/// `rule` value of an AI-usage preference outcome that nothing stated
/// (unknown; the allowed bit is clear).
pub const UNKNOWN_RULE: u32 = OUTCOME_RULE_MASK - 1;
/// Outcome word bit: the usage is allowed.
pub const OUTCOME_ALLOWED: u32 = 1 << 31;
/// Outcome word bits: the deciding rule's index, or [`NO_RULE`].
pub const OUTCOME_RULE_MASK: u32 = OUTCOME_ALLOWED - 1;

/// Packs an outcome word: `allowed` and the deciding rule (or [`NO_RULE`]).
#[cfg(feature = "build")]
pub const fn outcome_word(allowed: bool, rule: u32) -> u32 {
    (if allowed { OUTCOME_ALLOWED } else { 0 }) | (rule & OUTCOME_RULE_MASK)
}

/// Fixed facts about a policy: what it was compiled from and how.
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct HeaderData {
    /// [`Dialect`] the outcomes were resolved with.
    pub dialect: u8,
    /// [`UrlMode`] applied to URLs before they are fed to
    /// the automata.
    pub url_mode: u8,
    /// Whether the file's own path is allowed whatever the rules say.
    pub robots_txt_allowed: bool,
    /// The file is a /data.txt (its own path is `/data.txt`).
    pub data_txt: bool,
    /// [`Selection`]: how the agent's groups were chosen.
    pub selection: u8,
    /// How long a fetched copy may be used without checking it again, in
    /// seconds, when the server sends no cache directive.
    pub expiry_secs: u32,
    /// SHA-256 of the robots.txt bytes the policy was compiled from: a
    /// store rebuild reuses the policy for a body of this digest (a
    /// collision-resistant digest, so that no body can be made to reuse
    /// another's policy).
    pub source_sha256: [u8; 32],
    /// Length of those bytes.
    pub source_len: u64,
    /// What was not read as written (the first finding that can change a
    /// verdict, and how many more); empty when the whole file was read. A
    /// store rebuild that reuses the policy reports it as a compile would.
    pub unread: String,
    /// FNV-1a 64 of everything else the policy depends on (agent, dialect,
    /// options, compiler version): with `source_sha256`, decides whether a
    /// store rebuild may reuse the policy.
    pub options_hash: u64,
    /// Parse limit in force (0: none).
    pub max_bytes: u64,
    /// `robocc-compiler` version that wrote the artifact.
    pub compiler_version: String,
    /// The product token the policy was compiled for; several joined by
    /// `,` (a character no dialect's token has).
    pub agent: String,
    /// Names of the usage channels, in outcome order (`["crawl"]`).
    pub channels: Vec<String>,
    /// Why the rules were split over several automata (empty: one automaton
    /// of all rules).
    pub split_reason: String,
}

/// One deterministic automaton over URL bytes, as a compact program (see
/// [`crate::program`] for the node encoding).
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct Automaton {
    /// Byte → class, 256 entries; every class is `< classes_len`.
    pub classes: Vec<u8>,
    /// Number of byte classes (class 1 is the end-of-path class).
    pub classes_len: u16,
    /// Targets are 4 bytes wide (else 2).
    pub wide: bool,
    /// The start target: a row or node offset, or `prog.len() + outcome id`
    /// when the outcome is decided before any byte is read.
    pub start: u32,
    /// Bytes of dense rows at the start of `prog`.
    pub dense_len: u32,
    /// The nodes, back to back.
    pub prog: Vec<u8>,
    /// Empty for a plain automaton. Otherwise a *register* automaton (see
    /// [`crate::program`]): its outcome fields, decided targets and emits
    /// are priorities, and this maps each priority to its outcome id, in
    /// increasing priority from entry 0, which is outcome 0 (no match).
    pub ranked: Vec<u32>,
    /// No outcome of this automaton has a rule of higher rank: when the
    /// rules are split over several automata, they are in non-increasing
    /// `max_rank` order, and a walk stops at the first one that cannot
    /// outrank the best outcome so far.
    pub max_rank: u32,
}

/// A rule as the explainer shows it.
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct RuleData {
    /// The pattern as matched (rfc9309: after encoding) or as written.
    pub pattern: Vec<u8>,
    /// 1-based source line (0 for implicit rules).
    pub line: u32,
    /// Index of the group in the source file it belongs to.
    pub group: u32,
    /// The dialect's rank: among matching rules the highest decides (the
    /// engine combines the outcomes of several automata with it).
    pub rank: u32,
    /// Bit 0: allow; bits 1–2: [`RuleOrigin`]; bits 3–5:
    /// [`PatternSyntax`].
    pub flags: u8,
    /// [`RankClass`] that ranked it.
    pub class: u8,
}

/// A daily window in UTC minutes since midnight, both ends inclusive.
#[derive(Archive, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct WindowData {
    /// First minute, `< 1440`.
    pub start: u16,
    /// Last minute, `< 1440`.
    pub end: u16,
}

/// A robots 2.0 `Request-rate`.
#[derive(Archive, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct RateData {
    /// Documents per period (> 0).
    pub documents: u32,
    /// Period length in seconds (> 0).
    pub seconds: u32,
    /// When the rate applies; `None`: all day.
    pub window: Option<WindowData>,
    /// 1-based source line.
    pub line: u32,
}

/// A record that is not a rule, kept with its line.
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct RecordData {
    /// What the compiler read the key as ([`RecordKind`]).
    pub kind: u8,
    /// Key as written (trimmed).
    pub key: String,
    /// Value as written (trimmed, lossily decoded as UTF-8).
    pub value: String,
    /// 1-based source line.
    pub line: u32,
}

/// acap: what a rule is about besides its pattern (one per rule, in rule
/// order).
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct AcapRuleData {
    /// [`Usage`](crate::Usage) the rule is on (`present` covers its
    /// sub-types, `other` what is not explicitly permitted).
    pub usage: u8,
    /// Bit 0: from a record naming the crawler (else a `*` record); bit 1:
    /// a conventional Allow/Disallow read as a rule on `crawl`.
    pub flags: u8,
    /// Purpose patterns of its sub-record, space-separated (empty: a
    /// general rule).
    pub purposes: String,
    /// Qualifiers as written, space-separated.
    pub qualifiers: String,
    /// How it was written, when not plainly: `(local-usage)`,
    /// `the-acap:resource-set:name`, a permissions reference.
    pub via: String,
}

/// acap: the ACAP side of a policy.
#[derive(Archive, Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct AcapData {
    /// `##ACAP version=` as written (empty: no such comment).
    pub version: String,
    /// The file has `ACAP-ignore-conventional-records`.
    pub ignore_conventional: bool,
    /// Usage purposes the policy was compiled for.
    pub purposes: Vec<String>,
    /// One per rule of the rule table.
    pub rules: Vec<AcapRuleData>,
    /// Action requests of the records that apply (key
    /// `ACAP-request-<action>`, value the path).
    pub requests: Vec<RecordData>,
}

/// AI-usage preferences: what a rule of a policy with signal channels is.
#[derive(Archive, Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct SignalRuleData {
    /// 0: an Allow/Disallow of the agent (crawl); 1: a Content-Usage line;
    /// 2: a Content-Signal line; 3: an Allow/Disallow of a training token.
    pub family: u8,
    /// Two bits per channel (search, train-ai, ai-input from bit 0): 0
    /// nothing, 1 allow, 2 disallow.
    pub prefs: u8,
    /// Family 3: index of the token in `SignalsData::training_agents`.
    pub token: u16,
}

/// AI-usage preferences of a policy (docs/dialects.md, "AI-usage
/// preferences").
#[derive(Archive, Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct SignalsData {
    /// One per rule of the rule table.
    pub rules: Vec<SignalRuleData>,
    /// The training tokens compiled for.
    pub training_agents: Vec<String>,
}

/// Non-rule records that apply to the chosen agent, and the file's global
/// ones.
#[derive(Archive, Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct MetaData {
    /// Crawl-delay in milliseconds from the agent's groups (first valid one).
    pub crawl_delay_ms: Option<u64>,
    /// Per-agent records of the selected groups (Crawl-delay, Request-rate,
    /// Visit-time, Robot-version, Comment, Content-Signal, unknown keys).
    pub agent_records: Vec<RecordData>,
    /// Sitemap, Host and Clean-param records, in file order.
    pub global_records: Vec<RecordData>,
    /// Source lines of the groups that were selected.
    pub group_lines: Vec<u32>,
    /// robots2: the rule set's version as written (`None`: 1.0 rules).
    pub robot_version: Option<String>,
    /// robots2: Visit-time windows; empty means any time.
    pub visit_times: Vec<WindowData>,
    /// robots2: Request-rate records that parsed.
    pub request_rates: Vec<RateData>,
    /// acap only.
    pub acap: Option<AcapData>,
    /// Policies with AI-usage preference channels only.
    pub signals: Option<SignalsData>,
}

/// The archived root object of an artifact. Without the `build` feature
/// only its archived form ([`ArchivedPolicyData`]) is ever made, by
/// validating bytes.
#[cfg_attr(not(feature = "build"), allow(dead_code))]
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct PolicyData {
    /// What the policy is.
    pub header: HeaderData,
    /// Automata whose outcomes are combined; one in the normal case.
    pub automata: Vec<Automaton>,
    /// Outcome table: `channels` words per outcome id, each
    /// [`outcome_word`]. Outcome 0 is the outcome when no rule matches.
    pub outcomes: Vec<u32>,
    /// Rule table.
    pub rules: Vec<RuleData>,
    /// Non-rule records.
    pub meta: MetaData,
}

/// One agent of an each-agent policy ([`EachAgentData`]).
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct AgentColumnData {
    /// The product token, as given.
    pub agent: String,
    /// The column of outcome words that answers it (`< columns`): agents
    /// whose rule sets are identical share one.
    pub column: u32,
    /// [`Selection`]: how its groups were chosen.
    pub selection: u8,
    /// Crawl-delay in milliseconds from its groups (first valid one).
    pub crawl_delay_ms: Option<u64>,
}

/// One column's own automata in the *per-column* form of an each-agent
/// policy ([`EachAgentData::parts`]): what a one-agent policy of the
/// column's rules holds (one automaton, a register one, or the rules split
/// over several combined by rank), its outcome words naming rules of the
/// shared table.
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct ColumnPartData {
    /// The column's automata, in non-increasing `max_rank` order.
    pub automata: Vec<Automaton>,
    /// `channels` words per outcome id (outcome 0: no match).
    pub outcomes: Vec<u32>,
}

/// The archived root object of an *each-agent* artifact (format
/// [`EACH_AGENT_FORMAT_VERSION`](crate::format::EACH_AGENT_FORMAT_VERSION)):
/// one policy answering each of several agents separately.
///
/// Two forms. *Joint* (`parts` empty): `policy` has exactly one automaton
/// whose outcome table holds `columns × channels` words per outcome id
/// (column by column, each `channels` words as in a one-agent policy),
/// one walk answering every column. *Per column* (`parts` has one entry
/// per column): `policy` has no automaton and an empty outcome table, and
/// column `c` is answered by `parts[c]`; its rule table holds each
/// column's rules in the column's own order, column after column, so that
/// the parts' ties break as in a one-agent policy. Either way `policy`'s
/// header names the agents joined by `,` and its `meta` is the first
/// agent's.
#[cfg_attr(not(feature = "build"), allow(dead_code))]
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
pub struct EachAgentData {
    /// The shared policy.
    pub policy: PolicyData,
    /// Distinct rule sets among the agents (≥ 1).
    pub columns: u32,
    /// The agents in the order given, each with its column.
    pub agents: Vec<AgentColumnData>,
    /// Per-column form: each column's automata (empty: the joint form).
    pub parts: Vec<ColumnPartData>,
}

/// FNV-1a, 64 bit: a stable, dependency-free fingerprint (options, store
/// host keys, store set checksums; not open to a hostile input's choice
/// where it matters, so sources are identified by SHA-256 instead).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_iter(bytes.iter().copied())
}

/// [`fnv1a64`] over bytes produced on the fly (no buffer needed).
#[inline]
pub fn fnv1a64_iter(bytes: impl IntoIterator<Item = u8>) -> u64 {
    // `fold`, not a `for` loop: chained iterators (a store's host key is
    // host, `:`, port) fold without a branch per byte.
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
