//! Compiles robots.txt files into robocc policy artifacts.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! bytes ─parse─▶ groups/rules/records ─agent─▶ selected groups
//!       ─ruleset─▶ encoded rules ─lower─▶ automata with resolved outcomes
//!       ─compile─▶ artifact bytes (read by robocc_engine::Policy)
//! ```
//!
//! [`dialect`] is one table per dialect ([`dialect::Semantics`]): its
//! reading (records, agent choice, pattern syntax, URL encoding) and the
//! rank, by named [`dialect::RankClass`], that the lowering resolves
//! conflicts with once per automaton state; every pattern becomes a
//! [`glob::Glob`];
//! [`reference`](mod@reference) is the plain matcher the compiled engine is
//! tested against, with independent oracles for draft1996 and robots2 (the
//! test inputs themselves live in the unpublished
//! `robocc-testkit` crate).
//!
//! ```
//! use robocc_compiler::{compile, CompileOptions};
//! use robocc_engine::Policy;
//!
//! let robots = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
//! let compiled = compile(robots, "ExampleBot", &CompileOptions::default())?;
//! let bytes = compiled.to_bytes();
//! let policy = Policy::from_bytes(&bytes).unwrap();
//! assert!(!policy.is_allowed("https://example.com/private/x"));
//! assert!(policy.is_allowed("https://example.com/private/ok"));
//! # Ok::<(), robocc_compiler::CompileError>(())
//! ```

#![deny(missing_docs)]

pub mod agent;
mod compile;
pub mod diag;
pub mod dialect;
pub mod glob;
pub mod lint;
pub mod lower;
pub mod normalize;
pub mod parse;
pub mod reference;
pub mod ruleset;
pub mod store;

pub use compile::{
    compile, parse_delay_ms, parse_rate, parse_window, CompileError, CompileOptions, Compiled,
};
pub use parse::ParseOptions;
