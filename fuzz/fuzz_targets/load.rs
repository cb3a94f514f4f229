//! Any bytes as a policy artifact (the seed corpus holds real artifacts, so
//! libFuzzer's bit flips, truncations and splices mutate valid ones): either
//! refused with an error or usable for checks without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_engine::Policy;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let bytes = common::aligned(data);
    if let Ok(policy) = Policy::from_bytes(&bytes) {
        for url in [&b"/"[..], b"/a/b?c=d", b"https://example.com/x%2Fy#z", data] {
            let v = policy.check(url);
            if let Some(r) = v.rule {
                assert!(policy.rule(r).is_some(), "verdict names a missing rule");
            }
            for c in 0..policy.channels().count() {
                assert!(policy.check_channel(url, c).is_some());
            }
        }
        let _ = policy.metadata();
    }
});
