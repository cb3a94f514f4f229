//! Store sets (`store build --shards N`): a set answers every URL exactly as
//! the single store built from the same inputs, its bytes depend only on
//! the inputs, a damaged set is an error naming the file (never a panic),
//! and the command line keeps its contract.

use crate::common::{assert_exit, err, out, robocc, robocc_bounded, s, scratch};
use robocc_testkit::paths::{root, shared_real};

use robocc_compiler::{compile, Budget, CompileOptions};
use robocc_engine::{FileKind, HostInfo, LoadErrorKind, Store, StoreSet};
use robocc_store::{manifest_inputs, HostInput, StoreBuilder};
use robocc_testkit::urlgen;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch directory for one test.
/// `robocc store build --agent Googlebot -q ARGS…`.
fn googlebot_store_build(args: &[&str]) -> Output {
    robocc(&[&["store", "build", "--agent", "Googlebot", "-q"], args].concat())
}

/// [`googlebot_store_build`] with its summary.
fn googlebot_store_build_said(args: &[&str]) -> Output {
    robocc(&[&["store", "build", "--agent", "Googlebot"], args].concat())
}

/// Default options without the wall-clock limit (a loaded machine must not
/// change which bodies fail).
fn untimed() -> CompileOptions {
    CompileOptions {
        budget: Budget {
            time: std::time::Duration::from_secs(3600),
            ..Budget::default()
        },
        ..CompileOptions::default()
    }
}

/// A manifest of a few hundred corpus files in `dir` (bodies under
/// `bodies/`) with mixed statuses: 2xx bodies, 404, 503, unreachable,
/// redirects (across shards, to unknown hosts, without a location), an HTML
/// error page, a host with a port and one written in upper case. Returns
/// the manifest and the host keys with a body (and their bodies).
fn write_manifest(dir: &Path) -> (PathBuf, Vec<(String, Vec<u8>)>) {
    let real = shared_real().unwrap_or_else(|| root().join("corpus/real"));
    let files = robocc_testkit::corpus::txt_files(&real);
    let step = (files.len() / 300).max(1);
    let files: Vec<&PathBuf> = files.iter().step_by(step).take(300).collect();
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    let mut lines = Vec::new();
    let mut fetched = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let host = match i {
            3 => format!("H{i}.Example.COM"),
            5 => format!("h{i}.example.com:8080"),
            _ => format!("h{i}.example.com"),
        };
        let key = host.to_ascii_lowercase();
        let line = match i % 10 {
            0..=5 => {
                let body = std::fs::read(file).unwrap();
                let name = format!("bodies/{i}.txt");
                std::fs::write(dir.join(&name), &body).unwrap();
                fetched.push((key, body));
                format!(
                    r#"{{"host": "{host}", "status": 200, "body_path": "{name}", "fetched_at": "2026-11-23T00:00:{:02}Z"}}"#,
                    i % 60
                )
            }
            6 => format!(r#"{{"host": "{host}", "status": 404}}"#),
            7 => format!(r#"{{"host": "{host}", "status": 503}}"#),
            8 => format!(r#"{{"host": "{host}", "status": 0}}"#),
            _ => match i % 30 {
                9 => format!(
                    r#"{{"host": "{host}", "status": 301, "location": "https://h{}.example.com/robots.txt"}}"#,
                    i - 9
                ),
                19 => format!(
                    r#"{{"host": "{host}", "status": 302, "location": "https://nowhere.example.net/robots.txt"}}"#
                ),
                _ => format!(r#"{{"host": "{host}", "status": 307}}"#),
            },
        };
        lines.push(line);
    }
    lines.push(
        r#"{"host": "html.example.com", "status": 200, "body": "<html><body>Not found</body></html>\n"}"#
            .to_string(),
    );
    let manifest = dir.join("m.jsonl");
    std::fs::write(&manifest, lines.join("\n") + "\n").unwrap();
    (manifest, fetched)
}

fn read_inputs(manifest: &Path) -> Vec<HostInput> {
    manifest_inputs(manifest)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Writes a built set into `dir` as the command line does.
fn write_set(dir: &Path, inputs: &[HostInput], shards: usize) {
    let (set, report) = StoreBuilder::new("Googlebot")
        .compile_options(untimed())
        .build_set(inputs.iter().cloned().map(Ok), shards)
        .unwrap();
    assert_eq!(report.hosts, inputs.len());
    std::fs::create_dir_all(dir).unwrap();
    for (i, shard) in set.shards.iter().enumerate() {
        std::fs::write(dir.join(robocc_engine::shard_file_name(i)), &shard[..]).unwrap();
    }
    std::fs::write(dir.join(robocc_engine::STORE_SET_INDEX), &set.index).unwrap();
}

/// A generated path (or example.com URL) moved onto host `key`.
fn url_on(key: &str, path: &[u8]) -> Vec<u8> {
    let path = String::from_utf8_lossy(path).into_owned();
    let path = path.strip_prefix("https://example.com").unwrap_or(&path);
    let sep = if path.starts_with('/') { "" } else { "/" };
    format!("https://{key}{sep}{path}").into_bytes()
}

/// Generated URLs on every host of the manifest (and on hosts it does not
/// have, and without a host).
fn urls(fetched: &[(String, Vec<u8>)], hosts: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let opts = untimed();
    for (n, (key, body)) in fetched.iter().enumerate() {
        let patterns = compile(body, "Googlebot", &opts)
            .map(|c| {
                c.rule_set
                    .patterns()
                    .map(<[u8]>::to_vec)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        for path in urlgen::workload(n as u64, patterns.iter().map(Vec::as_slice), 25) {
            out.push(url_on(key, &path));
        }
    }
    for i in 0..hosts + 20 {
        for path in ["/", "/private/x", "/a?b=c"] {
            out.push(format!("https://h{i}.example.com{path}").into_bytes());
            out.push(format!("http://H{i}.EXAMPLE.com:8080{path}").into_bytes());
        }
    }
    out.push(b"/no/host".to_vec());
    out.push(b"https:///nohost".to_vec());
    out
}

/// What a host lookup says, without the policy number (a shard numbers its
/// own policies).
fn host_view(h: Option<HostInfo<'_>>) -> Option<(String, String, u16, Option<String>)> {
    h.map(|h| {
        (
            h.key.to_string(),
            h.source.name().to_string(),
            h.status,
            h.fetched_at.map(str::to_string),
        )
    })
}

#[test]
fn a_set_answers_exactly_as_the_single_store() {
    let dir = scratch("equal");
    let (manifest, fetched) = write_manifest(&dir);
    let inputs = read_inputs(&manifest);
    assert!(inputs.len() > 250, "{}", inputs.len());
    let (single, report) = StoreBuilder::new("Googlebot")
        .compile_options(untimed())
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let single = Store::from_slice(&single).unwrap();
    write_set(&dir.join("set"), &inputs, 4);
    let set = StoreSet::open(dir.join("set")).unwrap();
    assert_eq!(set.shard_count(), 4);
    assert_eq!(set.host_count(), single.host_count() as u64);
    assert_eq!(set.agent(), "Googlebot");
    assert_eq!(set.options_hash(), single.options_hash());
    set.verify().unwrap();
    // Every shard holds some hosts.
    for i in 0..4 {
        assert!(set.shard_info(i).unwrap().hosts > 30, "shard {i}");
    }
    let urls = urls(&fetched, inputs.len());
    let (mut known, mut disallowed) = (0, 0);
    for url in &urls {
        let want = single.check(url).unwrap();
        let got = set.check(url).unwrap();
        assert_eq!(got, want, "{}", String::from_utf8_lossy(url));
        assert_eq!(
            host_view(set.host(url).unwrap()),
            host_view(single.host(url).unwrap()),
            "{}",
            String::from_utf8_lossy(url)
        );
        known += usize::from(want.is_some());
        disallowed += usize::from(want.is_some_and(|v| !v.allowed));
    }
    assert!(
        known > 4000 && known < urls.len(),
        "{known} of {}",
        urls.len()
    );
    assert!(disallowed > 500, "{disallowed}");
    // Batches answer as single checks: in order, and with the hosts (and so
    // the shards) interleaved.
    let mut order: Vec<usize> = (0..urls.len()).collect();
    for pass in 0..2 {
        if pass == 1 {
            order.sort_by_key(|&i| (i * 7919) % urls.len());
        }
        let refs: Vec<&[u8]> = order.iter().map(|&i| urls[i].as_slice()).collect();
        let (mut from_set, mut from_single) = (vec![None; refs.len()], vec![None; refs.len()]);
        set.check_batch(&refs, &mut from_set).unwrap();
        single.check_batch(&refs, &mut from_single).unwrap();
        for ((u, a), b) in refs.iter().zip(&from_set).zip(&from_single) {
            assert_eq!(
                *a,
                single.check(u).unwrap(),
                "set batch {pass}: {}",
                String::from_utf8_lossy(u)
            );
            assert_eq!(a, b, "store batch {pass}: {}", String::from_utf8_lossy(u));
        }
    }
    // A set of one shard is the single store, byte for byte.
    write_set(&dir.join("one"), &inputs, 1);
    let one = std::fs::read(dir.join("one/shard-00000.store")).unwrap();
    let (again, _) = StoreBuilder::new("Googlebot")
        .compile_options(untimed())
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    assert!(one == again[..], "a one-shard set differs from the store");
    std::fs::remove_dir_all(&dir).ok();
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn builds_are_deterministic_and_ignore_input_order() {
    let dir = scratch("determinism");
    let (manifest, _) = write_manifest(&dir);
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    let reversed = dir.join("reversed.jsonl");
    std::fs::write(&reversed, lines.join("\n") + "\n").unwrap();
    let build = |m: &Path, o: &Path| {
        let o = robocc(&[
            "store",
            "build",
            "-q",
            "--agent",
            "Googlebot",
            "--shards",
            "4",
            "-o",
            s(o),
            "--manifest",
            s(m),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    };
    build(&manifest, &dir.join("a"));
    build(&manifest, &dir.join("b"));
    build(&reversed, &dir.join("c"));
    let a = files_of(&dir.join("a"));
    assert_eq!(a.len(), 5);
    assert!(a == files_of(&dir.join("b")), "a rerun differs");
    assert!(a == files_of(&dir.join("c")), "input order changes the set");
    // Rebuilding into the set replaces it with the same bytes.
    build(&manifest, &dir.join("a"));
    assert!(a == files_of(&dir.join("a")), "a rebuild in place differs");
    std::fs::remove_dir_all(&dir).ok();
}

/// A small set (two hosts per shard at least) for the damage tests.
fn small_set(dir: &Path) -> (PathBuf, Vec<Vec<u8>>) {
    let inputs: Vec<HostInput> = (0..40)
        .map(|i| HostInput {
            host: format!("h{i}.example"),
            status: 200,
            body: Some(format!("User-agent: *\nDisallow: /p{}\n", i % 7).into_bytes()),
            ..HostInput::default()
        })
        .collect();
    let set = dir.join("set");
    write_set(&set, &inputs, 4);
    let urls = (0..40)
        .map(|i| format!("https://h{i}.example/p{}", i % 7).into_bytes())
        .collect();
    (set, urls)
}

/// Checks every URL: each answer is a verdict or an error, never a panic.
/// Returns the errors.
fn errors_of(set: &StoreSet, urls: &[Vec<u8>]) -> Vec<robocc_engine::LoadError> {
    urls.iter().filter_map(|u| set.check(u).err()).collect()
}

#[test]
fn a_damaged_index_is_refused() {
    let dir = scratch("index");
    let (set_dir, urls) = small_set(&dir);
    let index_path = set_dir.join("index.txt");
    let index = std::fs::read(&index_path).unwrap();
    // Every truncation is refused.
    for n in 0..index.len() {
        std::fs::write(&index_path, &index[..n]).unwrap();
        let e = StoreSet::open(&set_dir).unwrap_err();
        assert_eq!(e.file_kind(), FileKind::StoreSet, "{e}");
        assert!(e.to_string().contains("index.txt"), "{e}");
    }
    // Every byte changed: refused, or (a changed digit of a size or
    // checksum) caught when the shard is opened or verified.
    for i in 0..index.len() {
        for flip in [0x01u8, 0x20] {
            let mut bad = index.clone();
            bad[i] ^= flip;
            std::fs::write(&index_path, &bad).unwrap();
            if let Ok(set) = StoreSet::open(&set_dir) {
                let errors = errors_of(&set, &urls);
                assert!(
                    !errors.is_empty() || set.verify().is_err() || bad == index,
                    "byte {i} ^ {flip:#x} went unnoticed"
                );
            }
        }
    }
    std::fs::write(&index_path, b"robocc-store-set 7\n").unwrap();
    assert!(StoreSet::open(&set_dir).unwrap_err().is_version_mismatch());
    std::fs::remove_file(&index_path).unwrap();
    let e = StoreSet::open(&set_dir).unwrap_err();
    assert!(matches!(e.kind(), LoadErrorKind::Io(_)), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_or_missing_shard_is_an_error_naming_it() {
    let dir = scratch("shards");
    let (set_dir, urls) = small_set(&dir);
    let clean = StoreSet::open(&set_dir).unwrap();
    assert!(errors_of(&clean, &urls).is_empty());
    clean.verify().unwrap();
    // The shard that holds h0.example.
    let k = clean.shard_of(&urls[0]).unwrap();
    let shard = set_dir.join(robocc_engine::shard_file_name(k));
    let name = robocc_engine::shard_file_name(k);
    let bytes = std::fs::read(&shard).unwrap();
    let in_k = |set: &StoreSet| {
        urls.iter()
            .filter(|u| set.shard_of(u) == Some(k))
            .cloned()
            .collect::<Vec<_>>()
    };
    // Truncated: refused at first use, the other shards still answer.
    for n in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&shard, &bytes[..n]).unwrap();
        let set = StoreSet::open(&set_dir).unwrap();
        let errors = errors_of(&set, &urls);
        assert_eq!(errors.len(), in_k(&set).len(), "truncated to {n}");
        assert!(errors[0].to_string().contains(&name), "{}", errors[0]);
        assert!(set.verify().is_err());
        for u in urls.iter().filter(|u| set.shard_of(u) != Some(k)) {
            assert!(set.check(u).unwrap().is_some());
        }
    }
    // A byte changed in place: the size is right, the checksum is not.
    for at in [20, bytes.len() / 2, bytes.len() - 3] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x55;
        std::fs::write(&shard, &bad).unwrap();
        let set = StoreSet::open(&set_dir).unwrap();
        let _ = errors_of(&set, &urls);
        let e = set.verify().unwrap_err();
        assert!(e.to_string().contains(&name), "{e}");
    }
    // Another shard's file in its place.
    let other = set_dir.join(robocc_engine::shard_file_name((k + 1) % 4));
    std::fs::copy(&other, &shard).unwrap();
    let set = StoreSet::open(&set_dir).unwrap();
    assert!(!errors_of(&set, &urls).is_empty());
    // Missing.
    std::fs::remove_file(&shard).unwrap();
    let set = StoreSet::open(&set_dir).unwrap();
    let errors = errors_of(&set, &urls);
    assert_eq!(errors.len(), in_k(&set).len());
    assert!(matches!(errors[0].kind(), LoadErrorKind::Io(_)));
    assert!(errors[0].to_string().contains(&name), "{}", errors[0]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_store_dir_prints_what_the_single_store_prints() {
    let dir = scratch("cli-check");
    let (manifest, fetched) = write_manifest(&dir);
    let build = |extra: &[&str], o: &Path| {
        let mut args = vec!["store", "build", "-q", "--agent", "Googlebot", "-o", s(o)];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--manifest", s(&manifest)]);
        let o = robocc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    };
    build(&[], &dir.join("single.store"));
    build(&["--shards", "4"], &dir.join("set"));
    let mut list = Vec::new();
    for u in urls(&fetched, 320).iter().step_by(3) {
        if !u.contains(&b'\n') && !u.contains(&b'\r') {
            list.extend_from_slice(u);
            list.push(b'\n');
        }
    }
    let url_file = dir.join("urls.txt");
    std::fs::write(&url_file, &list).unwrap();
    for extra in [
        &["--missing", "unknown"][..],
        &["--missing", "allow"],
        &["--missing", "disallow", "--format", "json"],
        &["--format", "json"],
    ] {
        let run = |store: &Path| {
            let mut args = vec!["check", "--store", s(store), "--urls", s(&url_file)];
            args.extend_from_slice(extra);
            robocc(&args)
        };
        let (a, b) = (run(&dir.join("single.store")), run(&dir.join("set")));
        assert_eq!(a.status.code(), Some(0), "{}", err(&a));
        assert_eq!(b.status.code(), Some(0), "{}", err(&b));
        assert!(
            out(&a).lines().count() > 1500,
            "{}",
            out(&a).lines().count()
        );
        assert!(a.stdout == b.stdout, "{extra:?}: outputs differ");
        assert_eq!(err(&a), err(&b));
    }
    // URL arguments, and a refused flag as for a store.
    let args = ["https://h1.example.com/", "https://h0.example.com/private"];
    let a = robocc(
        &[
            &["check", "--store", s(&dir.join("single.store"))][..],
            &args,
        ]
        .concat(),
    );
    let b = robocc(&[&["check", "--store", s(&dir.join("set"))][..], &args].concat());
    assert_eq!(a.stdout, b.stdout);
    let o = robocc(&[
        "check",
        "--store",
        s(&dir.join("set")),
        "--agent",
        "Bingbot",
        "/a",
    ]);
    assert_exit(&o, 2, "Googlebot");
    // inspect shows the set and verifies every shard.
    let o = robocc(&["inspect", s(&dir.join("set"))]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains("robocc store set, format version 1, 4 shards"),
        "{text}"
    );
    assert_eq!(text.matches("\tok\n").count(), 4, "{text}");
    let o = robocc(&["inspect", "--hosts", s(&dir.join("set"))]);
    assert!(out(&o).contains("h5.example.com:8080\tfetched\tstatus 200"));
    // A damaged shard: inspect and check fail with exit 2 naming it.
    let shard = dir.join("set/shard-00002.store");
    let mut bytes = std::fs::read(&shard).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x55;
    std::fs::write(&shard, &bytes).unwrap();
    let o = robocc(&["inspect", s(&dir.join("set"))]);
    assert_exit(&o, 2, "shard-00002.store");
    assert!(out(&o).contains("FAILED"), "{}", out(&o));
    std::fs::remove_file(&shard).unwrap();
    let o = robocc(&[
        "check",
        "--store",
        s(&dir.join("set")),
        "--urls",
        s(&url_file),
    ]);
    assert_exit(&o, 2, "shard-00002.store");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn store_build_shards_refusals_and_replacement() {
    let dir = scratch("cli-refuse");
    let (manifest, _) = write_manifest(&dir);
    let build = |shards: &str, o: &Path| {
        robocc(&[
            "store",
            "build",
            "-q",
            "--agent",
            "Googlebot",
            "--shards",
            shards,
            "-o",
            s(o),
            "--manifest",
            s(&manifest),
        ])
    };
    let fresh = dir.join("fresh");
    assert_exit(&build("0", &fresh), 2, "1 to 65536 shards");
    assert_exit(&build("100000000", &fresh), 2, "1 to 65536 shards");
    assert_exit(&build("-1", &fresh), 2, "");
    assert_exit(&build("4", Path::new("-")), 2, "not standard output");
    assert_exit(&build("4", &dir.join("x.store")), 2, "give a directory");
    assert!(!fresh.exists() && !dir.join("x.store").exists());
    // Not ours: a file, a non-empty directory, a symbolic link.
    assert_exit(&build("4", &manifest), 2, "is not a directory");
    let bodies = dir.join("bodies");
    let before = files_of(&bodies);
    assert_exit(&build("4", &bodies), 2, "not a robocc store set");
    assert!(
        files_of(&bodies) == before,
        "a refused directory was touched"
    );
    let mut a = robocc(&[
        "store",
        "build",
        "-q",
        "--agent",
        "Googlebot",
        "--shards",
        "2",
        "-o",
        s(&fresh),
        "--manifest",
        s(&manifest),
        "--base",
        s(&manifest),
    ]);
    assert_exit(&a, 2, "not supported yet");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&bodies, dir.join("link")).unwrap();
        assert_exit(&build("4", &dir.join("link")), 2, "symbolic link");
    }
    // Without --shards a directory is refused with the flag that writes one.
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    a = robocc(&[
        "store",
        "build",
        "-q",
        "--agent",
        "Googlebot",
        "-o",
        s(&empty),
        "--manifest",
        s(&manifest),
    ]);
    assert_exit(&a, 2, "--shards N");
    // An empty directory and a new path are written.
    assert_eq!(build("4", &empty).status.code(), Some(0));
    let nested = dir.join("new/deeper");
    assert_eq!(build("3", &nested).status.code(), Some(0));
    assert_eq!(files_of(&nested).len(), 4);
    // An existing set is replaced: fewer shards remove the extra ones,
    // files that are not the set's stay.
    std::fs::write(empty.join("summary.json"), b"{}").unwrap();
    assert_eq!(build("2", &empty).status.code(), Some(0));
    let names: Vec<String> = files_of(&empty).into_iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        [
            "index.txt",
            "shard-00000.store",
            "shard-00001.store",
            "summary.json"
        ]
    );
    StoreSet::open(&empty).unwrap().verify().unwrap();
    // A set whose index is damaged is not ours any more.
    std::fs::write(empty.join("index.txt"), b"robocc-store-set 1\nshards x\n").unwrap();
    assert_exit(&build("2", &empty), 2, "not a store set");
    // inspect and check of a directory that is not a set.
    let o = robocc(&["inspect", s(&bodies)]);
    assert_exit(&o, 2, "not a store set");
    let o = robocc(&["check", "--store", s(&bodies), "/a"]);
    assert_exit(&o, 2, "is a directory, not a store file");
    std::fs::remove_dir_all(&dir).ok();
}

fn warc_record(uri: &str, http: &str) -> Vec<u8> {
    use std::io::Write;
    let rec = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Date: 2026-11-01T00:00:00Z\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(rec.as_bytes()).unwrap();
    gz.finish().unwrap()
}

#[test]
fn store_build_warc_writes_what_the_library_builds() {
    let dir = scratch("warc");
    let mut a = Vec::new();
    for i in 0..40 {
        let http = match i % 4 {
            0 => format!(
                "HTTP/1.1 301 Moved\r\nLocation: https://w{}.example/robots.txt\r\n\r\n",
                i + 2
            ),
            1 => "HTTP/1.1 404 Not Found\r\n\r\n<html>gone</html>".to_string(),
            _ => format!(
                "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /p{}\n",
                i % 5
            ),
        };
        a.extend(warc_record(
            &format!("https://w{i}.example/robots.txt"),
            &http,
        ));
    }
    let cut = warc_record(
        "https://cut.example/robots.txt",
        "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\n",
    );
    // Cut inside its last deflate block: the headers are readable.
    a.extend_from_slice(&cut[..cut.len() - 12]);
    let b = warc_record("https://w2.example/robots.txt", "HTTP/1.1 503 Busy\r\n\r\n");
    let (fa, fb) = (dir.join("a.warc.gz"), dir.join("b.warc.gz"));
    std::fs::write(&fa, a).unwrap();
    std::fs::write(&fb, b).unwrap();
    let set = dir.join("set");
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "Googlebot",
        "--shards",
        "3",
        "-o",
        s(&set),
        "--warc",
        s(&fa),
        s(&fb),
    ]);
    assert_exit(&o, 0, "failed 1");
    assert!(
        err(&o).contains("cut.example: the capture is truncated"),
        "{}",
        err(&o)
    );
    let inputs = robocc_store::warc::warc_inputs(&fa)
        .unwrap()
        .chain(robocc_store::warc::warc_inputs(&fb).unwrap());
    let (built, _) = StoreBuilder::new("Googlebot").build_set(inputs, 3).unwrap();
    let mut want = vec![("index.txt".to_string(), built.index.into_bytes())];
    for (i, shard) in built.shards.iter().enumerate() {
        want.push((robocc_engine::shard_file_name(i), shard.to_vec()));
    }
    want.sort();
    assert_eq!(files_of(&set), want);
    let store = StoreSet::open(&set).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    // w4 → w6, whose body disallows /p1.
    assert_eq!(allowed("https://w4.example/p1"), Some(false));
    assert_eq!(allowed("https://w4.example/p4"), Some(true));
    // w0 → w2, whose later capture (the second file) is a 503.
    assert_eq!(allowed("https://w0.example/p4"), Some(false));
    assert_eq!(
        allowed("https://w2.example/x"),
        Some(false),
        "the later capture: 503"
    );
    assert_eq!(
        allowed("https://cut.example/x"),
        Some(false),
        "failed: disallow all"
    );
    // One input kind at a time.
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "Googlebot",
        "-o",
        s(&dir.join("x.store")),
        "--warc",
        s(&fa),
        "--manifest",
        s(&fa),
    ]);
    assert_exit(&o, 2, "--manifest");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary counts duplicate hosts (`--verbose` lists them) and the
/// WARC records set aside, by kind; a WARC file without a capture and an
/// empty build are warned about, even with `--quiet`; a damaged file says
/// what to do; `--manifest -` reads standard input.
#[test]
fn store_build_summary_says_what_was_set_aside() {
    let dir = scratch("summary");
    let mut a = Vec::new();
    for i in 0..30 {
        // Common Crawl's shape: the http hop, then the capture it leads to.
        a.extend(warc_record(
            &format!("http://d{i}.example/robots.txt"),
            &format!("HTTP/1.1 301 Moved\r\nLocation: https://d{i}.example/robots.txt\r\n\r\n"),
        ));
        a.extend(warc_record(
            &format!("https://d{i}.example/robots.txt"),
            "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /x\n",
        ));
    }
    for i in 0..3 {
        // A second capture: a duplicate.
        a.extend(warc_record(
            &format!("https://d{i}.example/robots.txt"),
            "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /y\n",
        ));
    }
    a.extend(warc_record(
        "https://d0.example/",
        "HTTP/1.1 200 OK\r\n\r\n<html>",
    ));
    let fa = dir.join("a.warc.gz");
    std::fs::write(&fa, &a).unwrap();
    let fe = dir.join("empty.warc");
    std::fs::write(&fe, b"").unwrap();
    let store = dir.join("s.store");
    let build = |extra: &[&str]| {
        let mut args = vec!["store", "build", "--agent", "Googlebot", "-o", s(&store)];
        args.extend_from_slice(extra);
        robocc(&args)
    };
    let o = build(&["--warc", s(&fa), s(&fe)]);
    assert_exit(&o, 0, "duplicate hosts: 3 (3 extra inputs;");
    let e = err(&o);
    assert_eq!(e.matches("duplicate host").count(), 1, "{e}");
    assert!(
        e.contains(
            "WARC records 64: robots.txt captures 63, set aside 1 (responses for another path \
             than /robots.txt 1)"
        ),
        "{e}"
    );
    assert!(
        e.contains("empty.warc: warning: no WARC record in it"),
        "{e}"
    );
    let o = build(&["--verbose", "--warc", s(&fa)]);
    assert_exit(
        &o,
        0,
        "duplicate host (last one kept, unless a redirect to itself): d2.example",
    );
    assert_eq!(err(&o).matches("duplicate host").count(), 3, "{}", err(&o));
    let o = build(&["--quiet", "--warc", s(&fe)]);
    assert_exit(&o, 2, "give --allow-empty");
    let o = build(&["--quiet", "--allow-empty", "--warc", s(&fe)]);
    assert_exit(&o, 0, "no host was read: the store is empty");
    // A damaged member: what it is, where, and what to do.
    let mut bad = a.clone();
    let first = warc_record(
        "http://d0.example/robots.txt",
        "HTTP/1.1 301 Moved\r\nLocation: https://d0.example/robots.txt\r\n\r\n",
    )
    .len();
    // In the deflate data of the second member (its header is 10 bytes).
    bad[first + 20] ^= 0xff;
    std::fs::write(&fa, &bad).unwrap();
    let o = build(&["--warc", s(&fa)]);
    assert_exit(&o, 2, "download it again");
    assert!(
        err(&o).contains("damaged gzip member at byte offset"),
        "{}",
        err(&o)
    );
    // A manifest on standard input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args([
            "store",
            "build",
            "--agent",
            "Googlebot",
            "-o",
            s(&store),
            "--manifest",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"host\": \"in.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /\\n\"}\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_exit(&o, 0, "1 hosts");
    let built = Store::open(&store).unwrap();
    assert!(
        !built
            .check(b"https://in.example/x")
            .unwrap()
            .unwrap()
            .allowed
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `store build --base` with a manifest stating digests reads only the body
/// files that changed, says so, and answers as a full build.
#[test]
fn cli_rebuild_reads_only_changed_bodies() {
    let dir = scratch("digests");
    let hex = |b: &[u8]| robocc_store::hex(&robocc_compiler::sha256(b));
    let write_manifest = |bodies: &[&str]| {
        let mut m = String::new();
        for (i, body) in bodies.iter().enumerate() {
            std::fs::write(dir.join(format!("b{i}.txt")), body).unwrap();
            for h in 0..3 {
                m.push_str(&format!(
                    "{{\"host\": \"h{i}-{h}.com\", \"status\": 200, \"body_path\": \"b{i}.txt\", \"sha256\": \"{}\"}}\n",
                    hex(body.as_bytes())
                ));
            }
        }
        std::fs::write(dir.join("m.jsonl"), m).unwrap();
    };
    let manifest = dir.join("m.jsonl");
    let build = |out: &str, base: Option<&str>| {
        let out = dir.join(out);
        let mut args = vec![
            "store",
            "build",
            "--agent",
            "Googlebot",
            "--manifest",
            s(&manifest),
            "-o",
            s(&out),
        ];
        let base = base.map(|b| dir.join(b));
        if let Some(b) = &base {
            args.extend(["--base", s(b)]);
        }
        robocc(&args)
    };
    let bodies = [
        "User-agent: *\nDisallow: /a\n",
        "User-agent: *\nDisallow: /b\n",
        "User-agent: *\nDisallow: /c\n",
    ];
    write_manifest(&bodies);
    let first = build("a.store", None);
    assert_exit(&first, 0, "policies compiled 3");
    assert!(!err(&first).contains("not read"), "{}", err(&first));
    let changed = [bodies[0], "User-agent: *\nDisallow: /changed\n", bodies[2]];
    write_manifest(&changed);
    let again = build("b.store", Some("a.store"));
    assert_exit(&again, 0, "body files read 3, not read 6");
    assert_exit(
        &again,
        0,
        "policies compiled 1, reused from the base store 2",
    );
    // The same store as a full build of the new manifest.
    assert_exit(&build("c.store", None), 0, "policies compiled 3");
    assert_eq!(
        std::fs::read(dir.join("b.store")).unwrap(),
        std::fs::read(dir.join("c.store")).unwrap()
    );
    // A stated digest that is not the body's: that host fails, the build
    // does not.
    let m = std::fs::read_to_string(dir.join("m.jsonl")).unwrap();
    let wrong = m.replacen(&hex(bodies[0].as_bytes()), &"0".repeat(64), 1);
    std::fs::write(dir.join("m.jsonl"), wrong).unwrap();
    let bad = build("d.store", None);
    assert_exit(&bad, 0, "failed: h0-0.com: the body's SHA-256 is");
    // A digest that is not 64 hex digits is an error naming the line.
    std::fs::write(
        dir.join("m.jsonl"),
        "{\"host\": \"a.com\", \"status\": 200, \"body_path\": \"b0.txt\", \"sha256\": \"abc\"}\n",
    )
    .unwrap();
    assert_exit(
        &build("e.store", None),
        2,
        "m.jsonl:1: \"sha256\" is \"abc\"",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A base store damaged on disk in a way that still validates (a rule's
/// text changed) is refused where its policy is used, found by `inspect`,
/// and never carried into a rebuild: the rebuild refuses the base.
#[test]
fn a_damaged_base_policy_is_refused_not_copied() {
    let dir = scratch("damaged-base");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\":\"a.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /unique-text\\n\"}\n\
         {\"host\":\"b.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /other\\n\"}\n",
    )
    .unwrap();
    let (base, fresh, rebuilt) = (
        dir.join("a.store"),
        dir.join("f.store"),
        dir.join("r.store"),
    );
    let build = googlebot_store_build_said;
    assert_exit(
        &build(&["-o", s(&base), "--manifest", s(&m)]),
        0,
        "policies compiled 2",
    );
    assert_exit(&build(&["-o", s(&fresh), "--manifest", s(&m)]), 0, "");
    let mut bytes = std::fs::read(&base).unwrap();
    let at = bytes
        .windows(12)
        .position(|w| w == b"/unique-text")
        .expect("the rule's text in the store");
    bytes[at + 1] = b'v';
    std::fs::write(&base, &bytes).unwrap();
    // Lookups refuse the damaged policy, naming the host; the other answers.
    let o = robocc(&["check", "--store", s(&base), "https://a.ex/x"]);
    assert_exit(&o, 2, "a.ex");
    assert_exit(&o, 2, "checksum");
    let other = robocc(&["check", "--store", s(&base), "https://b.ex/x"]);
    assert_exit(&other, 0, "");
    assert!(out(&other).starts_with("allow\t"), "{}", out(&other));
    assert_exit(&robocc(&["inspect", s(&base)]), 2, "checksum");
    // The rebuild refuses the damaged base whole (issue 41: nothing is
    // taken from it) and writes nothing; without it, the build is the
    // fresh one.
    let again = build(&["-o", s(&rebuilt), "--manifest", s(&m), "--base", s(&base)]);
    assert_exit(&again, 2, "the base store is damaged");
    assert!(!rebuilt.exists());
    assert_exit(&build(&["-o", s(&rebuilt), "--manifest", s(&m)]), 0, "");
    assert_eq!(
        std::fs::read(&rebuilt).unwrap(),
        std::fs::read(&fresh).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 304 Not Modified (a conditional fetch) keeps the base store's policy
/// of a host it holds as fetched; without one the host is unreachable
/// (disallow all) and the build says so, even with --quiet.
#[test]
fn not_modified_keeps_the_base_policy_or_is_reported() {
    let dir = scratch("not-modified");
    let day1 = dir.join("day1.jsonl");
    std::fs::write(
        &day1,
        "{\"host\":\"a.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /a\\n\"}\n\
         {\"host\":\"b.ex\",\"status\":404}\n\
         {\"host\":\"d.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /d\\n\"}\n",
    )
    .unwrap();
    let day2 = dir.join("day2.jsonl");
    std::fs::write(
        &day2,
        "{\"host\":\"a.ex\",\"status\":304,\"fetched_at\":\"2026-11-29T00:00:00Z\"}\n\
         {\"host\":\"b.ex\",\"status\":304}\n\
         {\"host\":\"c.ex\",\"status\":304,\"location\":\"https://a.ex/robots.txt\"}\n\
         {\"host\":\"d.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /d2\\n\"}\n\
         {\"host\":\"d.ex\",\"status\":304}\n",
    )
    .unwrap();
    let (d1, d2, d3) = (
        dir.join("d1.store"),
        dir.join("d2.store"),
        dir.join("d3.store"),
    );
    let build = googlebot_store_build_said;
    assert_exit(&build(&["-o", s(&d1), "--manifest", s(&day1)]), 0, "");
    let o = build(&["-o", s(&d2), "--manifest", s(&day2), "--base", s(&d1)]);
    assert_exit(
        &o,
        0,
        "not modified (304): 1 hosts keep the base store's policy",
    );
    assert_exit(&o, 0, "reused from the base store 1;");
    // b.ex was a 404 (no file to keep), c.ex is not in the base (its
    // location is not followed: a 304 has no target). d.ex's 304 refers
    // to the 200 before it in the same input, which stands.
    assert_exit(
        &o,
        0,
        "warning: 2 hosts answered 304 Not Modified with no policy to keep: unreachable \
         (disallow all): b.ex (the --base store holds it as unavailable), c.ex (not in the \
         --base store)",
    );
    let check = |store: &Path, url: &str| out(&robocc(&["check", "--store", s(store), url]));
    assert!(check(&d2, "https://a.ex/a").starts_with("disallow\t"));
    assert!(check(&d2, "https://a.ex/b").starts_with("allow\t"));
    assert!(check(&d2, "https://b.ex/b").starts_with("disallow\t"));
    assert!(check(&d2, "https://c.ex/b").starts_with("disallow\t"));
    assert!(check(&d2, "https://d.ex/d").starts_with("allow\t"));
    assert!(check(&d2, "https://d.ex/d2").starts_with("disallow\t"));
    // The host's record says what the input gave (304) and where its
    // policy came from (a fetch), with the new fetch time.
    let hosts = out(&robocc(&["inspect", "--hosts", s(&d2)]));
    let a = hosts
        .lines()
        .find(|l| l.contains("a.ex"))
        .unwrap_or_default();
    assert!(
        a.contains("304") && a.contains("fetched") && a.contains("2026-11-29"),
        "{hosts}"
    );
    // Without a base: every 304 is said, with --quiet too.
    let q = build(&["-q", "-o", s(&d3), "--manifest", s(&day2)]);
    assert_exit(
        &q,
        0,
        "3 hosts answered 304 Not Modified with no policy to keep",
    );
    assert_exit(&q, 0, "a.ex (no --base store)");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 304 for a host the base holds as failed (its robots.txt did not
/// compile) fails again, with this build's --on-failure policy: the same
/// file fails the same way.
#[test]
fn not_modified_keeps_a_failed_host_failed() {
    let dir = scratch("not-modified-failed");
    let body = root().join("corpus/hostile/overlapping-star-dollar.txt");
    let day1 = dir.join("day1.jsonl");
    let line = format!(
        "{{\"host\":\"f.ex\",\"status\":200,\"body_path\":{:?}}}\n",
        body.display().to_string()
    );
    std::fs::write(&day1, line).unwrap();
    let day2 = dir.join("day2.jsonl");
    std::fs::write(&day2, "{\"host\":\"f.ex\",\"status\":304}\n").unwrap();
    let (d1, d2) = (dir.join("d1.store"), dir.join("d2.store"));
    let allow = ["--on-failure", "allow"];
    let build = googlebot_store_build_said;
    assert_exit(
        &build(&[&allow[..], &["-o", s(&d1), "--manifest", s(&day1)]].concat()),
        0,
        "failed: f.ex",
    );
    let o = build(
        &[
            &allow[..],
            &["-o", s(&d2), "--manifest", s(&day2), "--base", s(&d1)],
        ]
        .concat(),
    );
    assert_exit(
        &o,
        0,
        "failed: f.ex: 304 Not Modified: the --base store holds this host's robots.txt as failed",
    );
    assert!(!err(&o).contains("no policy to keep"), "{}", err(&o));
    let check = robocc(&["check", "--store", s(&d2), "https://f.ex/x"]);
    assert!(out(&check).starts_with("allow\t"), "{}", out(&check));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store of a few hosts written by the command line, in `dir`.
fn small_store(dir: &Path) -> PathBuf {
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\":\"a.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /admin\\n\"}\n\
         {\"host\":\"b.ex\",\"status\":404}\n\
         {\"host\":\"c.ex\",\"status\":503}\n",
    )
    .unwrap();
    let st = dir.join("s.store");
    let o = googlebot_store_build(&["-o", s(&st), "--manifest", s(&m)]);
    assert_exit(&o, 0, "");
    st
}

/// `inspect STORE` is the full check of a single store as of a set's shard:
/// a flipped check word, slot hash, policy number, hint or key is refused
/// (stores audit F2); so is it by `check`, whose lookup reads the slot,
/// even with `--missing allow` (issue 41: a hidden host was allowed).
#[test]
fn inspect_and_check_refuse_a_damaged_host_index() {
    let dir = scratch("inspect-index");
    let st = small_store(&dir);
    assert_exit(&robocc(&["inspect", s(&st)]), 0, "");
    let bytes = std::fs::read(&st).unwrap();
    let slots = Store::from_slice(&bytes).unwrap().slot_table();
    let a = (slots.start..slots.end)
        .step_by(64)
        .find(|&i| &bytes[i + 38..i + 42] == b"a.ex")
        .unwrap();
    // The check word, hash, policy number, a hint, the key.
    for at in [a, a + 4, a + 8, a + 24, a + 38] {
        let mut bad = bytes.clone();
        bad[at] ^= 1;
        let path = dir.join(format!("flip{at}.store"));
        std::fs::write(&path, &bad).unwrap();
        let o = robocc(&["inspect", s(&path)]);
        assert_exit(&o, 2, &format!("flip{at}.store: corrupted store"));
        let o = robocc(&[
            "check",
            "--store",
            s(&path),
            "--missing",
            "allow",
            "https://a.ex/admin",
        ]);
        assert_exit(&o, 2, "is damaged");
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A damaged `--base` is refused before anything is taken from it, naming
/// it and what to do; nothing is written (issue 41: a 304 took the policy
/// a flipped slot named, and the new store passed `inspect`).
#[test]
fn store_build_refuses_a_damaged_base() {
    let dir = scratch("damaged-base");
    let st = small_store(&dir);
    let mut bytes = std::fs::read(&st).unwrap();
    let slots = Store::from_slice(&bytes).unwrap().slot_table();
    let a = (slots.start..slots.end)
        .step_by(64)
        .find(|&i| &bytes[i + 38..i + 42] == b"a.ex")
        .unwrap();
    // a.ex's policy number: another host's policy instead.
    bytes[a + 8] ^= 1;
    let base = dir.join("damaged.store");
    std::fs::write(&base, &bytes).unwrap();
    let m = dir.join("304.jsonl");
    std::fs::write(&m, "{\"host\":\"a.ex\",\"status\":304}\n").unwrap();
    let new = dir.join("new.store");
    let o = googlebot_store_build(&["-o", s(&new), "--manifest", s(&m), "--base", s(&base)]);
    assert_exit(&o, 2, "damaged.store: the base store is damaged");
    assert!(err(&o).contains("build without --base"), "{}", err(&o));
    assert!(!new.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// A FIFO given as a store, policy, `--base`, a set's shard or index is
/// refused with exit 2 naming it, never waited on (stores audit F4).
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_store_is_refused() {
    let dir = scratch("fifo");
    let st = small_store(&dir);
    let fifo = dir.join("f.store");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return;
    }
    let m = dir.join("m.jsonl");
    let out_store = dir.join("o.store");
    let runs: [Vec<&str>; 5] = [
        vec!["check", "--store", s(&fifo), "https://a.ex/"],
        vec!["check", "--policy", s(&fifo), "https://a.ex/"],
        vec!["explain", "--policy", s(&fifo), "https://a.ex/"],
        vec!["inspect", s(&fifo)],
        vec![
            "store",
            "build",
            "--agent",
            "Googlebot",
            "-q",
            "-o",
            s(&out_store),
            "--manifest",
            s(&m),
            "--base",
            s(&fifo),
        ],
    ];
    for args in runs {
        let o = robocc_bounded(&args);
        assert_exit(&o, 2, "f.store");
        assert!(
            err(&o).contains("a FIFO, not a regular file"),
            "{}",
            err(&o)
        );
    }
    assert!(!out_store.exists());
    // A shard of a set.
    let set = dir.join("set");
    let o = googlebot_store_build(&["--shards", "2", "-o", s(&set), "--manifest", s(&m)]);
    assert_exit(&o, 0, "");
    let shard = set.join(robocc_engine::shard_file_name(1));
    std::fs::remove_file(&shard).unwrap();
    std::fs::hard_link(&fifo, &shard).unwrap();
    let urls: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|h| format!("https://{h}.ex/"))
        .collect();
    let mut args = vec!["check", "--store", s(&set)];
    args.extend(urls.iter().map(String::as_str));
    let o = robocc_bounded(&args);
    assert_exit(&o, 2, "shard-00001.store: cannot read store: it is a FIFO");
    let o = robocc_bounded(&["inspect", s(&set)]);
    assert_exit(&o, 2, "shard-00001.store: cannot read store: it is a FIFO");
    drop(st);
    std::fs::remove_dir_all(&dir).ok();
}

/// `"VERDICT" "SOURCE"` of each JSON line `check --format json` printed.
fn json_verdicts_and_sources(o: &Output) -> Vec<String> {
    out(o)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{} {}", v["verdict"], v["source"])
        })
        .collect()
}

/// A host written as a Unicode name is looked up in the IDNA form the
/// build stored it in (`Bücher.ex` is `xn--bcher-kva.ex`), by the batch path
/// and URL by URL, in a store and in a set: before, the engine looked the
/// name up as written, missed, and `--missing allow` allowed a URL its
/// robots.txt disallows. A Unicode host the store lacks still follows
/// `--missing`.
#[test]
fn a_unicode_host_is_looked_up_in_its_idna_form() {
    let dir = scratch("idna-lookup");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\":\"Bücher.example\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /admin\\n\"}\n",
    )
    .unwrap();
    let st = dir.join("s.store");
    assert_exit(
        &googlebot_store_build(&["-o", s(&st), "--manifest", s(&m)]),
        0,
        "",
    );
    let set = dir.join("set");
    assert_exit(
        &googlebot_store_build(&["--shards", "4", "-o", s(&set), "--manifest", s(&m)]),
        0,
        "",
    );
    // The name as written and its key fall in different shards: the
    // lookup must choose the key's.
    let shards = robocc_engine::StoreSet::open(&set).unwrap();
    assert_ne!(
        shards.shard_of("https://bücher.example/".as_bytes()),
        shards.shard_of(b"https://xn--bcher-kva.example/")
    );
    let urls = [
        "https://bücher.example/admin",
        "https://BÜCHER.example/ok",
        "https://xn--bcher-kva.example/admin",
        "https://ünknown.ex/admin",
        // A port not the scheme's default is part of the key either way.
        "http://bücher.example:443/admin",
        "http://xn--bcher-kva.example:443/admin",
    ];
    for store in [&st, &set] {
        let mut args = vec!["check", "--store", s(store), "--missing", "allow"];
        args.extend(urls);
        let o = robocc(&args);
        assert_exit(&o, 0, "");
        assert_eq!(
            out(&o),
            "disallow\thttps://bücher.example/admin\nallow\thttps://BÜCHER.example/ok\n\
             disallow\thttps://xn--bcher-kva.example/admin\nallow\thttps://ünknown.ex/admin\n\
             allow\thttp://bücher.example:443/admin\nallow\thttp://xn--bcher-kva.example:443/admin\n"
        );
        args.extend(["--format", "json"]);
        let o = robocc(&args);
        let sources = json_verdicts_and_sources(&o);
        assert_eq!(
            sources,
            [
                "\"disallow\" \"fetched\"",
                "\"allow\" \"fetched\"",
                "\"disallow\" \"fetched\"",
                "\"allow\" \"not in store\"",
                "\"allow\" \"not in store\"",
                "\"allow\" \"not in store\""
            ]
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The host a lookup reads is the one clients fetch (what follows the
/// last `@` before `/ ? #`); an authority URL parsers read differently is
/// no host. Before, `;` ended the authority, and
/// `https://allowed.ex;@victim.ex/private`, which clients fetch from
/// victim.ex, was answered from allowed.ex's policy: allow (issue 41).
#[test]
fn the_host_looked_up_is_the_one_clients_fetch() {
    let dir = scratch("authority");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\":\"allowed.ex\",\"status\":200,\"body\":\"User-agent: *\\nAllow: /\\n\"}\n\
         {\"host\":\"victim.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /\\n\"}\n",
    )
    .unwrap();
    let st = dir.join("s.store");
    assert_exit(
        &googlebot_store_build(&["-o", s(&st), "--manifest", s(&m)]),
        0,
        "",
    );
    let set = dir.join("set");
    assert_exit(
        &googlebot_store_build(&["--shards", "3", "-o", s(&set), "--manifest", s(&m)]),
        0,
        "",
    );
    let urls = [
        "https://allowed.ex;@victim.ex/private",
        "https://allowed.ex\\@victim.ex/private",
        "https://allowed.ex@victim.ex/private",
        "https://victim.ex#@allowed.ex/",
        "//allowed.ex;@victim.ex/private",
    ];
    for store in [&st, &set] {
        let mut args = vec!["check", "--store", s(store), "--missing", "allow"];
        args.extend(urls);
        let o = robocc(&args);
        assert_eq!(
            out(&o),
            "unknown\thttps://allowed.ex;@victim.ex/private\n\
             unknown\thttps://allowed.ex\\@victim.ex/private\n\
             disallow\thttps://allowed.ex@victim.ex/private\n\
             disallow\thttps://victim.ex#@allowed.ex/\n\
             unknown\t//allowed.ex;@victim.ex/private\n",
            "{}",
            err(&o)
        );
        args.extend(["--format", "json"]);
        let sources = json_verdicts_and_sources(&robocc(&args));
        assert_eq!(
            sources,
            [
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"disallow\" \"fetched\"",
                "\"disallow\" \"fetched\"",
                "\"unknown\" \"no host\""
            ]
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A URL from which no host can be read is `unknown` with `--store`
/// (JSON source "no host", a warning naming it), never "not in store", so
/// `--missing allow` does not allow it (stores audit F15); a host the
/// store lacks still follows `--missing`.
#[test]
fn a_url_without_a_host_is_unknown_not_missing() {
    let dir = scratch("no-host");
    let st = small_store(&dir);
    let set = dir.join("set");
    let o = googlebot_store_build(&[
        "--shards",
        "3",
        "-o",
        s(&set),
        "--manifest",
        s(&dir.join("m.jsonl")),
    ]);
    assert_exit(&o, 0, "");
    let urls = [
        "a.ex/admin",
        "https:a.ex/admin",
        "/admin",
        // Hosts no store can hold (the build refuses them): no host either.
        "https://a..ex/x",
        "http://[]/",
        "https://h.ex:0/",
        "https://a.ex/admin",
        "https://zz.ex/",
    ];
    for store in [&st, &set] {
        // Text (the batch path) and JSON (URL by URL).
        let mut args = vec!["check", "--store", s(store), "--missing", "allow"];
        args.extend(urls);
        let o = robocc(&args);
        assert_exit(&o, 0, "a.ex/admin: no valid host to look up in the store");
        assert_eq!(
            out(&o),
            "unknown\ta.ex/admin\nunknown\thttps:a.ex/admin\nunknown\t/admin\n\
             unknown\thttps://a..ex/x\nunknown\thttp://[]/\nunknown\thttps://h.ex:0/\n\
             disallow\thttps://a.ex/admin\nallow\thttps://zz.ex/\n"
        );
        assert_eq!(err(&o).lines().count(), 4, "{}", err(&o));
        args.extend(["--format", "json"]);
        let o = robocc(&args);
        let sources = json_verdicts_and_sources(&o);
        assert_eq!(
            sources,
            [
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"unknown\" \"no host\"",
                "\"disallow\" \"fetched\"",
                "\"allow\" \"not in store\""
            ]
        );
    }
    // Many: three named, then a count.
    let many: Vec<String> = (0..10).map(|i| format!("/p{i}")).collect();
    let mut args = vec!["check", "--store", s(&st)];
    args.extend(many.iter().map(String::as_str));
    let o = robocc(&args);
    assert_exit(&o, 0, "10 URLs without a host answered unknown");
    assert_eq!(err(&o).lines().count(), 4, "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// Two shards of the same size and host count swapped: each is refused at
/// its first use, naming it, instead of answering "not in the set" for all
/// its hosts (stores audit F12).
#[test]
fn swapped_shards_of_equal_size_are_refused() {
    let dir = scratch("swapped");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\":\"x0.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /\\n\"}\n\
         {\"host\":\"x1.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /\\n\"}\n",
    )
    .unwrap();
    let set = dir.join("set");
    let o = googlebot_store_build(&["--shards", "2", "-o", s(&set), "--manifest", s(&m)]);
    assert_exit(&o, 0, "");
    let o = robocc(&[
        "check",
        "--store",
        s(&set),
        "https://x0.ex/a",
        "https://x1.ex/a",
    ]);
    assert_eq!(
        out(&o),
        "disallow\thttps://x0.ex/a\ndisallow\thttps://x1.ex/a\n"
    );
    let (a, b) = (set.join("shard-00000.store"), set.join("shard-00001.store"));
    let (bytes_a, bytes_b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(
        bytes_a.len(),
        bytes_b.len(),
        "the case needs shards of one size"
    );
    std::fs::write(&a, &bytes_b).unwrap();
    std::fs::write(&b, &bytes_a).unwrap();
    let opened = StoreSet::open(&set).unwrap();
    for url in ["https://x0.ex/a", "https://x1.ex/a"] {
        let k = opened.shard_of(url.as_bytes()).unwrap();
        let e = opened.check(url.as_bytes()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("shard-0000{k}.store")) && e.contains("another shard's"),
            "{e}"
        );
    }
    let o = robocc(&[
        "check",
        "--store",
        s(&set),
        "--missing",
        "allow",
        "https://x0.ex/a",
    ]);
    assert_exit(&o, 2, "belongs to shard");
    assert_eq!(out(&o), "");
    std::fs::remove_dir_all(&dir).ok();
}

/// Mappings of files under `dir` this process holds (Linux).
#[cfg(target_os = "linux")]
fn mappings_under(dir: &Path) -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let dir = std::fs::canonicalize(dir).unwrap();
    maps.lines()
        .filter(|l| l.contains(dir.to_str().unwrap()))
        .count()
}

/// A set's small shards are read, not mapped, and verifying a set keeps
/// none of its shards open: a set at the 65,536-shard maximum stays under
/// Linux's default 65,530 mappings per process (stores audit F5).
#[cfg(target_os = "linux")]
#[test]
fn small_shards_are_read_and_verify_keeps_no_shard_mapped() {
    let dir = scratch("mappings");
    let hosts = |n: usize| -> Vec<HostInput> {
        (0..n)
            .map(|i| HostInput {
                host: format!("h{i}.example"),
                status: 404,
                ..HostInput::default()
            })
            .collect()
    };
    // Small shards: none is mapped, whatever is checked.
    let small = dir.join("small");
    let inputs = hosts(40);
    write_set(&small, &inputs, 8);
    let set = StoreSet::open(&small).unwrap();
    for h in &inputs {
        let url = format!("https://{}/x", h.host);
        assert!(set.check(url.as_bytes()).unwrap().is_some());
    }
    assert_eq!(mappings_under(&small), 0);
    // Shards over the bound: mapped at first use, but not by verify.
    let large = dir.join("large");
    let inputs = hosts(4000);
    write_set(&large, &inputs, 3);
    for i in 0..3 {
        let len = std::fs::metadata(large.join(robocc_engine::shard_file_name(i)))
            .unwrap()
            .len();
        assert!(len >= robocc_engine::READ_SHARDS_BELOW, "{len}");
    }
    let set = StoreSet::open(&large).unwrap();
    set.verify().unwrap();
    assert_eq!(mappings_under(&large), 0);
    for i in 0..3 {
        set.verified_shard(i).unwrap();
    }
    assert_eq!(mappings_under(&large), 0);
    assert!(set.check(b"https://h1.example/").unwrap().is_some());
    assert_eq!(mappings_under(&large), 1);
    drop(set);
    std::fs::remove_dir_all(&dir).ok();
}

/// Hosts are keyed as URL parsers read them, on build and lookup alike:
/// `_` in a label, a trailing dot, a port with leading zeros, an IPv6
/// literal in any form (stores audit F14, F21); what is not a host is
/// refused with the reason.
#[test]
fn host_keys_are_read_as_url_parsers_read_them() {
    let dir = scratch("host-keys");
    let m = dir.join("m.jsonl");
    let disallow = "\"body\":\"User-agent: *\\nDisallow: /p\\n\"";
    let hosts = [
        "my_blog.example.com",
        "dot.ex.",
        "zero.ex:080",
        "port.ex:08080",
        "[2001:DB8:0:0::1]",
    ];
    let lines: String = hosts
        .iter()
        .map(|h| format!("{{\"host\":\"{h}\",\"status\":200,{disallow}}}\n"))
        .collect();
    std::fs::write(&m, lines).unwrap();
    let st = dir.join("k.store");
    let o = googlebot_store_build(&["-o", s(&st), "--manifest", s(&m)]);
    assert_exit(&o, 0, "");
    let urls = [
        "https://my_blog.example.com/p",
        "https://dot.ex/p",
        "https://dot.ex./p",
        "http://zero.ex/p",
        "http://zero.ex:080/p",
        "http://port.ex:8080/p",
        "http://port.ex:008080/p",
        "http://[2001:db8::1]/p",
        "http://[2001:DB8:0:0:0:0:0:1]/p",
    ];
    let mut args = vec!["check", "--store", s(&st)];
    args.extend(urls);
    let o = robocc(&args);
    let want: String = urls.iter().map(|u| format!("disallow\t{u}\n")).collect();
    assert_eq!(out(&o), want, "{}", err(&o));
    let o = robocc(&["inspect", "--hosts", s(&st)]);
    for key in [
        "my_blog.example.com\t",
        "dot.ex\t",
        "zero.ex\t",
        "port.ex:8080\t",
        "[2001:db8::1]\t",
    ] {
        assert!(out(&o).contains(key), "{key}: {}", out(&o));
    }
    // One host with `_` among others no longer ends a WARC build.
    let warc = dir.join("cc.warc.gz");
    let mut bytes = Vec::new();
    for uri in [
        "http://a.example/robots.txt",
        "http://my_blog.example.com/robots.txt",
    ] {
        bytes.extend(warc_record(
            uri,
            "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /p\n",
        ));
    }
    std::fs::write(&warc, bytes).unwrap();
    let o = googlebot_store_build(&["-o", s(&st), "--warc", s(&warc)]);
    assert_exit(&o, 0, "");
    let o = robocc(&["check", "--store", s(&st), "https://my_blog.example.com/p"]);
    assert_eq!(out(&o), "disallow\thttps://my_blog.example.com/p\n");
    // Refused, naming the line and the reason.
    for (host, why) in [
        ("dots.ex..", "an empty label"),
        ("[]", "is not an IPv6 address"),
        ("[1.2.3]", "is not an IPv6 address"),
        ("user:pw@ui.ex", "without user information"),
        ("a.ex:8080:80", "more than one ':'"),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.ex",
            "a label of 64 bytes",
        ),
    ] {
        std::fs::write(&m, format!("{{\"host\":\"{host}\",\"status\":404}}\n")).unwrap();
        let o = googlebot_store_build(&["-o", s(&st), "--manifest", s(&m)]);
        assert_exit(&o, 2, why);
        assert_exit(&o, 2, "m.jsonl:1");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `-o LINK/` is a link however it is written, and a single store (or
/// policy) is not written over a store set's index or into its directory
/// (stores audit F23).
#[cfg(unix)]
#[test]
fn output_paths_into_a_set_are_refused() {
    let dir = scratch("out-paths");
    let m = dir.join("m.jsonl");
    std::fs::write(&m, "{\"host\":\"a.ex\",\"status\":404}\n").unwrap();
    let real = dir.join("real.set");
    let build = |out: &str, shards: bool| {
        let mut args = vec!["store", "build", "--agent", "Googlebot", "-q", "-o", out];
        if shards {
            args.extend(["--shards", "2"]);
        }
        args.extend(["--manifest", s(&m)]);
        robocc(&args)
    };
    assert_exit(&build(s(&real), true), 0, "");
    let index = std::fs::read(real.join("index.txt")).unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    for out in [
        s(&link).to_string(),
        format!("{}/", s(&link)),
        format!("{}/.", s(&link)),
    ] {
        assert_exit(&build(&out, true), 2, "is a symbolic link: not followed");
    }
    for name in ["index.txt", "shard-00000.store", "new.store"] {
        let o = build(s(&real.join(name)), false);
        assert_exit(&o, 2, "is in the directory of the store set");
    }
    let o = robocc(&[
        "compile",
        "--robots",
        s(&m),
        "--agent",
        "G",
        "-o",
        s(&real.join("p.policy")),
    ]);
    assert_exit(&o, 2, "write the policy elsewhere");
    assert_eq!(std::fs::read(real.join("index.txt")).unwrap(), index);
    assert!(!real.join("new.store").exists() && !real.join("p.policy").exists());
    // A set is still rebuilt in place, with or without a trailing slash.
    assert_exit(&build(&format!("{}/", s(&real)), true), 0, "");
    let o = robocc(&["check", "--store", s(&real), "https://a.ex/"]);
    assert_eq!(out(&o), "allow\thttps://a.ex/\n");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--base` says what it takes when given a set or a policy, and `inspect
/// --hosts` of a set names the shard whose policy numbers it prints (stores
/// audit F25).
#[test]
fn base_hints_and_set_host_listings_say_what_they_mean() {
    let dir = scratch("f25");
    let st = small_store(&dir);
    let m = dir.join("m.jsonl");
    let set = dir.join("s.set");
    let o = googlebot_store_build(&["--shards", "2", "-o", s(&set), "--manifest", s(&m)]);
    assert_exit(&o, 0, "");
    let policy = dir.join("p.policy");
    let o = robocc(&[
        "compile",
        "--robots",
        s(&m),
        "--agent",
        "Googlebot",
        "-o",
        s(&policy),
    ]);
    assert_exit(&o, 0, "");
    let x = dir.join("x.store");
    let base =
        |b: &Path| googlebot_store_build(&["-o", s(&x), "--manifest", s(&m), "--base", s(b)]);
    let o = base(&set);
    assert_exit(
        &o,
        2,
        "a store set's directory; --base takes a single store file",
    );
    assert!(err(&o).contains("build without --base"), "{}", err(&o));
    assert_exit(
        &base(&set.join("index.txt")),
        2,
        "a store set cannot be a base",
    );
    let o = base(&policy);
    assert_exit(&o, 2, "--base takes a store that robocc store build wrote");
    assert!(!err(&o).contains("--policy FILE"), "{}", err(&o));
    assert_exit(&base(&dir), 2, "a directory; --base takes a store file");
    assert!(!x.exists());
    // Hosts of a set: each policy number with its shard.
    let o = robocc(&["inspect", "--hosts", s(&set)]);
    assert_exit(&o, 0, "");
    let listing = out(&o);
    let hosts: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("\tstatus "))
        .collect();
    assert_eq!(hosts.len(), 3, "{}", out(&o));
    for line in hosts {
        assert!(line.contains(" of shard-0000"), "{line}");
    }
    // A single store's need none.
    let o = robocc(&["inspect", "--hosts", s(&st)]);
    assert!(!out(&o).contains(" of shard-"), "{}", out(&o));
    std::fs::remove_dir_all(&dir).ok();
}
