//! ACAP 1.0 fields (§2–3 of the ACAP robots.txt extensions): lines → the
//! file's definitions and ACAP records, and the lines of ACAP records, which
//! the conventional parser must not see (§2.9.2).
//!
//! Lines and `key: value` pairs are split exactly as for rfc9309; only the
//! keys that start with `ACAP-` (and `User-agent`, which starts a
//! conventional record) matter here. What each field means for a crawler is
//! decided later, in [`crate::acap`]; docs/dialects.md ("acap") gives every
//! choice.

use super::agent_value::{is_global_value, value_names, value_token};
use super::keys::{classify, split_line, KeyKind};
use super::lines::{Line, Lines};
use crate::diag::{DiagCode, Diagnostic};
pub use crate::outcome::acap::RequestField;
use robocc_engine::Usage;

/// A usage as a rule or a definition names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsageName {
    /// A standard usage type (§2.5).
    Standard(Usage),
    /// `(name)`: a locally defined qualified or composite usage (§2.4.1.3),
    /// lower-cased.
    Local(String),
}

/// One permission or prohibition field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleField {
    /// `ACAP-allow-…` (else `ACAP-disallow-…`).
    pub allow: bool,
    /// The usage named in the key.
    pub usage: UsageName,
    /// The resource specification as written (first token of the value).
    pub spec: String,
    /// The qualifiers (the remaining tokens; one `type=value` where the
    /// field has spaces around `=`).
    pub qualifiers: Vec<String>,
    /// 1-based line.
    pub line: u32,
    /// Purpose patterns of the sub-record the rule is in.
    pub purposes: Vec<String>,
    /// The rule is in a sub-record (else a general rule of its record): it
    /// applies only when one of `purposes` matches a declared purpose (none
    /// may be valid: then it never applies).
    pub in_sub_record: bool,
}

/// An ACAP record (§2.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Crawler names (trimmed, as written), `*` included if present.
    pub crawlers: Vec<String>,
    /// Line of the first `ACAP-crawler` field.
    pub line: u32,
    /// Permission and prohibition fields, in file order.
    pub rules: Vec<RuleField>,
    /// `ACAP-permissions-reference` fields: (locator, line).
    pub references: Vec<(String, u32)>,
    /// Action requests.
    pub requests: Vec<RequestField>,
}

impl Record {
    /// Is the record addressed to any crawler (a crawler name `*`, read as
    /// the User-agent value `*` is: [`is_global_value`])?
    pub fn is_any(&self) -> bool {
        self.crawlers.iter().any(|c| is_global_value(c.as_bytes()))
    }

    /// Does the record name product token `agent`? A crawler name is
    /// matched as a User-agent value is ([`value_names`]: its leading
    /// product token, ASCII case ignored), 2.3.1's note: a crawler
    /// identification field "is semantically equivalent to a user agent
    /// field".
    pub fn names(&self, agent: &str) -> bool {
        self.crawlers
            .iter()
            .any(|c| value_names(c.as_bytes(), agent))
    }
}

/// `ACAP-qualified-usage: name usage qualifier…` (§2.7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QualifiedUsage {
    /// The standard usage it qualifies.
    pub usage: Usage,
    /// Its qualifiers (one `type=value` where spaces surround `=`).
    pub qualifiers: Vec<String>,
}

/// The file's definitions (§2.7), by lower-cased name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definitions {
    /// Resource sets: name → patterns (and the definition's line).
    pub resource_sets: Vec<(String, Vec<String>, u32)>,
    /// Qualified usages: name → definition.
    pub qualified: Vec<(String, QualifiedUsage, u32)>,
    /// Composite usages: name → constituents (standard usages, or qualified
    /// usages already resolved to their definition).
    pub composite: Vec<(String, Vec<QualifiedUsage>, u32)>,
}

impl Definitions {
    /// The patterns of resource set `name`.
    pub fn resource_set(&self, name: &str) -> Option<&[String]> {
        self.resource_sets
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p, _)| p.as_slice())
    }

    /// The usages (with qualifiers) a local usage name stands for.
    pub fn local(&self, name: &str) -> Option<Vec<QualifiedUsage>> {
        if let Some((_, q, _)) = self.qualified.iter().find(|(n, _, _)| n == name) {
            return Some(vec![q.clone()]);
        }
        self.composite
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, parts, _)| parts.clone())
    }

    fn defines_usage(&self, name: &str) -> bool {
        self.qualified.iter().any(|(n, _, _)| n == name)
            || self.composite.iter().any(|(n, _, _)| n == name)
    }
}

/// What the ACAP reader found in a file.
#[derive(Clone, Debug, Default)]
pub struct AcapFile {
    /// `##ACAP version=…` (§2.9.3): the version as written, and its line.
    pub version: Option<(String, u32)>,
    /// Line of `ACAP-ignore-conventional-records` (§2.9.1).
    pub ignore_conventional: Option<u32>,
    /// Definitions that precede the records.
    pub definitions: Definitions,
    /// ACAP records, in file order.
    pub records: Vec<Record>,
    /// Byte ranges of the lines inside ACAP records, and of every ACAP
    /// field: blanked before the conventional parser reads the file.
    pub acap_spans: Vec<(usize, usize)>,
    /// Spans of first `ACAP-crawler` lines that end a conventional record:
    /// the conventional parser reads an empty `Disallow:` there.
    pub closers: Vec<(usize, usize)>,
    /// Does any line have a key starting with `ACAP-`?
    pub has_acap_fields: bool,
    /// What was ignored, and why.
    pub diagnostics: Vec<Diagnostic>,
}

impl AcapFile {
    /// `body` with the lines of ACAP records replaced by spaces: what the
    /// conventional parser reads (line numbers and offsets unchanged).
    pub fn conventional_body(&self, body: &[u8]) -> Vec<u8> {
        let mut out = body.to_vec();
        for &(a, b) in &self.acap_spans {
            out[a..b].fill(b' ');
        }
        const CLOSER: &[u8] = b"Disallow:";
        for &(a, b) in &self.closers {
            out[a..b].fill(b' ');
            // `ACAP-crawler:` is longer than `Disallow:`.
            let n = CLOSER.len().min(b - a);
            out[a..a + n].copy_from_slice(&CLOSER[..n]);
        }
        out
    }
}

/// The ACAP records of `body` when the dialect reads them (`acap`), and
/// what the conventional parser then reads: the body with their lines
/// blanked (ACAP 2.9.2), so a conventional line inside an ACAP record is
/// ignored rather than read as a rule. Compiling and linting both read
/// a file this way.
pub fn split(
    body: &[u8],
    acap: bool,
    max_bytes: usize,
) -> (Option<AcapFile>, std::borrow::Cow<'_, [u8]>) {
    if !acap {
        return (None, std::borrow::Cow::Borrowed(body));
    }
    let file = read(body, max_bytes);
    let conventional = file.conventional_body(body);
    (Some(file), std::borrow::Cow::Owned(conventional))
}

/// Where the reader is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    /// Before any record.
    None,
    /// In a conventional record (after a `User-agent` line).
    Conventional,
    /// In ACAP record `records.len() - 1`; `fields`: a field other than
    /// `ACAP-crawler` has been read in it.
    Acap { fields: bool },
}

/// Sub-record state of the current ACAP record.
#[derive(Default)]
struct SubRecord {
    /// A purpose line has been read in the record.
    active: bool,
    purposes: Vec<String>,
    /// A rule has followed the current purpose lines: the next purpose line
    /// starts a new sub-record.
    has_rules: bool,
}

/// Reads the ACAP fields of `body` (the first `max_bytes`, as the
/// conventional parser reads it; 0: all).
pub fn read(body: &[u8], max_bytes: usize) -> AcapFile {
    let body = &body[..super::kept_len(body, max_bytes)];
    let mut r = Reader {
        out: AcapFile::default(),
        region: Region::None,
        sub: SubRecord::default(),
        base: body.as_ptr() as usize,
        mixed_reported: false,
    };
    for line in Lines::new(body) {
        r.line(line);
    }
    r.out
}

struct Reader {
    out: AcapFile,
    region: Region,
    sub: SubRecord,
    base: usize,
    /// The current record's `*`-with-names diagnostic was given.
    mixed_reported: bool,
}

fn lower(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_ascii_lowercase()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Splits `s` at ASCII whitespace.
fn tokens(s: &[u8]) -> Vec<String> {
    s.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .map(text)
        .collect()
}

/// The qualifiers among a field's tokens. §3 allows whitespace around the
/// `=` (`qualifier-type *WSP "=" *WSP qualifier-value`): `type = value`,
/// `type= value` and `type =value` are one qualifier, kept as `type=value`.
/// A token starting with `=` joins a bare type before it; a token joins a
/// `type=` before it as its value (a value may hold `=`).
fn qualifiers(tokens: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tokens {
        let joins = out.last().is_some_and(|q| {
            if t.starts_with('=') {
                !q.contains('=')
            } else {
                q.len() > 1 && q.find('=') == Some(q.len() - 1)
            }
        });
        match out.last_mut() {
            Some(q) if joins => q.push_str(t),
            _ => out.push(t.clone()),
        }
    }
    out
}

impl Reader {
    fn diagnose(&mut self, line: u32, code: DiagCode, message: String) {
        self.out
            .diagnostics
            .push(Diagnostic::new(line, code, message));
    }

    fn span(&self, line: &Line<'_>) -> (usize, usize) {
        let start = line.text.as_ptr() as usize - self.base;
        (start, start + line.text.len())
    }

    fn line(&mut self, line: Line<'_>) {
        let n = line.number;
        let trimmed = line.text.trim_ascii();
        if trimmed.len() >= 6 && trimmed[..6].eq_ignore_ascii_case(b"##acap") {
            self.version_comment(n, &trimmed[6..]);
        }
        let in_acap = matches!(self.region, Region::Acap { .. });
        // `ACAP-ignore-conventional-records` is a bare field (no colon).
        let content = match memchr::memchr2(0, b'#', line.text) {
            Some(i) => &line.text[..i],
            None => line.text,
        }
        .trim_ascii();
        const IGNORE: &[u8] = b"acap-ignore-conventional-records";
        if content.len() >= IGNORE.len()
            && content[..IGNORE.len()].eq_ignore_ascii_case(IGNORE)
            && content[IGNORE.len()..]
                .first()
                .is_none_or(|&b| b == b':' || b.is_ascii_whitespace())
        {
            self.out.has_acap_fields = true;
            self.out.ignore_conventional.get_or_insert(n);
            if in_acap {
                let s = self.span(&line);
                self.out.acap_spans.push(s);
            }
            return;
        }
        let Ok((key, value)) = split_line(line.text) else {
            if in_acap {
                let s = self.span(&line);
                self.out.acap_spans.push(s);
            }
            return;
        };
        let key_l = lower(key);
        if let Some(rest) = key_l.strip_prefix("acap-") {
            self.out.has_acap_fields = true;
            let closes = rest == "crawler" && self.region == Region::Conventional;
            if rest == "crawler" {
                self.crawler(n, value);
            }
            // Every ACAP line is blanked for the conventional parser (it
            // would keep definitions as unknown records of a group). The
            // first line of an ACAP record that follows a conventional one
            // ends that record: the conventional parser sees a rule there
            // (an empty Disallow, which is no rule) so that a User-agent
            // line after the ACAP record starts a group of its own.
            let s = self.span(&line);
            if closes {
                self.out.closers.push(s);
            } else {
                self.out.acap_spans.push(s);
            }
            if rest != "crawler" {
                self.acap_field(n, rest, value);
            }
            return;
        }
        let kind = classify(key).kind;
        if kind == KeyKind::UserAgent {
            self.region = Region::Conventional;
            return;
        }
        if in_acap {
            // Global records (Sitemap, Host, Clean-param) belong to no
            // record: left to the conventional parser.
            if kind.is_global() {
                return;
            }
            let s = self.span(&line);
            self.out.acap_spans.push(s);
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                format!(
                    "conventional field {:?} inside an ACAP record: ignored (ACAP 2.9.2)",
                    text(key)
                ),
            );
        }
    }

    fn version_comment(&mut self, n: u32, rest: &[u8]) {
        let rest = lower(rest);
        let version = rest
            .split_whitespace()
            .find_map(|t| t.strip_prefix("version="))
            .unwrap_or("")
            .to_string();
        if self.out.version.is_none() {
            self.out.version = Some((version, n));
        }
    }

    fn crawler(&mut self, n: u32, value: &[u8]) {
        let name = text(value);
        match self.region {
            Region::Acap { fields: false } => {
                if let Some(rec) = self.out.records.last_mut() {
                    rec.crawlers.push(name);
                }
            }
            _ => {
                self.out.records.push(Record {
                    crawlers: vec![name],
                    line: n,
                    ..Record::default()
                });
                self.sub = SubRecord::default();
                self.mixed_reported = false;
            }
        }
        self.region = Region::Acap { fields: false };
        let mixed = self.out.records.last().is_some_and(|rec| {
            rec.is_any() && rec.crawlers.iter().any(|c| !is_global_value(c.as_bytes()))
        });
        if mixed && !self.mixed_reported {
            self.mixed_reported = true;
            self.diagnose(
                n,
                DiagCode::AcapRecord,
                "a record addressed to `*` names other crawlers too (ACAP 2.3.1: \"must not \
                 contain any other crawler identification fields\"): read as addressed to any \
                 crawler and, for the crawlers it names, as their named record"
                    .to_string(),
            );
        }
        if value.is_empty() {
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                "ACAP-crawler with no name: it addresses no crawler".to_string(),
            );
        } else if !is_global_value(value) && value_token(value).is_empty() {
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                format!(
                    "ACAP-crawler {:?} does not start with a product token (letters, `-`, \
                     `_`): a crawler name is matched by its leading token, as a User-agent \
                     value is, so it addresses no crawler",
                    text(value)
                ),
            );
        }
    }

    /// A field other than `ACAP-crawler`; `rest` is the lower-cased key
    /// after `acap-`.
    fn acap_field(&mut self, n: u32, rest: &str, value: &[u8]) {
        match rest {
            "resource-set" | "qualified-usage" | "composite-usage" => {
                return self.definition(n, rest, value)
            }
            _ => {}
        }
        let Region::Acap { .. } = self.region else {
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                format!("ACAP-{rest} outside an ACAP record (no ACAP-crawler line above it): ignored (ACAP 2.9.2)"),
            );
            return;
        };
        // Only fields allowed in records end the list of crawler lines
        // (2.3: "following some other field allowed in records").
        let record_field = rest == "usage-purpose"
            || rest == "permissions-reference"
            || ["request-", "allow-", "disallow-"]
                .iter()
                .any(|p| rest.starts_with(p));
        let had_fields = self.region == Region::Acap { fields: true };
        if record_field {
            self.region = Region::Acap { fields: true };
        }
        let referred = self
            .out
            .records
            .last()
            .is_some_and(|rec| !rec.references.is_empty());
        // 2.3: a record holds either a permissions reference or fields of
        // its own; both are read.
        if record_field && referred {
            self.diagnose(
                n,
                DiagCode::AcapRecord,
                format!(
                    "ACAP-{rest} after a permissions reference in its record (ACAP 2.3: after \
                     one, \"no further fields (other than comments and blank lines) may occur \
                     in the record\"): not refused for that; a field valid on its own is read \
                     beside the referenced ones"
                ),
            );
        } else if rest == "permissions-reference" && had_fields {
            self.diagnose(
                n,
                DiagCode::AcapRecord,
                "ACAP-permissions-reference after other fields of its record (ACAP 2.3: a \
                 record holds either a permissions reference or fields of its own): both are \
                 read"
                    .to_string(),
            );
        }
        let Some(rec) = self.out.records.last_mut() else {
            return;
        };
        if rest == "usage-purpose" {
            if self.sub.has_rules || !self.sub.active {
                self.sub = SubRecord {
                    active: true,
                    ..SubRecord::default()
                };
            }
            if value.is_empty() {
                self.diagnose(
                    n,
                    DiagCode::AcapIgnored,
                    "ACAP-usage-purpose with no pattern: it matches no purpose".to_string(),
                );
            } else {
                self.sub.purposes.push(text(value));
            }
            return;
        }
        if rest == "permissions-reference" {
            rec.references.push((text(value), n));
            return;
        }
        if let Some(action) = rest.strip_prefix("request-") {
            if !matches!(action, "take-down" | "re-crawl") {
                self.diagnose(
                    n,
                    DiagCode::AcapIgnored,
                    format!(
                        "ACAP-request-{action}: not an ACAP action (ACAP §3: action-name = \
                         \"take-down\" / \"re-crawl\"): ignored"
                    ),
                );
                return;
            }
            if self.sub.active {
                self.diagnose(
                    n,
                    DiagCode::AcapIgnored,
                    "an action request inside a sub-record (ACAP 2.3: \"A sub-record may not \
                     contain action request fields\"): kept, with no purpose"
                        .to_string(),
                );
            }
            let rec = self.out.records.last_mut().expect("checked above");
            rec.requests.push(RequestField {
                action: action.to_string(),
                path: text(value),
                line: n,
            });
            return;
        }
        let (allow, usage) = if let Some(u) = rest.strip_prefix("allow-") {
            (true, u)
        } else if let Some(u) = rest.strip_prefix("disallow-") {
            (false, u)
        } else {
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                format!("unknown ACAP field ACAP-{rest}: ignored"),
            );
            return;
        };
        // A rule line, even one dropped below, ends the purpose lines of
        // its sub-record.
        self.sub.has_rules = self.sub.active;
        let usage = match parse_usage(usage) {
            Some(u) => u,
            None => {
                self.diagnose(
                    n,
                    DiagCode::AcapIgnored,
                    format!(
                        "{:?} is not an ACAP usage type (ACAP 2.5) nor a (local-usage): rule \
                         ignored",
                        usage
                    ),
                );
                return;
            }
        };
        let mut toks = tokens(value);
        if toks.is_empty() {
            self.diagnose(
                n,
                DiagCode::AcapIgnored,
                "permission or prohibition with no resource specification: ignored".to_string(),
            );
            return;
        }
        let spec = toks.remove(0);
        let purposes = self.sub.purposes.clone();
        let in_sub_record = self.sub.active;
        let rec = self.out.records.last_mut().expect("checked above");
        rec.rules.push(RuleField {
            allow,
            usage,
            spec,
            qualifiers: qualifiers(&toks),
            line: n,
            purposes,
            in_sub_record,
        });
    }

    fn definition(&mut self, n: u32, kind: &str, value: &[u8]) {
        if !self.out.records.is_empty() {
            self.diagnose(
                n,
                DiagCode::AcapDefinition,
                format!(
                    "ACAP-{kind} after the first ACAP record: ignored (ACAP 2.7: \"All ACAP \
                     definition fields must be placed before any ACAP records\")"
                ),
            );
            return;
        }
        let toks = tokens(value);
        let bad = |r: &mut Reader, why: &str| {
            r.diagnose(
                n,
                DiagCode::AcapDefinition,
                format!("ACAP-{kind}: {why}: ignored"),
            )
        };
        if toks.len() < 2 {
            return bad(self, "needs a name and at least one more item");
        }
        let name = toks[0].to_ascii_lowercase();
        let defs = &self.out.definitions;
        match kind {
            "resource-set" => {
                if defs.resource_set(&name).is_some() {
                    return bad(self, &format!("resource set {name:?} is already defined"));
                }
                self.out
                    .definitions
                    .resource_sets
                    .push((name, toks[1..].to_vec(), n));
            }
            "qualified-usage" => {
                if defs.defines_usage(&name) {
                    return bad(self, &format!("usage {name:?} is already defined"));
                }
                let Some(UsageName::Standard(usage)) = parse_usage(&toks[1]) else {
                    return bad(self, &format!("{:?} is not a standard usage type", toks[1]));
                };
                if toks.len() < 3 {
                    self.diagnose(
                        n,
                        DiagCode::AcapDefinition,
                        format!("qualified usage {name:?} has no qualifier (ACAP 2.7.1)"),
                    );
                }
                self.out.definitions.qualified.push((
                    name,
                    QualifiedUsage {
                        usage,
                        qualifiers: qualifiers(&toks[2..]),
                    },
                    n,
                ));
            }
            _ => {
                if defs.defines_usage(&name) {
                    return bad(self, &format!("usage {name:?} is already defined"));
                }
                let mut parts = Vec::new();
                for t in &toks[1..] {
                    match parse_usage(t) {
                        Some(UsageName::Standard(usage)) => parts.push(QualifiedUsage {
                            usage,
                            qualifiers: Vec::new(),
                        }),
                        Some(UsageName::Local(local)) => {
                            match self
                                .out
                                .definitions
                                .qualified
                                .iter()
                                .find(|(q, _, _)| *q == local)
                            {
                                Some((_, q, _)) => parts.push(q.clone()),
                                None => self.diagnose(
                                    n,
                                    DiagCode::AcapDefinition,
                                    format!(
                                        "composite usage {name:?}: ({local}) is not a qualified \
                                         usage defined on an earlier line (ACAP 2.7): left out"
                                    ),
                                ),
                            }
                        }
                        None => self.diagnose(
                            n,
                            DiagCode::AcapDefinition,
                            format!(
                                "composite usage {name:?}: {t:?} is not a usage type: left out"
                            ),
                        ),
                    }
                }
                self.out.definitions.composite.push((name, parts, n));
            }
        }
    }
}

/// `crawl`, `present-snippet`, `(local)` → the usage named (case-insensitive).
/// Only ACAP's usage types ([`Usage::ACAP`]): the engine's AI-usage
/// preference channels (`search`, `train-ai`, `ai-input`) are none (2.5).
pub fn parse_usage(s: &str) -> Option<UsageName> {
    if let Some(inner) = s.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        let inner = inner.trim();
        return (!inner.is_empty()).then(|| UsageName::Local(inner.to_ascii_lowercase()));
    }
    s.parse::<Usage>()
        .ok()
        .filter(|u| Usage::ACAP.contains(u))
        .map(UsageName::Standard)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_2_1: &str = "##ACAP version=1.0\nUser-agent: *\nDisallow: /\n\nUser-agent: named-crawler\nAllow: /index.html\n\nACAP-resource-set: crawlable /public/ /promotion/ /news/\nACAP-qualified-usage: cache preserve time-limit=until-recrawled\nACAP-composite-usage: basic-usages crawl index present\nACAP-crawler: *\nACAP-disallow-crawl: /\nACAP-crawler: named-crawler\nACAP-allow-(basic-usages): the-acap:resource-set:crawlable\nDisallow: /x\n";

    #[test]
    fn the_overview_file() {
        let f = read(SPEC_2_1.as_bytes(), 0);
        assert_eq!(f.version, Some(("1.0".to_string(), 1)));
        assert_eq!(f.records.len(), 2);
        assert!(f.records[0].is_any());
        assert!(f.records[1].names("Named-Crawler"));
        assert_eq!(
            f.records[1].rules[0].usage,
            UsageName::Local("basic-usages".into())
        );
        assert_eq!(
            f.definitions.local("basic-usages").map(|v| v.len()),
            Some(3)
        );
        assert_eq!(
            f.definitions.resource_set("CRAWLABLE").map(<[String]>::len),
            Some(3)
        );
        // The conventional Disallow inside the ACAP record is blanked.
        let conv = f.conventional_body(SPEC_2_1.as_bytes());
        let conv = String::from_utf8(conv).unwrap();
        assert!(!conv.contains("Disallow: /x"));
        assert!(conv.contains("Allow: /index.html"));
        assert!(f
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::AcapIgnored));
    }

    #[test]
    fn sub_records_and_records() {
        let f = read(
            b"ACAP-crawler: a\nACAP-crawler: b\nACAP-allow-index: /g\nACAP-usage-purpose: news\nACAP-usage-purpose: web\nACAP-disallow-index: /p\nACAP-usage-purpose: img\nACAP-allow-index: /q\nACAP-crawler: c\nACAP-ignore-conventional-records\n",
            0,
        );
        assert_eq!(f.records.len(), 2);
        assert_eq!(f.records[0].crawlers, ["a", "b"]);
        let r = &f.records[0].rules;
        assert!(r[0].purposes.is_empty());
        assert_eq!(r[1].purposes, ["news", "web"]);
        assert_eq!(r[2].purposes, ["img"]);
        assert_eq!(f.ignore_conventional, Some(10));
    }

    /// `search`, `train-ai` and `ai-input` are robocc's AI-usage preference
    /// channels, not ACAP usage types (2.5): a rule or a definition item
    /// naming one is dropped as an unknown usage is.
    #[test]
    fn ai_preference_channels_are_no_acap_usages() {
        let f = read(
            b"ACAP-qualified-usage: q ai-input time-limit=1-days\nACAP-composite-usage: c index train-ai\nACAP-crawler: *\nACAP-disallow-train-ai: /\nACAP-allow-Search: /\nACAP-allow-ai-input: /\nACAP-disallow-bogus: /\n",
            0,
        );
        assert!(f.definitions.qualified.is_empty(), "{:?}", f.definitions);
        assert_eq!(
            f.definitions.local("c"),
            Some(vec![QualifiedUsage {
                usage: Usage::Index,
                qualifiers: Vec::new()
            }])
        );
        assert!(f.records[0].rules.is_empty(), "{:?}", f.records[0].rules);
        let codes: Vec<_> = f.diagnostics.iter().map(|d| (d.line, d.code)).collect();
        for want in [
            (1, DiagCode::AcapDefinition),
            (2, DiagCode::AcapDefinition),
            (4, DiagCode::AcapIgnored),
            (5, DiagCode::AcapIgnored),
            (6, DiagCode::AcapIgnored),
            (7, DiagCode::AcapIgnored),
        ] {
            assert!(codes.contains(&want), "missing {want:?} in {codes:?}");
        }
        // The same words as for an unknown usage.
        let msg = |line| {
            f.diagnostics
                .iter()
                .find(|d| d.line == line)
                .map(|d| d.message.replace("bogus", "train-ai"))
        };
        assert_eq!(msg(4), msg(7));
    }

    /// §3: `qualifier-type *WSP "=" *WSP qualifier-value`: spaces around
    /// `=` are allowed; the qualifier is kept as one `type=value`.
    #[test]
    fn qualifiers_with_spaces_around_the_equals_sign() {
        let f = read(
            b"ACAP-qualified-usage: snip present-snippet max-length = 30-words\nACAP-crawler: *\nACAP-allow-index: /a/ time-limit = 3-days must-use-resource= /x?a=b prohibited-modification =any\nACAP-allow-present: /b time-limit= max-length=3-words\nACAP-allow-present: /c time-limit\tmax-length=3-words = =x\n",
            0,
        );
        assert_eq!(
            f.definitions.local("snip").unwrap()[0].qualifiers,
            ["max-length=30-words"]
        );
        let rules = &f.records[0].rules;
        assert_eq!(
            rules[0].qualifiers,
            [
                "time-limit=3-days",
                "must-use-resource=/x?a=b",
                "prohibited-modification=any"
            ]
        );
        // A value may hold `=`: what follows `type=` is its value.
        assert_eq!(rules[1].qualifiers, ["time-limit=max-length=3-words"]);
        // Only a bare type takes a following `=…`; the rest stays as written.
        assert_eq!(
            rules[2].qualifiers,
            ["time-limit", "max-length=3-words", "=", "=x"]
        );
    }

    /// 2.3.1's note: a crawler identification field "is semantically
    /// equivalent to a user agent field": its value is matched as rfc9309
    /// matches a User-agent value (the leading product token; `*`, alone
    /// or before whitespace, for any crawler).
    #[test]
    fn crawler_names_are_matched_as_user_agent_values() {
        let f = read(
            b"ACAP-crawler: Bot/1.0\nACAP-disallow-crawl: /a\nACAP-crawler: bot crawler\nACAP-disallow-crawl: /b\nACAP-crawler: * everyone\nACAP-disallow-crawl: /c\nACAP-crawler: 2bot\nACAP-crawler: /bot\nACAP-disallow-crawl: /d\n",
            0,
        );
        assert!(f.records[0].names("bot") && f.records[0].names("BOT"));
        assert!(!f.records[0].names("bo") && !f.records[0].is_any());
        assert!(f.records[1].names("bot") && !f.records[1].names("crawler"));
        assert!(f.records[2].is_any() && !f.records[2].names("everyone"));
        assert!(!f.records[3].names("bot") && !f.records[3].is_any());
        // A name no product token can match is reported, each line.
        let lines: Vec<_> = f
            .diagnostics
            .iter()
            .filter(|d| d.code == DiagCode::AcapIgnored)
            .map(|d| d.line)
            .collect();
        assert_eq!(lines, [7, 8], "{:?}", f.diagnostics);
    }

    /// §3: `action-name = "take-down" / "re-crawl"`: another action is
    /// not kept.
    #[test]
    fn unknown_action_requests_are_dropped() {
        let f = read(
            b"ACAP-crawler: *\nACAP-request-explode: /x\nACAP-request-Take-Down: /y\nACAP-request-re-crawl: /z\n",
            0,
        );
        let actions: Vec<_> = f.records[0]
            .requests
            .iter()
            .map(|r| (r.action.as_str(), r.line))
            .collect();
        assert_eq!(actions, [("take-down", 3), ("re-crawl", 4)]);
        let codes: Vec<_> = f.diagnostics.iter().map(|d| (d.line, d.code)).collect();
        assert_eq!(codes, [(2, DiagCode::AcapIgnored)]);
    }

    /// 2.3: a record holds either a permissions reference or fields of its
    /// own. Both are read, with a diagnostic.
    #[test]
    fn a_reference_shares_no_record() {
        let f = read(
            b"ACAP-crawler: a\nACAP-permissions-reference: /a.txt\nACAP-allow-index: /x/\nACAP-crawler: b\nACAP-allow-index: /y\nACAP-permissions-reference: /b.txt\nACAP-crawler: c\nACAP-permissions-reference: /c.txt\n",
            0,
        );
        let codes: Vec<_> = f.diagnostics.iter().map(|d| (d.line, d.code)).collect();
        assert_eq!(
            codes,
            [(3, DiagCode::AcapRecord), (6, DiagCode::AcapRecord)]
        );
        assert_eq!(f.records[0].rules.len(), 1);
        assert_eq!(f.records[1].references, [("/b.txt".to_string(), 6)]);
    }

    #[test]
    fn misplaced_definitions_and_fields() {
        let f = read(
            b"ACAP-allow-crawl: /a\nACAP-crawler: x\nACAP-resource-set: s /a\nACAP-allow-bogus: /b\n",
            0,
        );
        assert!(f.definitions.resource_sets.is_empty());
        let codes: Vec<_> = f.diagnostics.iter().map(|d| (d.line, d.code)).collect();
        assert!(codes.contains(&(1, DiagCode::AcapIgnored)));
        assert!(codes.contains(&(3, DiagCode::AcapDefinition)));
        assert!(codes.contains(&(4, DiagCode::AcapIgnored)));
    }
}
