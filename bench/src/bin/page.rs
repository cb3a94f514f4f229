//! page: pages per second and MB per second reading page-level permissions
//! (`robocc_page::PageRules::read`), full body and head-only
//! (stop at `</head>` / `<body>`), over real pages: the HTML files of the
//! shared corpus (served as robots.txt by real sites), or the files given.
//! Also says how many pages have robots META tags in the body and how many
//! get another answer head-only (whether stopping at the head is sound).
//!
//! `cargo run --release -p robocc-bench --bin page -- [FILE…] [--rounds R] [--big MB]`

use robocc_compiler::InputKind;
use robocc_page::{PageOptions, PageRules};
use std::hint::black_box;
use std::time::Instant;

fn read(html: &[u8], head_only: bool) -> PageRules {
    PageRules::read(
        html,
        [("X-Robots-Tag", "noarchive")],
        &PageOptions {
            agent: "googlebot",
            url: "https://example.com/",
            purposes: &[],
            now: Some(1_800_000_000),
            head_only,
            tdmrep: None,
        },
    )
}

fn time(pages: &[Vec<u8>], rounds: usize, head_only: bool) -> (f64, f64, usize) {
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    let mut read_bytes = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        read_bytes = 0;
        for p in pages {
            read_bytes += black_box(read(black_box(p), head_only)).bytes_read;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    (
        pages.len() as f64 / best,
        bytes as f64 / best / 1e6,
        read_bytes,
    )
}

fn main() {
    let mut rounds = 5;
    let mut big_mb = 10;
    let mut files = Vec::new();
    let mut args = robocc_bench::args::Args::new("page [FILE...] [--rounds R] [--big MB]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.rounds(),
            "--big" => big_mb = args.number("--big", 1..=4096),
            _ => files.push(std::path::PathBuf::from(args.operand(a))),
        }
    }
    if let Some(f) = files.iter().find(|f| !f.is_file()) {
        args.fail(&format!("{}: not a file", f.display()));
    }
    if files.is_empty() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/real");
        let mut all: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| args.fail(&format!("{}: {e} (give HTML files)", dir.display())))
            .filter_map(|e| Some(e.ok()?.path()))
            .collect();
        all.sort();
        files = all;
    }
    let pages: Vec<Vec<u8>> = files
        .iter()
        .filter(|p| p.is_file())
        .map(robocc_bench::args::read)
        .filter(|b| robocc_compiler::input::read(b).kind == InputKind::Html)
        .collect();
    if pages.is_empty() {
        args.fail(&format!("no HTML pages among {} files", files.len()));
    }
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
    sizes.sort_unstable();
    println!(
        "{} HTML pages, {:.1} MB, median {} KB, largest {} KB",
        pages.len(),
        bytes as f64 / 1e6,
        sizes.get(sizes.len() / 2).copied().unwrap_or(0) / 1000,
        sizes.last().copied().unwrap_or(0) / 1000
    );
    let (mut in_body, mut differ) = (0, 0);
    for p in &pages {
        let full = read(p, false);
        let head = read(p, true);
        in_body += usize::from(full.metas_in_body > 0 || !full.elements.is_empty());
        let same = robocc_engine::Usage::ACAP
            .iter()
            .all(|&u| full.verdict(u) == head.verdict(u));
        differ += usize::from(!same);
    }
    println!(
        "pages with robots META or ACAP classes after the head: {in_body}; pages whose verdicts differ head-only: {differ}"
    );
    for (what, head_only) in [("full body", false), ("head-only", true)] {
        let (pps, mbps, read_bytes) = time(&pages, rounds, head_only);
        println!(
            "{what:>10}: {pps:>8.0} pages/s  {mbps:>7.1} MB/s of page  ({:.1}% of the bytes tokenized)",
            100.0 * read_bytes as f64 / bytes.max(1) as f64
        );
    }
    // One big page: 10 MB of body after a small head.
    let mut big = b"<!DOCTYPE html><html><head><title>t</title><meta name=robots content=noindex></head><body>".to_vec();
    while big.len() < big_mb * 1_000_000 {
        big.extend_from_slice(b"<div class=\"c\"><p>Lorem ipsum dolor sit amet, <a href=\"/x\">link</a> consectetur &amp; adipiscing.</p><!-- c --><img src=\"/i.png\" alt=\"x\"></div>\n");
    }
    big.extend_from_slice(b"</body></html>");
    let big = vec![big];
    for (what, head_only) in [("full body", false), ("head-only", true)] {
        let (pps, mbps, read_bytes) = time(&big, rounds.min(3), head_only);
        println!(
            "{big_mb} MB page, {what}: {:.3} ms per page, {read_bytes} bytes tokenized ({mbps:.1} MB/s of page)",
            1e3 / pps
        );
    }
}
