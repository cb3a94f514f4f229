//! Any bytes as store manifest lines (JSONL), and the store built from them.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| common::manifest_one(data));
