//! `diff` is exact: edits that keep every verdict report no change; every
//! witness, checked against both policies, shows its change; every change
//! that generated URLs show is listed (brute force over
//! `robocc_testkit::urlgen`).

use robocc_compiler::{compile, diff, CompileOptions, Diff, DiffError, DiffOptions};
use robocc_compiler::{Budget, Registers};
use robocc_engine::{Dialect, Policy, RuleId, UrlMode, Usage};
use robocc_testkit::paths::{root, shared_real};
use robocc_testkit::urlgen;
use std::collections::HashSet;

fn bytes(body: &[u8]) -> robocc_engine::AlignedBytes {
    bytes_with(body, &CompileOptions::default())
}

fn bytes_with(body: &[u8], options: &CompileOptions) -> robocc_engine::AlignedBytes {
    compile(body, "Googlebot", options)
        .expect("compiles")
        .to_bytes()
}

/// The readings the deletion test runs in: Google's (bytes as given),
/// RFC 9309's encoding, and the 1996 draft's decoding.
pub(crate) fn readings() -> Vec<CompileOptions> {
    vec![
        CompileOptions::default(),
        CompileOptions {
            url_mode: UrlMode::Rfc,
            ..CompileOptions::default()
        },
        CompileOptions {
            dialect: Dialect::Draft1996,
            ..CompileOptions::default()
        },
    ]
}

/// The tests' budget: enough for single automata of the corpus.
const TEST_PAIRS: usize = 300_000;

/// The budget of the sampled corpus tests: a split policy over it costs
/// a second, not tens (the full run keeps [`TEST_PAIRS`]).
fn corpus_pairs() -> usize {
    if full() {
        TEST_PAIRS
    } else {
        30_000
    }
}

/// `diff` within the tests' budget; `None` when over it for a policy split
/// over several automata (their joint states are what splitting avoided)
/// or with a register automaton (the product tells apart registers that
/// the automaton's states share): the product may be too large, and says
/// so.
fn within(old: &Policy<'_>, new: &Policy<'_>, what: &str) -> Option<Diff> {
    let options = DiffOptions {
        max_pairs: corpus_pairs(),
        ..DiffOptions::default()
    };
    match diff(old, new, &options) {
        Ok(d) => Some(d),
        Err(DiffError::TooManyPairs { .. })
            if [old, new]
                .iter()
                .any(|p| p.header().automata > 1 || p.sizes().register_automata > 0) =>
        {
            None
        }
        Err(e) => panic!("{what}: {e}: {:?} {:?}", old.sizes(), new.sizes()),
    }
}

/// Both policies, read from their artifacts.
fn policies<'a>(
    old: &'a robocc_engine::AlignedBytes,
    new: &'a robocc_engine::AlignedBytes,
) -> (Policy<'a>, Policy<'a>) {
    (
        Policy::from_bytes(old).unwrap(),
        Policy::from_bytes(new).unwrap(),
    )
}

fn run(old: &[u8], new: &[u8]) -> Diff {
    let (a, b) = (bytes(old), bytes(new));
    let (a, b) = policies(&a, &b);
    diff(&a, &b, &DiffOptions::default())
        .unwrap_or_else(|e| panic!("{e}: {:?} {:?}", a.sizes(), b.sizes()))
}

/// The same rules, written otherwise: each run of Allow/Disallow lines
/// reversed, keys recased, comments added.
fn rewritten(body: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    // A byte order mark stays first.
    let text = text.trim_start_matches('\u{feff}');
    let is_rule = |l: &str| {
        let k = l
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        k == "allow" || k == "disallow"
    };
    let recase = |l: &str| match l.split_once(':') {
        Some((k, v)) => {
            let k: String = k
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect();
            format!("{k}:{v}")
        }
        None => l.to_string(),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec!["# rewritten: same rules".to_string()];
    let mut run: Vec<String> = Vec::new();
    for l in lines {
        if is_rule(l) && !l.contains('#') {
            run.push(format!("{} # a comment", recase(l)));
            continue;
        }
        out.extend(run.drain(..).rev());
        out.push(if l.trim_start().starts_with('#') {
            l.to_string()
        } else {
            recase(l)
        });
    }
    out.extend(run.drain(..).rev());
    (out.join("\n") + "\n").into_bytes()
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = robocc_testkit::corpus::txt_files(&root().join("corpus/real"));
    if let Some(shared) = shared_real() {
        // A sample of the shared corpus: every 97th file (every 13th
        // with ROBOCC_FULL=1; the test suite's time is the bound).
        let stride = if full() { 13 } else { 97 };
        files.extend(
            robocc_testkit::corpus::txt_files(&shared)
                .into_iter()
                .step_by(stride),
        );
    }
    files
}

fn full() -> bool {
    std::env::var_os("ROBOCC_FULL").is_some()
}

/// The corpus files a test reads by default: those below `bytes` (the
/// large ones are split over several automata, whose products cost
/// seconds each in a debug build), every `stride`th of them; all the files
/// with ROBOCC_FULL=1.
fn sampled(bytes: usize, stride: usize) -> Vec<std::path::PathBuf> {
    let files = corpus_files();
    if full() {
        return files;
    }
    files
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| (m.len() as usize) < bytes))
        .step_by(stride)
        .collect()
}

/// Files whose rules fit the single-deletion test's time.
fn small(body: &[u8]) -> bool {
    body.len() < 2500 && std::str::from_utf8(body).is_ok()
}

/// Most rules deleted (one at a time) per file, spread over the file
/// (every rule with ROBOCC_FULL=1).
fn deletions() -> usize {
    if full() {
        usize::MAX
    } else {
        2
    }
}

#[test]
fn same_rules_written_otherwise_change_nothing() {
    let mut checked = 0;
    let mut skipped = 0;
    for path in sampled(4000, 1) {
        let body = std::fs::read(&path).unwrap();
        if std::str::from_utf8(&body).is_err() {
            continue;
        }
        let what = path.display().to_string();
        let (old, new) = (bytes(&body), bytes(&rewritten(&body)));
        let (old, new) = policies(&old, &new);
        let (Some(same), Some(d)) = (within(&old, &old, &what), within(&old, &new, &what)) else {
            skipped += 1;
            continue;
        };
        assert!(same.changes.is_empty(), "{what}: itself: {same:?}");
        assert!(d.changes.is_empty(), "{what}: rewritten: {:?}", d.changes);
        checked += 1;
    }
    assert!(checked >= 40, "{checked} files");
    assert!(
        skipped * 10 <= checked,
        "{skipped} over the budget, {checked} done"
    );
}

type Key = (bool, Option<RuleId>);

/// Checks `d` (OLD → NEW, crawl) against both policies by brute force.
fn verify(old: &Policy<'_>, new: &Policy<'_>, d: &Diff, extra: &[Vec<u8>], what: &str) {
    verify_usage(old, new, d, extra, what, Usage::Crawl);
}

/// Checks `d` (OLD → NEW on `usage`) against both policies by brute force.
fn verify_usage(
    old: &Policy<'_>,
    new: &Policy<'_>,
    d: &Diff,
    extra: &[Vec<u8>],
    what: &str,
    usage: Usage,
) {
    let listed: HashSet<(Key, Key)> = d
        .changes
        .iter()
        .map(|c| ((c.old.allowed, c.old.rule), (c.new.allowed, c.new.rule)))
        .collect();
    assert_eq!(
        listed.len(),
        d.changes.len(),
        "{what}: a class listed twice"
    );
    for c in &d.changes {
        assert_eq!(c.witness.first(), Some(&b'/'), "{what}");
        let mut url = b"https://example.com".to_vec();
        url.extend_from_slice(&c.witness);
        let (vo, vn) = (old.check_usage(&url, usage), new.check_usage(&url, usage));
        assert_eq!(
            ((vo.allowed, vo.rule), (vn.allowed, vn.rule)),
            ((c.old.allowed, c.old.rule), (c.new.allowed, c.new.rule)),
            "{what}: witness {} does not show its change",
            c.witness_text()
        );
        assert_ne!(c.old.allowed, c.new.allowed, "{what}");
    }
    let patterns: Vec<Vec<u8>> = (0..old.rule_count())
        .filter_map(|i| old.rule(RuleId::new(i as u32)))
        .map(|r| r.pattern.to_vec())
        .collect();
    let urls = urlgen::workload(45, patterns.iter().map(|p| p.as_slice()), 2000);
    for u in urls.iter().chain(extra) {
        let (vo, vn) = (old.check_usage(u, usage), new.check_usage(u, usage));
        if vo.allowed != vn.allowed {
            assert!(
                listed.contains(&((vo.allowed, vo.rule), (vn.allowed, vn.rule))),
                "{what}: {} changes ({vo:?} → {vn:?}) but its class is not listed",
                String::from_utf8_lossy(u)
            );
        }
    }
}

#[test]
fn single_rule_deletions_match_brute_force() {
    let mut diffs = 0;
    let mut changes = 0;
    let mut skipped = 0;
    for path in sampled(2500, 3)
        .into_iter()
        .filter(|p| std::fs::read(p).is_ok_and(|b| small(&b)))
    {
        let body = std::fs::read(&path).unwrap();
        let text = String::from_utf8(body.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for options in readings() {
            let old_bytes = bytes_with(&body, &options);
            let old = Policy::from_bytes(&old_bytes).unwrap();
            let rules: Vec<usize> = (0..lines.len())
                .filter(|&i| {
                    let k = lines[i].split(':').next().unwrap_or("");
                    let k = k.trim().to_ascii_lowercase();
                    k == "allow" || k == "disallow"
                })
                .collect();
            let step = rules.len().div_ceil(deletions()).max(1);
            for &i in rules.iter().step_by(step) {
                let mut cut = lines.clone();
                cut.remove(i);
                let new_body = (cut.join("\n") + "\n").into_bytes();
                let new_bytes = bytes_with(&new_body, &options);
                let new = Policy::from_bytes(&new_bytes).unwrap();
                let what = format!(
                    "{} without line {} ({:?})",
                    path.display(),
                    i + 1,
                    options.url_mode
                );
                let Some(d) = within(&old, &new, &what) else {
                    skipped += 1;
                    continue;
                };
                verify(&old, &new, &d, &[], &what);
                // And back: the deletion undone.
                let back = within(&new, &old, &what).expect("within budget both ways");
                verify(&new, &old, &back, &[], &what);
                assert_eq!(d.changes.len(), back.changes.len(), "{what}");
                diffs += 1;
                changes += d.changes.len();
            }
        }
    }
    assert!(diffs >= if full() { 100 } else { 40 }, "{diffs} deletions");
    assert!(
        skipped * 10 <= diffs,
        "{skipped} over the budget, {diffs} done"
    );
    assert!(changes > 0);
}

#[test]
fn witnesses_are_shortest_and_readable() {
    let d = run(
        b"User-agent: *\nDisallow: /private/\n",
        b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nDisallow: /*.pdf$\n",
    );
    type Shown<'a> = (String, &'a str, &'a str, Option<u32>, Option<u32>);
    let mut seen: Vec<Shown> = d
        .changes
        .iter()
        .map(|c| {
            (
                c.witness_text(),
                c.old.word(),
                c.new.word(),
                c.old.line,
                c.new.line,
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("/.pdf".into(), "allow", "disallow", None, Some(4)),
            ("/private/ok".into(), "disallow", "allow", Some(2), Some(3)),
        ]
    );
}

#[test]
fn encoded_modes_give_witnesses_a_url_holds() {
    // The rfc URL mode reads `/a{b}` as `/a%7Bb%7D`; the witness is what a
    // URL holds.
    let opts = CompileOptions {
        url_mode: UrlMode::Rfc,
        ..CompileOptions::default()
    };
    let c = |b: &[u8]| compile(b, "Googlebot", &opts).unwrap().to_bytes();
    let (a, b) = (
        c(b"User-agent: *\nDisallow: /x\n"),
        c(b"User-agent: *\nDisallow: /x\nDisallow: /a{b}*\n"),
    );
    let (a, b) = policies(&a, &b);
    let d = diff(&a, &b, &DiffOptions::default()).unwrap();
    verify(&a, &b, &d, &[b"/a{b}".to_vec()], "rfc9309");
    assert_eq!(d.changes.len(), 1);
    let w = d.changes[0].witness_text();
    assert!(w.bytes().all(|b| b.is_ascii_graphic()), "{w}");
    assert!(
        !b.check(format!("https://example.com{w}").as_bytes())
            .allowed
    );
}

#[test]
fn over_the_budget_is_an_error() {
    let (a, b) = (
        bytes(b"User-agent: *\nDisallow: /abc\n"),
        bytes(b"User-agent: *\nDisallow: /abd\n"),
    );
    let (a, b) = policies(&a, &b);
    let tight = DiffOptions {
        max_pairs: 2,
        ..DiffOptions::default()
    };
    assert_eq!(
        diff(&a, &b, &tight),
        Err(DiffError::TooManyPairs { limit: 2 })
    );
    assert_eq!(
        diff(&a, &b, &DiffOptions::default()).unwrap().changes.len(),
        2
    );
}

/// `body` without its `k`th Allow/Disallow line (of `n`, spread over the
/// file); `None` past the last.
fn without_rule(body: &str, k: usize, n: usize) -> Option<Vec<u8>> {
    let lines: Vec<&str> = body.lines().collect();
    let rules: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let key = lines[i].split(':').next().unwrap_or("");
            matches!(
                key.trim().to_ascii_lowercase().as_str(),
                "allow" | "disallow"
            )
        })
        .collect();
    let step = rules.len().div_ceil(n).max(1);
    let &cut = rules.iter().step_by(step).nth(k)?;
    let kept: Vec<&str> = (0..lines.len())
        .filter(|&i| i != cut)
        .map(|i| lines[i])
        .collect();
    Some((kept.join("\n") + "\n").into_bytes())
}

/// Many `/*word` rules: the lowering keeps the best match in a register.
fn scanning_rules() -> String {
    let mut body = String::from("User-agent: *\nDisallow: /private/\n");
    for i in 0..40 {
        body.push_str(&format!("Disallow: /*word{i}\nAllow: /*word{i}/ok$\n"));
    }
    body
}

fn lowered(body: &[u8], registers: Registers) -> robocc_engine::AlignedBytes {
    let options = CompileOptions {
        budget: Budget {
            registers,
            ..Budget::default()
        },
        ..CompileOptions::default()
    };
    bytes_with(body, &options)
}

/// The classes of a diff, as keys.
fn class_keys(d: &Diff) -> HashSet<(Key, Key)> {
    d.changes
        .iter()
        .map(|c| ((c.old.allowed, c.old.rule), (c.new.allowed, c.new.rule)))
        .collect()
}

#[test]
fn register_automata_diff_within_the_budget_as_plain_ones_do() {
    // Register automata (and policies split over several automata) once
    // made the product tell apart registers that no further byte could
    // make matter. Their diffs now fit the tests' budget, and agree with
    // the same rules lowered without registers: an oracle that shares no
    // register with what it checks.
    let options = DiffOptions {
        max_pairs: TEST_PAIRS,
        ..DiffOptions::default()
    };
    // A few of the corpus files lowered so (all with ROBOCC_FULL=1): each
    // costs seconds in a debug build.
    let most = if full() { usize::MAX } else { 1 };
    let mut bodies: Vec<(String, String)> = vec![("scanning rules".into(), scanning_rules())];
    // By default the smallest such file.
    let mut files = corpus_files();
    if !full() {
        files.sort_by_key(|p| std::fs::metadata(p).map_or(u64::MAX, |m| m.len()));
    }
    let registered = files.into_iter().filter_map(|path| {
        let body = String::from_utf8(std::fs::read(&path).ok()?).ok()?;
        let b = bytes(body.as_bytes());
        let p = Policy::from_bytes(&b).ok()?;
        (p.sizes().register_automata > 0 || p.header().automata > 1)
            .then(|| (path.display().to_string(), body))
    });
    bodies.extend(registered.take(most));
    let (mut checked, mut diffed, mut over) = (0, 0, 0);
    for (what, body) in &bodies {
        let old_auto = lowered(body.as_bytes(), Registers::Auto);
        let old_plain = lowered(body.as_bytes(), Registers::Never);
        let (oa, op) = policies(&old_auto, &old_plain);
        match diff(&oa, &oa, &options) {
            Ok(same) => assert!(same.changes.is_empty(), "{what}: {:?}", same.changes),
            Err(DiffError::TooManyPairs { .. }) => {
                // Still too large for the tests' budget (split policies
                // whose automata keep each other alive): counted below.
                over += 1;
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        }
        for k in 0..2 {
            let Some(cut) = without_rule(body, k, 2) else {
                continue;
            };
            let what = format!("{what}, rule {k} of 2 deleted");
            let new_auto = lowered(&cut, Registers::Auto);
            let new_plain = lowered(&cut, Registers::Never);
            let (na, np) = policies(&new_auto, &new_plain);
            let d = diff(&oa, &na, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
            verify(&oa, &na, &d, &[], &what);
            diffed += 1;
            if let Ok(plain) = diff(&op, &np, &options) {
                assert_eq!(class_keys(&d), class_keys(&plain), "{what}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 1, "{checked} compared with the plain lowering");
    assert!(
        over * 2 <= diffed,
        "{over} files over the budget, {diffed} diffs"
    );
}

#[test]
fn every_usage_matches_brute_force() {
    let old = "User-agent: *\nContent-Signal: search=yes, ai-train=no\nDisallow: /private/\n\
               Content-Usage: /docs/ train-ai=y\nAllow: /private/ok\n";
    let new = "User-agent: *\nContent-Signal: search=yes, ai-train=yes, ai-input=no\n\
               Disallow: /private/\nContent-Usage: /docs/ train-ai=n\n";
    let (a, b) = (bytes(old.as_bytes()), bytes(new.as_bytes()));
    let (a, b) = policies(&a, &b);
    let mut changed = 0;
    for &usage in &[Usage::Crawl, Usage::Search, Usage::TrainAi, Usage::AiInput] {
        let d = diff(
            &a,
            &b,
            &DiffOptions {
                usage,
                ..DiffOptions::default()
            },
        )
        .unwrap();
        let extra: Vec<Vec<u8>> = ["/", "/docs/x", "/private/ok", "/private/x", "/other"]
            .iter()
            .map(|p| format!("https://example.com{p}").into_bytes())
            .collect();
        verify_usage(&a, &b, &d, &extra, usage.name(), usage);
        changed += usize::from(!d.changes.is_empty());
    }
    // Crawl (the Allow removed), train-ai and ai-input change.
    assert!(changed >= 3, "{changed} usages changed");
}

/// A small store of `hosts`: (host, status, body).
fn store(hosts: &[(String, u16, Vec<u8>)]) -> robocc_engine::Store {
    let inputs = hosts.iter().map(|(host, status, body)| {
        Ok(robocc_store::HostInput {
            host: host.clone(),
            status: *status,
            body: (*status == 200).then(|| body.clone()),
            ..robocc_store::HostInput::default()
        })
    });
    let (bytes, _) = robocc_store::StoreBuilder::new("Googlebot")
        .build(inputs)
        .expect("builds");
    robocc_engine::Store::from_slice(&bytes).expect("opens")
}

#[test]
fn store_diff_matches_per_host_brute_force() {
    use robocc_compiler::diff::{diff_stores, HostChange};
    let files: Vec<Vec<u8>> = corpus_files()
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| small(b))
        .take(24)
        .collect();
    assert!(files.len() >= 8, "{} files", files.len());
    // Host i: file i % n. NEW deletes a rule of every third file, drops
    // host 0, adds a host, turns host 1 unreachable and host 2's 404 into
    // a 410 (no verdict changes: both allow everything).
    let n = files.len();
    let old_hosts: Vec<(String, u16, Vec<u8>)> = (0..3 * n)
        .map(|i| {
            let status = if i == 2 { 404 } else { 200 };
            (format!("host{i}.example"), status, files[i % n].clone())
        })
        .collect();
    let mut new_hosts: Vec<(String, u16, Vec<u8>)> = old_hosts[1..]
        .iter()
        .map(|(h, status, body)| {
            let i: usize = h[4..h.find('.').unwrap()].parse().unwrap();
            let body = if (i % n) % 3 == 0 {
                without_rule(&String::from_utf8_lossy(body), 0, 1).unwrap_or(body.clone())
            } else {
                body.clone()
            };
            let status = match i {
                1 => 503,
                2 => 410,
                _ => *status,
            };
            (h.clone(), status, body)
        })
        .collect();
    new_hosts.push(("added.example".into(), 200, files[1].clone()));
    let (old, new) = (store(&old_hosts), store(&new_hosts));
    let d = diff_stores(&old, &new, &[Usage::Crawl], TEST_PAIRS).expect("diffs");
    let listed: std::collections::HashMap<&str, &HostChange> = d
        .hosts
        .iter()
        .map(|h| (h.key.as_str(), &h.change))
        .collect();
    assert!(matches!(
        listed.get("host0.example"),
        Some(HostChange::Removed(_))
    ));
    assert!(matches!(
        listed.get("added.example"),
        Some(HostChange::Added(_))
    ));
    assert!(
        !listed.contains_key("host2.example"),
        "404 → 410 changes no verdict"
    );
    // Every pair diffed once.
    let pairs: HashSet<_> = d.pairs.iter().map(|p| (p.old, p.new)).collect();
    assert_eq!(pairs.len(), d.pairs.len());
    let mut changed = 0;
    for (host, _, _) in &old_hosts[1..] {
        let (po, pn) = (
            old.policy_for(format!("https://{host}/").as_bytes())
                .unwrap()
                .unwrap(),
            new.policy_for(format!("https://{host}/").as_bytes())
                .unwrap()
                .unwrap(),
        );
        let patterns: Vec<Vec<u8>> = (0..po.rule_count())
            .filter_map(|i| po.rule(RuleId::new(i as u32)))
            .map(|r| r.pattern.to_vec())
            .collect();
        let urls = urlgen::workload(7, patterns.iter().map(|p| p.as_slice()), 300);
        let shows = urls
            .iter()
            .any(|u| po.check(u).allowed != pn.check(u).allowed);
        match listed.get(host.as_str()) {
            Some(HostChange::Changed { pair, .. }) => {
                changed += 1;
                let p = &d.pairs[*pair];
                let (_, pd) = &p.by_usage[0];
                assert!(!pd.changes.is_empty(), "{host}");
                // Its witnesses, checked through the stores, show the change.
                for c in &pd.changes {
                    let url = format!("https://{host}{}", c.witness_text());
                    let (vo, vn) = (
                        old.check(url.as_bytes()).unwrap().unwrap(),
                        new.check(url.as_bytes()).unwrap().unwrap(),
                    );
                    assert_eq!(
                        (vo.allowed, vn.allowed),
                        (c.old.allowed, c.new.allowed),
                        "{url}"
                    );
                }
                let d = diff(&po, &pn, &DiffOptions::default()).unwrap();
                verify(&po, &pn, &d, &urls, host);
            }
            Some(other) => panic!("{host}: {other:?}"),
            None => assert!(
                !shows,
                "{host}: a verdict changes but the host is not listed"
            ),
        }
    }
    assert!(changed >= 3, "{changed} hosts changed");
    assert!(listed.contains_key("host1.example"), "200 → 503");
}
