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

use crate::artifact::{fnv1a64_iter, ArchivedPolicyData};
use crate::format::{self, FileKind, ARCHIVE_ALIGN, CACHE_LINE};
use crate::load::{self, LoadError, Storage, READ_SHARDS_BELOW};
use crate::policy::{prefetch, Policy, Verdict};
use crate::types::Dialect;
use crate::url::{path_parts, path_parts_after, scan_authority, PathParts};
use rkyv::{Archive, Deserialize, Serialize};
use std::cmp::Ordering;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

const HEAD_LEN: usize = 16;
/// Bytes of a host slot: one cache line (the writer places the table on a
/// line boundary).
const SLOT: usize = 64;
/// Where a lookup asks for the class map's printable ASCII entries
/// (0x20..0x80, a path's bytes), past the map's hinted start: the hint
/// rounds the start down to 16 bytes, so the entries lie 0x20..0x8f past
/// it, on at most three lines, and these three addresses fall one in each.
const CLASS_LINES: [usize; 3] = [0x20, 0x58, 0x8f];

/// Where a slot's policy hints start (see [`slot_hints`]).
const SLOT_HINTS: usize = 22;
/// Bytes of a slot's policy hints.
const HINTS: usize = 16;
/// Where the inline key starts in a slot.
const SLOT_KEY: usize = SLOT_HINTS + HINTS;
/// Longest key held in its slot; a longer one is in the strings.
const INLINE_KEY: usize = SLOT - SLOT_KEY;
/// A policy record: offset `u64`, length `u32`, check word `u32`.
const POLICY_REC: usize = 16;
/// Bytes of the check word after a host's strings (when it has any).
const STRINGS_CHECK: usize = 4;

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

/// The archived index of a store (layout, not API).
#[doc(hidden)]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct StoreIndex {
    /// The slot table: `homes` slots or a few more (the last runs may spill
    /// past the end), [`SLOT`] bytes each. First, so that it starts where
    /// the archive does, on a cache line.
    pub slots: Vec<u8>,
    /// Keys longer than [`INLINE_KEY`] bytes, and fetch times.
    pub strings: Vec<u8>,
    /// Policy records, [`POLICY_REC`] bytes each.
    pub policies: Vec<u8>,
    /// The product token every policy was compiled for.
    pub agent: String,
    /// [`Dialect`] every policy was compiled with.
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
fn home_slots(hosts: usize) -> usize {
    (hosts + hosts / 4).max(1)
}

/// Farthest a record may lie past its home slot. Slot hashes are uniform
/// (a million real-shaped keys: at most 26), so only colliding hashes could
/// come near; a lookup that scans farther has met a corrupted table.
pub const MAX_PROBE: usize = 1024;

/// The home slot of a hash among `homes`: its top 32 bits scaled (so that
/// records sorted by hash are sorted by home).
#[inline]
fn home_of(top: u32, homes: usize) -> usize {
    ((u64::from(top) * homes as u64) >> 32) as usize
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
    /// Index of the host's policy ([`Store::policy`]).
    pub policy: u32,
}

/// A host slot as decoded (all but the check word and the inline key).
struct Slot {
    /// The top 32 bits of the key's slot hash (they name the home slot).
    hash: u32,
    policy: u32,
    /// Where the key (when longer than [`INLINE_KEY`]) and then the fetch
    /// time start in the strings.
    strings: u32,
    status: u16,
    /// 0: an empty slot (all its bytes are 0).
    key_len: u16,
    fetched_len: u8,
    source: u8,
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le_u16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

impl Slot {
    fn decode(b: &[u8]) -> Slot {
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
    fn encode(&self, hints: &[u8; HINTS], key: &[u8]) -> [u8; SLOT] {
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
    fn home(&self, homes: usize) -> usize {
        home_of(self.hash, homes)
    }

    /// Bytes of the strings before the fetch time: the key when it is not
    /// inline.
    fn key_in_strings(&self) -> usize {
        let len = usize::from(self.key_len);
        if len > INLINE_KEY {
            len
        } else {
            0
        }
    }

    /// Bytes of this host's strings (long key, fetch time), without their
    /// check word.
    fn strings_len(&self) -> usize {
        self.key_in_strings() + usize::from(self.fetched_len)
    }

    /// Bytes of this host's strings with their check word (none when it
    /// has no strings).
    fn strings_span(&self) -> usize {
        match self.strings_len() {
            0 => 0,
            n => n + STRINGS_CHECK,
        }
    }
}

/// `G`: the check words' multipliers are its odd multiples.
const CHECK_G: u32 = 0x9e37_79b9;
/// The multiplier of a slot's or policy record's position.
const CHECK_POS: u32 = 0x85eb_ca6b;

/// The multiplier of word `k` in a check word: `G × (2k + 1)`, odd, so
/// that `w ↦ w × m` is a bijection of 32-bit words.
#[inline(always)]
const fn check_mul(k: usize) -> u32 {
    CHECK_G.wrapping_mul(2 * k as u32 + 1)
}

/// The check word of slot bytes `s` at position `i`: `i × P + Σ wₖ × mₖ`
/// (mod 2³²) over the slot's 4-byte little-endian words `wₖ` after the
/// first (which holds it). Each term is a bijection of its word, so any
/// change within one aligned 4-byte word (any flip of one byte) changes
/// the sum: a lookup that verifies a slot sees every such flip, and a slot
/// read at another position than its own (a shifted table) fails too.
#[inline(always)]
fn slot_check(s: &[u8; SLOT], i: usize) -> u32 {
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
fn strings_check(bytes: &[u8]) -> u32 {
    bytes.chunks(4).enumerate().fold(0u32, |c, (k, w)| {
        let mut word = [0u8; 4];
        word[..w.len()].copy_from_slice(w);
        c.wrapping_add(u32::from_le_bytes(word).wrapping_mul(check_mul(k)))
    })
}

/// The check word of policy record `i` (`rec`: its 16 bytes):
/// `i × P + Σ wₖ × mₖ` over its first three 4-byte words (offset, length).
#[inline]
fn record_check(rec: &[u8], i: usize) -> u32 {
    (0..3).fold((i as u32).wrapping_mul(CHECK_POS), |c, k| {
        c.wrapping_add(le_u32(&rec[4 * k..]).wrapping_mul(check_mul(k)))
    })
}

/// What the index states besides its tables, and the tables' lengths,
/// checksummed (`format::frame_checksum` of their little-endian bytes, the
/// texts after their lengths): compared at open.
#[allow(clippy::too_many_arguments)]
fn index_check(
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

/// Many hosts' policies, mapped from a file or held in memory.
///
/// ```no_run
/// use robocc_engine::Store;
/// let store = Store::open("hosts.store")?;       // O(1): maps and checks the header
/// match store.check(b"https://www.example.com/cart")? {
///     Some(v) => println!("allowed: {}", v.allowed),
///     None => println!("host not in the store"),
/// }
/// # Ok::<(), robocc_engine::LoadError>(())
/// ```
pub struct Store {
    storage: Storage,
    /// Offset of the index archive from the start of the whole file.
    index_at: usize,
    hosts: usize,
    /// [`home_slots`] of `hosts`.
    homes: usize,
    /// The slot hash's seed (one of [`SEEDS`]).
    seed: u64,
    /// Where the index's slot, string and policy record tables lie in the
    /// storage (found once at open: every lookup reads them).
    tables: [std::ops::Range<usize>; 3],
    /// Per policy: validated already.
    checked: Box<[AtomicBool]>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("agent", &self.agent())
            .field("hosts", &self.hosts)
            .field("policies", &self.checked.len())
            .finish()
    }
}

fn corrupt(msg: impl Into<String>) -> LoadError {
    LoadError::invalid(FileKind::Store, msg)
}

/// A slot whose check word is not its bytes'.
#[cold]
fn damaged_slot(i: usize) -> LoadError {
    corrupt(format!(
        "host slot {i} is damaged (its check word does not match)"
    ))
}

impl Store {
    /// Reads the store at `path` into memory when it is shorter than
    /// [`READ_SHARDS_BELOW`] (64 KiB), else
    /// memory-maps it, and checks its header and index (constant time in
    /// the number of hosts). A mapped store must not be replaced in place
    /// (`cp new live` can crash a reader with SIGBUS): write a new file and
    /// rename it over the old one (`mv`).
    ///
    /// # Errors
    ///
    /// Not a store, another format version, truncated, or an inconsistent
    /// index; I/O errors. Every message names `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, LoadError> {
        Store::open_reading_below(path.as_ref(), READ_SHARDS_BELOW)
    }

    /// [`Store::open`], but a file shorter than `read_below` bytes is read
    /// into memory instead of mapped (a store set's small shards: every
    /// mapping counts against the process's limit).
    pub(crate) fn open_reading_below(path: &Path, read_below: u64) -> Result<Store, LoadError> {
        let storage = load::read_or_map(path, FileKind::Store, read_below)?;
        Store::new(storage).map_err(|e| e.with_path(path.display().to_string()))
    }

    /// Copies store bytes into memory of its own (on transparent huge pages
    /// where the kernel grants them, for stores of 4 MiB or more) and
    /// checks them as [`Store::open`] does.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn from_slice(bytes: &[u8]) -> Result<Store, LoadError> {
        Store::new(load::owned_copy(bytes))
    }

    fn new(storage: Storage) -> Result<Store, LoadError> {
        let bytes = storage.bytes();
        let body = load::unframe(bytes, FileKind::Store)?;
        if body.len() < HEAD_LEN {
            return Err(corrupt("no index header"));
        }
        let (index_off, index_len) = (le_u64(&body[0..]), le_u64(&body[8..]));
        let index_ok = index_off >= HEAD_LEN as u64
            && index_off % ARCHIVE_ALIGN as u64 == 0
            && index_off.checked_add(index_len) == Some(body.len() as u64);
        if !index_ok {
            return Err(corrupt(format!(
                "index at {index_off} ({index_len} bytes) does not end the {} bytes",
                body.len()
            )));
        }
        let index_at = format::FRAME_LEN + index_off as usize;
        let index =
            load::access_archive::<ArchivedStoreIndex>(&bytes[index_at..], FileKind::Store)?;
        if Dialect::from_u8(index.dialect).is_none() {
            return Err(corrupt(format!("unknown dialect {}", index.dialect)));
        }
        if index.slots.len() % SLOT != 0 || index.policies.len() % POLICY_REC != 0 {
            return Err(corrupt(
                "slot or policy table length is not a whole number of records",
            ));
        }
        let slots = index.slots.len() / SLOT;
        let policies = index.policies.len() / POLICY_REC;
        let hosts = usize::try_from(index.host_count.to_native()).unwrap_or(usize::MAX);
        let homes = usize::try_from(index.homes.to_native()).unwrap_or(usize::MAX);
        // A record lies at most MAX_PROBE slots past a home slot; each slot's
        // own consistency is checked when a lookup reads it.
        if hosts > slots || homes != home_slots(hosts) || slots < homes || slots - homes > MAX_PROBE
        {
            return Err(corrupt(format!(
                "slot table of {slots} slots does not fit {} hosts and {} home slots",
                index.host_count, index.homes
            )));
        }
        let seed = index.seed.to_native();
        if !SEEDS.contains(&seed) {
            return Err(corrupt(format!("unknown slot hash seed {seed:#x}")));
        }
        let stated = index_check(
            index.agent.as_str(),
            index.dialect,
            index.compiler_version.as_str(),
            index.options_hash.to_native(),
            index.host_count.to_native(),
            index.homes.to_native(),
            seed,
            [index.slots.len(), index.strings.len(), index.policies.len()],
        );
        if stated != index.check.to_native() {
            return Err(corrupt(
                "the index's counts, seed or table lengths are not the ones written",
            ));
        }
        let checked = (0..policies).map(|_| AtomicBool::new(false)).collect();
        let base = bytes.as_ptr() as usize;
        let at = |p: *const u8, len: usize| p as usize - base..p as usize - base + len;
        let tables = [
            at(index.slots.as_ptr(), index.slots.len()),
            at(index.strings.as_ptr(), index.strings.len()),
            at(index.policies.as_ptr(), index.policies.len()),
        ];
        // The writer archives the three tables first, back to back (bytes
        // need no alignment): a flipped position is refused here, where a
        // shifted table would have read other bytes as slots or keys.
        if tables[0].start != index_at
            || tables[1].start != tables[0].end
            || tables[2].start != tables[1].end
        {
            return Err(corrupt(
                "the index's tables are not where the writer puts them",
            ));
        }
        Ok(Store {
            storage,
            index_at,
            hosts,
            homes,
            seed,
            tables,
            checked,
        })
    }

    fn index(&self) -> &ArchivedStoreIndex {
        // The index passed `access_archive` in `new`; re-checking it would
        // make every lookup cost O(index). Access it by position instead.
        let bytes = &self.storage.bytes()[self.index_at..];
        // SAFETY: these exact bytes passed rkyv validation in `Store::new`
        // and `Storage` never changes or moves them while `self` lives.
        unsafe { rkyv::api::access_unchecked::<ArchivedStoreIndex>(bytes) }
    }

    /// The product token every policy was compiled for.
    pub fn agent(&self) -> &str {
        self.index().agent.as_str()
    }

    /// The dialect every policy was compiled with.
    pub fn dialect(&self) -> Dialect {
        Dialect::from_u8(self.index().dialect).unwrap_or(Dialect::Rfc9309)
    }

    /// `robocc-compiler` version that built the store.
    pub fn compiler_version(&self) -> &str {
        self.index().compiler_version.as_str()
    }

    /// The policies' common options fingerprint (see
    /// [`Header::options_hash`](crate::Header::options_hash)).
    pub fn options_hash(&self) -> u64 {
        self.index().options_hash.to_native()
    }

    /// Number of hosts.
    pub fn host_count(&self) -> usize {
        self.hosts
    }

    /// Number of distinct policies.
    pub fn policy_count(&self) -> usize {
        self.checked.len()
    }

    /// Size of the store in bytes.
    pub fn len_bytes(&self) -> usize {
        self.storage.bytes().len()
    }

    /// Bytes of the index's tables: host slots (all, empty ones too), long
    /// host keys and fetch times, policy records (`robocc inspect
    /// --sizes`).
    #[doc(hidden)]
    pub fn index_sizes(&self) -> [usize; 3] {
        [
            self.tables[0].len(),
            self.tables[1].len(),
            self.tables[2].len(),
        ]
    }

    /// Where the slot table lies in the store's bytes (tests corrupt it).
    #[doc(hidden)]
    pub fn slot_table(&self) -> std::ops::Range<usize> {
        self.tables[0].clone()
    }

    /// The store's bytes (a store set checksums its shards).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// The slot table.
    #[inline]
    fn slots(&self) -> &[u8] {
        &self.storage.bytes()[self.tables[0].clone()]
    }

    /// The long host keys and fetch times.
    #[inline]
    fn strings(&self) -> &[u8] {
        &self.storage.bytes()[self.tables[1].clone()]
    }

    /// The policy records.
    #[inline]
    fn policy_records(&self) -> &[u8] {
        &self.storage.bytes()[self.tables[2].clone()]
    }

    /// Slot `i`'s bytes (`i` below the slot count).
    #[inline]
    fn slot_bytes(&self, i: usize) -> &[u8] {
        &self.slots()[i * SLOT..(i + 1) * SLOT]
    }

    /// Slot `i` decoded, once its check word is verified
    /// ([`slot_check`]).
    #[inline(always)]
    fn rec(&self, i: usize) -> Result<Slot, LoadError> {
        let s: &[u8; SLOT] = self.slot_bytes(i).try_into().expect("a slot");
        if le_u32(s) != slot_check(s, i) {
            return Err(damaged_slot(i));
        }
        Ok(Slot::decode(s))
    }

    /// The strings of the record in slot `i` (its long key, then its fetch
    /// time), once their check word is verified.
    fn strings_of(&self, i: usize, r: &Slot) -> Result<&[u8], LoadError> {
        let (start, len) = (r.strings as usize, r.strings_len());
        let all = self
            .strings()
            .get(start..start + r.strings_span())
            .ok_or_else(|| damaged_slot(i))?;
        let (bytes, check) = all.split_at(len);
        if len > 0 && le_u32(check) != strings_check(bytes) {
            return Err(corrupt(format!("the strings of host slot {i} are damaged")));
        }
        Ok(bytes)
    }

    /// The stored key of the record in slot `i` (verified).
    #[inline]
    fn key_of(&self, i: usize, r: &Slot) -> Result<&[u8], LoadError> {
        let len = usize::from(r.key_len);
        if len <= INLINE_KEY {
            return Ok(&self.slot_bytes(i)[SLOT_KEY..SLOT_KEY + len]);
        }
        Ok(&self.strings_of(i, r)?[..len])
    }

    fn info(&self, i: usize) -> Result<HostInfo<'_>, LoadError> {
        let r = self.rec(i)?;
        let bad = || corrupt(format!("host slot {i} is inconsistent"));
        fn text(b: &[u8]) -> Option<&str> {
            std::str::from_utf8(b).ok()
        }
        let key = self.key_of(i, &r)?;
        let fetched = text(&self.strings_of(i, &r)?[r.key_in_strings()..]).ok_or_else(bad)?;
        let key = text(key).filter(|k| !k.is_empty()).ok_or_else(bad)?;
        let source = HostSource::from_u8(r.source).ok_or_else(bad)?;
        if r.policy as usize >= self.checked.len() {
            return Err(bad());
        }
        Ok(HostInfo {
            key,
            source,
            status: r.status,
            fetched_at: (!fetched.is_empty()).then_some(fetched),
            policy: r.policy,
        })
    }

    /// Every host, in index order (a damaged slot is an error in its
    /// place, never a host left out).
    pub fn hosts(&self) -> impl Iterator<Item = Result<HostInfo<'_>, LoadError>> + '_ {
        (0..self.slots().len() / SLOT).filter_map(|i| match self.rec(i) {
            Ok(r) if r.key_len == 0 => None,
            Ok(_) => Some(self.info(i)),
            Err(e) => Some(Err(e)),
        })
    }

    /// The index entry of `url`'s host; `Ok(None)` when the store does not
    /// have it (or the URL has no host).
    ///
    /// # Errors
    ///
    /// The host's record is corrupted.
    pub fn host(&self, url: &[u8]) -> Result<Option<HostInfo<'_>>, LoadError> {
        let Some(key) = HostKey::of_url(url) else {
            return Ok(None);
        };
        self.host_of_key(&key, self.slot_hash(&key))
    }

    /// `key`'s slot hash in this store.
    pub(crate) fn slot_hash(&self, key: &HostKey<'_>) -> u64 {
        key.slot_hash(self.seed)
    }

    /// [`Store::host`] for a key whose [`Store::slot_hash`] is known.
    pub(crate) fn host_of_key(
        &self,
        key: &HostKey<'_>,
        hash: u64,
    ) -> Result<Option<HostInfo<'_>>, LoadError> {
        // `false`: the policy is not read.
        match self.find::<false>(key, hash)? {
            Some((i, _)) => self.info(i).map(Some),
            None => Ok(None),
        }
    }

    /// Finds the slot of `key` and its policy number. Records are sorted by
    /// hash and each lies at or after its home slot, with no empty slot
    /// between: so `key`'s is among the slots from its home on, before the
    /// first empty one or the first of a greater hash. Every slot read is
    /// verified first (its check word), since a flipped hash, length or
    /// empty slot would end the scan early and hide the host; slots that
    /// break the order are refused too, rather than answering "not here".
    /// `PREFETCH_POLICY`: ask for the policy's record and first
    /// lines on a hash match, before comparing the key (a single check or
    /// `policy_for`, which read them next; a batch asks for them once the
    /// key matched, and a host lookup never reads them).
    #[inline]
    fn find<const PREFETCH_POLICY: bool>(
        &self,
        key: &HostKey<'_>,
        hash: u64,
    ) -> Result<Option<(usize, u32)>, LoadError> {
        let want = (hash >> 32) as u32;
        let home = home_of(want, self.homes);
        let count = self.slots().len() / SLOT;
        let bad = |i: usize| Err(corrupt(format!("host slot {i} is inconsistent")));
        let mut prev = 0;
        for i in home..count.min(home + MAX_PROBE + 1) {
            let r = self.rec(i)?;
            if r.key_len == 0 {
                // Empty (as written: verified): nothing after it belongs to
                // this home.
                return Ok(None);
            }
            if r.hash < prev || r.home(self.homes) > i {
                return bad(i);
            }
            prev = r.hash;
            if r.hash > want {
                return Ok(None);
            }
            if r.hash == want {
                let s = self.slot_bytes(i);
                if PREFETCH_POLICY {
                    // The key's bytes (inline, or a miss away), the policy's
                    // record and its first lines are all needed next: fetch
                    // them together.
                    self.prefetch_policy(s, r.policy as usize);
                }
                if key.eq_stored(self.key_of(i, &r)?) {
                    return Ok(Some((i, r.policy)));
                }
            }
        }
        // The table's end (its length is checked at open), or MAX_PROBE
        // slots past this home, which no record of this home lies beyond.
        Ok(None)
    }

    /// Asks the CPU to fetch what a check of the policy of slot bytes `s`
    /// (number `i`) reads first: its record (where its bytes lie; a 16-byte
    /// record may cross a line, so both ends) and, where the slot's hints
    /// say, the policy's root record (at the end of its bytes), automaton
    /// and outcome tables, the first automaton's class map and the top of
    /// its program. All at once: read one after the other, the record and
    /// then the policy would be two trips to memory.
    ///
    /// Hints are only prefetched, never read through: a corrupted one costs
    /// time, not an answer. The record, read next, says where the policy
    /// is.
    #[inline]
    fn prefetch_policy(&self, s: &[u8], i: usize) {
        let rec = self
            .policy_records()
            .as_ptr()
            .wrapping_add(i.wrapping_mul(POLICY_REC));
        prefetch(rec);
        prefetch(rec.wrapping_add(POLICY_REC - 1));
        let h = &s[SLOT_HINTS..SLOT_KEY];
        let start = self
            .storage
            .bytes()
            .as_ptr()
            .wrapping_add(format::FRAME_LEN + le_u32(h) as usize);
        let end = start.wrapping_add(le_u32(&h[4..]) as usize);
        let size = std::mem::size_of::<ArchivedPolicyData>();
        for back in (0..size).step_by(CACHE_LINE) {
            prefetch(end.wrapping_sub(size - back));
        }
        let at = |k: usize| start.wrapping_add(16 * usize::from(le_u16(&h[8 + 2 * k..])));
        prefetch(at(0));
        prefetch(at(1));
        // The class map's printable ASCII (0x20..0x80, a path's bytes): the
        // hint rounds the map's start down to 16 bytes, so those entries lie
        // 0x20..0x8f past it, on at most three lines (two lines from the
        // hint left a path's letters out for three policies in four:
        // docs/PERFORMANCE-notes.md).
        for past in CLASS_LINES {
            prefetch(at(2).wrapping_add(past));
        }
        // Four lines of the program: the rows a walk reaches first (four
        // measured faster than two on a store of distinct policies, and
        // eight no faster than four).
        for line in 0..4 {
            prefetch(at(3).wrapping_add(CACHE_LINE * line));
        }
    }

    /// Asks the CPU to fetch the home slot of `hash` and the two after it
    /// (a record lies on average about two slots past its home, and each
    /// slot is a line).
    #[inline]
    fn prefetch_home(&self, hash: u64) {
        let at = self
            .slots()
            .as_ptr()
            .wrapping_add(SLOT * home_of((hash >> 32) as u32, self.homes));
        for slot in 0..3 {
            prefetch(at.wrapping_add(SLOT * slot));
        }
    }

    /// The verdict for `url` (absolute, with a host), or `Ok(None)` when its
    /// host is not in the store (the caller chooses what that means), or
    /// when no host can be read from `url` (no `scheme://` or `//`:
    /// `a.ex/p`, `https:a.ex/p`, `/p`; [`HostKey::of_url`] is `None` for
    /// exactly these, which tells the two apart: `robocc check --store`
    /// answers unknown for a URL without a host, whatever `--missing` says).
    /// The host is read as written: a Unicode name, which a build stores in
    /// its `xn--` form, is not found here; look it up at
    /// `robocc_compiler::store::idna_lookup_url(url)` (docs/artifact.md,
    /// "Keys"), as the CLI and the Python binding do.
    ///
    /// # Errors
    ///
    /// The host's record or policy is corrupted (the error names the host).
    #[inline]
    pub fn check(&self, url: &[u8]) -> Result<Option<Verdict>, LoadError> {
        let Some((key, end)) = HostKey::of_url_and_path(url) else {
            return Ok(None);
        };
        let parts = path_parts_after(url, end);
        // `find` asked for the policy's record and first lines (the slot's
        // hints).
        Ok(self
            .policy_of_key(&key, self.slot_hash(&key))?
            .map(|p| p.check_parts(parts)))
    }

    /// The verdicts of many URLs: `out[i]` becomes what
    /// [`Store::check`]`(urls[i])` answers (`None`: host not in the store,
    /// or no host in the URL).
    /// Only the first `min(urls.len(), out.len())` are answered. A run of
    /// URLs of the same host (as frontiers are often grouped) looks the host
    /// up once and goes through [`Policy::check_batch`]. Never allocates
    /// unless it fails.
    ///
    /// Faster than a loop over [`Store::check`] when the hosts are many:
    /// the lookups of up to 32 runs go stage by stage (home slots; keys,
    /// then the policies' records and first lines; the policies), so their
    /// memory reads overlap instead of waiting for each other
    /// (docs/PERFORMANCE.md, "Host lookup at a million hosts").
    ///
    /// # Errors
    ///
    /// The first URL whose host's record or policy is corrupted: its index
    /// and the error; the URLs before it are answered, the rest are not.
    pub fn check_batch(
        &self,
        urls: &[&[u8]],
        out: &mut [Option<Verdict>],
    ) -> Result<(), BatchError> {
        check_batch_in(urls, out, |_| Ok(self))
    }

    /// The policy of the host of `url`; `Ok(None)` as [`Store::check`] says.
    ///
    /// # Errors
    ///
    /// As [`Store::check`].
    pub fn policy_for(&self, url: &[u8]) -> Result<Option<Policy<'_>>, LoadError> {
        let Some(key) = HostKey::of_url(url) else {
            return Ok(None);
        };
        self.policy_of_key(&key, self.slot_hash(&key))
    }

    /// [`Store::policy_for`] for a key whose [`Store::slot_hash`] is known.
    pub(crate) fn policy_of_key(
        &self,
        key: &HostKey<'_>,
        hash: u64,
    ) -> Result<Option<Policy<'_>>, LoadError> {
        // `true`: the policy's lines are read next.
        let found = self.find::<true>(key, hash);
        let Some((_, policy)) = found.map_err(|e| e.with_host(key.host))? else {
            return Ok(None);
        };
        self.policy(policy as usize)
            .map(Some)
            .map_err(|e| e.with_host(key.host))
    }

    /// Policy `i`, validated on its first use.
    ///
    /// # Errors
    ///
    /// No such policy, or its bytes are corrupted.
    pub fn policy(&self, i: usize) -> Result<Policy<'_>, LoadError> {
        let flag = self
            .checked
            .get(i)
            .ok_or_else(|| corrupt(format!("no policy {i}")))?;
        let bytes = self.policy_bytes(i)?;
        if flag.load(AtomicOrdering::Acquire) {
            // SAFETY: the flag is set (with Release) only after these exact
            // bytes passed `validate_policy` below; `Storage` never changes
            // them while `self` lives.
            return Ok(Policy::from_validated(unsafe {
                load::trusted_policy(bytes)
            }));
        }
        let data = load::validate_policy(bytes).map_err(|e| e.in_store(i))?;
        flag.store(true, AtomicOrdering::Release);
        Ok(Policy::from_validated(data))
    }

    /// Policy `i` as a complete artifact (frame and archive), validated: a
    /// builder copies it into a new store when its source is unchanged.
    ///
    /// # Errors
    ///
    /// As [`Store::policy`].
    pub fn policy_artifact(&self, i: usize) -> Result<&[u8], LoadError> {
        self.policy(i)?;
        self.policy_bytes(i)
    }

    fn policy_bytes(&self, i: usize) -> Result<&[u8], LoadError> {
        let rec = self
            .policy_records()
            .get(i * POLICY_REC..(i + 1) * POLICY_REC)
            .ok_or_else(|| corrupt(format!("no policy {i}")))?;
        // Checked on every use: a flipped offset could otherwise lead to
        // another valid policy of the same length.
        if le_u32(&rec[12..]) != record_check(rec, i) {
            return Err(corrupt(format!(
                "the record of policy {i} is damaged (its check word does not match)"
            )));
        }
        let (off, len) = (le_u64(rec), u64::from(le_u32(&rec[8..])));
        let start = (format::FRAME_LEN as u64).checked_add(off);
        let end = start.and_then(|s| s.checked_add(len));
        match (start, end) {
            (Some(s), Some(e))
                if off >= HEAD_LEN as u64
                    && off % ARCHIVE_ALIGN as u64 == 0
                    && e <= self.index_at as u64 =>
            {
                Ok(&self.storage.bytes()[s as usize..e as usize])
            }
            _ => Err(corrupt(format!("policy {i} lies outside the policy area"))),
        }
    }

    /// Validates every policy now and compares the whole file with its
    /// checksum (a full check of the file, O(size); `inspect` and tests
    /// use it). Lookups check each policy's own checksum on its first use,
    /// but only this finds a flipped slot that still reads as a host.
    ///
    /// # Errors
    ///
    /// The first policy or host record that is corrupted, or a file whose
    /// bytes are not the ones written ([`LoadErrorKind::Checksum`]).
    ///
    /// [`LoadErrorKind::Checksum`]: crate::LoadErrorKind::Checksum
    pub fn validate_all(&self) -> Result<(), LoadError> {
        let mut hints = Vec::with_capacity(self.policy_count());
        for i in 0..self.policy_count() {
            let data = self.policy(i)?.data;
            let bytes = self.policy_bytes(i)?;
            let off = bytes.as_ptr() as usize - self.bytes().as_ptr() as usize - format::FRAME_LEN;
            hints.push(hints_of(off, bytes, Some(data)));
        }
        // Every record where a lookup looks for it: sorted by hash then
        // key, each at its home slot or right after the record before it,
        // and no more than MAX_PROBE slots past its home.
        let mut prev: Option<(u32, &str, usize)> = None;
        let (mut hosts, mut strings) = (0, 0);
        for i in 0..self.slots().len() / SLOT {
            let r = self.rec(i)?;
            if r.key_len == 0 {
                // All zero but the check word.
                if self.slot_bytes(i)[4..].iter().any(|&b| b != 0) {
                    return Err(corrupt(format!("host slot {i} is inconsistent")));
                }
                continue;
            }
            hosts += 1;
            let info = self.info(i)?;
            // Nothing the format leaves unused may hold anything: the
            // inline key's padding, and strings outside the records' own.
            // The hints are the policy's (a lookup only prefetches them).
            let inline = usize::from(r.key_len) - r.key_in_strings();
            let slot = self.slot_bytes(i);
            if slot[SLOT_KEY + inline..].iter().any(|&b| b != 0)
                || r.strings as usize != strings
                || hints.get(info.policy as usize).map(|h| &h[..])
                    != Some(&slot[SLOT_HINTS..SLOT_KEY])
            {
                return Err(corrupt(format!("host slot {i} is inconsistent")));
            }
            strings += r.strings_span();
            let canonical = HostKey::of_key(info.key).filter(|k| k.to_key() == info.key);
            let Some(k) = canonical else {
                return Err(corrupt(format!("host {:?} is not a stored key", info.key)));
            };
            let hash = (self.slot_hash(&k) >> 32) as u32;
            if hash != r.hash {
                return Err(corrupt(format!("host {} has a wrong hash", info.key)));
            }
            if prev.is_some_and(|p| (p.0, p.1) >= (hash, info.key)) {
                return Err(corrupt("host index is not sorted"));
            }
            let home = r.home(self.homes);
            let at = prev.map_or(home, |p| home.max(p.2 + 1));
            if i != at || i - home > MAX_PROBE {
                return Err(corrupt(format!(
                    "host {} is in slot {i}, not where a lookup finds it",
                    info.key
                )));
            }
            prev = Some((hash, info.key, i));
        }
        if hosts != self.hosts || strings != self.strings().len() {
            return Err(corrupt(format!(
                "the slot table holds {hosts} hosts and {strings} bytes of strings, the index says {} and {}",
                self.hosts,
                self.strings().len()
            )));
        }
        // Last, as for a policy: a structural error says more.
        load::verify_checksum(self.bytes(), FileKind::Store)
    }
}

/// [`Store::check_batch`] over the stores `store_of(key)` names (one
/// store, or the shards of a set): up to 32 runs of one host each are
/// looked up stage by stage. Each stage reads what the one before asked the
/// CPU to fetch and asks for what the next one reads, so the memory reads
/// of different hosts overlap instead of waiting for each other.
pub(crate) fn check_batch_in<'s>(
    urls: &[&[u8]],
    out: &mut [Option<Verdict>],
    store_of: impl Fn(&HostKey<'_>) -> Result<&'s Store, LoadError>,
) -> Result<(), BatchError> {
    /// Runs looked up together.
    const RUNS: usize = 32;
    /// A run's lookup, stage by stage.
    #[derive(Clone, Copy)]
    enum Lane<'s, 'u> {
        /// No host, or not in the store.
        Absent,
        /// Store, key, hash, and where the first URL's path starts.
        Hashed(&'s Store, HostKey<'u>, u64, usize),
        /// The host's slot is found: its store, key (for an error's host),
        /// policy number, and path.
        Slot(&'s Store, HostKey<'u>, u32, usize),
        Found(Policy<'s>, usize),
    }
    /// Keeps the error of the first run that failed.
    fn fail(r: usize, e: LoadError, failed: &mut Option<(usize, LoadError)>) {
        if failed.as_ref().is_none_or(|f| r < f.0) {
            *failed = Some((r, e));
        }
    }
    let n = urls.len().min(out.len());
    let mut verdicts = [Verdict {
        allowed: true,
        rule: None,
    }; 64];
    let mut lanes = [(0, 0, Lane::Absent); RUNS];
    let mut next = 0;
    // Each URL's key is read once: the one that ends a run starts the next.
    let mut key = urls[..n].first().and_then(|u| HostKey::of_url_and_path(u));
    while next < n {
        // The first run whose lookup failed: nothing from it on is answered.
        let mut failed: Option<(usize, LoadError)> = None;
        let mut count = 0;
        while next < n && count < RUNS {
            let start = next;
            let mut end = start + 1;
            let mut following = None;
            if let Some((k, _)) = key {
                while end < n && end - start < verdicts.len() {
                    following = HostKey::of_url_and_path(urls[end]);
                    if following.map(|f| f.0) != Some(k) {
                        break;
                    }
                    following = None;
                    end += 1;
                }
            }
            let lane = match key {
                None => Lane::Absent,
                Some((k, path)) => match store_of(&k) {
                    Ok(store) => {
                        let h = store.slot_hash(&k);
                        store.prefetch_home(h);
                        Lane::Hashed(store, k, h, path)
                    }
                    Err(e) => {
                        fail(count, e, &mut failed);
                        Lane::Absent
                    }
                },
            };
            lanes[count] = (start, end, lane);
            count += 1;
            next = end;
            key = match following {
                Some(f) => Some(f),
                None if next < n => HostKey::of_url_and_path(urls[next]),
                None => None,
            };
        }
        let lanes = &mut lanes[..count];
        // The slots, whose lines were asked for above; ask for the policy
        // records and, as the slots' hints say, the policies' first lines.
        for (r, lane) in lanes.iter_mut().enumerate() {
            if let Lane::Hashed(store, k, h, path) = lane.2 {
                // `false`: the policy's lines are asked for here, once the
                // key matched.
                match store.find::<false>(&k, h) {
                    Ok(None) => lane.2 = Lane::Absent,
                    Ok(Some((i, policy))) => {
                        store.prefetch_policy(store.slot_bytes(i), policy as usize);
                        lane.2 = Lane::Slot(store, k, policy, path);
                    }
                    Err(e) => fail(r, e.with_host(k.host), &mut failed),
                }
            }
        }
        // Views of the policies (validated on their first use).
        for (r, lane) in lanes.iter_mut().enumerate() {
            if let Lane::Slot(store, k, policy, path) = lane.2 {
                match store.policy(policy as usize) {
                    Ok(p) => lane.2 = Lane::Found(p, path),
                    Err(e) => fail(r, e.with_host(k.host), &mut failed),
                }
            }
        }
        for (r, &(start, end, lane)) in lanes.iter().enumerate() {
            if failed.as_ref().is_some_and(|f| f.0 == r) {
                let (_, error) = failed.take().expect("checked");
                return Err(BatchError {
                    index: start,
                    error,
                });
            }
            match lane {
                // A run of one URL (hosts interleaved): its path is known,
                // and a batch's setup would cost more.
                Lane::Found(p, path) if end - start == 1 => {
                    out[start] = Some(p.check_parts(path_parts_after(urls[start], path)));
                }
                Lane::Found(p, _) => {
                    let v = &mut verdicts[..end - start];
                    p.check_batch(&urls[start..end], v);
                    for (o, v) in out[start..end].iter_mut().zip(v.iter()) {
                        *o = Some(*v);
                    }
                }
                Lane::Absent => out[start..end].fill(None),
                // Only a lane that failed stops short of `Found`, and the
                // first failed one returned above.
                Lane::Hashed(..) | Lane::Slot(..) => {
                    debug_assert!(false, "lane {r} left unfinished");
                    out[start..end].fill(None);
                }
            }
        }
    }
    Ok(())
}

/// Why [`Store::check_batch`] stopped: the URL at `index` has a corrupted
/// record or policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchError {
    /// Index of the URL in the batch.
    pub index: usize,
    /// What was wrong (it names the host).
    pub error: LoadError,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "URL {} of the batch: {}", self.index, self.error)
    }
}

impl std::error::Error for BatchError {}

/// The host part of a URL as the store keys it, borrowed: `host` is compared
/// lower-cased, `port` is present only when it is not the scheme's default.
///
/// A URL's host is read as URL parsers normalise it: one trailing dot is
/// dropped (`a.example.` is `a.example`), a port's leading zeros too
/// (`:080` is `:80`, the default of http), and an IPv6 literal is keyed in
/// its canonical form (`[2001:DB8:0:0::1]` is `[2001:db8::1]`, as
/// [`std::net::Ipv6Addr`] prints it: RFC 5952), held inline, so nothing is
/// allocated. Builders store keys in that form (docs/artifact.md, "Keys").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostKey<'a> {
    /// Host bytes as written (any case; without the dropped trailing dot).
    /// An IPv6 literal's key is its canonical form, not these bytes.
    pub host: &'a [u8],
    /// Port digits, when not the scheme default (without leading zeros).
    pub port: Option<&'a [u8]>,
    /// An IPv6 literal's canonical text (brackets included), when `host`
    /// is one.
    v6: Option<V6Text>,
}

/// The canonical text of an IPv6 literal, `[` and `]` included (at most
/// 41 bytes: eight groups of four hex digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct V6Text {
    len: u8,
    text: [u8; V6_TEXT],
}

const V6_TEXT: usize = 48;

impl V6Text {
    /// The canonical form of `host` when it is an IPv6 literal in brackets
    /// (`None` otherwise, or when what the brackets hold is not an IPv6
    /// address: such a host is keyed as written, and no builder stores it).
    fn of(host: &[u8]) -> Option<V6Text> {
        use std::io::Write;
        let inner = host.strip_prefix(b"[")?.strip_suffix(b"]")?;
        let addr: std::net::Ipv6Addr = std::str::from_utf8(inner).ok()?.parse().ok()?;
        let mut text = [0u8; V6_TEXT];
        let mut w = &mut text[..];
        write!(w, "[{addr}]").ok()?;
        let len = V6_TEXT - w.len();
        Some(V6Text {
            len: len as u8,
            text,
        })
    }

    fn bytes(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }
}

/// `port` without its leading zeros (one `0` is kept of all zeros).
#[inline]
fn trim_port_zeros(port: &[u8]) -> &[u8] {
    match port.iter().position(|&b| b != b'0') {
        Some(at) => &port[at..],
        None => &port[port.len().saturating_sub(1)..],
    }
}

/// Whether `host` is not read as an IPv4 address by the WHATWG URL standard
/// or is one written as everyone reads it: a host whose last label is a
/// number (digits, or `0x` and hex digits) is an IPv4 address there
/// (`1.2.3` is `1.2.0.3`, `0x7f.1` is `127.0.0.1`) while RFC 3986 parsers
/// read it as a name, so only four decimal parts of 0 to 255 without
/// leading zeros are both.
#[inline]
fn number_is_ipv4(host: &[u8]) -> bool {
    let last = match host.iter().rposition(|&b| b == b'.') {
        Some(dot) => &host[dot + 1..],
        None => host,
    };
    let number = match last {
        [b'0', b'x' | b'X', hex @ ..] => hex.iter().all(u8::is_ascii_hexdigit),
        _ => !last.is_empty() && last.iter().all(u8::is_ascii_digit),
    };
    if !number {
        return true;
    }
    let mut parts = 0;
    for part in host.split(|&b| b == b'.') {
        let canonical = match part {
            [b'0'] => true,
            [b'1'..=b'9', ..] if part.len() <= 3 => {
                part.iter().all(u8::is_ascii_digit) && (part.len() < 3 || part <= &b"255"[..])
            }
            _ => false,
        };
        parts += 1;
        if !canonical || parts > 4 {
            return false;
        }
    }
    parts == 4
}

/// Whether two readings of a URL's path found the same bytes.
#[inline]
fn same_start(a: PathParts<'_>, b: PathParts<'_>) -> bool {
    a.slash == b.slash
        && a.rest.len() == b.rest.len()
        && (a.rest.is_empty() || a.rest.as_ptr() == b.rest.as_ptr())
}

/// `host` without one trailing dot (an IPv6 literal's brackets keep what
/// they hold).
#[inline]
fn trim_host_dot(host: &[u8]) -> &[u8] {
    match host {
        [rest @ .., b'.'] if host.first() != Some(&b'[') => rest,
        _ => host,
    }
}

impl<'a> HostKey<'a> {
    /// Extracts the host of an absolute URL (`scheme://[user@]host[:port]…`)
    /// or of a network-path reference (`//host/…`). `None` for a bare path.
    pub fn of_url(url: &'a [u8]) -> Option<HostKey<'a>> {
        HostKey::of_url_and_path(url).map(|(k, _)| k)
    }

    /// [`HostKey::of_url`], and where the URL's authority ends (the first
    /// `/`, `?` or `#` after it, or the URL's length), which is where
    /// [`path_parts`](crate::url::path_parts) finds the path too: a URL
    /// for which Google's reading would start the path elsewhere (at a `;`
    /// inside the authority, or after a `://` that follows a `//host`) has
    /// no host here, so that host and path are never read from two
    /// different places.
    ///
    /// The host is what URL parsers agree it is (RFC 3986 and the WHATWG
    /// URL standard, hence `urllib`, `requests`, curl and browsers): what
    /// follows the last `@` of the authority. An authority they read
    /// differently gives no host: one with a backslash (a path separator to
    /// WHATWG), a space, a control byte or DEL (tab and newline are dropped
    /// by WHATWG), a `;` (where Google's path starts), a `%` or bracket in
    /// the host outside an IPv6 literal, or a port that is not a number up
    /// to 65535.
    #[inline]
    pub(crate) fn of_url_and_path(url: &'a [u8]) -> Option<(HostKey<'a>, usize)> {
        // The schemes crawlers fetch, written in lower case, skip the search
        // for `://` (the general reading gives the same key for them).
        let (scheme, from, plain_scheme) = if url.starts_with(b"https://") {
            (&url[..5], 8, true)
        } else if url.starts_with(b"http://") {
            (&url[..4], 7, true)
        } else {
            let (scheme, rest) = HostKey::scheme_and_rest(url)?;
            (scheme, url.len() - rest.len(), false)
        };
        // One pass finds where the authority ends and whether it holds
        // anything but a host; usually not, and the authority is the host.
        let (end, marked) = scan_authority(url, from);
        let end = end.unwrap_or(url.len());
        let authority = &url[from..end];
        let key = if !marked {
            let host = trim_host_dot(authority);
            if host.is_empty() || !number_is_ipv4(host) {
                return None;
            }
            HostKey {
                host,
                port: None,
                v6: None,
            }
        } else {
            let default = if scheme.eq_ignore_ascii_case(b"https") {
                Some(&b"443"[..])
            } else if scheme.eq_ignore_ascii_case(b"http") {
                Some(&b"80"[..])
            } else {
                None
            };
            HostKey::of_url_authority(authority)?.normalised(default)?
        };
        // After `http://` or `https://` Google's path starts at the first
        // `/ ? ; #`, which is `end` when the authority holds no `;` (such
        // an authority has no host above). Otherwise ask Google's reading.
        if !plain_scheme && !same_start(path_parts(url), path_parts_after(url, end)) {
            return None;
        }
        Some((key, end))
    }

    /// The host and port of a URL's authority that holds a mark
    /// ([`crate::url::is_authority_mark`]), read strictly: `None` wherever
    /// URL parsers disagree on it ([`HostKey::of_url_and_path`]).
    fn of_url_authority(authority: &'a [u8]) -> Option<HostKey<'a>> {
        if authority
            .iter()
            .any(|&b| matches!(b, b'\\' | b';' | 0x7f) || b <= b' ')
        {
            return None;
        }
        let hostport = match authority.iter().rposition(|&b| b == b'@') {
            // Brackets in the user information: urllib refuses the URL.
            Some(at) if authority[..at].iter().any(|&b| matches!(b, b'[' | b']')) => return None,
            Some(at) => &authority[at + 1..],
            None => authority,
        };
        let (host, port) = if hostport.first() == Some(&b'[') {
            let close = hostport.iter().position(|&b| b == b']')?;
            let (host, after) = hostport.split_at(close + 1);
            V6Text::of(host)?;
            match after {
                [] => (host, None),
                [b':', port @ ..] => (host, Some(port)),
                _ => return None,
            }
        } else {
            let (host, port) = match hostport.iter().position(|&b| b == b':') {
                Some(c) => (&hostport[..c], Some(&hostport[c + 1..])),
                None => (hostport, None),
            };
            if host
                .iter()
                .any(|&b| matches!(b, b'[' | b']' | b'%' | b'<' | b'>' | b'^' | b'|'))
            {
                return None;
            }
            (host, port)
        };
        // An empty port is none, as URL parsers read it.
        let port = match port.filter(|p| !p.is_empty()) {
            None => None,
            Some(p) => {
                let digits = trim_port_zeros(p);
                let number = p.iter().all(u8::is_ascii_digit)
                    && (digits.len() < 5 || (digits.len() == 5 && digits <= &b"65535"[..]));
                if !number {
                    return None;
                }
                Some(p)
            }
        };
        Some(HostKey {
            host,
            port,
            v6: None,
        })
    }

    /// The URL reading of a key split from an authority: one trailing dot
    /// dropped, the port's leading zeros (and then a default port) too, an
    /// IPv6 literal's canonical form. `None` when no host is left.
    fn normalised(mut self, default: Option<&[u8]>) -> Option<HostKey<'a>> {
        self.host = trim_host_dot(self.host);
        if self.host.is_empty() || !number_is_ipv4(self.host) {
            return None;
        }
        self.port = self
            .port
            .map(trim_port_zeros)
            .filter(|p| Some(*p) != default);
        if self.host.first() == Some(&b'[') {
            self.v6 = V6Text::of(self.host);
        }
        Some(self)
    }

    /// The scheme and what follows `://` (any scheme, any case), or an
    /// empty scheme and what follows a leading `//`.
    fn scheme_and_rest(url: &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
        match url.windows(3).position(|w| w == b"://") {
            Some(i)
                if url[..i]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)) =>
            {
                Some((&url[..i], &url[i + 3..]))
            }
            _ if url.starts_with(b"//") => Some((&b""[..], &url[2..])),
            _ => None,
        }
    }

    /// Reads a stored key (`host` or `host:port`, no scheme) as it is: the
    /// key's bytes are the stored ones, normalised or not (a store's
    /// validation compares them with the key a URL gives).
    pub fn of_key(key: &'a str) -> Option<HostKey<'a>> {
        let key = key.as_bytes();
        // Usually none of '@', ':' or ']' is there: the key is the host
        // (eight bytes at a time).
        if !any_of_at_colon_bracket(key) {
            return (!key.is_empty()).then_some(HostKey {
                host: key,
                port: None,
                v6: None,
            });
        }
        HostKey::of_marked_authority(key, None)
    }

    /// A key split from an authority known to hold an `@`, `:` or `]`.
    fn of_marked_authority(authority: &'a [u8], default: Option<&[u8]>) -> Option<HostKey<'a>> {
        // One pass from the end: the host follows the last '@'; the port
        // follows the last ':' after it, unless a ']' comes later (`[v6]`
        // keeps its colons and brackets in the host).
        let (mut start, mut colon, mut bracket, mut decided) = (0, None, false, false);
        for (i, &b) in authority.iter().enumerate().rev() {
            match b {
                b'@' => {
                    start = i + 1;
                    break;
                }
                b']' => bracket = true,
                b':' if !decided => {
                    decided = true;
                    colon = (!bracket).then_some(i);
                }
                // A second port separator (`a.example:8080:80`): not a
                // host. (Read as one, its key would be stored with the
                // port split off, and hashed otherwise.)
                b':' if colon.is_some() && !bracket => return None,
                _ => {}
            }
        }
        let (host, port) = match colon {
            Some(c) => (&authority[start..c], Some(&authority[c + 1..])),
            None => (&authority[start..], None),
        };
        if host.is_empty() {
            return None;
        }
        let port = port.filter(|p| !p.is_empty() && Some(*p) != default);
        Some(HostKey {
            host,
            port,
            v6: None,
        })
    }

    /// The host as keyed (before lower-casing): an IPv6 literal's canonical
    /// form, else the host as written.
    #[inline]
    fn key_host(&self) -> &[u8] {
        match &self.v6 {
            Some(v6) => v6.bytes(),
            None => self.host,
        }
    }

    /// The key's bytes as stored: lower-cased host, then `:port`.
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let port: &[u8] = self.port.unwrap_or(b"");
        let colon: &'static [u8] = if self.port.is_some() { b":" } else { b"" };
        self.key_host()
            .iter()
            .map(u8::to_ascii_lowercase)
            .chain(colon.iter().copied())
            .chain(port.iter().copied())
    }

    /// The store sets' partition hash of the key: FNV-1a 64 of its stored
    /// bytes, computed on the fly (docs/artifact.md, "Store sets").
    pub fn hash(&self) -> u64 {
        fnv1a64_iter(self.bytes())
    }

    /// The slot table's hash of the key (store format 8): eight bytes at a
    /// time, the host lower-cased on the way, so that a lookup does not pay
    /// FNV-1a's multiply per byte. Not the store sets' partition hash
    /// ([`HostKey::hash`]), which is documented for other languages.
    /// `seed` is the store's ([`StoreIndex::seed`]).
    #[doc(hidden)]
    #[inline]
    pub fn slot_hash(&self, seed: u64) -> u64 {
        let mut h = words_hash(SLOT_SEED ^ seed, self.key_host(), true);
        if let Some(p) = self.port {
            h = words_hash(h ^ PORT_MARK, p, false);
        }
        fold_mul(h, MIX_B)
    }

    /// Compares this key with a stored (lower-cased) key, byte by byte,
    /// without building the key.
    pub fn cmp_stored(&self, stored: &[u8]) -> Ordering {
        self.bytes().cmp(stored.iter().copied())
    }

    /// `cmp_stored(stored) == Equal` for a stored key as stores hold them
    /// (lower case; [`Store::validate_all`] refuses others), faster: URLs
    /// usually write the host in lower case already, so one `memcmp`
    /// decides.
    #[inline]
    pub fn eq_stored(&self, stored: &[u8]) -> bool {
        let key_host = self.key_host();
        let Some((host, rest)) = stored.split_at_checked(key_host.len()) else {
            return false;
        };
        let port_matches = match self.port {
            None => rest.is_empty(),
            Some(p) => rest.first() == Some(&b':') && &rest[1..] == p,
        };
        port_matches
            && (key_host == host
                || key_host
                    .iter()
                    .zip(host)
                    .all(|(a, b)| a.to_ascii_lowercase() == *b))
    }

    /// The key as stored (for builders and messages).
    pub fn to_key(&self) -> String {
        String::from_utf8_lossy(&self.bytes().collect::<Vec<u8>>()).into_owned()
    }
}

const SLOT_SEED: u64 = 0x243f_6a88_85a3_08d3;
const PORT_MARK: u64 = 0x1319_8a2e_0370_7344;
const MIX_A: u64 = 0xa409_3822_299f_31d0;
const MIX_B: u64 = 0x082e_fa98_ec4e_6c89;

/// The 128-bit product's halves folded together: every input bit reaches
/// the middle bits of the result.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// ASCII upper-case letters of a little-endian word lower-cased (other
/// bytes, non-ASCII included, unchanged), as `u8::to_ascii_lowercase`
/// does byte by byte.
#[inline(always)]
fn lower_word(w: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HI: u64 = 0x8080_8080_8080_8080;
    let low = w & LO7;
    // High bit of each byte: its low seven bits are >= 'A', and > 'Z'.
    let ge_a = low.wrapping_add(0x3f3f_3f3f_3f3f_3f3f);
    let gt_z = low.wrapping_add(0x2525_2525_2525_2525);
    let upper = ge_a & !gt_z & !w & HI;
    w | (upper >> 2)
}

/// Mixes `bytes` into `h` a word at a time; the length goes in last, so
/// that trailing zero bytes count.
#[inline(always)]
fn words_hash(mut h: u64, bytes: &[u8], lower: bool) -> u64 {
    let word = |w: u64| if lower { lower_word(w) } else { w };
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = fold_mul(h ^ word(le_u64(c)), MIX_A);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // The last bytes, zero-padded to a word: from a word read that ends
        // with them, shifted down, when there are eight bytes to read (no
        // copy of a variable length).
        let last = match bytes.len().checked_sub(8) {
            Some(at) => le_u64(&bytes[at..]) >> (8 * (8 - rest.len())),
            None => {
                let mut b = [0u8; 8];
                b[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(b)
            }
        };
        h = fold_mul(h ^ word(last), MIX_A);
    }
    h ^ bytes.len() as u64
}

/// Whether `bytes` hold an `@`, `:` or `]` (SWAR, eight at a time).
#[inline]
fn any_of_at_colon_bracket(bytes: &[u8]) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        // The zero test can flag a lane above a real zero lane, never one
        // without a zero lane below it: "any" is exact.
        if zero(w ^ (LO * u64::from(b'@')))
            | zero(w ^ (LO * u64::from(b':')))
            | zero(w ^ (LO * u64::from(b']')))
            != 0
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|b| matches!(b, b'@' | b':' | b']'))
}

/// The prefetch hints a slot holds for the policy artifact `bytes` that
/// lies at `off` in the store's body: `off` and the length (`u32` each),
/// then where a check starts reading, in 16-byte units from the policy's
/// first byte (`u16` each): the automaton table, the outcome table, the
/// first automaton's class map and its program (0 where there is none,
/// where it lies 1 MiB or more in, or when the bytes are not a valid
/// policy). A lookup asks for all these lines together with the policy's
/// record, as soon as it has the slot.
fn slot_hints(off: usize, bytes: &[u8]) -> [u8; HINTS] {
    hints_of(off, bytes, load::validate_policy(bytes).ok())
}

/// [`slot_hints`] of `bytes`, whose archive `data` is (`None`: not a valid
/// policy).
fn hints_of(off: usize, bytes: &[u8], data: Option<&ArchivedPolicyData>) -> [u8; HINTS] {
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

/// One host for [`write_store`].
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEntry<'a> {
    /// Stored key (`HostKey::to_key` form).
    pub key: &'a str,
    /// Index into the policies given to [`write_store`].
    pub policy: u32,
    /// Why this policy.
    pub source: HostSource,
    /// HTTP status.
    pub status: u16,
    /// Fetch time as given (at most 255 bytes are kept).
    pub fetched_at: Option<&'a str>,
}

/// What a store says about all of its policies.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreMeta {
    /// Agent.
    pub agent: String,
    /// Dialect.
    pub dialect: Dialect,
    /// Compiler version.
    pub compiler_version: String,
    /// Options fingerprint.
    pub options_hash: u64,
}

/// Writes a store: `policies` are complete policy artifacts (frame and
/// archive). Returns the bytes (16-byte aligned).
///
/// # Errors
///
/// A host key that is not a valid key, or a store larger than the frame
/// can announce (4 GiB).
#[doc(hidden)]
pub fn write_store(
    meta: &StoreMeta,
    hosts: Vec<HostEntry<'_>>,
    policies: &[&[u8]],
) -> Result<rkyv::util::AlignedVec<16>, String> {
    let mut out = rkyv::util::AlignedVec::<16>::new();
    out.extend_from_slice(&[0u8; format::FRAME_LEN + HEAD_LEN]);
    let mut records = Vec::with_capacity(policies.len() * POLICY_REC);
    let mut hints = Vec::with_capacity(policies.len());
    for p in policies {
        let start = out.len();
        let off = start - format::FRAME_LEN;
        let len = u32::try_from(p.len()).map_err(|_| "a policy over 4 GiB")?;
        let at = records.len();
        records.extend_from_slice(&(off as u64).to_le_bytes());
        records.extend_from_slice(&len.to_le_bytes());
        let check = record_check(&records[at..], at / POLICY_REC);
        records.extend_from_slice(&check.to_le_bytes());
        out.extend_from_slice(p);
        // From the copy: its place decides the hints' alignment.
        hints.push(slot_hints(off, &out[start..]));
        let pad = (ARCHIVE_ALIGN - out.len() % ARCHIVE_ALIGN) % ARCHIVE_ALIGN;
        out.extend_from_slice(&[0u8; ARCHIVE_ALIGN][..pad]);
    }
    let count = u32::try_from(hosts.len()).map_err(|_| "more than 2^32 hosts")?;
    let mut tries = SEEDS.iter();
    let (seed, homes, slots, strings) = loop {
        let seed = *tries.next().expect("at least one seed");
        match place_hosts(&hosts, &hints, seed) {
            Err(Placement::Collide(_)) if tries.len() > 0 => continue,
            Err(Placement::Collide(msg) | Placement::Refused(msg)) => return Err(msg),
            Ok((homes, slots, strings)) => break (seed, homes, slots, strings),
        }
    };
    // A million hosts' entries are ~60 MB: not kept while the index is
    // archived.
    drop(hosts);
    let check = index_check(
        &meta.agent,
        meta.dialect as u8,
        &meta.compiler_version,
        meta.options_hash,
        u64::from(count),
        homes as u64,
        seed,
        [slots.len(), strings.len(), records.len()],
    );
    let index = StoreIndex {
        agent: meta.agent.clone(),
        dialect: meta.dialect as u8,
        compiler_version: meta.compiler_version.clone(),
        options_hash: meta.options_hash,
        host_count: u64::from(count),
        homes: homes as u64,
        seed,
        check,
        slots,
        strings,
        policies: records,
    };
    // Archived straight after the policies (not into a buffer of its own
    // and copied: a million hosts' index is ~50 MB), from a cache line (a
    // multiple of ARCHIVE_ALIGN too, so that its padding is what it would be
    // at offset 0): the slot table, archived first, starts there, and each
    // slot is one line of a mapped store.
    let pad = (CACHE_LINE - out.len() % CACHE_LINE) % CACHE_LINE;
    out.extend_from_slice(&[0u8; CACHE_LINE][..pad]);
    let index_at = out.len();
    let index_off = (index_at - format::FRAME_LEN) as u64;
    let mut out = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(&index, out)
        .map_err(|e| e.to_string())?;
    drop(index);
    let archive_len = out.len() - index_at;
    let body_len = out.len() - format::FRAME_LEN;
    if body_len > format::MAX_FRAMED_LEN {
        return Err(format!(
            "the store would be {} bytes, over the format's 4 GiB",
            out.len()
        ));
    }
    out[format::FRAME_LEN..format::FRAME_LEN + 8].copy_from_slice(&index_off.to_le_bytes());
    out[format::FRAME_LEN + 8..format::FRAME_LEN + 16]
        .copy_from_slice(&(archive_len as u64).to_le_bytes());
    // Last: the frame's checksum covers everything after it.
    let frame = format::frame(FileKind::Store, &out[format::FRAME_LEN..]);
    out[..format::FRAME_LEN].copy_from_slice(&frame);
    Ok(out)
}

/// What the index keeps of a host's fetch time: its first 255 bytes, cut at
/// a character boundary (a builder that holds many hosts cuts them early).
#[doc(hidden)]
pub fn fetched_at_kept(fetched_at: &str) -> &str {
    let mut cut = fetched_at.len().min(255);
    while !fetched_at.is_char_boundary(cut) {
        cut -= 1;
    }
    &fetched_at[..cut]
}

/// Slot hash seeds a writer tries, in order, before it gives up on keys
/// whose hashes pile up past [`MAX_PROBE`]: keys chosen to collide under one
/// seed do not under the next. Far apart in bits, so that no single
/// corrupted byte turns one into another (open refuses any other value).
const SEEDS: [u64; 4] = [
    0,
    0x9e37_79b9_7f4a_7c15,
    0x3c6e_f372_fe94_f82a,
    0xdaa6_6d2c_7ddf_743f,
];

/// Why hosts could not be placed under a seed.
enum Placement {
    /// Too many hashes collide: another seed may do.
    Collide(String),
    /// The input is refused under any seed.
    Refused(String),
}

/// The slot table of `hosts` under hash `seed`: the home slot count, the
/// slots and the strings.
fn place_hosts(
    hosts: &[HostEntry<'_>],
    hints: &[[u8; HINTS]],
    seed: u64,
) -> Result<(usize, Vec<u8>, Vec<u8>), Placement> {
    let policies = hints.len();
    let count = hosts.len() as u32;
    // Hosts in index order: by hash (the top 32 bits a slot holds), then
    // key (then input order), sorted as (hash, position) pairs rather than
    // moving the entries.
    let mut keyed: Vec<(u32, u32)> = Vec::with_capacity(hosts.len());
    for (i, h) in (0..count).zip(hosts) {
        let hash = HostKey::of_key(h.key)
            .filter(|k| k.cmp_stored(h.key.as_bytes()) == Ordering::Equal)
            .ok_or_else(|| Placement::Refused(format!("{:?} is not a stored host key", h.key)))?
            .slot_hash(seed);
        keyed.push(((hash >> 32) as u32, i));
    }
    let key = |i: u32| hosts[i as usize].key;
    keyed.sort_unstable_by(|a, b| {
        // The keys only when hashes tie (rarely): reading them is a miss.
        a.0.cmp(&b.0)
            .then_with(|| key(a.1).cmp(key(b.1)))
            .then(a.1.cmp(&b.1))
    });
    if let Some(w) = keyed
        .windows(2)
        .find(|w| w[0].0 == w[1].0 && key(w[0].1) == key(w[1].1))
    {
        return Err(Placement::Refused(format!(
            "host {:?} is given twice",
            key(w[0].1)
        )));
    }
    // Each record goes to its home slot, or right after the record before
    // it when that one is there already or past it.
    let homes = home_slots(keyed.len());
    let mut slots = vec![0u8; homes * SLOT];
    let mut strings = Vec::new();
    let mut next = 0;
    for (hash, i) in &keyed {
        let h = &hosts[*i as usize];
        let fetched = fetched_at_kept(h.fetched_at.unwrap_or(""));
        if h.policy as usize >= policies {
            return Err(Placement::Refused(format!(
                "host {:?} names policy {} of {policies}",
                h.key, h.policy,
            )));
        }
        let rec = Slot {
            hash: *hash,
            strings: u32::try_from(strings.len())
                .map_err(|_| Placement::Refused("host strings over 4 GiB".into()))?,
            key_len: u16::try_from(h.key.len())
                .map_err(|_| Placement::Refused(format!("host key {:?} too long", h.key)))?,
            fetched_len: fetched.len() as u8,
            source: h.source as u8,
            status: h.status,
            policy: h.policy,
        };
        let home = rec.home(homes);
        let at = home.max(next);
        if at - home > MAX_PROBE {
            return Err(Placement::Collide(format!(
                "host {:?} would lie {} slots past its home in the index (at most {MAX_PROBE}) under each of the {} hash seeds: the key hashes of the hosts before it collide",
                h.key,
                at - home,
                SEEDS.len()
            )));
        }
        let from = strings.len();
        if h.key.len() > INLINE_KEY {
            strings.extend_from_slice(h.key.as_bytes());
        }
        strings.extend_from_slice(fetched.as_bytes());
        if strings.len() > from {
            let check = strings_check(&strings[from..]);
            strings.extend_from_slice(&check.to_le_bytes());
        }
        if slots.len() < (at + 1) * SLOT {
            slots.resize((at + 1) * SLOT, 0);
        }
        let slot = rec.encode(&hints[h.policy as usize], h.key.as_bytes());
        slots[at * SLOT..(at + 1) * SLOT].copy_from_slice(&slot);
        next = at + 1;
    }
    // Every slot, empty ones too, gets its check word.
    for (i, s) in slots.chunks_exact_mut(SLOT).enumerate() {
        let check = slot_check(s[..].try_into().expect("a slot"), i);
        s[..4].copy_from_slice(&check.to_le_bytes());
    }
    Ok((homes, slots, strings))
}

#[cfg(test)]
mod tests {
    use super::{lower_word, HostKey, CACHE_LINE, CLASS_LINES, SEEDS};
    use crate::url::{path_parts, path_parts_after};

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

    /// The fast comparison agrees with the byte-by-byte one on stored
    /// (lower-case) keys.
    #[test]
    fn eq_stored_is_cmp_stored_equal() {
        let stored = [
            "a.example",
            "a.example:8080",
            "a.example:",
            "b.example",
            "a.exampl",
            "",
        ];
        let urls = [
            "https://a.example/",
            "https://A.Example/",
            "https://a.example:8080/",
            "https://A.EXAMPLE:8080/",
            "https://a.example:8081/",
            "https://a.exampl/",
            "https://a.examplee/",
            "https://b.example/",
            "http://a.example:80/",
        ];
        for u in urls {
            let k = HostKey::of_url(u.as_bytes()).unwrap();
            for st in stored {
                assert_eq!(
                    k.eq_stored(st.as_bytes()),
                    k.cmp_stored(st.as_bytes()) == std::cmp::Ordering::Equal,
                    "{u} {st:?}"
                );
            }
        }
    }

    /// Where a store lookup says the path starts, it is where the engine's
    /// own reading finds it.
    #[test]
    fn the_lookup_finds_the_path_the_engine_reads() {
        let urls = [
            "https://a.example/x?y#z",
            "https://a.example",
            "https://a.example?q",
            "https://a.example/;p",
            "https://a.example#f/x",
            "https://u:p@a.example:8443/x",
            "HTTPS://A.example/x",
            "ftp://a.example/x",
            "x+y.z://a.example/x",
            "://a.example/x",
            "//a.example/x",
            "//a://b/c",
            "https://a.example//x",
            "http://a.example:80",
            "https://a.example/\u{e9}",
            "a.example/x",
            "https:/a.example/x",
        ];
        let mut found = 0;
        for url in urls {
            let Some((_, end)) = HostKey::of_url_and_path(url.as_bytes()) else {
                continue;
            };
            found += 1;
            assert_eq!(
                path_parts_after(url.as_bytes(), end),
                path_parts(url.as_bytes()),
                "{url}"
            );
        }
        assert!(found >= 13, "{found}");
        // Where Google's reading would start the path elsewhere than after
        // the authority, there is no host.
        for url in ["//a://b/c", "https://a.example;p", "x://a.example;p/q"] {
            assert_eq!(HostKey::of_url_and_path(url.as_bytes()), None, "{url}");
        }
    }

    fn key(url: &str) -> Option<String> {
        HostKey::of_url(url.as_bytes()).map(|k| k.to_key())
    }

    /// A key of these bytes, as stored.
    fn raw_key<'a>(host: &'a [u8], port: Option<&'a [u8]>) -> HostKey<'a> {
        HostKey {
            host,
            port,
            v6: None,
        }
    }

    #[test]
    fn host_keys() {
        assert_eq!(key("https://Example.COM/a").as_deref(), Some("example.com"));
        assert_eq!(
            key("https://example.com:443/a").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            key("http://example.com:443/a").as_deref(),
            Some("example.com:443")
        );
        assert_eq!(
            key("http://user:pw@example.com:8080?q").as_deref(),
            Some("example.com:8080")
        );
        assert_eq!(key("//example.com/x").as_deref(), Some("example.com"));
        assert_eq!(key("https://[::1]:8443/").as_deref(), Some("[::1]:8443"));
        assert_eq!(key("https://[::1]/").as_deref(), Some("[::1]"));
        assert_eq!(key("/just/a/path"), None);
        assert_eq!(key("https:///nohost"), None);
        // The lower-case http(s) fast path and the general reading agree.
        for (fast, general) in [
            ("https://example.com/x", "HTTPS://example.com:443/x"),
            ("http://example.com:8080/", "HtTp://example.com:8080/"),
            ("https://example.com", "//example.com"),
        ] {
            assert_eq!(key(fast), key(general), "{fast} {general}");
        }
        assert_eq!(
            key("ftp://files.example/x").as_deref(),
            Some("files.example")
        );
        assert_eq!(key("http:/example.com/x"), None);
        assert_eq!(key("https://"), None);
        // FNV-1a 64's published vectors.
        assert_eq!(crate::artifact::fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(crate::artifact::fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(crate::artifact::fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            key("https://u@h:1@x.example/").as_deref(),
            Some("x.example")
        );
        assert_eq!(key("https://x.example:/p").as_deref(), Some("x.example"));
        assert_eq!(key("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(key("http://[::1:80]/").as_deref(), Some("[::1:80]"));
        assert_eq!(
            key("http://x.example:65535/").as_deref(),
            Some("x.example:65535")
        );
        assert_eq!(
            key("http://x.example:065535/").as_deref(),
            Some("x.example:65535")
        );
        assert_eq!(key("http://x.example:65536/"), None);
        assert_eq!(key("http://x.example:8o/"), None);
        assert_eq!(key("https://h@/x"), None);
        assert_eq!(key("https://@x.example/").as_deref(), Some("x.example"));
        let k = HostKey::of_url(b"https://Example.com:8443/x").unwrap();
        assert_eq!(
            k.hash(),
            HostKey::of_key("example.com:8443").unwrap().hash()
        );
        assert_eq!(
            k.slot_hash(0),
            HostKey::of_key("example.com:8443").unwrap().slot_hash(0)
        );
    }

    /// The host is what follows the last `@` before the first `/ ? #`, as
    /// RFC 3986 and WHATWG read it; where URL parsers disagree there is no
    /// host (issue 41, item 1: `;` used to end the authority, so
    /// `https://allowed.example;@victim.example/private` was answered from
    /// allowed.example's policy while clients fetch victim.example).
    #[test]
    fn the_host_is_the_one_url_parsers_fetch() {
        for (url, want) in [
            ("https://allowed.example;@victim.example/private", None),
            ("https://[::1];@victim.example/", None),
            (
                "https://a.example@victim.example/private",
                Some("victim.example"),
            ),
            (
                "https://a.example:pw@victim.example/",
                Some("victim.example"),
            ),
            ("https://a@b@victim.example/", Some("victim.example")),
            // urllib refuses brackets outside the host.
            ("https://[::1]@victim.example/", None),
            ("https://a[@victim.example/", None),
            (
                "https://a.example%40@victim.example/",
                Some("victim.example"),
            ),
            ("https://victim.example#@a.example/", Some("victim.example")),
            ("https://victim.example?@a.example/", Some("victim.example")),
            // WHATWG reads a backslash as '/', RFC 3986 parsers as a host byte.
            ("https://a.example\\@victim.example/", None),
            ("https://victim.example\\x/", None),
            // WHATWG drops tab and newline; others keep them.
            ("https://vic\ttim.example/", None),
            ("https://victim.example\n/", None),
            ("https://vic tim.example/", None),
            ("https://victim%2Eexample/", None),
            ("https://victim.example%2F/", None),
            ("https://a.example;x/", None),
            ("https://[v1.x]/", None),
            ("https://x[y]/", None),
            ("https://[::1]x/", None),
            ("https://[::1]:x/", None),
            ("https://[::1/", None),
        ] {
            assert_eq!(key(url).as_deref(), want, "{url}");
        }
    }

    /// A URL's host is read as URL parsers normalise it, so that it finds
    /// the key a builder stored (stores audit F21).
    #[test]
    fn url_hosts_are_normalised_as_url_parsers_do() {
        for (url, want) in [
            ("https://dot.example./p", Some("dot.example")),
            ("https://Dot.Example.:8443/p", Some("dot.example:8443")),
            ("https://dots.example../p", Some("dots.example.")),
            ("https://./p", None),
            ("http://zero.example:080/p", Some("zero.example")),
            ("https://zero.example:0443/p", Some("zero.example")),
            ("http://zero.example:008080/p", Some("zero.example:8080")),
            ("http://zero.example:000/p", Some("zero.example:0")),
            ("http://[2001:DB8:0:0::1]/p", Some("[2001:db8::1]")),
            ("http://[2001:db8::1]:8080/p", Some("[2001:db8::1]:8080")),
            ("http://[0:0:0:0:0:0:0:1]:80/p", Some("[::1]")),
            ("http://[::FFFF:1.2.3.4]/p", Some("[::ffff:1.2.3.4]")),
            (
                "http://[1111:2222:3333:4444:5555:6666:7777:8888]/",
                Some("[1111:2222:3333:4444:5555:6666:7777:8888]"),
            ),
            // Not an IPv6 address: no host (URL parsers refuse it).
            ("http://[1.2.3]/p", None),
            ("http://[]/p", None),
            ("https://my_blog.example/p", Some("my_blog.example")),
        ] {
            assert_eq!(key(url).as_deref(), want, "{url}");
            // The stored form reads back to the same slot hash.
            if let Some(want) = want {
                let k = HostKey::of_url(url.as_bytes()).unwrap();
                let stored = HostKey::of_key(want).unwrap();
                assert_eq!(k.slot_hash(0), stored.slot_hash(0), "{url}");
                assert_eq!(k.hash(), stored.hash(), "{url}");
                assert!(k.eq_stored(want.as_bytes()), "{url}");
                assert_eq!(k.cmp_stored(want.as_bytes()), std::cmp::Ordering::Equal);
            }
        }
    }

    /// Every key a URL gives reads back the same from its stored form (as
    /// the writer reads it), so it has the writer's slot hash: authorities
    /// of up to five bytes over an alphabet of the bytes that delimit.
    #[test]
    fn a_url_key_reads_back_from_its_stored_form() {
        const ALPHABET: &[u8] = b"aA:@[]8\xc3";
        let mut authorities = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|a: &Vec<u8>| {
                    ALPHABET.iter().map(move |&b| {
                        let mut a = a.clone();
                        a.push(b);
                        a
                    })
                })
                .collect();
            authorities.extend(last.iter().cloned());
        }
        let mut keys = 0;
        for a in &authorities {
            for scheme in [&b"http://"[..], b"https://", b"HTTP://", b"ftp://", b"//"] {
                let url = [scheme, a.as_slice(), b"/p"].concat();
                let Some(k) = HostKey::of_url(&url) else {
                    continue;
                };
                let stored: Vec<u8> = k.bytes().collect();
                // Keys are text: stores hold no others.
                let Ok(text) = std::str::from_utf8(&stored) else {
                    continue;
                };
                let back = HostKey::of_key(text);
                let back = back.map(|b| (b.bytes().collect::<Vec<u8>>(), b.port));
                assert_eq!(
                    back,
                    Some((stored.clone(), k.port)),
                    "{}",
                    String::from_utf8_lossy(&url)
                );
                assert_eq!(HostKey::of_key(text).unwrap().slot_hash(0), k.slot_hash(0));
                keys += 1;
            }
        }
        assert!(keys > 5_000, "{keys}");
    }

    /// Keys chosen so that their first-seed hashes fall in 10 home slots
    /// overflow the probe limit under that seed, and not under the next.
    #[test]
    fn keys_that_collide_under_a_seed_are_refused_under_it() {
        use super::{place_hosts, HostEntry, HostSource, Placement, HINTS, MAX_PROBE, SEEDS};
        let hosts = MAX_PROBE + 76;
        let homes = (hosts + hosts / 4) as u64;
        let keys: Vec<String> = (0..)
            .map(|n| format!("c{n}.example"))
            .filter(|k| (HostKey::of_key(k).unwrap().slot_hash(SEEDS[0]) >> 32) * homes < 10 << 32)
            .take(hosts)
            .collect();
        let entries: Vec<HostEntry<'_>> = keys
            .iter()
            .map(|key| HostEntry {
                key,
                policy: 0,
                source: HostSource::Fetched,
                status: 200,
                fetched_at: None,
            })
            .collect();
        match place_hosts(&entries, &[[0; HINTS]], SEEDS[0]) {
            Err(Placement::Collide(msg)) => assert!(msg.contains("slots past its home"), "{msg}"),
            _ => panic!("placed under the seed the keys collide under"),
        }
        assert!(place_hosts(&entries, &[[0; HINTS]], SEEDS[1]).is_ok());
    }

    #[test]
    fn lower_word_lower_cases_as_bytes_do() {
        for b in 0..=255u8 {
            for at in 0..8 {
                // The byte among neighbours that probe the borrows.
                let mut w = [b'Z', b'@', b'[', 0x80, b'a', 0xff, b'A', 0];
                w[at] = b;
                let want = w.map(|c| c.to_ascii_lowercase());
                assert_eq!(
                    lower_word(u64::from_le_bytes(w)).to_le_bytes(),
                    want,
                    "{b:#x} at {at}"
                );
            }
        }
    }

    /// The slot hash is part of the store format: stores written before
    /// must still be read. Its values over hosts of every length up to
    /// four words and ports of every length up to two words, under
    /// every seed (hosts in both cases), are pinned (the hash is format
    /// 8's, unchanged since; the expected values were computed by the code
    /// before the one-pass scan).
    #[test]
    fn slot_hash_values_are_pinned() {
        let fold = |all: u64, h: u64| (all ^ h).wrapping_mul(0x0000_0100_0000_01b3);
        let text = |len: usize| -> Vec<u8> { (0..len).map(|i| b"Ab.9-xZ:"[i % 8]).collect() };
        let mut hosts = 0xcbf2_9ce4_8422_2325u64;
        let mut ports = hosts;
        for &seed in SEEDS.iter().chain(&[0]) {
            for len in 0..=33 {
                let host = text(len);
                for port in [None, Some(&b"8080"[..]), Some(&b"123456789"[..])] {
                    hosts = fold(hosts, raw_key(&host, port).slot_hash(seed));
                }
            }
            for len in 1..=16 {
                let port: Vec<u8> = (0..len).map(|i| b'0' + (i % 10) as u8).collect();
                let key = raw_key(b"a.example", Some(&port));
                ports = fold(ports, key.slot_hash(seed));
            }
        }
        assert_eq!(hosts, 0xb10d_d4a8_972d_362a, "{hosts:#x}");
        assert_eq!(ports, 0x2d3a_490b_4ec0_8b47, "{ports:#x}");
    }

    #[test]
    fn slot_hash_reads_the_stored_key() {
        let h = |u: &str| HostKey::of_url(u.as_bytes()).unwrap().slot_hash(0);
        let k = |k: &str| HostKey::of_key(k).unwrap().slot_hash(0);
        // Any case, the default port, and every length around a word.
        for host in [
            "a",
            "Ab.Cd.eF",
            "WWW.EXAMPLE.COM",
            "x.y-z.example.org.a1234",
        ] {
            let lower = host.to_ascii_lowercase();
            assert_eq!(h(&format!("https://{host}/p")), k(&lower));
            assert_eq!(h(&format!("https://{host}:443/p")), k(&lower));
            assert_eq!(
                h(&format!("http://{host}:8080/")),
                k(&format!("{lower}:8080"))
            );
            assert_ne!(k(&lower), k(&format!("{lower}:8080")));
        }
        // Trailing zero bytes and a port that could be read as host bytes.
        let raw = |host: &[u8], port: Option<&[u8]>| raw_key(host, port).slot_hash(0);
        assert_ne!(raw(b"a", None), raw(b"a\0", None));
        assert_ne!(raw(b"abcdefgh", None), raw(b"abcdefgh\0", None));
        assert_ne!(raw(b"ab", Some(b"1")), raw(b"ab:1", None));
    }
}
