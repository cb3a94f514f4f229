//! The engine against the oracles: one test binary (each module a former
//! test file), so that the workspace links one executable here, not seven.

mod common;

mod acap_differential;
mod checker;
mod checker_alloc;
mod conformance;
mod differential;
mod each_agent;
mod fuzz_regressions;
mod google_port;
mod several_agents;
mod signals_differential;

/// Counts a thread's allocations when asked (`checker_alloc`); per thread,
/// so the other tests are not counted.
#[global_allocator]
static ALLOC: robocc_testkit::heap::Counting = robocc_testkit::heap::Counting;
