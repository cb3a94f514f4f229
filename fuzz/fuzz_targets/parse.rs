//! Any bytes through the parser (see `common::parse_one`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::parse_one(data));
