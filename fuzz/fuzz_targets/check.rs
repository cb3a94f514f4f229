//! Differential: robots.txt bytes and URL bytes (split at the first 0xFF
//! byte after the selector); the compiled engine must agree with the
//! reference matcher on the verdict and the deciding rule.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_compiler::{compile, reference};
use robocc_engine::Policy;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (body, urls) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &b"/"[..]),
    };
    let opts = common::options(sel);
    let agent = common::AGENTS[usize::from(sel >> 4) % common::AGENTS.len()];
    let Ok(compiled) = compile(body, agent, &opts) else {
        return;
    };
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).expect("compiler output must load");
    // Several URLs per input: split on 0xFE; each also as a path.
    for url in urls.split(|&b| b == 0xFE) {
        let got = policy.check(url);
        let want = reference::check_url(&compiled.rule_set, url);
        assert!(
            got.allowed == want.allowed && got.rule == want.rule,
            "engine {got:?} != reference {want:?} for {:?}",
            String::from_utf8_lossy(url)
        );
    }
});
