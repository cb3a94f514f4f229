//! Inputs for robocc's tests and benchmarks, kept out of the published
//! crates.
//!
//! * [`urlgen`]: deterministic URL workloads derived from a rule set's
//!   patterns (`Compiled::rule_set.patterns()`), for the differential tests
//!   and the benchmarks.
//! * [`hostile`]: robots.txt files built to hurt (huge, pathological or
//!   malformed), for the hostile-input test and `bench --bin hostile`.
//!
//! Both are written against `robocc-compiler`'s public API only.

#![deny(missing_docs)]

pub mod hostile;
pub mod urlgen;
