//! A truncated, corrupted or foreign artifact is refused with a clear error,
//! or — when a flipped byte still leaves a valid artifact — checks keep
//! working; nothing ever panics or reads out of bounds.

use robocc_engine::{LoadError, Policy};

/// A small real artifact (see tests/data/README.md for how it was made),
/// committed so the engine is tested on its own.
fn artifact() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/small.policy"
    ))
    .unwrap()
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
fn every_truncation_is_refused() {
    let a = artifact();
    for len in 0..a.len() {
        with_policy(&a[..len], |p| {
            let e = p.expect_err("a truncated artifact must be refused");
            assert!(!e.to_string().is_empty());
        });
    }
}

#[test]
fn every_single_byte_flip_is_refused_or_harmless() {
    let a = artifact();
    let mut refused = 0;
    for i in 0..a.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = a.clone();
            b[i] ^= mask;
            with_policy(&b, |p| match p {
                Err(_) => refused += 1,
                Ok(p) => {
                    for url in URLS {
                        let _ = p.check(url);
                    }
                }
            });
        }
    }
    assert!(
        refused > a.len(),
        "only {refused} of {} flips refused",
        3 * a.len()
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
    let e = Policy::open("/nonexistent/robocc.policy").unwrap_err();
    assert!(
        e.to_string().starts_with("/nonexistent/robocc.policy: "),
        "{e}"
    );
}
