//! The store writer: [`write_store`] lays policies and hosts out as
//! [`super::layout`] says, trying the slot hash seeds in turn.

use super::layout::{
    home_slots, index_check, record_check, slot_check, slot_hints, strings_check, Slot, StoreIndex,
    HEAD_LEN, HINTS, INLINE_KEY, MAX_PROBE, POLICY_REC, SEEDS, SLOT,
};
use super::{HostKey, HostSource};
use crate::bytes::AlignedBytes;
use crate::format::{self, FileKind, ARCHIVE_ALIGN, CACHE_LINE};
use crate::ids::PolicyId;
use crate::types::Dialect;
use std::cmp::Ordering;

/// One host for [`write_store`] (with the `build` feature).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEntry<'a> {
    /// Stored key ([`HostKey::to_key`] form: lower case, `:port` only when
    /// not the scheme's default); [`write_store`] refuses another form.
    pub key: &'a str,
    /// Index into the policies given to [`write_store`].
    pub policy: PolicyId,
    /// Why this policy.
    pub source: HostSource,
    /// HTTP status the input gave (0: unreachable).
    pub status: u16,
    /// Fetch time as given (at most 255 bytes are kept).
    pub fetched_at: Option<&'a str>,
}

/// What a store says about all of its policies, for [`write_store`] (with
/// the `build` feature); [`Store`](crate::Store)'s accessors read it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreMeta {
    /// The product token every policy was compiled for (several joined by `,`).
    pub agent: String,
    /// The dialect every policy was compiled with.
    pub dialect: Dialect,
    /// `robocc-compiler` version that builds the store.
    pub compiler_version: String,
    /// The policies' common options fingerprint
    /// ([`Header::options_hash`](crate::Header::options_hash)).
    pub options_hash: u64,
}

/// Why [`write_store`] refused its input (with the `build` feature).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteStoreError {
    /// A policy artifact of 4 GiB or more.
    PolicyTooLarge(PolicyId),
    /// 2^32 hosts or more.
    TooManyHosts,
    /// A host key not in the stored form ([`HostKey::to_key`]).
    NotAKey(String),
    /// A host given twice.
    DuplicateHost(String),
    /// A host names a policy past the last one given.
    NoSuchPolicy {
        /// The host.
        host: String,
        /// The policy it names.
        policy: PolicyId,
        /// How many policies there are.
        policies: usize,
    },
    /// A host key of 64 KiB or more.
    KeyTooLong(String),
    /// The long host keys and fetch times come to 4 GiB or more.
    StringsTooLarge,
    /// Under every hash seed, this host would lie `distance` slots past
    /// its home, more than [`MAX_PROBE`](crate::MAX_PROBE): the key hashes
    /// of the hosts before it collide.
    Collide {
        /// The host.
        host: String,
        /// How far past its home slot, under the last seed.
        distance: usize,
    },
    /// The index could not be archived (rkyv's message).
    Archive(String),
    /// The store would be this many bytes, over the format's 4 GiB.
    TooLarge(usize),
}

impl std::fmt::Display for WriteStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteStoreError::PolicyTooLarge(_) => f.write_str("a policy over 4 GiB"),
            WriteStoreError::TooManyHosts => f.write_str("more than 2^32 hosts"),
            WriteStoreError::NotAKey(key) => write!(f, "{key:?} is not a stored host key"),
            WriteStoreError::DuplicateHost(key) => write!(f, "host {key:?} is given twice"),
            WriteStoreError::NoSuchPolicy {
                host,
                policy,
                policies,
            } => write!(f, "host {host:?} names policy {policy} of {policies}"),
            WriteStoreError::KeyTooLong(key) => write!(f, "host key {key:?} too long"),
            WriteStoreError::StringsTooLarge => f.write_str("host strings over 4 GiB"),
            WriteStoreError::Collide { host, distance } => write!(
                f,
                "host {host:?} would lie {distance} slots past its home in the index (at most \
                 {MAX_PROBE}) under each of the {} hash seeds: the key hashes of the hosts \
                 before it collide",
                SEEDS.len()
            ),
            WriteStoreError::Archive(e) => f.write_str(e),
            WriteStoreError::TooLarge(len) => {
                write!(f, "the store would be {len} bytes, over the format's 4 GiB")
            }
        }
    }
}

impl std::error::Error for WriteStoreError {}

/// Writes a store: `policies` are complete policy artifacts (frame and
/// archive), `hosts` name them by index. Returns the bytes (16-byte
/// aligned), which [`Store::from_slice`](crate::Store::from_slice) reads.
/// With the `build` feature. The bytes depend on the inputs alone (hosts
/// are placed by hash, whatever their order).
///
/// # Errors
///
/// A host key that is not a valid key, a host given twice or naming no
/// policy, or a store larger than the frame can announce (4 GiB).
pub fn write_store(
    meta: &StoreMeta,
    hosts: Vec<HostEntry<'_>>,
    policies: &[&[u8]],
) -> Result<AlignedBytes, WriteStoreError> {
    let mut out = rkyv::util::AlignedVec::<16>::new();
    out.extend_from_slice(&[0u8; format::FRAME_LEN + HEAD_LEN]);
    let mut records = Vec::with_capacity(policies.len() * POLICY_REC);
    let mut hints = Vec::with_capacity(policies.len());
    for (i, p) in (0..).zip(policies) {
        let start = out.len();
        let off = start - format::FRAME_LEN;
        let len = u32::try_from(p.len())
            .map_err(|_| WriteStoreError::PolicyTooLarge(PolicyId::new(i)))?;
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
    let count = u32::try_from(hosts.len()).map_err(|_| WriteStoreError::TooManyHosts)?;
    let mut tries = SEEDS.iter();
    let (seed, homes, slots, strings) = loop {
        let seed = *tries.next().expect("at least one seed");
        match place_hosts(&hosts, &hints, seed) {
            // Another seed may place them.
            Err(WriteStoreError::Collide { .. }) if tries.len() > 0 => continue,
            Err(e) => return Err(e),
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
        .map_err(|e| WriteStoreError::Archive(e.to_string()))?;
    drop(index);
    let archive_len = out.len() - index_at;
    let body_len = out.len() - format::FRAME_LEN;
    if body_len > format::MAX_FRAMED_LEN {
        return Err(WriteStoreError::TooLarge(out.len()));
    }
    out[format::FRAME_LEN..format::FRAME_LEN + 8].copy_from_slice(&index_off.to_le_bytes());
    out[format::FRAME_LEN + 8..format::FRAME_LEN + 16]
        .copy_from_slice(&(archive_len as u64).to_le_bytes());
    // Last: the frame's checksum covers everything after it.
    let frame = format::frame(FileKind::Store, &out[format::FRAME_LEN..]);
    out[..format::FRAME_LEN].copy_from_slice(&frame);
    Ok(AlignedBytes::from_rkyv(out))
}

/// What the index keeps of a host's fetch time: its first 255 bytes, cut at
/// a character boundary (a builder that holds many hosts cuts them early).
/// With the `build` feature.
pub fn fetched_at_kept(fetched_at: &str) -> &str {
    let mut cut = fetched_at.len().min(255);
    while !fetched_at.is_char_boundary(cut) {
        cut -= 1;
    }
    &fetched_at[..cut]
}

/// The slot table of `hosts` under hash `seed`: the home slot count, the
/// slots and the strings.
fn place_hosts(
    hosts: &[HostEntry<'_>],
    hints: &[[u8; HINTS]],
    seed: u64,
) -> Result<(usize, Vec<u8>, Vec<u8>), WriteStoreError> {
    let policies = hints.len();
    let count = hosts.len() as u32;
    // Hosts in index order: by hash (the top 32 bits a slot holds), then
    // key (then input order), sorted as (hash, position) pairs rather than
    // moving the entries.
    let mut keyed: Vec<(u32, u32)> = Vec::with_capacity(hosts.len());
    for (i, h) in (0..count).zip(hosts) {
        let hash = HostKey::of_key(h.key)
            .filter(|k| k.cmp_stored(h.key.as_bytes()) == Ordering::Equal)
            .ok_or_else(|| WriteStoreError::NotAKey(h.key.to_string()))?
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
        return Err(WriteStoreError::DuplicateHost(key(w[0].1).to_string()));
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
        if h.policy.index() >= policies {
            return Err(WriteStoreError::NoSuchPolicy {
                host: h.key.to_string(),
                policy: h.policy,
                policies,
            });
        }
        let rec = Slot {
            hash: *hash,
            strings: u32::try_from(strings.len()).map_err(|_| WriteStoreError::StringsTooLarge)?,
            key_len: u16::try_from(h.key.len())
                .map_err(|_| WriteStoreError::KeyTooLong(h.key.to_string()))?,
            fetched_len: fetched.len() as u8,
            source: h.source as u8,
            status: h.status,
            policy: h.policy.get(),
        };
        let home = rec.home(homes);
        let at = home.max(next);
        if at - home > MAX_PROBE {
            return Err(WriteStoreError::Collide {
                host: h.key.to_string(),
                distance: at - home,
            });
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
        let slot = rec.encode(&hints[h.policy.index()], h.key.as_bytes());
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
    use super::HostKey;

    /// Keys chosen so that their first-seed hashes fall in 10 home slots
    /// overflow the probe limit under that seed, and not under the next.
    #[test]
    fn keys_that_collide_under_a_seed_are_refused_under_it() {
        use super::{place_hosts, HostEntry, HostSource, WriteStoreError, HINTS, MAX_PROBE, SEEDS};
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
                policy: crate::PolicyId::new(0),
                source: HostSource::Fetched,
                status: 200,
                fetched_at: None,
            })
            .collect();
        match place_hosts(&entries, &[[0; HINTS]], SEEDS[0]) {
            Err(e @ WriteStoreError::Collide { .. }) => {
                assert!(e.to_string().contains("slots past its home"), "{e}")
            }
            _ => panic!("placed under the seed the keys collide under"),
        }
        assert!(place_hosts(&entries, &[[0; HINTS]], SEEDS[1]).is_ok());
    }
}
