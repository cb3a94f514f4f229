//! Collect: the inputs streamed into host rows and distinct bodies (each
//! kept once, up to what the parser reads), compiled a batch at a time.

use super::compile::{compile_bodies, Built, Reusable};
use super::spill::Spill;
use super::{release_freed_memory, StoreBuilder, ALLOW_ALL, DISALLOW_ALL, FAILED_INPUT};
use crate::host::{host_key, is_self_redirect};
use crate::inputs::{
    body_keep, digest_mismatch, prefix_reads_as_whole, read_body, HostInput, InputError,
    InputErrorKind,
};
use robocc_engine::{fetched_at_kept, HostSource, Store};
use std::collections::HashMap;

/// Hosts and distinct bodies, as the inputs stream in.
#[derive(Default)]
pub(super) struct Collected {
    /// Host keys and their inputs (body replaced by a body id), in input
    /// order, duplicates included.
    pub(super) hosts: HostRows,
    /// Distinct bodies; ids 0 and 1 are the synthetic allow-all and
    /// disallow-all bodies.
    pub(super) bodies: Vec<Body>,
    /// Hash of a body's bytes (`hasher`) → ids with that hash.
    pub(super) by_hash: HashMap<u64, Vec<u32>>,
    /// SHA-256 of a body kept as its first bytes ([`Body::len`]) → its id.
    pub(super) by_digest: HashMap<[u8; 32], u32>,
    /// The parse limit: of a body longer than it, only what the compile
    /// reads is kept ([`Collected::intern`]).
    pub(super) max_bytes: usize,
    /// Every body read is hashed to find duplicates: std's keyed SipHash,
    /// about 3× faster than FNV-1a's byte-serial multiply and not open to
    /// chosen collisions. The SHA-256 kept in artifacts is computed once
    /// per distinct body.
    pub(super) hasher: std::hash::RandomState,
    /// A stated SHA-256 of which the base store has a policy → the body
    /// (not read) that the policy stands for.
    pub(super) from_base: HashMap<[u8; 32], u32>,
    /// Reasons of inputs known to be broken; `FAILED_INPUT | i` is the
    /// pseudo-body id of reason `i` (never compiled).
    pub(super) failures: Vec<String>,
    pub(super) duplicates: Vec<String>,
    pub(super) self_redirects: usize,
    pub(super) bodies_read: usize,
    pub(super) bodies_skipped: usize,
    pub(super) bodies_unreadable: usize,
    /// Why a 304 found no policy to keep, by host key (settled once the
    /// duplicates are: see `prepare`).
    pub(super) not_modified_lost: HashMap<String, String>,
    /// Bodies interned and not compiled yet, and their bytes.
    pub(super) pending: Vec<u32>,
    pub(super) pending_bytes: usize,
    /// Bodies compiled as the input streamed, by id (their bytes dropped).
    pub(super) built: HashMap<u32, Built>,
    /// How many were.
    pub(super) compiled: usize,
    pub(super) spill: Spill,
}

/// A distinct body.
#[derive(Default)]
pub(super) struct Body {
    /// Its bytes, or only its first bytes when `len` is given; empty when
    /// it was not read.
    pub(super) bytes: Vec<u8>,
    /// The whole body's length, when `bytes` holds only the prefix that
    /// the compile reads ([`prefix_reads_as_whole`]; `sha256` is then the
    /// whole body's).
    pub(super) len: Option<u64>,
    /// Its SHA-256, once known.
    pub(super) sha256: Option<[u8; 32]>,
    /// Not read: an input stated `sha256`, and the base store's policy of
    /// that digest stands for it.
    pub(super) from_base: bool,
    /// Compiled already, its bytes dropped (`sha256` identifies it).
    pub(super) compiled: bool,
}

impl Body {
    pub(super) fn sha256(&mut self) -> [u8; 32] {
        *self
            .sha256
            .get_or_insert_with(|| robocc_compiler::sha256(&self.bytes))
    }
}

/// Host inputs as a build keeps them: a fixed-size row each, the text in
/// one arena. A `String` per key and per optional field made about 135
/// bytes per host at a million hosts; this is about 50 (32-byte rows plus
/// the text), and the build keeps it until the index is written.
#[derive(Default)]
pub(super) struct HostRows {
    pub(super) rows: Vec<HostRow>,
    /// Each row's key, then its location and fetch time if it has them.
    pub(super) text: String,
}

#[derive(Clone, Copy)]
pub(super) struct HostRow {
    /// Where the row's text starts in [`HostRows::text`].
    pub(super) at: usize,
    pub(super) key_len: u32,
    /// [`ABSENT`] when the input had none.
    pub(super) location_len: u32,
    pub(super) fetched_at_len: u32,
    pub(super) status: u16,
    pub(super) body: Option<u32>,
}

/// The length of an optional field an input did not have.
pub(super) const ABSENT: u32 = u32::MAX;

impl HostRows {
    /// Appends a host (its location below [`ABSENT`] bytes: see
    /// [`HostRows::too_long`]). The fetch time is cut to what the index
    /// keeps ([`fetched_at_kept`]).
    pub(super) fn push(&mut self, key: &str, status: u16, body: Option<u32>, input: &HostInput) {
        let at = self.text.len();
        let mut add = |field: Option<&str>| match field {
            Some(f) => {
                self.text.push_str(f);
                f.len() as u32
            }
            None => ABSENT,
        };
        let key_len = add(Some(key));
        let location_len = add(input.location.as_deref());
        let fetched_at_len = add(input.fetched_at.as_deref().map(fetched_at_kept));
        self.rows.push(HostRow {
            at,
            key_len,
            location_len,
            fetched_at_len,
            status,
            body,
        });
    }

    /// The field of an input that a row cannot hold, if any.
    pub(super) fn too_long(input: &HostInput) -> Option<&'static str> {
        let long = input
            .location
            .as_ref()
            .is_some_and(|l| l.len() >= ABSENT as usize);
        long.then_some("location")
    }

    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn key(&self, i: usize) -> &str {
        self.rows[i].key(&self.text)
    }

    pub(super) fn fetched_at(&self, i: usize) -> Option<&str> {
        self.rows[i].field(&self.text, 2)
    }

    pub(super) fn status(&self, i: usize) -> u16 {
        self.rows[i].status
    }

    /// The row of `key`, once the rows are sorted by key.
    pub(super) fn find(&self, key: &str) -> Option<&HostRow> {
        let i = self
            .rows
            .binary_search_by(|r| r.key(&self.text).cmp(key))
            .ok()?;
        Some(&self.rows[i])
    }
}

impl HostRow {
    /// Field `n` of the row in `text`: 0 key, 1 location, 2 fetch time.
    pub(super) fn field<'t>(&self, text: &'t str, n: usize) -> Option<&'t str> {
        let lens = [self.key_len, self.location_len, self.fetched_at_len];
        if lens[n] == ABSENT {
            return None;
        }
        let before: usize = lens[..n]
            .iter()
            .filter(|&&l| l != ABSENT)
            .map(|&l| l as usize)
            .sum();
        let start = self.at + before;
        text.get(start..start + lens[n] as usize)
    }

    pub(super) fn key<'t>(&self, text: &'t str) -> &'t str {
        self.field(text, 0).unwrap_or("")
    }

    pub(super) fn location<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.field(text, 1)
    }
}

impl Collected {
    pub(super) fn new(max_bytes: usize) -> Collected {
        let mut c = Collected {
            max_bytes,
            ..Collected::default()
        };
        c.intern(ALLOW_ALL.to_vec());
        c.intern(DISALLOW_ALL.to_vec());
        c
    }

    /// The id of a body, distinct bodies kept once. Of a body longer than
    /// the parse limit, only what the compile reads is kept (the limit plus
    /// a byte, at least the bytes that tell how a body is read), with the
    /// whole body's SHA-256 and length, which identify it and which its
    /// policy records: a few thousand hosts serving megabytes of HTML as
    /// robots.txt cost that much each, not megabytes
    /// ([`robocc_compiler::compile_prefix`] compiles it as the whole).
    pub(super) fn intern(&mut self, mut body: Vec<u8>) -> u32 {
        let keep = body_keep(self.max_bytes);
        if body.len() > keep && prefix_reads_as_whole(&body[..keep], self.max_bytes) {
            let digest = robocc_compiler::sha256(&body);
            let len = body.len() as u64;
            body.truncate(keep);
            return self.intern_prefix(body, len, digest);
        }
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, &body[..]);
        let ids = self.by_hash.entry(hash).or_default();
        let bodies = &self.bodies;
        // A compiled body's bytes are gone: its SHA-256 stands for them
        // (computed for a body only when its hash meets one).
        let mut digest = None;
        if let Some(&id) = ids.iter().find(|&&id| {
            let b = &bodies[id as usize];
            if b.compiled {
                b.sha256 == Some(*digest.get_or_insert_with(|| robocc_compiler::sha256(&body)))
            } else {
                b.bytes == body
            }
        }) {
            return id;
        }
        let id = self.bodies.len() as u32;
        self.pending_bytes += body.len();
        self.bodies.push(Body {
            bytes: body,
            ..Body::default()
        });
        ids.push(id);
        self.pending.push(id);
        id
    }

    /// Compiles the bodies interned since the last call and drops their
    /// bytes, keeping each one's SHA-256 (which finds its duplicates) and
    /// policy.
    pub(super) fn compile_pending(&mut self, builder: &StoreBuilder<'_>, reusable: &Reusable) {
        let ids = std::mem::take(&mut self.pending);
        let built = compile_bodies(
            &self.bodies,
            &ids,
            builder,
            reusable,
            self.compiled,
            &mut self.spill,
        );
        self.compiled += ids.len();
        for (&id, b) in ids.iter().zip(built) {
            let body = &mut self.bodies[id as usize];
            body.sha256();
            body.bytes = Vec::new();
            body.compiled = true;
            self.built.insert(id, b);
        }
        self.pending_bytes = 0;
        release_freed_memory();
    }

    /// The id of a body kept as its first bytes ([`body_keep`]), with the
    /// whole body's length and SHA-256 (which identify it).
    pub(super) fn intern_prefix(&mut self, mut prefix: Vec<u8>, len: u64, digest: [u8; 32]) -> u32 {
        if let Some(&id) = self.by_digest.get(&digest) {
            return id;
        }
        prefix.shrink_to_fit();
        let id = self.bodies.len() as u32;
        self.pending_bytes += prefix.len();
        self.bodies.push(Body {
            bytes: prefix,
            len: Some(len),
            sha256: Some(digest),
            ..Body::default()
        });
        self.by_digest.insert(digest, id);
        self.pending.push(id);
        id
    }

    /// The body id of an input (`None`: its status uses no body, or it has
    /// none). A body file is not read when the input states a digest of
    /// which the base store has a reusable policy: that policy stands for
    /// it (the input's statement is trusted, as its `body_path` is). A body
    /// that is read is checked against the stated digest.
    pub(super) fn body_of(
        &mut self,
        input: &mut HostInput,
        base: &Reusable,
    ) -> Result<Option<u32>, String> {
        // Only a 2xx response's body is compiled (RFC 9309 §2.3.1): another
        // status's is neither read nor checked.
        if !(200..300).contains(&input.status) {
            return Ok(None);
        }
        let claimed = input.sha256;
        if let (None, Some(_), Some(d)) = (&input.body, &input.body_path, claimed) {
            if base.contains_key(&d) {
                self.bodies_skipped += 1;
                return Ok(Some(self.base_body(d)));
            }
        }
        let id = match (input.body.take(), &input.body_path) {
            (Some(b), _) => self.intern(b),
            (None, Some(p)) => {
                self.bodies_read += 1;
                let read = read_body(p, self.max_bytes).inspect_err(|_| {
                    self.bodies_unreadable += 1;
                })?;
                match read.whole {
                    Some((len, digest)) => self.intern_prefix(read.bytes, len, digest),
                    None => self.intern(read.bytes),
                }
            }
            (None, None) => return Ok(None),
        };
        if let Some(d) = claimed {
            let actual = self.bodies[id as usize].sha256();
            if actual != d {
                return Err(digest_mismatch(&actual, &d));
            }
        }
        Ok(Some(id))
    }

    /// The body (not read) that the base store's reusable policy of
    /// source digest `d` stands for.
    pub(super) fn base_body(&mut self, d: [u8; 32]) -> u32 {
        let bodies = &mut self.bodies;
        *self.from_base.entry(d).or_insert_with(|| {
            bodies.push(Body {
                sha256: Some(d),
                from_base: true,
                ..Body::default()
            });
            (bodies.len() - 1) as u32
        })
    }

    /// A 304 Not Modified answers a conditional fetch: the robots.txt the
    /// crawler holds is current. Its body id ([`kept_by_base`]): the base
    /// store's policy, a failure, or none, noting why (the row is then
    /// unreachable: [`resolve`](super::resolve::resolve)). A 304 has no body or target of its own:
    /// any it states is not read.
    pub(super) fn not_modified(
        &mut self,
        key: &str,
        input: &mut HostInput,
        base: Option<&Store>,
        reusable: &Reusable,
    ) -> Option<u32> {
        input.location = None;
        match kept_by_base(key, base, reusable) {
            Ok(Kept::Policy(d)) => Some(self.base_body(d)),
            Ok(Kept::Failed) => Some(self.failure(
                "304 Not Modified: the --base store holds this host's robots.txt as failed".into(),
            )),
            Err(why) => {
                self.not_modified_lost.insert(key.to_string(), why);
                None
            }
        }
    }

    pub(super) fn add(
        &mut self,
        mut input: HostInput,
        base: &Reusable,
        base_store: Option<&Store>,
    ) -> Result<(), InputError> {
        let key = host_key(&input.host).map_err(|why| InputError {
            at: format!("host {:?}", input.host),
            kind: InputErrorKind::BadHost(input.host.clone(), why),
        })?;
        if let Some(field) = HostRows::too_long(&input) {
            return Err(InputError {
                at: format!("host {:?}", input.host),
                kind: InputErrorKind::TooLong(field),
            });
        }
        let body = match input.failure.take() {
            Some(why) => Some(self.failure(why)),
            None if input.status == 304 => self.not_modified(&key, &mut input, base_store, base),
            None => match self.body_of(&mut input, base) {
                Ok(id) => id,
                Err(why) => Some(self.failure(why)),
            },
        };
        // Duplicates are resolved once the hosts are sorted ([`Collected::hosts`]).
        self.hosts.push(&key, input.status, body, &input);
        Ok(())
    }

    /// The hosts sorted by key, one record each. Of a host given twice the
    /// last wins, except that a redirect to the host itself (http → https,
    /// as Common Crawl records them beside the capture they lead to) never
    /// replaces another result. Pushing every input and sorting once is
    /// ~2× faster than a hash map at a million hosts (no hashing, no
    /// rehashing, no random writes).
    pub(super) fn hosts(&mut self) -> HostRows {
        let mut hosts = std::mem::take(&mut self.hosts);
        let HostRows { rows, text } = &mut hosts;
        let text = &*text;
        // Stable: a host's inputs stay in the order they came.
        rows.sort_by(|a, b| a.key(text).cmp(b.key(text)));
        let duplicates = &mut self.duplicates;
        let self_redirects = &mut self.self_redirects;
        // `kept` came before `next`.
        rows.dedup_by(|next, kept| {
            let k = next.key(text);
            if k != kept.key(text) {
                return false;
            }
            let next_to_self = is_self_redirect(k, next.status, next.location(text));
            let kept_to_self = is_self_redirect(k, kept.status, kept.location(text));
            // The later input wins unless it says less: a 304 ("what you
            // hold is current") never replaces another answer of the host
            // in the same input, which is what it refers to, and a
            // redirect to itself replaces nothing.
            let says = |to_self: bool, status: u16| match (to_self, status) {
                (true, _) => 0,
                (false, 304) => 1,
                _ => 2,
            };
            if says(next_to_self, next.status) >= says(kept_to_self, kept.status) {
                std::mem::swap(kept, next);
            }
            // A redirect to itself set aside beside another capture of the
            // host (the http → https hop beside the capture it leads to) is
            // the expected shape, not a duplicate.
            if next_to_self != kept_to_self {
                *self_redirects += 1;
            } else {
                duplicates.push(k.to_string());
            }
            true
        });
        hosts
    }

    /// The pseudo-body id of a broken input.
    pub(super) fn failure(&mut self, why: String) -> u32 {
        self.failures.push(why);
        FAILED_INPUT | (self.failures.len() - 1) as u32
    }
}

/// What a 304 of host `key` keeps from the base store.
pub(super) enum Kept {
    /// The policy of this source digest (reusable by this build).
    Policy([u8; 32]),
    /// Nothing that compiled: the host failed there, and fails again.
    Failed,
}

/// What the base store holds for host `key` that a 304 can keep: its
/// policy when it holds the host as fetched with a policy this build may
/// reuse, its failure when it holds it as failed (the same file fails the
/// same way); else why not.
pub(super) fn kept_by_base(
    key: &str,
    base: Option<&Store>,
    reusable: &Reusable,
) -> Result<Kept, String> {
    let base = base.ok_or("no --base store")?;
    let host = match base.host(format!("http://{key}/").as_bytes()) {
        Ok(Some(h)) => h,
        Ok(None) => return Err("not in the --base store".into()),
        // Never after `validate_all`; a damaged record is not an absent host.
        Err(e) => return Err(format!("its --base record is damaged: {e}")),
    };
    match host.source {
        HostSource::Fetched => {}
        HostSource::Failed => return Ok(Kept::Failed),
        other => return Err(format!("the --base store holds it as {}", other.name())),
    }
    match base.policy(host.policy) {
        Ok(p) if reusable.contains_key(&p.header().source_sha256) => {
            Ok(Kept::Policy(p.header().source_sha256))
        }
        _ => Err("its --base policy cannot be reused: another agent or options, or damaged".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination of absent, empty and present optional fields reads
    /// back from the rows' shared text as it was given (a fetch time cut to
    /// the 255 bytes the index keeps, at a character boundary).
    #[test]
    fn host_rows_read_back_their_fields() {
        let long = "é".repeat(200);
        let values = [
            None,
            Some(""),
            Some("https://é.example/x"),
            Some("2026-01-01T00:00:00Z"),
            Some(long.as_str()),
        ];
        let mut rows = HostRows::default();
        let mut given = Vec::new();
        for (n, (&location, &fetched_at)) in values
            .iter()
            .flat_map(|l| values.iter().map(move |f| (l, f)))
            .enumerate()
        {
            let key = format!("h{n}.example");
            let input = HostInput {
                location: location.map(str::to_string),
                fetched_at: fetched_at.map(str::to_string),
                ..HostInput::default()
            };
            rows.push(&key, 300 + n as u16, Some(n as u32), &input);
            given.push((key, location, fetched_at));
        }
        for (i, (key, location, fetched_at)) in given.iter().enumerate() {
            assert_eq!(rows.key(i), key);
            assert_eq!(rows.rows[i].location(&rows.text), *location, "{key}");
            let kept = fetched_at.map(|f| if f.len() > 255 { &f[..254] } else { f });
            assert_eq!(rows.fetched_at(i), kept, "{key}");
            assert_eq!(rows.status(i), 300 + i as u16);
            assert_eq!(rows.rows[i].body, Some(i as u32));
        }
        let text = rows.text.clone();
        rows.rows.sort_by(|a, b| a.key(&text).cmp(b.key(&text)));
        for (n, (key, ..)) in given.iter().enumerate() {
            assert_eq!(rows.find(key).map(|r| r.status), Some(300 + n as u16));
        }
        assert!(rows.find("h25.example").is_none());
    }
}
