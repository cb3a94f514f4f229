//! Turning untrusted bytes into validated archives: the frame every robocc
//! file starts with, rkyv's structural validation, then the semantic checks
//! rkyv cannot know about (every target inside its program, every outcome
//! and rule index in range).
//!
//! After [`validate_policy`] succeeds the check path may read the tables
//! without bounds checks: no input can make it read out of bounds or panic.

use crate::artifact::{
    ArchivedAutomaton, ArchivedEachAgentData, ArchivedPolicyData, NO_RULE, OUTCOME_ALLOWED,
    OUTCOME_RULE_MASK, UNKNOWN_RULE,
};
use crate::bytes::AlignedBytes;
use crate::format::{
    frame_checksum, FileKind, ARCHIVE_ALIGN, EACH_AGENT_FORMAT_VERSION, FRAME_LEN,
};
use std::fmt;
use std::sync::Arc;

/// Shards shorter than this are read into memory at their first use, not
/// mapped: each mapping counts against the process's limit (Linux's
/// `vm.max_map_count`, 65,530 by default), which a set of 65,536 small
/// shards would exceed. Below glibc's `malloc` mapping threshold (128 KiB),
/// so that the copies do not become mappings themselves. `PolicyFile::open`
/// and `Store::open` read files shorter than this too (a read file cannot
/// change under its reader).
pub const READ_SHARDS_BELOW: u64 = 64 << 10;

/// Why bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// The file could not be read or mapped: the I/O error's kind. The
    /// [`std::io::Error`] itself is the [`LoadError`]'s
    /// [`source`](std::error::Error::source).
    Io(std::io::ErrorKind),
    /// Shorter than the frame.
    TooShort(usize),
    /// Not this kind's magic; `other` is the robocc kind it is, if any.
    BadMagic {
        /// The other robocc file kind the bytes are.
        other: Option<FileKind>,
    },
    /// Another format version.
    Version {
        /// Version in the file.
        found: u32,
        /// The version this engine reads.
        supported: u32,
    },
    /// Written in big-endian byte order.
    BigEndian,
    /// The frame's declared length does not match the bytes.
    Length {
        /// Bytes the frame declares.
        declared: u64,
        /// Bytes present.
        available: usize,
    },
    /// The archive does not start on a 16-byte boundary.
    Misaligned(usize),
    /// rkyv's structural validation failed (what failed, when rkyv says;
    /// empty otherwise).
    Archive(String),
    /// The bytes are well-formed but not the ones the writer framed: the
    /// checksum in the frame is not theirs (see [`frame_checksum`]).
    Checksum {
        /// The checksum the frame holds.
        stored: u64,
        /// The checksum of the bytes present.
        computed: u64,
    },
    /// A table is inconsistent.
    Invalid(String),
}

/// Why a policy or store was refused: what, and (when known) which file or
/// which host. An I/O failure ([`LoadErrorKind::Io`]) keeps its
/// [`std::io::Error`] as the error's [`source`](std::error::Error::source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    kind: LoadErrorKind,
    what: FileKind,
    path: Option<String>,
    host: Option<String>,
    /// A store's policy that was refused: its number (`kind` is then the
    /// policy's own error, and `what` the store).
    policy: Option<usize>,
    /// The I/O error of an [`LoadErrorKind::Io`] (shared, so that the
    /// error stays `Clone`; one pointer, so that it stays small).
    io: Option<Arc<IoSource>>,
}

/// The I/O error a [`LoadError`] keeps, and whether it came from mapping
/// the file (the message then says what a failed mapping means).
#[derive(Debug)]
struct IoSource {
    error: std::io::Error,
    mapping: bool,
}

impl PartialEq for IoSource {
    /// `io::Error` has no equality: the same kind and message, from the
    /// same step, are the same error.
    fn eq(&self, other: &IoSource) -> bool {
        self.mapping == other.mapping
            && self.error.kind() == other.error.kind()
            && self.error.to_string() == other.error.to_string()
    }
}

impl Eq for IoSource {}

impl LoadError {
    pub(crate) fn new(what: FileKind, kind: LoadErrorKind) -> LoadError {
        LoadError {
            kind,
            what,
            path: None,
            host: None,
            policy: None,
            io: None,
        }
    }

    /// A store's policy `i` refused with `self` (a policy's error): the
    /// same kind, reported as the store's.
    pub(crate) fn in_store(mut self, i: usize) -> LoadError {
        self.what = FileKind::Store;
        self.policy = Some(i);
        self
    }

    pub(crate) fn invalid(what: FileKind, msg: impl Into<String>) -> LoadError {
        LoadError::new(what, LoadErrorKind::Invalid(msg.into()))
    }

    /// Reading failed with `err`, kept as the source.
    pub(crate) fn io(what: FileKind, err: std::io::Error) -> LoadError {
        LoadError::io_source(what, err, false)
    }

    /// Reading (`mapping` false) or mapping the file failed with `err`.
    fn io_source(what: FileKind, err: std::io::Error, mapping: bool) -> LoadError {
        let mut e = LoadError::new(what, LoadErrorKind::Io(err.kind()));
        e.io = Some(Arc::new(IoSource {
            error: err,
            mapping,
        }));
        e
    }

    /// Attaches the file the bytes came from, for the message.
    pub fn with_path(mut self, path: impl Into<String>) -> LoadError {
        self.path = Some(path.into());
        self
    }

    pub(crate) fn with_host(mut self, host: &[u8]) -> LoadError {
        self.host = Some(String::from_utf8_lossy(host).into_owned());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &LoadErrorKind {
        &self.kind
    }

    /// The kind of file that was being read.
    pub fn file_kind(&self) -> FileKind {
        self.what
    }

    /// The file, when the bytes came from one.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The store host whose policy was refused (stores validate each policy
    /// the first time it is used).
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// True when the file is of a format version this engine does not read.
    pub fn is_version_mismatch(&self) -> bool {
        matches!(self.kind, LoadErrorKind::Version { .. })
    }

    /// True when the buffer was not aligned for zero-copy access.
    pub fn is_misaligned(&self) -> bool {
        matches!(self.kind, LoadErrorKind::Misaligned(_))
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{p}: ")?;
        }
        let mut w = self.what.name();
        match (&self.host, self.policy) {
            (Some(h), Some(i)) => write!(f, "policy {i} of host {h} in the {w}: ")?,
            (Some(h), None) => write!(f, "policy of host {h} in the {w}: ")?,
            (None, Some(i)) => write!(f, "policy {i} in the {w}: ")?,
            (None, None) => {}
        }
        if self.policy.is_some() {
            // What follows is the policy's own error.
            w = FileKind::Policy.name();
        }
        match &self.kind {
            LoadErrorKind::Io(_) => match &self.io {
                Some(io) if io.mapping => write!(f, "cannot read {w}: {}", map_error(&io.error)),
                Some(io) => write!(f, "cannot read {w}: {}", io.error),
                None => write!(f, "cannot read {w}"),
            },
            LoadErrorKind::TooShort(n) => write!(
                f,
                "not a robocc {w}: {n} bytes is shorter than the {FRAME_LEN}-byte header"
            ),
            LoadErrorKind::BadMagic { other: Some(k) } => {
                write!(f, "not a robocc {w}: it is a robocc {}", k.name())
            }
            LoadErrorKind::BadMagic { other: None } => {
                write!(f, "not a robocc {w}: wrong magic bytes")
            }
            LoadErrorKind::Version { found, supported } => write!(
                f,
                "unsupported {w} format version {found}: this engine reads version {supported} only"
            ),
            LoadErrorKind::BigEndian => write!(
                f,
                "{w} written in big-endian byte order: this engine reads little-endian files only"
            ),
            LoadErrorKind::Length {
                declared,
                available,
            } => write!(
                f,
                "truncated or padded {w}: the header declares {declared} bytes but {available} follow it"
            ),
            LoadErrorKind::Misaligned(addr) => write!(
                f,
                "{w} bytes start at address {addr:#x}, not aligned to {ARCHIVE_ALIGN} bytes"
            ),
            LoadErrorKind::Archive(e) if e.is_empty() => {
                write!(f, "corrupted {w}: archive validation failed")
            }
            LoadErrorKind::Archive(e) => {
                write!(f, "corrupted {w}: archive validation failed: {e}")
            }
            LoadErrorKind::Checksum { stored, computed } => write!(
                f,
                "corrupted {w}: its bytes are not the ones written (checksum {computed:016x}, its header says {stored:016x})"
            ),
            LoadErrorKind::Invalid(e) => write!(f, "corrupted {w}: {e}"),
        }
    }
}

impl std::error::Error for LoadError {
    /// The [`std::io::Error`] of a [`LoadErrorKind::Io`]; `None` otherwise.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io
            .as_ref()
            .map(|io| &io.error as &(dyn std::error::Error + 'static))
    }
}

/// Compares the checksum in `bytes`' frame (already checked by [`unframe`])
/// with that of the bytes after it: O(length), so a store does it for each
/// policy on its first use and for the whole file only when asked to
/// validate everything.
pub(crate) fn verify_checksum(bytes: &[u8], kind: FileKind) -> Result<(), LoadError> {
    let stored = u64::from_le_bytes(bytes[16..24].try_into().expect("a checked frame"));
    let computed = frame_checksum(&bytes[FRAME_LEN..]);
    if stored != computed {
        return Err(LoadError::new(
            kind,
            LoadErrorKind::Checksum { stored, computed },
        ));
    }
    Ok(())
}

/// Checks the frame of `kind` and returns the bytes it announces (16-byte
/// aligned). Their checksum is not compared here (see [`verify_checksum`]).
pub(crate) fn unframe(bytes: &[u8], kind: FileKind) -> Result<&[u8], LoadError> {
    unframe_any(bytes, kind, &[]).map(|(body, _)| body)
}

/// [`unframe`] accepting `kind`'s version or one of `also` (a policy's
/// each-agent variant), and saying which.
pub(crate) fn unframe_any<'b>(
    bytes: &'b [u8],
    kind: FileKind,
    also: &[u32],
) -> Result<(&'b [u8], u32), LoadError> {
    let err = |k| LoadError::new(kind, k);
    // The magic first where there is one: a short text given as a policy
    // is "not a robocc policy", not a cut one.
    if bytes.len() >= 8 && bytes[..8] != kind.magic() {
        return Err(err(LoadErrorKind::BadMagic {
            other: FileKind::sniff(bytes),
        }));
    }
    if bytes.len() < FRAME_LEN {
        return Err(err(LoadErrorKind::TooShort(bytes.len())));
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (found, version) = (word(8), kind.version());
    if found != version && !also.contains(&found) {
        // The frame is little-endian; a byte-swapped version means the
        // writer used the other byte order, and every offset is swapped too.
        return Err(err(if found == version.swap_bytes() {
            LoadErrorKind::BigEndian
        } else {
            LoadErrorKind::Version {
                found,
                supported: version,
            }
        }));
    }
    let declared = word(12);
    let body = &bytes[FRAME_LEN..];
    if declared as usize != body.len() {
        return Err(err(LoadErrorKind::Length {
            declared: u64::from(declared),
            available: body.len(),
        }));
    }
    if bytes[24..FRAME_LEN].iter().any(|&b| b != 0) {
        return Err(LoadError::invalid(
            kind,
            "the header's reserved bytes are not zero",
        ));
    }
    if (body.as_ptr() as usize) % ARCHIVE_ALIGN != 0 {
        return Err(err(LoadErrorKind::Misaligned(body.as_ptr() as usize)));
    }
    Ok((body, found))
}

/// Validates an archive's structure with rkyv's checker (the low-level one:
/// it allocates nothing, which the lazily validated policies of a store rely
/// on).
pub(crate) fn access_archive<T>(body: &[u8], kind: FileKind) -> Result<&T, LoadError>
where
    T: rkyv::Portable
        + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::low::LowValidator<'a, rkyv::rancor::Error>>,
{
    rkyv::api::low::access::<T, rkyv::rancor::Error>(body).map_err(|e| {
        // rancor's error says what failed only in builds with debug
        // assertions and its `alloc` feature; otherwise its text is advice
        // to turn those on, meant for rkyv's developers, not for whoever
        // reads the file: the message then states the fact alone.
        let detail = e.to_string();
        let detail = if detail.contains("without error information") {
            String::new()
        } else {
            detail
        };
        LoadError::new(kind, LoadErrorKind::Archive(detail))
    })
}

/// A validated policy archive: the policy, and the agent table of an
/// each-agent artifact.
#[derive(Clone, Copy)]
pub(crate) struct Validated<'a> {
    pub(crate) data: &'a ArchivedPolicyData,
    pub(crate) each: Option<&'a ArchivedEachAgentData>,
}

/// Validates a whole single-policy artifact (either variant).
pub(crate) fn validate_policy(bytes: &[u8]) -> Result<Validated<'_>, LoadError> {
    let kind = FileKind::Policy;
    let (body, version) = unframe_any(bytes, kind, &[EACH_AGENT_FORMAT_VERSION])?;
    let v = if version == EACH_AGENT_FORMAT_VERSION {
        let each = access_archive::<ArchivedEachAgentData>(body, kind)?;
        let stride = check_agents(each).map_err(|e| LoadError::invalid(kind, e))?;
        check_semantics(&each.policy, stride, !each.parts.is_empty())
            .map_err(|e| LoadError::invalid(kind, e))?;
        Validated {
            data: &each.policy,
            each: Some(each),
        }
    } else {
        let data = access_archive::<ArchivedPolicyData>(body, kind)?;
        let stride = data.header.channels.len();
        check_semantics(data, stride, false).map_err(|e| LoadError::invalid(kind, e))?;
        Validated { data, each: None }
    };
    // Last: the structure's errors say more about damage that breaks it,
    // and a fuzzer's mutations still reach the checks above.
    verify_checksum(bytes, kind)?;
    Ok(v)
}

/// An unknown word: nothing stated (a channel a column does not have).
const UNKNOWN_WORD: u32 = UNKNOWN_RULE;

/// Most columns an each-agent policy may have (far more agents than any
/// list of crawlers; it bounds the outcome table's stride).
pub const MAX_AGENT_COLUMNS: usize = 1024;

/// The agent table of an each-agent archive: at least one agent, every
/// column in range and used, one automaton (a walk answers every column at
/// once); returns the outcome table's stride (words per outcome id).
fn check_agents(each: &ArchivedEachAgentData) -> Result<usize, String> {
    let columns = each.columns.to_native() as usize;
    let channels = each.policy.header.channels.len();
    if columns == 0 || columns > MAX_AGENT_COLUMNS || each.agents.len() < columns {
        return Err(format!(
            "each-agent policy of {columns} columns for {} agents (expected 1 to {MAX_AGENT_COLUMNS}, \
             no more than the agents)",
            each.agents.len()
        ));
    }
    let mut used = vec![false; columns];
    for a in each.agents.iter() {
        let c = a.column.to_native() as usize;
        if c >= columns {
            return Err(format!(
                "agent {:?} answered by column {c} of {columns}",
                a.agent.as_str()
            ));
        }
        used[c] = true;
        if crate::types::Selection::from_u8(a.selection).is_none() {
            return Err(format!(
                "agent {:?} has an unknown selection code",
                a.agent.as_str()
            ));
        }
    }
    if used.contains(&false) {
        return Err("each-agent policy with a column no agent reads".into());
    }
    if each.policy.header.dialect == crate::types::Dialect::Acap as u8 {
        return Err("each-agent policy of the acap dialect (acap answers one agent)".into());
    }
    if each.parts.is_empty() {
        if each.policy.automata.len() != 1 {
            return Err("each-agent policy with more than one automaton".into());
        }
        return Ok(columns * channels);
    }
    // Per column: the column's automata and outcomes in its part, none in
    // the policy.
    if each.parts.len() != columns {
        return Err(format!(
            "each-agent policy of {columns} columns with {} parts",
            each.parts.len()
        ));
    }
    if !each.policy.automata.is_empty() || !each.policy.outcomes.is_empty() {
        return Err("each-agent policy with both parts and a joint automaton".into());
    }
    for (c, part) in each.parts.iter().enumerate() {
        check_tables(&each.policy, &part.automata, &part.outcomes, channels)
            .map_err(|e| format!("part {c}: {e}"))?;
    }
    Ok(channels)
}

/// The invariants the check path relies on.
/// `stride` is the outcome table's words per outcome id: the channels, or
/// for an each-agent policy its columns × channels.
fn check_semantics(
    data: &ArchivedPolicyData,
    stride: usize,
    each_parts: bool,
) -> Result<(), String> {
    let h = &data.header;
    if crate::types::Dialect::from_u8(h.dialect).is_none()
        || crate::types::UrlMode::from_u8(h.url_mode).is_none()
        || crate::types::Selection::from_u8(h.selection).is_none()
    {
        return Err("unknown dialect, URL mode or selection code".into());
    }
    let channels = data.header.channels.len();
    if channels == 0 || channels > 64 {
        return Err(format!("{channels} usage channels (expected 1 to 64)"));
    }
    // As many channels as a policy with the signal ones (their names are
    // checked below).
    let signals = channels == crate::types::Usage::SIGNAL_CHANNELS.len();
    for (i, r) in data.rules.iter().enumerate() {
        let flags = r.flags;
        let known = crate::types::RuleOrigin::from_u8((flags >> 1) & 3).is_some()
            && crate::types::PatternSyntax::from_u8((flags >> 3) & 7).is_some()
            && flags >> 6 == 0
            && crate::types::RankClass::from_u8(r.class).is_some();
        if !known {
            return Err(format!("rule {i} has unknown flags or rank class"));
        }
    }
    for r in data
        .meta
        .agent_records
        .iter()
        .chain(data.meta.global_records.iter())
    {
        if crate::types::RecordKind::from_u8(r.kind).is_none() {
            return Err(format!("record on line {} has an unknown kind", r.line));
        }
    }
    // acap: one automaton, one channel per usage in `Usage` order (the
    // check path indexes channels by usage), one ACAP entry per rule.
    let acap = h.dialect == crate::types::Dialect::Acap as u8;
    match data.meta.acap.as_ref() {
        Some(a) if acap => {
            let names = crate::types::Usage::ACAP_CHANNELS.iter().copied();
            if !h.channels.iter().map(|c| c.as_str()).eq(names) {
                return Err("acap policy whose channels are not the usage types".into());
            }
            if data.automata.len() > 1 {
                return Err("acap policy with more than one automaton".into());
            }
            if a.rules.len() != data.rules.len()
                || a.rules
                    .iter()
                    .any(|r| crate::types::Usage::from_u8(r.usage).is_none() || r.flags >> 2 != 0)
            {
                return Err("acap rule entries do not match the rule table".into());
            }
        }
        None if !acap => {}
        _ => return Err("acap data and dialect disagree".into()),
    }
    // Other dialects: crawl, or crawl and the AI-usage preference channels
    // (one automaton, one entry per rule).
    if !acap {
        use crate::types::Usage;
        let expected = if signals {
            Usage::SIGNAL_CHANNELS
        } else {
            Usage::CRAWL_CHANNELS
        };
        if !h
            .channels
            .iter()
            .map(|c| c.as_str())
            .eq(expected.iter().copied())
        {
            return Err("channels are neither crawl nor crawl and the signal channels".into());
        }
        match data.meta.signals.as_ref() {
            Some(sg) if signals => {
                if data.automata.len() > 1 {
                    return Err("signal channels with more than one automaton".into());
                }
                let tokens = sg.training_agents.len();
                if sg.rules.len() != data.rules.len()
                    || sg.rules.iter().any(|r| {
                        r.family > 3
                            || (r.family == 3 && usize::from(r.token.to_native()) >= tokens)
                    })
                {
                    return Err("signal rule entries do not match the rule table".into());
                }
            }
            None if !signals => {}
            _ => return Err("signal data and channels disagree".into()),
        }
    }
    let meta = &data.meta;
    let windows = meta
        .visit_times
        .iter()
        .chain(meta.request_rates.iter().filter_map(|r| r.window.as_ref()));
    for w in windows {
        if w.start.to_native() >= 1440 || w.end.to_native() >= 1440 {
            return Err("time window minute out of range 0..1440".into());
        }
    }
    if meta
        .request_rates
        .iter()
        .any(|r| r.documents.to_native() == 0 || r.seconds.to_native() == 0)
    {
        return Err("request rate with zero documents or seconds".into());
    }
    // A per-column each-agent policy has its tables in its parts
    // (`check_agents`); every other policy here.
    if each_parts {
        return Ok(());
    }
    check_tables(data, &data.automata, &data.outcomes, stride)
}

/// A policy's automata and outcome table (its own, or a part of a
/// per-column each-agent policy), `stride` words per outcome id: at least
/// one automaton, every word naming a rule of `data` (or none), every
/// program valid, in non-increasing `max_rank` order, and one automaton
/// where the answer reads several channels.
fn check_tables(
    data: &ArchivedPolicyData,
    automata: &[ArchivedAutomaton],
    outcome_words: &[rkyv::Archived<u32>],
    stride: usize,
) -> Result<(), String> {
    let channels = data.header.channels.len();
    if outcome_words.is_empty() || outcome_words.len() % stride != 0 {
        return Err(format!(
            "outcome table has {} entries, not a positive multiple of {stride} words",
            outcome_words.len()
        ));
    }
    let outcomes = outcome_words.len() / stride;
    let signals = channels == crate::types::Usage::SIGNAL_CHANNELS.len();
    for (i, o) in outcome_words.iter().enumerate() {
        let rule = o.to_native() & OUTCOME_RULE_MASK;
        // Unknown (nothing stated) only on a signal channel, never allowed.
        if rule == UNKNOWN_RULE
            && signals
            && i % channels != 0
            && o.to_native() & OUTCOME_ALLOWED == 0
        {
            continue;
        }
        if rule != NO_RULE && rule as usize >= data.rules.len() {
            return Err(format!(
                "outcome entry {i} names rule {rule} of {}",
                data.rules.len()
            ));
        }
    }
    if automata.is_empty() {
        return Err("no automaton".into());
    }
    // Several automata are combined by rank, which answers crawl only: a
    // policy with more channels (acap's usage types, the preference
    // channels) has one automaton, but for a crawl-only column of a
    // per-column each-agent policy (its other channels unknown).
    if channels > 1 && automata.len() > 1 {
        let crawl_only = outcome_words
            .iter()
            .enumerate()
            .all(|(i, w)| i % channels == 0 || w.to_native() == UNKNOWN_WORD);
        if !crawl_only {
            return Err(format!("{channels} channels with more than one automaton"));
        }
    }
    for (n, a) in automata.iter().enumerate() {
        crate::program::validate(a, outcomes).map_err(|e| format!("automaton {n}: {e}"))?;
    }
    // Checks stop at the first automaton that cannot outrank the best so
    // far: they must come in non-increasing order.
    if automata
        .windows(2)
        .any(|w| w[0].max_rank.to_native() < w[1].max_rank.to_native())
    {
        return Err("automata not in decreasing order of max_rank".into());
    }
    Ok(())
}

/// Opens `path` for reading if it is a regular file. A FIFO, socket or
/// device is refused without waiting: the file is opened non-blocking (on
/// Unix), so a FIFO with no writer does not block the open, and its type is
/// then read from the open file (no race between a check and the open).
/// Stores and policies are mapped, and a set's index is a file of its
/// directory: none of them is ever anything but a regular file.
///
/// # Errors
///
/// The open fails, or the file is a directory (kind `IsADirectory`) or not
/// a regular file (kind `InvalidInput`, naming its type).
pub fn open_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let ty = file.metadata()?.file_type();
    if ty.is_file() {
        // O_NONBLOCK means nothing to a regular file's reads and maps.
        return Ok(file);
    }
    if ty.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {}, not a regular file", file_type_name(ty)),
    ))
}

/// What a file that is not regular is, for a message: "a FIFO", "a
/// socket", "a character device", "a directory"… (the words
/// [`open_regular`]'s error uses).
pub fn file_type_name(ty: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_socket() {
            return "a socket";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
    }
    if ty.is_dir() {
        "a directory"
    } else if ty.is_symlink() {
        "a symbolic link"
    } else if ty.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Maps an open regular file read-only; errors name `path`.
fn map_open(
    file: &std::fs::File,
    path: &std::path::Path,
    kind: FileKind,
) -> Result<memmap2::Mmap, LoadError> {
    // SAFETY: the mapping is read-only; robocc never writes policies or
    // stores in place (it writes a new file and renames it). A file
    // truncated or rewritten in place by another process while mapped can
    // raise SIGBUS or change answers: the documented price of mmap
    // (docs/artifact.md).
    unsafe { memmap2::Mmap::map(file) }
        .map_err(|e| LoadError::io_source(kind, e, true).with_path(path.display().to_string()))
}

/// What a failed `mmap` means. ENOMEM is not about the file: the process
/// has no mapping left (Linux allows `vm.max_map_count` per process,
/// 65,530 by default) or no address space.
fn map_error(e: &std::io::Error) -> String {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ENOMEM) {
        return format!(
            "cannot map it: {e}: the process has no memory mapping left (Linux allows \
             vm.max_map_count per process, 65530 by default) or no address space; the file \
             itself was not read"
        );
    }
    format!("cannot map it: {e}")
}

/// The bytes of the regular file at `path`: read into memory when it is
/// shorter than `read_below` bytes, else mapped. A store set reads its
/// small shards (each mapping counts against the process's limit, and a
/// set may have 65,536 shards); errors name `path`.
pub(crate) fn read_or_map(
    path: &std::path::Path,
    kind: FileKind,
    read_below: u64,
) -> Result<Storage, LoadError> {
    use std::io::Read;
    let named = |e: LoadError| e.with_path(path.display().to_string());
    let file = open_regular(path).map_err(|e| named(LoadError::io(kind, e)))?;
    let len = file
        .metadata()
        .map_err(|e| named(LoadError::io(kind, e)))?
        .len();
    if len < read_below {
        let mut bytes = Vec::with_capacity(len as usize);
        (&file)
            .take(read_below)
            .read_to_end(&mut bytes)
            .map_err(|e| named(LoadError::io(kind, e)))?;
        // A file that grew past the bound meanwhile is mapped instead.
        if (bytes.len() as u64) < read_below {
            return Ok(Storage::Heap(AlignedBytes::copy_from_slice(&bytes)));
        }
    }
    map_open(&file, path, kind).map(Storage::Mapped)
}

/// Where an owner's ([`PolicyFile`](crate::PolicyFile), [`Store`](crate::Store)) bytes live. Both keep their address for as long
/// as they live and are never written, which is what lets views point into
/// them.
pub(crate) enum Storage {
    /// A file mapped read-only, or a large copy ([`owned_copy`]).
    Mapped(memmap2::Mmap),
    Heap(AlignedBytes),
}

impl Storage {
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(m) => m,
            Storage::Heap(v) => v,
        }
    }
}

/// Copies at least this many bytes into memory mapped for them, with
/// transparent huge pages asked for: a store's lookups land on random
/// pages, and with 4 KiB pages each also misses the TLB
/// (docs/PERFORMANCE-notes.md: a million-host store in memory checks ~15%
/// faster).
#[cfg(target_os = "linux")]
const HUGE_COPY: usize = 4 << 20;

/// Copies bytes into storage of their own: 16-byte aligned, and for large
/// inputs on huge pages where the kernel grants them.
pub(crate) fn owned_copy(bytes: &[u8]) -> Storage {
    #[cfg(target_os = "linux")]
    if bytes.len() >= HUGE_COPY {
        if let Ok(mut map) = memmap2::MmapMut::map_anon(bytes.len()) {
            // Advice, asked before the copy touches the pages; a kernel
            // without transparent huge pages keeps small ones.
            let _ = map.advise(memmap2::Advice::HugePage);
            map.copy_from_slice(bytes);
            if let Ok(map) = map.make_read_only() {
                return Storage::Mapped(map);
            }
        }
    }
    Storage::Heap(AlignedBytes::copy_from_slice(bytes))
}

/// The root of a policy archive that already passed [`validate_policy`],
/// without validating it again.
///
/// # Safety
///
/// `bytes` must be exactly bytes that passed [`validate_policy`] before and
/// have not changed since (an immutable buffer or a read-only mapping that
/// the caller owns).
#[inline]
pub(crate) unsafe fn trusted_policy(bytes: &[u8]) -> Validated<'_> {
    let body = &bytes[FRAME_LEN..];
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version == EACH_AGENT_FORMAT_VERSION {
        // SAFETY: the caller guarantees `body` is a validated archive of
        // `EachAgentData` (its frame says so); rkyv's root is at the
        // position this computes.
        let each = unsafe { rkyv::api::access_unchecked::<ArchivedEachAgentData>(body) };
        return Validated {
            data: &each.policy,
            each: Some(each),
        };
    }
    // SAFETY: the caller guarantees `body` is a validated archive of
    // `PolicyData`; rkyv's root is at the position this computes.
    let data = unsafe { rkyv::api::access_unchecked::<ArchivedPolicyData>(body) };
    Validated { data, each: None }
}

#[cfg(test)]
mod tests {
    /// A file that cannot be read keeps its `io::Error` as the source, its
    /// kind in the error's kind, and the message it always had.
    #[test]
    fn an_io_error_is_the_source() {
        use super::{FileKind, LoadErrorKind};
        use std::error::Error;
        let path = std::env::temp_dir().join("robocc-engine-no-such-file.policy");
        let e = super::read_or_map(&path, FileKind::Policy, 0)
            .err()
            .unwrap();
        assert_eq!(e.kind(), &LoadErrorKind::Io(std::io::ErrorKind::NotFound));
        let io = e
            .source()
            .unwrap()
            .downcast_ref::<std::io::Error>()
            .unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        let want = format!("{}: cannot read policy: {io}", path.display());
        assert_eq!(e.to_string(), want);
        // Clone and equality keep working.
        assert_eq!(e.clone(), e);
        let other = super::LoadError::invalid(FileKind::Policy, "x");
        assert!(other.source().is_none());
    }

    /// A failed mapping for want of mappings says so: the file is not
    /// damaged (stores audit F5).
    #[cfg(unix)]
    #[test]
    fn an_enomem_mapping_names_the_process_limit() {
        let e = std::io::Error::from_raw_os_error(libc::ENOMEM);
        let m = super::map_error(&e);
        assert!(m.contains("vm.max_map_count"), "{m}");
        assert!(m.contains("the file itself was not read"), "{m}");
        let e = std::io::Error::from_raw_os_error(libc::ENODEV);
        assert!(!super::map_error(&e).contains("vm.max_map_count"));
    }
}
