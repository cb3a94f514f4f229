//! Where the tests find the checkout's files and the shared corpus.

use std::path::{Path, PathBuf};

/// The workspace root (every crate sits one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testkit sits one level below the workspace root")
        .to_path_buf()
}

/// The shared real-world corpus beside the checkout (`../shared/corpus/real`),
/// when present.
///
/// A test that samples it passes without it on a developer's machine, but
/// with `ROBOCC_REQUIRE_SHARED=1` (set by `.ci/run`) its absence is a
/// failure: a corpus test must not pass without checking anything.
pub fn shared_real() -> Option<PathBuf> {
    let p = root().join("../shared/corpus/real");
    if p.is_dir() {
        return Some(p);
    }
    if std::env::var_os("ROBOCC_REQUIRE_SHARED").is_some_and(|v| v == "1") {
        panic!(
            "ROBOCC_REQUIRE_SHARED=1 but {} is not a directory: the corpus tests need ../shared beside the checkout",
            p.display()
        );
    }
    None
}
