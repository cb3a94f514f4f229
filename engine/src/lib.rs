//! Answers "may this agent fetch this URL?" from a compiled robocc policy.
//!
//! `robocc-compiler` turns a robots.txt file and a chosen agent into an
//! artifact: one deterministic automaton over URL bytes whose states carry the
//! already-resolved verdict (longest match, first match… decided at compile
//! time). This crate reads that artifact in place — from a byte slice or a
//! memory-mapped file — and checks URLs against it:
//!
//! * no allocation and no parsing on the check path;
//! * one table lookup per URL byte, stopping as soon as the verdict can no
//!   longer change;
//! * every table validated once at load, so a corrupted artifact is refused,
//!   never read out of bounds.
//!
//! ```no_run
//! use robocc_engine::Policy;
//! let policy = Policy::open("example.policy")?;
//! if policy.is_allowed("https://example.com/some/page?x=1") {
//!     // fetch it
//! }
//! # Ok::<(), robocc_engine::LoadError>(())
//! ```
//!
//! The data flow, module by module: [`url`] finds the path in a URL,
//! [`normalize`] encodes it (RFC 9309 and 1996-draft modes), [`Policy`] runs the automata,
//! [`Policy::visit_at_minute`] answers robots 2.0's Visit-time and
//! Request-rate, and [`artifact`] describes the bytes (see also
//! docs/artifact.md).

#![deny(missing_docs)]

pub mod artifact;
mod load;
pub mod normalize;
mod policy;
pub mod store;
pub mod url;
mod visit;

pub use artifact::{Dialect, UrlMode};
pub use load::{frame, LoadError};
pub use policy::{Policy, Traced, Verdict};
pub use store::{HostKey, Store};
pub use visit::{VisitAdvice, MINUTES_PER_DAY};
