//! Any bytes × agent × options through the whole compiler: no panic, and a
//! successful compile gives an artifact the engine accepts.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robocc_compiler::compile;
use robocc_engine::Policy;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let opts = common::options(sel);
    let agent = common::AGENTS[usize::from(sel >> 4) % common::AGENTS.len()];
    if let Ok(compiled) = compile(body, agent, &opts) {
        let bytes = compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).expect("compiler output must load");
        let _ = policy.check(b"/");
    }
});
