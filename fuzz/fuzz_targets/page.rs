//! Any bytes as an HTML page (and, split at the first NUL, as headers):
//! page-level permissions are read without a panic, element spans stay in
//! the input, and the combination with no site policy answers every usage.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::page_one(data));
