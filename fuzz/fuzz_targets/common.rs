//! Shared by the fuzz targets: option selection from input bytes and a small
//! budget so one input never takes seconds.
#![allow(dead_code)]

use robocc_compiler::dialect::{from_name, Dialect};
use robocc_compiler::lower::Budget;
use robocc_compiler::CompileOptions;
use robocc_engine::UrlMode;
use std::time::Duration;

/// Agents the targets compile for: named, global-only and unlisted cases.
pub const AGENTS: [&str; 4] = ["Googlebot", "foo", "unhipbot", "UnlistedBot"];

/// Compile options chosen by one selector byte.
pub fn options(sel: u8) -> CompileOptions {
    let dialects = ["rfc9309", "draft1996", "robots2", "rfc9309"];
    let dialect: Dialect = from_name(dialects[usize::from(sel & 3)]).unwrap_or(Dialect::Rfc9309);
    CompileOptions {
        dialect,
        url_mode: if sel & 4 == 0 { UrlMode::Google } else { UrlMode::Rfc },
        robots_txt_allowed: sel & 8 == 0,
        budget: Budget {
            max_states: 20_000,
            max_threads: 400_000,
            total_bytes: 32 << 20,
            time: Duration::from_secs(2),
            max_automata: 64,
        },
        ..CompileOptions::default()
    }
}

/// Copies `data` into 16-byte aligned memory, as a file read or mmap gives.
pub fn aligned(data: &[u8]) -> rkyv::util::AlignedVec<16> {
    let mut v = rkyv::util::AlignedVec::<16>::with_capacity(data.len());
    v.extend_from_slice(data);
    v
}
