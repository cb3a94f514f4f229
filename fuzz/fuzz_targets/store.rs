//! Any bytes as a policy store, seeded with a real one (see `common::store_one`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::store_one(data));
