//! What each fuzz target does with one input. Shared by the targets and by
//! `reference/tests/agreement/fuzz_regressions.rs`, which replays the seed corpus and
//! every saved crash (fuzz/regressions/<target>/) under `cargo test`.
#![allow(dead_code)]

use robocc_compiler::dialect::{from_name, Dialect};
use robocc_compiler::lower::{Budget, Layout, Registers};
use robocc_compiler::parse::{parse, ParseOptions};
use robocc_compiler::{compile, CompileOptions};
use robocc_engine::{ChannelId, Policy, Store, UrlMode};
use std::time::Duration;

/// Agents the targets compile for: named, global-only and unlisted cases.
pub const AGENTS: [&str; 4] = ["Googlebot", "foo", "unhipbot", "UnlistedBot"];

/// Compile options chosen by one selector byte, with a small budget so one
/// input never takes seconds.
pub fn options(sel: u8) -> CompileOptions {
    let dialects = ["rfc9309", "draft1996", "robots2", "acap"];
    let dialect: Dialect = from_name(dialects[usize::from(sel & 3)]).unwrap_or(Dialect::Rfc9309);
    CompileOptions {
        dialect,
        url_mode: if sel & 4 == 0 {
            UrlMode::Google
        } else {
            UrlMode::Rfc
        },
        robots_txt_allowed: sel & 8 == 0,
        budget: Budget {
            max_states: 20_000,
            max_threads: 400_000,
            total_bytes: 32 << 20,
            time: Duration::from_secs(2),
            max_automata: 64,
            registers: if sel & 16 == 0 {
                Registers::Auto
            } else {
                Registers::Always
            },
            layout: match (sel >> 5) & 3 {
                0 => Layout::Compact,
                1 => Layout::Dense,
                _ => Layout::Auto,
            },
        },
        ..CompileOptions::default()
    }
}

fn agent(sel: u8) -> &'static str {
    AGENTS[usize::from(sel >> 4) % AGENTS.len()]
}

/// Copies `data` into 16-byte aligned memory, as a file read or mmap gives.
pub fn aligned(data: &[u8]) -> rkyv::util::AlignedVec<16> {
    let mut v = rkyv::util::AlignedVec::<16>::with_capacity(data.len());
    v.extend_from_slice(data);
    v
}

/// parse: any bytes; every rule and diagnostic names a line that exists.
pub fn parse_one(data: &[u8]) {
    for (records_close_groups, blank_lines_end_records) in
        [(false, false), (true, false), (false, true)]
    {
        let opts = ParseOptions {
            max_bytes: 4096,
            records_close_groups,
            blank_lines_end_records,
            ..ParseOptions::default()
        };
        let robots = parse(data, &opts);
        let lines = data.iter().filter(|&&b| b == b'\n' || b == b'\r').count() as u32 + 1;
        for (_, rule) in robots.rules() {
            assert!(
                rule.line >= 1 && rule.line <= lines,
                "rule line out of range"
            );
        }
        for d in &robots.diagnostics {
            assert!(d.line <= lines, "diagnostic line out of range");
        }
    }
}

/// compile: selector byte + robots.txt; a successful compile loads.
pub fn compile_one(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    if let Ok(compiled) = compile(body, agent(sel), &options(sel)) {
        let bytes = compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).expect("compiler output must load");
        let _ = policy.check(b"/");
    }
}

/// check (differential): selector byte, robots.txt, 0xFF, URLs separated by
/// 0xFE; engine and reference agree on verdict and deciding rule, and for
/// rfc9309 the engine and the independent oracle on verdict and line.
pub fn check_one(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (body, urls) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &b"/"[..]),
    };
    let Ok(compiled) = compile(body, agent(sel), &options(sel)) else {
        return;
    };
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).expect("compiler output must load");
    if compiled.rule_set.acap().is_some() {
        // acap: the engine against the independent ACAP oracle, every usage.
        let oracle = robocc_reference::AcapOracle::new(body, agent(sel), &[], &[]);
        for url in urls.split(|&b| b == 0xFE) {
            for &u in robocc_engine::Usage::ACAP {
                let got = policy.check_usage(url, u);
                let want = oracle.check(url, u);
                let undecidable = !got.allowed && got.rule.is_none();
                assert!(
                    got.allowed == want.allowed && undecidable == want.undecidable,
                    "acap {u}: engine {got:?} != oracle {want:?} for {:?}",
                    String::from_utf8_lossy(url)
                );
            }
        }
        return;
    }
    // rfc9309: also the independent oracle, which reads the body itself
    // (verdict and deciding line).
    let opts = options(sel);
    let oracle = (opts.dialect == Dialect::Rfc9309).then(|| {
        let oracle_options = robocc_reference::Rfc9309Options {
            url_mode: opts.url_mode,
            self_allowed: opts.robots_txt_allowed,
            ..robocc_reference::Rfc9309Options::default()
        };
        robocc_reference::Rfc9309Oracle::new(body, agent(sel), &oracle_options)
    });
    for url in urls.split(|&b| b == 0xFE) {
        let got = policy.check(url);
        let want = robocc_reference::check_url(&compiled.rule_set, url);
        assert!(
            got.allowed == want.allowed && got.rule == want.rule,
            "engine {got:?} != reference {want:?} for {:?}",
            String::from_utf8_lossy(url)
        );
        if let Some(oracle) = &oracle {
            let want = oracle.check(url);
            let line = got.rule.map(|id| compiled.rule_set.rules[id.index()].line);
            assert!(
                got.allowed == want.allowed && line == want.line,
                "engine {got:?} (line {line:?}) != rfc9309 oracle {want:?} for {:?}",
                String::from_utf8_lossy(url)
            );
        }
    }
}

/// `data` with bytes 16..24, a frame's checksum, made to match the bytes
/// after the frame, and all else as given: a mutation that keeps the
/// structure valid is then refused by validation or used, instead of
/// always by the checksum (which would leave the check path unfuzzed).
pub fn checksum_fixed(data: &[u8]) -> rkyv::util::AlignedVec<16> {
    let mut bytes = aligned(data);
    if bytes.len() >= robocc_engine::FRAME_LEN {
        let sum = robocc_engine::frame_checksum(&data[robocc_engine::FRAME_LEN..]);
        bytes[16..24].copy_from_slice(&sum.to_le_bytes());
    }
    bytes
}

/// load: any bytes as a policy; refused, or usable without panicking.
pub fn load_one(data: &[u8]) {
    // As given: refused (a mutation's checksum is wrong) or, unchanged
    // seeds, usable; then with the checksum fixed, for validation.
    if let Ok(policy) = Policy::from_bytes(&aligned(data)) {
        let _ = policy.check(data);
    }
    let bytes = checksum_fixed(data);
    if let Ok(policy) = Policy::from_bytes(&bytes) {
        for url in [&b"/"[..], b"/a/b?c=d", b"https://example.com/x%2Fy#z", data] {
            let v = policy.check(url);
            if let Some(r) = v.rule {
                assert!(policy.rule(r).is_some(), "verdict names a missing rule");
            }
            for c in 0..policy.channels().count() as u32 {
                assert!(policy.check_channel(url, ChannelId::new(c)).is_some());
            }
        }
        let _ = policy.visit_at_minute(600);
        let meta = policy.meta();
        let _ = (
            meta.records().count(),
            meta.sitemaps().count(),
            meta.request_rates().count(),
        );
        let _ = policy.rules().count();
    }
}

/// store: any bytes as a store; refused, or usable without panicking
/// (opening compares no checksum; the policies inside keep theirs, so a
/// mutation inside one is refused at its first use).
pub fn store_one(data: &[u8]) {
    let bytes = checksum_fixed(data);
    if let Ok(store) = Store::from_slice(&bytes) {
        for url in [
            &b"https://example.com/"[..],
            b"http://a.example:8080/x",
            b"https://EXAMPLE.org/p?q",
            data,
        ] {
            let _ = store.check(url);
            let _ = store.host(url);
        }
        // Policies are validated on first use: a corrupted one is refused.
        for i in store.policy_ids() {
            if let Ok(p) = store.policy(i) {
                let _ = p.check(b"/");
            }
        }
        // The staged batch answers as single checks do, up to the URL it
        // refuses (the hosts the store names, interleaved with others).
        let mut urls: Vec<Vec<u8>> = store
            .hosts()
            .take(40)
            .filter_map(Result::ok)
            .flat_map(|h| {
                [
                    format!("https://{}/x", h.key).into_bytes(),
                    b"https://other.example/".to_vec(),
                ]
            })
            .collect();
        urls.push(data.to_vec());
        let refs: Vec<&[u8]> = urls.iter().map(Vec::as_slice).collect();
        let mut out = vec![None; refs.len()];
        // It refuses exactly the first URL a single check refuses.
        let first_refused = refs.iter().position(|u| store.check(u).is_err());
        let answered = match store.check_batch(&refs, &mut out) {
            Ok(()) => refs.len(),
            Err(e) => e.index,
        };
        assert_eq!(answered, first_refused.unwrap_or(refs.len()));
        for (u, got) in refs.iter().zip(&out).take(answered) {
            assert_eq!(Ok(*got), store.check(u), "{}", String::from_utf8_lossy(u));
        }
        let _ = store.hosts().count();
        let _ = store.validate_all();
    }
}

/// manifest: any bytes as manifest lines. Each line is read or refused
/// without a panic; what is read is a valid input; and a store builds from
/// the inputs whose bodies are inline (the others name files that do not
/// exist), with every host found and each extra input of a host reported
/// as a duplicate or as a redirect to itself set aside.
pub fn manifest_one(data: &[u8]) {
    use robocc_store::{host_key, manifest_line, StoreBuilder};
    let base = std::path::Path::new("/nonexistent-robocc-fuzz");
    let mut inputs = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        let Ok(h) = manifest_line(line, base) else {
            continue;
        };
        assert!(host_key(&h.host).is_ok(), "{:?}", h.host);
        assert!(h.status < 1000);
        assert!(h.body.is_none() || h.body_path.is_none());
        if (200..300).contains(&h.status) {
            assert!(h.body.is_some() || h.body_path.is_some());
        }
        if h.body_path.is_none() {
            inputs.push(h);
        }
    }
    let mut keys: Vec<String> = inputs
        .iter()
        .map(|h| host_key(&h.host).unwrap_or_default())
        .collect();
    keys.sort();
    keys.dedup();
    let (bytes, report) = StoreBuilder::new("Googlebot")
        .compile_options(options(0))
        .build(inputs.iter().cloned().map(Ok))
        .expect("inline inputs always build");
    assert_eq!(report.hosts, keys.len());
    assert_eq!(
        report.duplicates.len() + report.self_redirects,
        inputs.len() - keys.len()
    );
    let store = Store::from_slice(&bytes).expect("a store it built");
    store.validate_all().expect("a store it built");
    for k in &keys {
        let url = format!("https://{k}/");
        assert!(store.host(url.as_bytes()).unwrap().is_some(), "{k}");
    }
}

/// page: any bytes as an HTML page (and, split at the first NUL, as
/// headers, which are also read as a tdmrep.json): read without a panic,
/// element spans within the input, every usage answered.
pub fn page_one(data: &[u8]) {
    use robocc_page::{combine, PageOptions, PageRules};
    let (head, html) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..0], data),
    };
    let tdmrep = robocc_page::tdmrep::Tdmrep::parse(head).ok();
    let head = String::from_utf8_lossy(head);
    let headers: Vec<(&str, &str)> = head.lines().filter_map(|l| l.split_once(':')).collect();
    for head_only in [false, true] {
        let page = PageRules::read(
            html,
            headers.iter().copied(),
            &PageOptions {
                agent: "fuzzbot",
                url: "http://example.com/a",
                purposes: &["news".to_string()],
                now: Some(1_700_000_000),
                head_only,
                tdmrep: tdmrep.as_ref(),
            },
        );
        assert!(page.bytes_read <= html.len());
        for e in &page.elements {
            assert!(e.start <= e.end && e.end <= html.len());
        }
        let c = combine(&page, None, b"http://example.com/a");
        assert_eq!(c.finals.len(), robocc_engine::Usage::ALL.len());
        for f in &c.finals {
            // Only a preference channel may be unknown, and unknown is
            // never allowed.
            assert!(f.known || (f.usage.is_signal() && !f.allowed));
        }
    }
    let _ = robocc_page::lint(html, None);
}
