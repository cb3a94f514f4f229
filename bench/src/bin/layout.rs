//! Table-layout experiment: the engine's u32 rows against the same automaton
//! stored as u16 rows, on the same paths, in one process.
//!
//! `cargo run --release -p robocc-bench --bin layout -- FILE...`

use robocc_bench::{median_time, Workload};
use robocc_engine::artifact::Automaton;
use robocc_engine::url::path_parts;
use std::hint::black_box;

/// The engine's loop, over any row type (Google mode, one automaton).
#[inline(always)]
fn run<T: Copy + Into<u32>>(a: &Automaton, trans: &[T], url: &[u8]) -> u32 {
    let parts = path_parts(url);
    let classes: &[u8; 256] = a.classes.as_slice().try_into().unwrap();
    let next =
        |s: u32, b: u8| -> u32 { trans[s as usize + usize::from(classes[usize::from(b)])].into() };
    let mut s = a.start;
    if parts.slash {
        s = next(s, b'/');
    }
    if s < a.first_decided {
        for &b in parts.rest {
            s = next(s, b);
            if s >= a.first_decided {
                break;
            }
        }
    }
    trans[(s + a.stride - 1) as usize].into()
}

fn main() {
    println!("| file | states | u32 table bytes | u32 checks/s | u16 checks/s | u16/u32 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for file in std::env::args().skip(1) {
        let body = std::fs::read(&file).unwrap();
        let name = std::path::Path::new(&file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let w = Workload::new(&name, body, "Googlebot", 20_000);
        let a = &w.compiled.data.automata[0];
        if w.compiled.data.automata.len() > 1 || a.trans.iter().any(|&t| t > u32::from(u16::MAX)) {
            println!("| {name} | — | — | — | — | (split path or too large for u16) |");
            continue;
        }
        let t16: Vec<u16> = a.trans.iter().map(|&t| t as u16).collect();
        let n = w.urls.len() as f64;
        let r32 = n / median_time(9, || {
            w.urls.iter().for_each(|u| {
                black_box(run(a, &a.trans, black_box(u)));
            })
        })
        .as_secs_f64();
        let r16 = n / median_time(9, || {
            w.urls.iter().for_each(|u| {
                black_box(run(a, &t16, black_box(u)));
            })
        })
        .as_secs_f64();
        for u in &w.urls {
            assert_eq!(run(a, &a.trans, u), run(a, &t16, u));
        }
        println!(
            "| {name} | {} | {} | {:.1} M | {:.1} M | {:.2} |",
            a.trans.len() / a.stride as usize,
            a.trans.len() * 4,
            r32 / 1e6,
            r16 / 1e6,
            r16 / r32
        );
    }
}
