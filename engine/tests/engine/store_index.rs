//! The store's host index (format 11: an ordered linear-probing table of
//! 64-byte slots, one cache line each, with a check word, their policy's
//! prefetch hints and keys inline up to 26 bytes): every host of a large
//! store is found by every lookup API, with the same answer as its own
//! policy, also when hashes share their top bits (the home); every flip of
//! a small store, and sampled flips of a large one, are refused by the
//! lookup that reads them or change no answer; a corrupted host count or
//! seed is refused at open; the writer places keys chosen to collide under
//! another hash seed; a batch with two faults reports the first URL a
//! single check refuses.

use robocc_engine::{
    write_store, Dialect, HostEntry, HostKey, HostSource, Policy, PolicyId, Store, StoreMeta,
    WriteStoreError, MAX_PROBE,
};

/// Artifacts are read in place, so they must be aligned as archives are.
#[repr(C, align(16))]
struct Aligned<T: ?Sized>(T);

static SMALL_ALIGNED: &Aligned<[u8]> = &Aligned(*include_bytes!("../data/small.policy"));
static REGISTER_ALIGNED: &Aligned<[u8]> = &Aligned(*include_bytes!("../data/register.policy"));
const SMALL: &[u8] = &SMALL_ALIGNED.0;
const REGISTER: &[u8] = &REGISTER_ALIGNED.0;

/// Bytes of a slot (docs/artifact.md).
const SLOT: usize = 64;
/// Where a slot's policy hints lie.
const HINTS: std::ops::Range<usize> = 22..38;

/// Host `i`'s policy: SMALL for even hosts, REGISTER for odd ones.
fn policy_of(i: usize) -> PolicyId {
    PolicyId::new((i % 2) as u32)
}

fn key(i: usize) -> String {
    // Varied lengths and shapes, a port now and then.
    match i % 5 {
        0 => format!("h{i}.example.com"),
        1 => format!("www.host-{i}.example.org"),
        2 => format!("{i}.x"),
        3 => format!("h{i}.example.net:8080"),
        _ => format!("a.very.long.subdomain.name.of.host{i}.example.co.uk"),
    }
}

fn store(hosts: usize) -> Vec<u8> {
    let keys: Vec<String> = (0..hosts).map(key).collect();
    write(&keys).unwrap()
}

fn write(keys: &[String]) -> Result<Vec<u8>, WriteStoreError> {
    write_store(&meta(), entries(keys), &[SMALL, REGISTER]).map(|b| b.to_vec())
}

const PATHS: [&str; 4] = ["/", "/private/x", "/a/b?c=d", "/x#frag"];

fn url(i: usize, path: &str) -> String {
    format!("https://{}{path}", key(i))
}

/// What host `i` must answer: its own policy's verdict.
fn want(i: usize, path: &str) -> robocc_engine::Verdict {
    let bytes = if i % 2 == 0 { SMALL } else { REGISTER };
    Policy::from_bytes(bytes)
        .unwrap()
        .check(url(i, path).as_bytes())
}

/// The store's checksum refused it (every flip of a file is; a test of
/// what the structure sees asks for another kind).
fn is_checksum(e: &robocc_engine::LoadError) -> bool {
    matches!(e.kind(), robocc_engine::LoadErrorKind::Checksum { .. })
}
#[test]
fn every_host_of_a_large_store_is_found_by_every_api() {
    // Tiny tables (whose last records spill past the home slots), and
    // larger ones.
    for hosts in [0, 1, 2, 3, 4, 5, 1023, 1024, 1025, 6000] {
        let bytes = store(hosts);
        let s = Store::from_slice(&bytes).unwrap();
        assert_eq!(s.host_count(), hosts);
        // Each slot is one cache line of a mapped store (mapped from a page
        // boundary, so an offset that is a multiple of 64).
        assert_eq!(s.slot_table().start % SLOT, 0, "{hosts} hosts");
        s.validate_all().unwrap();
        let mut urls = Vec::new();
        let mut wants = Vec::new();
        for i in 0..hosts {
            for path in PATHS {
                let u = url(i, path);
                let w = Some(want(i, path));
                assert_eq!(s.check(u.as_bytes()).unwrap(), w, "{u}");
                let info = s.host(u.as_bytes()).unwrap().expect("found");
                assert_eq!(info.key, key(i));
                assert_eq!(info.policy, policy_of(i));
                let fetched = (i % 3 == 0).then_some("2026-11-24T00:00:00Z");
                assert_eq!(info.fetched_at, fetched);
                urls.push(u);
                wants.push(w);
            }
            // A host the store does not have, next to one it has.
            urls.push(format!("https://absent-{i}.example.com/private/x"));
            wants.push(None);
            // The same host written otherwise: upper case, a default port,
            // a network-path reference (its path found the general way).
            let k = key(i);
            for u in [
                format!("HTTPS://{}/private/x", k.to_uppercase()),
                format!("https://{k}/private/x").replacen("https://", "//", 1),
            ] {
                urls.push(u);
                wants.push(Some(want(i, "/private/x")));
            }
            if !k.contains(':') {
                urls.push(format!("https://{k}:443/private/x"));
                wants.push(Some(want(i, "/private/x")));
            }
        }
        // URLs without a host, and a run longer than a batch's chunk.
        for u in ["/private/x", "a.example", ""] {
            urls.push(u.into());
            wants.push(None);
        }
        if hosts > 0 {
            for _ in 0..70 {
                urls.push(url(0, "/private/x"));
                wants.push(Some(want(0, "/private/x")));
            }
        }
        // Batches: runs of one host (as generated), then hosts interleaved.
        let mut order: Vec<usize> = (0..urls.len()).collect();
        for pass in 0..2 {
            if pass == 1 {
                order.sort_by_key(|&i| (i * 7919) % urls.len().max(1));
            }
            let refs: Vec<&[u8]> = order.iter().map(|&i| urls[i].as_bytes()).collect();
            let mut out = vec![None; refs.len()];
            s.check_batch(&refs, &mut out).unwrap();
            for (&i, got) in order.iter().zip(&out) {
                assert_eq!(*got, wants[i], "check_batch pass {pass}: {}", urls[i]);
            }
        }
    }
}

/// Every flip in the slot table is seen by the lookups that read the slot
/// (its check word) and by `validate_all`'s structure: a lookup answers as
/// the intact store does or refuses, never hides a host, and a batch
/// refuses the first URL a single check refuses.
#[test]
fn a_corrupted_slot_is_refused_by_the_lookups_that_read_it() {
    let hosts = 60;
    let bytes = store(hosts);
    let table = Store::from_slice(&bytes).unwrap().slot_table();
    let urls: Vec<String> = (0..hosts).map(|i| url(i, "/private/x")).collect();
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let (mut refused, mut answered) = (0, 0);
    for at in table.clone() {
        let field = (at - table.start) % SLOT;
        for flip in [0x01u8, 0x80] {
            let mut m = bytes.clone();
            m[at] ^= flip;
            let s = Store::from_slice(&m).expect("opening reads no slot");
            let what = format!(
                "byte {field} of slot {} ^ {flip:#x}",
                (at - table.start) / SLOT
            );
            let e = s.validate_all().expect_err("validate_all reads every slot");
            assert!(
                !is_checksum(&e),
                "validate_all's structure sees {what}: {e}"
            );
            let mut single = Vec::new();
            for (i, u) in refs.iter().enumerate() {
                let got = s.check(u);
                match &got {
                    Ok(v) => {
                        assert_eq!(*v, Some(want(i, "/private/x")), "{what}: {}", urls[i]);
                        answered += 1;
                    }
                    Err(e) => {
                        let e = e.to_string();
                        assert!(e.contains("slot") && e.contains("damaged"), "{e}");
                        refused += 1;
                    }
                }
                single.push(got);
            }
            // The batch refuses exactly the first URL a single check
            // refuses, having answered every URL before it as they do.
            let first_refused = single.iter().position(Result::is_err);
            let mut out = vec![None; hosts];
            let answered_to = match s.check_batch(&refs, &mut out) {
                Ok(()) => {
                    assert_eq!(first_refused, None, "{what}");
                    hosts
                }
                Err(e) => {
                    assert_eq!(Some(e.index), first_refused, "{what}");
                    e.index
                }
            };
            for (got, one) in out[..answered_to].iter().zip(&single) {
                assert_eq!(got, one.as_ref().unwrap(), "batch, {what}");
            }
        }
    }
    assert!(refused > 0 && answered > 0, "{refused} {answered}");
}

#[test]
fn hashes_that_collide_under_one_seed_are_placed_under_the_next() {
    // Keys whose first-seed hashes all fall in the first 10 of 1,375 home
    // slots: under that seed the records would pile up past MAX_PROBE slots
    // from their homes (keys chosen to collide), so the writer takes the
    // next seed, and every host is found.
    let hosts = MAX_PROBE + 76;
    let homes = (hosts + hosts / 4) as u64;
    let keys: Vec<String> = (0..)
        .map(|n| format!("c{n}.example"))
        .filter(|k| (hash(k) >> 32) * homes < 10 << 32)
        .take(hosts)
        .collect();
    let bytes = write(&keys).unwrap();
    let s = Store::from_slice(&bytes).unwrap();
    s.validate_all().unwrap();
    for k in &keys {
        let u = format!("https://{k}/private/x");
        assert_eq!(s.host(u.as_bytes()).unwrap().unwrap().key, k);
    }
    // Not the first seed: the first record's hash is not its key's under it.
    let first = s.hosts().next().unwrap().unwrap().key;
    let table = &bytes[s.slot_table()];
    let at = (0..)
        .map(|i| &table[i * SLOT..(i + 1) * SLOT])
        .find(|slot| slot.iter().any(|&b| b != 0))
        .unwrap();
    let stored = u32::from_le_bytes(at[4..8].try_into().unwrap());
    assert_ne!(stored, (hash(first) >> 32) as u32);
}

/// A key's slot hash under the first seed (the one every store here has
/// but the one built to collide).
fn hash(key: &str) -> u64 {
    HostKey::of_key(key).unwrap().slot_hash(0)
}

/// Two keys `f` makes whose hashes share their top 32 bits (one home in
/// any table), the smaller hash first.
fn same_home(f: impl Fn(u64) -> String) -> (String, String) {
    let mut seen = std::collections::HashMap::new();
    for n in 0.. {
        let k = f(n);
        if let Some(o) = seen.insert(hash(&k) >> 32, k.clone()) {
            return if hash(&o) < hash(&k) { (o, k) } else { (k, o) };
        }
    }
    unreachable!()
}

fn entries(keys: &[String]) -> Vec<HostEntry<'_>> {
    keys.iter()
        .enumerate()
        .map(|(i, key)| HostEntry {
            key,
            policy: policy_of(i),
            source: HostSource::Fetched,
            status: 200,
            // Some fetch times, next to short (inline) and long keys.
            fetched_at: (i % 3 == 0).then_some("2026-11-24T00:00:00Z"),
        })
        .collect()
}

fn meta() -> StoreMeta {
    StoreMeta {
        agent: "Googlebot".into(),
        dialect: Dialect::Rfc9309,
        compiler_version: "test".into(),
        options_hash: 0,
    }
}

#[test]
fn hosts_of_one_home_and_keys_around_the_inline_length_are_found() {
    // Keys of 26 bytes (inline), 27 and 32 (in the strings), with ports,
    // and a 26-byte key next to a 27-byte one.
    let pairs = [
        same_home(|n| format!("h{n:017}.example")),
        same_home(|n| format!("h{n:018}.example")),
        same_home(|n| format!("h{n:023}.example")),
        same_home(|n| format!("p{n}.ex:{}", 1000 + n % 5000)),
        same_home(|n| format!("h{:0w$}.example", n / 2, w = 17 + (n % 2) as usize)),
    ];
    for (a, b) in &pairs {
        for extra in 0..5 {
            let mut all = vec![a.clone(), b.clone()];
            all.extend((0..extra).map(|i| format!("x{i}.example")));
            // Both, then each of the two left out.
            for absent in [None, Some(0), Some(1)] {
                let keys: Vec<String> = (0..all.len())
                    .filter(|&i| Some(i) != absent)
                    .map(|i| all[i].clone())
                    .collect();
                let bytes = write_store(&meta(), entries(&keys), &[SMALL, REGISTER]).unwrap();
                let s = Store::from_slice(&bytes).unwrap();
                s.validate_all().unwrap();
                for k in &all {
                    let got = s.host(format!("https://{k}/").as_bytes()).unwrap();
                    match keys.iter().position(|p| p == k) {
                        Some(i) => {
                            let got = got.expect(k);
                            assert_eq!((got.key, got.policy), (k.as_str(), policy_of(i)));
                        }
                        None => assert_eq!(got, None, "{k}"),
                    }
                }
            }
        }
    }
}

#[test]
fn no_flip_in_a_host_of_the_same_home_answers_for_another() {
    // B's slot comes first; A's lookup passes it. Long keys (in the
    // strings, where B's offset could point at A's key) and inline ones.
    for (b, a) in [
        same_home(|n| format!("h{n:023}.example")),
        same_home(|n| format!("h{n:017}.example")),
    ] {
        let keys = [b.clone(), a.clone()];
        // No fetch times: A's long key then starts right after B's, one
        // bit away from B's offset 0.
        let mut hosts = entries(&keys);
        hosts.iter_mut().for_each(|h| h.fetched_at = None);
        let bytes = write_store(&meta(), hosts, &[SMALL, REGISTER]).unwrap();
        let table = Store::from_slice(&bytes).unwrap().slot_table();
        let slot_b = (table.start..table.end)
            .step_by(SLOT)
            .find(|&at| bytes[at..at + SLOT].iter().any(|&x| x != 0))
            .unwrap();
        for at in slot_b..slot_b + SLOT {
            for bit in 0..8 {
                let mut m = bytes.to_vec();
                m[at] ^= 1 << bit;
                let Ok(s) = Store::from_slice(&m) else {
                    continue;
                };
                // A's own record (policy 1), not found, or refused: never B's.
                if let Ok(Some(got)) = s.host(format!("https://{a}/").as_bytes()) {
                    assert_eq!(
                        (got.key, got.policy),
                        (a.as_str(), PolicyId::new(1)),
                        "byte {}",
                        at - slot_b
                    );
                }
            }
        }
    }
}

#[test]
fn a_corrupted_host_count_or_seed_is_refused_at_open() {
    let bytes = store(60);
    // The index states the host count, the home slots and the slot hash
    // seed (the first: 0) side by side.
    let mut counts = 60u64.to_le_bytes().to_vec();
    counts.extend_from_slice(&75u64.to_le_bytes());
    counts.extend_from_slice(&0u64.to_le_bytes());
    let at = bytes
        .windows(24)
        .position(|w| w == counts)
        .expect("host count, homes and seed in the index");
    for byte in at..at + 24 {
        for bit in 0..8 {
            let mut m = bytes.clone();
            m[byte] ^= 1 << bit;
            assert!(
                Store::from_slice(&m).is_err(),
                "byte {} bit {bit}",
                byte - at
            );
        }
    }
}

#[test]
fn the_writer_refuses_a_host_twice_and_a_policy_it_was_not_given() {
    let keys = [
        "a.example".to_string(),
        "b.example".into(),
        "a.example".into(),
    ];
    let e = write_store(&meta(), entries(&keys), &[SMALL, REGISTER]).unwrap_err();
    assert_eq!(e, WriteStoreError::DuplicateHost("a.example".into()));
    assert!(
        e.to_string().contains("\"a.example\" is given twice"),
        "{e}"
    );
    let keys = ["a.example".to_string(), "b.example".into()];
    let e = write_store(&meta(), entries(&keys), &[SMALL]).unwrap_err();
    assert!(e.to_string().contains("names policy 1 of 1"), "{e}");
}

#[test]
fn a_large_store_in_memory_answers_as_its_mapped_file() {
    // From 4 MiB on, `Store::from_slice` copies into memory mapped for it
    // (huge pages asked for) rather than into the heap.
    let hosts = 75_000;
    let bytes = store(hosts);
    assert!(bytes.len() >= 4 << 20, "{} bytes", bytes.len());
    let path = std::env::temp_dir().join(format!("robocc-large-{}.store", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let mapped = Store::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let copied = Store::from_slice(&bytes).unwrap();
    copied.validate_all().unwrap();
    for i in (0..hosts).step_by(7) {
        for path in PATHS {
            let u = url(i, path);
            let w = Some(want(i, path));
            assert_eq!(copied.check(u.as_bytes()).unwrap(), w, "{u}");
            assert_eq!(mapped.check(u.as_bytes()).unwrap(), w, "{u}");
        }
    }
    assert_eq!(copied.check(b"https://absent.example/").unwrap(), None);
}

/// The slot table starts on a line whatever lies before it, and each
/// slot's offset and length hints are where its policy is (derived here
/// from the layout docs/artifact.md states, not from the reader: policies
/// in order from byte 32, each 16-byte aligned).
#[test]
fn slots_are_lines_and_their_hints_say_where_the_policy_is() {
    let sets: [&[&[u8]]; 5] = [
        &[],
        &[SMALL],
        &[REGISTER],
        &[SMALL, REGISTER, SMALL],
        &[REGISTER, SMALL, SMALL, REGISTER],
    ];
    for policies in sets {
        let hosts = if policies.is_empty() { 0 } else { 40 };
        let keys: Vec<String> = (0..hosts).map(key).collect();
        let mut entries = entries(&keys);
        for (i, e) in entries.iter_mut().enumerate() {
            e.policy = PolicyId::new((i % policies.len().max(1)) as u32);
        }
        let bytes = write_store(&meta(), entries, policies).unwrap().to_vec();
        let s = Store::from_slice(&bytes).unwrap();
        s.validate_all().unwrap();
        let table = s.slot_table();
        assert_eq!(table.start % SLOT, 0, "{} policies", policies.len());
        let mut at = 16;
        let mut places = Vec::new();
        for p in policies {
            places.push((at, p.len()));
            at = (at + p.len()).next_multiple_of(16);
        }
        let le = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap()) as usize;
        let mut seen = 0;
        for slot in bytes[table].chunks(SLOT) {
            if slot[18..20] == [0, 0] {
                continue;
            }
            seen += 1;
            let (off, len) = places[le(&slot[8..12])];
            assert_eq!((le(&slot[22..26]), le(&slot[26..30])), (off, len));
            for k in 0..4 {
                let unit = u16::from_le_bytes([slot[30 + 2 * k], slot[31 + 2 * k]]);
                assert!(usize::from(unit) * 16 < len, "hint {k}: {unit}");
            }
        }
        assert_eq!(seen, hosts);
    }
}

/// A slot's check word as docs/artifact.md states it: `i × P + Σ wₖ × mₖ`
/// over the slot's 4-byte words after the first, `mₖ = G × (2k + 1)`.
fn slot_check(slot: &[u8], i: usize) -> u32 {
    const G: u32 = 0x9e37_79b9;
    const P: u32 = 0x85eb_ca6b;
    (1..SLOT / 4).fold((i as u32).wrapping_mul(P), |c, k| {
        let w = u32::from_le_bytes(slot[4 * k..4 * k + 4].try_into().unwrap());
        c.wrapping_add(w.wrapping_mul(G.wrapping_mul(2 * k as u32 + 1)))
    })
}

/// Hints that point anywhere (every hint byte 0xFF, the slots' check words
/// written anew, as a writer with a bug would) change no answer of any
/// lookup API: they are only prefetched. Only `validate_all` sees them.
#[test]
fn hints_that_point_anywhere_change_no_answer() {
    let hosts = 1025;
    let mut bytes = store(hosts);
    let table = Store::from_slice(&bytes).unwrap().slot_table();
    for (i, slot) in bytes[table].chunks_mut(SLOT).enumerate() {
        assert_eq!(slot[..4], slot_check(slot, i).to_le_bytes(), "slot {i}");
        if slot[18..20] != [0, 0] {
            slot[HINTS].fill(0xFF);
            let check = slot_check(slot, i);
            slot[..4].copy_from_slice(&check.to_le_bytes());
        }
    }
    let s = Store::from_slice(&bytes).unwrap();
    // Refused by the structure (hints are checked against their policy),
    // not only by the store's checksum.
    let e = s.validate_all().unwrap_err();
    assert!(!is_checksum(&e), "{e}");
    let cases: Vec<(String, Option<robocc_engine::Verdict>)> = (0..hosts)
        .flat_map(|i| PATHS.map(|p| (url(i, p), Some(want(i, p)))))
        .collect();
    for (u, w) in &cases {
        assert_eq!(s.check(u.as_bytes()).unwrap(), *w, "{u}");
        let p = s.policy_for(u.as_bytes()).unwrap().expect("found");
        assert_eq!(Some(p.check(u.as_bytes())), *w, "{u}");
    }
    let refs: Vec<&[u8]> = cases.iter().map(|c| c.0.as_bytes()).collect();
    let mut out = vec![None; refs.len()];
    s.check_batch(&refs, &mut out).unwrap();
    assert!(out.iter().zip(&cases).all(|(o, c)| *o == c.1));
}

/// Two faults in one batch: host 1's policy is corrupted (refused when the
/// batch makes its view, the last lookup stage) and host 2's slot is
/// (refused when the batch finds it, an earlier stage, so refused first).
/// The batch still reports the first URL a single check refuses, having
/// answered the one before it.
#[test]
fn a_batch_reports_its_first_refused_url_whatever_stage_refuses_it() {
    let hosts = 60;
    let bytes = store(hosts);
    let urls: Vec<String> = (0..hosts).map(|i| url(i, "/private/x")).collect();
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let s = Store::from_slice(&bytes).unwrap();
    let table = s.slot_table();
    // Odd hosts use policy 1: one flipped byte in its archive that
    // validation refuses (searched from the archive's end, where the root
    // record lies).
    let (small, odd) = (PolicyId::new(0), PolicyId::new(1));
    let register = s.policy_artifact(odd).unwrap().to_vec();
    let at = bytes
        .windows(register.len())
        .position(|w| w == register.as_slice())
        .expect("policy 1's artifact is in the store");
    let bad_policy = (0..register.len())
        .rev()
        .map(|k| {
            let mut m = bytes.clone();
            m[at + k] ^= 0x80;
            m
        })
        .find(|m| {
            Store::from_slice(m).is_ok_and(|s| s.policy(odd).is_err() && s.policy(small).is_ok())
        })
        .expect("a flip that policy 1's validation refuses");
    // Then a flip in a slot that makes host 2's lookup fail and leaves
    // hosts 0 and 1 as they were.
    let both = table
        .clone()
        .map(|b| {
            let mut m = bad_policy.clone();
            m[b] ^= 0x80;
            m
        })
        .find(|m| {
            Store::from_slice(m).is_ok_and(|s| {
                s.check(refs[0])
                    .is_ok_and(|v| v == Some(want(0, "/private/x")))
                    && s.check(refs[1])
                        .is_err_and(|e| e.to_string().contains("policy"))
                    && s.check(refs[2])
                        .is_err_and(|e| e.to_string().contains("slot"))
            })
        })
        .expect("a slot flip that refuses host 2 alone");
    let s = Store::from_slice(&both).unwrap();
    let mut out = vec![None; hosts];
    let e = s.check_batch(&refs, &mut out).unwrap_err();
    assert_eq!(e.index, 1, "{e}");
    assert!(e.to_string().contains("policy"), "{e}");
    assert_eq!(out[0], Some(want(0, "/private/x")));
}

/// Everything the lookup APIs say about `urls`, the store's policies,
/// hosts and metadata, one item each: `Err(())` where the API refused.
fn answers(s: &Store, urls: &[String]) -> Vec<Result<String, ()>> {
    let said = |r: Result<String, robocc_engine::LoadError>| r.map_err(|_| ());
    let mut out = Vec::new();
    for u in urls {
        let u = u.as_bytes();
        out.push(said(s.check(u).map(|v| format!("{v:?}"))));
        out.push(said(s.host(u).map(|h| format!("{h:?}"))));
        out.push(said(
            s.policy_for(u)
                .map(|p| format!("{:?}", p.map(|p| p.check(u)))),
        ));
    }
    for i in s.policy_ids() {
        out.push(said(s.policy(i).map(|p| {
            let v: Vec<_> = PATHS.iter().map(|path| p.check(path.as_bytes())).collect();
            format!("{v:?}")
        })));
    }
    // As one answer: a damaged empty slot is an error among the hosts.
    let hosts: Result<Vec<_>, _> = s.hosts().collect();
    out.push(said(hosts.map(|h| format!("{h:?}"))));
    out.push(Ok(format!(
        "{} {:?} {} {} {}",
        s.agent(),
        s.dialect(),
        s.options_hash(),
        s.compiler_version(),
        s.host_count()
    )));
    out
}

/// How the flips of a store came out.
#[derive(Default, Debug)]
struct Flips {
    refused_at_open: usize,
    refused_at_lookup: usize,
    neutral: usize,
}

/// Applies each flip (`at`, `mask`) to `bytes` and requires of the store it
/// leaves: refused at open, or every answer of every lookup API (single,
/// batch) either refused or the one the intact store gives — never
/// another verdict, source, status or key, and never a host missing.
fn flips_refused_or_neutral(
    bytes: &[u8],
    urls: &[String],
    flips: impl Iterator<Item = (usize, u8)>,
) -> Flips {
    let intact = Store::from_slice(bytes).unwrap();
    let want = answers(&intact, urls);
    assert!(want.iter().all(Result::is_ok));
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let mut want_batch = vec![None; refs.len()];
    intact.check_batch(&refs, &mut want_batch).unwrap();
    let mut out = Flips::default();
    let mut m = bytes.to_vec();
    for (at, mask) in flips {
        m[at] ^= mask;
        let what = format!("byte {at} ^ {mask:#04x}");
        let Ok(s) = Store::from_slice(&m) else {
            out.refused_at_open += 1;
            m[at] ^= mask;
            continue;
        };
        let got = answers(&s, urls);
        assert_eq!(got.len(), want.len(), "{what}: another count of answers");
        let mut refused = false;
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            match g {
                Err(()) => refused = true,
                Ok(g) => assert_eq!(Ok(g), w.as_ref(), "{what}: answer {k} changed"),
            }
        }
        let mut batch = vec![None; refs.len()];
        let answered = match s.check_batch(&refs, &mut batch) {
            Ok(()) => refs.len(),
            Err(e) => {
                refused = true;
                e.index
            }
        };
        assert_eq!(batch[..answered], want_batch[..answered], "{what}: batch");
        if refused {
            out.refused_at_lookup += 1;
        } else {
            out.neutral += 1;
        }
        m[at] ^= mask;
    }
    out
}

/// A store of hosts of every kind a slot holds: inline and long keys,
/// ports, fetch times or none, every source, two hosts of one home (a
/// lookup scans past the first), both policies; and URLs that ask for each
/// host and for hosts next to them that the store lacks.
fn varied_store(hosts: usize) -> (Vec<u8>, Vec<String>) {
    let (a, b) = same_home(|n| format!("h{n:023}.example"));
    let mut keys: Vec<String> = (0..hosts).map(key).collect();
    keys.extend([a, b]);
    let mut entries = entries(&keys);
    for (i, e) in entries.iter_mut().enumerate() {
        (e.source, e.status) = match i % 4 {
            0 => (HostSource::Fetched, 200),
            1 => (HostSource::Unavailable, 404),
            2 => (HostSource::Unreachable, 503),
            _ => (HostSource::Redirected, 301),
        };
    }
    let bytes = write_store(&meta(), entries, &[SMALL, REGISTER])
        .unwrap()
        .to_vec();
    let mut urls: Vec<String> = keys
        .iter()
        .flat_map(|k| {
            [
                format!("https://{k}/private/x"),
                format!("https://{k}/a/b?c=d"),
            ]
        })
        .collect();
    urls.extend((0..hosts.min(50)).map(|i| format!("https://absent-{i}.example.com/private/x")));
    (bytes, urls)
}

/// Every single-byte flip of a small store is refused, at open or by the
/// lookup that reads it, or changes no answer of any lookup API (issue 41:
/// lookups did not check slots, and a flipped slot could hide a host or
/// give it another's policy). Each bit and all eight bits of every byte of
/// the frame and the index; of the policies' bytes (their own checksum's,
/// tested in corrupt.rs) the lowest, highest and all bits.
#[test]
fn every_flip_of_a_small_store_is_refused_or_changes_no_answer() {
    let (bytes, urls) = varied_store(12);
    let index = Store::from_slice(&bytes).unwrap().slot_table().start;
    let every: &[u8] = &[0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff];
    let some: &[u8] = &[0x01, 0x80, 0xff];
    let flips = (0..bytes.len()).flat_map(|at| {
        let masks = if (48..index).contains(&at) {
            some
        } else {
            every
        };
        masks.iter().map(move |&m| (at, m))
    });
    let out = flips_refused_or_neutral(&bytes, &urls, flips);
    eprintln!("{} bytes: {out:?}", bytes.len());
    assert!(out.refused_at_open > 0 && out.refused_at_lookup > 0 && out.neutral > 0);
}

/// The same of random flips (any value, anywhere) of a 2,000-host store,
/// which a lookup meets mostly in the slot table.
#[test]
fn sampled_flips_of_a_large_store_are_refused_or_change_no_answer() {
    let (bytes, urls) = varied_store(2000);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let flips: Vec<(usize, u8)> = (0..1500)
        .map(|_| {
            let r = next();
            let mask = match (r >> 56) as u8 {
                0 => 0xff,
                m => m,
            };
            ((r % bytes.len() as u64) as usize, mask)
        })
        .collect();
    let out = flips_refused_or_neutral(&bytes, &urls, flips.into_iter());
    eprintln!("{} bytes: {out:?}", bytes.len());
    assert!(out.refused_at_lookup > 1000, "{out:?}");
}
