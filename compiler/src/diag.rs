//! Diagnostics: what the compiler noticed, ignored or worked around.

use std::fmt;

/// How much a diagnostic matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; nothing was lost.
    Info,
    /// Something in the input was ignored or changed.
    Warning,
}

/// One finding, tied to a source line (0: the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line, or 0 when the finding is about the whole file.
    pub line: u32,
    /// How much it matters.
    pub severity: Severity,
    /// What happened, in one sentence.
    pub message: String,
}

impl Diagnostic {
    /// Makes a diagnostic.
    pub fn new(line: u32, severity: Severity, message: String) -> Diagnostic {
        Diagnostic {
            line,
            severity,
            message,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
        };
        if self.line == 0 {
            write!(f, "{sev}: {}", self.message)
        } else {
            write!(f, "line {}: {sev}: {}", self.line, self.message)
        }
    }
}
