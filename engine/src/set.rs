//! [`StoreSet`]: the hosts of one agent split over N shard stores in a
//! directory, with a small text index.
//!
//! Each shard is an ordinary store file (every store tool works on it). A
//! host lives in shard `HostKey::hash() % N` (FNV-1a 64 of its key, which
//! other languages compute too); the shard then finds it by its slot hash.
//! Opening a set
//! reads the index only (O(N) lines, nothing of the shards); each shard is
//! mapped, and its header checked against the index, the first time a URL
//! needs it. docs/artifact.md ("Store sets") is normative:
//!
//! ```text
//! robocc-store-set 1
//! shards 4
//! partition fnv1a64-mod
//! agent Googlebot
//! dialect rfc9309
//! options 8f1e0c2b7a6d5e4f
//! compiler 0.1.0
//! shard-00000.store bytes 20480 hosts 51 fnv1a64 0123456789abcdef
//! …                                     (one line per shard, in order)
//! ```

use crate::answer::Verdict;
use crate::artifact::fnv1a64;
use crate::format::{FileKind, SET_MAGIC, STORE_SET_FORMAT_VERSION};
use crate::load::{LoadError, READ_SHARDS_BELOW};
use crate::policy::{same_length, Policy};
use crate::store::{check_batch_in, BatchError, HostInfo, HostKey, Store};
use crate::types::Dialect;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The index file's name in a store set's directory.
pub const STORE_SET_INDEX: &str = "index.txt";
/// Most shards a set may have (file names have five digits).
pub const MAX_SHARDS: usize = 65_536;
/// The partition the index names: FNV-1a 64 of the host key, modulo N.
pub const PARTITION: &str = "fnv1a64-mod";
/// Largest index read (65,536 shard lines are about 4.5 MiB).
const MAX_INDEX_BYTES: u64 = 8 << 20;

/// The file name of shard `i`: `shard-00000.store` … `shard-65535.store`.
pub fn shard_file_name(i: usize) -> String {
    format!("shard-{i:05}.store")
}

/// The shard of a host key hash in a set of `shards` shards: `hash % shards`.
///
/// # Panics
///
/// When `shards` is 0.
#[inline]
pub fn shard_of_hash(hash: u64, shards: usize) -> usize {
    (hash % shards as u64) as usize
}

/// What the index says about one shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    /// Size of the shard file in bytes.
    pub bytes: u64,
    /// Hosts in the shard.
    pub hosts: u64,
    /// FNV-1a 64 of the whole shard file.
    pub checksum: u64,
}

/// A store set's index (`index.txt`), as a builder writes it with
/// [`SetIndex::to_text`] and [`StoreSet::open`] reads it back
/// (docs/artifact.md, "Store sets"). With the `build` feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetIndex {
    /// The product token every shard was compiled for (several joined by `,`).
    pub agent: String,
    /// The dialect every shard was compiled with.
    pub dialect: Dialect,
    /// The shards' common options fingerprint.
    pub options_hash: u64,
    /// `robocc-compiler` version that built the set.
    pub compiler_version: String,
    /// One entry per shard, in order.
    pub shards: Vec<ShardInfo>,
}

/// A product token of any dialect: RFC 9309's `[A-Za-z_-]+`, or the 1996
/// draft's RFC 1945 token (draft1996 and robots2: printable US-ASCII other
/// than `()<>@,;:\"/[]?={}`, so `MJ12bot` and `my.bot` too); or several
/// (rfc9309) joined by `,`, as a policy's header writes them. Never a
/// space, so the line stays `agent TOKEN`.
fn is_agent(s: &str) -> bool {
    s.split(',').all(|token| {
        !token.is_empty()
            && token
                .bytes()
                .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
    })
}

#[cfg(feature = "build")]
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic())
}

/// A decimal number as the writer writes it (no sign, no leading zero).
fn decimal(s: &str) -> Option<u64> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

/// Sixteen lower-case hex digits.
fn hex16(s: &str) -> Option<u64> {
    let ok = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| u64::from_str_radix(s, 16).ok()).flatten()
}

/// Why [`SetIndex::to_text`] refused an index: it holds what the reader
/// would refuse. With the `build` feature.
#[cfg(feature = "build")]
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetIndexError {
    /// The agent is not a product token.
    Agent(String),
    /// The compiler version is empty or has a space or control byte.
    CompilerVersion(String),
    /// No shards, or more than [`MAX_SHARDS`]: how many.
    Shards(usize),
}

#[cfg(feature = "build")]
impl std::fmt::Display for SetIndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetIndexError::Agent(a) => write!(f, "{a:?} is not an agent token"),
            SetIndexError::CompilerVersion(v) => write!(f, "{v:?} is not a compiler version"),
            SetIndexError::Shards(n) => write!(f, "{n} shards (a set has 1 to {MAX_SHARDS})"),
        }
    }
}

#[cfg(feature = "build")]
impl std::error::Error for SetIndexError {}

impl SetIndex {
    /// The index as text (the only form the writer produces).
    ///
    /// # Errors
    ///
    /// An agent that is not a product token, a compiler version with a
    /// space or control byte, or no shards or more than [`MAX_SHARDS`]
    /// (what the reader would refuse).
    #[cfg(feature = "build")]
    pub fn to_text(&self) -> Result<String, SetIndexError> {
        if !is_agent(&self.agent) {
            return Err(SetIndexError::Agent(self.agent.clone()));
        }
        if !is_word(&self.compiler_version) {
            return Err(SetIndexError::CompilerVersion(
                self.compiler_version.clone(),
            ));
        }
        if self.shards.is_empty() || self.shards.len() > MAX_SHARDS {
            return Err(SetIndexError::Shards(self.shards.len()));
        }
        let mut out = format!(
            "robocc-store-set {STORE_SET_FORMAT_VERSION}\nshards {}\npartition {PARTITION}\n\
             agent {}\ndialect {}\noptions {:016x}\ncompiler {}\n",
            self.shards.len(),
            self.agent,
            self.dialect.name(),
            self.options_hash,
            self.compiler_version
        );
        for (i, s) in self.shards.iter().enumerate() {
            out.push_str(&format!(
                "{} bytes {} hosts {} fnv1a64 {:016x}\n",
                shard_file_name(i),
                s.bytes,
                s.hosts,
                s.checksum
            ));
        }
        Ok(out)
    }

    /// Reads an index, strictly: every line as [`SetIndex::to_text`] writes
    /// it, in order, and nothing else.
    ///
    /// # Errors
    ///
    /// The first line that is not what the format says, as a
    /// [`LoadError`] of kind [`FileKind::StoreSet`] (without a path).
    pub fn parse(bytes: &[u8]) -> Result<SetIndex, LoadError> {
        use crate::load::LoadErrorKind;
        let err = |k| LoadError::new(FileKind::StoreSet, k);
        if !bytes.starts_with(&SET_MAGIC) {
            return Err(err(LoadErrorKind::BadMagic {
                other: FileKind::sniff(bytes),
            }));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| LoadError::invalid(FileKind::StoreSet, "the index is not UTF-8 text"))?;
        let Some(text) = text.strip_suffix('\n') else {
            return Err(LoadError::invalid(
                FileKind::StoreSet,
                "the index does not end with a newline (truncated?)",
            ));
        };
        let mut lines = text.split('\n').enumerate();
        let mut field = |key: &str| -> Result<(usize, &str), LoadError> {
            let bad = |n: usize| {
                LoadError::invalid(
                    FileKind::StoreSet,
                    format!("line {n}: expected \"{key} VALUE\""),
                )
            };
            let Some((i, line)) = lines.next() else {
                return Err(LoadError::invalid(
                    FileKind::StoreSet,
                    format!("the index ends before \"{key}\" (truncated?)"),
                ));
            };
            match line.split_once(' ') {
                Some((k, v)) if k == key && !v.contains(' ') && !v.is_empty() => Ok((i + 1, v)),
                _ => Err(bad(i + 1)),
            }
        };
        let invalid = |n: usize, what: String| {
            LoadError::invalid(FileKind::StoreSet, format!("line {n}: {what}"))
        };
        let (n, version) = field("robocc-store-set")?;
        match decimal(version) {
            Some(v) if v == u64::from(STORE_SET_FORMAT_VERSION) => {}
            Some(v) if v <= u64::from(u32::MAX) => {
                return Err(err(LoadErrorKind::Version {
                    found: v as u32,
                    supported: STORE_SET_FORMAT_VERSION,
                }))
            }
            _ => return Err(invalid(n, format!("{version:?} is not a format version"))),
        }
        let (n, shards) = field("shards")?;
        let count = decimal(shards)
            .filter(|&c| c >= 1 && c <= MAX_SHARDS as u64)
            .ok_or_else(|| invalid(n, format!("{shards:?} shards (1 to {MAX_SHARDS})")))?
            as usize;
        let (n, partition) = field("partition")?;
        if partition != PARTITION {
            return Err(invalid(
                n,
                format!("unknown partition {partition:?} (this engine knows {PARTITION})"),
            ));
        }
        let (n, agent) = field("agent")?;
        if !is_agent(agent) {
            return Err(invalid(n, format!("{agent:?} is not an agent token")));
        }
        let (n, dialect) = field("dialect")?;
        let dialect = Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.name() == dialect)
            .ok_or_else(|| invalid(n, format!("unknown dialect {dialect:?}")))?;
        let (n, options) = field("options")?;
        let options_hash = hex16(options)
            .ok_or_else(|| invalid(n, format!("{options:?} is not 16 hex digits")))?;
        let (_, compiler) = field("compiler")?;
        let compiler_version = compiler.to_string();
        let mut shard_infos = Vec::with_capacity(count);
        for i in 0..count {
            let name = shard_file_name(i);
            let Some((n, line)) = lines.next() else {
                return Err(LoadError::invalid(
                    FileKind::StoreSet,
                    format!("the index ends before {name}'s line (truncated?)"),
                ));
            };
            let n = n + 1;
            let parts: Vec<&str> = line.split(' ').collect();
            let info = match parts[..] {
                [nm, "bytes", b, "hosts", h, "fnv1a64", c] if nm == name => {
                    match (decimal(b), decimal(h), hex16(c)) {
                        (Some(bytes), Some(hosts), Some(checksum)) => Some(ShardInfo {
                            bytes,
                            hosts,
                            checksum,
                        }),
                        _ => None,
                    }
                }
                _ => None,
            };
            shard_infos.push(info.ok_or_else(|| {
                invalid(
                    n,
                    format!("expected \"{name} bytes N hosts N fnv1a64 HEX16\""),
                )
            })?);
        }
        if let Some((n, _)) = lines.next() {
            return Err(invalid(
                n + 1,
                format!("more lines than the {count} shards"),
            ));
        }
        Ok(SetIndex {
            agent: agent.to_string(),
            dialect,
            options_hash,
            compiler_version,
            shards: shard_infos,
        })
    }
}

/// A store set: the hosts of one agent partitioned over N shard stores in a
/// directory (`robocc store build --shards N`).
///
/// ```no_run
/// use robocc_engine::StoreSet;
/// let set = StoreSet::open("hosts.set")?;     // reads the index only
/// match set.check(b"https://www.example.com/cart")? {   // maps one shard, once
///     Some(v) => println!("allowed: {}", v.allowed),
///     None => println!("host not in the set"),
/// }
/// # Ok::<(), robocc_engine::LoadError>(())
/// ```
///
/// Opening reads and validates the index and touches no shard. Each shard
/// is mapped (read, under [`READ_SHARDS_BELOW`] bytes) at its first use
/// (thread-safe, once) and stays so while the set lives, its header checked
/// against the index (size, host count, agent, dialect, options,
/// compiler) and its first host against its position (a shard swapped with
/// another of the same size and host count is refused); a
/// missing or corrupted shard is a [`LoadError`] naming its file, at that
/// use and every later one. Checksums are not computed on the check path:
/// [`StoreSet::verify`] reads every byte (and so finds a stale shard, one
/// of an older set at the same position).
///
/// The directory is resolved at open (links followed, made absolute), so
/// shards are found where the index was, whatever the working directory
/// becomes. A set is replaced by writing a new one and opening it: a shard
/// that a rebuild replaced before its first use here no longer matches the
/// index read at open, and is refused.
pub struct StoreSet {
    dir: PathBuf,
    index: SetIndex,
    stores: Box<[OnceLock<Result<Store, LoadError>>]>,
}

impl std::fmt::Debug for StoreSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSet")
            .field("dir", &self.dir)
            .field("agent", &self.index.agent)
            .field("shards", &self.index.shards.len())
            .finish()
    }
}

impl StoreSet {
    /// Reads the index of the store set in directory `dir`. No shard is
    /// opened: this costs O(N) in the number of shards, nothing in their
    /// size.
    ///
    /// # Errors
    ///
    /// No index, or an index that is not exactly the format (the error
    /// names the index file).
    pub fn open(dir: impl AsRef<Path>) -> Result<StoreSet, LoadError> {
        // Where it is now: a relative path or a link swapped later must not
        // send the first use of a shard elsewhere.
        let dir =
            std::fs::canonicalize(dir.as_ref()).unwrap_or_else(|_| dir.as_ref().to_path_buf());
        let path = dir.join(STORE_SET_INDEX);
        let named = |e: LoadError| e.with_path(path.display().to_string());
        let mut bytes = Vec::new();
        // A regular file only: a FIFO in its place is refused, not waited on.
        crate::load::open_regular(&path)
            .and_then(|f| f.take(MAX_INDEX_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| named(LoadError::io(FileKind::StoreSet, e)))?;
        if bytes.len() as u64 > MAX_INDEX_BYTES {
            return Err(named(LoadError::invalid(
                FileKind::StoreSet,
                format!("the index is over {MAX_INDEX_BYTES} bytes"),
            )));
        }
        let index = SetIndex::parse(&bytes).map_err(named)?;
        let stores = (0..index.shards.len()).map(|_| OnceLock::new()).collect();
        Ok(StoreSet { dir, index, stores })
    }

    /// The set's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The product token every shard was compiled for (several joined by `,`).
    pub fn agent(&self) -> &str {
        &self.index.agent
    }

    /// The dialect every shard was compiled with.
    pub fn dialect(&self) -> Dialect {
        self.index.dialect
    }

    /// The shards' common options fingerprint (as [`Store::options_hash`]).
    pub fn options_hash(&self) -> u64 {
        self.index.options_hash
    }

    /// `robocc-compiler` version that built the set.
    pub fn compiler_version(&self) -> &str {
        &self.index.compiler_version
    }

    /// Number of shards.
    pub fn shard_count(&self) -> usize {
        self.index.shards.len()
    }

    /// Number of hosts in the whole set, as the index records it (no shard
    /// is opened; each shard's count is checked when it is opened).
    pub fn host_count(&self) -> u64 {
        // Saturating: a hostile index must not overflow (each shard's count
        // is checked against the shard when it is opened).
        (self.index.shards.iter()).fold(0u64, |n, s| n.saturating_add(s.hosts))
    }

    /// Total size of the shard files, as the index records it.
    pub fn len_bytes(&self) -> u64 {
        (self.index.shards.iter()).fold(0u64, |n, s| n.saturating_add(s.bytes))
    }

    /// What the index says about shard `i`.
    pub fn shard_info(&self, i: usize) -> Option<ShardInfo> {
        self.index.shards.get(i).copied()
    }

    /// The path of shard `i`.
    pub fn shard_path(&self, i: usize) -> PathBuf {
        self.dir.join(shard_file_name(i))
    }

    /// The shard that holds (or would hold) the host of `url`; `None` when
    /// the URL has no host.
    pub fn shard_of(&self, url: &[u8]) -> Option<usize> {
        HostKey::of_url(url).map(|k| shard_of_hash(k.hash(), self.shard_count()))
    }

    /// Shard `i`, mapped and checked against the index on its first use.
    ///
    /// # Errors
    ///
    /// No shard `i`; the file is missing, not a store, or disagrees with
    /// the index (the error names the file). A shard that failed once fails
    /// the same way at every later use.
    pub fn shard(&self, i: usize) -> Result<&Store, LoadError> {
        let cell = self.stores.get(i).ok_or_else(|| self.no_shard(i))?;
        match cell.get_or_init(|| self.open_shard(i)) {
            Ok(store) => Ok(store),
            Err(e) => Err(e.clone()),
        }
    }

    fn no_shard(&self, i: usize) -> LoadError {
        LoadError::invalid(
            FileKind::StoreSet,
            format!("no shard {i} in a set of {}", self.shard_count()),
        )
        .with_path(self.dir.join(STORE_SET_INDEX).display().to_string())
    }

    /// Shard `i` opened afresh and checked as at its first use
    /// ([`StoreSet::shard`]), but not kept by the set: for a tool that goes
    /// over every shard once (a process that keeps tens of thousands of
    /// large shards mapped runs out of mappings; see
    /// [`READ_SHARDS_BELOW`]).
    ///
    /// # Errors
    ///
    /// As [`StoreSet::shard`].
    pub fn load_shard(&self, i: usize) -> Result<Store, LoadError> {
        if i >= self.shard_count() {
            return Err(self.no_shard(i));
        }
        self.open_shard(i)
    }

    fn open_shard(&self, i: usize) -> Result<Store, LoadError> {
        let path = self.shard_path(i);
        let store = Store::open_reading_below(&path, READ_SHARDS_BELOW)?;
        let info = self.index.shards[i];
        let ours = &self.index;
        let mismatch = if store.len_bytes() as u64 != info.bytes {
            Some(format!(
                "{} bytes, the set's index says {}",
                store.len_bytes(),
                info.bytes
            ))
        } else if store.host_count() as u64 != info.hosts {
            Some(format!(
                "{} hosts, the set's index says {}",
                store.host_count(),
                info.hosts
            ))
        } else if store.agent() != ours.agent
            || store.dialect() != ours.dialect
            || store.options_hash() != ours.options_hash
            || store.compiler_version() != ours.compiler_version
        {
            Some(format!(
                "built for agent {} ({}, options {:016x}, compiler {}), the set for {} ({}, \
                 options {:016x}, compiler {})",
                store.agent(),
                store.dialect(),
                store.options_hash(),
                store.compiler_version(),
                ours.agent,
                ours.dialect,
                ours.options_hash,
                ours.compiler_version
            ))
        } else {
            // A shard in another's place (swapped, misnamed) can have the
            // size and host count the index gives for this one: its hosts
            // would then all be "not in the set". Its first host says whose
            // it is (read once, here; a stale shard of this position from an
            // older set is only found by its checksum: verify_shard).
            match store.hosts().next() {
                None => None,
                Some(Err(e)) => return Err(e.with_path(path.display().to_string())),
                Some(Ok(h)) => {
                    let home =
                        HostKey::of_key(h.key).map(|k| shard_of_hash(k.hash(), self.shard_count()));
                    (home != Some(i)).then(|| match home {
                        Some(j) => format!(
                            "its first host {} belongs to shard {j}: the file is another \
                             shard's (swapped or renamed)",
                            h.key
                        ),
                        None => format!("its first host {:?} is not a host key", h.key),
                    })
                }
            }
        };
        match mismatch {
            None => Ok(store),
            Some(why) => Err(LoadError::invalid(
                FileKind::Store,
                format!("shard {i} of the set: {why}"),
            )
            .with_path(path.display().to_string())),
        }
    }

    /// The shard store that holds (or would hold) `url`'s host, opened;
    /// `Ok(None)` when the URL has no host.
    ///
    /// # Errors
    ///
    /// As [`StoreSet::shard`].
    pub fn store_for(&self, url: &[u8]) -> Result<Option<&Store>, LoadError> {
        match self.shard_of(url) {
            Some(i) => self.shard(i).map(Some),
            None => Ok(None),
        }
    }

    /// The index entry of `url`'s host; `Ok(None)` when the set does not
    /// have it (or the URL has no host). As [`Store::host`].
    ///
    /// # Errors
    ///
    /// The host's shard cannot be opened, or its record is corrupted.
    pub fn host(&self, url: &[u8]) -> Result<Option<HostInfo<'_>>, LoadError> {
        let Some((key, store)) = self.key_and_shard(url)? else {
            return Ok(None);
        };
        store.host_of_key(&key, store.slot_hash(&key))
    }

    /// The policy of the host of `url`. As [`Store::policy_for`].
    ///
    /// # Errors
    ///
    /// As [`StoreSet::check`].
    #[inline]
    pub fn policy_for(&self, url: &[u8]) -> Result<Option<Policy<'_>>, LoadError> {
        let Some((key, store)) = self.key_and_shard(url)? else {
            return Ok(None);
        };
        store.policy_of_key(&key, store.slot_hash(&key))
    }

    /// The shard of the host `key` names, opened.
    #[inline]
    fn shard_of_key(&self, key: &HostKey<'_>) -> Result<&Store, LoadError> {
        self.shard(shard_of_hash(key.hash(), self.shard_count()))
    }

    /// The host key of `url` and its shard, opened; `Ok(None)` when the URL
    /// has no host.
    #[inline]
    fn key_and_shard<'u>(&self, url: &'u [u8]) -> Result<Option<(HostKey<'u>, &Store)>, LoadError> {
        match HostKey::of_url(url) {
            Some(key) => Ok(Some((key, self.shard_of_key(&key)?))),
            None => Ok(None),
        }
    }

    /// The verdict for `url` (absolute, with a host), or `Ok(None)` when its
    /// host is not in the set or the URL has no host (as [`Store::check`]
    /// says: [`HostKey::of_url`] tells them apart). As [`Store::check`]: the host's FNV-1a
    /// chooses the shard, where its slot hash finds it; no allocation once
    /// the shard is open.
    /// A host written as a Unicode name is read as written, as by
    /// [`Store::check`]: its `xn--` form is where a build stores it.
    ///
    /// # Errors
    ///
    /// The host's shard cannot be opened (missing, corrupted, not the
    /// index's), or the host's record or policy is corrupted.
    #[inline]
    pub fn check(&self, url: &[u8]) -> Result<Option<Verdict>, LoadError> {
        Ok(self.policy_for(url)?.map(|p| p.check(url)))
    }

    /// The verdicts of many URLs, as [`Store::check_batch`] answers them:
    /// `out[i]` becomes what [`StoreSet::check`]`(urls[i])` answers. Hosts of different
    /// shards are looked up together, stage by stage, as in a single store.
    /// Never allocates once the shards it needs are open.
    ///
    /// # Errors
    ///
    /// The first URL whose shard or policy is refused (its index in
    /// `urls`); the URLs before it are answered.
    ///
    /// # Panics
    ///
    /// When `urls` and `out` differ in length, as [`Store::check_batch`].
    #[track_caller]
    pub fn check_batch(
        &self,
        urls: &[&[u8]],
        out: &mut [Option<Verdict>],
    ) -> Result<(), BatchError> {
        same_length(urls.len(), out.len());
        check_batch_in(urls, out, |key| self.shard_of_key(key))
    }

    /// Checks shard `i` completely: its FNV-1a 64 against the index, every
    /// policy and record ([`Store::validate_all`]), and that every host
    /// belongs to this shard. Reads every byte of the shard, opened afresh
    /// and not kept ([`StoreSet::verified_shard`]).
    ///
    /// # Errors
    ///
    /// The first problem, naming the shard's file.
    pub fn verify_shard(&self, i: usize) -> Result<(), LoadError> {
        self.verified_shard(i).map(drop)
    }

    /// [`StoreSet::verify_shard`], and the shard it checked (opened afresh,
    /// not kept by the set: [`StoreSet::load_shard`]).
    ///
    /// # Errors
    ///
    /// As [`StoreSet::verify_shard`].
    pub fn verified_shard(&self, i: usize) -> Result<Store, LoadError> {
        let store = self.load_shard(i)?;
        self.verify_store(i, &store)?;
        Ok(store)
    }

    fn verify_store(&self, i: usize, store: &Store) -> Result<(), LoadError> {
        let named = |e: LoadError| e.with_path(self.shard_path(i).display().to_string());
        let bad = |msg: String| named(LoadError::invalid(FileKind::Store, msg));
        let sum = fnv1a64(store.bytes());
        let want = self.index.shards[i].checksum;
        if sum != want {
            return Err(bad(format!(
                "checksum fnv1a64 {sum:016x}, the set's index says {want:016x}"
            )));
        }
        store.validate_all().map_err(named)?;
        for h in store.hosts() {
            let h = h.map_err(named)?;
            let hash = HostKey::of_key(h.key).map(|k| k.hash()).unwrap_or(0);
            if shard_of_hash(hash, self.shard_count()) != i {
                return Err(bad(format!("host {} belongs to another shard", h.key)));
            }
        }
        Ok(())
    }

    /// [`StoreSet::verify_shard`] for every shard: the full check of a set
    /// (`robocc inspect DIR` runs it). Keeps no shard open.
    ///
    /// # Errors
    ///
    /// The first shard with a problem.
    pub fn verify(&self) -> Result<(), LoadError> {
        (0..self.shard_count()).try_for_each(|i| self.verify_shard(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(n: usize) -> SetIndex {
        SetIndex {
            agent: "Googlebot".into(),
            dialect: Dialect::Rfc9309,
            options_hash: 0x0123_4567_89ab_cdef,
            compiler_version: "0.1.0".into(),
            shards: (0..n as u64)
                .map(|i| ShardInfo {
                    bytes: 100 + i,
                    hosts: i,
                    checksum: u64::MAX - i,
                })
                .collect(),
        }
    }

    /// A draft1996 or robots2 set may be built for a name with digits or
    /// dots (the 1996 draft's `agent = token`), an rfc9309 set for several
    /// agents.
    #[test]
    fn index_takes_draft_agent_names() {
        for agent in ["MJ12bot", "my.bot", "Googlebot-Image,Googlebot"] {
            let idx = SetIndex {
                agent: agent.into(),
                dialect: Dialect::Draft1996,
                ..index(1)
            };
            let text = idx.to_text().unwrap();
            assert_eq!(SetIndex::parse(text.as_bytes()).unwrap(), idx);
        }
    }

    /// What the reader would refuse is not written.
    #[test]
    fn index_refuses_what_the_reader_would() {
        let bad = |idx: SetIndex| idx.to_text().unwrap_err();
        let agent = SetIndex {
            agent: "my bot".into(),
            ..index(1)
        };
        assert_eq!(bad(agent), SetIndexError::Agent("my bot".into()));
        let version = SetIndex {
            compiler_version: String::new(),
            ..index(1)
        };
        assert_eq!(bad(version), SetIndexError::CompilerVersion(String::new()));
        assert_eq!(bad(index(0)), SetIndexError::Shards(0));
        assert_eq!(
            bad(index(MAX_SHARDS + 1)).to_string(),
            format!("{} shards (a set has 1 to {MAX_SHARDS})", MAX_SHARDS + 1)
        );
    }

    #[test]
    fn index_round_trips() {
        let idx = index(3);
        let text = idx.to_text().unwrap();
        assert!(text.starts_with("robocc-store-set 1\nshards 3\n"), "{text}");
        assert!(text.contains("\nshard-00002.store bytes 102 hosts 2 fnv1a64 fffffffffffffffd\n"));
        assert_eq!(SetIndex::parse(text.as_bytes()).unwrap(), idx);
        assert_eq!(FileKind::sniff(text.as_bytes()), Some(FileKind::StoreSet));
    }

    #[test]
    fn index_is_parsed_strictly() {
        let text = index(2).to_text().unwrap();
        let mut cases: Vec<String> = vec![
            String::new(),
            text.trim_end().to_string(),
            text.replace("shards 2", "shards 3"),
            text.replace("shards 2", "shards 02"),
            text.replace("shards 2", "shards 0"),
            text.replace("store-set 1", "store-set 2"),
            text.replace("fnv1a64-mod", "crc32"),
            text.replace("rfc9309", "RFC9309"),
            text.replace("agent Googlebot", "agent Google bot"),
            text.replace("agent Googlebot", "agent Google/2.1"),
            text.replace("agent Googlebot", "agent Googlebot,"),
            text.replace("agent Googlebot", "agent ,Googlebot"),
            text.replace("agent Googlebot", "agent Googlebot,,Bingbot"),
            text.replace("0123456789abcdef", "0123456789ABCDEF"),
            text.replace("shard-00001", "../etc/passwd"),
            text.replace("hosts 1 ", "hosts  1 "),
            text.replace("\n", "\r\n"),
            format!("{text}extra\n"),
            text.replace("bytes 101", "bytes -1"),
        ];
        // Every proper prefix.
        cases.extend((0..text.len()).map(|n| text[..n].to_string()));
        for c in cases {
            assert!(SetIndex::parse(c.as_bytes()).is_err(), "accepted {c:?}");
        }
        let e = SetIndex::parse(text.replace("store-set 1", "store-set 2").as_bytes());
        assert!(e.unwrap_err().is_version_mismatch());
        let e = SetIndex::parse(b"ROBOCC\0S....").unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a robocc store set: it is a robocc store"
        );
    }

    #[test]
    fn shards_partition_by_the_host_hash() {
        let k = HostKey::of_key("example.com").unwrap();
        assert_eq!(k.hash(), fnv1a64(b"example.com"));
        assert_eq!(shard_of_hash(k.hash(), 1), 0);
        assert_eq!(shard_of_hash(10, 4), 2);
        assert_eq!(shard_file_name(65_535), "shard-65535.store");
    }

    /// A set of `n` empty shards in a fresh directory.
    fn empty_set(name: &str, n: usize) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("robocc-set-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let meta = crate::store::StoreMeta {
            agent: "Googlebot".into(),
            dialect: Dialect::Rfc9309,
            compiler_version: "0.1.0".into(),
            options_hash: 7,
        };
        let mut idx = SetIndex {
            agent: meta.agent.clone(),
            dialect: meta.dialect,
            options_hash: meta.options_hash,
            compiler_version: meta.compiler_version.clone(),
            shards: Vec::new(),
        };
        for i in 0..n {
            let bytes = crate::store::write_store(&meta, Vec::new(), &[]).unwrap();
            std::fs::write(dir.join(shard_file_name(i)), &bytes[..]).unwrap();
            idx.shards.push(ShardInfo {
                bytes: bytes.len() as u64,
                hosts: 0,
                checksum: fnv1a64(&bytes),
            });
        }
        std::fs::write(dir.join(STORE_SET_INDEX), idx.to_text().unwrap()).unwrap();
        dir
    }

    #[test]
    fn shards_are_opened_lazily_and_checked_against_the_index() {
        let dir = empty_set("lazy", 3);
        std::fs::remove_file(dir.join(shard_file_name(1))).unwrap();
        // Opening does not notice: no shard is read.
        let set = StoreSet::open(&dir).unwrap();
        assert_eq!((set.shard_count(), set.host_count()), (3, 0));
        assert!(set.shard(0).is_ok());
        let e = set.shard(1).unwrap_err();
        assert!(e.to_string().contains("shard-00001.store"), "{e}");
        assert_eq!(set.shard(1).unwrap_err(), e, "a failed shard fails alike");
        assert!(set.shard(3).is_err());
        assert!(set.verify().is_err());
        // A shard of another size than the index says.
        let mut bytes = std::fs::read(dir.join(shard_file_name(0))).unwrap();
        std::fs::write(dir.join(shard_file_name(1)), &bytes).unwrap();
        bytes.extend_from_slice(&[0; 16]);
        std::fs::write(dir.join(shard_file_name(2)), &bytes).unwrap();
        let set = StoreSet::open(&dir).unwrap();
        set.verify_shard(1).unwrap();
        let e = set.shard(2).unwrap_err();
        assert!(e.to_string().contains("shard-00002.store"), "{e}");
        // URLs without a host, or whose shard is fine, answer.
        assert_eq!(set.check(b"/path").unwrap(), None);
        let url = (0..100)
            .map(|i| format!("https://h{i}.example/"))
            .find(|u| set.shard_of(u.as_bytes()) == Some(0))
            .unwrap();
        assert_eq!(set.check(url.as_bytes()).unwrap(), None);
        let mut out = [Some(Verdict {
            allowed: true,
            rule: None,
        }); 2];
        set.check_batch(&[url.as_bytes(), b"/x"], &mut out).unwrap();
        assert_eq!(out, [None, None]);
        let bad = (0..100)
            .map(|i| format!("https://h{i}.example/"))
            .find(|u| set.shard_of(u.as_bytes()) == Some(2))
            .unwrap();
        let e = set
            .check_batch(&[url.as_bytes(), bad.as_bytes()], &mut out)
            .unwrap_err();
        assert_eq!(e.index, 1);
        assert_eq!(out[0], None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A batch whose slices differ in length is refused (a panic), as a
    /// single store's is.
    #[test]
    #[should_panic(expected = "check_batch: 1 URLs but 2 verdict slots")]
    fn check_batch_refuses_mismatched_slices() {
        let dir = empty_set("mismatch", 1);
        let set = StoreSet::open(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let mut out = [None; 2];
        let _ = set.check_batch(&[b"https://a.example/"], &mut out);
    }

    #[test]
    fn a_set_is_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<StoreSet>();
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_index() {
        let e = StoreSet::open("/nonexistent/robocc-set").unwrap_err();
        assert!(e.to_string().contains("index.txt"), "{e}");
        assert_eq!(e.file_kind(), FileKind::StoreSet);
    }
}
