//! A store's on-disk layout: the index archive, the 64-byte host slots and
//! their check words, policy records and the prefetch hints a slot holds
//! (docs/artifact.md, "Stores"). What both the writer and the reader must
//! agree on, and nothing else.

use crate::artifact::ArchivedPolicyData;
use crate::format;

use rkyv::Archive;
#[cfg(feature = "build")]
use rkyv::{Deserialize, Serialize};

pub(super) const HEAD_LEN: usize = 16;
/// Bytes of a host slot: one cache line (the writer places the table on a
/// line boundary).
pub(super) const SLOT: usize = 64;
/// Where a lookup asks for the class map's printable ASCII entries
/// (0x20..0x80, a path's bytes), past the map's hinted start: the hint
/// rounds the start down to 16 bytes, so the entries lie 0x20..0x8f past
/// it, on at most three lines, and these three addresses fall one in each.
pub(super) const CLASS_LINES: [usize; 3] = [0x20, 0x58, 0x8f];

/// Where a slot's policy hints start (see [`slot_hints`]).
pub(super) const SLOT_HINTS: usize = 22;
/// Bytes of a slot's policy hints.
pub(super) const HINTS: usize = 16;
/// Where the inline key starts in a slot.
pub(super) const SLOT_KEY: usize = SLOT_HINTS + HINTS;
/// Longest key held in its slot; a longer one is in the strings.
pub(super) const INLINE_KEY: usize = SLOT - SLOT_KEY;
/// A policy record: offset `u64`, length `u32`, check word `u32`.
pub(super) const POLICY_REC: usize = 16;
/// Bytes of the check word after a host's strings (when it has any).
pub(super) const STRINGS_CHECK: usize = 4;
/// The archived index of a store (internal: written by
/// [`write_store`](super::write_store), read by [`Store`](super::Store)).
#[derive(Archive, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "build", derive(Serialize, Deserialize))]
#[cfg_attr(not(feature = "build"), allow(dead_code))]
pub(crate) struct StoreIndex {
    /// The slot table: `homes` slots or a few more (the last runs may spill
    /// past the end), [`SLOT`] bytes each. First, so that it starts where
    /// the archive does, on a cache line.
    pub slots: Vec<u8>,
    /// Keys longer than [`INLINE_KEY`] bytes, and fetch times.
    pub strings: Vec<u8>,
    /// Policy records, [`POLICY_REC`] bytes each.
    pub policies: Vec<u8>,
    /// The product token every policy was compiled for (several joined by `,`).
    pub agent: String,
    /// [`Dialect`](crate::Dialect) every policy was compiled with.
    pub dialect: u8,
    /// `robocc-compiler` version that built the store.
    pub compiler_version: String,
    /// The policies' common options fingerprint.
    pub options_hash: u64,
    /// Hosts in the slot table.
    pub host_count: u64,
    /// [`home_slots`]`(host_count)`, stated so that a corrupted count is
    /// refused at open rather than sending lookups to the wrong slots.
    pub homes: u64,
    /// The slot hash's seed: the first of four fixed values under which no
    /// record lies more than [`MAX_PROBE`] slots past its home.
    pub seed: u64,
    /// [`index_check`] of the fields above and the tables' lengths,
    /// compared at open: a flipped count, seed or length would send every
    /// lookup to the wrong slots or cut the table short.
    pub check: u64,
}
/// Home slots for `hosts` hosts: a load of 4/5, so that a record lies on
/// average about two slots past its home and a lookup reads one or two
/// cache lines.
pub(super) fn home_slots(hosts: usize) -> usize {
    (hosts + hosts / 4).max(1)
}

/// Farthest a record may lie past its home slot. Slot hashes are uniform
/// (a million real-shaped keys: at most 26), so only colliding hashes could
/// come near; a lookup that scans farther has met a corrupted table.
pub const MAX_PROBE: usize = 1024;

/// The home slot of a hash among `homes`: its top 32 bits scaled (so that
/// records sorted by hash are sorted by home).
#[inline]
pub(super) fn home_of(top: u32, homes: usize) -> usize {
    ((u64::from(top) * homes as u64) >> 32) as usize
}
/// A host slot as decoded (all but the check word and the inline key).
pub(super) struct Slot {
    /// The top 32 bits of the key's slot hash (they name the home slot).
    pub(super) hash: u32,
    pub(super) policy: u32,
    /// Where the key (when longer than [`INLINE_KEY`]) and then the fetch
    /// time start in the strings.
    pub(super) strings: u32,
    pub(super) status: u16,
    /// 0: an empty slot (all its bytes are 0).
    pub(super) key_len: u16,
    pub(super) fetched_len: u8,
    pub(super) source: u8,
}

pub(super) fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

pub(super) fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

pub(super) fn le_u16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

impl Slot {
    pub(super) fn decode(b: &[u8]) -> Slot {
        Slot {
            hash: le_u32(&b[4..]),
            policy: le_u32(&b[8..]),
            strings: le_u32(&b[12..]),
            status: le_u16(&b[16..]),
            key_len: le_u16(&b[18..]),
            fetched_len: b[20],
            source: b[21],
        }
    }

    /// The slot's bytes, with its policy's `hints` ([`slot_hints`]) and
    /// `key` inline when it fits; the check word is written once the slot
    /// has its place ([`slot_check`]).
    #[cfg(feature = "build")]
    pub(super) fn encode(&self, hints: &[u8; HINTS], key: &[u8]) -> [u8; SLOT] {
        let mut b = [0u8; SLOT];
        b[4..8].copy_from_slice(&self.hash.to_le_bytes());
        b[8..12].copy_from_slice(&self.policy.to_le_bytes());
        b[12..16].copy_from_slice(&self.strings.to_le_bytes());
        b[16..18].copy_from_slice(&self.status.to_le_bytes());
        b[18..20].copy_from_slice(&self.key_len.to_le_bytes());
        b[20] = self.fetched_len;
        b[21] = self.source;
        b[SLOT_HINTS..SLOT_KEY].copy_from_slice(hints);
        if key.len() <= INLINE_KEY {
            b[SLOT_KEY..SLOT_KEY + key.len()].copy_from_slice(key);
        }
        b
    }

    /// The home slot among `homes`.
    pub(super) fn home(&self, homes: usize) -> usize {
        home_of(self.hash, homes)
    }

    /// Bytes of the strings before the fetch time: the key when it is not
    /// inline.
    pub(super) fn key_in_strings(&self) -> usize {
        let len = usize::from(self.key_len);
        if len > INLINE_KEY {
            len
        } else {
            0
        }
    }

    /// Bytes of this host's strings (long key, fetch time), without their
    /// check word.
    pub(super) fn strings_len(&self) -> usize {
        self.key_in_strings() + usize::from(self.fetched_len)
    }

    /// Bytes of this host's strings with their check word (none when it
    /// has no strings).
    pub(super) fn strings_span(&self) -> usize {
        match self.strings_len() {
            0 => 0,
            n => n + STRINGS_CHECK,
        }
    }
}

/// `G`: the check words' multipliers are its odd multiples.
pub(super) const CHECK_G: u32 = 0x9e37_79b9;
/// The multiplier of a slot's or policy record's position.
pub(super) const CHECK_POS: u32 = 0x85eb_ca6b;

/// The multiplier of word `k` in a check word: `G × (2k + 1)`, odd, so
/// that `w ↦ w × m` is a bijection of 32-bit words.
#[inline(always)]
pub(super) const fn check_mul(k: usize) -> u32 {
    CHECK_G.wrapping_mul(2 * k as u32 + 1)
}

/// The check word of slot bytes `s` at position `i`: `i × P + Σ wₖ × mₖ`
/// (mod 2³²) over the slot's 4-byte little-endian words `wₖ` after the
/// first (which holds it). Each term is a bijection of its word, so any
/// change within one aligned 4-byte word (any flip of one byte) changes
/// the sum: a lookup that verifies a slot sees every such flip, and a slot
/// read at another position than its own (a shifted table) fails too.
#[inline(always)]
pub(super) fn slot_check(s: &[u8; SLOT], i: usize) -> u32 {
    let mut c = (i as u32).wrapping_mul(CHECK_POS);
    let mut k = 1;
    while k < SLOT / 4 {
        let w = u32::from_le_bytes([s[4 * k], s[4 * k + 1], s[4 * k + 2], s[4 * k + 3]]);
        c = c.wrapping_add(w.wrapping_mul(check_mul(k)));
        k += 1;
    }
    c
}

/// The check word of a host's strings (its long key, then its fetch time):
/// `Σ wₖ × mₖ` over their 4-byte little-endian words, the last one
/// zero-padded (the same argument as [`slot_check`]; their place and
/// length are in the slot, which has its own).
pub(super) fn strings_check(bytes: &[u8]) -> u32 {
    bytes.chunks(4).enumerate().fold(0u32, |c, (k, w)| {
        let mut word = [0u8; 4];
        word[..w.len()].copy_from_slice(w);
        c.wrapping_add(u32::from_le_bytes(word).wrapping_mul(check_mul(k)))
    })
}

/// The check word of policy record `i` (`rec`: its 16 bytes):
/// `i × P + Σ wₖ × mₖ` over its first three 4-byte words (offset, length).
#[inline]
pub(super) fn record_check(rec: &[u8], i: usize) -> u32 {
    (0..3).fold((i as u32).wrapping_mul(CHECK_POS), |c, k| {
        c.wrapping_add(le_u32(&rec[4 * k..]).wrapping_mul(check_mul(k)))
    })
}

/// What the index states besides its tables, and the tables' lengths,
/// checksummed (`format::frame_checksum` of their little-endian bytes, the
/// texts after their lengths): compared at open.
#[allow(clippy::too_many_arguments)]
pub(super) fn index_check(
    agent: &str,
    dialect: u8,
    compiler_version: &str,
    options_hash: u64,
    host_count: u64,
    homes: u64,
    seed: u64,
    tables: [usize; 3],
) -> u64 {
    let mut b = Vec::with_capacity(96 + agent.len() + compiler_version.len());
    let words = [
        host_count,
        homes,
        seed,
        options_hash,
        u64::from(dialect),
        tables[0] as u64,
        tables[1] as u64,
        tables[2] as u64,
        agent.len() as u64,
        compiler_version.len() as u64,
    ];
    for w in words {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(agent.as_bytes());
    b.extend_from_slice(compiler_version.as_bytes());
    format::frame_checksum(&b)
}
/// Slot hash seeds a writer tries, in order, before it gives up on keys
/// whose hashes pile up past [`MAX_PROBE`]: keys chosen to collide under one
/// seed do not under the next. Far apart in bits, so that no single
/// corrupted byte turns one into another (open refuses any other value).
pub(super) const SEEDS: [u64; 4] = [
    0,
    0x9e37_79b9_7f4a_7c15,
    0x3c6e_f372_fe94_f82a,
    0xdaa6_6d2c_7ddf_743f,
];

/// The prefetch hints a slot holds for the policy artifact `bytes` that
/// lies at `off` in the store's body: `off` and the length (`u32` each),
/// then where a check starts reading, in 16-byte units from the policy's
/// first byte (`u16` each): the automaton table, the outcome table, the
/// first automaton's class map and its program (0 where there is none,
/// where it lies 1 MiB or more in, or when the bytes are not a valid
/// policy). A lookup asks for all these lines together with the policy's
/// record, as soon as it has the slot.
#[cfg(feature = "build")]
pub(super) fn slot_hints(off: usize, bytes: &[u8]) -> [u8; HINTS] {
    hints_of(
        off,
        bytes,
        crate::load::validate_policy(bytes).ok().map(|v| v.data),
    )
}

/// [`slot_hints`] of `bytes`, whose archive `data` is (`None`: not a valid
/// policy).
pub(super) fn hints_of(off: usize, bytes: &[u8], data: Option<&ArchivedPolicyData>) -> [u8; HINTS] {
    let mut h = [0u8; HINTS];
    let word = |v: usize| u32::try_from(v).unwrap_or(0).to_le_bytes();
    h[0..4].copy_from_slice(&word(off));
    h[4..8].copy_from_slice(&word(bytes.len()));
    let Some(data) = data else {
        return h;
    };
    let base = bytes.as_ptr() as usize;
    let units = |p: *const u8| {
        (p as usize)
            .checked_sub(base)
            .and_then(|o| u16::try_from(o / 16).ok())
            .unwrap_or(0)
    };
    let first = data.automata.first();
    let at = [
        units(data.automata.as_ptr().cast()),
        units(data.outcomes.as_ptr().cast()),
        first.map_or(0, |a| units(a.classes.as_ptr())),
        first.map_or(0, |a| units(a.prog.as_ptr())),
    ];
    for (k, v) in at.iter().enumerate() {
        h[8 + 2 * k..10 + 2 * k].copy_from_slice(&v.to_le_bytes());
    }
    h
}

#[cfg(test)]
mod tests {
    use super::CLASS_LINES;
    use crate::format::CACHE_LINE;

    /// Wherever a policy puts its class map (any place in a line, its
    /// hinted start up to 15 bytes before it), the lines a lookup asks for
    /// hold every printable ASCII entry a path's walk reads.
    #[test]
    fn class_lines_cover_printable_ascii_at_any_placement() {
        for hinted in 0..CACHE_LINE {
            for behind in 0..16 {
                let asked: Vec<usize> = CLASS_LINES
                    .iter()
                    .map(|p| (hinted + p) / CACHE_LINE)
                    .collect();
                for b in 0x20..0x80 {
                    let line = (hinted + behind + b) / CACHE_LINE;
                    assert!(asked.contains(&line), "{hinted} {behind} {b:#x}");
                }
            }
        }
    }
}
