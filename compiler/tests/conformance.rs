//! Runs the data-driven cases of corpus/conformance/ through the compiled
//! engine and the reference matcher; both must give the expected verdict.

mod common;

use robocc_compiler::dialect::from_name;
use robocc_compiler::{compile, CompileOptions};
use robocc_engine::{Policy, UrlMode};
use serde_json::Value;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn options(dialect: &str, case: &Value) -> CompileOptions {
    let mut o = CompileOptions {
        dialect: from_name(dialect).unwrap_or_else(|| panic!("unknown dialect {dialect}")),
        ..CompileOptions::default()
    };
    if let Some(opts) = case.get("options") {
        if let Some(b) = opts.get("data_txt").and_then(Value::as_bool) {
            o.data_txt = b;
        }
        if let Some(m) = opts.get("url_mode").and_then(Value::as_str) {
            o.url_mode = match m {
                "google" => UrlMode::Google,
                "rfc" => UrlMode::Rfc,
                other => panic!("unknown url_mode {other}"),
            };
        }
        if let Some(r) = opts.get("robots_txt").and_then(Value::as_str) {
            o.robots_txt_allowed = r == "allow";
        }
        if let Some(n) = opts.get("max_bytes").and_then(Value::as_u64) {
            o.parse.max_bytes = n as usize;
        }
        if let Some(b) = opts.get("records_close_groups").and_then(Value::as_bool) {
            o.parse.records_close_groups = b;
        }
    }
    o
}

#[test]
fn conformance_cases() {
    let dir = common::root().join("corpus/conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no conformance files in {}",
        dir.display()
    );
    let (mut cases, mut checks, mut failures) = (0, 0, Vec::new());
    for file in files {
        let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let dialect = doc["dialect"].as_str().unwrap_or("rfc9309");
        for case in doc["cases"].as_array().unwrap() {
            cases += 1;
            let name = case["name"].as_str().unwrap();
            let body = match (case.get("robots"), case.get("robots_hex")) {
                (Some(r), _) => r.as_str().unwrap().as_bytes().to_vec(),
                (None, Some(h)) => hex(h.as_str().unwrap()),
                _ => panic!("{name}: no robots body"),
            };
            let opts = options(dialect, case);
            let agent = case["agent"].as_str().unwrap();
            let compiled = compile(&body, agent, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).unwrap();
            for check in case["checks"].as_array().unwrap() {
                checks += 1;
                let url = check[0].as_str().unwrap();
                let want = check[1].as_str().unwrap() == "allow";
                let got = policy.check(url.as_bytes()).allowed;
                let reference =
                    robocc_compiler::reference::check_url(&compiled.rule_set, url.as_bytes())
                        .allowed;
                if got != want || reference != want {
                    failures.push(format!(
                        "{}: {name}: {url:?} expected {}, engine {}, reference {}",
                        file.file_name().unwrap().to_string_lossy(),
                        check[1],
                        got,
                        reference
                    ));
                }
            }
            // Visit advice: [time "HH:MM", allowed now, rate "n/secs" or null].
            for visit in case
                .get("visits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                checks += 1;
                let t = visit[0].as_str().unwrap();
                let minute = t[..2].parse::<u16>().unwrap() * 60 + t[3..].parse::<u16>().unwrap();
                let advice = policy.visit_at_minute(minute);
                let rate = advice
                    .rate
                    .map(|r| format!("{}/{}", r.documents, r.seconds));
                if advice.allowed_now != visit[1].as_bool().unwrap()
                    || rate.as_deref() != visit[2].as_str()
                {
                    failures.push(format!(
                        "{name} ({}): at {t} expected {} {}, got {advice:?}",
                        file.file_name().unwrap().to_string_lossy(),
                        visit[1],
                        visit[2]
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checks} checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        cases > 50 && checks > 100,
        "only {cases} cases / {checks} checks ran"
    );
}
