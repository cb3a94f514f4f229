//! The page reader's memory is bounded by the token being read, not by the
//! page: peak heap growth while reading, measured by a counting allocator
//! (one test in this binary, so nothing else allocates meanwhile).

use robocc_compiler::page::PageRules;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak heap growth (bytes) while reading `html`.
fn peak_growth(html: &[u8]) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let page = PageRules::from_html(html, [], "bot", "http://a/");
    std::hint::black_box(&page);
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn memory_is_bounded_by_the_token() {
    // 10 MB of ordinary markup (short tags and text runs), META at the end.
    let mut big = b"<html><head></head><body>".to_vec();
    while big.len() < 10_000_000 {
        big.extend_from_slice(b"<div class=\"c x\"><p>Lorem ipsum &amp; <a href=\"/x/y\">link</a></p><!-- c --></div>\n");
    }
    big.extend_from_slice(b"<meta name=robots content=noindex></body></html>");
    let grew = peak_growth(&big);
    assert!(grew < 256 * 1024, "10 MB page: heap grew by {grew} bytes");
    // One 4 MB attribute value: the tag being read is the bound.
    let mut tag = b"<meta name=robots content=\"".to_vec();
    tag.extend(std::iter::repeat_n(b'a', 4_000_000));
    tag.extend_from_slice(b"\">");
    let grew = peak_growth(&tag);
    // The tokenizer's buffer and ours grow by doubling (up to 2× each), the
    // content is made a string once and split into directives.
    assert!(grew < 8 * 4_000_000, "4 MB tag: heap grew by {grew} bytes");
    eprintln!("ok: 10 MB page grew the heap by < 256 KB; a 4 MB tag by {grew} bytes");
}
