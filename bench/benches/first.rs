//! First answers alone (the report includes the same tables):
//! `cargo bench -p robocc-bench --bench first -- [STEP] [URLS]` measures
//! every STEPth file of ../shared/corpus/real (default 8: ≥ 500 files)
//! with URLS URLs each (default 1,000) and prints the tables.

#[path = "shared/first_answers.rs"]
mod first_answers;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let step = args.first().and_then(|s| s.parse().ok()).unwrap_or(8);
    let urls = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1_000);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/real");
    let mut out = String::new();
    first_answers::first_answers(&dir, step, urls, &mut out);
    print!("{out}");
}
