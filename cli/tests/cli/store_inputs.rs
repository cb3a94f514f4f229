//! What `store build` does with inputs that are not what a fetcher meant
//! (issue 41): an empty manifest over a good store, body files that are
//! missing, FIFOs or subdirectories, directory names that are not hosts,
//! bodies over 256 MiB, an output that cannot be written, more shards than
//! hosts.

use crate::common::{err, robocc_bounded, s, scratch};
use robocc_engine::{HostSource, Store, StoreSet};
use robocc_store::{HostInput, StoreBuilder};
use std::process::{Command, Output};

/// `robocc store build --agent Googlebot ARGS…`, killed (and the test
/// failed) if it does not end within a minute: a FIFO must never be
/// waited on.
fn build(args: &[&str]) -> Output {
    robocc_bounded(&[&["store", "build", "--agent", "Googlebot"], args].concat())
}

#[track_caller]
fn assert_exit(o: &Output, code: i32, needles: &[&str]) {
    assert_eq!(o.status.code(), Some(code), "stderr: {}", err(o));
    for needle in needles {
        assert!(err(o).contains(needle), "expected {needle:?}: {}", err(o));
    }
}

fn allowed(store: &Store, url: &str) -> Option<bool> {
    store.check(url.as_bytes()).unwrap().map(|v| v.allowed)
}

const RULES: &str = "User-agent: *\nDisallow: /private\n";

/// An empty manifest (what a failed fetch stage leaves) does not replace a
/// store or set that has hosts, unless --allow-empty says so.
#[test]
fn an_empty_build_does_not_replace_a_store_with_hosts() {
    let dir = scratch("empty");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        format!("{{\"host\": \"a.example\", \"status\": 200, \"body\": {RULES:?}}}\n"),
    )
    .unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let st = dir.join("s.store");
    assert_exit(&build(&["-q", "-o", s(&st), "--manifest", s(&m)]), 0, &[]);
    let before = std::fs::read(&st).unwrap();
    let o = build(&["-q", "-o", s(&st), "--manifest", s(&empty)]);
    assert_exit(
        &o,
        2,
        &["read no host", "a store of 1 hosts", "--allow-empty"],
    );
    assert!(
        std::fs::read(&st).unwrap() == before,
        "the store was replaced"
    );
    let o = build(&["-q", "--allow-empty", "-o", s(&st), "--manifest", s(&empty)]);
    assert_exit(&o, 0, &["the store is empty"]);
    assert_eq!(Store::open(&st).unwrap().host_count(), 0);
    // An empty store (or a new path) may be replaced by another.
    assert_exit(
        &build(&["-q", "-o", s(&st), "--manifest", s(&empty)]),
        0,
        &[],
    );
    let new = dir.join("new.store");
    assert_exit(
        &build(&["-q", "-o", s(&new), "--manifest", s(&empty)]),
        0,
        &[],
    );
    // A set.
    let set = dir.join("set");
    let shards = ["--shards", "2", "-q", "-o", s(&set), "--manifest"];
    assert_exit(&build(&[&shards[..], &[s(&m)]].concat()), 0, &[]);
    let o = build(&[&shards[..], &[s(&empty)]].concat());
    assert_exit(&o, 2, &["a store set of 1 hosts", "--allow-empty"]);
    assert_eq!(StoreSet::open(&set).unwrap().host_count(), 1);
    let o = build(&[&["--allow-empty"], &shards[..], &[s(&empty)]].concat());
    assert_exit(&o, 0, &[]);
    assert_eq!(StoreSet::open(&set).unwrap().host_count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// A body file that is missing, a FIFO (never waited on) or a directory
/// is its host's failure, listed with the file, not the build's; a
/// directory's file whose name is not a host is set aside and said to be.
#[cfg(unix)]
#[test]
fn unreadable_bodies_fail_their_host_only() {
    let dir = scratch("bodies");
    let fifo = dir.join("fifo.example.txt");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return;
    }
    std::fs::write(dir.join("good.example.txt"), RULES).unwrap();
    std::fs::create_dir(dir.join("sub.example.txt")).unwrap();
    // A name of the project's own corpus/real that is no host.
    std::fs::write(
        dir.join("ropensci-robotstxt__robots_wikipedia_20170706.txt"),
        RULES,
    )
    .unwrap();
    let st = dir.join("out").with_extension("store");
    let o = build(&["-o", s(&st), s(&dir)]);
    assert_exit(
        &o,
        0,
        &[
            "failed: fifo.example: cannot read body",
            "a FIFO, not a regular file",
            "failed: sub.example: cannot read body",
            "set aside (not a host)",
            "robots_wikipedia_20170706.txt",
            "2 body files could not be read",
        ],
    );
    let store = Store::open(&st).unwrap();
    assert_eq!(store.host_count(), 3);
    assert_eq!(allowed(&store, "https://good.example/private"), Some(false));
    assert_eq!(allowed(&store, "https://good.example/public"), Some(true));
    let fifo_host = store.host(b"https://fifo.example/").unwrap().unwrap();
    assert_eq!(fifo_host.source, HostSource::Failed);
    assert_eq!(allowed(&store, "https://fifo.example/public"), Some(false));
    // Said even with --quiet: the answers of those hosts changed.
    let o = build(&["-q", "-o", s(&st), s(&dir)]);
    assert_exit(
        &o,
        0,
        &["set aside (not a host)", "2 body files could not be read"],
    );
    // A manifest's body_path: missing, or the FIFO.
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\": \"a.example\", \"status\": 200, \"body_path\": \"good.example.txt\"}\n\
         {\"host\": \"b.example\", \"status\": 200, \"body_path\": \"missing.txt\"}\n\
         {\"host\": \"c.example\", \"status\": 200, \"body_path\": \"fifo.example.txt\"}\n",
    )
    .unwrap();
    let st2 = dir.join("m.store");
    let o = build(&["-o", s(&st2), "--manifest", s(&m)]);
    assert_exit(
        &o,
        0,
        &[
            "failed: b.example: cannot read body",
            "missing.txt",
            "failed: c.example: cannot read body",
            "a FIFO",
        ],
    );
    let store = Store::open(&st2).unwrap();
    assert_eq!(allowed(&store, "https://a.example/public"), Some(true));
    assert_eq!(allowed(&store, "https://b.example/public"), Some(false));
    std::fs::remove_dir_all(&dir).ok();
}

/// The output is checked before the inputs are read: a missing directory
/// is said at once (here before the manifest's bad line is reached).
#[test]
fn the_output_is_checked_before_the_build() {
    let dir = scratch("output");
    let m = dir.join("m.jsonl");
    std::fs::write(&m, "not json\n").unwrap();
    let o = build(&[
        "-o",
        s(&dir.join("no/such/dir/x.store")),
        "--manifest",
        s(&m),
    ]);
    assert_exit(&o, 2, &["does not exist"]);
    assert!(!err(&o).contains("m.jsonl:1"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// More shards than hosts is written as asked, with a warning.
#[test]
fn more_shards_than_hosts_is_warned_about() {
    let dir = scratch("shards");
    let m = dir.join("m.jsonl");
    std::fs::write(&m, "{\"host\": \"a.example\", \"status\": 404}\n").unwrap();
    let set = dir.join("set");
    let o = build(&["-q", "--shards", "64", "-o", s(&set), "--manifest", s(&m)]);
    assert_exit(&o, 0, &["--shards 64 for 1 hosts", "fewer shards would do"]);
    assert_eq!(StoreSet::open(&set).unwrap().shard_count(), 64);
    std::fs::remove_dir_all(&dir).ok();
}

/// RFC 9309 §2.5: a body file over 256 MiB is read to the parse limit
/// (and hashed whole), not refused; memory is the prefix.
#[test]
fn a_body_file_over_256_mib_is_read_to_the_parse_limit() {
    let dir = scratch("huge");
    let path = dir.join("huge.txt");
    let mut body = format!("{RULES}Disallow: /also\n").into_bytes();
    while body.len() < 1 << 20 {
        body.extend_from_slice(b"# a comment line of a very long robots.txt\n");
    }
    std::fs::write(&path, &body).unwrap();
    let len: u64 = 300 << 20;
    // The rest is a hole: zeros, which the parser never reaches.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len)
        .unwrap();
    let input = HostInput {
        host: "huge.example".into(),
        status: 200,
        body_path: Some(path),
        ..HostInput::default()
    };
    let (bytes, report) = StoreBuilder::new("Googlebot").build([Ok(input)]).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.unread.len(), 1, "{report:?}");
    let store = Store::from_slice(&bytes).unwrap();
    assert_eq!(allowed(&store, "https://huge.example/also"), Some(false));
    assert_eq!(allowed(&store, "https://huge.example/public"), Some(true));
    let policy = store.policy_for(b"https://huge.example/").unwrap().unwrap();
    assert_eq!(policy.header().source_len, len);
    std::fs::remove_dir_all(&dir).ok();
}
