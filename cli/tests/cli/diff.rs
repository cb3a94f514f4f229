//! `robocc diff`: exit codes (0 same, 1 changed, 2 error), text and JSON.

use crate::common::{assert_exit, out, robocc, s, scratch};

#[test]
fn diff_exit_codes_and_formats() {
    let dir = scratch("diff");
    let old = dir.join("old.txt");
    let new = dir.join("new.txt");
    let same = dir.join("same.txt");
    std::fs::write(&old, "User-agent: *\nDisallow: /private/\n").unwrap();
    std::fs::write(
        &new,
        "User-agent: *\nDisallow: /private/\nAllow: /private/ok\nDisallow: /tmp\n",
    )
    .unwrap();
    std::fs::write(
        &same,
        "# reworded\nUSER-AGENT: *\nDISALLOW: /private/ # same\n",
    )
    .unwrap();
    let agent = ["--agent", "Googlebot"];

    let o = robocc(&[&["diff", s(&old), s(&same)][..], &agent].concat());
    assert_exit(&o, 0, "no URL changes verdict");
    assert_eq!(out(&o), "");

    let o = robocc(&[&["diff", s(&old), s(&new)][..], &agent].concat());
    assert_exit(&o, 1, "");
    let text = out(&o);
    assert_eq!(
        text,
        "allow → disallow  /tmp         (new line 4: Disallow: /tmp, was: no rule)\n\
         disallow → allow  /private/ok  (new line 3: Allow: /private/ok, was line 2: Disallow: /private/)\n"
    );

    // A compiled policy reads as its robots.txt does.
    let policy = dir.join("old.policy");
    let c = robocc(
        &[
            &["compile", "--robots", s(&old), "-o", s(&policy)][..],
            &agent,
        ]
        .concat(),
    );
    assert_exit(&c, 0, "");
    let o = robocc(
        &[
            &["diff", s(&policy), s(&new), "--format", "json"][..],
            &agent,
        ]
        .concat(),
    );
    assert_exit(&o, 1, "");
    let j: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(j["count"], 2);
    assert_eq!(j["usage"], "crawl");
    let first = &j["changes"][0];
    assert_eq!(first["from"], "allow");
    assert_eq!(first["to"], "disallow");
    assert_eq!(first["old_line"], serde_json::Value::Null);
    assert_eq!(first["new_line"], 4);
    assert_eq!(first["new_rule"], "Disallow: /tmp");
    assert_eq!(first["witness"], "/tmp");

    // Errors: a missing file, a budget too small, an agent the policy was
    // not compiled for.
    let o = robocc(&[&["diff", s(&old), s(&dir.join("nope.txt"))][..], &agent].concat());
    assert_exit(&o, 2, "nope.txt");
    let o = robocc(&[&["diff", s(&old), s(&new), "--max-pairs", "2"][..], &agent].concat());
    assert_exit(&o, 2, "--max-pairs");
    let o = robocc(&["diff", s(&policy), s(&new), "--agent", "Bingbot"]);
    assert_exit(&o, 2, "was compiled for agent");
}

/// OLD and NEW for two agents: `b` loses `Disallow: /b` and its ai-train
/// signal turns to yes; `a` keeps everything.
fn two_agents(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let old = dir.join("old.txt");
    let new = dir.join("new.txt");
    std::fs::write(
        &old,
        "User-agent: a\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\nContent-Signal: ai-train=no\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "User-agent: a\nDisallow: /a\n\nUser-agent: b\nContent-Signal: ai-train=yes\n",
    )
    .unwrap();
    (old, new)
}

#[test]
fn diff_usage_all_and_several_agents() {
    let dir = scratch("diff-usages");
    let (old, new) = two_agents(&dir);
    let o = robocc(&["diff", s(&old), s(&new), "--agent", "b", "--usage", "all"]);
    assert_exit(&o, 1, "");
    let text = out(&o);
    for usage in [
        "crawl: 1 change",
        "search: no change",
        "train-ai: 1 change",
        "ai-input: no change",
    ] {
        assert!(text.contains(usage), "{usage}: {text}");
    }
    let o = robocc(&[
        "diff",
        s(&old),
        s(&new),
        "--agent",
        "b",
        "--usage",
        "all",
        "--format",
        "json",
    ]);
    assert_exit(&o, 1, "");
    let j: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(j["count"], 2);
    assert_eq!(j["usages"]["train-ai"]["changes"][0]["to"], "allow");
    assert_eq!(j["usages"]["crawl"]["changes"][0]["witness"], "/b");
    // Repeated --agent: Google's merged reading, as check reads it (a's
    // group and b's together): b's deleted rule still changes /b.
    let o = robocc(&["diff", s(&old), s(&new), "--agent", "a", "--agent", "b"]);
    assert_exit(&o, 1, "");
    assert!(out(&o).contains("/b"), "{}", out(&o));
    let o = robocc(&["diff", s(&old), s(&new), "--agent", "a"]);
    assert_exit(&o, 0, "no URL changes verdict");
}

#[test]
fn diff_each_agent_reports_per_agent() {
    let dir = scratch("diff-each");
    let (old, new) = two_agents(&dir);
    let each = ["--each-agent", "b", "--each-agent", "a"];
    // Text: a heading per agent, in the order given.
    let o = robocc(&[&["diff", s(&old), s(&new)][..], &each].concat());
    assert_exit(&o, 1, "");
    let text = out(&o);
    let (b, a) = (text.find("b: 1 change\n"), text.find("a: no change\n"));
    assert!(b.is_some() && a.is_some() && b < a, "{text}");
    // JSON, with --usage all: each agent's report is what `--agent X`
    // alone reports (the single-agent path, compiled apart).
    let json = ["--usage", "all", "--format", "json"];
    let o = robocc(&[&["diff", s(&old), s(&new)][..], &each, &json].concat());
    assert_exit(&o, 1, "");
    let raw = out(&o);
    assert!(
        raw.find("\"b\":") < raw.find("\"a\":"),
        "agents in order: {raw}"
    );
    let j: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(j["count"], 2);
    for agent in ["a", "b"] {
        let alone = robocc(&[&["diff", s(&old), s(&new), "--agent", agent][..], &json].concat());
        let alone: serde_json::Value = serde_json::from_str(&out(&alone)).unwrap();
        assert_eq!(j["agents"][agent], alone, "{agent}");
    }
    // No agent changes: 0.
    let o = robocc(&["diff", s(&old), s(&new), "--each-agent", "a"]);
    assert_exit(&o, 0, "no URL changes verdict for any agent");
    assert_eq!(out(&o), "a: no change\n");
    // Refused: a compiled policy, stores.
    let policy = dir.join("old.policy");
    let c = robocc(&[
        "compile",
        "--robots",
        s(&old),
        "-o",
        s(&policy),
        "--agent",
        "a",
    ]);
    assert_exit(&c, 0, "");
    let o = robocc(&[&["diff", s(&policy), s(&new)][..], &each].concat());
    assert_exit(&o, 2, "--each-agent diffs robots.txt files");
    let o = robocc(&[&["diff", "--store", s(&old), "--store", s(&new)][..], &each].concat());
    assert_exit(&o, 2, "a store answers the one agent");
}

#[test]
fn diff_stores_lists_hosts_whose_answers_changed() {
    let dir = scratch("diff-stores");
    let build = |name: &str, lines: &str| {
        let manifest = dir.join(format!("{name}.jsonl"));
        std::fs::write(&manifest, lines).unwrap();
        let store = dir.join(format!("{name}.store"));
        let o = robocc(&[
            "store",
            "build",
            "--agent",
            "Googlebot",
            "-o",
            s(&store),
            "--manifest",
            s(&manifest),
        ]);
        assert_exit(&o, 0, "");
        store
    };
    let old = build(
        "old",
        "{\"host\": \"same.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"edited.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"reworded.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"gone.example\", \"status\": 404}\n\
         {\"host\": \"down.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"removed.example\", \"status\": 404}\n",
    );
    let new = build(
        "new",
        "{\"host\": \"same.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /x\\n\"}\n\
         {\"host\": \"edited.example\", \"status\": 200, \"body\": \"User-agent: *\\nDisallow: /y\\n\"}\n\
         {\"host\": \"reworded.example\", \"status\": 200, \"body\": \"# same\\nUSER-AGENT: *\\nDISALLOW: /x\\n\"}\n\
         {\"host\": \"gone.example\", \"status\": 410}\n\
         {\"host\": \"down.example\", \"status\": 503}\n\
         {\"host\": \"added.example\", \"status\": 404}\n",
    );
    let o = robocc(&[
        "diff",
        "--store",
        s(&old),
        "--store",
        s(&new),
        "--format",
        "json",
    ]);
    assert_exit(&o, 1, "");
    let j: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let hosts: Vec<(String, String)> = j["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["host"].as_str().unwrap().into(),
                h["change"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("added.example", "added"),
        ("down.example", "changed"),
        ("edited.example", "changed"),
        ("removed.example", "removed"),
    ]
    .iter()
    .map(|(h, c)| (h.to_string(), c.to_string()))
    .collect();
    assert_eq!(hosts, want);
    let edited = &j["hosts"][2];
    assert_eq!(edited["diff"]["count"], 2);
    assert_eq!(j["hosts"][1]["new"]["status"], 503);
    // The same store: nothing.
    let o = robocc(&["diff", "--store", s(&old), "--store", s(&old)]);
    assert_exit(&o, 0, "0 of 6 hosts changed");
    // One store only is an error.
    let o = robocc(&["diff", "--store", s(&old)]);
    assert_exit(&o, 2, "");
}
