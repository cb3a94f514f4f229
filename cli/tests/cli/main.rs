//! The `robocc` command line, run as a user runs it: one test binary (each
//! module a subcommand area or the contract of issue-by-issue items).

mod common;

mod commands;
mod contract;
mod diff;
mod each_agent;
mod page;
mod store_inputs;
mod store_set;
mod survey;
