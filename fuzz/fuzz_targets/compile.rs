//! Any bytes × agent × options through the compiler (see `common::compile_one`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::compile_one(data));
