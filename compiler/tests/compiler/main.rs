//! The compiler crate's tests beyond its unit tests: one test binary (each
//! module an area).

mod corpus;
mod diff;
mod lint_traps;
mod preferences;
mod readers;
