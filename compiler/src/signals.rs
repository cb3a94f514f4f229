//! AI-usage preferences in robots.txt: Content-Usage lines (aipref
//! attach-05 §3, vocab-07 §6), Content-Signal lines (Cloudflare's Content
//! Signals Policy) and training tokens, lowered into the same automaton as
//! the agent's Allow/Disallow rules: its states carry crawl and the three
//! tri-state channels `search`, `train-ai`, `ai-input`
//! (docs/dialects.md, "AI-usage preferences").
//!
//! Each statement is a rule of the rule set with a family ([`SignalRules`]);
//! [`crate::outcome::signals`] resolves the four channels of a state.

use crate::agent::{select, Selection, Via};
use crate::diag::{DiagCode, Diagnostic};
use crate::glob::Glob;
use crate::outcome::signals::channel;
pub use crate::outcome::signals::{Family, Pref, SignalRule, SignalRules};
use crate::outcome::Resolution;
use crate::parse::keys::KeyKind;
use crate::parse::{Record, RobotsTxt};
use crate::ruleset::{self, RuleSet, SetRule};
use robocc_engine::artifact::{PatternSyntax, RuleOrigin};
use robocc_engine::{RankClass, UrlMode, Usage};

/// A syntax that states preferences with labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// aipref's Content-Usage (robots.txt rule and HTTP header field).
    ContentUsage,
    /// Cloudflare's Content-Signal (robots.txt).
    ContentSignal,
}

/// One label of the vocabulary: what a syntax writes for a channel.
#[derive(Clone, Copy, Debug)]
pub struct Label {
    /// Where it is written.
    pub syntax: Syntax,
    /// As written (matched exactly for Content-Usage, whose keys are
    /// lowercase, and ignoring ASCII case for Content-Signal).
    pub label: &'static str,
    /// The channel.
    pub usage: Usage,
    /// What it means, in the source's words.
    pub definition: &'static str,
    /// The source and revision implemented.
    pub source: &'static str,
}

/// The vocabulary, one row per label (docs/dialects.md, "Channels"): a
/// later label is one more row, as aipref's `ai-use` was (issue 46).
/// `noai`, TDMRep and training tokens are statements, not labels: the page
/// stage and the rule set (`signals::add`) give them their channels.
pub const VOCABULARY: &[Label] = &[
    Label {
        syntax: Syntax::ContentUsage,
        label: "train-ai",
        usage: Usage::TrainAi,
        definition: "using an asset to modify the learned parameters of an AI model",
        source: "draft-ietf-aipref-vocab-07 §4.1",
    },
    Label {
        syntax: Syntax::ContentUsage,
        label: "search",
        usage: Usage::Search,
        definition: "use in an application whose primary purpose is to select assets and \
                     direct users to their location",
        source: "draft-ietf-aipref-vocab-07 §4.2",
    },
    Label {
        syntax: Syntax::ContentUsage,
        label: "ai-use",
        usage: Usage::AiInput,
        definition: "use of an asset as input to a generative AI model, where the asset is not \
                     directly provided by the user",
        source: "draft-ietf-aipref-vocab editor's copy, ietf-wg-aipref/drafts commit 008bd89 \
                 (after -07) §4.2",
    },
    Label {
        syntax: Syntax::ContentSignal,
        label: "search",
        usage: Usage::Search,
        definition: "building a search index and providing search results (links and short \
                     excerpts)",
        source: "Content Signals Policy, contentsignals.org (September 2025)",
    },
    Label {
        syntax: Syntax::ContentSignal,
        label: "ai-train",
        usage: Usage::TrainAi,
        definition: "training or fine-tuning AI models",
        source: "Content Signals Policy, contentsignals.org (September 2025)",
    },
    Label {
        syntax: Syntax::ContentSignal,
        label: "ai-input",
        usage: Usage::AiInput,
        definition: "inputting content into AI models at answer time (retrieval augmented \
                     generation, grounding, generative AI search answers)",
        source: "Content Signals Policy, contentsignals.org (September 2025)",
    },
];

/// The channel `key` names in `syntax`, if it is in [`VOCABULARY`].
pub fn label(syntax: Syntax, key: &[u8]) -> Option<Usage> {
    VOCABULARY
        .iter()
        .find(|l| {
            l.syntax == syntax
                && match syntax {
                    Syntax::ContentUsage => l.label.as_bytes() == key,
                    Syntax::ContentSignal => l.label.as_bytes().eq_ignore_ascii_case(key),
                }
        })
        .map(|l| l.usage)
}

/// The labels of `syntax`, for messages: `train-ai, ai-use, search`.
pub fn labels(syntax: Syntax) -> String {
    VOCABULARY
        .iter()
        .filter(|l| l.syntax == syntax)
        .map(|l| l.label)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which groups the preference lines belong to (docs/dialects.md, "Which
/// lines apply"). Crawl is always Google's grouping; this is the
/// preference channels' own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PreferenceGrouping {
    /// Each syntax as the text that defines it reads: a `Content-Usage`
    /// line is a rule of RFC 9309's grammar (aipref attach-05 §3), so a
    /// user-agent line after it starts a new group; a `Content-Signal`
    /// line is a record of the groups crawl reads (the Content Signals
    /// Policy adds a line to robots.txt's groups and defines no grammar).
    #[default]
    Spec,
    /// Every preference line in the groups crawl reads (Google's grouping,
    /// where a line it does not know never ends a group): robocc's reading
    /// before issue 46, and Google-compatible parsers'.
    Crawl,
}

impl PreferenceGrouping {
    /// Both, in the order of their numbers.
    pub const ALL: [PreferenceGrouping; 2] = [PreferenceGrouping::Spec, PreferenceGrouping::Crawl];

    /// The name the command line, Python and the conformance cases use.
    pub fn name(self) -> &'static str {
        match self {
            PreferenceGrouping::Spec => "spec",
            PreferenceGrouping::Crawl => "crawl",
        }
    }

    /// The grouping named `name` ([`PreferenceGrouping::name`]).
    pub fn from_name(name: &str) -> Option<PreferenceGrouping> {
        PreferenceGrouping::ALL
            .into_iter()
            .find(|g| g.name() == name)
    }
}

/// The groups the agent's `Content-Usage` lines are taken from, when they
/// are not the crawl's ([`PreferenceGrouping::Spec`]): a second parse of
/// the same text with those lines read as rules, and its selection.
pub(crate) struct UsageGroups<'r, 'a> {
    /// The text parsed with Content-Usage lines as rules.
    pub(crate) robots: &'r RobotsTxt<'a>,
    /// The agent's groups in it.
    pub(crate) selection: &'r Selection,
}

/// Adds the agent's signal statements to `set` (an rfc9309 rule set) as
/// rules; returns whether there were any (else `set` is unchanged).
/// `usage`: where Content-Usage lines are grouped otherwise than crawl's.
pub(crate) fn add(
    set: &mut RuleSet,
    robots: &RobotsTxt<'_>,
    selection: &Selection,
    usage: Option<UsageGroups<'_, '_>>,
    training_agents: &[String],
    options: ruleset::RuleSetOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let mut extra: Vec<(SetRule, SignalRule)> = Vec::new();
    for (g, r) in agent_records(robots, selection) {
        if r.kind == KeyKind::ContentSignal {
            extra.push(content_signal(r.value, r.line, g, diagnostics));
        } else if r.is_content_usage() && usage.is_none() {
            extra.push(content_usage(r.value, r.line, g, set.url_mode));
        }
    }
    if let Some(u) = &usage {
        // Named by the crawl's group that holds the line, as every other
        // statement is: the group the artifact's group lines list.
        for (_, r) in agent_records(u.robots, u.selection) {
            if r.is_content_usage() {
                let g = crawl_group_of(robots, r.line);
                extra.push(content_usage(r.value, r.line, g, set.url_mode));
            }
        }
    }
    // File-level Content-Signal lines (before the first group) speak for
    // every crawler (docs/dialects.md: a choice).
    for r in robots.global.iter() {
        if r.kind == KeyKind::ContentSignal {
            extra.push(content_signal(r.value, r.line, u32::MAX, diagnostics));
        } else if r.is_content_usage() {
            // A rule lost to its place, as an Allow/Disallow there is: one
            // that commands answering from the file report.
            diagnostics.push(Diagnostic::new(
                r.line,
                DiagCode::RuleBeforeAgent,
                "Content-Usage before the first user-agent line belongs to no group: \
                 ignored (aipref attach-05 §3)"
                    .to_string(),
            ));
        }
    }
    // A training token's rules are read as the agent's are (the same
    // options: index.htm, the file's own path always allowed), from the
    // groups a crawler with that token obeys: those naming it, else the `*`
    // groups. Google lists Google-Extended among its common crawlers, which
    // obey robots.txt and the global `*` group (only its special-case
    // crawlers, AdsBot, ignore `*`): docs/dialects.md, "Training tokens".
    let mut tokens: Vec<(SetRule, SignalRule)> = Vec::new();
    for (t, token) in training_agents.iter().enumerate() {
        let chosen = select(robots, &token.into());
        if chosen.via == Via::None {
            continue;
        }
        for rule in RuleSet::build(robots, &chosen, options).rules {
            let mut prefs = [Pref::Unknown; 3];
            prefs[channel(Usage::TrainAi)] = if rule.allow {
                Pref::Allow
            } else {
                Pref::Disallow
            };
            tokens.push((
                rule,
                SignalRule {
                    family: Family::Training(t as u16),
                    prefs,
                },
            ));
        }
    }
    // Statements in file order (the first line that said it is named).
    extra.sort_by_key(|(r, _)| r.line);
    extra.extend(tokens);
    if extra.is_empty() {
        return false;
    }
    let mut rules: Vec<SignalRule> = set
        .rules
        .iter()
        .map(|_| SignalRule {
            family: Family::Crawl,
            prefs: [Pref::Unknown; 3],
        })
        .collect();
    for (rule, signal) in extra {
        set.rules.push(rule);
        rules.push(signal);
    }
    set.resolution = Resolution::Signals(SignalRules {
        rules,
        training_agents: training_agents.to_vec(),
    });
    true
}

/// The records of the selected groups, each with its group's index.
fn agent_records<'r, 'a>(
    robots: &'r RobotsTxt<'a>,
    selection: &'r Selection,
) -> impl Iterator<Item = (u32, &'r Record<'a>)> + 'r {
    selection
        .groups
        .iter()
        .flat_map(move |&g| robots.groups[g].records.iter().map(move |r| (g as u32, r)))
}

/// The index of the crawl parse's group holding line `line` (a line after
/// the first user-agent line): the last group starting at or before it.
fn crawl_group_of(robots: &RobotsTxt<'_>, line: u32) -> u32 {
    let after = robots
        .groups
        .partition_point(|g| g.agents.first().is_some_and(|a| a.line <= line));
    after.saturating_sub(1) as u32
}

/// A rule that matches every path (a statement without a path).
fn everywhere(line: u32, group: u32) -> SetRule {
    SetRule {
        allow: true,
        pattern: Vec::new(),
        syntax: PatternSyntax::Glob,
        glob: Glob::default(),
        priority: 0,
        rank: 1,
        class: RankClass::LongestMatch,
        line,
        group,
        origin: RuleOrigin::Line,
    }
}

/// `Content-Usage: [path SP] dictionary` (attach-05 §3.2).
fn content_usage(value: &[u8], line: u32, group: u32, url_mode: UrlMode) -> (SetRule, SignalRule) {
    let (path, pref) = split_content_usage(value);
    let mut prefs = [Pref::Unknown; 3];
    if let Some(dict) = parse_dictionary(pref) {
        for (key, token) in dict {
            let Some(usage) = label(Syntax::ContentUsage, key.as_bytes()) else {
                continue;
            };
            prefs[channel(usage)] = match token.as_deref() {
                Some("y") => Pref::Allow,
                Some("n") => Pref::Disallow,
                _ => Pref::Unknown,
            };
        }
    }
    let pattern = ruleset::encoded_pattern(path, url_mode);
    let glob = Glob::parse(&pattern, PatternSyntax::Glob, url_mode);
    let mut rule = everywhere(line, group);
    rule.priority = ruleset::len_u32(pattern.len());
    rule.pattern = pattern;
    rule.glob = glob;
    (
        rule,
        SignalRule {
            family: Family::ContentUsage,
            prefs,
        },
    )
}

/// A Content-Usage value's path (empty when absent) and preference
/// (attach-05 §3.2): a value starting with `/` has a path up to the first
/// SP or HTAB; the preference follows, those blanks skipped.
pub fn split_content_usage(value: &[u8]) -> (&[u8], &[u8]) {
    if value.first() != Some(&b'/') {
        return (&value[..0], value);
    }
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let end = value.iter().position(blank).unwrap_or(value.len());
    let rest = &value[end..];
    let start = rest.iter().position(|b| !blank(b)).unwrap_or(rest.len());
    (&value[..end], &rest[start..])
}

/// `Content-Signal: key=yes|no, …` (Content Signals Policy).
fn content_signal(
    value: &[u8],
    line: u32,
    group: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> (SetRule, SignalRule) {
    let mut prefs = [Pref::Unknown; 3];
    for pair in value.split(|&b| b == b',') {
        let pair = pair.trim_ascii();
        if pair.is_empty() {
            continue;
        }
        let Some(eq) = pair.iter().position(|&b| b == b'=') else {
            diagnostics.push(Diagnostic::new(
                line,
                DiagCode::SignalIgnored,
                format!(
                    "Content-Signal {:?} is not key=value: it states nothing",
                    String::from_utf8_lossy(pair)
                ),
            ));
            continue;
        };
        let key = pair[..eq].trim_ascii().to_ascii_lowercase();
        let val = pair[eq + 1..].trim_ascii().to_ascii_lowercase();
        let Some(usage) = label(Syntax::ContentSignal, &key) else {
            diagnostics.push(Diagnostic::new(
                line,
                DiagCode::SignalIgnored,
                format!(
                    "Content-Signal key {:?} is not one of {}: ignored",
                    String::from_utf8_lossy(&key),
                    labels(Syntax::ContentSignal)
                ),
            ));
            continue;
        };
        prefs[channel(usage)] = match val.as_slice() {
            b"yes" => Pref::Allow,
            b"no" => Pref::Disallow,
            _ => {
                diagnostics.push(Diagnostic::new(
                    line,
                    DiagCode::SignalIgnored,
                    format!(
                        "Content-Signal value {:?} is not yes or no: it states nothing",
                        String::from_utf8_lossy(&val)
                    ),
                ));
                Pref::Unknown
            }
        };
    }
    (
        everywhere(line, group),
        SignalRule {
            family: Family::ContentSignal,
            prefs,
        },
    )
}

/// An RFC 9651 Dictionary (§4.2.2; both drafts cite RFC 9651 as FIELDS,
/// so a Date `@…` and a Display String `%"…"` are values too): each
/// member's key and, when its value
/// is a Token, the token (`None`: any other value, a bare key, an inner
/// list). Later duplicates replace earlier ones. `None` when the bytes are
/// not a Dictionary (vocab-07 §6.5.1: "If the parsing of the Dictionary
/// fails, preferences are unknown").
pub fn parse_dictionary(input: &[u8]) -> Option<Vec<(String, Option<String>)>> {
    let mut p = Sf { s: input, i: 0 };
    p.skip_sp();
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    if p.done() {
        return Some(out);
    }
    loop {
        let key = p.key()?;
        let value = if p.eat(b'=') {
            if p.peek() == Some(b'(') {
                p.inner_list()?;
                None
            } else {
                p.bare_item()?
            }
        } else {
            None
        };
        p.parameters()?;
        out.retain(|(k, _)| *k != key);
        out.push((key, value));
        p.skip_ows();
        if p.done() {
            return Some(out);
        }
        if !p.eat(b',') {
            return None;
        }
        p.skip_ows();
        if p.done() {
            // A trailing comma is a parse failure (§4.2.2).
            return None;
        }
    }
}

/// RFC 9651 parsing state.
struct Sf<'a> {
    s: &'a [u8],
    i: usize,
}

impl Sf<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    /// The next byte, consumed.
    fn read(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.i += usize::from(hit);
        hit
    }
    fn skip_sp(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }
    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }
    /// key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
    fn key(&mut self) -> Option<String> {
        let start = self.i;
        match self.peek()? {
            b'a'..=b'z' | b'*' => self.i += 1,
            _ => return None,
        }
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*')
        ) {
            self.i += 1;
        }
        Some(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    /// A bare item; `Some(Some(token))` for a Token, `Some(None)` for any
    /// other valid item, `None` on a syntax error.
    fn bare_item(&mut self) -> Option<Option<String>> {
        match self.peek()? {
            b'-' | b'0'..=b'9' => self.number().map(|_| None),
            // A Date is an Integer (§4.2.9).
            b'@' => {
                self.i += 1;
                match self.number()? {
                    false => Some(None),
                    true => None,
                }
            }
            b'%' => self.display_string().map(|()| None),
            b'"' => self.string().map(|()| None),
            b':' => self.bytes().map(|()| None),
            b'?' => {
                self.i += 1;
                match self.peek()? {
                    b'0' | b'1' => {
                        self.i += 1;
                        Some(None)
                    }
                    _ => None,
                }
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'*' => Some(Some(self.token())),
            _ => None,
        }
    }
    fn token(&mut self) -> String {
        let start = self.i;
        self.i += 1;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&b))
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }
    /// An Integer or Decimal (§4.2.4); `Some(true)` for a Decimal.
    fn number(&mut self) -> Option<bool> {
        self.eat(b'-');
        let start = self.i;
        let mut dot = None;
        while let Some(b) = self.peek() {
            match b {
                b'0'..=b'9' => self.i += 1,
                b'.' if dot.is_none() => {
                    dot = Some(self.i);
                    self.i += 1;
                }
                _ => break,
            }
        }
        let digits = self.i - start;
        match dot {
            None => (1..=15).contains(&digits).then_some(false),
            Some(d) => {
                let (int, frac) = (d - start, self.i - d - 1);
                ((1..=12).contains(&int) && (1..=3).contains(&frac)).then_some(true)
            }
        }
    }
    /// §4.2.10: `%"`, printable ASCII with `%` + two lowercase hex digits
    /// for an octet, `"`; the octets must be UTF-8.
    fn display_string(&mut self) -> Option<()> {
        self.i += 1;
        if !self.eat(b'"') {
            return None;
        }
        let mut octets = Vec::new();
        loop {
            match self.read()? {
                b'"' => return std::str::from_utf8(&octets).is_ok().then_some(()),
                b'%' => {
                    let hex = |h: u8| match h {
                        b'0'..=b'9' => Some(h - b'0'),
                        b'a'..=b'f' => Some(h - b'a' + 10),
                        _ => None,
                    };
                    let hi = hex(self.read()?)?;
                    let lo = hex(self.read()?)?;
                    octets.push(hi << 4 | lo);
                }
                b @ 0x20..=0x7e => octets.push(b),
                _ => return None,
            }
        }
    }
    fn string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match self.read()? {
                b'\\' => {
                    if !matches!(self.read()?, b'"' | b'\\') {
                        return None;
                    }
                }
                b'"' => return Some(()),
                0x20..=0x7e => {}
                _ => return None,
            }
        }
    }
    fn bytes(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match self.read()? {
                b':' => return Some(()),
                b if b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=' => {}
                _ => return None,
            }
        }
    }
    fn inner_list(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            self.skip_sp();
            if self.eat(b')') {
                return self.parameters();
            }
            self.bare_item()?;
            self.parameters()?;
            match self.peek()? {
                b' ' | b')' => {}
                _ => return None,
            }
        }
    }
    fn parameters(&mut self) -> Option<()> {
        while self.eat(b';') {
            self.skip_sp();
            self.key()?;
            if self.eat(b'=') {
                self.bare_item()?;
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::{label, parse_dictionary, Syntax, VOCABULARY};

    #[test]
    fn vocabulary_rows() {
        for (i, l) in VOCABULARY.iter().enumerate() {
            assert!(l.usage.is_signal(), "{}", l.label);
            assert_eq!(label(l.syntax, l.label.as_bytes()), Some(l.usage));
            assert!(
                !VOCABULARY[..i]
                    .iter()
                    .any(|m| m.syntax == l.syntax && m.label == l.label),
                "{} twice",
                l.label
            );
        }
        // Content-Usage keys are lowercase (an uppercase key fails the
        // Dictionary anyway); Content-Signal ignores case.
        assert_eq!(label(Syntax::ContentUsage, b"Train-AI"), None);
        assert!(label(Syntax::ContentSignal, b"AI-Train").is_some());
        assert_eq!(label(Syntax::ContentUsage, b"ai-train"), None);
    }

    fn tokens(s: &str) -> Option<Vec<(String, Option<String>)>> {
        parse_dictionary(s.as_bytes())
    }

    #[test]
    fn vocab_07_examples() {
        let t = |k: &str, v: Option<&str>| (k.to_string(), v.map(str::to_string));
        assert_eq!(
            tokens("train-ai=y, search=n"),
            Some(vec![t("train-ai", Some("y")), t("search", Some("n"))])
        );
        // The last duplicate counts; a bare key and a string are no token.
        assert_eq!(
            tokens("train-ai=y, train-ai, search=n, search=\"n\""),
            Some(vec![t("train-ai", None), t("search", None)])
        );
        assert_eq!(
            tokens("train-ai;allow=n, train-ai=y"),
            Some(vec![t("train-ai", Some("y"))])
        );
        assert_eq!(tokens("Train-AI=n"), None, "uppercase keys fail");
        assert_eq!(tokens("train-ai=y,"), None, "trailing comma");
        assert_eq!(tokens("train-ai;has;parameters=\"?\";"), None);
        assert_eq!(
            tokens("a=(1 2), b=?1, c=:AQ==:, d=1.5"),
            Some(vec![t("a", None), t("b", None), t("c", None), t("d", None)])
        );
        // RFC 9651's Date and Display String, as values and parameters.
        assert_eq!(
            tokens("train-ai=n;d=@1700000000, search=y, x=%\"f%c3%bc\", y=@-1;z=%\"\""),
            Some(vec![
                t("train-ai", Some("n")),
                t("search", Some("y")),
                t("x", None),
                t("y", None)
            ])
        );
        for bad in [
            "a=@1.5",
            "a=@",
            "a=%x",
            "a=%\"x",
            "a=%\"%C3%BC\"",
            "a=%\"%c3\"",
            "a=%\"\t\"",
        ] {
            assert_eq!(tokens(bad), None, "{bad:?}");
        }
    }
}
