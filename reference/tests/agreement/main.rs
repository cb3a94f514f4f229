//! The engine against the oracles: one test binary (each module a former
//! test file), so that the workspace links one executable here, not seven.

mod common;

mod acap_differential;
mod checker;
mod conformance;
mod differential;
mod fuzz_regressions;
mod google_port;
mod several_agents;
mod signals_differential;
