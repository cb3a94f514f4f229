//! A store built from many hosts answers every host exactly like compiling
//! that host's file on its own, and finds hosts without allocating.

use robocc_testkit::paths::{root, shared_real};

use robocc_compiler::agent::select;
use robocc_compiler::parse::parse;
use robocc_compiler::ruleset::RuleSet;
use robocc_compiler::{compile, Budget, CompileOptions};
use robocc_engine::{Policy, Store};
use robocc_store::{HostInput, StoreBuilder};
use robocc_testkit::urlgen;

fn inputs(dir: &std::path::Path, every: usize) -> Vec<HostInput> {
    robocc_testkit::corpus::inputs(dir)
        .into_iter()
        .step_by(every)
        .collect()
}

/// A generated path (or example.com URL) moved onto host `key`.
fn url_on(key: &str, path: &[u8]) -> String {
    let path = String::from_utf8_lossy(path).into_owned();
    let path = path.strip_prefix("https://example.com").unwrap_or(&path);
    let sep = if path.starts_with('/') { "" } else { "/" };
    format!("https://{key}{sep}{path}")
}

/// Default options without the wall-clock limit: how long a file takes on a
/// loaded machine is not what these tests compare.
fn untimed() -> CompileOptions {
    CompileOptions {
        budget: Budget {
            time: std::time::Duration::from_secs(3600),
            ..Budget::default()
        },
        ..CompileOptions::default()
    }
}

fn build(inputs: &[HostInput], opts: &CompileOptions) -> (Vec<u8>, robocc_store::StoreReport) {
    let (bytes, report) = StoreBuilder::new("Googlebot")
        .compile_options(opts.clone())
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    (bytes.to_vec(), report)
}

fn store_matches_per_file(inputs: &[HostInput], urls_per_host: usize) -> usize {
    let opts = untimed();
    let (bytes, report) = build(inputs, &opts);
    assert_eq!(report.hosts, inputs.len());
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let store = Store::from_slice(&bytes).unwrap();
    let mut checked = 0;
    let mut all = Vec::new();
    for input in inputs {
        let body = input.body.as_ref().unwrap();
        let compiled = compile(body, "Googlebot", &opts).unwrap();
        let own = compiled.to_bytes();
        let policy = Policy::from_bytes(&own).unwrap();
        let key = input.host.clone();
        let urls = urlgen::workload(5, compiled.rule_set.patterns(), urls_per_host);
        for path in urls {
            let url = url_on(&key, &path);
            let want = Some(policy.check(url.as_bytes()));
            assert_eq!(store.check(url.as_bytes()).unwrap(), want, "{key}: {url}");
            all.push((url, want));
            checked += 1;
        }
    }
    // The batch API, on runs of one host (as generated) and on hosts
    // interleaved, plus a host the store does not have.
    all.push(("https://absent.example/x".into(), None));
    let mut interleaved = all.clone();
    interleaved.sort_by_key(|(u, _)| u.len() % 7);
    for urls in [&all, &interleaved] {
        let refs: Vec<&[u8]> = urls.iter().map(|(u, _)| u.as_bytes()).collect();
        let mut out = vec![None; refs.len()];
        store.check_batch(&refs, &mut out).unwrap();
        for ((url, want), got) in urls.iter().zip(&out) {
            assert_eq!(got, want, "check_batch: {url}");
        }
    }
    checked
}

#[test]
fn store_of_corpus_real_matches_per_file_compilation() {
    let inputs = inputs(&root().join("corpus/real"), 1);
    assert!(store_matches_per_file(&inputs, 200) > 8_000);
}

/// A store of every file of ../shared/corpus/real (one host each) answers
/// every host like the reference matcher on that host's own rules.
#[test]
fn store_of_shared_corpus_matches_the_reference() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not present: skipped");
        return;
    };
    let inputs = inputs(&dir, 1);
    assert!(inputs.len() > 4000);
    let opts = untimed();
    let (bytes, report) = build(&inputs, &opts);
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let store = Store::from_slice(&bytes).unwrap();
    let mut checked = 0;
    for input in &inputs {
        let body = input.body.as_ref().unwrap();
        // The text the compiler reads (a UTF-16 body decoded).
        let text = robocc_compiler::input::read(body).text;
        let robots = parse(&text, &opts.parse);
        let set = RuleSet::build(
            &robots,
            &select(&robots, &"Googlebot".into()),
            opts.rule_set_options(),
        );
        let key = input.host.clone();
        let urls = urlgen::workload(9, set.patterns(), 20);
        for path in urls {
            let url = url_on(&key, &path);
            let want = robocc_reference::check_url(&set, url.as_bytes());
            let got = store
                .check(url.as_bytes())
                .unwrap()
                .unwrap_or_else(|| panic!("{key} missing"));
            assert_eq!(
                (got.allowed, got.rule),
                (want.allowed, want.rule),
                "{key}: {url}"
            );
            checked += 1;
        }
    }
    assert!(checked > 80_000, "{checked}");
}

#[test]
fn identical_bodies_are_stored_once() {
    let body = b"User-agent: *\nDisallow: /x\n".to_vec();
    let inputs: Vec<HostInput> = (0..50)
        .map(|i| HostInput {
            host: format!("h{i}.example"),
            status: 200,
            body: Some(body.clone()),
            ..HostInput::default()
        })
        .collect();
    let (_, report) = build(&inputs, &CompileOptions::default());
    assert_eq!(report.unique_policies, 1);
    assert_eq!(report.dedup_ratio(), 50.0);
}

/// Every status a manifest may give (0-999) decides a host's policy in a
/// store as the fetch rules decide it for a crawler
/// (`robocc_compiler::fetch`, redirects across hosts as a store follows
/// them): the same allow or disallow on a path the body disallows and one
/// it allows, and the same kind of answer.
#[test]
fn every_manifest_status_decides_as_the_fetch_rules() {
    use robocc_compiler::fetch::{
        Decision, Fetch, FetchOptions, Headers, Kept, Redirects, Response, Step,
    };
    use robocc_compiler::Checker;
    use robocc_engine::HostSource;

    let body = "User-agent: *\nDisallow: /private\n";
    let target_body = "User-agent: *\nDisallow: /other\n";
    let target = "https://target.com/robots.txt";
    let base = std::path::Path::new(".");
    let line = |s: u16| {
        let extra = match s {
            200..=299 => format!(r#", "body": {body:?}"#),
            300..=399 => format!(r#", "location": "{target}""#),
            _ => String::new(),
        };
        format!(r#"{{"host": "s{s}.com", "status": {s}{extra}}}"#)
    };
    let mut inputs: Vec<HostInput> = (0..1000)
        .map(|s| robocc_store::manifest_line(line(s).as_bytes(), base).unwrap())
        .collect();
    let target_line =
        format!(r#"{{"host": "target.com", "status": 200, "body": {target_body:?}}}"#);
    inputs.push(robocc_store::manifest_line(target_line.as_bytes(), base).unwrap());
    let opts = untimed();
    let (bytes, _) = build(&inputs, &opts);
    let store = Store::from_slice(&bytes).unwrap();

    let options = FetchOptions {
        redirects: Redirects::AnyHost,
        ..FetchOptions::default()
    };
    for s in 0..1000u16 {
        let robots = format!("https://s{s}.com/robots.txt");
        let mut fetch = Fetch::new(&robots, &options).unwrap();
        let headers = Headers {
            location: Some(target),
            ..Headers::default()
        };
        let first = Response::Http {
            status: s,
            headers,
            body: Some(body.as_bytes()),
        };
        let fetched = match fetch.answer(first, 0) {
            Step::Done(f) => f,
            Step::Follow(url) => {
                assert_eq!(url, target);
                let ok = Response::Http {
                    status: 200,
                    headers: Headers::default(),
                    body: Some(target_body.as_bytes()),
                };
                match fetch.answer(ok, 0) {
                    Step::Done(f) => f,
                    Step::Follow(u) => panic!("{s}: followed twice, to {u}"),
                }
            }
        };
        let rules = fetched
            .body
            .as_ref()
            .map(|b| std::sync::Arc::new(Checker::new(b, "Googlebot", &opts).unwrap()));
        let kept = Kept::next(None, &fetched, rules, &options, 0);
        let library = |path: &str| match kept.decision {
            Decision::Rules => kept.rules.as_ref().unwrap().check(path.as_bytes()).allowed,
            Decision::AllowAll => true,
            Decision::DisallowAll => false,
        };
        let kind = match kept.decision {
            Decision::Rules if fetch.hops() > 0 => HostSource::Redirected,
            Decision::Rules => HostSource::Fetched,
            Decision::AllowAll => HostSource::Unavailable,
            Decision::DisallowAll => HostSource::Unreachable,
        };
        let host = format!("https://s{s}.com");
        let in_store = |path: &str| {
            let url = format!("{host}{path}");
            store.check(url.as_bytes()).unwrap().unwrap().allowed
        };
        let source = store.host(host.as_bytes()).unwrap().unwrap().source;
        for path in ["/private", "/other", "/"] {
            assert_eq!(
                in_store(path),
                library(path),
                "status {s}, {path}: {fetched:?}"
            );
        }
        assert_eq!(source, kind, "status {s}: {fetched:?}");
    }
}
