//! `robocc survey` (issue 49): the rows of a store equal those of the same
//! manifest compiled on the fly; each host's crawl cells are what
//! `check --robots BODY --agent A` prints; statuses get their classes;
//! what it refuses.

use crate::common::{assert_exit, robocc, s, scratch};

const AGENTS: &[&str] = &["GPTBot", "CCBot", "Googlebot"];

const BODIES: &[(&str, &str)] = &[
    (
        "ai-out.example",
        "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n",
    ),
    ("open.example", "User-agent: *\nDisallow:\n"),
    (
        "quoted.example",
        "User-agent: CCBot\nAllow: /$\nDisallow: /\nSitemap: https://quoted.example/a,b.xml\n",
    ),
];

fn each_args() -> Vec<&'static str> {
    AGENTS.iter().flat_map(|a| ["--each-agent", *a]).collect()
}

/// A manifest of the bodies and three statuses.
fn manifest(dir: &std::path::Path) -> std::path::PathBuf {
    let mut lines: Vec<String> = BODIES
        .iter()
        .map(|(h, b)| serde_json::json!({"host": h, "status": 200, "body": b}).to_string())
        .collect();
    for (h, status) in [
        ("gone.example", 404),
        ("down.example", 503),
        ("nowhere.example", 0),
    ] {
        lines.push(serde_json::json!({"host": h, "status": status}).to_string());
    }
    let m = dir.join("m.jsonl");
    std::fs::write(&m, lines.join("\n") + "\n").unwrap();
    m
}

fn survey(args: &[&str]) -> std::process::Output {
    let mut argv = vec!["survey"];
    argv.extend(each_args());
    argv.extend_from_slice(args);
    robocc(&argv)
}

#[test]
fn store_and_manifest_rows_agree_with_check() {
    let dir = scratch("rows");
    let m = manifest(&dir);
    let st = dir.join("s.store");
    let mut build = vec!["store", "build", "-q", "-o", s(&st), "--manifest", s(&m)];
    build.extend(each_args());
    assert_exit(&robocc(&build), 0, "");
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let paths = ["--path", "/", "--path", "/private/x"];
    let o = survey(&[&["--store", s(&st), "-o", s(&a)][..], &paths].concat());
    assert_exit(&o, 0, "GPTBot\tall\t6\t");
    let o = survey(&[&["--manifest", s(&m), "-q", "-o", s(&b)][..], &paths].concat());
    assert_exit(&o, 0, "");
    let csv = std::fs::read_to_string(&a).unwrap();
    assert_eq!(csv, std::fs::read_to_string(&b).unwrap());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[..3], ["host", "status", "outcome"]);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut rows = 0;
    for line in lines {
        rows += 1;
        // No field of these rows holds a comma (sitemaps are counted, not
        // written), so a plain split reads them.
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), header.len(), "{line}");
        let host = f[0];
        for agent in AGENTS {
            let class = f[col(&format!("{agent}:crawl-class"))];
            match BODIES.iter().find(|(h, _)| *h == host) {
                Some((_, body)) => {
                    let robots = dir.join(format!("{host}.txt"));
                    std::fs::write(&robots, body).unwrap();
                    for p in ["/", "/private/x"] {
                        let o = robocc(&["check", "--robots", s(&robots), "--agent", agent, p]);
                        let want = String::from_utf8_lossy(&o.stdout);
                        let want = want.split('\t').next().unwrap();
                        assert_eq!(
                            f[col(&format!("{agent}:crawl:{p}"))],
                            want,
                            "{host} {agent} {p}"
                        );
                    }
                    let expected = match (host, *agent) {
                        ("ai-out.example", "GPTBot") => "all-disallowed",
                        ("ai-out.example", _) => "partly",
                        ("open.example", _) => "all-allowed",
                        ("quoted.example", "CCBot") => "partly",
                        ("quoted.example", _) => "all-allowed",
                        _ => unreachable!(),
                    };
                    assert_eq!(class, expected, "{host} {agent}");
                }
                None => {
                    let expected = if host == "gone.example" {
                        "all-allowed"
                    } else {
                        "all-disallowed"
                    };
                    assert_eq!(class, expected, "{host} {agent}");
                }
            }
        }
        if host == "quoted.example" {
            assert_eq!(f[col("sitemaps")], "1");
        }
    }
    assert_eq!(rows, 6);
    // JSON lines: one object per host.
    let j = dir.join("s.jsonl");
    assert_exit(
        &survey(&["--store", s(&st), "--format", "jsonl", "-q", "-o", s(&j)]),
        0,
        "",
    );
    let text = std::fs::read_to_string(&j).unwrap();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["agents"].as_array().unwrap().len(), AGENTS.len());
    }
    assert_eq!(text.lines().count(), 6);
}

#[test]
fn refusals() {
    let dir = scratch("refusals");
    let m = manifest(&dir);
    let st = dir.join("s.store");
    let build = [
        "store",
        "build",
        "-q",
        "-o",
        s(&st),
        "--manifest",
        s(&m),
        "--each-agent",
        "GPTBot",
    ];
    assert_exit(&robocc(&build), 0, "");
    let out = dir.join("o.csv");
    // Agents the store's policies do not answer.
    assert_exit(
        &robocc(&[
            "survey",
            "--store",
            s(&st),
            "--each-agent",
            "CCBot",
            "-o",
            s(&out),
        ]),
        2,
        "do not answer agent \"CCBot\"",
    );
    assert!(!out.exists());
    // No agents.
    assert_exit(
        &robocc(&["survey", "--store", s(&st), "-o", s(&out)]),
        2,
        "--each-agent",
    );
    // -o: never the input, never a directory.
    assert_exit(
        &robocc(&[
            "survey",
            "--store",
            s(&st),
            "--each-agent",
            "GPTBot",
            "-o",
            s(&st),
        ]),
        2,
        "the command's input",
    );
    assert_exit(
        &robocc(&[
            "survey",
            "--store",
            s(&st),
            "--each-agent",
            "GPTBot",
            "-o",
            s(&dir),
        ]),
        2,
        "is a directory",
    );
    // A probe path must be a path.
    assert_exit(
        &robocc(&[
            "survey",
            "--store",
            s(&st),
            "--each-agent",
            "GPTBot",
            "--path",
            "x",
            "-o",
            s(&out),
        ]),
        2,
        "does not start with '/'",
    );
}
