//! `--each-agent` (issue 44): one policy answering each agent separately.
//! Every line is held to what `check --agent A` (one agent, its own
//! policy) prints for the same URL: the verdict, and in JSON the deciding
//! line and pattern; through `--robots`, a compiled `--policy` and a
//! `--store`, and with `--usage`.

use crate::common::{assert_exit, out, robocc, s, scratch};
use robocc_testkit::paths::root;

const AGENTS: &[&str] = &["GPTBot", "ClaudeBot", "CCBot", "Googlebot", "UnlistedBot"];

const URLS: &[&str] = &[
    "/",
    "/a",
    "/private/x",
    "https://example.com/search?q=1",
    "/wiki/Special:Random",
    "/w/index.php?title=x",
];

/// Files of corpus/real with named groups.
fn bodies() -> Vec<std::path::PathBuf> {
    [
        "texting_robots__twitter.robots.txt",
        "ropensci-robotstxt__robots_wikipedia.txt",
    ]
    .iter()
    .map(|n| root().join("corpus/real").join(n))
    .collect()
}

/// `robocc check ARGS… --agent A URLS` for each agent alone, as
/// `VERDICT<TAB>A<TAB>URL` lines in `--each-agent` order.
fn one_by_one(args: &[&str], usage: &str) -> String {
    let mut lines = vec![String::new(); URLS.len() * AGENTS.len()];
    for (a, agent) in AGENTS.iter().enumerate() {
        let mut argv = vec!["check", "--agent", agent, "--usage", usage];
        argv.extend_from_slice(args);
        argv.extend_from_slice(URLS);
        let o = robocc(&argv);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for (u, line) in out(&o).lines().enumerate() {
            let (verdict, url) = line.split_once('\t').unwrap();
            lines[u * AGENTS.len() + a] = format!("{verdict}\t{agent}\t{url}\n");
        }
    }
    lines.concat()
}

fn each_args() -> Vec<&'static str> {
    AGENTS.iter().flat_map(|a| ["--each-agent", *a]).collect()
}

fn each(args: &[&str], usage: &str) -> String {
    let mut argv = vec!["check", "--usage", usage];
    argv.extend(each_args());
    argv.extend_from_slice(args);
    argv.extend_from_slice(URLS);
    let o = robocc(&argv);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out(&o)
}

#[test]
fn each_agent_lines_match_one_agent_checks() {
    for body in bodies() {
        let robots = ["--robots", s(&body)];
        for usage in ["crawl", "train-ai"] {
            assert_eq!(
                each(&robots, usage),
                one_by_one(&robots, usage),
                "{body:?} {usage}"
            );
        }
    }
}

#[test]
fn each_agent_json_names_each_agents_rule() {
    let body = &bodies()[1];
    let mut argv = vec!["check", "--robots", s(body), "--format", "json"];
    argv.extend(each_args());
    argv.extend_from_slice(URLS);
    let o = robocc(&argv);
    let lines: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), URLS.len());
    for agent in AGENTS {
        let mut argv = vec![
            "check",
            "--robots",
            s(body),
            "--format",
            "json",
            "--agent",
            agent,
        ];
        argv.extend_from_slice(URLS);
        let alone = out(&robocc(&argv));
        for (each, one) in lines.iter().zip(alone.lines()) {
            let one: serde_json::Value = serde_json::from_str(one).unwrap();
            let mine = &each["agents"][*agent];
            for key in ["verdict", "rule_line", "pattern", "origin"] {
                assert_eq!(mine[key], one[key], "{agent} {key} {}", one["url"]);
            }
            assert_eq!(each["url"], one["url"]);
        }
    }
}

#[test]
fn compiled_policy_and_store_answer_each_agent() {
    let dir = scratch("compiled");
    let body = &bodies()[0];
    let policy = dir.join("p.policy");
    let mut argv = vec!["compile", "--robots", s(body), "-o", s(&policy), "--quiet"];
    argv.extend(each_args());
    assert_exit(&robocc(&argv), 0, "");
    let robots = ["--robots", s(body)];
    let want = one_by_one(&robots, "crawl");
    // The artifact answers every agent it was compiled for, unasked.
    let mut argv = vec!["check", "--policy", s(&policy)];
    argv.extend_from_slice(URLS);
    assert_eq!(out(&robocc(&argv)), want);
    // A subset, by name, in the order asked.
    let mut argv = vec![
        "check",
        "--policy",
        s(&policy),
        "--each-agent",
        "ccbot",
        "/",
    ];
    argv.truncate(argv.len());
    let o = out(&robocc(&argv));
    let line = want
        .lines()
        .find(|l| l.contains("\tCCBot\t/\n") || l.ends_with("\tCCBot\t/"))
        .unwrap();
    assert_eq!(o.trim_end(), line);
    // An agent it was not compiled for is refused.
    assert_exit(
        &robocc(&[
            "check",
            "--policy",
            s(&policy),
            "--each-agent",
            "Bingbot",
            "/",
        ]),
        2,
        "not Bingbot",
    );
    // A store of each-agent policies.
    let hosts = dir.join("hosts");
    std::fs::create_dir_all(&hosts).unwrap();
    std::fs::copy(body, hosts.join("example.com.txt")).unwrap();
    let store = dir.join("s.store");
    let mut argv = vec!["store", "build", "-o", s(&store), "--quiet", s(&hosts)];
    argv.extend(each_args());
    assert_exit(&robocc(&argv), 0, "");
    let mut argv = vec!["check", "--store", s(&store)];
    let urls: Vec<String> = URLS
        .iter()
        .map(|u| match u.strip_prefix('/') {
            Some(p) => format!("https://example.com/{p}"),
            None => u.to_string(),
        })
        .collect();
    argv.extend(urls.iter().map(String::as_str));
    let got = out(&robocc(&argv));
    let want_store: String = want
        .lines()
        .zip(
            urls.iter()
                .flat_map(|u| std::iter::repeat_n(u, AGENTS.len())),
        )
        .map(|(l, u)| {
            let mut f = l.split('\t');
            format!("{}\t{}\t{u}\n", f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(got, want_store);
}

#[test]
fn each_agent_refusals() {
    let body = &bodies()[0];
    assert_exit(
        &robocc(&[
            "check",
            "--robots",
            s(body),
            "--dialect",
            "acap",
            "--each-agent",
            "A",
            "/",
        ]),
        2,
        "--each-agent does not apply to acap",
    );
    assert_exit(
        &robocc(&[
            "check",
            "--robots",
            s(body),
            "--each-agent",
            "A",
            "--usage",
            "all",
            "/",
        ]),
        2,
        "give one usage",
    );
    assert_exit(
        &robocc(&["explain", "--robots", s(body), "--each-agent", "A", "/"]),
        2,
        "--each-agent applies to check, compile, diff and store build only",
    );
}

/// Commands that read one agent's policy refuse an each-agent one rather
/// than read it as its first agent's.
#[test]
fn one_agent_commands_refuse_each_agent_policies() {
    let dir = scratch("one-agent");
    let body = &bodies()[0];
    let policy = dir.join("p.policy");
    let mut argv = vec!["compile", "--robots", s(body), "-o", s(&policy), "--quiet"];
    argv.extend(each_args());
    assert_exit(&robocc(&argv), 0, "");
    for cmd in [
        vec!["explain", "--policy", s(&policy), "/"],
        vec!["diff", s(&policy), s(&policy)],
    ] {
        assert_exit(&robocc(&cmd), 2, "answers each of several agents");
    }
}

/// Where each of `names` first appears as a JSON key in `line`.
fn key_positions(line: &str, names: &[&str]) -> Vec<usize> {
    names
        .iter()
        .map(|n| {
            line.find(&format!("\"{n}\":"))
                .unwrap_or_else(|| panic!("{n} in {line}"))
        })
        .collect()
}

/// JSON `agents` objects keep the agents in the order given (the policy's
/// order, or `--each-agent`'s when a compiled policy is asked for some),
/// and `inspect --format json` lists each agent with its groups and
/// Crawl-delay.
#[test]
fn json_agents_keep_their_order_and_inspect_lists_each() {
    let dir = scratch("order");
    let robots = dir.join("robots.txt");
    std::fs::write(
        &robots,
        "User-agent: Zeta\nCrawl-delay: 3\nDisallow: /z\n\nUser-agent: Alpha\nDisallow: /a\n\n\
         User-agent: *\nCrawl-delay: 1\nDisallow: /x\n",
    )
    .unwrap();
    let order = ["Zeta", "Mid", "Alpha"];
    let mut argv = vec!["check", "--robots", s(&robots), "--format", "json"];
    argv.extend(order.iter().flat_map(|a| ["--each-agent", *a]));
    argv.push("/a");
    let line = out(&robocc(&argv));
    let at = key_positions(&line, &order);
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
    let policy = dir.join("p.policy");
    let mut argv = vec![
        "compile",
        "--robots",
        s(&robots),
        "-o",
        s(&policy),
        "--quiet",
    ];
    argv.extend(order.iter().flat_map(|a| ["--each-agent", *a]));
    assert_exit(&robocc(&argv), 0, "");
    let picked = ["Alpha", "Zeta"];
    let line = out(&robocc(&[
        "check",
        "--policy",
        s(&policy),
        "--format",
        "json",
        "--each-agent",
        "Alpha",
        "--each-agent",
        "Zeta",
        "/z",
    ]));
    let at = key_positions(&line, &picked);
    assert!(at[0] < at[1], "{line}");
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["agents"]["Zeta"]["verdict"], "disallow");
    assert_eq!(v["agents"]["Alpha"]["verdict"], "allow");
    let o = robocc(&["inspect", s(&policy), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let agents: Vec<(String, serde_json::Value)> = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent"].as_str().unwrap().to_string(),
                a["crawl_delay_ms"].clone(),
            )
        })
        .collect();
    assert_eq!(
        agents,
        [
            ("Zeta".to_string(), serde_json::json!(3000)),
            ("Mid".to_string(), serde_json::json!(1000)),
            ("Alpha".to_string(), serde_json::Value::Null),
        ]
    );
    let text = out(&robocc(&["inspect", s(&policy)]));
    assert!(
        text.contains("Zeta (groups: ") && text.contains("crawl-delay 3000 ms"),
        "{text}"
    );
    assert!(text.contains("records: the first agent's (Zeta)"), "{text}");
}
