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
//! [`glob::Glob`]. [`explain`] works the other way, for tools that explain
//! an answer: from a compiled policy's rules, why it answers as it does.
//!
//! The crates beside this one build on these stages: `robocc-store` (many
//! hosts in one store, WARC input), `robocc-page` (page-level permissions),
//! `robocc-reference` (the plain matchers the engine is tested against,
//! unpublished) and `robocc-cli` (the `robocc` binary).
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

// The pipeline's stages, in data-flow order. Each is documented: the store,
// page, reference and CLI crates build on them.
pub mod acap;
pub mod agent;
mod checker;
mod clock;
mod compile;
pub mod diag;
pub mod dialect;
pub mod diff;
mod each_agent;
pub mod explain;
pub mod fetch;
pub mod glob;
pub mod input;
pub mod lint;
pub mod lower;
pub mod normalize;
pub mod outcome;
pub mod parse;
pub mod reach;
pub mod ruleset;
pub mod signals;

pub use agent::Agents;
pub use checker::{Checker, Promoted, Promotion};
pub use compile::{
    compile, compile_prefix, options_hash, parse_delay_ms, parse_rate, parse_window, sha256,
    timeout_from_secs, unread_summary, zero_is_unlimited, CompileError, CompileOptions, Compiled,
};
pub use diag::{DiagCode, Diagnostic, Severity};
pub use diff::{diff, Change, Decision, Diff, DiffError, DiffOptions};
pub use each_agent::{compile_each, compile_each_prefix, each_options_hash, CompiledEach};
pub use input::InputKind;
pub use lower::{Budget, BudgetExceeded, Layout, LowerError, Registers};
pub use parse::{ParseOptions, DEFAULT_MAX_BYTES};
pub use reach::{classes, Class, Classes, ReachError};
pub use robocc_engine::{Dialect, UrlMode, Usage, UsageSet};
pub use signals::PreferenceGrouping;

// docs/library.md's examples run as doctests, so the guide stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/library.md")]
pub struct LibraryGuide;
