//! The command line's contract: it never changes an answer silently, never
//! damages what it writes to, and explains itself. One test per class of
//! problem (issue 14's items, each with its siblings across subcommands),
//! and a property test over argument vectors: exit codes 0, 1 or 2, never a
//! panic.

use crate::common::{assert_exit, err, out, robocc, robocc_in, s, scratch};
use robocc_testkit::paths::{root, shared_real};

use proptest::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The write end of a pipe whose reader has gone (a process that exited
/// without reading): writing to it fails with a broken pipe, as after
/// `| head` has read enough.
fn closed_pipe() -> Stdio {
    let mut reader = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
    let writer = reader.stdin.take().unwrap();
    reader.wait().unwrap();
    Stdio::from(writer)
}

const EXAMPLE: &str = "corpus/examples/example.com.txt";

/// A robots.txt whose deciding rule sits past byte 300 and on a long line:
/// `/x/y` is disallowed only when the file is read whole.
fn cut_file(dir: &Path) -> PathBuf {
    let mut body = String::from("User-agent: *\nDisallow: /a\n");
    for i in 0..20 {
        body.push_str(&format!(
            "# padding line {i} to push the rule past the limit\n"
        ));
    }
    body.push_str("Disallow: /x\n");
    let f = dir.join("cut.txt");
    std::fs::write(&f, body).unwrap();
    f
}

// 1. Limits that change a verdict are reported by every command that
// compiles, and explain says whether they decided this URL.
#[test]
fn item01_limits_that_change_a_verdict_are_reported() {
    let dir = scratch("limits");
    let f = cut_file(&dir);
    let f = s(&f);
    let whole = robocc(&["check", "--robots", f, "--agent", "Googlebot", "/x/y"]);
    assert_eq!(out(&whole), "disallow\t/x/y\n");
    assert_eq!(err(&whole), "", "nothing cut, nothing said");

    let cut = robocc(&[
        "check",
        "--robots",
        f,
        "--agent",
        "Googlebot",
        "--max-bytes",
        "300",
        "/x/y",
    ]);
    assert_eq!(out(&cut), "allow\t/x/y\n");
    assert_exit(&cut, 0, "300-byte parse limit");
    assert_exit(&cut, 0, "--max-bytes");
    assert_eq!(err(&cut).lines().count(), 1, "said once: {}", err(&cut));

    for (flag, value, needle) in [
        ("--max-bytes", "300", "the parse limit (--max-bytes)"),
        (
            "--max-rules",
            "1",
            "the rules-per-group limit (--max-rules)",
        ),
        ("--max-line-len", "5", "the line limit (--max-line-len)"),
    ] {
        let e = robocc(&[
            "explain",
            "--robots",
            f,
            "--agent",
            "Googlebot",
            flag,
            value,
            "/x/y",
        ]);
        assert_exit(&e, 0, flag);
        let text = out(&e);
        assert!(text.contains(needle), "{flag}: {text}");
        assert!(
            text.contains("changes this answer") && text.contains("decides: disallow"),
            "{flag}: {text}"
        );
    }
    // A limit that cut something irrelevant to this URL says so.
    let e = robocc(&[
        "explain",
        "--robots",
        f,
        "--agent",
        "Googlebot",
        "--max-bytes",
        "300",
        "/a",
    ]);
    assert!(out(&e).contains("the answer is the same"), "{}", out(&e));

    // A policy compiled from a cut file says so wherever it is used.
    let p = dir.join("cut.policy");
    let c = robocc(&[
        "compile",
        "--robots",
        f,
        "--agent",
        "Googlebot",
        "--max-bytes",
        "300",
        "-o",
        s(&p),
    ]);
    assert_exit(&c, 0, "parse limit");
    let k = robocc(&["check", "--policy", s(&p), "/x/y"]);
    assert_exit(&k, 0, "compiled from the first 300 of");
    let e = robocc(&["explain", "--policy", s(&p), "/x/y"]);
    assert!(
        out(&e).contains("compiled from the first 300 of"),
        "{}",
        out(&e)
    );

    // The command, on the shared corpus when it is there.
    if let Some(real) = shared_real() {
        let oracle = real.join("protego__docs.oracle.com.txt");
        if oracle.exists() {
            let o = robocc(&[
                "check",
                "--robots",
                s(&oracle),
                "--agent",
                "Googlebot",
                "https://docs.oracle.com/cd/E80817_01/x",
            ]);
            assert_exit(&o, 0, "parse limit");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

// 2. A body that is not a robots.txt is recognised and said so; UTF-16 is
// decoded; a robocc artifact given as --robots is refused.
#[test]
fn item02_bodies_that_are_not_robots_txt() {
    let dir = scratch("kinds");
    let policy = root().join("engine/tests/data/small.policy");
    for cmd in ["check", "explain", "compile", "lint"] {
        let mut args = vec![cmd, "--robots", s(&policy), "--agent", "Googlebot"];
        if cmd == "compile" {
            args.extend(["-o", "x.policy"]);
        } else if cmd != "lint" {
            args.push("/x");
        }
        let o = robocc_in(&dir, &args, None);
        assert_exit(&o, 2, "is a robocc policy, not a robots.txt");
        assert_exit(&o, 2, "--policy");
    }

    let random: Vec<u8> = (0u32..3000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let bin = dir.join("random.bin");
    std::fs::write(&bin, &random).unwrap();
    let o = robocc(&["check", "--robots", s(&bin), "--agent", "Googlebot", "/x"]);
    assert_exit(&o, 0, "looks binary");
    let l = robocc(&["lint", "--robots", s(&bin)]);
    assert!(out(&l).contains(":0: error: binary:"), "{}", out(&l));
    assert_eq!(out(&l).lines().count(), 1, "no noise: {}", out(&l));

    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            "User-agent: *\r\nDisallow: /private\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let u = dir.join("utf16.txt");
    std::fs::write(&u, &utf16).unwrap();
    let o = robocc(&[
        "check",
        "--robots",
        s(&u),
        "--agent",
        "Googlebot",
        "/private/a",
    ]);
    assert_eq!(out(&o), "disallow\t/private/a\n");
    assert_exit(
        &o,
        0,
        "UTF-16 (little-endian, with a byte-order mark): decoded",
    );
    let l = robocc(&["lint", "--robots", s(&u)]);
    assert!(out(&l).contains(":0: error: utf16:"), "{}", out(&l));
    assert!(err(&l).contains("1 error,"), "{}", err(&l));

    let html = dir.join("page.html");
    std::fs::write(
        &html,
        "<!DOCTYPE html>\n<html><body><p>Not found</p></body></html>\n",
    )
    .unwrap();
    let l = robocc(&["lint", "--robots", s(&html), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(out(&l).lines().next().unwrap()).unwrap();
    assert_eq!(
        (v["severity"].as_str(), v["code"].as_str()),
        (Some("error"), Some("html"))
    );
    std::fs::remove_dir_all(&dir).ok();
}

// 3. A flag that does not apply is refused (exit 2), or honoured when it
// agrees with what it would change; never dropped.
#[test]
fn item03_flags_that_do_not_apply_are_refused() {
    let dir = scratch("flags");
    let p = dir.join("g.policy");
    let p = s(&p);
    let c = robocc(&[
        "compile",
        "--robots",
        EXAMPLE,
        "--agent",
        "Googlebot",
        "-o",
        p,
        "-q",
    ]);
    assert_eq!(c.status.code(), Some(0), "{}", err(&c));
    let o = robocc(&["check", "--policy", p, "--agent", "Bingbot", "/x"]);
    assert_exit(&o, 2, "was compiled for agent Googlebot, not Bingbot");
    let o = robocc(&["check", "--policy", p, "--agent", "googlebot", "/x"]);
    assert_eq!(o.status.code(), Some(0), "agrees: honoured: {}", err(&o));
    for (flag, value, needle) in [
        ("--dialect", "draft1996", "dialect rfc9309, not draft1996"),
        ("--url-mode", "rfc", "url-mode google"),
        ("--robots-txt", "rules", "always allowed"),
        ("--max-bytes", "10", "--max-bytes 512000"),
        ("--max-rules", "10", "--max-rules applies when compiling"),
        (
            "--compile-timeout",
            "5",
            "--compile-timeout applies when compiling",
        ),
    ] {
        for cmd in ["check", "explain"] {
            let o = robocc(&[cmd, "--policy", p, flag, value, "/x"]);
            assert_exit(&o, 2, needle);
        }
    }
    let store = root().join("engine/tests/data/small.store");
    let o = robocc(&[
        "check",
        "--store",
        s(&store),
        "--agent",
        "Bingbot",
        "http://a.example/",
    ]);
    assert_exit(&o, 2, "not Bingbot");
    let o = robocc(&[
        "check",
        "--store",
        s(&store),
        "--url-mode",
        "rfc",
        "http://a.example/",
    ]);
    assert_exit(&o, 2, "--url-mode applies when compiling");
    let o = robocc(&[
        "check",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "--url-mode",
        "rfc",
        "--dialect",
        "draft1996",
        "/x",
    ]);
    assert_exit(&o, 2, "--url-mode applies to --dialect rfc9309 only");
    assert_exit(&o, 2, "draft1996 always decodes %xx except %2F");
    // acap matches URLs as given: the refusal says so (python audit F8).
    let o = robocc(&[
        "check",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "--url-mode",
        "rfc",
        "--dialect",
        "acap",
        "/x",
    ]);
    assert_exit(&o, 2, "acap matches URLs as given, without decoding");
    let o = robocc(&[
        "check", "--robots", EXAMPLE, "--agent", "G", "--urls", EXAMPLE, "/x",
    ]);
    assert_exit(&o, 2, "cannot be used with");
    let o = robocc(&[
        "check",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "--missing",
        "allow",
        "/x",
    ]);
    assert_exit(&o, 2, "--missing applies to --store only");
    // --at with no visit advice, --sizes with a store: honoured, visibly.
    let o = robocc(&[
        "explain", "--robots", EXAMPLE, "--agent", "G", "--at", "12:00", "/x",
    ]);
    assert!(
        out(&o).contains("no Visit-time or Request-rate"),
        "{}",
        out(&o)
    );
    let o = robocc(&["inspect", "--sizes", s(&store)]);
    assert!(out(&o).contains("sizes over all policies"), "{}", out(&o));
    // The index's tables: a store of two hosts has 2 home slots of 64
    // bytes, and one more because its two slot hashes share a home (the
    // second record spills past the last home), two policy records of 16.
    assert!(
        out(&o).contains("index: host slots 192 B,")
            && out(&o).contains("policy records 32 B (96.0 B per host)"),
        "{}",
        out(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

// 4. Budget limits are applied on every path (0 means no limit).
#[test]
fn item04_limits_are_applied_or_lifted() {
    let dir = scratch("budget");
    let o = dir.join("x.policy");
    let c = robocc(&[
        "compile",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "--max-table-bytes",
        "10",
        "-o",
        s(&o),
    ]);
    assert_exit(&c, 2, "more than 10 bytes of tables");
    assert!(!o.exists());
    let c = robocc(&[
        "compile",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "--max-automata",
        "1",
        "-o",
        s(&o),
        "--robots-txt",
        "rules",
        "-q",
    ]);
    assert_eq!(c.status.code(), Some(0), "{}", err(&c));
    let split = "corpus/real/protego__github.com.txt";
    let c = robocc(&[
        "compile",
        "--robots",
        split,
        "--agent",
        "Googlebot",
        "--max-automata",
        "2",
        "--registers",
        "never",
        "-o",
        s(&o),
    ]);
    assert_exit(&c, 2, "more than 2 automata");
    for zero in [
        "--max-automata",
        "--max-table-bytes",
        "--max-states",
        "--compile-timeout",
    ] {
        let c = robocc(&[
            "compile",
            "--robots",
            split,
            "--agent",
            "Googlebot",
            zero,
            "0",
            "-o",
            s(&o),
        ]);
        assert_eq!(c.status.code(), Some(0), "{zero} 0: {}", err(&c));
    }
    std::fs::remove_dir_all(&dir).ok();
}

// 5. Store inputs name hosts, validated, IDNA-encoded.
#[test]
fn item05_store_hosts_are_validated() {
    let dir = scratch("hosts");
    for (host, needle) in [
        (
            "https://b.com/",
            "give the host alone, without scheme or path",
        ),
        ("", "\"\" is not a host name: empty"),
        ("a b.com", "is not a host name"),
    ] {
        let m = dir.join("m.jsonl");
        std::fs::write(
            &m,
            format!("{{\"host\": \"ok.com\", \"status\": 404}}\n{{\"host\": {host:?}, \"status\": 404}}\n"),
        )
        .unwrap();
        let o = robocc(&[
            "store",
            "build",
            "--agent",
            "G",
            "-o",
            "x.store",
            "--manifest",
            s(&m),
        ]);
        assert_exit(&o, 2, needle);
        assert_exit(&o, 2, "m.jsonl:2");
    }
    let d = dir.join("d");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("protego~github.com.txt"), "User-agent: *\n").unwrap();
    // A file whose name is no host is set aside, named, not the build's end.
    let x = dir.join("x.store");
    let o = robocc(&["store", "build", "--agent", "G", "-o", s(&x), s(&d)]);
    assert_exit(&o, 0, "protego~github.com.txt");
    assert!(err(&o).contains("set aside (not a host)"), "{}", err(&o));
    let m = dir.join("idn.jsonl");
    std::fs::write(&m, "{\"host\": \"Bücher.Example:8080\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /\\n\"}\n").unwrap();
    let st = dir.join("idn.store");
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "-o",
        s(&st),
        "--manifest",
        s(&m),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let i = robocc(&["inspect", "--hosts", s(&st)]);
    assert!(
        out(&i).contains("xn--bcher-kva.example:8080\tfetched"),
        "{}",
        out(&i)
    );
    let k = robocc(&[
        "check",
        "--store",
        s(&st),
        "http://xn--bcher-kva.example:8080/a",
    ]);
    assert_eq!(out(&k), "disallow\thttp://xn--bcher-kva.example:8080/a\n");
    std::fs::remove_dir_all(&dir).ok();
}

// 6. -o writes through FIFOs and devices, replaces only regular files, and
// refuses directories, read-only files and its own input.
#[cfg(unix)]
#[test]
fn item06_output_never_damages_what_is_there() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = scratch("output");
    let compile = |o: &str| {
        robocc(&[
            "compile", "--robots", EXAMPLE, "--agent", "G", "-q", "-o", o,
        ])
    };
    let expected = {
        let reference = dir.join("ref.policy");
        assert_eq!(compile(s(&reference)).status.code(), Some(0));
        std::fs::read(&reference).unwrap()
    };

    // A FIFO is written through, and stays a FIFO.
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let o = compile(s(&fifo));
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(reader.join().unwrap(), expected);
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    // A character device is written through, never replaced.
    if Path::new("/dev/full").exists() {
        let o = compile("/dev/full");
        assert_exit(&o, 2, "cannot write policy /dev/full");
        assert!(std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device());
    }
    let o = compile("/dev/null");
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());

    // - is standard output.
    let o = robocc(&[
        "compile", "--robots", EXAMPLE, "--agent", "G", "-q", "-o", "-",
    ]);
    assert_eq!(o.stdout, expected);

    // A directory, the input itself, a read-only file: refused.
    assert_exit(&compile(s(&dir)), 2, "is a directory");
    let input = dir.join("robots.txt");
    std::fs::copy(root().join(EXAMPLE), &input).unwrap();
    let o = robocc(&[
        "compile",
        "--robots",
        s(&input),
        "--agent",
        "G",
        "-o",
        s(&input),
    ]);
    assert_exit(&o, 2, "is the command's input");
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(root().join(EXAMPLE)).unwrap()
    );
    let ro = dir.join("ro.policy");
    std::fs::write(&ro, b"keep").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    assert_exit(&compile(s(&ro)), 2, "is read-only");
    assert_eq!(std::fs::read(&ro).unwrap(), b"keep");

    // A regular file is replaced, keeping its permissions; a symbolic link
    // is followed and stays a link.
    let target = dir.join("target.policy");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.policy");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(compile(s(&link)).status.code(), Some(0));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    let mode = std::fs::metadata(&target).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A read-only directory: the write fails and says so, unless this runs
    // as root (who may write there anyway): then it simply works.
    let locked = dir.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    let root_can_write = std::fs::write(locked.join("probe"), b"").is_ok();
    let o = compile(s(&locked.join("x.policy")));
    if root_can_write {
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    } else {
        assert_exit(&o, 2, "Permission denied");
        assert!(!locked.join("x.policy").exists());
    }
    // No temporary file is left behind anywhere.
    let leftovers: Vec<_> = std::fs::read_dir(&locked)
        .unwrap()
        .chain(std::fs::read_dir(&dir).unwrap())
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();

    // store build writes the same way.
    let m = dir.join("m.jsonl");
    std::fs::write(&m, "{\"host\": \"a.com\", \"status\": 404}\n").unwrap();
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "-o",
        s(&dir),
        "--manifest",
        s(&m),
    ]);
    assert_exit(&o, 2, "is a directory");
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "-o",
        s(&m),
        "--manifest",
        s(&m),
    ]);
    assert_exit(&o, 2, "is the command's input");
    std::fs::remove_dir_all(&dir).ok();
}

// 7. Numbers at their limits neither panic nor mean something odd: a huge
// timeout is no timeout, 0 is no limit.
#[test]
fn item07_huge_and_zero_limits() {
    let dir = scratch("numbers");
    let max = u64::MAX.to_string();
    let p = dir.join("x.policy");
    for t in [max.as_str(), "0"] {
        let o = robocc(&[
            "compile",
            "--robots",
            EXAMPLE,
            "--agent",
            "G",
            "--compile-timeout",
            t,
            "-o",
            s(&p),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "--compile-timeout {t}: {}",
            err(&o)
        );
    }
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\": \"a.com\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /\\n\"}\n",
    )
    .unwrap();
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "--compile-timeout",
        &max,
        "-o",
        s(&dir.join("x.store")),
        "--manifest",
        s(&m),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // Seconds are a number, not a u64 (fractions allowed, as Python's
    // compile_timeout): past u64 and past f64 (1e400 reads as inf) is still
    // no timeout; what is not a number of seconds ≥ 0 is refused.
    for (t, code) in [
        ("18446744073709551616", 0),
        ("1e400", 0),
        ("0.25", 0),
        ("-0.5", 2),
        ("nan", 2),
    ] {
        let flag = format!("--compile-timeout={t}");
        let o = robocc(&[
            "compile",
            "--robots",
            EXAMPLE,
            "--agent",
            "G",
            &flag,
            "-o",
            s(&p),
        ]);
        assert_eq!(o.status.code(), Some(code), "{flag}: {}", err(&o));
    }
    std::fs::remove_dir_all(&dir).ok();
}

// 6b. A store build never replaces a body it reads: not a manifest's
// body_path, not a <host>.txt of its directory, not through a link.
#[test]
fn item06b_store_output_is_never_an_input_body() {
    let dir = scratch("own-body");
    let bodies = dir.join("bodies");
    std::fs::create_dir_all(&bodies).unwrap();
    let body = bodies.join("www.example.com.txt");
    let text = "User-agent: *\nDisallow: /a\n";
    std::fs::write(&body, text).unwrap();
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\": \"www.example.com\", \"status\": 200, \"body_path\": \"bodies/www.example.com.txt\"}\n",
    )
    .unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink(&body, &link).unwrap();
    let build = |out: &Path, input: &[&str]| {
        let mut args = vec!["store", "build", "--agent", "G", "-q", "-o", s(out)];
        args.extend_from_slice(input);
        robocc(&args)
    };
    for out in [&body, &link] {
        let o = build(out, &["--manifest", s(&m)]);
        assert_exit(&o, 2, "is the output");
        let o = build(out, &[s(&bodies)]);
        assert_exit(&o, 2, "of the directory the build reads");
        assert_eq!(std::fs::read_to_string(&body).unwrap(), text, "{out:?}");
    }
    // Nor a new <host>.txt there: the next build would read it as a body.
    let new_txt = bodies.join("new.example.txt");
    let o = build(&new_txt, &[s(&bodies)]);
    assert_exit(&o, 2, "the next build would read the store");
    assert!(!new_txt.exists());
    // A body too long to read is its host's failure, not the build's.
    let huge = bodies.join("huge.example.com.txt");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    let o = build(&dir.join("with-huge.store"), &[s(&bodies)]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    std::fs::remove_file(&huge).unwrap();
    // Another file in the directory, or any other file, is written.
    let fresh = bodies.join("new.store");
    assert_eq!(build(&fresh, &[s(&bodies)]).status.code(), Some(0));
    assert_eq!(build(&fresh, &["--manifest", s(&m)]).status.code(), Some(0));
    std::fs::remove_dir_all(&dir).ok();
}

// 7b. Inputs that never end are read up to a bound, then refused; a closed
// stderr or a full stdout is not a crash.
#[test]
fn item07b_endless_inputs_and_broken_streams() {
    let o = robocc(&["check", "--robots", "/dev/zero", "--agent", "G", "/a"]);
    assert_exit(&o, 2, "longer than 256 MiB");
    let o = robocc(&["lint", "--html", "/dev/zero"]);
    assert_exit(&o, 2, "longer than 256 MiB");
    let dir = scratch("endless");
    let p = dir.join("x.policy");
    let c = robocc(&[
        "compile",
        "--robots",
        EXAMPLE,
        "--agent",
        "G",
        "-q",
        "-o",
        s(&p),
    ]);
    assert_eq!(c.status.code(), Some(0), "{}", err(&c));
    let o = robocc(&["check", "--policy", s(&p), "--urls", "/dev/zero"]);
    assert_exit(&o, 2, "/dev/zero, line 1: a line longer than 2 MiB");
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        "{\"host\": \"a.com\", \"status\": 200, \"body_path\": \"/dev/zero\"}\n",
    )
    .unwrap();
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "-o",
        s(&dir.join("x.store")),
        "--manifest",
        s(&m),
    ]);
    // The host's failure (listed; --on-failure answers for it), not the build's.
    assert_exit(
        &o,
        0,
        "failed: a.com: cannot read body /dev/zero: it is a character device, not a regular file",
    );

    // stderr a pipe nobody reads: the diagnostics are lost, the answer is not.
    let o = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args([
            "check",
            "--robots",
            EXAMPLE,
            "--agent",
            "G",
            "--max-line-len",
            "1",
            "/a",
        ])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(out(&o), "allow\t/a\n");

    // A full disk on stdout is an error of the output, not a panic.
    let full = std::fs::File::create("/dev/full").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args(["explain", "--robots", EXAMPLE, "--agent", "G", "/a"])
        .current_dir(root())
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_exit(&o, 2, "cannot write to standard output");
    std::fs::remove_dir_all(&dir).ok();
}

// 8. Output people can read: an HTML body is one sentence and a count; the
// split path is one plain sentence (detail under --verbose).
#[test]
fn item08_readable_diagnostics() {
    let dir = scratch("readable");
    let html = dir.join("page.html");
    let mut page = String::from("<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body>\n");
    for i in 0..600 {
        page.push_str(&format!("<p>this is line {i} of the page</p>\n"));
    }
    std::fs::write(&html, page).unwrap();
    let o = robocc(&[
        "compile",
        "--robots",
        s(&html),
        "--agent",
        "G",
        "-o",
        s(&dir.join("h.policy")),
    ]);
    let e = err(&o);
    assert!(e.contains("looks like an HTML page"), "{e}");
    assert!(e.contains("lines ignored as rules"), "{e}");
    assert!(e.lines().count() <= 5, "{e}");
    let v = robocc(&[
        "compile",
        "-v",
        "--robots",
        s(&html),
        "--agent",
        "G",
        "-o",
        s(&dir.join("h.policy")),
    ]);
    assert!(err(&v).lines().count() > 600);

    let split = "corpus/real/protego__github.com.txt";
    let o = robocc(&[
        "compile",
        "--robots",
        split,
        "--agent",
        "Googlebot",
        "--registers",
        "never",
        "-o",
        s(&dir.join("g.policy")),
    ]);
    let e = err(&o);
    assert!(e.contains("automata instead of one"), "{e}");
    assert!(
        !e.contains("pattern positions") && !e.contains("threads"),
        "{e}"
    );
    let o = robocc(&[
        "compile",
        "-v",
        "--robots",
        split,
        "--agent",
        "Googlebot",
        "--registers",
        "never",
        "-o",
        s(&dir.join("g.policy")),
    ]);
    assert!(err(&o).contains("split because"), "{}", err(&o));
    // check on the same file says nothing: splitting changes no answer.
    let o = robocc(&["check", "--robots", split, "--agent", "Googlebot", "/x"]);
    assert_eq!(err(&o), "");
    std::fs::remove_dir_all(&dir).ok();
}

// 9. lint: no placeholder names, and an exact repeat says so.
#[test]
fn item09_lint_wording() {
    let dir = scratch("lint");
    let f = dir.join("robots.txt");
    std::fs::write(
        &f,
        "User-agent: *\nDisallow: /a\nDisallow: /a\nDisallow: /b\nAllow: /b\n",
    )
    .unwrap();
    let o = robocc(&["lint", "--robots", s(&f)]);
    let t = out(&o);
    assert!(
        t.contains(":3: info: duplicate-rule: Disallow \"/a\" is a duplicate of line 2"),
        "{t}"
    );
    assert!(!t.contains(":3: warning: shadowed-rule"), "{t}");
    assert!(!t.contains("Robocc"), "{t}");
    assert!(
        t.contains(":4: warning: shadowed-rule")
            && t.contains("crawlers without a group of their own"),
        "{t}"
    );
    // Warnings pass --fail-on error and fail --fail-on warning.
    assert_eq!(o.status.code(), Some(0));
    let strict = robocc(&["lint", "--fail-on", "error", "--robots", s(&f)]);
    assert_eq!(strict.status.code(), Some(0), "{}", err(&strict));
    let stricter = robocc(&["lint", "--fail-on", "warning", "--robots", s(&f)]);
    assert_eq!(stricter.status.code(), Some(1), "{}", err(&stricter));
    let bin = dir.join("binary.txt");
    std::fs::write(&bin, [0u8, 1, 2, 3, 0xff, 0xfe, 0, 7].repeat(100)).unwrap();
    let o = robocc(&["lint", "--robots", s(&bin)]);
    assert!(out(&o).contains("error: binary"), "{}", out(&o));
    assert_eq!(o.status.code(), Some(0));
    let strict = robocc(&["lint", "--fail-on", "error", "--robots", s(&bin)]);
    assert_eq!(strict.status.code(), Some(1), "{}", err(&strict));
    // The gate holds when the output is cut short (`| head`).
    let mut child = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args(["lint", "--fail-on", "error", "--robots", s(&bin)])
        .stdout(closed_pipe())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

// 10. URL input: comments and blank lines skipped, `-` is stdin, non-UTF-8
// URLs come back exactly in JSON.
#[test]
fn item10_url_input() {
    let dir = scratch("urls");
    let list = dir.join("urls.txt");
    std::fs::write(
        &list,
        "# crawl list\n\n   \n  # indented comment\n/private/x\n  /a  \n",
    )
    .unwrap();
    let o = robocc(&[
        "check",
        "--robots",
        EXAMPLE,
        "--agent",
        "BadBot",
        "--urls",
        s(&list),
    ]);
    // Whitespace around a URL is the URL's, as in an argument (only the
    // line break goes).
    assert_eq!(out(&o), "disallow\t/private/x\ndisallow\t  /a  \n");
    let root = root();
    let o = robocc_in(
        &root,
        &[
            "check", "--robots", EXAMPLE, "--agent", "BadBot", "--urls", "-",
        ],
        Some(b"/private/x\n"),
    );
    assert_eq!(out(&o), "disallow\t/private/x\n", "{}", err(&o));
    assert!(!err(&o).contains("reading URLs"), "a pipe gets no prompt");
    // At a terminal (`script` gives one), stdin is announced, not waited on
    // silently.
    if Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let cmd = format!(
            "{} check --robots {EXAMPLE} --agent G",
            env!("CARGO_BIN_EXE_robocc")
        );
        let t = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .current_dir(&root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&t.stdout);
        assert!(t.contains("reading URLs from stdin"), "{t}");
    }
    let url = b"https://example.com/caf\xe9\xff";
    let o = robocc_in(
        &root,
        &[
            "check",
            "--robots",
            EXAMPLE,
            "--agent",
            "Googlebot",
            "--format",
            "json",
        ],
        Some(&[&url[..], b"\n"].concat()),
    );
    let v: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    let bytes: Vec<u8> = v["url_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes, url);
    let o = robocc(&["check", "--robots", EXAMPLE, "--agent", "G", ""]);
    assert_exit(&o, 2, "URL argument 1 is empty");
    std::fs::remove_dir_all(&dir).ok();
}

// 11. Error messages name what is needed, not a flag the command lacks.
#[test]
fn item11_error_wording() {
    let dir = scratch("wording");
    let o = robocc(&["store", "build", "-o", s(&dir.join("x.store")), s(&dir)]);
    assert_exit(&o, 2, "--agent NAME is required");
    assert!(!err(&o).contains("with --robots"), "{}", err(&o));
    let o = robocc(&["check", "--agent", "A", "/a"]);
    assert_exit(
        &o,
        2,
        "--robots FILE (with --agent), --policy FILE or --store FILE",
    );
    let o = robocc(&["check", "--policy", s(&dir), "/a"]);
    assert_exit(&o, 2, "is a directory, not a policy file");
    let o = robocc(&["check", "--store", s(&dir), "/a"]);
    assert_exit(&o, 2, "is a directory, not a store file");
    let o = robocc(&["inspect", EXAMPLE]);
    assert_exit(&o, 2, "robocc lint --robots FILE");
    let o = robocc(&["explain", "/a"]);
    assert_exit(
        &o,
        2,
        "--robots FILE (with --agent), --policy FILE or --store STORE",
    );
    // A training agent with a version matched no group, silently; now it is
    // refused, naming the flag (compile, check, store build alike).
    let store_out = s(&dir.join("t.store")).to_string();
    for cmd in [
        vec!["check", "--robots", EXAMPLE, "--agent", "A", "/a"],
        vec!["compile", "--robots", EXAMPLE, "--agent", "A", "-o", "-"],
        vec!["store", "build", s(&dir), "--agent", "A", "-o", &store_out],
    ] {
        let mut args = cmd.clone();
        args.extend(["--training-agent", "Google-Extended/1.0"]);
        let o = robocc(&args);
        assert_exit(
            &o,
            2,
            "--training-agent \"Google-Extended/1.0\" is not a product token",
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

// 12. Store answers say where a host's policy came from; split counts agree.
#[test]
fn item12_store_sources_and_counts() {
    let dir = scratch("sources");
    let github =
        std::fs::read_to_string(root().join("corpus/real/protego__github.com.txt")).unwrap();
    let github = serde_json::to_string(&github).unwrap();
    let m = dir.join("m.jsonl");
    std::fs::write(
        &m,
        format!(
            "{{\"host\": \"down.example\", \"status\": 503}}\n\
             {{\"host\": \"a.example\", \"status\": 200, \"body\": {github}}}\n\
             {{\"host\": \"b.example\", \"status\": 200, \"body\": {github}}}\n\
             {{\"host\": \"c.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}}\n"
        ),
    )
    .unwrap();
    let st = dir.join("s.store");
    let b = robocc(&[
        "store",
        "build",
        "--agent",
        "Googlebot",
        "--registers",
        "never",
        "-o",
        s(&st),
        "--manifest",
        s(&m),
    ]);
    assert_exit(&b, 0, "on the split path 1 (2 hosts)");
    let i = robocc(&["inspect", "--hosts", s(&st)]);
    let t = out(&i);
    assert!(t.contains("policies on the split path: 1"), "{t}");
    assert!(t.contains("down.example\tunreachable\tstatus 503"), "{t}");
    let o = robocc(&[
        "check",
        "--store",
        s(&st),
        "--format",
        "json",
        "https://down.example/x",
        "https://c.example/x",
    ]);
    let lines: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["verdict"], "disallow");
    assert_eq!(lines[0]["rule_line"], serde_json::Value::Null);
    assert_eq!(
        (lines[0]["source"].as_str(), lines[0]["status"].as_u64()),
        (Some("unreachable"), Some(503))
    );
    assert_eq!(lines[1]["rule_line"], 2);
    assert_eq!(lines[1]["source"], "fetched");
    std::fs::remove_dir_all(&dir).ok();
}

// 13. Help: every dialect listed, options grouped, store build without
// --robots; the README says how to get the binary.
#[test]
fn item13_help() {
    let long = out(&robocc(&["check", "--help"]));
    assert!(long.contains("acap") && long.contains("auto"), "{long}");
    for heading in [
        "Input (one of):",
        "URLs:",
        "Output:",
        "Agent:",
        "Dialect:",
        "Limits (0: no limit):",
    ] {
        assert!(long.contains(heading), "{heading}: {long}");
    }
    let short = out(&robocc(&["check", "-h"]));
    assert!(
        !short.contains("--max-states") && short.contains("see --help"),
        "{short}"
    );
    assert!(short.find("--policy") < short.find("--agent"), "{short}");
    let store = out(&robocc(&["store", "build", "--help"]));
    assert!(!store.contains("--robots <"), "{store}");
    let o = robocc(&[
        "check",
        "--robots",
        EXAMPLE,
        "--agent",
        "X",
        "--dialect",
        "acap",
        "/",
    ]);
    assert_exit(&o, 0, "");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("cargo install --path cli"));
    assert!(!readme.contains("4,260"));
}

// 14. The store build's progress counts distinct bodies, with elapsed time,
// rate and ETA (drawn only on a terminal: run under `script` when present).
#[test]
fn item14_progress_bar() {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        eprintln!("item14: no `script` to give robocc a terminal; skipped");
        return;
    }
    let dir = scratch("progress");
    let m = dir.join("m.jsonl");
    let mut lines = String::new();
    for i in 0..40 {
        // 40 hosts, 20 distinct bodies.
        lines.push_str(&format!(
            "{{\"host\": \"h{i}.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /p{}\\n\"}}\n",
            i % 20
        ));
    }
    std::fs::write(&m, lines).unwrap();
    let cmd = format!(
        "{} store build --agent G -o {} --manifest {}",
        env!("CARGO_BIN_EXE_robocc"),
        s(&dir.join("x.store")),
        s(&m)
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("40 hosts"), "{t}");
    if t.contains("compiling distinct robots.txt bodies") {
        // 20 bodies plus the synthetic ones a status needs: never the host count.
        assert!(!t.contains("/40"), "{t}");
        assert!(t.contains("elapsed") && t.contains("ETA"), "{t}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Values that stress argument parsing: type limits, signs, empties.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("-1".to_string()),
        Just(String::new()),
        Just(u64::MAX.to_string()),
        Just("18446744073709551616".to_string()),
        Just(u32::MAX.to_string()),
        Just("4294967296".to_string()),
        Just("abc".to_string()),
        Just("12:99".to_string()),
        "[a-z/:.]{0,12}",
    ]
}

/// One command-line item: a flag with a value, a flag alone, or a
/// contradictory pair.
fn item() -> impl Strategy<Value = Vec<String>> {
    let with_value = prop_oneof![
        Just("--max-bytes"),
        Just("--max-line-len"),
        Just("--max-rules"),
        Just("--max-states"),
        Just("--max-table-bytes"),
        Just("--max-automata"),
        Just("--compile-timeout"),
        Just("--max-store-bytes"),
        Just("--agent"),
        Just("--agent-from-header"),
        Just("--dialect"),
        Just("--url-mode"),
        Just("--robots-txt"),
        Just("--missing"),
        Just("--format"),
        Just("--at"),
        Just("--on-failure"),
    ];
    let alone = prop_oneof![
        Just("--data-txt"),
        Just("--records-close-groups"),
        Just("--fail-on-disallow"),
        Just("--quiet"),
        Just("--verbose"),
        Just("--sizes"),
        Just("--hosts"),
    ];
    let pair = proptest::sample::select(vec![
        ["--url-mode", "rfc", "--dialect", "draft1996"],
        ["--agent", "A", "--agent-from-header", "B/1.0"],
        ["--quiet", "--verbose", "--format", "json"],
        ["--dialect", "robots2", "--data-txt", "--at"],
    ]);
    prop_oneof![
        (with_value, value()).prop_map(|(f, v)| vec![f.to_string(), v]),
        alone.prop_map(|f| vec![f.to_string()]),
        pair.prop_map(|p| p.iter().map(|a| a.to_string()).collect()),
        value().prop_map(|v| vec![v]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the arguments: exit 0, 1 or 2, and never a panic.
    #[test]
    fn argument_vectors_exit_0_1_or_2(
        command in 0usize..7,
        input in 0usize..4,
        items in proptest::collection::vec(item(), 0..6),
    ) {
        let dir = std::env::temp_dir().join(format!("robocc-contract-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = root();
        let store = root.join("engine/tests/data/small.store");
        let policy = root.join("engine/tests/data/small.policy");
        let out_path = dir.join("out");
        let mut args: Vec<String> = match command {
            0 => vec!["check".into()],
            1 => vec!["compile".into(), "-o".into(), s(&out_path).into()],
            2 => vec!["explain".into()],
            3 => vec!["lint".into()],
            4 => vec!["inspect".into(), s(&store).into()],
            5 => vec!["store".into(), "build".into(), "-o".into(), s(&out_path).into(), s(&root.join("corpus/examples")).into()],
            _ => vec!["inspect".into(), s(&policy).into()],
        };
        match input {
            0 => args.extend(["--robots".into(), EXAMPLE.into()]),
            1 => args.extend(["--policy".into(), s(&policy).into()]),
            2 => args.extend(["--store".into(), s(&store).into()]),
            _ => {}
        }
        args.extend(items.into_iter().flatten());
        if command == 0 || command == 2 {
            args.extend(["--".into(), "https://example.com/a".into()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = robocc_in(&root, &refs, None);
        let e = err(&o);
        prop_assert!(!e.contains("panicked"), "{args:?}: {e}");
        prop_assert!(matches!(o.status.code(), Some(0..=2)), "{args:?}: {:?} {e}", o.status.code());
    }
}

// `check --urls` answers through the batch API: the same lines as URL by
// URL (JSON judges one at a time) over several batches, and a program that
// writes a URL and waits for its answer gets it (no batch waits for input
// that has not come).
#[test]
fn check_urls_in_batches_and_as_a_coprocess() {
    let dir = scratch("batch");
    let robots = "corpus/real/texting_robots__twitter.robots.txt";
    let mut urls = String::new();
    for i in 0..2500 {
        let path = ["/search?q=x", "/i/", "/home", "/", "/*", "/hashtag/a"][i % 6];
        urls.push_str(&format!("https://twitter.com{path}{i}\n"));
        if i % 100 == 0 {
            urls.push_str("# a comment\n\n");
        }
    }
    let list = dir.join("urls.txt");
    std::fs::write(&list, &urls).unwrap();
    let text = robocc(&[
        "check",
        "--robots",
        robots,
        "--agent",
        "Googlebot",
        "--urls",
        s(&list),
    ]);
    let json = robocc(&[
        "check",
        "--robots",
        robots,
        "--agent",
        "Googlebot",
        "--urls",
        s(&list),
        "--format",
        "json",
    ]);
    let text = out(&text);
    let json = out(&json);
    assert_eq!(text.lines().count(), 2500);
    for (t, j) in text.lines().zip(json.lines()) {
        let j: serde_json::Value = serde_json::from_str(j).unwrap();
        let (word, url) = t.split_once('\t').unwrap();
        assert_eq!(j["verdict"], word, "{t}");
        assert_eq!(j["url"], url, "{t}");
    }
    assert!(text.contains("disallow\t") && text.contains("allow\t"));

    // A co-process: one URL in, one answer out, before the next is written.
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args(["check", "--robots", robots, "--agent", "Googlebot"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for url in ["https://twitter.com/search?q=1", "https://twitter.com/home"] {
        writeln!(input, "{url}").unwrap();
        input.flush().unwrap();
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("an answer before the next URL");
        assert!(line.ends_with(url), "{line}");
    }
    drop(input);
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).ok();
}

/// `--layout dense`: a larger artifact with the same answers; `auto` (the
/// default) writes rows for twitter's `*` scans and stays compact for a
/// file without them; the flag refused (naming it) where a policy is
/// already compiled.
#[test]
fn layouts_answer_alike() {
    let dir = scratch("layout");
    let robots = "corpus/real/texting_robots__twitter.robots.txt";
    let urls = dir.join("urls.txt");
    std::fs::write(
        &urls,
        "https://twitter.com/\nhttps://twitter.com/a?b\nhttps://twitter.com/a?lang=en\n\
         https://twitter.com/x/followers\nhttps://twitter.com/search/realtime\n\
         https://twitter.com/i/api/1\nhttps://twitter.com/hashtag/x?src=y\n",
    )
    .unwrap();
    // Compiles the file in `layout` (plus `extra` flags) to `out`.
    let compile = |layout: &str, extra: &[&str], out: &Path| {
        let mut args = vec!["compile", "--robots", robots, "--agent", "Googlebot"];
        args.extend(["--layout", layout]);
        args.extend(extra);
        args.extend(["-o", s(out)]);
        robocc(&args)
    };
    let mut sizes = Vec::new();
    let mut answers = Vec::new();
    for layout in ["compact", "dense", "auto"] {
        let p = dir.join(format!("{layout}.policy"));
        assert_exit(&compile(layout, &[], &p), 0, "");
        sizes.push(std::fs::metadata(&p).unwrap().len());
        let k = robocc(&["check", "--policy", s(&p), "--urls", s(&urls)]);
        answers.push(out(&k));
    }
    assert!(sizes[1] > 2 * sizes[0], "{sizes:?}");
    assert_eq!(sizes[2], sizes[1], "auto writes twitter's rows");
    for (layout, rows) in [
        ("compact", "0 rows only"),
        ("dense", "1 rows only"),
        ("auto", "1 rows only"),
    ] {
        let i = robocc(&["inspect", s(&dir.join(format!("{layout}.policy")))]);
        assert!(out(&i).contains(rows), "{layout}: {}", out(&i));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    assert_eq!(answers[0].lines().count(), 7, "{}", answers[0]);
    // The default is auto.
    let p = dir.join("default.policy");
    let o = robocc(&[
        "compile",
        "--robots",
        robots,
        "--agent",
        "Googlebot",
        "-o",
        s(&p),
    ]);
    assert_exit(&o, 0, "");
    assert_eq!(std::fs::metadata(&p).unwrap().len(), sizes[2]);
    // Without `*` scans, auto is compact.
    let plain = dir.join("plain.txt");
    std::fs::write(
        &plain,
        "User-agent: *\nDisallow: /private/\nAllow: /private/ok\n",
    )
    .unwrap();
    let mut plain_sizes = Vec::new();
    for layout in ["compact", "auto", "dense"] {
        let p = dir.join(format!("plain-{layout}.policy"));
        let o = robocc(&[
            "compile",
            "--robots",
            s(&plain),
            "--agent",
            "G",
            "--layout",
            layout,
            "-o",
            s(&p),
        ]);
        assert_exit(&o, 0, "");
        plain_sizes.push(std::fs::metadata(&p).unwrap().len());
    }
    assert_eq!(plain_sizes[0], plain_sizes[1], "{plain_sizes:?}");
    assert!(plain_sizes[2] > plain_sizes[1], "{plain_sizes:?}");
    // The table budget is met on compact sizes: what compiles compact
    // compiles dense (kept compact where its rows would not fit).
    let p = dir.join("budget.policy");
    for layout in ["compact", "dense", "auto"] {
        assert_exit(&compile(layout, &["--max-table-bytes", "10000"], &p), 0, "");
        let i = robocc(&["inspect", s(&p)]);
        assert!(out(&i).contains("0 rows only"), "{layout}: {}", out(&i));
    }
    let p = dir.join("compact.policy");
    let k = robocc(&["check", "--policy", s(&p), "--layout", "dense", "/x"]);
    assert_exit(&k, 2, "--layout applies when compiling");
    assert_exit(&compile("fast", &[], &p), 2, "fast");
    std::fs::remove_dir_all(&dir).ok();
}

// A store of another format version given to `store build --base` is
// refused with what to do: build once without --base (every format change
// breaks a daily rebuild once).
#[test]
fn a_base_store_of_another_format_says_to_build_without_base() {
    let dir = scratch("old-base");
    let hosts = dir.join("hosts");
    std::fs::create_dir_all(&hosts).unwrap();
    std::fs::write(hosts.join("a.example.txt"), "User-agent: *\nDisallow: /x\n").unwrap();
    let store = dir.join("new.store");
    let o = robocc(&["store", "build", "--agent", "G", "-o", s(&store), s(&hosts)]);
    assert_exit(&o, 0, "");
    // The same store, stating the format version before this one.
    let mut old = std::fs::read(&store).unwrap();
    let version = u32::from_le_bytes(old[8..12].try_into().unwrap());
    old[8..12].copy_from_slice(&(version - 1).to_le_bytes());
    let old_path = dir.join("old.store");
    std::fs::write(&old_path, &old).unwrap();
    let again = dir.join("again.store");
    let o = robocc(&[
        "store",
        "build",
        "--agent",
        "G",
        "--base",
        s(&old_path),
        "-o",
        s(&again),
        s(&hosts),
    ]);
    assert_exit(&o, 2, "cannot be a base: build once without --base");
    assert!(!again.exists());
    // Checking with it still says how to rebuild it.
    let o = robocc(&["check", "--store", s(&old_path), "https://a.example/x"]);
    assert_exit(&o, 2, "rebuild it with this robocc");
    std::fs::remove_dir_all(&dir).ok();
}
