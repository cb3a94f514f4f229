//! A truncated, corrupted or foreign artifact is refused with a clear error,
//! or — when a flipped byte still leaves a valid artifact — checks keep
//! working; nothing ever panics or reads out of bounds.

use robocc_engine::{
    frame, FileKind, LoadError, LoadErrorKind, Policy, PolicyFile, Store, FRAME_LEN,
};

/// A small real artifact (see tests/data/README.md for how it was made),
/// committed so the engine is tested on its own.
fn artifact() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/small.policy"
    ))
    .unwrap()
}

/// A small artifact whose automaton is a register automaton (emits before
/// every node, priorities instead of outcome ids).
fn register_artifact() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/register.policy"
    ))
    .unwrap()
}

/// Both committed artifacts, named.
fn artifacts() -> [(&'static str, Vec<u8>); 2] {
    [
        ("small.policy", artifact()),
        ("register.policy", register_artifact()),
    ]
}

/// Runs `f` on `bytes` copied to a 16-byte aligned address (as a file read
/// into a fresh buffer or an mmap gives), starting `offset` bytes in.
fn with_policy_at<R>(
    bytes: &[u8],
    offset: usize,
    f: impl FnOnce(Result<Policy<'_>, LoadError>) -> R,
) -> R {
    let mut buf = vec![0u128; (bytes.len() + offset).div_ceil(16) + 1];
    // SAFETY: `buf` is at least `offset + bytes.len()` bytes long; u8 has no
    // alignment requirement and every byte pattern is a valid u8.
    let all =
        unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 16) };
    all[offset..offset + bytes.len()].copy_from_slice(bytes);
    f(Policy::from_bytes(&all[offset..offset + bytes.len()]))
}

fn with_policy<R>(bytes: &[u8], f: impl FnOnce(Result<Policy<'_>, LoadError>) -> R) -> R {
    with_policy_at(bytes, 0, f)
}

const URLS: &[&[u8]] = &[
    b"/",
    b"/private/x",
    b"https://example.com/a?b#c",
    b"/\xff\x00#",
    b"",
];

#[test]
fn the_committed_artifact_loads() {
    with_policy(&artifact(), |p| {
        let p = p.unwrap();
        assert!(!p.check(b"/private/x").allowed);
        assert!(p.check(b"/private/ok").allowed);
        assert!(!p.check(b"/a.gif").allowed);
        assert!(p.check(b"/public").allowed);
    });
}

#[test]
fn the_committed_register_artifact_loads_and_answers() {
    with_policy(&register_artifact(), |p| {
        let p = p.unwrap();
        assert_eq!(p.sizes().register_automata, 1);
        // The longest match wins whatever order the words come in.
        assert!(!p.check(b"/a/cart/b").allowed);
        assert!(p.check(b"/a/cartera/b").allowed);
        // Equal lengths (11): allow wins, in whichever order they complete.
        assert!(p.check(b"/a/cartera/checkout").allowed);
        assert!(p.check(b"/checkout/cartera").allowed);
        assert!(p.check(b"/login/x/cartera").allowed);
        assert!(!p.check(b"/cartera/login").allowed);
        assert!(p.check(b"/x/style.css").allowed);
        assert!(!p.check(b"/search/style.css").allowed);
        assert!(!p.check(b"/search.css").allowed);
        assert!(p.check(b"/cart.css").allowed);
        assert!(p.check(b"/nothing#cart").allowed);
        let v = p.check(b"/y/payment/history");
        assert_eq!(p.rule(v.rule.unwrap()).unwrap().pattern, b"/*payment*");
    });
}

#[test]
fn every_truncation_is_refused() {
    for (name, a) in artifacts() {
        for len in 0..a.len() {
            with_policy(&a[..len], |p| {
                let e = p.expect_err(name);
                assert!(!e.to_string().is_empty());
            });
        }
    }
}

#[test]
fn every_single_byte_flip_is_refused_or_harmless() {
    for (name, a) in artifacts() {
        flips_are_refused_or_harmless(name, &a);
    }
}

/// `bytes` with the frame's checksum made to match what follows it, as a
/// writer that means harm (or a bug in one) would frame them: what is left
/// to refuse such bytes is validation.
fn reframed(kind: FileKind, bytes: &[u8]) -> Vec<u8> {
    let mut out = frame(kind, &bytes[FRAME_LEN..]).to_vec();
    out.extend_from_slice(&bytes[FRAME_LEN..]);
    out
}

fn flips_are_refused_or_harmless(name: &str, a: &[u8]) {
    let (mut refused, mut by_checksum) = (0, 0);
    for i in 0..a.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = a.to_vec();
            b[i] ^= mask;
            // As written to disk and damaged there: always refused, by the
            // frame's checks or, for damage that still validates, by the
            // checksum.
            with_policy(&b, |p| {
                let e = p.expect_err("a flipped byte must be refused");
                if matches!(e.kind(), LoadErrorKind::Checksum { .. }) {
                    by_checksum += 1;
                }
            });
            if i < FRAME_LEN {
                continue;
            }
            // With a matching checksum: validation alone refuses the flip,
            // or the policy it leaves answers without panicking.
            with_policy(&reframed(FileKind::Policy, &b), |p| match p {
                Err(_) => refused += 1,
                Ok(p) => {
                    for url in URLS {
                        let _ = p.check(url);
                    }
                }
            });
        }
    }
    eprintln!(
        "{name}: of {} single-byte flips in the archive, {refused} refused by validation \
         alone and the rest load and check; every flip of the file refused, {by_checksum} \
         by the checksum only",
        3 * (a.len() - FRAME_LEN)
    );
    assert!(
        refused > a.len() - FRAME_LEN,
        "only {refused} of {} flips refused",
        3 * (a.len() - FRAME_LEN)
    );
    assert!(by_checksum > 0, "no flip was left to the checksum");
}

/// The checksum finds damage that validation cannot: a policy whose
/// automaton was changed into another valid one, with its frame's
/// checksum left as written, is refused; the same bytes reframed load and
/// answer differently (which is what the checksum is for).
#[test]
fn a_flip_that_validates_is_refused_by_the_checksum() {
    let a = artifact();
    let answers = |p: &Policy<'_>| URLS.iter().map(|u| p.check(u).allowed).collect::<Vec<_>>();
    let before = with_policy(&a, |p| answers(&p.unwrap()));
    let mut found = false;
    for i in FRAME_LEN..a.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = a.clone();
            b[i] ^= mask;
            let changed = with_policy(&reframed(FileKind::Policy, &b), |p| {
                p.is_ok_and(|p| answers(&p) != before)
            });
            if !changed {
                continue;
            }
            found = true;
            with_policy(&b, |p| {
                let e = p.unwrap_err();
                assert!(matches!(e.kind(), LoadErrorKind::Checksum { .. }), "{e}");
                assert!(e.to_string().contains("checksum"), "{e}");
            });
        }
    }
    assert!(
        found,
        "no single flip changed an answer and still validated"
    );
}

#[test]
fn errors_name_the_problem() {
    let a = artifact();
    let mut wrong_version = a.clone();
    wrong_version[8] = 99;
    with_policy(&wrong_version, |p| {
        let e = p.unwrap_err();
        assert!(e.is_version_mismatch());
        assert!(e.to_string().contains("version 99"), "{e}");
    });
    with_policy(b"User-agent: *\nDisallow: /\n", |p| {
        assert!(p.unwrap_err().to_string().contains("magic"));
    });
    with_policy_at(&a, 1, |p| {
        let e = p.unwrap_err();
        assert!(e.is_misaligned(), "{e}");
    });
    let e = PolicyFile::open("/nonexistent/robocc.policy").unwrap_err();
    assert!(
        e.to_string().starts_with("/nonexistent/robocc.policy: "),
        "{e}"
    );
}

/// A flip that rkyv's validation refuses says so as a fact: not rancor's
/// advice to rebuild it with debug assertions and its `alloc` feature,
/// which a reader of the file cannot act on (python audit F9).
#[test]
fn an_archive_refusal_states_a_fact() {
    let a = artifact();
    let mut seen = 0;
    for i in FRAME_LEN..a.len() {
        let mut b = a.clone();
        b[i] ^= 0xff;
        with_policy(&reframed(FileKind::Policy, &b), |p| {
            let Err(e) = p else { return };
            if matches!(e.kind(), robocc_engine::LoadErrorKind::Archive(_)) {
                seen += 1;
                let text = e.to_string();
                assert!(
                    text.starts_with("corrupted policy: archive validation failed"),
                    "{text}"
                );
                assert!(
                    !text.contains("rancor") && !text.contains("enable"),
                    "{text}"
                );
            }
        });
    }
    assert!(seen > 0, "no flip was refused by the archive's validation");
}

/// A directory cannot be mapped ("No such device"): the error says what
/// the path is instead.
#[test]
fn a_directory_is_called_a_directory() {
    let dir = std::env::temp_dir();
    let policy = PolicyFile::open(&dir).unwrap_err().to_string();
    assert!(policy.contains("is a directory"), "{policy}");
    let store = Store::open(&dir).unwrap_err().to_string();
    assert!(store.contains("is a directory"), "{store}");
}

#[test]
fn a_byte_swapped_artifact_is_called_big_endian() {
    let mut a = artifact();
    a[8..12].reverse();
    with_policy(&a, |p| {
        let e = p.unwrap_err();
        assert!(e.to_string().contains("big-endian"), "{e}");
    });
}

fn store_bytes() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/small.store"
    ))
    .unwrap()
}

fn with_store<R>(bytes: &[u8], f: impl FnOnce(Result<Store, LoadError>) -> R) -> R {
    f(Store::from_slice(bytes))
}

const STORE_URLS: &[&[u8]] = &[
    b"https://a.example/private/x",
    b"http://b.example/x",
    b"http://c.example/",
    b"a.example",
];

/// Uses everything a store offers; policies are validated at first use,
/// so a flip inside one is refused there (with the host named) or checked.
fn exercise(store: &Store) {
    for url in STORE_URLS {
        if let Err(e) = store.check(url) {
            assert!(e.to_string().contains("store"), "{e}");
        }
        let _ = store.host(url);
    }
    for i in store.policy_ids() {
        let _ = store.policy(i).map(|p| p.check(b"/private"));
    }
    let _ = store.hosts().count();
    let _ = store.validate_all();
}

#[test]
fn the_committed_store_loads() {
    with_store(&store_bytes(), |s| {
        let s = s.unwrap();
        assert_eq!(s.host_count(), 2);
        s.validate_all().unwrap();
        assert_eq!(
            s.check(b"http://b.example/x").unwrap().map(|v| v.allowed),
            Some(false)
        );
        assert_eq!(
            s.check(b"http://b.example/y").unwrap().map(|v| v.allowed),
            Some(true)
        );
    });
}

#[test]
fn every_store_truncation_is_refused() {
    let s = store_bytes();
    for len in 0..s.len() {
        with_store(&s[..len], |r| {
            let e = r.expect_err("a truncated store must be refused");
            assert!(e.to_string().contains("store"), "{len}: {e}");
        });
    }
}

#[test]
fn every_store_byte_flip_is_refused_or_harmless() {
    let s = store_bytes();
    let (mut refused, mut loaded, mut verified) = (0, 0, 0);
    for i in 0..s.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut m = s.clone();
            m[i] ^= mask;
            // Opening is O(1) and compares no checksum; the full check
            // (`robocc inspect`) finds every flip.
            if let Ok(store) = Store::from_slice(&m) {
                let e = store
                    .validate_all()
                    .expect_err("a flipped store must not verify");
                assert!(e.to_string().contains("store"), "{e}");
                verified += 1;
            }
            // With the store's checksum matching: lookups refuse the flip,
            // or answer without panicking (a policy's own checksum still
            // refuses a flip inside it at its first use).
            let m = if i < FRAME_LEN {
                m
            } else {
                reframed(FileKind::Store, &m)
            };
            with_store(&m, |r| match r {
                Ok(store) => {
                    loaded += 1;
                    exercise(&store);
                }
                Err(e) => {
                    refused += 1;
                    assert!(e.to_string().contains("store"), "{e}");
                }
            });
        }
    }
    eprintln!(
        "store: {refused} of {} single-byte flips refused at open, {loaded} load and check; \
         {verified} opened as written and were refused by validate_all",
        s.len() * 3
    );
    assert!(refused > 0 && refused + loaded == s.len() * 3 && verified > 0);
}

/// What every lookup API answers for the committed store's URLs, its
/// policies and hosts (`Err(())`: refused).
fn store_answers(store: &Store) -> Vec<Result<String, ()>> {
    let said = |r: Result<String, LoadError>| r.map_err(|_| ());
    let mut out = Vec::new();
    for url in STORE_URLS
        .iter()
        .chain(&[&b"http://b.example/y"[..], b"https://z.example/x"])
    {
        out.push(said(store.check(url).map(|v| format!("{v:?}"))));
        out.push(said(store.host(url).map(|h| format!("{h:?}"))));
    }
    for i in store.policy_ids() {
        out.push(said(
            store.policy(i).map(|p| format!("{:?}", p.check(b"/x"))),
        ));
    }
    let hosts: Result<Vec<_>, _> = store.hosts().collect();
    out.push(said(hosts.map(|h| format!("{h:?}"))));
    out
}

/// Every flip of every byte of the committed 2-host store, as damage on
/// disk leaves it (the store's checksum, which opening does not compare,
/// left as written): refused at open, or every lookup refuses it or
/// answers as the intact store does (issue 41: one flipped bit of a slot
/// could give a `Disallow: /x` host the other's policy or hide it).
#[test]
fn every_flip_of_the_committed_store_is_refused_or_changes_no_answer() {
    let s = store_bytes();
    let want = store_answers(&Store::from_slice(&s).unwrap());
    assert!(want.iter().all(Result::is_ok));
    let (mut at_open, mut at_lookup, mut neutral) = (0, 0, 0);
    for i in 0..s.len() {
        for bit in 0..9 {
            let mask = if bit == 8 { 0xff } else { 1u8 << bit };
            let mut m = s.clone();
            m[i] ^= mask;
            let Ok(store) = Store::from_slice(&m) else {
                at_open += 1;
                continue;
            };
            let got = store_answers(&store);
            assert_eq!(got.len(), want.len(), "byte {i} ^ {mask:#x}");
            let mut refused = false;
            for (g, w) in got.iter().zip(&want) {
                match g {
                    Err(()) => refused = true,
                    Ok(_) => assert_eq!(g, w, "byte {i} ^ {mask:#x} changed an answer"),
                }
            }
            if refused {
                at_lookup += 1;
            } else {
                neutral += 1;
            }
        }
    }
    eprintln!("committed store: {at_open} flips refused at open, {at_lookup} by a lookup, {neutral} change nothing");
    assert!(at_open > 0 && at_lookup > 0 && neutral > 0);
}

/// A store's policy damaged in a way that still validates is refused at
/// its first use, naming the host and the checksum, even when the store's
/// own checksum was made to match (lookups never compare that one).
#[test]
fn a_damaged_policy_in_a_store_is_refused_at_first_use() {
    let s = store_bytes();
    // Each policy artifact in the store: its place and length.
    let mut policies = Vec::new();
    let mut from = 0;
    while let Some(p) = s[from..].windows(8).position(|w| w == b"ROBOCC\0P") {
        let at = from + p;
        let n = u32::from_le_bytes(s[at + 12..at + 16].try_into().unwrap()) as usize;
        policies.push((at, FRAME_LEN + n));
        from = at + 8;
    }
    assert!(!policies.is_empty());
    let (mut refused, mut named) = (0, 0);
    for (at, n) in policies {
        for i in at + FRAME_LEN..at + n {
            let mut policy = s[at..at + n].to_vec();
            policy[i - at] ^= 0x01;
            // Only damage that validation alone lets through.
            if with_policy(&reframed(FileKind::Policy, &policy), |p| p.is_err()) {
                continue;
            }
            let mut m = s.clone();
            m[i] ^= 0x01;
            let store = Store::from_slice(&reframed(FileKind::Store, &m)).unwrap();
            for url in STORE_URLS {
                if let Err(e) = store.check(url) {
                    assert!(matches!(e.kind(), LoadErrorKind::Checksum { .. }), "{e}");
                    let text = e.to_string();
                    assert!(
                        text.contains("checksum") && text.contains(".example"),
                        "{text}"
                    );
                    named += 1;
                }
            }
            // Whoever uses it, the damaged policy is refused, and only it.
            let bad: Vec<_> = store
                .policy_ids()
                .filter_map(|k| store.policy(k).err())
                .collect();
            assert_eq!(bad.len(), 1, "{bad:?}");
            assert!(
                matches!(bad[0].kind(), LoadErrorKind::Checksum { .. }),
                "{}",
                bad[0]
            );
            refused += 1;
        }
    }
    eprintln!("{refused} flips inside stored policies validate; all refused, {named} checks named the host");
    assert!(
        refused > 0 && named > 0,
        "no flip inside a stored policy validated"
    );
}

#[test]
fn a_policy_is_not_a_store_and_back() {
    with_store(&artifact(), |r| {
        let e = r.unwrap_err();
        assert!(e.to_string().contains("not a robocc store"), "{e}");
    });
    with_policy(&store_bytes(), |r| {
        let e = r.unwrap_err();
        assert!(e.to_string().contains("not a robocc policy"), "{e}");
    });
}

/// Opening from a file (`open`: these small files are read; the mmap path
/// is taken by files of 64 KiB or more, the compiler's tests' stores).
#[test]
fn committed_files_open_from_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let file = PolicyFile::open(format!("{dir}small.policy")).unwrap();
    let policy = file.policy();
    for url in URLS {
        let _ = policy.check(url);
    }
    let store = Store::open(format!("{dir}small.store")).unwrap();
    exercise(&store);
    let e = Store::open(format!("{dir}small.policy")).unwrap_err();
    assert!(
        e.to_string().contains("small.policy: not a robocc store"),
        "{e}"
    );
}

/// A FIFO, socket or device where a policy, store or a set's index or shard
/// is expected is refused at once, naming it, not waited on: a FIFO with no
/// writer would block a plain open forever (stores audit F4). The open
/// runs on another thread so that a regression fails instead of hanging the
/// suite (the bound is generous: a refusal takes microseconds).
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_waited_on() {
    use robocc_engine::{LoadErrorKind, StoreSet};
    let dir = std::env::temp_dir().join(format!("robocc-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("x.store");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    // A set whose index is that FIFO, and one whose only shard is.
    let set = dir.join("set");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::hard_link(&fifo, set.join("index.txt")).unwrap();
    let set2 = dir.join("set2");
    std::fs::create_dir_all(&set2).unwrap();
    let index = "robocc-store-set 1\nshards 1\npartition fnv1a64-mod\nagent Googlebot\n\
                 dialect rfc9309\noptions 0000000000000000\ncompiler 0.1.0\n\
                 shard-00000.store bytes 224 hosts 0 fnv1a64 0000000000000000\n";
    std::fs::write(set2.join("index.txt"), index).unwrap();
    std::fs::hard_link(&fifo, set2.join("shard-00000.store")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (f, s1, s2) = (fifo.clone(), set.clone(), set2.clone());
    std::thread::spawn(move || {
        let errors = [
            Store::open(&f).unwrap_err(),
            PolicyFile::open(&f).unwrap_err(),
            StoreSet::open(&s1).unwrap_err(),
            StoreSet::open(&s2).unwrap().shard(0).unwrap_err(),
        ];
        tx.send(errors).unwrap();
    });
    let errors = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("opening a FIFO blocked");
    for e in errors {
        assert!(matches!(e.kind(), LoadErrorKind::Io(_)), "{e}");
        let text = e.to_string();
        assert!(text.contains("it is a FIFO, not a regular file"), "{text}");
        assert!(
            text.contains("x.store") || text.contains("index.txt") || text.contains("shard-00000"),
            "{text}"
        );
    }
    // A character device too.
    if std::path::Path::new("/dev/null").exists() {
        let e = Store::open("/dev/null").unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A small policy or store is read, not mapped (issue 41): replacing the
/// file in place (`cp new live`: truncate, then write) under a reader
/// neither crashes it (SIGBUS) nor changes its answers; and a zeroed file
/// is refused when opened, never read as "allow everything".
#[test]
fn small_files_are_read_and_zeroed_files_refused() {
    let dir = std::env::temp_dir().join(format!("robocc-inplace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (policy_path, store_path) = (dir.join("p.policy"), dir.join("s.store"));
    let (policy_bytes, store_bytes) = (artifact(), store_bytes());
    std::fs::write(&policy_path, &policy_bytes).unwrap();
    std::fs::write(&store_path, &store_bytes).unwrap();
    let file = PolicyFile::open(&policy_path).unwrap();
    let store = Store::open(&store_path).unwrap();
    let before: Vec<_> = URLS.iter().map(|u| file.policy().check(u)).collect();
    // What `cp` does to the live files: truncate, write new bytes.
    std::fs::write(&policy_path, vec![0u8; policy_bytes.len()]).unwrap();
    std::fs::write(&store_path, vec![0u8; store_bytes.len()]).unwrap();
    assert!(
        file.as_bytes() == &policy_bytes[..],
        "the open policy's bytes changed with its file"
    );
    let after: Vec<_> = URLS.iter().map(|u| file.policy().check(u)).collect();
    assert_eq!(before, after);
    exercise(&store);
    // Opened now, the zeroed files are refused (their frame has no magic).
    for (path, kind) in [(&policy_path, "policy"), (&store_path, "store")] {
        let e = if kind == "policy" {
            PolicyFile::open(path).map(|_| ()).unwrap_err()
        } else {
            Store::open(path).map(|_| ()).unwrap_err()
        };
        assert!(
            e.to_string().contains(&format!("not a robocc {kind}")),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
