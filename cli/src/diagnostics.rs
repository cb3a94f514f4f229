//! How findings and errors are shown on stderr: a compile's diagnostics
//! (three per kind, then a count), a limit's flag, `robocc: error: …`.

use robocc_compiler::diag::{DiagCode, Diagnostic};
use std::path::Path;

pub use robocc_compiler::diag::printable;

/// A diagnostic as the command line prints it: the library's message, and
/// for a limit the flag that raises it (the library names no flags).
pub fn show_diagnostic(d: &Diagnostic) -> String {
    match flag_hint(d.code) {
        Some(hint) => format!("{d} ({hint})"),
        None => d.to_string(),
    }
}

/// The flag that changes what a finding of kind `code` reports, if any.
pub fn flag_hint(code: DiagCode) -> Option<&'static str> {
    match code {
        DiagCode::ParseLimit => Some("raise it with --max-bytes, 0 for no limit"),
        DiagCode::LineTooLong => Some("raise it with --max-line-len, 0 for no limit"),
        DiagCode::RulesPerGroupLimit => Some("raise it with --max-rules, 0 for no limit"),
        _ => None,
    }
}

/// Line-level findings of one kind shown before the rest are counted.
const SHOWN_PER_KIND: usize = 3;

/// Prints `diagnostics` of `path` on stderr, readably: file-level findings
/// each; line-level ones up to three per kind and then a count (all of
/// them with `verbose`); when the body is not a robots.txt at all (HTML,
/// binary), one count of the lines ignored.
pub fn print_diagnostics(path: &Path, diagnostics: &[&Diagnostic], verbose: bool) {
    let p = path.display();
    let not_robots = diagnostics.iter().any(|d| d.code.is_not_robots_txt());
    let mut per_kind: std::collections::BTreeMap<DiagCode, usize> = Default::default();
    let mut hidden: std::collections::BTreeMap<DiagCode, usize> = Default::default();
    for d in diagnostics {
        let seen = per_kind.entry(d.code).or_default();
        *seen += 1;
        let show = verbose || d.line == 0 || (!not_robots && *seen <= SHOWN_PER_KIND);
        if show {
            // A message may quote the file's bytes.
            diag!("{p}: {}", printable(show_diagnostic(d).as_bytes()));
        } else {
            *hidden.entry(d.code).or_default() += 1;
        }
    }
    if hidden.is_empty() {
        return;
    }
    let lines: usize = hidden.values().sum();
    let kinds: Vec<String> = hidden
        .iter()
        .map(|(code, n)| format!("{n} {}", code.name()))
        .collect();
    if not_robots {
        diag!(
            "{p}: {lines} lines ignored as rules ({}); --verbose lists them",
            kinds.join(", ")
        );
    } else {
        diag!(
            "{p}: … and {lines} more like these ({}); --verbose lists every one",
            kinds.join(", ")
        );
    }
}

/// Prints an error the way every command does.
pub fn error(msg: &str) {
    diag!("robocc: error: {msg}");
}
