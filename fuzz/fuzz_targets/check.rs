//! Differential: the compiled engine against the reference matcher (see `common::check_one`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::check_one(data));
