//! The compiler crate's tests beyond its unit tests: one test binary (each
//! module an area).

mod corpus;
mod diff;
mod fetch_cache;
mod lint_traps;
mod preferences;
mod reach;
mod readers;

// Counts allocations per thread, for `fetch_cache`'s zero-allocation check
// (the other modules, on their own threads, are not counted).
#[global_allocator]
static ALLOC: robocc_testkit::heap::Counting = robocc_testkit::heap::Counting;
