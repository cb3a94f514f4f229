//! [`Store`]: opening a store in constant time, and lookups that validate
//! what they read (each slot's check word, each policy on its first use).

use super::layout::{
    hints_of, home_of, home_slots, index_check, le_u16, le_u32, le_u64, record_check, slot_check,
    strings_check, ArchivedStoreIndex, Slot, CLASS_LINES, HEAD_LEN, INLINE_KEY, MAX_PROBE,
    POLICY_REC, SEEDS, SLOT, SLOT_HINTS, SLOT_KEY,
};
use super::{HostInfo, HostKey, HostSource};
use crate::answer::Verdict;
use crate::artifact::ArchivedPolicyData;
use crate::format::{self, FileKind, ARCHIVE_ALIGN, CACHE_LINE};
use crate::ids::PolicyId;
use crate::load::{self, LoadError, Storage, READ_SHARDS_BELOW};
use crate::policy::{prefetch, Policy};
use crate::types::Dialect;
use crate::url::path_parts_after;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

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

    /// The product token every policy was compiled for (several joined by
    /// `,`, as a policy's [`crate::Header::agent`]).
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

    /// Every policy's id, in order: `0..policy_count()`.
    pub fn policy_ids(&self) -> impl Iterator<Item = PolicyId> {
        // A slot names its policy in 32 bits.
        (0..self.policy_count() as u32).map(PolicyId::new)
    }

    /// Size of the store in bytes.
    pub fn len_bytes(&self) -> usize {
        self.storage.bytes().len()
    }

    /// Bytes of the index's tables: host slots (all, empty ones too), long
    /// host keys and fetch times, policy records (`robocc inspect
    /// --sizes`). With the `build` feature (for tools).
    #[cfg(feature = "build")]
    pub fn index_sizes(&self) -> [usize; 3] {
        [
            self.tables[0].len(),
            self.tables[1].len(),
            self.tables[2].len(),
        ]
    }

    /// Where the slot table lies in the store's bytes, 64 bytes per slot
    /// (docs/artifact.md, "Stores"): for tests and tools that damage or
    /// inspect it. With the `build` feature.
    #[cfg(feature = "build")]
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
    pub(super) fn slot_bytes(&self, i: usize) -> &[u8] {
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
            policy: PolicyId::new(r.policy),
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

    /// The index entry of the host whose stored key is `key` (as
    /// [`HostInfo::key`] gives it: another store's hosts are looked up
    /// here); `Ok(None)` when the store does not have it.
    ///
    /// # Errors
    ///
    /// The host's record is corrupted.
    pub fn host_by_key(&self, key: &str) -> Result<Option<HostInfo<'_>>, LoadError> {
        let Some(key) = HostKey::of_key(key) else {
            return Ok(None);
        };
        self.host_of_key(&key, self.slot_hash(&key))
    }

    /// `key`'s slot hash in this store.
    pub(crate) fn slot_hash(&self, key: &HostKey<'_>) -> u64 {
        key.seeded_hash(self.seed)
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
    pub(super) fn find<const PREFETCH_POLICY: bool>(
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
    pub(super) fn prefetch_policy(&self, s: &[u8], i: usize) {
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
    pub(super) fn prefetch_home(&self, hash: u64) {
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
    /// `idna_lookup_url(url)` (this crate's `idna` feature; docs/artifact.md,
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
        self.policy_at(policy as usize)
            .map(Some)
            .map_err(|e| e.with_host(key.host))
    }

    /// Policy `id`, validated on its first use.
    ///
    /// # Errors
    ///
    /// No such policy, or its bytes are corrupted.
    pub fn policy(&self, id: PolicyId) -> Result<Policy<'_>, LoadError> {
        self.policy_at(id.index())
    }

    /// [`Store::policy`] by index.
    pub(crate) fn policy_at(&self, i: usize) -> Result<Policy<'_>, LoadError> {
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

    /// Policy `id` as a complete artifact (frame and archive), validated:
    /// a builder copies it into a new store when its source is unchanged.
    ///
    /// # Errors
    ///
    /// As [`Store::policy`].
    pub fn policy_artifact(&self, id: PolicyId) -> Result<&[u8], LoadError> {
        self.policy_at(id.index())?;
        self.policy_bytes(id.index())
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
            let data = self.policy_at(i)?.data;
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
                || hints.get(info.policy.index()).map(|h| &h[..])
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
