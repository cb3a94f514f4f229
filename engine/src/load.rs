//! Turning untrusted bytes into a [`Policy`](crate::Policy): frame checks,
//! rkyv validation, then the semantic checks rkyv cannot know about (every
//! transition inside its table, every outcome and rule index in range).
//!
//! After [`validate`] succeeds the check path may index tables freely: no
//! input can make it read out of bounds or panic.

use crate::artifact::{
    ArchivedPolicyData, ARCHIVE_ALIGN, FORMAT_VERSION, FRAME_LEN, MAGIC, NO_RULE,
};
use std::fmt;

/// Why an artifact was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    kind: LoadErrorKind,
    path: Option<String>,
    /// "policy" or "store", for the message.
    what: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum LoadErrorKind {
    Io(String),
    TooShort(usize),
    BadMagic,
    Version { found: u32, supported: u32 },
    BigEndian,
    Length { declared: u64, available: usize },
    Misaligned(usize),
    Archive(String),
    Invalid(String),
}

impl LoadError {
    pub(crate) fn invalid(msg: impl Into<String>) -> LoadError {
        LoadError::new(LoadErrorKind::Invalid(msg.into()))
    }

    fn new(kind: LoadErrorKind) -> LoadError {
        LoadError {
            kind,
            path: None,
            what: "policy",
        }
    }

    pub(crate) fn io(err: std::io::Error) -> LoadError {
        LoadError::new(LoadErrorKind::Io(err.to_string()))
    }

    /// Attaches the file the bytes came from, for the message.
    pub fn with_path(mut self, path: impl Into<String>) -> LoadError {
        self.path = Some(path.into());
        self
    }

    /// Marks the error as about a policy store (for the message).
    pub(crate) fn for_store(mut self) -> LoadError {
        self.what = "store";
        self
    }

    /// True when the artifact is of a format version this engine does not read.
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
        let w = self.what;
        match &self.kind {
            LoadErrorKind::Io(e) => write!(f, "cannot read {w}: {e}"),
            LoadErrorKind::TooShort(n) => write!(
                f,
                "not a robocc {w}: {n} bytes is shorter than the {FRAME_LEN}-byte header \
                 (truncated file? rebuild it with robocc)"
            ),
            LoadErrorKind::BadMagic => write!(
                f,
                "not a robocc {w}: wrong magic bytes (is this a robots.txt, or a {}? \
                 use --robots, --policy or --store to match the file)",
                if w == "store" {
                    "single policy"
                } else {
                    "policy store"
                }
            ),
            LoadErrorKind::Version { found, supported } => write!(
                f,
                "unsupported {w} format version {found}: this engine reads version \
                 {supported} only (rebuild the {w} with a matching robocc)"
            ),
            LoadErrorKind::BigEndian => write!(
                f,
                "{w} written in big-endian byte order: this engine reads little-endian \
                 artifacts only (rebuild the {w} with this robocc)"
            ),
            LoadErrorKind::Length {
                declared,
                available,
            } => write!(
                f,
                "truncated or padded {w}: header declares {declared} archive bytes but \
                 {available} follow it (rebuild or re-copy the file)"
            ),
            LoadErrorKind::Misaligned(addr) => write!(
                f,
                "{w} bytes start at address {addr:#x}, not aligned to {ARCHIVE_ALIGN} bytes \
                 (load the file with open(), or copy it into an aligned buffer)"
            ),
            LoadErrorKind::Archive(e) => write!(
                f,
                "corrupted {w}: archive validation failed: {e} (rebuild the {w})"
            ),
            LoadErrorKind::Invalid(e) => {
                write!(f, "corrupted {w}: {e} (rebuild the {w})")
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Checks the frame and returns the archive bytes it announces.
pub(crate) fn unframe<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    version: u32,
) -> Result<&'a [u8], LoadError> {
    if bytes.len() < FRAME_LEN {
        return Err(LoadError::new(LoadErrorKind::TooShort(bytes.len())));
    }
    if &bytes[..8] != magic {
        return Err(LoadError::new(LoadErrorKind::BadMagic));
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if found != version {
        // The frame is little-endian; a byte-swapped version means the
        // writer used the other byte order, and every offset is swapped too.
        let kind = if found == version.swap_bytes() {
            LoadErrorKind::BigEndian
        } else {
            LoadErrorKind::Version {
                found,
                supported: version,
            }
        };
        return Err(LoadError::new(kind));
    }
    let declared = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
    let body = &bytes[FRAME_LEN..];
    if declared as usize != body.len() {
        return Err(LoadError::new(LoadErrorKind::Length {
            declared: u64::from(declared),
            available: body.len(),
        }));
    }
    if (body.as_ptr() as usize) % ARCHIVE_ALIGN != 0 {
        return Err(LoadError::new(LoadErrorKind::Misaligned(
            body.as_ptr() as usize
        )));
    }
    Ok(body)
}

/// Writes the frame for an archive of `len` bytes.
pub fn frame(magic: &[u8; 8], version: u32, len: usize) -> [u8; FRAME_LEN] {
    let mut f = [0u8; FRAME_LEN];
    f[..8].copy_from_slice(magic);
    f[8..12].copy_from_slice(&version.to_le_bytes());
    let len = u32::try_from(len).expect("artifacts are smaller than 4 GiB");
    f[12..16].copy_from_slice(&len.to_le_bytes());
    f
}

/// Validates the archive structure with rkyv's checker.
pub(crate) fn access_archive<T>(body: &[u8]) -> Result<&T, LoadError>
where
    T: rkyv::Portable
        + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, rkyv::rancor::Error>>,
{
    rkyv::access::<T, rkyv::rancor::Error>(body)
        .map_err(|e| LoadError::new(LoadErrorKind::Archive(e.to_string())))
}

/// Validates a whole single-policy artifact.
pub(crate) fn validate(bytes: &[u8]) -> Result<&ArchivedPolicyData, LoadError> {
    let body = unframe(bytes, &MAGIC, FORMAT_VERSION)?;
    let data = access_archive::<ArchivedPolicyData>(body)?;
    check_semantics(data)?;
    Ok(data)
}

/// The invariants the check path relies on.
pub(crate) fn check_semantics(data: &ArchivedPolicyData) -> Result<(), LoadError> {
    let channels = data.header.channels.len();
    if channels == 0 || channels > 64 {
        return Err(LoadError::invalid(format!(
            "{channels} usage channels (expected 1 to 64)"
        )));
    }
    if data.outcomes.is_empty() || data.outcomes.len() % channels != 0 {
        return Err(LoadError::invalid(format!(
            "outcome table has {} entries, not a positive multiple of {channels} channels",
            data.outcomes.len()
        )));
    }
    let outcome_count = data.outcomes.len() / channels;
    for (i, o) in data.outcomes.iter().enumerate() {
        let rule = o.rule.to_native();
        if rule != NO_RULE && rule as usize >= data.rules.len() {
            return Err(LoadError::invalid(format!(
                "outcome entry {i} names rule {rule} of {}",
                data.rules.len()
            )));
        }
    }
    if data.automata.is_empty() {
        return Err(LoadError::invalid("no automaton"));
    }
    let meta = &data.meta;
    let windows = meta
        .visit_times
        .iter()
        .chain(meta.request_rates.iter().filter_map(|r| r.window.as_ref()));
    for w in windows {
        if w.start.to_native() >= 1440 || w.end.to_native() >= 1440 {
            return Err(LoadError::invalid(
                "time window minute out of range 0..1440",
            ));
        }
    }
    if meta
        .request_rates
        .iter()
        .any(|r| r.documents.to_native() == 0 || r.seconds.to_native() == 0)
    {
        return Err(LoadError::invalid(
            "request rate with zero documents or seconds",
        ));
    }
    for (n, a) in data.automata.iter().enumerate() {
        let stride = a.stride.to_native() as usize;
        let len = a.trans.len();
        let bad = |what: String| LoadError::invalid(format!("automaton {n}: {what}"));
        if a.classes.len() != 256 {
            return Err(bad(format!(
                "{} byte classes (expected 256)",
                a.classes.len()
            )));
        }
        if !(2..=257).contains(&stride) {
            return Err(bad(format!("stride {stride} out of range 2..=257")));
        }
        if len == 0 || len % stride != 0 || len > u32::MAX as usize {
            return Err(bad(format!(
                "{len} transitions, not a positive multiple of stride {stride}"
            )));
        }
        if let Some(c) = a.classes.iter().find(|&&c| usize::from(c) >= stride - 1) {
            return Err(bad(format!("byte class {c} >= {}", stride - 1)));
        }
        let state_ok = |s: usize| s % stride == 0 && s < len;
        let start = a.start.to_native() as usize;
        if !state_ok(start) {
            return Err(bad(format!("start state {start} invalid")));
        }
        let first_decided = a.first_decided.to_native() as usize;
        if first_decided % stride != 0 || first_decided > len {
            return Err(bad(format!(
                "decided-state boundary {first_decided} invalid"
            )));
        }
        for (i, t) in a.trans.iter().enumerate() {
            let t = t.to_native() as usize;
            if i % stride == stride - 1 {
                if t >= outcome_count {
                    return Err(bad(format!("state {} names outcome {t}", i / stride)));
                }
            } else if !state_ok(t) {
                return Err(bad(format!("transition {i} leads to invalid state {t}")));
            }
        }
    }
    Ok(())
}

/// Memory-maps the file at `path` and validates it with `validate`; returns
/// the mapping and the validated root, every error naming `path`.
///
/// The root is `'static` only in name: the caller must keep the mapping
/// alive as long as the root is reachable, and hand out the root only
/// through borrows of the value that owns both (as `Policy` and `Store` do).
pub(crate) fn open_mapped<T: ?Sized>(
    path: &std::path::Path,
    validate: impl for<'b> FnOnce(&'b [u8]) -> Result<&'b T, LoadError>,
) -> Result<(memmap2::Mmap, &'static T), LoadError> {
    let named = |e: LoadError| e.with_path(path.display().to_string());
    let file = std::fs::File::open(path).map_err(|e| named(LoadError::io(e)))?;
    // SAFETY: the mapping is read-only; robocc never writes artifacts or
    // stores in place. A file truncated by another process while mapped can
    // raise SIGBUS: that is the documented price of mmap (docs/artifact.md).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| named(LoadError::io(e)))?;
    let root: *const T = validate(&map).map_err(named)?;
    // SAFETY: `root` points into the mapping, whose address does not change
    // when `map` is moved, and which the caller keeps alive as long as the
    // root (see above).
    Ok((map, unsafe { &*root }))
}
