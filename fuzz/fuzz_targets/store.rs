//! Any bytes as a policy store (seeded with real stores): refused or usable
//! for lookups and checks without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_engine::Store;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let bytes = common::aligned(data);
    if let Ok(store) = Store::from_bytes(&bytes) {
        for url in [
            &b"https://example.com/"[..],
            b"http://a.example:8080/x",
            b"https://EXAMPLE.org/p?q",
            data,
        ] {
            let _ = store.check(url);
            let _ = store.host_entry(url);
        }
        for i in 0..store.data().policies.len() {
            let p = store.policy(i).expect("every index below the count has a policy");
            let _ = p.check(b"/");
        }
    }
});
