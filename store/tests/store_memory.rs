//! A store build's memory does not grow with the number of distinct bodies
//! it reads (issue 41: a 3.3 MB `.warc.gz` of distinct bodies that each
//! decode to the parse limit peaked at 2.4 GB): bodies are compiled as the
//! input streams, a batch at a time, and only their policies kept.

use robocc_engine::Store;
use robocc_store::{HostInput, StoreBuilder};
use robocc_testkit::heap::{peak_growth, PeakHeap};

#[global_allocator]
static ALLOC: PeakHeap = PeakHeap;

/// Body `i`: its own rule, then comments to `len` bytes.
fn body(i: usize, len: usize) -> Vec<u8> {
    let mut b = format!("User-agent: *\nDisallow: /{i}\n").into_bytes();
    while b.len() < len {
        b.extend_from_slice(b"# a comment line that only fills the body to its size\n");
    }
    b
}

#[test]
fn distinct_bodies_do_not_stay_in_memory() {
    const N: usize = 600;
    // Half over the 500 KiB parse limit (kept as their prefix until
    // compiled), half under it (kept whole until compiled): 300 MB of
    // distinct bodies in all, generated one at a time.
    let len = |i: usize| if i % 2 == 0 { 600_000 } else { 450_000 };
    let inputs = (0..N)
        .map(|i| (format!("h{i}.example"), body(i, len(i))))
        // A body seen again after its first one was compiled and dropped.
        .chain([("again.example".to_string(), body(0, len(0)))])
        .map(|(host, body)| {
            Ok(HostInput {
                host,
                status: 200,
                body: Some(body),
                ..HostInput::default()
            })
        });
    let (built, peak) = peak_growth(|| StoreBuilder::new("Googlebot").build(inputs));
    let (bytes, report) = built.unwrap();
    assert_eq!(report.hosts, N + 1);
    assert_eq!(report.unique_policies, N, "{report:?}");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let store = Store::from_slice(&bytes).unwrap();
    for i in [0, 1, 299, N - 1] {
        let v = store.check(format!("https://h{i}.example/{i}").as_bytes());
        assert_eq!(v.unwrap().map(|v| v.allowed), Some(false), "h{i}");
        let v = store.check(format!("https://h{i}.example/other").as_bytes());
        assert_eq!(v.unwrap().map(|v| v.allowed), Some(true), "h{i}");
    }
    let again = store.check(b"https://again.example/0").unwrap().unwrap();
    assert!(!again.allowed);
    // 64 MiB of bodies waiting for their compile, the compiles in flight
    // and the store: far below the 300 MB of bodies.
    assert!(peak < 160 << 20, "peak heap {} MiB", peak >> 20);
    eprintln!("peak heap growth {} MiB", peak >> 20);
}
