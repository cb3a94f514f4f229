//! Layout experiment: the engine's compact program against the dense `u32`
//! table layout robocc used before (format version 2: one row of
//! `classes + 1` words per state, decided states numbered last), holding the
//! same automaton, on the same URLs, in one process.
//!
//! `cargo run --release -p robocc-bench --bin layout -- FILE...`

use robocc_bench::{median_time, Workload};
use robocc_engine::program::{decode, Node, Target, END_CLASS};
use robocc_engine::url::path_parts;
use robocc_engine::Policy;
use std::hint::black_box;

/// The previous layout: premultiplied rows, outcome in the last column.
struct Dense {
    classes: [u8; 256],
    stride: u32,
    trans: Vec<u32>,
    start: u32,
    first_decided: u32,
}

/// Expands a program into the previous layout: one state per node and
/// chain position, then one sink per outcome.
fn dense(a: &robocc_engine::artifact::Automaton) -> Dense {
    let (start, nodes, _) = decode(a).expect("compiler output decodes");
    let classes_len = usize::from(a.classes_len);
    let stride = classes_len + 1;
    // First state of each node (chains take one state per position).
    let mut first = Vec::with_capacity(nodes.len());
    let mut n = 0;
    for node in &nodes {
        first.push(n);
        n += match node {
            Node::Chain { classes, .. } => classes.len(),
            _ => 1,
        };
    }
    let outcome_of = |node: &Node| match node {
        Node::Dense { outcome, .. }
        | Node::Sparse { outcome, .. }
        | Node::Chain { outcome, .. } => *outcome,
    };
    let outcomes = nodes
        .iter()
        .map(outcome_of)
        .max()
        .map_or(0, |m| m as usize + 1)
        .max(
            nodes
                .iter()
                .flat_map(|node| match node {
                    Node::Dense { row, .. } => row.clone(),
                    Node::Sparse {
                        default,
                        exceptions,
                        ..
                    } => std::iter::once(*default)
                        .chain(exceptions.iter().map(|e| e.1))
                        .collect(),
                    Node::Chain { default, next, .. } => vec![*default, *next],
                })
                .chain(std::iter::once(start))
                .filter_map(|t| match t {
                    Target::Outcome(o) => Some(o as usize + 1),
                    Target::Node(_) => None,
                })
                .max()
                .unwrap_or(0),
        );
    let sink = |o: u32| (n + o as usize) * stride;
    let state = |t: Target| -> usize {
        match t {
            Target::Node(i) => first[i as usize] * stride,
            Target::Outcome(o) => sink(o),
        }
    };
    // A fallback node's miss reads the class again at its dense row.
    let miss = |default: Target, fallback: bool, c: usize| -> usize {
        match (fallback, default) {
            (true, Target::Node(i)) => match &nodes[i as usize] {
                Node::Dense { row, .. } => state(row[c]),
                _ => unreachable!("fallback to a dense row"),
            },
            _ => state(default),
        }
    };
    let mut trans = vec![0u32; (n + outcomes) * stride];
    for (i, node) in nodes.iter().enumerate() {
        let o = outcome_of(node);
        let positions = match node {
            Node::Chain { classes, .. } => classes.len(),
            _ => 1,
        };
        for j in 0..positions {
            let base = (first[i] + j) * stride;
            for c in 0..classes_len {
                let t = if c == usize::from(END_CLASS) {
                    sink(o)
                } else {
                    match node {
                        Node::Dense { row, .. } => state(row[c]),
                        Node::Sparse {
                            default,
                            exceptions,
                            fallback,
                            ..
                        } => match exceptions.iter().find(|e| usize::from(e.0) == c) {
                            Some(e) => state(e.1),
                            None => miss(*default, *fallback, c),
                        },
                        Node::Chain {
                            default,
                            classes,
                            next,
                            fallback,
                            ..
                        } => {
                            if usize::from(classes[j]) != c {
                                miss(*default, *fallback, c)
                            } else if j + 1 < classes.len() {
                                base + stride
                            } else {
                                state(*next)
                            }
                        }
                    }
                };
                trans[base + c] = t as u32;
            }
            trans[base + classes_len] = o;
        }
    }
    for o in 0..outcomes {
        let base = (n + o) * stride;
        for c in 0..classes_len {
            trans[base + c] = base as u32;
        }
        trans[base + classes_len] = o as u32;
    }
    Dense {
        classes: a.classes.as_slice().try_into().unwrap(),
        stride: stride as u32,
        trans,
        start: state(start) as u32,
        first_decided: (n * stride) as u32,
    }
}

/// The previous engine's loop (Google mode, one automaton): outcome id.
#[inline(always)]
fn run_dense(d: &Dense, url: &[u8]) -> u32 {
    let parts = path_parts(url);
    let next =
        |s: u32, b: u8| -> u32 { d.trans[s as usize + usize::from(d.classes[usize::from(b)])] };
    let mut s = d.start;
    if parts.slash && s < d.first_decided {
        s = next(s, b'/');
    }
    if s < d.first_decided {
        for &b in parts.rest {
            s = next(s, b);
            if s >= d.first_decided {
                break;
            }
        }
    }
    d.trans[(s + d.stride - 1) as usize]
}

fn main() {
    println!("| file | dense u32 table bytes | program bytes | dense checks/s | program checks/s | program/dense |");
    println!("|---|---:|---:|---:|---:|---:|");
    for file in std::env::args().skip(1) {
        let body = std::fs::read(&file).unwrap();
        let name = std::path::Path::new(&file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let w = Workload::new(&name, body, "Googlebot", 20_000);
        if w.compiled.data.automata.len() > 1 {
            println!("| {name} | — | — | — | — | (split path: several automata) |");
            continue;
        }
        if !w.compiled.data.automata[0].ranked.is_empty() {
            println!("| {name} | — | — | — | — | (register automaton: no dense equivalent) |");
            continue;
        }
        let a = &w.compiled.data.automata[0];
        let d = dense(a);
        if std::env::var_os("LAYOUT_NODES").is_some() {
            let (_, nodes, _) = decode(a).unwrap();
            let count = |f: fn(&Node) -> bool| nodes.iter().filter(|n| f(n)).count();
            eprintln!(
                "{name}: {} dense, {} sparse, {} chains",
                count(|n| matches!(n, Node::Dense { .. })),
                count(|n| matches!(n, Node::Sparse { .. })),
                count(|n| matches!(n, Node::Chain { .. }))
            );
        }
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let outcomes = &w.compiled.data.outcomes;
        for u in &w.urls {
            let word = outcomes[run_dense(&d, u) as usize];
            let v = policy.check(u);
            assert_eq!(
                word >> 31 == 1,
                v.allowed,
                "{name}: {}",
                String::from_utf8_lossy(u)
            );
        }
        // LAYOUT_ONLY=dense|program runs one side only (for callgrind).
        match std::env::var("LAYOUT_ONLY").as_deref() {
            Ok("dense") => {
                w.urls.iter().for_each(|u| {
                    black_box(run_dense(&d, black_box(u)));
                });
                continue;
            }
            Ok("program") => {
                w.urls.iter().for_each(|u| {
                    black_box(policy.check(black_box(u)));
                });
                continue;
            }
            _ => {}
        }
        let n = w.urls.len() as f64;
        let rd = n / median_time(9, || {
            w.urls.iter().for_each(|u| {
                black_box(run_dense(&d, black_box(u)));
            })
        })
        .as_secs_f64();
        let rp = n / median_time(9, || {
            w.urls.iter().for_each(|u| {
                black_box(policy.check(black_box(u)));
            })
        })
        .as_secs_f64();
        println!(
            "| {name} | {} | {} | {:.1} M | {:.1} M | {:.2} |",
            d.trans.len() * 4,
            a.prog.len(),
            rd / 1e6,
            rp / 1e6,
            rp / rd
        );
    }
}
