//! The `robocc` binary: output format, exit codes, error messages.

use robocc_testkit::paths::root;

use crate::common::{robocc_in, scratch};
use std::process::{Command, Output};

fn robocc(args: &[&str], stdin: Option<&str>) -> Output {
    robocc_in(&root(), args, stdin.map(str::as_bytes))
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// stdout as one JSON value per line.
fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const ROBOTS: &str = "corpus/examples/example.com.txt";

/// A robots.txt of `body` in a fresh scratch directory named after `tag`:
/// the directory (to remove) and the file's path.
fn scratch_robots(tag: &str, body: &str) -> (std::path::PathBuf, String) {
    let dir = scratch(tag);
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, body).unwrap();
    let path = robots.to_str().unwrap().to_string();
    (dir, path)
}

/// The command failed as input errors do: exit 2, stderr containing `needle`.
fn assert_exit_2(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
}

#[test]
fn readme_main_command_output() {
    let o = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "--urls",
            "corpus/examples/example.com.urls",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let urls = std::fs::read_to_string(root().join("corpus/examples/example.com.urls")).unwrap();
    assert_eq!(out.lines().count(), urls.lines().count());
    for (line, url) in out.lines().zip(urls.lines()) {
        let (verdict, echoed) = line.split_once('\t').unwrap();
        assert!(verdict == "allow" || verdict == "disallow");
        assert_eq!(echoed, url);
    }
    assert!(out.contains("disallow\thttps://www.example.com/checkout/step-1\n"));
    assert!(out.contains("allow\thttps://www.example.com/help/\n"));
}

#[test]
fn urls_from_arguments_and_stdin_agree() {
    let args = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "BadBot",
            "/a",
            "/robots.txt",
        ],
        None,
    );
    assert_eq!(stdout(&args), "disallow\t/a\nallow\t/robots.txt\n");
    let piped = robocc(
        &["check", "--robots", ROBOTS, "--agent", "BadBot"],
        Some("/a\r\n/robots.txt\n"),
    );
    assert_eq!(stdout(&piped), stdout(&args));
    // The implicit /robots.txt allow was written by no line: its rule_line
    // is null, as Python's Verdict.rule_line is None (not line 0).
    let json = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "BadBot",
            "--format",
            "json",
            "/a",
            "/robots.txt",
        ],
        None,
    );
    let lines = json_lines(&json);
    assert!(
        lines[0]["rule_line"].as_u64().is_some_and(|l| l > 0),
        "{lines:?}"
    );
    assert_eq!(lines[1]["rule_line"], serde_json::Value::Null, "{lines:?}");
}

#[test]
fn compiled_policy_gives_the_same_output() {
    let dir = std::env::temp_dir().join(format!("robocc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("example.policy");
    let policy = policy.to_str().unwrap();
    let c = robocc(
        &[
            "compile",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "-o",
            policy,
        ],
        None,
    );
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let urls = "corpus/examples/example.com.urls";
    let a = robocc(&["check", "--policy", policy, "--urls", urls], None);
    let b = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "--urls",
            urls,
        ],
        None,
    );
    assert_eq!(stdout(&a), stdout(&b));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fail_on_disallow_exits_1() {
    let o = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "BadBot",
            "--fail-on-disallow",
            "/x",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let o = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "--fail-on-disallow",
            "/x",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let missing = robocc(
        &[
            "check",
            "--robots",
            "no/such/robots.txt",
            "--agent",
            "Googlebot",
            "/",
        ],
        None,
    );
    assert_exit_2(&missing, "no/such/robots.txt");

    let bad_agent = robocc(
        &["check", "--robots", ROBOTS, "--agent", "Googlebot/2.1", "/"],
        None,
    );
    assert_exit_2(&bad_agent, "product token");

    let not_policy = robocc(&["check", "--policy", ROBOTS, "/"], None);
    assert_exit_2(&not_policy, ROBOTS);
    assert_exit_2(&not_policy, "magic");

    let usage = robocc(&["check", "--bogus"], None);
    assert_eq!(usage.status.code(), Some(2));

    let dialect = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "X",
            "--dialect",
            "acap2",
            "/",
        ],
        None,
    );
    assert_exit_2(&dialect, "invalid value");
}

#[test]
fn agent_from_header() {
    let o = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent-from-header",
            "Mozilla/5.0 (compatible; BadBot/1.0; +http://bad.example)",
            "/a",
        ],
        None,
    );
    assert_eq!(stdout(&o), "disallow\t/a\n");
}

#[test]
fn explain_inspect_store_and_json() {
    let dir = std::env::temp_dir().join(format!("robocc-cli4-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    std::fs::copy(root().join(ROBOTS), dir.join("bodies/example.com.txt")).unwrap();
    let manifest = dir.join("manifest.jsonl");
    std::fs::write(
        &manifest,
        "{\"host\": \"www.example.com\", \"status\": 200, \"body_path\": \"bodies/example.com.txt\"}\n\
         {\"host\": \"Inline.Example:8080\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"gone.example\", \"status\": 404}\n\
         {\"host\": \"down.example\", \"status\": 0, \"fetched_at\": \"2026-11-22T00:00:00Z\"}\n\
         {\"host\": \"old.example\", \"status\": 301, \"location\": \"https://www.example.com/robots.txt\"}\n",
    )
    .unwrap();
    let store = dir.join("hosts.store");
    let store = store.to_str().unwrap();
    let b = robocc(
        &[
            "store",
            "build",
            "--agent",
            "Googlebot",
            "-o",
            store,
            "--manifest",
            manifest.to_str().unwrap(),
        ],
        None,
    );
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert!(
        String::from_utf8_lossy(&b.stderr).contains("5 hosts"),
        "{}",
        String::from_utf8_lossy(&b.stderr)
    );

    let c = robocc(
        &[
            "check",
            "--store",
            store,
            "--format",
            "json",
            "https://www.example.com/cart",
            "http://inline.example:8080/x",
            "https://gone.example/x",
            "https://down.example/x",
            "https://old.example/cart",
            "https://other.example/",
            "not a url",
            "\u{1}://",
        ],
        None,
    );
    let lines = json_lines(&c);
    let verdicts: Vec<&str> = lines
        .iter()
        .map(|v| v["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "disallow", "disallow", "allow", "disallow", "disallow", "unknown", "unknown",
            "unknown"
        ]
    );
    assert_eq!(lines[0]["rule_line"], 8);

    let i = robocc(&["inspect", store], None);
    assert!(stdout(&i).contains("hosts: 5"), "{}", stdout(&i));

    let e = robocc(
        &[
            "explain",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "https://www.example.com/help/",
        ],
        None,
    );
    let out = stdout(&e);
    assert!(
        out.contains("verdict: allow") && out.contains("index.htm") && out.contains("line 12"),
        "{out}"
    );

    // A corrupt store is refused with its name.
    let mut bytes = std::fs::read(store).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    let corrupt = dir.join("corrupt.store");
    std::fs::write(&corrupt, bytes).unwrap();
    let bad = robocc(
        &[
            "check",
            "--store",
            corrupt.to_str().unwrap(),
            "https://www.example.com/",
        ],
        None,
    );
    assert_exit_2(&bad, "corrupt.store");
    let bad = robocc(&["inspect", corrupt.to_str().unwrap()], None);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lint_text_and_json() {
    let dir = std::env::temp_dir().join(format!("robocc-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("robots.txt");
    std::fs::write(
        &f,
        "User-agent: *\nDisalow: /a\nDisallow: /p\nAllow: /p\nNoindex: /x\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let t = robocc(&["lint", "--robots", f], None);
    assert!(t.status.success());
    let out = stdout(&t);
    assert!(
        out.contains(":2: warning: misspelt-key")
            && out.contains(":3: warning: shadowed-rule")
            && out.contains(":5: warning: unknown-key"),
        "{out}"
    );
    let j = robocc(
        &[
            "lint",
            "--robots",
            f,
            "--agent",
            "Googlebot",
            "--format",
            "json",
        ],
        None,
    );
    let findings = json_lines(&j);
    assert!(findings
        .iter()
        .any(|v| v["code"] == "allow-disallow-tie" && v["line"] == 4));
    assert!(findings
        .iter()
        .all(|v| v["fix"].as_str().is_some_and(|s| !s.is_empty())));
    let missing = robocc(&["lint", "--robots", "no/such.txt"], None);
    assert_eq!(missing.status.code(), Some(2));
    // The file as a positional argument reads as --robots FILE.
    let positional = robocc(&["lint", f], None);
    assert!(positional.status.success());
    assert_eq!(stdout(&positional), out);
    assert_eq!(crate::common::err(&positional), crate::common::err(&t));
    let both = robocc(&["lint", f, "--robots", f], None);
    assert_eq!(both.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every command that reads an artifact refuses a damaged one with exit 2 and
/// a message naming the file and the problem.
#[test]
fn damaged_artifacts_are_refused_by_every_command() {
    let dir = scratch("damaged");
    let good = std::fs::read(root().join("engine/tests/data/small.policy")).unwrap();
    let store = std::fs::read(root().join("engine/tests/data/small.store")).unwrap();
    // The last byte whose flip the engine refuses (a padding byte's flip
    // changes nothing and is rightly accepted).
    let mut flipped = good.clone();
    let last = (16..good.len())
        .rev()
        .find(|&i| {
            let mut b = good.clone();
            b[i] ^= 0xff;
            let v = robocc_engine::PolicyFile::from_slice(&b);
            v.is_err_and(|e| e.to_string().contains("corrupted policy"))
        })
        .expect("a byte whose flip is detected");
    flipped[last] ^= 0xff;
    let mut swapped = good.clone();
    swapped[8..12].reverse();
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "truncated.policy",
            good[..good.len() / 2].to_vec(),
            "truncated",
        ),
        ("flipped.policy", flipped, "corrupted policy"),
        ("swapped.policy", swapped, "big-endian"),
        ("store-as.policy", store.clone(), "not a robocc policy"),
        ("empty.policy", Vec::new(), "shorter than"),
    ];
    for (name, bytes, why) in &cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let p = path.to_str().unwrap();
        let mut commands = vec![
            vec!["check", "--policy", p, "/x"],
            vec!["explain", "--policy", p, "/x"],
        ];
        // inspect reads stores too: a store is not an error there.
        if *name != "store-as.policy" {
            commands.push(vec!["inspect", p]);
        }
        for args in commands {
            let o = robocc(&args, None);
            assert_exit_2(&o, p);
            assert_exit_2(&o, why);
        }
        // A damaged file says what helps, not what would debug rkyv
        // (python audit F9).
        if matches!(*name, "truncated.policy" | "flipped.policy") {
            let o = robocc(&["check", "--policy", p, "/x"], None);
            assert_exit_2(&o, "(recompile the policy or copy it again)");
            assert!(!String::from_utf8_lossy(&o.stderr).contains("rancor"));
        }
    }
    let policy_as_store = dir.join("policy-as.store");
    std::fs::write(&policy_as_store, &good).unwrap();
    let p = policy_as_store.to_str().unwrap();
    let o = robocc(&["check", "--store", p, "http://a.example/"], None);
    assert_exit_2(&o, p);
    assert_exit_2(&o, "not a robocc store");
    let mut truncated_store = store.clone();
    truncated_store.truncate(store.len() - 1);
    std::fs::write(dir.join("t.store"), &truncated_store).unwrap();
    let p = dir.join("t.store");
    let o = robocc(&["inspect", p.to_str().unwrap()], None);
    assert_exit_2(&o, "truncated or padded store");
    // What to do about it, as docs/RELIABILITY.md quotes it.
    assert_exit_2(&o, "(rebuild the store or copy it again)");
    // Another format version: refused, with how to rebuild.
    for (name, mut bytes, flag, hint) in [
        ("old.store", store.clone(), "--store", "robocc store build"),
        ("old.policy", good.clone(), "--policy", "robocc compile"),
    ] {
        bytes[8..12].copy_from_slice(&4u32.to_le_bytes());
        let p = dir.join(name);
        std::fs::write(&p, &bytes).unwrap();
        let o = robocc(
            &["check", flag, p.to_str().unwrap(), "http://a.example/"],
            None,
        );
        assert_exit_2(&o, "version 4");
        assert_exit_2(&o, hint);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// draft1996 reads /data.txt files the same way (its own path allowed), and
/// robots2's visit advice shows in explain and inspect.
#[test]
fn other_dialects_on_the_command_line() {
    let dir = scratch("dialects");
    let data_txt = dir.join("data.txt");
    std::fs::write(&data_txt, "User-agent: *\nDisallow: /\n").unwrap();
    let d = data_txt.to_str().unwrap();
    let o = robocc(
        &[
            "check",
            "--robots",
            d,
            "--agent",
            "x",
            "--dialect",
            "draft1996",
            "/data.txt",
            "/robots.txt",
        ],
        None,
    );
    assert_eq!(stdout(&o), "allow\t/data.txt\ndisallow\t/robots.txt\n");
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("corpus/conformance/robots2.json")).unwrap(),
    )
    .unwrap();
    let site = dir.join("robots.txt");
    std::fs::write(&site, doc["cases"][0]["robots"].as_str().unwrap()).unwrap();
    let s = site.to_str().unwrap();
    let o = robocc(
        &[
            "explain",
            "--robots",
            s,
            "--agent",
            "vacuumweb",
            "--dialect",
            "robots2",
            "--at",
            "18:30",
            "/blackhole/page3.html",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(out.contains("verdict: allow"), "{out}");
    assert!(out.contains("request rate 1/1200 s"), "{out}");
    assert!(out.contains("comment: because you guys"), "{out}");
    let policy = dir.join("s.policy");
    let p = policy.to_str().unwrap();
    let o = robocc(
        &[
            "compile",
            "--robots",
            s,
            "--agent",
            "suckemdry",
            "--dialect",
            "robots2",
            "-o",
            p,
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&robocc(&["inspect", p], None));
    assert!(out.contains("visit-time: 0600-0845 UTC"), "{out}");
    assert!(out.contains("robot-version: 2.0"), "{out}");
    assert!(out.contains("cache expiry: 168 h"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

const ACAP: &str = "corpus/examples/acap-publisher.txt";

#[test]
fn acap_usage_purpose_and_auto() {
    let base = [
        "check",
        "--robots",
        ACAP,
        "--agent",
        "newsbot",
        "--dialect",
        "acap",
    ];
    // One usage: allow/disallow lines as for crawl.
    let snippet = robocc(
        &[
            &base[..],
            &[
                "--usage",
                "present-snippet",
                "--purpose",
                "news",
                "/premium/a",
                "/x.gif",
            ],
        ]
        .concat(),
        None,
    );
    assert_eq!(
        stdout(&snippet),
        "allow\t/premium/a\nallow\t/x.gif\n",
        "{}",
        String::from_utf8_lossy(&snippet.stderr)
    );
    // Without the purpose, the news sub-record does not apply.
    let plain = robocc(
        &[&base[..], &["--usage", "present-snippet", "/premium/a"]].concat(),
        None,
    );
    // (`ACAP-disallow-other` of the premium set applies instead.)
    assert_eq!(stdout(&plain), "disallow\t/premium/a\n");
    // Every usage: one line per usage, in usage order.
    let all = robocc(
        &[&base[..], &["--usage", "all", "/news/a/comments"]].concat(),
        None,
    );
    let lines: Vec<String> = stdout(&all).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 14);
    assert_eq!(lines[0], "allow\tcrawl\t/news/a/comments");
    assert_eq!(lines[4], "disallow\tpresent\t/news/a/comments");
    // JSON: an object of usage -> verdict, line, qualifiers.
    let json = robocc(
        &[
            &base[..],
            &["--usage", "all", "--format", "json", "/news/x"],
        ]
        .concat(),
        None,
    );
    let v = &json_lines(&json)[0];
    assert_eq!(v["usages"].as_object().unwrap().len(), 14);
    assert_eq!(v["usages"]["present"]["verdict"], "allow");
    assert_eq!(v["usages"]["present"]["qualifiers"][0], "time-limit=3-days");
    // Mistakes: an unknown usage, a purpose with a compiled policy, a
    // reference that is not PATH=FILE.
    assert_exit_2(
        &robocc(&[&base[..], &["--usage", "snippets", "/"]].concat(), None),
        "unknown usage",
    );
    // An ACAP usage without --dialect acap, a purpose with rfc9309.
    assert_exit_2(
        &robocc(
            &[
                "check", "--robots", ACAP, "--agent", "newsbot", "--usage", "index", "/",
            ],
            None,
        ),
        "--dialect acap",
    );
    assert_exit_2(
        &robocc(
            &[
                "check",
                "--robots",
                ACAP,
                "--agent",
                "newsbot",
                "--purpose",
                "news",
                "/",
            ],
            None,
        ),
        "--purpose applies to --dialect acap",
    );
    let dir = scratch("acap");
    let policy = dir.join("p.policy");
    let p = policy.to_str().unwrap();
    let compiled = robocc(
        &[
            "compile",
            "--robots",
            ACAP,
            "--agent",
            "newsbot",
            "--dialect",
            "acap",
            "-o",
            p,
        ],
        None,
    );
    assert!(compiled.status.success());
    assert_exit_2(
        &robocc(&["check", "--policy", p, "--purpose", "news", "/"], None),
        "--purpose applies when compiling",
    );
    assert_exit_2(
        &robocc(&[&base[..], &["--reference", "/x.txt", "/"]].concat(), None),
        "PATH=FILE",
    );
    // --dialect auto reads the ACAP fields and says so.
    let auto = robocc(
        &[
            "check",
            "--robots",
            ACAP,
            "--agent",
            "otherbot",
            "--dialect",
            "auto",
            "--usage",
            "index",
            "/a.gif",
        ],
        None,
    );
    assert_eq!(stdout(&auto), "disallow\t/a.gif\n");
    assert!(String::from_utf8_lossy(&auto.stderr).contains("read as dialect acap"));
    // explain names the deciding rule per usage, or the undecidable pair.
    let body = dir.join("conflict.txt");
    std::fs::write(
        &body,
        "ACAP-crawler: *\nACAP-disallow-index: /a\nACAP-allow-index: /A\n",
    )
    .unwrap();
    let explain = robocc(
        &[
            "explain",
            "--robots",
            body.to_str().unwrap(),
            "--agent",
            "x",
            "--dialect",
            "acap",
            "--usage",
            "index",
            "/a/1",
        ],
        None,
    );
    let out = stdout(&explain);
    assert!(out.contains("index: disallow: undecidable"), "{out}");
    let lint = robocc(
        &[
            "lint",
            "--robots",
            body.to_str().unwrap(),
            "--dialect",
            "acap",
        ],
        None,
    );
    assert!(
        stdout(&lint).contains("acap-undecidable"),
        "{}",
        stdout(&lint)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `lint --dialect acap` reports what compiling reports about the records'
/// fields (undefined names drop permissions, qualifiers on a prohibition):
/// warnings, which `--fail-on warning` catches.
#[test]
fn acap_lint_reports_compile_stage_findings() {
    let dir = scratch("acap-lint");
    let body = dir.join("robots.txt");
    std::fs::write(
        &body,
        "ACAP-crawler: *\nACAP-allow-present: the-acap:resource-set:nosuch\n\
         ACAP-allow-(nosuch): /x\nACAP-disallow-index: /y time-limit=3-days\n",
    )
    .unwrap();
    let lint = robocc(
        &[
            "lint",
            "--robots",
            body.to_str().unwrap(),
            "--dialect",
            "acap",
            "--fail-on",
            "warning",
        ],
        None,
    );
    let out = stdout(&lint);
    assert_eq!(lint.status.code(), Some(1), "{out}");
    for want in [
        ":2: warning: acap-undefined:",
        ":3: warning: acap-undefined:",
        ":4: warning: acap-ignored:",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The preference lines of `robocc explain`'s output (after `groups:`).
fn preference_lines(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("  groups:"))
        .skip(1)
        .collect()
}

/// explain lists, per AI-usage channel, every statement that spoke for the
/// URL and what it said, marking the decider: the Content-Usage lines of
/// the longest matching path (a shorter one shown as shadowed), every
/// Content-Signal line, the training token's deciding rule only; on an
/// uncrawlable URL, what would have applied, marked as not applying.
#[test]
fn explain_lists_every_signal_that_spoke() {
    let dir = scratch("signals");
    let body = dir.join("robots.txt");
    std::fs::write(
        &body,
        "Content-Signal: search=yes\n\
         User-agent: bot\n\
         Content-Usage: /a/ train-ai=n\n\
         Content-Usage: / train-ai=y, search=y\n\
         Content-Usage: /a/ search=n\n\
         Disallow: /private\n\
         Content-Signal: ai-train=yes, ai-input=no\n\
         \n\
         User-agent: Google-Extended\n\
         Disallow: /\n\
         Allow: /a/open\n",
    )
    .unwrap();
    let explain = |url: &str| {
        let o = robocc(
            &[
                "explain",
                "--robots",
                body.to_str().unwrap(),
                "--agent",
                "bot",
                "--training-agent",
                "Google-Extended",
                url,
            ],
            None,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stdout(&o)
    };
    let shadowed = "(shadowed by the longer path /a/ (line 3): does not apply)";
    // /a/x: both path lengths match; the longest (/a/) speaks. The token's
    // deciding rule is its Disallow /.
    let out = explain("http://e.com/a/x");
    assert_eq!(
        preference_lines(&out),
        [
            "  search: disallow: line 5: Content-Usage /a/ (any disallow wins, then any allow)"
                .to_string(),
            "    line 1: Content-Signal (file level): allow".into(),
            format!("    line 4: Content-Usage /: allow {shadowed}"),
            "    line 5: Content-Usage /a/: disallow   <- decides".into(),
            "  train-ai: disallow: line 3: Content-Usage /a/ (any disallow wins, then any allow)"
                .into(),
            "    line 3: Content-Usage /a/: disallow   <- decides".into(),
            format!("    line 4: Content-Usage /: allow {shadowed}"),
            "    line 7: Content-Signal: allow".into(),
            "    line 10: training token Google-Extended: Disallow /: disallow".into(),
            "  ai-input: disallow: line 7: Content-Signal (any disallow wins, then any allow)"
                .into(),
            "    line 7: Content-Signal: disallow   <- decides".into(),
        ],
        "{out}"
    );
    // /a/open: the token's longest match is its Allow, which states
    // nothing; its Disallow / is not listed.
    let out = explain("http://e.com/a/open");
    let lines = preference_lines(&out);
    assert!(
        lines.contains(
            &"    line 11: training token Google-Extended: Allow /a/open: nothing \
               (a training token's Allow states nothing)"
        ),
        "{out}"
    );
    assert!(!out.contains("Disallow /: disallow"), "{out}");
    // /b: only the shorter path matches, and the token decides train-ai.
    let out = explain("http://e.com/b");
    let lines = preference_lines(&out);
    assert_eq!(
        &lines[3..7],
        [
            "  train-ai: disallow: line 10: training token Google-Extended: Disallow / \
             (any disallow wins, then any allow)",
            "    line 4: Content-Usage /: allow",
            "    line 7: Content-Signal: allow",
            "    line 10: training token Google-Extended: Disallow /: disallow   <- decides",
        ],
        "{out}"
    );
    // Uncrawlable: unknown, with what would have applied.
    let out = explain("http://e.com/private/a/");
    let not = "(would apply; does not: crawl is disallowed)";
    let unknown = "unknown: the agent may not crawl this URL, so no preference applies \
                   (aipref attach-05 §3.1)";
    assert_eq!(
        preference_lines(&out),
        [
            format!("  search: {unknown}"),
            format!("    line 1: Content-Signal (file level): allow {not}"),
            format!("    line 4: Content-Usage /: allow {not}"),
            format!("  train-ai: {unknown}"),
            format!("    line 4: Content-Usage /: allow {not}"),
            format!("    line 7: Content-Signal: allow {not}"),
            format!("    line 10: training token Google-Extended: Disallow /: disallow {not}"),
            format!("  ai-input: {unknown}"),
            format!("    line 7: Content-Signal: disallow {not}"),
        ],
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check --usage train-ai --tdmrep`: the first matching tdmrep.json rule
/// beside robots.txt's preference (any disallow wins, robots.txt's line
/// named first); refused where it cannot apply.
#[test]
fn check_tdmrep() {
    let dir = scratch("tdmrep");
    let robots = dir.join("robots.txt");
    std::fs::write(
        &robots,
        "User-agent: *\nDisallow: /private\nContent-Usage: /b/ train-ai=n\nContent-Usage: /c/ train-ai=y\n",
    )
    .unwrap();
    let tdmrep = dir.join("tdmrep.json");
    std::fs::write(
        &tdmrep,
        r#"[{"location": "/a/", "tdm-reservation": 1}, {"location": "/b/", "tdm-reservation": 1}, {"location": "/", "tdm-reservation": 0}]"#,
    )
    .unwrap();
    let (robots, tdmrep) = (robots.to_str().unwrap(), tdmrep.to_str().unwrap());
    let base = [
        "check", "--robots", robots, "--agent", "bot", "--tdmrep", tdmrep,
    ];
    let urls = [
        "https://e.com/a/x",       // the file's 1: disallow
        "https://e.com/b/x",       // both disallow: robots.txt's line named
        "https://e.com/c/x",       // robots.txt's y and the file's 0: allow
        "https://e.com/d",         // the file's 0 alone: allow
        "https://e.com/private/x", // uncrawlable: robots.txt unknown, the file's 0
    ];
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--usage", "train-ai", "--format", "json"]);
    args.extend(urls);
    let o = robocc(&args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Vec<(String, serde_json::Value, serde_json::Value)> = json_lines(&o)
        .into_iter()
        .map(|v| {
            (
                v["verdict"].as_str().unwrap().to_string(),
                v["rule_line"].clone(),
                v["tdmrep_rule"].clone(),
            )
        })
        .collect();
    let n = serde_json::Value::Null;
    let want = [
        ("disallow", n.clone(), serde_json::json!(1)),
        ("disallow", serde_json::json!(3), n.clone()),
        ("allow", serde_json::json!(4), n.clone()),
        ("allow", n.clone(), serde_json::json!(3)),
        ("allow", n.clone(), serde_json::json!(3)),
    ];
    assert_eq!(
        got,
        want.map(|(a, b, c)| (a.to_string(), b, c)).to_vec(),
        "{}",
        stdout(&o)
    );
    // --usage all: train-ai carries the file; crawl is untouched.
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--usage", "all", "https://e.com/a/x"]);
    let o = robocc(&args, None);
    assert_eq!(
        stdout(&o),
        "allow\tcrawl\thttps://e.com/a/x\nunknown\tsearch\thttps://e.com/a/x\n\
         disallow\ttrain-ai\thttps://e.com/a/x\nunknown\tai-input\thttps://e.com/a/x\n"
    );
    // Refusals: another usage, a store, a file that is not tdmrep.json.
    assert_exit_2(&robocc(&base, None), "--usage train-ai");
    let mut args: Vec<&str> = base.to_vec();
    args[6] = robots;
    args.extend(["--usage", "train-ai", "/"]);
    assert_exit_2(&robocc(&args, None), "not JSON");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A preference channel asked of a dialect without any: unknown, and a
/// note says why (not "nothing stated in the file").
#[test]
fn preference_of_another_dialect_is_noted() {
    let o = robocc(
        &[
            "check",
            "--robots",
            ROBOTS,
            "--agent",
            "Googlebot",
            "--dialect",
            "draft1996",
            "--usage",
            "train-ai",
            "/",
        ],
        None,
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "unknown\t/\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rfc9309 dialect only"), "{err}");
}

/// A Content-Usage line before the first User-agent line is lost, as an
/// Allow/Disallow there is: `check` says so (not only `compile`).
#[test]
fn check_reports_a_content_usage_outside_any_group() {
    let (dir, robots) = scratch_robots(
        "orphan",
        "Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n",
    );
    let o = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "Bot",
            "--usage",
            "train-ai",
            "https://e.com/x",
        ],
        None,
    );
    assert_eq!(stdout(&o), "unknown\thttps://e.com/x\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 1: warning: Content-Usage before the first user-agent line"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Preference statements dropped for the budget: `explain` says they were
/// not compiled, not that the file states none.
#[test]
fn explain_says_when_preferences_were_dropped() {
    let (dir, path) = scratch_robots(
        "dropped",
        "User-agent: *\nAllow: /\nContent-Usage: /a train-ai=n\nContent-Usage: /b*c search=n\n",
    );
    let path = path.as_str();
    let explain = |states: &str| {
        let o = robocc(
            &[
                "explain",
                "--robots",
                path,
                "--agent",
                "Bot",
                "--max-states",
                states,
                "/a",
            ],
            None,
        );
        stdout(&o)
    };
    // 16 states hold the rules but not the statements (the compile warns).
    assert!(
        explain("16").contains("  preferences: not compiled: the file's statements did not fit"),
        "{}",
        explain("16")
    );
    assert!(
        explain("0").contains("  train-ai: disallow: line 3"),
        "{}",
        explain("0")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// ACAP: permissions that agree, one with qualifiers: the narrowest names
/// the verdict, so its qualifiers are the ones reported.
#[test]
fn acap_reports_the_narrowest_permissions_qualifiers() {
    let (dir, robots) = scratch_robots(
        "qual",
        "ACAP-crawler: *\nACAP-allow-present-snippet: /\n\
         ACAP-allow-present-snippet: /premium/ max-length=30-words\n",
    );
    let o = robocc(
        &[
            "check",
            "--dialect",
            "acap",
            "--robots",
            &robots,
            "--agent",
            "bot",
            "--usage",
            "present-snippet",
            "--format",
            "json",
            "/premium/x",
            "/x",
        ],
        None,
    );
    let lines = json_lines(&o);
    assert_eq!(
        lines[0]["qualifiers"],
        serde_json::json!(["max-length=30-words"])
    );
    assert_eq!(lines[0]["rule_line"], 3);
    assert_eq!(lines[1]["qualifiers"], serde_json::json!([]));
    assert_eq!(lines[1]["rule_line"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check --robots` answers from the rules (a `Checker`) without lowering
/// them for a few URLs: a file whose lowering is expensive (wildcard rules
/// that split it into ten automata) answers one URL exactly as its compiled
/// policy does, on every output and usage, ACAP's qualifiers too, with the
/// compile's findings that can change a verdict on stderr. With a
/// preference statement the same rules do not fit the budget: the compile
/// drops it (unknown, and a warning), and `check --robots` says so too.
#[test]
fn check_robots_answers_one_url_as_its_compiled_policy() {
    let mut body = String::from("User-agent: *\n");
    for i in 0..12 {
        body.push_str(&format!("Disallow: /*a{i}*b*c\nAllow: /*x{i}*y*$\n"));
    }
    body.push_str("Disallow /p q\nCrawl-delay: 2\n");
    let dropped = format!("{body}Content-Signal: search=yes\n");
    let acap = "ACAP-crawler: *\nACAP-allow-present-snippet: /\n\
                ACAP-allow-present-snippet: /premium/ max-length=30-words\n\
                ACAP-disallow-index: /*a*b*c\nDisallow: /x\n";
    let paths: &[&str] = &["/a3/b/c", "/x1/y/z", "/x2ay/b/c", "/p", "/robots.txt", "/"];
    let readings: [(&str, &str, &[&str], &[&str]); 3] = [
        ("stars", &body, &[], paths),
        // Compiled each time: two URLs.
        ("dropped", &dropped, &[], &paths[..2]),
        (
            "acap",
            acap,
            &["--dialect", "acap"],
            &["/premium/x", "/a/b/c", "/x", "/"],
        ),
    ];
    for (tag, body, dialect, urls) in readings {
        let (dir, robots) = scratch_robots(&format!("one-url-{tag}"), body);
        let policy = dir.join("p.policy");
        let policy = policy.to_str().unwrap();
        let mut compile = vec![
            "compile", "--robots", &robots, "--agent", "bot", "-o", policy,
        ];
        compile.extend(dialect);
        assert_eq!(robocc(&compile, None).status.code(), Some(0), "{tag}");
        let outputs: [&[&str]; 5] = [
            &[],
            &["--format", "json"],
            &["--usage", "all"],
            &["--usage", "all", "--format", "json"],
            &["--usage", "search", "--format", "json"],
        ];
        for url in urls {
            for output in outputs {
                let run = |site: &[&str]| {
                    let mut args = vec!["check", "--agent", "bot"];
                    args.extend(site);
                    args.extend(output);
                    args.push(url);
                    robocc(&args, None)
                };
                let mut site = vec!["--robots", robots.as_str()];
                site.extend(dialect);
                let (checked, compiled) = (run(&site), run(&["--policy", policy]));
                let shown = format!("{tag} {url} {output:?}");
                assert_eq!(checked.status.code(), Some(0), "{shown}");
                assert_eq!(stdout(&checked), stdout(&compiled), "{shown}");
                // The findings that can change a verdict, as compiling
                // reports them (not the split, which cannot).
                let err = String::from_utf8_lossy(&checked.stderr);
                let separator = format!(
                    "{robots}: line 26: warning: no ':' separator (and not exactly `key \
                     value`): line ignored\n"
                );
                match tag {
                    "stars" => assert_eq!(err, separator, "{shown}"),
                    "dropped" => assert!(
                        err.contains("statements do not fit the budget")
                            && err.contains(&separator),
                        "{shown}: {err}"
                    ),
                    _ => {}
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// draft1996 and robots2 name agents by the 1996 draft's `agent = token`
/// (RFC 1945): `MJ12bot`, `bot2` and `my.bot` are names there, also with a
/// policy compiled for them; rfc9309 and acap keep RFC 9309's
/// `[A-Za-z_-]+`, and say how Google reads such a name and what to type.
#[test]
fn agent_token_follows_the_dialect() {
    let (dir, robots) = scratch_robots(
        "agent-token",
        "User-agent: MJ12bot\nDisallow: /a\n\nUser-agent: bot2\nDisallow: /b\n\nUser-agent: my.bot\nDisallow: /c\n",
    );
    for dialect in ["draft1996", "robots2"] {
        for (agent, url) in [("MJ12bot", "/a"), ("bot2", "/b"), ("my.bot", "/c")] {
            let o = robocc(
                &[
                    "check",
                    "--robots",
                    &robots,
                    "--dialect",
                    dialect,
                    "--agent",
                    agent,
                    url,
                ],
                None,
            );
            assert_eq!(
                stdout(&o),
                format!("disallow\t{url}\n"),
                "{dialect} {agent}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let o = robocc(
            &[
                "check",
                "--robots",
                &robots,
                "--dialect",
                dialect,
                "--agent",
                "my bot",
                "/",
            ],
            None,
        );
        assert_exit_2(&o, "RFC 1945 token");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("RFC 9309"));
    }
    let policy = dir.join("mj.policy");
    let p = policy.to_str().unwrap();
    let o = robocc(
        &[
            "compile",
            "--robots",
            &robots,
            "--dialect",
            "draft1996",
            "--agent",
            "MJ12bot",
            "-o",
            p,
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = robocc(&["check", "--policy", p, "--agent", "mj12bot", "/a"], None);
    assert_eq!(
        stdout(&o),
        "disallow\t/a\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // page reads the policy's dialect too.
    let html = dir.join("page.html");
    std::fs::write(&html, "<meta name=robots content=noindex>").unwrap();
    let o = robocc(
        &[
            "page",
            "--html",
            html.to_str().unwrap(),
            "--policy",
            p,
            "--agent",
            "MJ12bot",
            "--url",
            "http://h/a",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for dialect in ["rfc9309", "acap"] {
        let o = robocc(
            &[
                "check",
                "--robots",
                &robots,
                "--dialect",
                dialect,
                "--agent",
                "MJ12bot",
                "/a",
            ],
            None,
        );
        assert_exit_2(
            &o,
            "RFC 9309 §2.2.1 allows only letters, '_' and '-' (found \"12\")",
        );
        assert_exit_2(&o, "a line `User-agent: MJ12bot` names \"MJ\"");
        assert_exit_2(&o, "pass --agent MJ");
        assert_exit_2(&o, "--dialect draft1996 or robots2");
    }
    // What the message offers: `MJ` obeys the MJ12bot group, as Google's
    // library reads it.
    let o = robocc(&["check", "--robots", &robots, "--agent", "MJ", "/a"], None);
    assert_eq!(stdout(&o), "disallow\t/a\n");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--agent-from-header` takes the crawler's product whole: the 1996
/// draft's own example header names FigTree (not the bare word `Robot`),
/// and `MJ12bot/v1.4.8` names MJ12bot (not `bot`, which substring-matches
/// every *bot record under the draft). Under rfc9309 such a name is
/// refused, saying what was found and what to pass instead.
#[test]
fn agent_from_header_takes_the_product() {
    let (dir, robots) = scratch_robots(
        "from-header",
        "User-agent: figtree\nDisallow: /fig\n\nUser-agent: Googlebot\nDisallow: /private\n\nUser-agent: MJ12bot\nDisallow: /\n",
    );
    let check = |dialect: &str, header: &str, url: &str| {
        robocc(
            &[
                "check",
                "--robots",
                &robots,
                "--dialect",
                dialect,
                "--agent-from-header",
                header,
                url,
            ],
            None,
        )
    };
    for dialect in ["draft1996", "robots2"] {
        let o = check(dialect, "FigTree/0.1 Robot libwww-perl/5.04", "/fig");
        assert_eq!(
            stdout(&o),
            "disallow\t/fig\n",
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for header in [
            "MJ12bot/v1.4.8",
            "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
        ] {
            let o = check(dialect, header, "/x");
            assert_eq!(
                stdout(&o),
                "disallow\t/x\n",
                "{header}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    let o = check(
        "rfc9309",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "/private",
    );
    assert_eq!(stdout(&o), "disallow\t/private\n");
    let o = check("rfc9309", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)", "/fig");
    assert_eq!(stdout(&o), "allow\t/fig\n", "GPTBot has no group here");
    let o = check(
        "rfc9309",
        "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
        "/x",
    );
    assert_exit_2(&o, "invalid agent product token \"MJ12bot\"");
    assert_exit_2(&o, "found in User-Agent header");
    assert_exit_2(&o, "pass --agent MJ");
    let o = check(
        "rfc9309",
        "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
        "/x",
    );
    assert_exit_2(&o, "no crawler product found");
    std::fs::remove_dir_all(&dir).ok();
}

/// A URL read from `--urls` is the same URL as the argument: only the line
/// break (LF, CRLF) is removed, so whitespace in it is matched (the audit's
/// `Disallow: /a $` and `/b<TAB>$` files disagreed between the two before)
/// and echoed as given; blank and comment lines are still skipped.
#[test]
fn url_lines_are_urls_as_given() {
    let (dir, robots) = scratch_robots(
        "url-lines",
        "User-agent: *\nDisallow: /a $\nDisallow: /b\t$\n",
    );
    let args = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "x",
            "http://h/a ",
            "http://h/b\t",
            "http://h/a",
        ],
        None,
    );
    assert_eq!(
        stdout(&args),
        "disallow\thttp://h/a \ndisallow\thttp://h/b\t\nallow\thttp://h/a\n"
    );
    let list = dir.join("urls.txt");
    std::fs::write(
        &list,
        "# list\n \t\n  # indented comment\nhttp://h/a \r\nhttp://h/b\t\nhttp://h/a",
    )
    .unwrap();
    let file = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "x",
            "--urls",
            list.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        stdout(&file),
        stdout(&args),
        "{}",
        String::from_utf8_lossy(&file.stderr)
    );
    let piped = robocc(
        &["check", "--robots", &robots, "--agent", "x"],
        Some("http://h/a \nhttp://h/b\t\r\nhttp://h/a\n"),
    );
    assert_eq!(stdout(&piped), stdout(&args));
    std::fs::remove_dir_all(&dir).ok();
}

/// No human-readable output passes on a byte a terminal acts on: draft1996
/// decodes `%0A` and `%1B` in the matched path, a robots.txt may hold an
/// escape byte in a pattern, a comment or a record; each is shown as `%XX`,
/// so one explanation keeps its lines. `check` echoes URLs as given, and
/// refuses (text output) an argument that would split its line.
#[test]
fn human_output_escapes_control_bytes() {
    let (dir, robots) = scratch_robots(
        "escapes",
        "User-agent: *\nDisallow: /a%0Ab\nDisallow: /e\x1b[31mx\nComment: hi\x1b[2J\nX-Thing: v\x1bw\n",
    );
    let clean = |o: &Output| {
        let out = stdout(o);
        assert!(
            !out.bytes().any(|b| b != b'\n' && (b < 0x20 || b == 0x7f)),
            "{out:?}"
        );
        out
    };
    for dialect in ["draft1996", "robots2", "rfc9309"] {
        let o = robocc(
            &[
                "explain",
                "--robots",
                &robots,
                "--dialect",
                dialect,
                "--agent",
                "x",
                "http://h/a%0Ab",
                "http://h/e%1B[31mx",
            ],
            None,
        );
        let out = clean(&o);
        assert!(
            out.contains("http://h/a%0Ab\n  verdict: disallow\n"),
            "{dialect}: {out}"
        );
        if dialect != "rfc9309" {
            assert!(
                out.contains("  matched path: /a%0Ab (draft mode"),
                "{dialect}: {out}"
            );
            assert!(
                out.contains("  matched path: /e%1B[31mx (draft mode"),
                "{dialect}: {out}"
            );
        }
        let o = robocc(
            &[
                "explain",
                "--robots",
                &robots,
                "--dialect",
                dialect,
                "--agent",
                "x",
                "http://h/e\x1b[31mx",
            ],
            None,
        );
        let out = clean(&o);
        assert!(out.contains("Disallow: /e%1B[31mx"), "{dialect}: {out}");
        if dialect == "robots2" {
            assert!(out.contains("comment: hi%1B[2J"), "{out}");
        }
    }
    let o = robocc(&["lint", "--robots", &robots], None);
    clean(&o);
    let policy = dir.join("e.policy");
    let p = policy.to_str().unwrap();
    let o = robocc(
        &["compile", "--robots", &robots, "--agent", "x", "-o", p],
        None,
    );
    assert!(o.status.success());
    let out = clean(&robocc(&["inspect", p], None));
    assert!(out.contains("X-Thing: v%1Bw"), "{out}");
    // check: the URL as given; JSON escapes it; a line break in an
    // argument cannot be one text line.
    let o = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "x",
            "http://h/e\x1b[31mx",
        ],
        None,
    );
    assert_eq!(stdout(&o), "disallow\thttp://h/e\x1b[31mx\n");
    let o = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "x",
            "http://h/a\nb",
        ],
        None,
    );
    assert_exit_2(&o, "URL argument 1 contains a line break");
    let o = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "x",
            "--format",
            "json",
            "http://h/a\nb\x1b",
        ],
        None,
    );
    assert_eq!(json_lines(&o)[0]["url"], "http://h/a\nb\x1b");
    assert!(stdout(&o).contains("a\\nb\\u001b"), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// explain says what happened in the draft's dialects: robots2's hackerbot
/// record (the spec's example) has its catch-all `Disallow: *` match
/// /index.html too, below the wildcard Allow; draft1996 picks one record
/// whose value *contains* the name (`newchives` for `chives`), not "groups
/// naming" it.
#[test]
fn explain_wording_in_the_draft_dialects() {
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("corpus/conformance/robots2.json")).unwrap(),
    )
    .unwrap();
    let (dir, site) = scratch_robots("wording", doc["cases"][0]["robots"].as_str().unwrap());
    let o = robocc(
        &[
            "explain",
            "--robots",
            &site,
            "--dialect",
            "robots2",
            "--agent",
            "hackerbot",
            "http://h/index.html",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(
        out.contains(
            "(a wildcard Allow: no Disallow other than the catch-all matched; the catch-all (line "
        ),
        "{out}"
    );
    assert!(
        out.contains(": Disallow: *) ranks below wildcard Allows)"),
        "{out}"
    );
    assert!(!out.contains("no Disallow matched"), "{out}");
    // The preference lines are read under rfc9309 only: not "none stated".
    assert!(
        out.contains("preferences: not read under the robots2 dialect"),
        "{out}"
    );
    let records = dir.join("records.txt");
    std::fs::write(
        &records,
        "User-agent: newchives\nDisallow: /a\n\nUser-agent: chives\nDisallow: /b\n",
    )
    .unwrap();
    let r = records.to_str().unwrap();
    for dialect in ["draft1996", "robots2"] {
        let out = stdout(&robocc(
            &[
                "explain",
                "--robots",
                r,
                "--dialect",
                dialect,
                "--agent",
                "chives",
                "/a",
            ],
            None,
        ));
        assert!(
            out.contains("groups: the record at line 1: the first whose User-agent value contains chives (1996 draft §3.2.1"),
            "{out}"
        );
        let out = stdout(&robocc(
            &[
                "explain",
                "--robots",
                r,
                "--dialect",
                dialect,
                "--agent",
                "zzz",
                "/a",
            ],
            None,
        ));
        assert!(
            out.contains("no record's User-agent value contains zzz and there is no * record"),
            "{out}"
        );
    }
    let out = stdout(&robocc(
        &["explain", "--robots", r, "--agent", "chives", "/a"],
        None,
    ));
    assert!(
        out.contains("groups: groups naming chives (starting at line 4)"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Only draft1996 has a /data.txt: a file named data.txt is read as one
/// there, with a note on stderr (the always-allowed path moves); rfc9309
/// and robots2 keep /robots.txt always allowed whatever the file's name,
/// and acap (no own-path allow) allows neither.
#[test]
fn data_txt_is_inferred_in_draft1996_only_and_said() {
    let dir = scratch("datatxt");
    let data_txt = dir.join("data.txt");
    std::fs::write(&data_txt, "User-agent: *\nDisallow: /\n").unwrap();
    let d = data_txt.to_str().unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--robots", d, "--agent", "other"];
        args.extend_from_slice(extra);
        args.extend([
            "http://www.fict.org/robots.txt",
            "http://www.fict.org/data.txt",
        ]);
        robocc(&args, None)
    };
    let o = check(&["--dialect", "acap"]);
    assert_eq!(
        stdout(&o),
        "disallow\thttp://www.fict.org/robots.txt\ndisallow\thttp://www.fict.org/data.txt\n"
    );
    for dialect in ["rfc9309", "robots2"] {
        let o = check(&["--dialect", dialect]);
        assert_eq!(
            stdout(&o),
            "allow\thttp://www.fict.org/robots.txt\ndisallow\thttp://www.fict.org/data.txt\n",
            "{dialect}"
        );
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains("data.txt"),
            "{dialect}"
        );
    }
    let o = check(&["--dialect", "draft1996"]);
    assert_eq!(
        stdout(&o),
        "disallow\thttp://www.fict.org/robots.txt\nallow\thttp://www.fict.org/data.txt\n"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("note: read as the 1996 draft's /data.txt"),
        "{err}"
    );
    // Asked for, it is not news.
    let o = check(&["--dialect", "draft1996", "--data-txt"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("note:"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `explain` compiles a cut file a second time, read whole, only up to
/// 2 MiB (issue 41, item 9: a 39 MB file took 3.0 GB there, a 127 MB one
/// 14 GB, and under a memory cap it aborted with exit 134). Under a 1 GB
/// address-space cap a 24 MB file is explained, with the reason the whole
/// reading is unknown; a file under the budget is still read whole.
#[test]
fn explain_reads_a_cut_file_whole_only_within_its_budget() {
    let mut body = String::from("User-agent: *\n");
    let mut i = 0;
    while body.len() < 24 << 20 {
        body.push_str(&format!("Disallow: /p{i}\n"));
        i += 1;
    }
    body.push_str("Allow: /late\n");
    let (dir, path) = scratch_robots("explain-budget", &body);
    let exe = env!("CARGO_BIN_EXE_robocc");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000 && exec '{exe}' explain --robots '{path}' --agent bot \
             https://a.example/late"
        ))
        .output()
        .unwrap();
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("the parse limit (--max-bytes) cut the file; it is 25165")
            && out.contains("explain reads at most 2097152 whole, so whether the cut rules decide this URL is unknown"),
        "{out}"
    );
    // Within the budget (a 700 KB file), the whole reading still says what
    // would decide.
    let cut = body[..700_000].rfind('\n').unwrap() + 1;
    let small = format!("{}Allow: /late\n", &body[..cut]);
    let small_path = dir.join("small.txt");
    std::fs::write(&small_path, small).unwrap();
    let o = robocc(
        &[
            "explain",
            "--robots",
            small_path.to_str().unwrap(),
            "--agent",
            "bot",
            "https://a.example/late",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("and that changes this answer: read whole, line "),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The conveniences a new user reached for (issue 41, item 19): `--robots
/// -`, `--user-agent`, `--agent '*'`, `--urls URL`, JSON's deciding pattern
/// and origin, `--summary`, and a word on raw non-ASCII URLs.
#[test]
fn conveniences_a_new_user_expects() {
    let body = "User-agent: *\nDisallow: /caf\u{e9}\nDisallow: /x\n";
    let (dir, path) = scratch_robots("conveniences", body);
    // The robots.txt from standard input, URLs as arguments.
    let o = robocc(
        &["check", "--robots", "-", "--agent", "bot", "https://a/x"],
        Some(body),
    );
    assert_eq!(stdout(&o), "disallow\thttps://a/x\n");
    // Standard input cannot hold both.
    let o = robocc(&["check", "--robots", "-", "--agent", "bot"], Some(body));
    assert_exit_2(&o, "cannot hold the URLs too");
    // --user-agent is --agent.
    let o = robocc(
        &[
            "check",
            "--robots",
            &path,
            "--user-agent",
            "bot",
            "https://a/x",
        ],
        None,
    );
    assert_eq!(stdout(&o), "disallow\thttps://a/x\n");
    let o = robocc(
        &["check", "--robots", &path, "--agent", "*", "https://a/x"],
        None,
    );
    assert_exit_2(&o, "pass any token the file does not name");
    let o = robocc(
        &[
            "check",
            "--robots",
            &path,
            "--agent",
            "bot",
            "--urls",
            "https://a/x",
        ],
        None,
    );
    assert_exit_2(&o, "give URLs as arguments instead");
    // JSON names the deciding pattern and its origin.
    let o = robocc(
        &[
            "check",
            "--robots",
            &path,
            "--agent",
            "bot",
            "--format",
            "json",
            "https://a/x",
            "https://a/y",
        ],
        None,
    );
    let lines = json_lines(&o);
    assert_eq!(lines[0]["pattern"], "/x");
    assert_eq!(lines[0]["origin"], "line");
    assert_eq!(lines[0]["rule_line"], 3);
    assert!(lines[1]["pattern"].is_null() && lines[1]["origin"].is_null());
    // A summary, and one warning for raw non-ASCII bytes.
    let o = robocc(
        &[
            "check",
            "--robots",
            &path,
            "--agent",
            "bot",
            "--summary",
            "https://a/caf\u{e9}",
            "https://a/caf%C3%A9",
            "https://a/caf\u{e9}/2",
        ],
        None,
    );
    assert_eq!(
        stdout(&o),
        "allow\thttps://a/caf\u{e9}\ndisallow\thttps://a/caf%C3%A9\nallow\thttps://a/caf\u{e9}/2\n"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("raw non-ASCII bytes").count(), 1, "{err}");
    assert!(
        err.contains("robocc: 3 verdicts: 2 allow, 1 disallow, 0 unknown"),
        "{err}"
    );
    let o = robocc(
        &[
            "explain",
            "--robots",
            &path,
            "--agent",
            "bot",
            "https://a/caf\u{e9}",
        ],
        None,
    );
    assert!(
        stdout(&o).contains("note: the path holds raw non-ASCII bytes"),
        "{}",
        stdout(&o)
    );
    // explain reads a URL list too.
    let o = robocc(
        &[
            "explain", "--robots", &path, "--agent", "bot", "--urls", "-",
        ],
        Some("https://a/x\n# skipped\n\nhttps://a/y\n"),
    );
    assert_eq!(
        stdout(&o).matches("  verdict: ").count(),
        2,
        "{}",
        stdout(&o)
    );
    // explain --store: each URL by its host's policy.
    let manifest = dir.join("m.jsonl");
    std::fs::write(
        &manifest,
        "{\"host\":\"a.ex\",\"status\":200,\"body\":\"User-agent: *\\nDisallow: /x\\n\"}\n",
    )
    .unwrap();
    let store = dir.join("s.store");
    let o = robocc(
        &[
            "store",
            "build",
            "--agent",
            "bot",
            "--manifest",
            manifest.to_str().unwrap(),
            "-o",
            store.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let o = robocc(
        &[
            "explain",
            "--store",
            store.to_str().unwrap(),
            "https://a.ex/x",
            "https://b.ex/",
            "/p",
        ],
        None,
    );
    let text = stdout(&o);
    assert!(
        text.starts_with(
            "host a.ex: fetched (status 200); its policy explains https://a.ex/x:\n\
             https://a.ex/x\n  verdict: disallow\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("https://b.ex/\n  verdict: unknown\n  host: not in the store"),
        "{text}"
    );
    assert!(
        text.contains("/p\n  verdict: unknown\n  host: none can be read"),
        "{text}"
    );
    // And as JSON: the deciding rule, the host record, or why there is none.
    let o = robocc(
        &[
            "explain",
            "--store",
            store.to_str().unwrap(),
            "--format",
            "json",
            "https://a.ex/x",
            "https://b.ex/",
        ],
        None,
    );
    let lines = json_lines(&o);
    assert_eq!(lines[0]["verdict"], "disallow");
    assert_eq!(lines[0]["rule"]["line"], 2);
    assert_eq!(lines[0]["rule"]["pattern"], "/x");
    assert_eq!(lines[0]["rule"]["origin"], "line");
    assert_eq!(lines[0]["host"], "a.ex");
    assert_eq!(lines[0]["source"], "fetched");
    assert_eq!(lines[0]["preferences"]["train-ai"], "unknown");
    assert_eq!(lines[1]["verdict"], "unknown");
    assert_eq!(lines[1]["source"], "not in store");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--compile-timeout` takes what Python's `compile_timeout` takes:
/// fractional seconds, 0 or inf for no limit; a negative number or NaN is
/// refused (issue 41: `0.5` was refused here and accepted by Python).
#[test]
fn compile_timeout_takes_fractional_seconds() {
    let (dir, robots) = scratch_robots("timeout", "User-agent: *\nDisallow: /x\n");
    let robots = robots.as_str();
    for t in ["0.5", "0", "inf", "30", "1e-3", "18446744073709551615"] {
        let o = robocc(
            &[
                "check",
                "--robots",
                robots,
                "--agent",
                "Bot",
                "--compile-timeout",
                t,
                "/x",
            ],
            None,
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(stdout(&o).starts_with("disallow"), "{t}: {}", stdout(&o));
    }
    for t in ["-1", "NaN", "half", ""] {
        let flag = format!("--compile-timeout={t}");
        let o = robocc(
            &["check", "--robots", robots, "--agent", "Bot", &flag, "/x"],
            None,
        );
        assert_exit_2(&o, "not a number of seconds ≥ 0 (0 or inf: no limit)");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--agent` given more than once (rfc9309): the groups naming any of the
/// agents, merged, on compile, check, explain, lint and store build; a
/// compiled policy or store answers for that set (in any order); the
/// dialects that read one robot's record, and `page`, refuse several.
#[test]
fn several_agents() {
    let body = "User-agent: Googlebot-Image\nDisallow: /img\nAllow: /img/logo\n\n\
                User-agent: Googlebot\nDisallow: /g\nAllow: /img/logo/big\n\n\
                User-agent: *\nDisallow: /\n";
    let (dir, robots) = scratch_robots("several-agents", body);
    let two = ["--agent", "Googlebot-Image", "--agent", "Googlebot"];
    let with = |head: &[&str], tail: &[&str]| -> Output {
        let args: Vec<&str> = head.iter().chain(&two).chain(tail).copied().collect();
        robocc(&args, None)
    };
    let urls = ["/img/x", "/img/logo/big", "/g", "/other"];
    let c = with(&["check", "--robots", &robots], &urls);
    assert_eq!(
        stdout(&c),
        "disallow\t/img/x\nallow\t/img/logo/big\ndisallow\t/g\nallow\t/other\n"
    );
    // Each alone reads its own group only.
    let one = robocc(
        &[
            "check",
            "--robots",
            &robots,
            "--agent",
            "Googlebot",
            "/img/x",
        ],
        None,
    );
    assert_eq!(stdout(&one), "allow\t/img/x\n");
    let e = with(&["explain", "--robots", &robots], &["/img/logo/big"]);
    let text = stdout(&e);
    assert!(
        text.contains("deciding rule: line 7: Allow: /img/logo/big"),
        "{text}"
    );
    assert!(
        text.contains("groups: groups naming Googlebot-Image or Googlebot (starting at line 1, 5)"),
        "{text}"
    );
    // The policy records the agents; checking it with them (in any order,
    // any case) is allowed, with another set refused.
    let policy = dir.join("p.policy");
    let policy = policy.to_str().unwrap();
    let o = with(&["compile", "--robots", &robots, "-o", policy], &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let i = robocc(&["inspect", policy], None);
    assert!(stdout(&i).contains("agent: Googlebot-Image,Googlebot (groups: named)"));
    let swapped = robocc(
        &[
            "check",
            "--policy",
            policy,
            "--agent",
            "googlebot",
            "--agent",
            "Googlebot-Image",
            "/img/x",
        ],
        None,
    );
    assert_eq!(stdout(&swapped), "disallow\t/img/x\n");
    assert_exit_2(
        &robocc(
            &[
                "check",
                "--policy",
                policy,
                "--agent",
                "Googlebot",
                "/img/x",
            ],
            None,
        ),
        "was compiled for agent Googlebot-Image,Googlebot, not Googlebot",
    );
    let l = with(&["lint", "--robots", &robots], &[]);
    assert!(l.status.success(), "{}", String::from_utf8_lossy(&l.stderr));
    // A store for the list.
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    std::fs::write(dir.join("bodies/example.com.txt"), body).unwrap();
    let store = dir.join("s.store");
    let store = store.to_str().unwrap();
    let bodies = dir.join("bodies");
    let b = with(
        &["store", "build", "-o", store],
        &[bodies.to_str().unwrap()],
    );
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let c = robocc(
        &[
            "check",
            "--store",
            store,
            "https://example.com/img/x",
            "https://example.com/other",
        ],
        None,
    );
    assert_eq!(
        stdout(&c),
        "disallow\thttps://example.com/img/x\nallow\thttps://example.com/other\n"
    );
    // One robot's record (the 1996 draft), and a page's META tags: one agent.
    for dialect in ["draft1996", "robots2", "acap"] {
        assert_exit_2(
            &with(
                &["check", "--robots", &robots, "--dialect", dialect],
                &["/x"],
            ),
            &format!(
                "--agent given 2 times: several agents (Googlebot-Image,Googlebot) have no \
                 meaning in dialect {dialect}"
            ),
        );
    }
    let html = dir.join("page.html");
    std::fs::write(&html, "<meta name=robots content=noindex>").unwrap();
    assert_exit_2(
        &with(
            &[
                "page",
                "--html",
                html.to_str().unwrap(),
                "--url",
                "https://example.com/",
            ],
            &[],
        ),
        "--agent given 2 times (Googlebot-Image,Googlebot)",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 46 on the command line: `--preference-grouping` (spec by default,
/// crawl as the option; refused with another dialect), a training token
/// under `*`, and RSL `License` records in `inspect` (text and JSON).
#[test]
fn preference_grouping_training_star_and_licenses() {
    let body = "License: https://example.com/license.xml\nUser-agent: *\n\
                Content-Usage: train-ai=n\n\nUser-agent: NewsBot\nAllow: /\n";
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check", "--robots", "-", "--agent", "NewsBot", "--usage", "train-ai",
        ];
        args.extend_from_slice(extra);
        args.push("/a");
        stdout(&robocc(&args, Some(body)))
    };
    assert!(check(&[]).contains("unknown"), "{}", check(&[]));
    let crawl = check(&["--preference-grouping", "crawl"]);
    assert!(crawl.contains("disallow"), "{crawl}");
    let o = robocc(
        &[
            "check",
            "--robots",
            "-",
            "--agent",
            "a",
            "--dialect",
            "draft1996",
            "--preference-grouping",
            "crawl",
            "/a",
        ],
        Some(body),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--preference-grouping applies to"));
    let dir = scratch("licenses");
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, body).unwrap();
    let policy = dir.join("p.policy");
    let (r, p) = (robots.to_str().unwrap(), policy.to_str().unwrap());
    let o = robocc(
        &["compile", "--robots", r, "--agent", "NewsBot", "-o", p],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&robocc(&["inspect", p], None));
    assert!(
        text.contains("license (line 1): https://example.com/license.xml"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&robocc(&["inspect", "--format", "json", p], None))).unwrap();
    assert_eq!(
        json["licenses"],
        serde_json::json!(["https://example.com/license.xml"])
    );
    assert_eq!(json["global_records"][0]["kind"], "license");
    assert_eq!(json["agent"], "NewsBot");
    // Google-Extended obeys `*` where no group names it.
    let star = "User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /private\n";
    let o = robocc(
        &[
            "check",
            "--robots",
            "-",
            "--agent",
            "Googlebot",
            "--training-agent",
            "Google-Extended",
            "--usage",
            "train-ai",
            "/private/x",
        ],
        Some(star),
    );
    assert!(stdout(&o).contains("disallow"), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}
