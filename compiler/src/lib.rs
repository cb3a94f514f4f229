//! Compiles robots.txt files into robocc policy artifacts.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! bytes ─input─▶ text (kind recognised, UTF-16 decoded) ─parse─▶ groups/rules/records ─agent─▶ selected groups
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

// The promised surface: `compile` and its options, result and errors,
// diagnostics, `lint`, the store builder and the reference matchers (the
// documented oracles). The pipeline's stages are public only so that the
// CLI, the oracles' tests and the benchmarks can reach them; they are hidden
// from the documentation and carry no stability promise.
#[doc(hidden)]
pub mod acap;
#[doc(hidden)]
pub mod agent;
mod compile;
pub mod diag;
#[doc(hidden)]
pub mod dialect;
#[doc(hidden)]
pub mod glob;
pub mod input;
pub mod lint;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod normalize;
#[doc(hidden)]
pub mod outcome;
#[doc(hidden)]
pub mod output;
pub mod page;
#[doc(hidden)]
pub mod parse;
pub mod reference;
#[doc(hidden)]
pub mod ruleset;
#[doc(hidden)]
pub mod signals;
pub mod store;
pub mod tdmrep;
pub mod warc;

pub use compile::{
    compile, parse_delay_ms, parse_rate, parse_window, timeout_from_secs, zero_is_unlimited,
    CompileError, CompileOptions, Compiled,
};
pub use diag::{DiagCode, Diagnostic, Severity};
pub use input::InputKind;
pub use lower::{Budget, BudgetExceeded, Layout, LowerError, Registers};
pub use parse::ParseOptions;
pub use robocc_engine::{Dialect, UrlMode, Usage, UsageSet};

// docs/library.md's examples run as doctests, so the guide stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/library.md")]
pub struct LibraryGuide;
