//! A global allocator that counts live and peak heap bytes, for the tests
//! that bound the memory a stage takes (hostile inputs, store builds,
//! pages). A test binary installs it with
//! `#[global_allocator] static ALLOC: PeakHeap = PeakHeap;` and measures
//! with [`peak_growth`]; each such test keeps a binary of its own, since
//! the counts are process-wide.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The counting allocator (the system allocator underneath).
pub struct PeakHeap;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for PeakHeap {
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

/// Runs `f`, and returns its result and the most heap it held at once
/// beyond what was live before it (bytes). Meaningful only where
/// [`PeakHeap`] is the global allocator and nothing else allocates
/// meanwhile (one test per binary).
pub fn peak_growth<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}
