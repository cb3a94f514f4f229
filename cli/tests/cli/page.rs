//! `robocc page` and `robocc lint --html` as a user runs them: the
//! interface of issue 17 (output lines, JSON sources, exit codes, refusals).

use crate::common::{self, err, out, scratch};
use std::path::PathBuf;

fn robocc(args: &[&str]) -> (i32, String, String) {
    let o = common::robocc(args);
    (o.status.code().unwrap_or(-1), out(&o), err(&o))
}

fn write(dir: &std::path::Path, name: &str, body: &str) -> String {
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

#[test]
fn page_command() {
    let dir = scratch("robocc-page-cli");
    let html = write(
        &dir,
        "p.html",
        "<html><head><!-- <meta name=robots content=nofollow> -->\n<meta content=noindex name=robots>\n<meta name=searchbot content=\"ACAP allow-preserve\"></head>\n<body><div class=the-acap:disallow-present-snippet>x</div></body></html>",
    );
    let headers = write(
        &dir,
        "h.txt",
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Robots-Tag: searchbot: noarchive\r\n",
    );
    let robots = write(&dir, "robots.txt", "User-agent: *\nDisallow: /private\n");
    let url = "https://example.com/a.html";

    // Every usage, one line each.
    let (code, out, _) = robocc(&[
        "page",
        "--html",
        &html,
        "--agent",
        "searchbot",
        "--url",
        url,
    ]);
    assert_eq!(code, 0);
    // 14 ACAP usages and the three preference channels.
    assert_eq!(out.lines().count(), 17);
    assert!(
        out.ends_with("search\tunknown\ntrain-ai\tunknown\nai-input\tunknown\n"),
        "{out}"
    );
    assert!(
        out.contains("index\tdisallow\n") && out.contains("follow\tallow\n"),
        "{out}"
    );
    assert!(out.contains("preserve\tallow\n") && out.contains("present-snippet\tdisallow\n"));

    // One usage: VERDICT<TAB>URL; the header's noarchive conflicts with the
    // named permission: most restrictive.
    let (code, out, _) = robocc(&[
        "page",
        "--html",
        &html,
        "--headers",
        &headers,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--usage",
        "preserve",
    ]);
    assert_eq!(
        (code, out.as_str()),
        (0, "disallow\thttps://example.com/a.html\n")
    );

    // JSON: the deciding META and its byte offset, the element span.
    let (code, out, _) = robocc(&[
        "page",
        "--html",
        &html,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--usage",
        "index",
        "--format",
        "json",
        "--robots",
        &robots,
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let index = &v["usages"]["index"];
    assert_eq!(index["verdict"], "disallow");
    assert_eq!(index["from"], "page");
    assert_eq!(index["source"]["kind"], "meta");
    let body = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        index["source"]["offset"],
        body.find("<meta content").unwrap()
    );
    assert_eq!(index["robots_txt"]["verdict"], "allow");
    let e = &v["elements"][0];
    assert_eq!(e["usage"], "present-snippet");
    let (s, t) = (
        e["start"].as_u64().unwrap() as usize,
        e["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &body[s..t],
        "<div class=the-acap:disallow-present-snippet>x</div>"
    );

    // robots.txt forbids crawling: crawl stays disallowed, said on stderr.
    let (code, out, err) = robocc(&[
        "page",
        "--html",
        &html,
        "--agent",
        "searchbot",
        "--url",
        "https://example.com/private/x",
        "--robots",
        &robots,
        "--usage",
        "crawl",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "disallow\thttps://example.com/private/x\n");
    assert!(err.contains("prohibits crawling"), "{err}");

    // The page's disallow-other does not concern what an acap robots.txt
    // permits for the URL (2.2.8's NOTE): as `check` answers the robots.txt
    // with the page's statement added.
    let other_page = write(
        &dir,
        "o.html",
        "<META name=\"robots\" content=\"ACAP disallow-other\">",
    );
    let allow = write(
        &dir,
        "allow.txt",
        "ACAP-crawler: *\nACAP-allow-crawl: /\nACAP-allow-index: /\n",
    );
    let equiv = write(
        &dir,
        "equiv.txt",
        "ACAP-crawler: *\nACAP-allow-crawl: /\nACAP-allow-index: /\nACAP-disallow-other: /a.html\n",
    );
    let (code, out, err) = robocc(&[
        "page",
        "--html",
        &other_page,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--robots",
        &allow,
        "--dialect",
        "acap",
    ]);
    assert_eq!(code, 0, "{err}");
    for u in [
        "crawl",
        "index",
        "follow",
        "preserve",
        "present-snippet",
        "other",
    ] {
        let (code, check, err) = robocc(&[
            "check",
            "--robots",
            &equiv,
            "--dialect",
            "acap",
            "--agent",
            "searchbot",
            "--usage",
            u,
            url,
        ]);
        assert_eq!(code, 0, "{err}");
        let want = check.split('\t').next().unwrap();
        assert!(
            out.contains(&format!("\n{u}\t{want}\n")) || out.starts_with(&format!("{u}\t{want}\n")),
            "{u}: check says {want}; page:\n{out}"
        );
    }
    assert!(
        out.starts_with("crawl\tallow\nfollow\tdisallow\nindex\tallow\n"),
        "{out}"
    );
    let (_, out, _) = robocc(&[
        "page",
        "--html",
        &other_page,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--robots",
        &allow,
        "--dialect",
        "acap",
        "--usage",
        "index",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let index = &v["usages"]["index"];
    assert_eq!(
        (
            &index["verdict"],
            &index["from"],
            &index["page"],
            &index["page_other_set_aside"]
        ),
        (
            &"allow".into(),
            &"robots.txt".into(),
            &"disallow".into(),
            &true.into()
        )
    );

    // Refusals: exit 2 and what to type.
    let (code, _, err) = robocc(&[
        "page",
        "--html",
        &html,
        "--agent",
        "a",
        "--url",
        url,
        "--dialect",
        "acap",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--robots FILE"), "{err}");
    let (code, _, err) = robocc(&[
        "page", "--html", &html, "--agent", "a", "--url", url, "--now", "soon",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--now 20"), "{err}");
    let (code, _, _) = robocc(&[
        "page", "--html", &html, "--agent", "a", "--url", url, "--robots", &robots, "--policy",
        &robots,
    ]);
    assert_eq!(code, 2);
    let (code, _, err) = robocc(&["page", "--html", &html, "--url", url]);
    assert_eq!(code, 2);
    assert!(err.contains("--agent"), "{err}");

    // --policy: a compiled policy; --purpose must be the one it was
    // compiled for (it also selects the page's purpose patterns).
    let acap = write(
        &dir,
        "acap.txt",
        "ACAP-crawler: *\nACAP-usage-purpose: news\nACAP-disallow-index: /\n",
    );
    let policy = dir.join("acap.policy").display().to_string();
    let (code, _, err) = robocc(&[
        "compile",
        "--robots",
        &acap,
        "--agent",
        "searchbot",
        "--dialect",
        "acap",
        "--purpose",
        "news",
        "-o",
        &policy,
    ]);
    assert_eq!(code, 0, "{err}");
    let news_page = write(
        &dir,
        "n.html",
        "<meta name=robots content=\"ACAP news allow-present\">",
    );
    let (code, out, err) = robocc(&[
        "page",
        "--html",
        &news_page,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--policy",
        &policy,
        "--purpose",
        "news",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("index\tdisallow\n") && out.contains("present-snippet\tallow\n"),
        "{out}"
    );
    let (code, _, err) = robocc(&[
        "page",
        "--html",
        &news_page,
        "--agent",
        "searchbot",
        "--url",
        url,
        "--policy",
        &policy,
        "--purpose",
        "web",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("compiled for purposes [news]"), "{err}");

    // lint --html.
    let lint_page = write(
        &dir,
        "l.html",
        "<meta name=robots content=\"ACAP allow-index\">\n<meta name=robots content=\"ACAP disallow-index\">\n<meta name=\"Googlebot/2.1\" content=noindex>",
    );
    let (code, out, _) = robocc(&["lint", "--html", &lint_page]);
    assert_eq!(code, 0);
    assert!(
        out.contains(":1: warning: page-conflict:") || out.contains(":2: warning: page-conflict:"),
        "{out}"
    );
    assert!(
        out.contains(":3: warning: page-name-never-matches:"),
        "{out}"
    );
    let (code, _, err) = robocc(&["lint"]);
    assert_eq!(code, 2);
    assert!(err.contains("--html PAGE.html"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 18 at page level: the preference channels through `robocc page`,
/// with the Content-Usage header, noai, TDMRep's three levels and the
/// site's robots.txt; JSON lists every statement that spoke.
#[test]
fn page_preferences() {
    let dir = scratch("robocc-page-pref");
    let html = write(
        &dir,
        "p.html",
        "<html><head><meta name=robots content=noai><meta name=tdm-reservation content=0></head></html>",
    );
    let headers = write(
        &dir,
        "h.txt",
        "HTTP/1.1 200 OK\nContent-Usage: search=y\ntdm-reservation: 1\n",
    );
    let tdmrep = write(
        &dir,
        "tdmrep.json",
        r#"[{"location": "/a/", "tdm-reservation": 1}]"#,
    );
    let robots = write(
        &dir,
        "robots.txt",
        "User-agent: *\nAllow: /\nContent-Signal: search=no, ai-input=yes\n",
    );
    let url = "https://example.com/a/x.html";
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "page",
            "--html",
            &html,
            "--headers",
            &headers,
            "--agent",
            "bot",
            "--url",
            url,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        robocc(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // search: the page's y and robots.txt's no: disallow wins.
    let (code, out, err) = run(&["--robots", &robots, "--usage", "search"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "disallow\thttps://example.com/a/x.html\n"),
        "{err}"
    );
    // ai-input: robots.txt's yes and the page's noai: disallow.
    let (_, out, _) = run(&["--robots", &robots, "--usage", "ai-input"]);
    assert!(out.starts_with("disallow\t"), "{out}");
    // train-ai, JSON: the file's 1 and the header's 1 are superseded by the
    // META's 0; noai still disallows; every statement is listed.
    let (code, out, err) = run(&[
        "--tdmrep", &tdmrep, "--usage", "train-ai", "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = &v["usages"]["train-ai"];
    assert_eq!(t["verdict"], "disallow");
    assert_eq!(t["source"]["kind"], "meta");
    assert_eq!(t["written"], "noai");
    let listed: Vec<(String, String, bool)> = t["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["source"]["kind"].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
                s["superseded"].as_bool().unwrap(),
            )
        })
        .collect();
    let want = [
        ("tdmrep", "disallow", true),
        ("header", "disallow", true),
        ("meta", "disallow", false),
        ("meta", "allow", false),
    ];
    assert_eq!(
        listed,
        want.map(|(a, b, c)| (a.to_string(), b.to_string(), c)),
        "{out}"
    );
    // No statement at all: unknown.
    let bare = write(&dir, "bare.html", "<html></html>");
    let (_, out, _) = robocc(&[
        "page", "--html", &bare, "--agent", "bot", "--url", url, "--usage", "train-ai",
    ]);
    assert_eq!(out, "unknown\thttps://example.com/a/x.html\n");
    // A tdmrep.json that is not one: exit 2 and what to give.
    let (code, _, err) = run(&["--tdmrep", &robots]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not JSON") && err.contains("tdmrep.json"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A line break in a value echoed into line-oriented output would add a
/// line of its own (issue 41): `page --url` refuses it in text output, as
/// `check` does, and `lint` shows a file name with one escaped.
#[test]
fn line_breaks_do_not_inject_output_lines() {
    let dir = scratch("robocc-page-cli-lines");
    let html = write(&dir, "p.html", "<meta name=robots content=noindex>");
    let url = "https://example.com/a\nallow\thttps://example.com/b";
    for usage in ["index", "all"] {
        let (code, out, err) = robocc(&[
            "page", "--html", &html, "--agent", "bot", "--url", url, "--usage", usage,
        ]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains("line break"), "{err}");
    }
    let (code, out, _) = robocc(&[
        "page", "--html", &html, "--agent", "bot", "--url", url, "--usage", "index", "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "{out}");
    let named = write(
        &dir,
        "a\nb.html",
        "<meta name=robots content=\"ACAP allow-zz\">",
    );
    let (code, out, _) = robocc(&["lint", "--html", &named]);
    assert_eq!(code, 0);
    assert!(out.contains("a%0Ab.html:1:"), "{out}");
    assert!(out.lines().all(|l| l.contains(".html:")), "{out}");
}

/// `--headers` keeps only the headers `page` reads, at most 1,000 of them,
/// and says how many it left out (issue 41: every line was kept, ~32 bytes
/// per byte of input); unreadable lines are named ten at most, then counted.
#[test]
fn headers_kept_are_bounded_and_said() {
    let dir = scratch("robocc-page-cli-headers");
    let html = write(&dir, "p.html", "<p>x</p>");
    let mut h = String::from("HTTP/1.1 200 OK\r\n");
    for i in 0..5_000 {
        h.push_str(&format!("X-Other-{i}: v\r\n"));
    }
    for _ in 0..1_000 {
        h.push_str("X-Robots-Tag: nosnippet\r\n");
    }
    h.push_str("X-Robots-Tag: noindex\r\nX-Robots-Tag: noarchive\r\n");
    for _ in 0..20 {
        h.push_str("junk\r\n");
    }
    let headers = write(&dir, "h.txt", &h);
    let (code, out, err) = robocc(&[
        "page",
        "--html",
        &html,
        "--headers",
        &headers,
        "--agent",
        "bot",
        "--url",
        "https://a/",
        "--usage",
        "index",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "allow\thttps://a/\n");
    assert!(
        err.contains("the first 1000 are read, 2 more are not"),
        "{err}"
    );
    assert_eq!(
        err.matches("not a `Name: value` header line").count(),
        10,
        "{err}"
    );
    assert!(err.contains("10 more lines"), "{err}");
}

/// A tdmrep.json of 10,000 broken rules names the first 20 findings and
/// counts the rest (issue 41: 10,000 warnings were printed).
#[test]
fn tdmrep_warnings_are_capped_and_counted() {
    let dir = scratch("robocc-page-cli-tdmrep");
    let html = write(&dir, "p.html", "<p>x</p>");
    let rules: Vec<String> = (0..10_000)
        .map(|i| format!("{{\"location\": \"/{i}\"}}"))
        .collect();
    let tdmrep = write(&dir, "tdmrep.json", &format!("[{}]", rules.join(",")));
    let (code, _, err) = robocc(&[
        "page",
        "--html",
        &html,
        "--tdmrep",
        &tdmrep,
        "--agent",
        "bot",
        "--url",
        "https://a/",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("has no \"tdm-reservation\"").count(),
        20,
        "{err}"
    );
    assert!(err.contains("9980 more findings not shown"), "{err}");
}
