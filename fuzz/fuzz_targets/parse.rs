//! Any bytes through the parser: no panic, and every diagnostic and rule
//! names a line that exists.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_compiler::parse::{parse, ParseOptions};

fuzz_target!(|data: &[u8]| {
    for (records_close_groups, blank_lines_end_records) in [(false, false), (true, false), (false, true)] {
        let opts = ParseOptions {
            max_bytes: 4096,
            records_close_groups,
            blank_lines_end_records,
        };
        let robots = parse(data, &opts);
        let lines = data.iter().filter(|&&b| b == b'\n' || b == b'\r').count() as u32 + 1;
        for (_, rule) in robots.rules() {
            assert!(rule.line >= 1 && rule.line <= lines, "rule line out of range");
        }
        for d in &robots.diagnostics {
            assert!(d.line <= lines, "diagnostic line out of range");
        }
    }
});
