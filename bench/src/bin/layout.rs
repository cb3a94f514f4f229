//! Layout experiment: the engine's program (the default layout, or
//! `--layout`'s) against the dense `u32`
//! table layout robocc used before (format version 2: one row of
//! `classes + 1` words per state, decided states numbered last), holding the
//! same automaton, on the same URLs, in one process.
//!
//! Both layouts are timed through the same minimal loop (find the path, walk,
//! return the outcome id: `Policy::outcome_id` for the program), so the ratio
//! is the layout's; `Policy::check`, which also maps the outcome to a
//! verdict, is printed beside it.
//!
//! `cargo run --release -p robocc-bench --bin layout -- [--layout auto|compact|dense] FILE...`
//!
//! `LAYOUT_NODES=1` prints each automaton's node kinds; `LAYOUT_HOT=1` where
//! the walks spend their steps (per node kind, and the most visited nodes);
//! `LAYOUT_ONLY=dense|program` runs one side once, for callgrind.

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
/// Not inlined, like `Policy::outcome_id`: both sides pay one call per URL
/// (and callgrind can count each by name).
#[inline(never)]
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
    // `--layout L`: the program side compiled in that layout (default auto).
    let mut options = robocc_compiler::CompileOptions::default();
    let mut files = Vec::new();
    let mut args = robocc_bench::args::Args::new("layout FILE... [--layout auto|compact|dense]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--layout" => options.budget.layout = args.layout(),
            _ => files.push(args.operand(a)),
        }
    }
    let files = args.files(files);
    println!("| file | dense u32 table bytes | program bytes | dense walks/s | program walks/s | walk ratio (program/dense) | program checks/s (Policy::check) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, body) in files {
        let w = Workload::with_options(&name, body, "Googlebot", robocc_bench::URLS, &options);
        if w.compiled.data.automata.len() > 1 {
            println!("| {name} | — | — | — | — | (split path: several automata) | |");
            continue;
        }
        if !w.compiled.data.automata[0].ranked.is_empty() {
            println!("| {name} | — | — | — | — | (register automaton: no dense equivalent) | |");
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
        if std::env::var_os("LAYOUT_HOT").is_some() {
            hot_profile(&name, a, &d, &w.urls);
        }
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let outcomes = &w.compiled.data.outcomes;
        for u in &w.urls {
            let o = run_dense(&d, u);
            assert_eq!(o, policy.outcome_id(u).get(), "{name}");
            let word = outcomes[o as usize];
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
                    black_box(policy.outcome_id(black_box(u)));
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
                black_box(policy.outcome_id(black_box(u)));
            })
        })
        .as_secs_f64();
        let rc = n / median_time(9, || {
            w.urls.iter().for_each(|u| {
                black_box(policy.check(black_box(u)));
            })
        })
        .as_secs_f64();
        println!(
            "| {name} | {} | {} | {:.1} M | {:.1} M | {:.2} | {:.1} M |",
            d.trans.len() * 4,
            a.prog.len(),
            rd / 1e6,
            rp / 1e6,
            rp / rd,
            rc / 1e6
        );
    }
}

/// Where the walks of `urls` spend their steps: visits per node kind, and
/// the most visited nodes (`LAYOUT_HOT=1`).
fn hot_profile(name: &str, a: &robocc_engine::artifact::Automaton, d: &Dense, urls: &[Vec<u8>]) {
    let (_, nodes, _) = decode(a).unwrap();
    let stride = d.stride as usize;
    let mut node_of = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let k = match node {
            Node::Chain { classes, .. } => classes.len(),
            _ => 1,
        };
        node_of.extend(std::iter::repeat_n(i, k));
    }
    let mut visits = vec![0u64; nodes.len()];
    for u in urls {
        let parts = path_parts(u);
        let mut s = d.start;
        let mut bytes: Vec<u8> = Vec::new();
        if parts.slash {
            bytes.push(b'/');
        }
        bytes.extend_from_slice(parts.rest);
        for &b in &bytes {
            if s >= d.first_decided {
                break;
            }
            visits[node_of[s as usize / stride]] += 1;
            s = d.trans[s as usize + usize::from(d.classes[usize::from(b)])];
        }
    }
    let kind = |n: &Node| match n {
        Node::Dense { .. } => "dense".to_string(),
        Node::Sparse {
            exceptions,
            fallback,
            ..
        } => format!(
            "sparse{}{}",
            exceptions.len(),
            if *fallback { "F" } else { "" }
        ),
        Node::Chain {
            classes, fallback, ..
        } => format!("chain{}{}", classes.len(), if *fallback { "F" } else { "" }),
    };
    let total: u64 = visits.iter().sum();
    let mut by_kind = std::collections::BTreeMap::new();
    for (n, v) in nodes.iter().zip(&visits) {
        let k = match n {
            Node::Dense { .. } => "dense",
            Node::Sparse { .. } => "sparse",
            Node::Chain { .. } => "chain",
        };
        *by_kind.entry(k).or_insert(0u64) += v;
    }
    eprintln!(
        "{name}: {} steps/URL; {:?}",
        total as f64 / urls.len() as f64,
        by_kind
            .iter()
            .map(|(k, v)| (k, *v as f64 / total as f64))
            .collect::<Vec<_>>()
    );
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(visits[i]));
    for &i in order.iter().take(12) {
        eprintln!(
            "  node {i:4} {:10} {:.3} steps/URL",
            kind(&nodes[i]),
            visits[i] as f64 / urls.len() as f64
        );
    }
}
