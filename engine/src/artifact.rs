//! The policy artifact: what `robocc compile` writes and [`Policy`] reads.
//!
//! An artifact is a 16-byte frame followed by an rkyv archive of
//! [`PolicyData`]:
//!
//! ```text
//! offset  size  field
//! 0       8     magic  b"ROBOCC\0P"
//! 8       4     format version, u32 little-endian (FORMAT_VERSION)
//! 12      4     archive length in bytes, u32 little-endian
//! 16      n     rkyv archive (root object last, 16-byte aligned)
//! ```
//!
//! The frame is read before the archive is validated so that a file of
//! another version is refused with "found version X, this engine supports Y"
//! rather than with an opaque validation error. docs/artifact.md is the
//! normative description; keep the two in step.
//!
//! [`Policy`]: crate::Policy

use rkyv::{Archive, Deserialize, Serialize};

/// First eight bytes of every single-policy artifact.
pub const MAGIC: [u8; 8] = *b"ROBOCC\0P";
/// Format version written by this crate and the only one it reads.
///
/// Bump it on any change to [`PolicyData`] or to the meaning of a field.
pub const FORMAT_VERSION: u32 = 2;
/// Size of the frame before the rkyv archive.
pub const FRAME_LEN: usize = 16;
/// Alignment the archive needs (the frame keeps it when the buffer is aligned).
pub const ARCHIVE_ALIGN: usize = 16;
/// `rule` value of an outcome that no rule decided.
pub const NO_RULE: u32 = u32::MAX;

/// Which specification's semantics a policy was compiled with.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum Dialect {
    /// RFC 9309 with Google's robotstxt library as the reference behaviour.
    Rfc9309 = 0,
    /// Koster's 1996 draft (and /data.txt): first match in record order.
    Draft1996 = 1,
    /// The proposed "robots.txt 2.0" extended standard.
    Robots2 = 2,
    /// ACAP 1.0 robots.txt extensions.
    Acap = 3,
}

impl Dialect {
    /// The name used on the command line and in docs.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Rfc9309 => "rfc9309",
            Dialect::Draft1996 => "draft1996",
            Dialect::Robots2 => "robots2",
            Dialect::Acap => "acap",
        }
    }
}

impl ArchivedDialect {
    /// The owned form of this dialect.
    pub fn to_native(&self) -> Dialect {
        match self {
            ArchivedDialect::Rfc9309 => Dialect::Rfc9309,
            ArchivedDialect::Draft1996 => Dialect::Draft1996,
            ArchivedDialect::Robots2 => Dialect::Robots2,
            ArchivedDialect::Acap => Dialect::Acap,
        }
    }
}

/// How URLs (and patterns, at compile time) are encoded before matching.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum UrlMode {
    /// Google's behaviour: the URL is matched byte for byte as given; patterns
    /// only get bytes >= 0x80 percent-encoded and `%xx` upper-cased.
    Google = 0,
    /// RFC 9309 §2.2.2: URL and patterns are both normalised (unreserved
    /// escapes decoded, reserved ones kept, non-ASCII and unsafe bytes
    /// encoded, literal `*` and `$` in the URL compared as `%2A` and `%24`).
    Rfc = 1,
    /// The 1996 draft (draft1996, robots2): every `%xx` is decoded except
    /// `%2F`, on both sides. The canonical form keeps `%2F`, `%25`, `%23` and
    /// `%00` encoded (upper-case hex) so that no decoded byte can be read as
    /// a separator, an escape or an end of path; a `%` that starts no escape
    /// becomes `%25`.
    Decode = 2,
}

/// Fixed facts about a policy: what it was compiled from and how.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct Header {
    /// Semantics the outcomes were resolved with.
    pub dialect: Dialect,
    /// Encoding applied to URLs before they are fed to the automata.
    pub url_mode: UrlMode,
    /// Whether the file's own path ([`Header::self_path`]) is allowed
    /// whatever the rules say.
    pub robots_txt_allowed: bool,
    /// The file's own path: `/robots.txt`, or `/data.txt` for data.txt files.
    pub self_path: String,
    /// Names of the usage channels, in outcome order (`["crawl"]` for rfc9309).
    pub channels: Vec<String>,
    /// The product token the policy was compiled for.
    pub agent: String,
    /// How the agent's groups were chosen: `named`, `global` or `none`.
    pub selection: String,
    /// FNV-1a 64 of the robots.txt bytes the policy was compiled from.
    pub source_hash: u64,
    /// Length of those bytes.
    pub source_len: u64,
    /// Parse limit in force (0: none).
    pub max_bytes: u64,
    /// `robocc-compiler` version that wrote the artifact.
    pub compiler_version: String,
    /// How the rules were lowered: `dfa`, `split-dfa (N automata)`, … with the
    /// reason a fallback was taken.
    pub build: String,
}

/// One deterministic automaton over URL bytes.
///
/// State ids are premultiplied: the transitions of state `s` are
/// `trans[s .. s + stride]`. Column `stride - 1` is not a transition: it holds
/// the outcome id of the state, the verdict if the input ends there. States
/// with an id `>= first_decided` can no longer change their outcome, so the
/// engine stops reading there.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct Automaton {
    /// Byte → equivalence class, 256 entries; every class is `< stride - 1`.
    pub classes: Vec<u8>,
    /// Columns per state: number of classes plus the outcome column.
    pub stride: u32,
    /// Premultiplied transitions, `states * stride` entries.
    pub trans: Vec<u32>,
    /// Premultiplied start state.
    pub start: u32,
    /// Premultiplied id of the first decided state.
    pub first_decided: u32,
}

/// What one usage channel concludes in one outcome.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(derive(Debug))]
pub struct ChannelOutcome {
    /// `true` when the usage is allowed.
    pub allowed: bool,
    /// Index of the deciding rule in [`PolicyData::rules`], or [`NO_RULE`].
    pub rule: u32,
    /// Strength of this outcome when the outcomes of several automata are
    /// combined (fallback path): the highest rank wins, then the lowest rule.
    pub rank: u32,
}

/// Where a rule came from.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum RuleOrigin {
    /// An Allow or Disallow line of the file.
    Line = 0,
    /// Google's `index.htm` rule: an Allow of `<dir>/index.htm…` also allows
    /// `<dir>/` exactly.
    IndexHtm = 1,
    /// The implicit allow of `/robots.txt` (RFC 9309 §2.2.2).
    RobotsTxt = 2,
}

/// A rule as the explainer shows it.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct RuleInfo {
    /// `true` for Allow.
    pub allow: bool,
    /// The pattern as matched (after encoding), lossily shown as text.
    pub pattern: String,
    /// 1-based source line (0 for implicit rules).
    pub line: u32,
    /// Match priority (rfc9309: pattern length in octets).
    pub priority: u32,
    /// Index of the group in the source file it belongs to.
    pub group: u32,
    /// Why the rule exists.
    pub origin: RuleOrigin,
    /// How the pattern is read.
    pub syntax: PatternSyntax,
}

/// How a rule's pattern is matched against a path.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum PatternSyntax {
    /// RFC 9309: a prefix; `*` any run of bytes, a final `$` the end.
    Glob = 0,
    /// A plain prefix, every byte literal (draft1996; robots2 "general").
    Prefix = 1,
    /// The whole path exactly, every byte literal (robots2 "explicit").
    Exact = 2,
    /// A /bin/sh pattern over the whole path: `*`, `?`, `[...]` (robots2
    /// "wildcard").
    Shell = 3,
}

impl PatternSyntax {
    /// The name shown by the explainer.
    pub fn name(self) -> &'static str {
        match self {
            PatternSyntax::Glob => "glob",
            PatternSyntax::Prefix => "prefix",
            PatternSyntax::Exact => "exact",
            PatternSyntax::Shell => "wildcard",
        }
    }
}

impl ArchivedPatternSyntax {
    /// The owned form.
    pub fn to_native(&self) -> PatternSyntax {
        match self {
            ArchivedPatternSyntax::Glob => PatternSyntax::Glob,
            ArchivedPatternSyntax::Prefix => PatternSyntax::Prefix,
            ArchivedPatternSyntax::Exact => PatternSyntax::Exact,
            ArchivedPatternSyntax::Shell => PatternSyntax::Shell,
        }
    }
}

/// A daily window in UTC minutes since midnight, both ends inclusive
/// (`0600-0845` is 360..=525). `start > end` wraps past midnight.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct TimeWindow {
    /// First minute of the window, `< 1440`.
    pub start: u16,
    /// Last minute of the window, `< 1440`.
    pub end: u16,
}

impl TimeWindow {
    /// Does the window contain `minute` (minutes since midnight UTC)?
    pub fn contains(&self, minute: u16) -> bool {
        if self.start <= self.end {
            (self.start..=self.end).contains(&minute)
        } else {
            minute >= self.start || minute <= self.end
        }
    }
}

impl ArchivedTimeWindow {
    /// The owned form.
    pub fn to_native(&self) -> TimeWindow {
        TimeWindow {
            start: self.start.to_native(),
            end: self.end.to_native(),
        }
    }
}

/// A robots 2.0 `Request-rate`: `documents` per `seconds`, optionally only
/// within a daily window.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct RequestRate {
    /// Documents per period (> 0).
    pub documents: u32,
    /// Period length in seconds (> 0).
    pub seconds: u32,
    /// When the rate applies; `None`: all day.
    pub window: Option<TimeWindow>,
    /// 1-based source line.
    pub line: u32,
}

/// A request rate without its window, as the engine answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Documents per period.
    pub documents: u32,
    /// Period length in seconds.
    pub seconds: u32,
}

impl Rate {
    /// Is `self` slower (fewer documents per normalised second) than `other`?
    /// Compared exactly: `d1 / s1 < d2 / s2` ⇔ `d1 * s2 < d2 * s1`.
    pub fn is_slower_than(&self, other: &Rate) -> bool {
        u64::from(self.documents) * u64::from(other.seconds)
            < u64::from(other.documents) * u64::from(self.seconds)
    }

    /// Seconds to wait between two documents.
    pub fn seconds_per_document(&self) -> f64 {
        f64::from(self.seconds) / f64::from(self.documents.max(1))
    }
}

/// A record that is not a rule, kept with its line.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct Record {
    /// Key as written (trimmed).
    pub key: String,
    /// Value as written (trimmed, lossily decoded as UTF-8).
    pub value: String,
    /// 1-based source line.
    pub line: u32,
}

/// Non-rule records that apply to the chosen agent, and the file's global ones.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct Metadata {
    /// Crawl-delay in milliseconds from the agent's groups (first valid one).
    pub crawl_delay_ms: Option<u64>,
    /// Per-agent records of the selected groups: Crawl-delay, Request-rate,
    /// Visit-time, Robot-version, Comment, Content-Signal, unknown keys.
    pub agent_records: Vec<Record>,
    /// Sitemap URLs, in file order.
    pub sitemaps: Vec<String>,
    /// Host records (Yandex).
    pub hosts: Vec<String>,
    /// Clean-param records (Yandex).
    pub clean_params: Vec<String>,
    /// Source lines of the groups that were selected.
    pub group_lines: Vec<u32>,
    /// How long a fetched copy may be used without checking it again, in
    /// seconds (rfc9309: 24 h, RFC 9309 §2.4; draft1996 and robots2: 7 days,
    /// the draft's §3.4 default when the server sends no cache directive).
    pub expiry_secs: u64,
    /// Content-Signal values of the agent's groups, in file order.
    pub content_signals: Vec<String>,
    /// robots2: the rule set's version as written (`None`: 1.0 rules).
    pub robot_version: Option<String>,
    /// robots2: Visit-time windows; empty means any time.
    pub visit_times: Vec<TimeWindow>,
    /// robots2: Request-rate records that parsed.
    pub request_rates: Vec<RequestRate>,
    /// robots2: Comment records, in file order.
    pub comments: Vec<String>,
}

/// The archived root object of an artifact.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct PolicyData {
    /// What the policy is.
    pub header: Header,
    /// Automata whose outcomes are combined; one in the normal case.
    pub automata: Vec<Automaton>,
    /// Outcome table, `channels` entries per outcome id. Outcome 0 is the
    /// outcome when no rule matches.
    pub outcomes: Vec<ChannelOutcome>,
    /// Rule table for explanations.
    pub rules: Vec<RuleInfo>,
    /// Non-rule records.
    pub meta: Metadata,
}

/// FNV-1a, 64 bit: a stable, dependency-free fingerprint of the source file.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
