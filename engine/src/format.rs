//! What every robocc file starts with, shared by the readers and writers of
//! each kind: magic numbers, format versions, the 32-byte frame and its
//! checksum, alignment. A leaf: it imports no other module of the crate,
//! so that policies, stores and store sets can all name [`FileKind`]
//! without importing each other. docs/artifact.md is normative.

/// First eight bytes of every single-policy artifact.
pub const POLICY_MAGIC: [u8; 8] = *b"ROBOCC\0P";
/// Single-policy artifact format version written by this crate and the only
/// one it reads.
///
/// Bump it on any change to the archived policy layout, to the automaton
/// program or to the meaning of a field.
pub const POLICY_FORMAT_VERSION: u32 = 7;
/// Format version of the *each-agent* variant of a policy artifact (same
/// magic): one automaton whose outcomes hold a column of words per distinct
/// agent rule set, or each column's own automata, and the agent → column
/// table ([`crate::artifact::EachAgentData`]). A policy for one agent (or
/// several read together) is always written as [`POLICY_FORMAT_VERSION`],
/// so its bytes do not change.
pub const EACH_AGENT_FORMAT_VERSION: u32 = 9;
/// First eight bytes of every store.
pub const STORE_MAGIC: [u8; 8] = *b"ROBOCC\0S";
/// Store format version written and read by this crate.
pub const STORE_FORMAT_VERSION: u32 = 11;
/// First eight bytes of a store set's index (its first line is
/// `robocc-store-set VERSION`).
pub const SET_MAGIC: [u8; 8] = *b"robocc-s";
/// Store set format version written and read by this crate.
pub const STORE_SET_FORMAT_VERSION: u32 = 1;

/// Size of the frame before the archive: magic (8 bytes), format version
/// (4), length of what follows (4), its checksum (8), zero (8).
pub const FRAME_LEN: usize = 32;
/// Alignment the archive needs (the frame keeps it when the buffer is aligned).
pub const ARCHIVE_ALIGN: usize = 16;
/// Largest body a frame can announce.
pub const MAX_FRAMED_LEN: usize = u32::MAX as usize;
/// Bytes of a cache line (a store's host slot is one).
pub const CACHE_LINE: usize = 64;

/// What kind of robocc file a frame announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A single compiled policy (`robocc compile`).
    Policy,
    /// A store of many hosts' policies (`robocc store build`).
    Store,
    /// The index of a store set (`robocc store build --shards N`): a text
    /// file whose first line is `robocc-store-set VERSION`.
    StoreSet,
}

impl FileKind {
    /// Magic bytes of this kind.
    pub fn magic(self) -> [u8; 8] {
        match self {
            FileKind::Policy => POLICY_MAGIC,
            FileKind::Store => STORE_MAGIC,
            FileKind::StoreSet => SET_MAGIC,
        }
    }

    /// Format version this engine reads and writes for this kind.
    pub fn version(self) -> u32 {
        match self {
            FileKind::Policy => POLICY_FORMAT_VERSION,
            FileKind::Store => STORE_FORMAT_VERSION,
            FileKind::StoreSet => STORE_SET_FORMAT_VERSION,
        }
    }

    /// "policy", "store" or "store set".
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Policy => "policy",
            FileKind::Store => "store",
            FileKind::StoreSet => "store set",
        }
    }

    /// The kind whose magic `bytes` start with, if any (a cheap sniff: reads
    /// 8 bytes).
    pub fn sniff(bytes: &[u8]) -> Option<FileKind> {
        [FileKind::Policy, FileKind::Store, FileKind::StoreSet]
            .into_iter()
            .find(|k| bytes.starts_with(&k.magic()))
    }
}

/// Writes the frame for `body`, the bytes of `kind` that follow it (with
/// the `build` feature: for writers).
///
/// # Panics
///
/// When `body` does not fit the frame's 32-bit length (writers check
/// [`MAX_FRAMED_LEN`] first).
#[cfg(feature = "build")]
pub fn frame(kind: FileKind, body: &[u8]) -> [u8; FRAME_LEN] {
    frame_version(kind, kind.version(), body)
}

/// [`frame`] with another format `version` of `kind` (the each-agent
/// variant of a policy, [`EACH_AGENT_FORMAT_VERSION`]).
///
/// # Panics
///
/// As [`frame`].
#[cfg(feature = "build")]
pub fn frame_version(kind: FileKind, version: u32, body: &[u8]) -> [u8; FRAME_LEN] {
    let mut f = [0u8; FRAME_LEN];
    f[..8].copy_from_slice(&kind.magic());
    f[8..12].copy_from_slice(&version.to_le_bytes());
    let len = u32::try_from(body.len()).expect("framed length checked by the writer");
    f[12..16].copy_from_slice(&len.to_le_bytes());
    f[16..24].copy_from_slice(&frame_checksum(body).to_le_bytes());
    f
}

/// The checksum a frame holds of the bytes after it.
///
/// It finds a corruption that still validates — a transition turned into
/// another valid state, a rule's text — which would otherwise change
/// answers silently. Each 8-byte little-endian word `w` (the last one
/// zero-padded) steps `h = rotl((h ^ w) * K, 29)` from `h = K`, then the
/// length steps it once more (`K` = 0x9e3779b97f4a7c15). Every step is a
/// bijection of `h` for a given word, so bytes that differ from the framed
/// ones within one aligned 8-byte word (any flip of any bits of one byte)
/// always give another checksum; other damage does with probability about
/// 1 − 2⁻⁶⁴. A corruption check, not a signature: a writer that means harm
/// computes it too, and validation, not the checksum, keeps the engine safe.
pub fn frame_checksum(body: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(29);
    let mut words = body.chunks_exact(8);
    let mut h = K;
    for w in &mut words {
        h = step(h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = step(h, u64::from_le_bytes(last));
    }
    step(h, body.len() as u64)
}
