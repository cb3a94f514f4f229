//! Any bytes as a policy artifact, seeded with real ones (see `common::load_one`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::load_one(data));
