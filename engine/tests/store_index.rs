//! The store's host index (format 5: a bucket table over records sorted by
//! hash): every host of a large store is found by every lookup API, with
//! the same answer as its own policy, and a corrupted bucket bound is
//! refused or harmless — it never hides a host or names another's policy.

use robocc_engine::{
    write_store, Dialect, HostEntry, HostKey, HostSource, Policy, Store, StoreMeta,
};

/// Artifacts are read in place, so they must be aligned as archives are.
#[repr(C, align(16))]
struct Aligned<T: ?Sized>(T);

static SMALL_ALIGNED: &Aligned<[u8]> = &Aligned(*include_bytes!("data/small.policy"));
static REGISTER_ALIGNED: &Aligned<[u8]> = &Aligned(*include_bytes!("data/register.policy"));
const SMALL: &[u8] = &SMALL_ALIGNED.0;
const REGISTER: &[u8] = &REGISTER_ALIGNED.0;

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
    let meta = StoreMeta {
        agent: "Googlebot".into(),
        dialect: Dialect::Rfc9309,
        compiler_version: "test".into(),
        options_hash: 0,
    };
    let keys: Vec<String> = (0..hosts).map(key).collect();
    let entries = keys
        .iter()
        .enumerate()
        .map(|(i, key)| HostEntry {
            key,
            policy: (i % 2) as u32,
            source: HostSource::Fetched,
            status: 200,
            fetched_at: None,
        })
        .collect();
    write_store(&meta, entries, &[SMALL, REGISTER])
        .unwrap()
        .to_vec()
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

#[test]
fn every_host_of_a_large_store_is_found_by_every_api() {
    // Sizes around powers of two (the bucket count changes there).
    for hosts in [0, 1, 2, 3, 1023, 1024, 1025, 6000] {
        let bytes = store(hosts);
        let s = Store::from_slice(&bytes).unwrap();
        assert_eq!(s.host_count(), hosts);
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
                assert_eq!(info.policy, (i % 2) as u32);
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

/// The bucket table's bytes in the store: `2^b + 1` little-endian `u32`.
fn bucket_table(bytes: &[u8], hosts: usize) -> std::ops::Range<usize> {
    let bits = hosts.max(1).next_power_of_two().trailing_zeros();
    let mut hashes: Vec<u64> = (0..hosts)
        .map(|i| HostKey::of_key(&key(i)).unwrap().hash())
        .collect();
    hashes.sort_unstable();
    let table: Vec<u8> = (0..=(1usize << bits))
        .flat_map(|j| {
            let below = hashes
                .iter()
                .filter(|&&h| h.checked_shr(64 - bits).unwrap_or(0) < j as u64)
                .count();
            (below as u32).to_le_bytes()
        })
        .collect();
    let at = bytes
        .windows(table.len())
        .position(|w| w == table)
        .expect("the bucket table is in the store");
    at..at + table.len()
}

#[test]
fn a_corrupted_bucket_bound_never_hides_a_host() {
    let hosts = 300;
    let bytes = store(hosts);
    let table = bucket_table(&bytes, hosts);
    let (mut refused, mut harmless) = (0, 0);
    for entry in (table.start..table.end).step_by(4) {
        for delta in [1u32, u32::MAX, 2, 1 << 20] {
            let mut m = bytes.clone();
            let v = u32::from_le_bytes(m[entry..entry + 4].try_into().unwrap());
            m[entry..entry + 4].copy_from_slice(&v.wrapping_add(delta).to_le_bytes());
            let Ok(s) = Store::from_slice(&m) else {
                refused += 1;
                continue;
            };
            assert!(s.validate_all().is_err(), "validate_all sees entry {entry}");
            for i in 0..hosts {
                let u = url(i, "/private/x");
                match s.check(u.as_bytes()) {
                    Ok(got) => {
                        assert_eq!(got, Some(want(i, "/private/x")), "{u} (entry {entry})");
                        harmless += 1;
                    }
                    Err(e) => {
                        assert!(e.to_string().contains("bucket"), "{e}");
                        refused += 1;
                    }
                }
            }
            let refs: Vec<String> = (0..hosts).map(|i| url(i, "/private/x")).collect();
            let refs: Vec<&[u8]> = refs.iter().map(|u| u.as_bytes()).collect();
            let mut out = vec![None; hosts];
            // The batch refuses exactly the first URL a single check
            // refuses, having answered every URL before it.
            let first_refused = refs.iter().position(|u| s.check(u).is_err());
            match s.check_batch(&refs, &mut out) {
                Ok(()) => {
                    assert_eq!(first_refused, None, "entry {entry}");
                    for (i, got) in out.iter().enumerate() {
                        assert_eq!(*got, Some(want(i, "/private/x")), "batch, entry {entry}");
                    }
                }
                Err(e) => {
                    assert_eq!(Some(e.index), first_refused, "entry {entry}");
                    for (i, got) in out[..e.index].iter().enumerate() {
                        assert_eq!(*got, Some(want(i, "/private/x")), "batch, entry {entry}");
                    }
                    assert!(e.error.to_string().contains("bucket"), "{e}");
                }
            }
        }
    }
    assert!(refused > 0 && harmless > 0, "{refused} {harmless}");
}

#[test]
fn a_bucket_wider_than_the_limit_is_refused() {
    // Widening the last bucket to every host: refused when read, so no
    // lookup scans the whole table.
    let hosts = 2000;
    let bytes = store(hosts);
    let table = bucket_table(&bytes, hosts);
    let mut m = bytes.clone();
    // Entry j = 2^b - 1 (the last bucket's start) set to 0.
    let last_start = table.end - 8;
    m[last_start..last_start + 4].copy_from_slice(&0u32.to_le_bytes());
    let s = Store::from_slice(&m).unwrap();
    let in_last = (0..hosts)
        .find(|&i| HostKey::of_key(&key(i)).unwrap().hash() >> 53 == (1 << 11) - 1)
        .expect("a host in the last bucket");
    let e = s.check(url(in_last, "/").as_bytes()).unwrap_err();
    assert!(e.to_string().contains("bucket"), "{e}");
}
