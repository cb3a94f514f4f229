//! The clock of the compiler's time limits ([`Budget::time`](crate::Budget::time), lint's readers).
//!
//! `wasm32-unknown-unknown` has no clock: there `std::time::Instant::now`
//! panics. This stand-in never reads one, so on that target the time limit
//! is not enforced (no deadline is ever past) and the other budgets
//! (states, threads, table bytes, automata) alone bound the work.

#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
pub(crate) use std::time::Instant;

/// An instant that no clock gave: the deadline is never reached.
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Instant;

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
impl Instant {
    pub(crate) fn now() -> Instant {
        Instant
    }

    /// No deadline.
    pub(crate) fn checked_add(self, _: std::time::Duration) -> Option<Instant> {
        None
    }

    pub(crate) fn elapsed(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}
