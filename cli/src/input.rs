//! Reading the files a command is given: a robots.txt (an artifact in its
//! place refused), a tdmrep.json, any whole file (`-`: standard input).

use crate::diagnostics::printable;
use std::path::Path;

/// `--tdmrep FILE`: the site's tdmrep.json, its findings on stderr.
pub fn read_tdmrep(path: &Path) -> Result<robocc_page::tdmrep::Tdmrep, String> {
    let bytes = read_file(path, "tdmrep.json")?;
    let t = robocc_page::tdmrep::Tdmrep::parse(&bytes).map_err(|e| {
        format!(
            "{}: {e}: give the site's /.well-known/tdmrep.json (a JSON array of \
             {{\"location\": …, \"tdm-reservation\": 0 or 1}} rules)",
            path.display()
        )
    })?;
    // A hostile file can hold 10,000 broken rules: name the first few,
    // count the rest.
    const SHOWN: usize = 20;
    let name = printable(path.as_os_str().as_encoded_bytes());
    for f in t.findings.iter().take(SHOWN) {
        diag!("{name}: warning: {f}");
    }
    if t.findings.len() > SHOWN {
        diag!(
            "{name}: warning: {} more findings not shown (robocc names the first {SHOWN})",
            t.findings.len() - SHOWN
        );
    }
    Ok(t)
}

/// Reads a whole file, with an error that names it.
pub fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        return robocc_compiler::input::read_all(std::io::stdin().lock())
            .map_err(|e| format!("cannot read {what} from standard input: {e}"));
    }
    if path.is_dir() {
        return Err(format!(
            "{} is a directory, not a {what} file",
            path.display()
        ));
    }
    robocc_compiler::input::read_file(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))
}

/// Reads a robots.txt; a robocc artifact given in its place is refused with
/// the flag that reads it.
pub fn read_robots(path: &Path) -> Result<Vec<u8>, String> {
    let body = read_file(path, "robots.txt")?;
    if let Some(kind) = robocc_engine::FileKind::sniff(&body) {
        let flag = match kind {
            robocc_engine::FileKind::Policy => "--policy FILE",
            robocc_engine::FileKind::Store => "--store FILE",
            robocc_engine::FileKind::StoreSet => "--store DIR (the set's directory)",
        };
        return Err(format!(
            "{} is a robocc {}, not a robots.txt (read it with {flag}, or look at it \
             with robocc inspect)",
            path.display(),
            kind.name()
        ));
    }
    Ok(body)
}
