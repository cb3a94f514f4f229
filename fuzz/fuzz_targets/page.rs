//! Any bytes as an HTML page (and, split at the first NUL, as headers):
//! page-level permissions are read without a panic, element spans stay in
//! the input, and the combination with no site policy answers every usage.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_compiler::page::{combine, PageOptions, PageRules};

fuzz_target!(|data: &[u8]| {
    let (head, html) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..0], data),
    };
    let head = String::from_utf8_lossy(head);
    let headers: Vec<(&str, &str)> = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .collect();
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
            },
        );
        assert!(page.bytes_read <= html.len());
        for e in &page.elements {
            assert!(e.start <= e.end && e.end <= html.len());
        }
        let c = combine(&page, None, b"http://example.com/a");
        assert_eq!(c.finals.len(), robocc_engine::Usage::ALL.len());
    }
    let _ = robocc_compiler::page::lint(html, None);
});
