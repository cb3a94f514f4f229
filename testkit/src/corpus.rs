//! Corpus directories: their files, and the files as store inputs.

use std::path::{Path, PathBuf};

/// Every `*.txt` file under `dir`, sorted.
pub fn txt_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

/// The robots.txt files of a corpus directory as store inputs (status 200),
/// in name order. Corpus file names (`<source>__<site>.txt`) are not host
/// names: each becomes a valid, unique one (characters outside
/// `[a-z0-9.-]` become `-`, and a repeated name gets a numeric suffix).
pub fn inputs(dir: &Path) -> Vec<robocc_store::HostInput> {
    let paths = txt_files(dir);
    let mut seen = std::collections::HashSet::new();
    paths
        .iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_ascii_lowercase();
            let site = stem.rsplit("__").next().unwrap_or(&stem);
            let labels: Vec<String> = site
                .split('.')
                .map(|l| {
                    let l: String = l
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                        .collect();
                    let l = l.trim_matches('-');
                    if l.is_empty() {
                        "x".to_string()
                    } else {
                        l.chars().take(63).collect()
                    }
                })
                .collect();
            let base = labels.join(".");
            let mut host = base.clone();
            let mut n = 1;
            while !seen.insert(host.clone()) {
                n += 1;
                host = format!("{base}-{n}");
            }
            robocc_store::HostInput {
                host,
                status: 200,
                body: Some(std::fs::read(p).unwrap()),
                ..Default::default()
            }
        })
        .collect()
}
