//! Page-level permissions (issue 17): the cases of
//! corpus/conformance/page.json (every example of ACAP 1.1 Part 2 and each
//! rule, expected verdicts written from the spec text), and robustness over
//! the shared corpus's HTML pages and hostile HTML.

use robocc_testkit::paths::{root, shared_real};

use robocc_compiler::{compile, CompileOptions, Dialect, InputKind};
use robocc_engine::{PolicyFile, Usage};
use robocc_page::tdmrep::Tdmrep;
use robocc_page::{
    combine, parse_date, PageDiagKind, PageOptions, PageRules, PageVerdict, Source, MAX_DIAGS,
    MAX_ELEMENTS,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageFile {
    format: String,
    dialect: String,
    cases: Vec<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    spec: String,
    agent: String,
    url: String,
    html: Option<String>,
    html_hex: Option<String>,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default)]
    purposes: Vec<String>,
    now: Option<String>,
    robots: Option<String>,
    robots_dialect: Option<DialectName>,
    /// `--training-agent` tokens for `robots`.
    #[serde(default)]
    training_agents: Vec<String>,
    /// The site's tdmrep.json, as its text.
    tdmrep: Option<String>,
    /// Every page-level preference statement read, in order: (usage,
    /// verdict, kind, superseded).
    signals: Option<Vec<(String, Expect, String, bool)>>,
    page: BTreeMap<String, Expect>,
    element_aware: Option<BTreeMap<String, Expect>>,
    reasons: Option<BTreeMap<String, String>>,
    qualifiers: Option<BTreeMap<String, Vec<String>>>,
    elements: Option<Vec<(String, String, Expect, String)>>,
    findings: Option<Vec<String>>,
    acap_version: Option<String>,
    #[serde(rename = "final")]
    final_: Option<BTreeMap<String, Expect>>,
    crawl_prohibited_by_site: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Allow,
    Disallow,
    Unspecified,
    /// A final preference channel nothing spoke of.
    Unknown,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum DialectName {
    Rfc9309,
    Acap,
}

fn expect_of(v: PageVerdict) -> Expect {
    match v {
        PageVerdict::Allow => Expect::Allow,
        PageVerdict::Disallow => Expect::Disallow,
        PageVerdict::Unspecified => Expect::Unspecified,
    }
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn usage(name: &str, case: &str) -> Usage {
    name.parse()
        .unwrap_or_else(|e| panic!("case {case}: {name:?}: {e}"))
}

/// Runs one case; returns its failures.
fn run(case: &Case) -> Vec<String> {
    let mut fails = Vec::new();
    let html = match (&case.html, &case.html_hex) {
        (Some(h), None) => h.as_bytes().to_vec(),
        (None, Some(h)) => hex(h),
        _ => return vec!["needs exactly one of html and html_hex".into()],
    };
    let now = case.now.as_deref().map(|n| parse_date(n).expect("now"));
    let tdmrep = case
        .tdmrep
        .as_ref()
        .map(|t| Tdmrep::parse(t.as_bytes()).expect("tdmrep.json parses"));
    let page = PageRules::read(
        &html,
        case.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        &PageOptions {
            agent: &case.agent,
            url: &case.url,
            purposes: &case.purposes,
            now,
            head_only: false,
            tdmrep: tdmrep.as_ref(),
        },
    );
    for &u in Usage::ALL {
        let want = case
            .page
            .get(u.name())
            .copied()
            .unwrap_or(Expect::Unspecified);
        let got = expect_of(page.verdict(u));
        if got != want {
            fails.push(format!(
                "page {}: got {got:?}, want {want:?} ({:?})",
                u.name(),
                page.decision(u)
            ));
        }
    }
    for k in case.page.keys() {
        usage(k, &case.name);
    }
    if let Some(ea) = &case.element_aware {
        for (k, want) in ea {
            let got = expect_of(page.decision(usage(k, &case.name)).element_aware);
            if got != *want {
                fails.push(format!("element-aware {k}: got {got:?}, want {want:?}"));
            }
        }
    }
    if let Some(rs) = &case.reasons {
        for (k, want) in rs {
            let got = page.decision(usage(k, &case.name)).reason.name();
            if got != want {
                fails.push(format!("reason {k}: got {got}, want {want}"));
            }
        }
    }
    if let Some(qs) = &case.qualifiers {
        for (k, want) in qs {
            let got = &page.decision(usage(k, &case.name)).qualifiers;
            if got != want {
                fails.push(format!("qualifiers {k}: got {got:?}, want {want:?}"));
            }
        }
    }
    if let Some(es) = &case.elements {
        let got: Vec<(String, String, Expect, String)> = page
            .elements
            .iter()
            .map(|e| {
                (
                    e.tag.clone(),
                    e.usage.name().to_string(),
                    if e.allowed {
                        Expect::Allow
                    } else {
                        Expect::Disallow
                    },
                    String::from_utf8_lossy(&html[e.start..e.end]).into_owned(),
                )
            })
            .collect();
        if &got != es {
            fails.push(format!("elements: got {got:?}, want {es:?}"));
        }
    }
    if let Some(fs) = &case.findings {
        for f in fs {
            if !page.diagnostics.iter().any(|d| d.kind.name() == f) {
                fails.push(format!("no finding {f}: {:?}", page.diagnostics));
            }
        }
    }
    if let Some(want) = &case.signals {
        let got: Vec<(String, Expect, String, bool)> = page
            .signals
            .iter()
            .map(|s| {
                (
                    s.usage.name().to_string(),
                    if s.allowed {
                        Expect::Allow
                    } else {
                        Expect::Disallow
                    },
                    s.kind.name().to_string(),
                    s.superseded,
                )
            })
            .collect();
        if &got != want {
            fails.push(format!("signals: got {got:?}, want {want:?}"));
        }
    }
    if let Some(v) = &case.acap_version {
        let got = page.acap_version.map(|(n, m)| format!("{n}.{m}"));
        if got.as_deref() != Some(v.as_str()) {
            fails.push(format!("acap_version: got {got:?}, want {v}"));
        }
    }
    let file = case.robots.as_ref().map(|r| {
        let options = CompileOptions {
            dialect: match case.robots_dialect {
                Some(DialectName::Acap) => Dialect::Acap,
                _ => Dialect::Rfc9309,
            },
            purposes: case.purposes.clone(),
            training_agents: case.training_agents.clone(),
            ..CompileOptions::default()
        };
        let compiled = compile(r.as_bytes(), &case.agent, &options).expect("robots compiles");
        PolicyFile::from_slice(&compiled.to_bytes()).expect("loads")
    });
    let policy = file.as_ref().map(PolicyFile::policy);
    let combined = combine(&page, policy.as_ref(), case.url.as_bytes());
    if let Some(fin) = &case.final_ {
        for (k, want) in fin {
            let f = combined.get(usage(k, &case.name));
            let got = match (f.known, f.allowed) {
                (false, _) => Expect::Unknown,
                (true, true) => Expect::Allow,
                (true, false) => Expect::Disallow,
            };
            if got != *want {
                fails.push(format!("final {k}: got {got:?}, want {want:?} ({f:?})"));
            }
        }
    }
    let want = case.crawl_prohibited_by_site.unwrap_or(false);
    if combined.crawl_prohibited_by_site != want {
        fails.push(format!("crawl_prohibited_by_site: want {want}"));
    }
    fails
}

#[test]
fn page_conformance_cases() {
    let path = root().join("corpus/conformance/page.json");
    let doc: PageFile = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(doc.format.starts_with("robocc conformance cases v1"));
    assert_eq!(doc.dialect, "page");
    let mut names = std::collections::HashSet::new();
    let mut failures = Vec::new();
    for (i, v) in doc.cases.into_iter().enumerate() {
        let case: Case = serde_json::from_value(v).unwrap_or_else(|e| panic!("case #{i}: {e}"));
        assert!(
            names.insert(case.name.clone()),
            "{}: name used twice",
            case.name
        );
        assert!(!case.spec.is_empty(), "{}: empty spec", case.name);
        for f in run(&case) {
            failures.push(format!("{}: {f}", case.name));
        }
    }
    assert!(names.len() >= 60, "{} cases", names.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn read_bounded(html: &[u8], what: &str, limit: Duration) -> PageRules {
    let t = Instant::now();
    let page = PageRules::from_html(html, [("X-Robots-Tag", "noindex")], "bot", "http://a/");
    let took = t.elapsed();
    assert!(took < limit, "{what}: {took:?}");
    assert!(page.elements.len() <= MAX_ELEMENTS, "{what}");
    assert!(page.diagnostics.len() <= MAX_DIAGS + 1, "{what}");
    assert!(page.bytes_read <= html.len());
    for e in &page.elements {
        assert!(e.start <= e.end && e.end <= html.len(), "{what}: {e:?}");
    }
    // The header always counts.
    assert_eq!(page.verdict(Usage::Index), PageVerdict::Disallow, "{what}");
    page
}

/// Debug builds are slow; the bound is generous, and the point is that it
/// is linear (no quadratic blow-up on nesting or repetition).
const BOUND: Duration = Duration::from_secs(60);

#[test]
fn shared_corpus_html_pages() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not present: skipped");
        return;
    };
    let mut pages = 0;
    let mut metas = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() {
            continue;
        }
        let body = std::fs::read(&path).unwrap();
        if robocc_compiler::input::read(&body).kind != InputKind::Html {
            continue;
        }
        pages += 1;
        let page = read_bounded(&body, &path.display().to_string(), BOUND);
        metas += page.metas_in_body;
        // Head-only reading reads a prefix and never more.
        let head = PageRules::read(
            &body,
            [],
            &PageOptions {
                agent: "bot",
                url: "http://a/",
                purposes: &[],
                now: None,
                head_only: true,
                tdmrep: None,
            },
        );
        assert!(head.bytes_read <= page.bytes_read);
    }
    eprintln!("{pages} HTML pages; {metas} robots META tags after the head");
    assert!(
        pages >= 100,
        "only {pages} HTML pages found in {}",
        dir.display()
    );
}

#[test]
fn hostile_html() {
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // 10 MB of markup with a META at the end.
    let mut big = b"<html><head></head><body>".to_vec();
    while big.len() < 10_000_000 {
        big.extend_from_slice(b"<div class=c><p>text &amp; <a href=/x>link</a></p></div>\n");
    }
    big.extend_from_slice(b"<meta name=robots content=nofollow></body></html>");
    cases.push(("10 MB", big));
    // Deep nesting of elements that carry ACAP classes (each one tracked).
    let mut deep = Vec::new();
    for _ in 0..200_000 {
        deep.extend_from_slice(b"<div class=the-acap:disallow-index>");
    }
    cases.push(("deep ACAP nesting", deep));
    let mut deep = Vec::new();
    for _ in 0..200_000 {
        deep.extend_from_slice(b"<span><b>");
    }
    cases.push(("deep nesting", deep));
    // Many META tags and many bad ones (diagnostics capped).
    let mut metas = Vec::new();
    for i in 0..100_000 {
        metas.extend_from_slice(
            format!("<meta name=robots content=\"bogus{i} noindex\">").as_bytes(),
        );
    }
    cases.push(("100k META", metas));
    cases.push((
        "unterminated comment",
        b"<!-- <meta name=robots content=nofollow>".repeat(100_000),
    ));
    cases.push((
        "unterminated tag",
        [
            b"<meta name=robots content=\"".as_slice(),
            &[b'a'; 5_000_000],
        ]
        .concat(),
    ));
    // Many open ACAP elements, then many end tags of their name: each end
    // tag must cost O(1), not O(open elements).
    let mut closes = b"<div class=the-acap:allow-index>".repeat(MAX_ELEMENTS);
    closes.extend_from_slice(&b"</div>".repeat(1_000_000));
    cases.push(("open elements then end tags", closes));
    // Distinct permissions without end (qualifiers differ): capped.
    let mut perms = Vec::new();
    for i in 0..50_000 {
        perms.extend_from_slice(
            format!("<meta name=robots content=\"ACAP allow-follow max-length={i}\">").as_bytes(),
        );
    }
    perms.extend_from_slice(b"<meta name=robots content=\"ACAP disallow-follow\">");
    cases.push(("50k distinct permissions", perms));
    cases.push(("NULs", vec![0u8; 3_000_000]));
    cases.push((
        "invalid UTF-8",
        (0..3_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 | 0x80)
            .collect(),
    ));
    cases.push(("angle brackets", b"<<<</</<!<!-<?".repeat(300_000)));
    cases.push(("empty", Vec::new()));
    for (what, html) in &cases {
        let page = read_bounded(html, what, BOUND);
        if *what == "10 MB" {
            assert_eq!(page.verdict(Usage::Follow), PageVerdict::Disallow);
        }
        if *what == "50k distinct permissions" {
            // The prohibition after the limit is still read: a conflict.
            assert_eq!(page.verdict(Usage::Follow), PageVerdict::Disallow);
            assert!(page.qualifiers.len() <= robocc_page::MAX_QUALIFIERS);
        }
        if *what == "open elements then end tags" {
            assert!(page.elements.iter().all(|e| e.closed));
        }
        if *what == "deep ACAP nesting" {
            assert_eq!(page.elements.len(), MAX_ELEMENTS);
        }
    }
}

/// A hostile tdmrep.json (the largest read, every location a chain of
/// wildcards that almost matches) against a long URL: answered, in bounded
/// time.
#[test]
fn hostile_tdmrep() {
    use robocc_page::tdmrep::{MAX_LOCATION_BYTES, MAX_TDMREP_BYTES};
    let location = format!("/{}b", "*a".repeat((MAX_LOCATION_BYTES - 3) / 2));
    let rule = format!("{{\"location\": \"{location}\", \"tdm-reservation\": 1}},");
    let n = (MAX_TDMREP_BYTES - 64) / rule.len();
    let mut file = format!("[{}", rule.repeat(n));
    file.push_str("{\"location\": \"/\", \"tdm-reservation\": 0}]");
    let t = Tdmrep::parse(file.as_bytes()).expect("parses");
    assert_eq!(t.rules().len(), n + 1);
    let url = format!("https://example.com/{}", "a".repeat(8 * 1024));
    let start = Instant::now();
    let hit = t.lookup(url.as_bytes()).expect("the last rule matches");
    assert_eq!((hit.index, hit.reservation), (n, Some(false)));
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
    eprintln!("hostile tdmrep.json: {n} rules, 8 KiB URL: {took:?}");
}

/// F3 (audit of `robocc page`): past `MAX_ELEMENTS` elements are no longer
/// reported, but a class value after them still makes its usage prohibited
/// for the page as a whole (2.2.6): the cap limits the report, never turns
/// a prohibition into a permission.
#[test]
fn element_cap_keeps_the_fallback() {
    let mut html = b"<html><body>".to_vec();
    for _ in 0..MAX_ELEMENTS {
        html.extend_from_slice(b"<b class=the-acap:allow-index>x</b>");
    }
    let last = html.len();
    html.extend_from_slice(b"<i class=\"a the-acap:disallow-preserve\">y</i></body></html>");
    let page = PageRules::from_html(&html, [], "searchbot", "https://example.com/a.html");
    assert_eq!(page.elements.len(), MAX_ELEMENTS);
    assert!(page
        .diagnostics
        .iter()
        .any(|d| d.kind == PageDiagKind::Limit && d.message.contains("elements")));
    let d = page.decision(Usage::Preserve);
    assert_eq!(d.verdict, PageVerdict::Disallow);
    assert_eq!(d.reason.name(), "element-fallback");
    assert_eq!(
        d.source.as_ref().map(Source::describe),
        Some(format!(
            "<i class=\"the-acap:disallow-preserve\"> at byte {last}"
        ))
    );
    // `present` on an element past the cap concerns every present-* usage.
    html.truncate(last);
    html.extend_from_slice(b"<p class=the-acap:disallow-present>z</p>");
    let page = PageRules::from_html(&html, [], "searchbot", "https://example.com/a.html");
    assert_eq!(page.verdict(Usage::PresentSnippet), PageVerdict::Disallow);
    assert_eq!(page.verdict(Usage::Index), PageVerdict::Disallow);
    assert_eq!(page.verdict(Usage::Preserve), PageVerdict::Unspecified);
}

/// F12 (audit of `robocc page`): a conflict finding names the first few
/// permissions and counts the rest; it is clipped as every finding is (the
/// page below made single messages of 5.7 MB).
#[test]
fn conflict_findings_are_bounded() {
    let pad = "p".repeat(480);
    let mut html = String::from("<meta name=robots content=\"ACAP disallow-present\">");
    for i in 0..10_000 {
        html.push_str(&format!(
            "<meta name=robots content=\"ACAP allow-present q={i} x={pad}\">"
        ));
    }
    let page = PageRules::from_html(html.as_bytes(), [], "searchbot", "https://example.com/a");
    let conflicts: Vec<_> = page
        .diagnostics
        .iter()
        .filter(|d| d.kind == PageDiagKind::Conflict)
        .collect();
    // present and its eight sub-types.
    assert_eq!(conflicts.len(), 9);
    for d in conflicts {
        assert!(d.message.len() <= 2 * 1024 + 3, "{} bytes", d.message.len());
        assert!(
            // 9,999 permissions are read (the statement cap drops the
            // last, with its own finding): three named, the rest counted.
            d.message.contains("allow-present (META") && d.message.contains("and 9996 more"),
            "{}",
            d.message
        );
        assert!(d.message.ends_with("the more restrictive rule applies)"));
    }
    assert_eq!(page.verdict(Usage::PresentSnippet), PageVerdict::Disallow);
}

/// Past `MAX_STATEMENTS` distinct statements a prohibition is still read;
/// one with a purpose pattern is folded (no named tag sets it aside), so a
/// limit only ever prohibits more, and says so.
#[test]
fn statement_cap_folds_purposed_prohibitions() {
    let read = |fillers: usize| {
        let mut html = String::from("<meta name=searchbot content=\"ACAP news allow-index\">");
        for i in 0..fillers {
            html.push_str(&format!(
                "<meta name=robots content=\"ACAP allow-follow q={i}\">"
            ));
        }
        html.push_str("<meta name=robots content=\"ACAP NEWS disallow-index\">");
        PageRules::read(
            html.as_bytes(),
            [],
            &PageOptions {
                agent: "searchbot",
                url: "https://example.com/a",
                purposes: &["news".to_string()],
                now: None,
                head_only: false,
                tdmrep: None,
            },
        )
    };
    // 2.2.1: the named permission sets the general prohibition aside.
    let page = read(10);
    assert_eq!(page.verdict(Usage::Index), PageVerdict::Allow);
    // Past the limit the prohibition is kept, folded: prohibited.
    let page = read(robocc_page::MAX_STATEMENTS);
    assert_eq!(page.verdict(Usage::Index), PageVerdict::Disallow);
    assert!(page
        .diagnostics
        .iter()
        .any(|d| d.kind == PageDiagKind::Limit && d.message.contains("never less prohibited")));
}

/// Two permissions are one only when their qualifiers and spelling are
/// equal: a `|` in a qualifier cannot make them equal.
#[test]
fn permissions_with_other_qualifiers_are_kept_apart() {
    let html =
        "<meta name=robots content=\"ACAP allow-index resource-type=t|allow-index|allow-index-t\">\
                <meta name=robots content=\"ACAP allow-index-t|allow-index\">";
    let page = PageRules::from_html(html.as_bytes(), [], "bot", "http://a/");
    assert_eq!(
        page.decision(Usage::Index).qualifiers,
        [
            "resource-type=t|allow-index|allow-index-t",
            "resource-type=t|allow-index"
        ]
    );
}

/// A purpose pattern past `MAX_PURPOSE_PATTERN` is not matched (issue 41:
/// its glob cost ~84 bytes per byte): for a crawler with a purpose, its
/// prohibition still applies, its permission does not, and a finding says
/// so; for one without, no pattern applies (nothing to match, nothing said).
#[test]
fn long_purpose_patterns_prohibit_and_are_said() {
    let long = "x".repeat(robocc_page::MAX_PURPOSE_PATTERN + 1);
    let html = format!(
        "<meta name=robots content=\"ACAP {long} disallow-index\">\
         <meta name=robots content=\"ACAP {long} allow-follow\">"
    );
    for (purposes, index, said) in [
        (vec![], PageVerdict::Unspecified, 0),
        (vec!["x".to_string()], PageVerdict::Disallow, 2),
    ] {
        let page = PageRules::read(
            html.as_bytes(),
            [],
            &PageOptions {
                agent: "bot",
                url: "https://a/",
                purposes: &purposes,
                ..PageOptions::default()
            },
        );
        assert_eq!(page.verdict(Usage::Index), index, "{purposes:?}");
        assert_eq!(page.verdict(Usage::Follow), PageVerdict::Unspecified);
        let found = page
            .diagnostics
            .iter()
            .filter(|d| d.kind == PageDiagKind::Limit && d.message.contains("purpose pattern"))
            .count();
        assert_eq!(found, said, "{:?}", page.diagnostics);
    }
}

/// SVG nested past the depth kept: said, and a META breaking out of it is
/// still read.
#[test]
fn deep_foreign_content_is_said() {
    let mut html = "<svg>".to_string();
    html.push_str(&"<g>".repeat(2_000));
    html.push_str("<script><meta name=robots content=noindex></script>");
    let page = PageRules::from_html(html.as_bytes(), [], "bot", "https://a/");
    assert_eq!(page.verdict(Usage::Index), PageVerdict::Disallow);
    assert!(
        page.diagnostics
            .iter()
            .any(|d| d.kind == PageDiagKind::Limit && d.message.contains("SVG/MathML")),
        "{:?}",
        page.diagnostics
    );
}
