//! robots.txt bytes → groups, rules and records.
//!
//! The stages are one module each: [`lines`] splits the body, [`keys`] splits
//! a line into key and value and says what the key means, [`escape`] encodes
//! rule values, [`agent_value`] is the User-agent value grammar (product
//! tokens, the part of a value that names one), and this module assembles
//! groups. Everything borrows from the input; only rule values that need
//! encoding are copied.
//!
//! Grouping follows Google's robotstxt library (its reading of RFC 9309
//! §2.2.4): consecutive user-agent lines form one group, and a group ends only
//! at a user-agent line that follows an Allow or Disallow line (even one with
//! an empty value). Other records — Sitemap, Crawl-delay, unknown keys — do not
//! end a group unless [`ParseOptions::records_close_groups`] is set.

pub mod acap;
pub mod agent_value;
pub mod escape;
pub mod keys;
pub mod lines;

use crate::diag::{DiagCode, Diagnostic};
pub use keys::LineGrammar;
use keys::{Key, KeyKind, NoPair};
use std::borrow::Cow;

/// Default parse limit: the 500 KiB that RFC 9309 §2.5 requires at least
/// and that Googlebot applies.
pub const DEFAULT_MAX_BYTES: usize = 500 * 1024;

/// How to read a robots.txt file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Bytes read at most; content past it is ignored with a diagnostic.
    /// `0` means no limit (Google's library has none).
    pub max_bytes: usize,
    /// When true, any record other than User-agent (Crawl-delay, Sitemap,
    /// unknown keys…) ends a group like a rule does: the stricter reading of
    /// RFC 9309 §2.2.4's grammar. Google's reading (false) is the default.
    pub records_close_groups: bool,
    /// When true, a blank line ends a record (the 1996 draft's grammar, used
    /// by draft1996 and robots2): the next user-agent line starts a new
    /// group even if the record had no rule. Rules that follow a blank line
    /// without a new user-agent line stay in the record, with a warning.
    pub blank_lines_end_records: bool,
    /// Bytes kept of one line; the rest of the line is ignored with a
    /// warning. Default [`lines::MAX_LINE_LEN`] (Google's).
    pub max_line_len: usize,
    /// Rules kept per group; later ones are ignored with a warning. The
    /// default, [`DEFAULT_MAX_RULES_PER_GROUP`], is out of reach of a file
    /// within the default parse limit, so it only bounds unlimited parses.
    pub max_rules_per_group: usize,
    /// How lines are split into key and value and keys read: Google's
    /// leniency (the default) or the 1996 draft's grammar. The dialect sets
    /// it (`CompileOptions::effective_parse`).
    pub line_grammar: LineGrammar,
}

/// Default rules per group: 100,000 (a 500 KiB file holds at most ~64,000).
pub const DEFAULT_MAX_RULES_PER_GROUP: usize = 100_000;

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            records_close_groups: false,
            blank_lines_end_records: false,
            max_line_len: lines::MAX_LINE_LEN,
            max_rules_per_group: DEFAULT_MAX_RULES_PER_GROUP,
            line_grammar: LineGrammar::Google,
        }
    }
}

impl ParseOptions {
    /// The 1996 draft's grammar: blank lines end records, any field line
    /// is a rule line, whole field names with a colon.
    pub fn records() -> ParseOptions {
        ParseOptions {
            blank_lines_end_records: true,
            records_close_groups: true,
            line_grammar: LineGrammar::Draft,
            ..ParseOptions::default()
        }
    }
}

/// Allow or Disallow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `Allow:`
    Allow,
    /// `Disallow:`
    Disallow,
}

/// An Allow or Disallow line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule<'a> {
    /// Allow or Disallow.
    pub kind: RuleKind,
    /// The value encoded as Google does (bytes >= 0x80 as `%XX`, `%xx`
    /// upper-cased). Empty means "no rule": it never decides anything.
    pub pattern: Cow<'a, [u8]>,
    /// The value as written.
    pub raw: &'a [u8],
    /// 1-based source line.
    pub line: u32,
}

/// A record that is not a rule: Crawl-delay, Sitemap, unknown keys…
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// What the key means.
    pub kind: KeyKind,
    /// The key as written (trimmed).
    pub key: &'a [u8],
    /// The value as written (trimmed).
    pub value: &'a [u8],
    /// 1-based source line.
    pub line: u32,
}

impl Record<'_> {
    /// Is it a `Content-Usage` line (aipref attach-05 §3)? A key Google's
    /// grammar does not know, so matched whole, ASCII case ignored.
    pub fn is_content_usage(&self) -> bool {
        is_content_usage(self.kind, self.key)
    }
}

/// A user-agent line of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentLine<'a> {
    /// The value as written (trimmed).
    pub value: &'a [u8],
    /// 1-based source line.
    pub line: u32,
}

/// A group: its user-agent lines, then its rules and records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group<'a> {
    /// The user-agent lines that start the group.
    pub agents: Vec<AgentLine<'a>>,
    /// Allow/Disallow lines, in file order (empty values included).
    pub rules: Vec<Rule<'a>>,
    /// Per-group records (Crawl-delay, Request-rate, unknown keys, …).
    pub records: Vec<Record<'a>>,
    /// Rules ignored past [`ParseOptions::max_rules_per_group`].
    pub dropped_rules: usize,
}

/// A parsed robots.txt.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RobotsTxt<'a> {
    /// Groups in file order.
    pub groups: Vec<Group<'a>>,
    /// Records that belong to the file: Sitemap, Host, Clean-param, and
    /// per-group records that appeared before any user-agent line.
    pub global: Vec<Record<'a>>,
    /// Allow/Disallow lines before the first user-agent line (ignored).
    pub orphan_rules: Vec<Rule<'a>>,
    /// What was odd, ignored or cut.
    pub diagnostics: Vec<Diagnostic>,
    /// Number of lines read.
    pub line_count: u32,
    /// Bytes of the body that were parsed (after the limit).
    pub bytes_parsed: usize,
    /// Bytes ignored because of the parse limit.
    pub bytes_ignored: usize,
}

impl<'a> RobotsTxt<'a> {
    /// Every rule of every group, with its group index.
    pub fn rules(&self) -> impl Iterator<Item = (usize, &Rule<'a>)> {
        self.groups
            .iter()
            .enumerate()
            .flat_map(|(g, group)| group.rules.iter().map(move |r| (g, r)))
    }

    /// Global records of one kind.
    pub fn global_values(&self, kind: KeyKind) -> impl Iterator<Item = &Record<'a>> {
        self.global.iter().filter(move |r| r.kind == kind)
    }
}

/// Parses a robots.txt body. Never fails: whatever cannot be used is
/// reported in [`RobotsTxt::diagnostics`].
pub fn parse<'a>(body: &'a [u8], options: &ParseOptions) -> RobotsTxt<'a> {
    parse_grouped(body, options, false)
}

/// [`parse`], with `Content-Usage` lines read as rules when
/// `usage_is_rule`: aipref attach-05 §3 adds the line to RFC 9309's `rule`
/// production, so a user-agent line after it starts a new group. The
/// preference channels' grouping (`signals`); crawl never reads it.
pub(crate) fn parse_grouped<'a>(
    body: &'a [u8],
    options: &ParseOptions,
    usage_is_rule: bool,
) -> RobotsTxt<'a> {
    let mut out = RobotsTxt::default();
    let limited = apply_limit(body, options.max_bytes, &mut out);
    let mut builder = GroupBuilder::new(out, options);
    builder.usage_is_rule = usage_is_rule;
    for line in lines::Lines::with_max_len(limited, options.max_line_len) {
        builder.line(line);
    }
    builder.finish()
}

/// Assembles groups line by line: what [`parse`] carries from one line to
/// the next, and one method per kind of line.
struct GroupBuilder<'a, 'o> {
    options: &'o ParseOptions,
    out: RobotsTxt<'a>,
    /// Index of the group being filled.
    current: Option<usize>,
    /// The current group has seen a line that closes it (a rule, or any
    /// record under `records_close_groups`, or a blank line under
    /// `blank_lines_end_records`): the next user-agent line starts a new
    /// group.
    closed: bool,
    /// A blank line ended the current record (draft grammar) and no line has
    /// been attached to it since.
    after_blank: bool,
    /// A `Content-Usage` line closes the group ([`parse_grouped`]).
    usage_is_rule: bool,
}

impl<'a, 'o> GroupBuilder<'a, 'o> {
    fn new(out: RobotsTxt<'a>, options: &'o ParseOptions) -> GroupBuilder<'a, 'o> {
        GroupBuilder {
            options,
            out,
            current: None,
            closed: false,
            after_blank: false,
            usage_is_rule: false,
        }
    }

    fn diagnose(&mut self, line: u32, code: DiagCode, message: String) {
        self.out
            .diagnostics
            .push(Diagnostic::new(line, code, message));
    }

    /// `fact` with the text that says why under the grammar in use.
    fn cite(&self, fact: &str, rfc9309: &str, draft: &str) -> String {
        let why = match self.options.line_grammar {
            LineGrammar::Google => rfc9309,
            LineGrammar::Draft | LineGrammar::Robots2 => draft,
        };
        format!("{fact} {why}")
    }

    /// Reads one physical line.
    fn line(&mut self, line: lines::Line<'a>) {
        self.out.line_count = line.number;
        self.check_bytes(&line);
        match self.options.line_grammar.split(line.text) {
            Ok((key_text, value)) => self.key_value(line.number, key_text, value),
            Err(NoPair::Empty) => self.empty(&line),
            Err(why) => self.unreadable(line.number, why),
        }
    }

    /// What was lost of the line's bytes: a cut tail, a NUL.
    fn check_bytes(&mut self, line: &lines::Line<'a>) {
        if line.cut > 0 {
            let message = format!(
                "line is longer than {} bytes: the last {} bytes were ignored",
                self.options.max_line_len, line.cut
            );
            self.diagnose(line.number, DiagCode::LineTooLong, message);
        }
        if line.text.contains(&0) {
            self.diagnose(
                line.number,
                DiagCode::NulByte,
                "NUL byte: the rest of the line was ignored".to_string(),
            );
        }
    }

    /// A blank or comment-only line: under the draft's grammar a blank one
    /// ends the current record.
    fn empty(&mut self, line: &lines::Line<'a>) {
        let blank = line.text.iter().all(|b| b.is_ascii_whitespace());
        if self.options.blank_lines_end_records && blank && self.current.is_some() {
            self.closed = true;
            self.after_blank = true;
        }
    }

    /// A line that is not `key: value`: ignored, with a diagnostic.
    fn unreadable(&mut self, number: u32, why: NoPair) {
        let (code, message) = match why {
            NoPair::NoSeparator if self.options.line_grammar != LineGrammar::Google => (
                DiagCode::NoSeparator,
                "no ':' separator: line ignored (the 1996 draft's lines are `Field: value`)",
            ),
            NoPair::NoSeparator => (
                DiagCode::NoSeparator,
                "no ':' separator (and not exactly `key value`): line ignored",
            ),
            _ => (DiagCode::EmptyKey, "empty key before ':': line ignored"),
        };
        self.diagnose(number, code, message.to_string());
    }

    /// A `key: value` line: what the key means decides where it goes.
    fn key_value(&mut self, number: u32, key_text: &'a [u8], value: &'a [u8]) {
        let key = self.options.line_grammar.classify(key_text);
        if key.typo.is_some() {
            let message = format!(
                "key {:?} is read as {:?} (a typo Google accepts)",
                String::from_utf8_lossy(key_text),
                typo_meaning(key)
            );
            self.diagnose(number, DiagCode::TypoKey, message);
        }
        if self.after_blank && key.kind != KeyKind::UserAgent && !key.kind.is_global() {
            self.diagnose(
                number,
                DiagCode::AfterBlankLine,
                "line after a blank line with no new user-agent line: kept in the \
                 record above (the draft's records end at blank lines)"
                    .to_string(),
            );
        }
        self.after_blank = self.after_blank && key.kind.is_global();
        match key.kind {
            KeyKind::UserAgent => self.user_agent(number, value),
            KeyKind::Allow => self.rule(number, RuleKind::Allow, value),
            KeyKind::Disallow => self.rule(number, RuleKind::Disallow, value),
            kind => self.record(number, kind, key_text, value),
        }
    }

    /// A user-agent line extends the current group until that group is
    /// closed; then it starts a new one.
    fn user_agent(&mut self, number: u32, value: &'a [u8]) {
        let g = match self.current {
            Some(g) if !self.closed => g,
            _ => {
                self.out.groups.push(Group::default());
                self.closed = false;
                self.out.groups.len() - 1
            }
        };
        self.current = Some(g);
        self.out.groups[g].agents.push(AgentLine {
            value,
            line: number,
        });
    }

    /// An Allow or Disallow line closes the group; it is kept up to the
    /// per-group limit, and before any user-agent line it is an orphan.
    fn rule(&mut self, number: u32, kind: RuleKind, value: &'a [u8]) {
        let rule = Rule {
            kind,
            pattern: escape::google_escape(value),
            raw: value,
            line: number,
        };
        let max = self.options.max_rules_per_group;
        match self.current {
            Some(g) if self.out.groups[g].rules.len() >= max => {
                self.closed = true;
                if self.out.groups[g].dropped_rules == 0 {
                    let message = format!(
                        "group has more than {max} rules: this and later rules of the \
                         group are ignored"
                    );
                    self.diagnose(number, DiagCode::RulesPerGroupLimit, message);
                }
                self.out.groups[g].dropped_rules += 1;
            }
            Some(g) => {
                self.out.groups[g].rules.push(rule);
                self.closed = true;
            }
            None => {
                self.diagnose(
                    number,
                    DiagCode::RuleBeforeAgent,
                    self.cite(
                        "rule before the first user-agent line: ignored",
                        "(RFC 9309 §2.2.2)",
                        "(the 1996 draft's records start with User-agent lines, §3.3)",
                    ),
                );
                self.out.orphan_rules.push(rule);
            }
        }
    }

    /// Any other record: the group's, or the file's when it is a global
    /// key or comes before any user-agent line. Under
    /// `records_close_groups` it closes the group.
    fn record(&mut self, number: u32, kind: KeyKind, key: &'a [u8], value: &'a [u8]) {
        let record = Record {
            kind,
            key,
            value,
            line: number,
        };
        let usage_rule = self.usage_is_rule && is_content_usage(kind, key);
        if self.current.is_some() && (self.options.records_close_groups || usage_rule) {
            self.closed = true;
        }
        match self.current {
            Some(g) if !kind.is_global() => self.out.groups[g].records.push(record),
            _ => self.out.global.push(record),
        }
    }

    /// The findings about the file as a whole, and the result.
    fn finish(mut self) -> RobotsTxt<'a> {
        if self.out.groups.is_empty() {
            let message = self.cite(
                "no user-agent group: no rules apply, every URL is allowed",
                "(RFC 9309 §2.2.1)",
                "(the 1996 draft §3.2.1: access is unlimited)",
            );
            self.diagnose(0, DiagCode::NoGroup, message);
        }
        let empty_group = self.cite(
            "group has no rules: the agents it names may fetch everything",
            "(RFC 9309 §2.2.2)",
            "(the 1996 draft §3.2.2: a URL no rule matches is allowed)",
        );
        let RobotsTxt {
            groups,
            diagnostics,
            ..
        } = &mut self.out;
        for g in groups
            .iter()
            .filter(|g| g.rules.iter().all(|r| r.raw.is_empty()))
        {
            diagnostics.push(Diagnostic::new(
                g.agents[0].line,
                DiagCode::EmptyGroup,
                empty_group.clone(),
            ));
        }
        self.out
    }
}

/// `kind` and `key` are a `Content-Usage` line's ([`Record::is_content_usage`]).
fn is_content_usage(kind: KeyKind, key: &[u8]) -> bool {
    kind == KeyKind::Unknown && key.eq_ignore_ascii_case(b"content-usage")
}

fn typo_meaning(key: Key) -> &'static str {
    match key.kind {
        KeyKind::UserAgent => "user-agent",
        KeyKind::Disallow => "disallow",
        KeyKind::Sitemap => "sitemap",
        _ => "?",
    }
}

/// Cuts `body` at the parse limit. A line the limit cuts in two is dropped
/// whole: half a rule (`Disallow: /priv` of `/private`) would match URLs the
/// site never named.
/// Bytes of `body` read under parse limit `max` (0: none): whole lines
/// only, up to the last line end within the limit.
pub(crate) fn kept_len(body: &[u8], max: usize) -> usize {
    if max == 0 || body.len() <= max {
        return body.len();
    }
    memchr::memrchr2(b'\n', b'\r', &body[..max]).map_or(0, |i| i + 1)
}

fn apply_limit<'a>(body: &'a [u8], max: usize, out: &mut RobotsTxt<'a>) -> &'a [u8] {
    if max == 0 || body.len() <= max {
        out.bytes_parsed = body.len();
        return body;
    }
    let kept = &body[..kept_len(body, max)];
    out.bytes_parsed = kept.len();
    out.bytes_ignored = body.len() - kept.len();
    // The line number is filled in after parsing; 0 means "end of file".
    out.diagnostics.push(Diagnostic::new(
        0,
        DiagCode::ParseLimit,
        parse_limit_message(body.len(), max, out.bytes_ignored),
    ));
    kept
}

/// The parse limit's finding on a body of `len` bytes.
pub(crate) fn parse_limit_message(len: usize, max: usize, ignored: usize) -> String {
    format!(
        "file is {len} bytes, over the {max}-byte parse limit: the last {ignored} bytes were \
         ignored (the parse ends at the last line break within the limit)"
    )
}

#[cfg(test)]
mod tests;
