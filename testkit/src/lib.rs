//! Inputs for robocc's tests and benchmarks, kept out of the published
//! crates.
//!
//! * [`urlgen`]: deterministic URL workloads derived from a rule set's
//!   patterns (`Compiled::rule_set.patterns()`), for the differential tests
//!   and the benchmarks.
//! * [`hostile`]: robots.txt files built to hurt (huge, pathological or
//!   malformed), for the hostile-input test and `bench --bin hostile`.
//!
//! * [`corpus`]: a directory of corpus files as store inputs, one valid
//!   host name per file.
//!
//! * [`acap`]: ACAP files for the `--dialect acap` differential tests:
//!   ACAP records synthesised from real files, and a proptest strategy for
//!   small random ones, with URLs that hit their patterns.
//!
//! * [`signals`]: AI-usage preference lines (Content-Usage,
//!   Content-Signal) added to real files, and a proptest strategy for small
//!   random ones, for the signals differential tests.
//!
//! * [`heap`]: global allocators that count peak heap bytes (the tests
//!   that bound memory) or a thread's allocations (the tests that check
//!   paths allocate nothing).
//!
//! * [`paths`]: the workspace root and the shared corpus beside it.
//!
//! All are written against `robocc-compiler`'s public API only.

#![deny(missing_docs)]

pub mod acap;
pub mod corpus;
pub mod crawlers;
pub mod heap;
pub mod hostile;
pub mod paths;
pub mod signals;
pub mod urlgen;
