//! A store build's memory does not grow with the number of distinct bodies
//! it reads (issue 41: a 3.3 MB `.warc.gz` of distinct bodies that each
//! decode to the parse limit peaked at 2.4 GB): bodies are compiled as the
//! input streams, a batch at a time, and only their policies kept.

use robocc_engine::Store;
use robocc_store::{HostInput, StoreBuilder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live and peak heap bytes (process-wide: this binary runs one
/// test).
struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Peak = Peak;

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
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let (bytes, report) = StoreBuilder::new("Googlebot").build(inputs).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
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
