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
