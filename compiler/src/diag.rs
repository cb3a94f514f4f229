//! Diagnostics: what the compiler noticed, ignored or worked around.
//!
//! Each diagnostic carries a [`DiagCode`] saying which finding it is, so a
//! caller (the lint, the command line) can act on the kind without reading
//! the message. Messages state facts about the input; they name no command
//! line flag (the `robocc` binary adds those hints itself, by code).

use std::fmt;

/// How much a diagnostic matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; nothing was lost.
    Info,
    /// Something in the input was ignored or changed.
    Warning,
    /// The input is not a robots.txt as written (lint findings only: a
    /// compile still reads whatever rules a crawler would).
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Which finding a diagnostic is: one code per distinct thing the parser or
/// the compiler reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DiagCode {
    /// The file is longer than the parse limit: its tail was ignored.
    ParseLimit,
    /// A line is longer than the line limit: its tail was ignored.
    LineTooLong,
    /// A NUL byte: the rest of its line was ignored.
    NulByte,
    /// A line with no `:` separator (and not `key value`): ignored.
    NoSeparator,
    /// A line with an empty key before `:`: ignored.
    EmptyKey,
    /// A misspelt key that Google accepts (`Dissallow:`), read as meant.
    TypoKey,
    /// A line after a blank line, in a record grammar where blank lines end
    /// records, with no new user-agent line: kept in the record above.
    AfterBlankLine,
    /// A group has more rules than the per-group limit: later ones ignored.
    RulesPerGroupLimit,
    /// An Allow, Disallow or Content-Usage before the first user-agent
    /// line: ignored.
    RuleBeforeAgent,
    /// The file has no user-agent group: nothing applies.
    NoGroup,
    /// A group has no rules: its agents may fetch everything.
    EmptyGroup,
    /// A robots2 Robot-version line not taken as written.
    Robots2Version,
    /// A Visit-time or Request-rate value that does not parse: ignored.
    TimingValue,
    /// The rules did not fit one automaton: the policy runs several (the
    /// fallback path).
    SplitPath,
    /// The body is UTF-16 (with a byte-order mark, or recognised by its zero
    /// bytes): decoded to UTF-8 before parsing.
    Utf16,
    /// The body looks binary (control bytes, invalid UTF-8), not text.
    NotText,
    /// The body looks like an HTML page.
    Html,
    /// The body is a robocc policy or store, not a robots.txt.
    RoboccFile,
    /// acap: a field ignored where it stands (an ACAP rule outside an ACAP
    /// record, a conventional field inside one, an unknown `ACAP-` key or
    /// usage, an empty value, qualifiers where none may be).
    AcapIgnored,
    /// acap: a definition ignored (after the first ACAP record, a second
    /// definition of a name, malformed).
    AcapDefinition,
    /// acap: a rule names an undefined usage or resource set: dropped.
    AcapUndefined,
    /// acap: a qualifier that is not valid for its usage (kept as written).
    AcapQualifier,
    /// acap: a permissions reference whose file was not supplied (or refers
    /// on): a prohibition of `/` for every usage, which narrower
    /// permissions still override.
    AcapReference,
    /// acap: a record whose fields break 2.3 but are read (addressed to
    /// `*` and to named crawlers; a permissions reference and other
    /// fields).
    AcapRecord,
    /// `--dialect auto`: which dialect the file was read as.
    DialectChosen,
    /// An AI-usage preference line (or part of one) that states nothing:
    /// outside any group, an unknown key or value.
    SignalIgnored,
    /// The AI-usage preference channels did not fit the budget: the
    /// policy answers crawl only, every preference unknown.
    SignalsDropped,
}

impl DiagCode {
    /// How much a finding of this kind matters (the same for every instance).
    pub fn severity(self) -> Severity {
        self.traits().0
    }

    /// Whether a finding of this kind means part of the file was not read
    /// as written (a limit cut it, a line was lost, the body is not text or
    /// was decoded), so that a verdict may differ from what its author
    /// meant. Commands that answer from a robots.txt report these.
    pub fn can_change_verdict(self) -> bool {
        self.traits().1
    }

    /// Each kind's severity and whether it can change a verdict, side by
    /// side: one exhaustive table, so a new kind states both.
    fn traits(self) -> (Severity, bool) {
        use Severity::{Info, Warning};
        match self {
            DiagCode::ParseLimit => (Warning, true),
            DiagCode::LineTooLong => (Warning, true),
            DiagCode::NulByte => (Warning, true),
            DiagCode::NoSeparator => (Warning, true),
            DiagCode::EmptyKey => (Warning, true),
            DiagCode::TypoKey => (Info, false),
            DiagCode::AfterBlankLine => (Warning, false),
            DiagCode::RulesPerGroupLimit => (Warning, true),
            DiagCode::RuleBeforeAgent => (Warning, true),
            DiagCode::NoGroup => (Info, false),
            DiagCode::EmptyGroup => (Info, false),
            DiagCode::Robots2Version => (Warning, false),
            DiagCode::TimingValue => (Warning, false),
            DiagCode::SplitPath => (Info, false),
            DiagCode::Utf16 => (Warning, true),
            DiagCode::NotText => (Warning, true),
            DiagCode::Html => (Warning, true),
            DiagCode::RoboccFile => (Warning, true),
            DiagCode::AcapIgnored => (Warning, true),
            DiagCode::AcapDefinition => (Warning, true),
            DiagCode::AcapUndefined => (Warning, true),
            DiagCode::AcapQualifier => (Warning, false),
            DiagCode::AcapReference => (Warning, true),
            DiagCode::AcapRecord => (Warning, false),
            DiagCode::DialectChosen => (Info, false),
            DiagCode::SignalIgnored => (Warning, false),
            DiagCode::SignalsDropped => (Warning, true),
        }
    }

    /// Whether this finding comes from a limit a caller chose (parse limit,
    /// line length, rules per group): lifting the limit reads what it cut.
    pub fn is_limit(self) -> bool {
        matches!(
            self,
            DiagCode::ParseLimit | DiagCode::LineTooLong | DiagCode::RulesPerGroupLimit
        )
    }

    /// Whether this finding says the body as a whole is not a robots.txt
    /// (binary, HTML, a robocc file): line-level findings after it are
    /// noise.
    pub fn is_not_robots_txt(self) -> bool {
        matches!(
            self,
            DiagCode::NotText | DiagCode::Html | DiagCode::RoboccFile
        )
    }

    /// A short, stable identifier (`parse-limit`, `typo-key`, …) for
    /// machine-readable output.
    pub fn name(self) -> &'static str {
        match self {
            DiagCode::ParseLimit => "parse-limit",
            DiagCode::LineTooLong => "line-too-long",
            DiagCode::NulByte => "nul-byte",
            DiagCode::NoSeparator => "no-separator",
            DiagCode::EmptyKey => "empty-key",
            DiagCode::TypoKey => "typo-key",
            DiagCode::AfterBlankLine => "after-blank-line",
            DiagCode::RulesPerGroupLimit => "rules-per-group-limit",
            DiagCode::RuleBeforeAgent => "rule-before-agent",
            DiagCode::NoGroup => "no-group",
            DiagCode::EmptyGroup => "empty-group",
            DiagCode::Robots2Version => "robots2-version",
            DiagCode::TimingValue => "timing-value",
            DiagCode::SplitPath => "split-path",
            DiagCode::Utf16 => "utf16",
            DiagCode::NotText => "binary",
            DiagCode::Html => "html",
            DiagCode::RoboccFile => "robocc-file",
            DiagCode::AcapIgnored => "acap-ignored",
            DiagCode::AcapDefinition => "acap-definition",
            DiagCode::AcapUndefined => "acap-undefined",
            DiagCode::AcapQualifier => "acap-qualifier",
            DiagCode::AcapReference => "acap-reference",
            DiagCode::AcapRecord => "acap-record",
            DiagCode::DialectChosen => "dialect-chosen",
            DiagCode::SignalIgnored => "signal-ignored",
            DiagCode::SignalsDropped => "signals-dropped",
        }
    }
}

/// One finding, tied to a source line (0: the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line, or 0 when the finding is about the whole file.
    pub line: u32,
    /// Which finding this is.
    pub code: DiagCode,
    /// How much it matters (the code's [`DiagCode::severity`]).
    pub severity: Severity,
    /// What happened, in one sentence.
    pub message: String,
}

impl Diagnostic {
    /// Makes a diagnostic of kind `code`, with that kind's severity.
    pub fn new(line: u32, code: DiagCode, message: String) -> Diagnostic {
        Diagnostic {
            line,
            code,
            severity: code.severity(),
            message,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = self.severity.name();
        if self.line == 0 {
            write!(f, "{sev}: {}", self.message)
        } else {
            write!(f, "line {}: {sev}: {}", self.line, self.message)
        }
    }
}

/// Bytes as a human-readable output shows them (explain's URLs, paths and
/// patterns, inspect's records, lint's findings and the diagnostics' lines): UTF-8
/// text as it is, except that what a terminal would act on or hide is
/// written as `%XX`, one per byte, as a URL carries it — the controls (C0,
/// DEL, C1: a decoded `%0A` would split one explanation over two lines, a
/// `%1B` would send an escape sequence to the terminal), the line and
/// paragraph separators, the bidirectional and zero-width formatting
/// characters, and every byte that is not UTF-8.
pub fn printable(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    fn hidden(c: char) -> bool {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    }
    use std::fmt::Write as _;
    let escape = |out: &mut String, bytes: &[u8]| {
        for b in bytes {
            let _ = write!(out, "%{b:02X}");
        }
    };
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.chars().any(hidden) {
            return std::borrow::Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if hidden(c) {
                escape(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes());
            } else {
                out.push(c);
            }
        }
        escape(&mut out, chunk.invalid());
    }
    std::borrow::Cow::Owned(out)
}

/// A value quoted in a message: `"…"` around its [`printable`] form.
pub(crate) struct Quoted<'a>(pub(crate) &'a [u8]);

impl fmt::Debug for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", printable(self.0))
    }
}

/// [`Quoted`] of text or bytes.
pub(crate) fn quoted<T: AsRef<[u8]> + ?Sized>(value: &T) -> Quoted<'_> {
    Quoted(value.as_ref())
}

#[cfg(test)]
mod printable_tests {
    use super::printable;

    #[test]
    fn printable_escapes_what_a_terminal_acts_on() {
        assert!(matches!(
            printable("/a b/ツ%41".as_bytes()),
            std::borrow::Cow::Borrowed("/a b/ツ%41")
        ));
        assert_eq!(
            printable(b"/a\nb\r\t\x1b[31m\x7f"),
            "/a%0Ab%0D%09%1B[31m%7F"
        );
        // C1 (CSI), a bidirectional override, bytes that are not UTF-8.
        assert_eq!(
            printable("\u{9b}x\u{202e}y".as_bytes()),
            "%C2%9Bx%E2%80%AEy"
        );
        assert_eq!(printable(b"caf\xe9\xff/\xe3\x83"), "caf%E9%FF/%E3%83");
    }
}
