//! An independent oracle for `--dialect acap`: ACAP 1.0 (corrected) Part 1,
//! the robots.txt extensions (`../shared/specs/acap-1.0-part1-robots-txt.txt`),
//! as the "acap" section of docs/dialects.md resolves it.
//!
//! It shares no code with the compiler. It reads lines, keys and values,
//! and the conventional records with Google's group selection (from a copy
//! of the body whose ACAP lines are blanked), with the rfc9309 oracle
//! ([`super::rfc9309`]: also its input stage, parse limit, Google's pattern
//! encoding and URL path), and matches with [`super::pattern_matches`].
//! Everything ACAP is written here, plainly:
//!
//! * one walk over the lines builds a flat list of [`AcapRule`]s, each with
//!   its tier (named or any), usage, verdict, pattern as written, source
//!   line and expansion order; definitions, resource sets, qualified and
//!   composite usages, purposes (sub-records) and references are expanded
//!   on the way, and rules of sub-records whose purposes match none of the
//!   declared purposes are left out;
//! * every check walks that list: the rules that concern the usage and
//!   match the URL, named tier first, then 2.4.5's resolution by pairwise
//!   narrowest-scope comparison ([`narrower`]).
//!
//! Where docs/dialects.md leaves room, this oracle reads it so:
//!
//! * **Records.** An ACAP record ends at an `ACAP-crawler` line that follows
//!   a field allowed in records (a purpose, a permission or prohibition,
//!   dropped ones included, an action request, a permissions reference; not
//!   a conventional field, a definition or an unknown key), and at a line whose key
//!   the conventional parser reads as a user-agent (Google's prefixes and
//!   typos). An ACAP record also ends the conventional record before it:
//!   `User-agent: a`, an ACAP record, `User-agent: b` and rules are two
//!   groups, `a`'s without rules. A crawler name is matched as a
//!   User-agent value is (the rfc9309 oracle's reading: `*` alone
//!   or before whitespace for any crawler, else the value's leading
//!   product token equal to the agent's, ASCII case ignored).
//! * **`ACAP-ignore-conventional-records`** counts anywhere in the file, in
//!   any case, bare or as a key with any value; not in a referenced file.
//! * **Definitions.** Qualified and composite usages share one namespace,
//!   resource sets have their own; the first valid definition of a name
//!   wins. A qualified usage needs a name and a usage of the table
//!   (qualifiers optional). A composite keeps its valid constituents and
//!   leaves out the others (unknown usages, `(name)` that is not a qualified
//!   usage defined on an earlier line).
//! * **Purposes.** Purpose patterns and purposes are compared lowercased,
//!   not percent-encoded. An `ACAP-usage-purpose` line after a rule line of
//!   the sub-record starts the next sub-record; an empty one matches
//!   nothing.
//! * **References.** The reference value (trimmed, whole) is looked up as
//!   written. The referenced file's records that address the agent (by name
//!   or `*`) give all their rules to the referring record's tier(s); it sees
//!   the referring file's definitions and its own (before its first
//!   `ACAP-crawler` line; the referring file's win a clash); its
//!   conventional records are not read. Its rules carry the **line of the
//!   reference field** (for the answer and for file order), in their own
//!   order. A reference inside a referenced file is not followed: it counts
//!   as missing. A reference in a sub-record whose purposes match none is
//!   not read at all. Fields after a reference in its record still count.
//! * **Missing reference.** Fourteen synthetic prohibitions of `/`, one per
//!   usage (`present` and `other` included), at the reference line; like
//!   every ACAP rule they drop a conventional `Allow: /`.
//! * **Conventional drop.** Any ACAP rule on `crawl` that applies (either
//!   tier, purposes matching), patterns compared as written (ACAP: the raw
//!   token; conventional: the raw value), ASCII case ignored.
//! * **Conventional conflicts.** When the conventional lines that match
//!   (and concern the usage: `crawl`) disagree, only rfc9309's winner among
//!   them competes: the longest encoded pattern, Allow on a tie, then the
//!   first in file order (2.9.2: "interpreted as normal"). Lines that agree
//!   all compete.
//! * **`other`.** A "permission that concerns U" is an allow rule on U (or
//!   on `present`, for its sub-types), conventional Allow included for
//!   `crawl`, never an `ACAP-allow-other`. A matching `other` rule of the
//!   named tier makes the named tier speak.
//! * **Limits.** Like the conventional parse, only the first 500 KiB are
//!   read (cut after the last line end within them), in referenced files
//!   too. A URL's path stops at its first `#` and first NUL.

use super::pattern_matches;
use super::rfc9309::{
    self, body_text, google_pattern, key_and_value, key_kind, Key, Rfc9309Options,
    DEFAULT_MAX_BYTES,
};
use robocc_engine::UrlMode;
use robocc_engine::Usage;
use std::collections::HashMap;

/// The oracle's answer for one usage of one URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcapAnswer {
    /// Is the usage allowed?
    pub allowed: bool,
    /// Source line of the deciding rule (None: default allow, or
    /// undecidable).
    pub line: Option<u32>,
    /// Prohibited because no single rule has the narrowest scope (2.4.5).
    pub undecidable: bool,
}

/// One rule as the oracle applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcapRule {
    /// In the named tier (else the any tier).
    pub named: bool,
    /// The usage the rule is about (`present` concerns its sub-types too).
    pub usage: Usage,
    /// Permission (allow) or prohibition.
    pub allow: bool,
    /// The pattern as written, ASCII-lowercased: what [`narrower`] compares
    /// and what the conventional drop compares.
    pub written: Vec<u8>,
    /// The pattern as matched: ACAP rules encoded and lowercased (matched
    /// against the lowercased path), conventional ones as rfc9309 encodes
    /// them (matched against the path as given).
    pub matched: Vec<u8>,
    /// A conventional Allow/Disallow (case-sensitive, `crawl` only).
    pub conventional: bool,
    /// A permission with qualifiers (its own, or its qualified usage's).
    pub qualified: bool,
    /// 1-based source line (for a referenced file's rules and a missing
    /// reference: the line of the reference field).
    pub line: u32,
    /// Expansion order: breaks ties between rules of one line.
    pub seq: usize,
}

impl AcapRule {
    fn matches(&self, path: &[u8], lower_path: &[u8]) -> bool {
        if self.conventional {
            pattern_matches(&self.matched, path)
        } else {
            pattern_matches(&self.matched, lower_path)
        }
    }

    /// Does the rule concern `usage`, `other` aside?
    fn concerns_directly(&self, usage: Usage) -> bool {
        self.usage != Usage::Other
            && (self.usage == usage || (self.usage == Usage::Present && usage.is_present()))
    }

    fn order(&self) -> (u32, usize) {
        (self.line, self.seq)
    }
}

/// How two patterns compare by scope (2.4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The first pattern is narrower.
    First,
    /// The second pattern is narrower.
    Second,
    /// Same characters (ASCII case ignored).
    Equal,
    /// Two different ordinary characters: cannot be ordered.
    Undetermined,
}

/// 2.4.5's comparison of two patterns as written, ASCII case ignored,
/// character by character from the left.
pub fn narrower(a: &[u8], b: &[u8]) -> Scope {
    let mut i = 0;
    loop {
        match (a.get(i), b.get(i)) {
            (None, None) => return Scope::Equal,
            (None, Some(_)) => return Scope::Second,
            (Some(_), None) => return Scope::First,
            (Some(&x), Some(&y)) => {
                let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
                if x == y {
                    i += 1;
                } else if x == b'$' {
                    return Scope::Second;
                } else if y == b'$' {
                    return Scope::First;
                } else if x == b'*' {
                    return Scope::Second;
                } else if y == b'*' {
                    return Scope::First;
                } else {
                    return Scope::Undetermined;
                }
            }
        }
    }
}

/// What a qualified or composite usage name stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Local {
    /// A usage, and whether the definition gives it qualifiers.
    Qualified(Usage, bool),
    Composite(Vec<(Usage, bool)>),
}

/// The definitions (2.7) in force, names lowercased.
#[derive(Clone, Debug, Default)]
struct Definitions {
    sets: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    locals: HashMap<Vec<u8>, Local>,
}

impl Definitions {
    /// `ACAP-resource-set: NAME pattern…`; a second definition is ignored.
    fn resource_set(&mut self, value: &[u8]) {
        let mut tokens = value
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(name) = tokens.next() else { return };
        let patterns: Vec<Vec<u8>> = tokens.map(<[u8]>::to_vec).collect();
        self.sets
            .entry(name.to_ascii_lowercase())
            .or_insert(patterns);
    }

    /// `ACAP-qualified-usage: NAME usage qualifier…`; an unknown usage
    /// leaves the name undefined.
    fn qualified(&mut self, value: &[u8]) {
        let mut tokens = value
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let (Some(name), Some(usage)) = (tokens.next(), tokens.next()) else {
            return;
        };
        let Some(usage) = usage_of(usage) else { return };
        let qualified = tokens.next().is_some();
        self.locals
            .entry(name.to_ascii_lowercase())
            .or_insert(Local::Qualified(usage, qualified));
    }

    /// `ACAP-composite-usage: NAME usage-or-(qualified)…`: a constituent
    /// that is neither a usage of the table nor a qualified usage defined
    /// earlier is left out.
    fn composite(&mut self, value: &[u8]) {
        let mut tokens = value
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(name) = tokens.next() else { return };
        let mut usages = Vec::new();
        for t in tokens {
            if let Some(inner) = t.strip_prefix(b"(").and_then(|t| t.strip_suffix(b")")) {
                if let Some(Local::Qualified(u, q)) = self.locals.get(&inner.to_ascii_lowercase()) {
                    usages.push((*u, *q));
                }
            } else if let Some(u) = usage_of(t) {
                usages.push((u, false));
            }
        }
        self.locals
            .entry(name.to_ascii_lowercase())
            .or_insert(Local::Composite(usages));
    }

    /// The usages of a rule key's usage part (`crawl`, `(name)`), each
    /// with whether its definition qualifies it (`written`: the rule's own
    /// qualifiers, which count for a plain usage only), or None when it
    /// names nothing (the rule is dropped).
    fn usages(&self, part: &[u8], written: bool) -> Option<Vec<(Usage, bool)>> {
        if let Some(inner) = part.strip_prefix(b"(").and_then(|t| t.strip_suffix(b")")) {
            return match self.locals.get(&inner.to_ascii_lowercase())? {
                Local::Qualified(u, q) => Some(vec![(*u, *q)]),
                Local::Composite(us) => Some(us.clone()),
            };
        }
        usage_of(part).map(|u| vec![(u, written)])
    }

    /// The patterns (as written) of a resource specification, or None when
    /// it names an undefined set.
    fn patterns(&self, spec: &[u8]) -> Option<Vec<Vec<u8>>> {
        const SET: &[u8] = b"the-acap:resource-set:";
        if spec.len() >= SET.len() && spec[..SET.len()].eq_ignore_ascii_case(SET) {
            return self
                .sets
                .get(&spec[SET.len()..].to_ascii_lowercase())
                .cloned();
        }
        Some(vec![spec.to_vec()])
    }
}

/// A usage of the table (`search`, `train-ai`, `ai-input` are not ACAP's).
fn usage_of(name: &[u8]) -> Option<Usage> {
    let usage: Usage = std::str::from_utf8(name).ok()?.parse().ok()?;
    Usage::ACAP.contains(&usage).then_some(usage)
}

fn starts_with_ci(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Is the line `ACAP-ignore-conventional-records` (bare, or as a key)?
fn is_ignore_conventional(text: &[u8]) -> bool {
    const KEY: &[u8] = b"acap-ignore-conventional-records";
    let text = match text.iter().position(|&b| b == b'#' || b == 0) {
        Some(i) => &text[..i],
        None => text,
    };
    let bare = text.trim_ascii();
    if bare.eq_ignore_ascii_case(KEY) {
        return true;
    }
    matches!(key_and_value(text), Some((key, _)) if key.eq_ignore_ascii_case(KEY))
}

/// A rule read from an ACAP record, before tiers are assigned.
struct Read {
    usage: Usage,
    allow: bool,
    written: Vec<u8>,
    line: u32,
    /// A permission with qualifiers.
    qualified: bool,
}

/// What one walk over an ACAP file yields.
#[derive(Default)]
struct Walk {
    /// (rule, applies to the named tier, applies to the any tier).
    rules: Vec<(Read, bool, bool)>,
    /// Line numbers inside ACAP records (blanked for the conventional parse).
    acap_lines: Vec<u32>,
    /// The first line of each ACAP record: it ends the conventional record
    /// before it.
    acap_starts: Vec<u32>,
    ignore_conventional: bool,
}

/// The state of the ACAP record being read.
#[derive(Default)]
struct RecordState {
    /// Inside an ACAP record.
    open: bool,
    /// A field other than a crawler line has been read in the record.
    had_field: bool,
    named: bool,
    any: bool,
    /// The purposes of the current sub-record (None: general rules).
    purposes: Option<Vec<Vec<u8>>>,
    /// The current sub-record has had a rule.
    sub_has_rule: bool,
}

/// Reads the ACAP side of `body`. `definitions` starts with those in force
/// (a referenced file sees the referring file's); `references` are followed
/// when `depth` is 0, and a reference that cannot be followed adds a
/// prohibition of `/` for every usage.
fn walk(
    body: &[u8],
    agent: &str,
    purposes: &[String],
    definitions: &mut Definitions,
    references: &[(String, Vec<u8>)],
    depth: u32,
) -> Walk {
    let mut out = Walk::default();
    let mut rec = RecordState::default();
    let mut seen_crawler = false;
    for (number, text) in rfc9309::lines(body, rfc9309::DEFAULT_MAX_LINE_LEN) {
        if is_ignore_conventional(text) {
            out.ignore_conventional = true;
            if rec.open {
                out.acap_lines.push(number);
            }
            continue;
        }
        let Some((key, value)) = key_and_value(text) else {
            if rec.open {
                out.acap_lines.push(number);
            }
            continue;
        };
        if key.eq_ignore_ascii_case(b"acap-crawler") {
            seen_crawler = true;
            if !rec.open || rec.had_field {
                rec = RecordState {
                    open: true,
                    ..RecordState::default()
                };
                out.acap_starts.push(number);
            }
            out.acap_lines.push(number);
            // `*` alone or before whitespace is any crawler; otherwise the
            // value's leading run of letters, `-` and `_` is the name
            // (2.3.1: "semantically equivalent to a user agent field"), as
            // the rfc9309 oracle reads a User-agent value.
            let global = rfc9309::is_global_value(value);
            if global {
                rec.any = true;
            } else if !agent.is_empty()
                && rfc9309::extract_user_agent(value).eq_ignore_ascii_case(agent.as_bytes())
            {
                rec.named = true;
            }
            continue;
        }
        if key_kind(key) == Key::UserAgent {
            // A conventional record starts: the ACAP record ends.
            rec = RecordState::default();
            continue;
        }
        if rec.open {
            out.acap_lines.push(number);
            // Only a field allowed in records ends the list of crawler
            // lines (2.3: "following some other field allowed in records"):
            // a purpose, a permission or prohibition, an action request, a
            // permissions reference.
            const RECORD_FIELDS: [&str; 5] = [
                "acap-usage-purpose",
                "acap-allow-",
                "acap-disallow-",
                "acap-request-",
                "acap-permissions-reference",
            ];
            rec.had_field |= RECORD_FIELDS.iter().any(|k| starts_with_ci(key, k));
        }
        if !seen_crawler {
            if key.eq_ignore_ascii_case(b"acap-resource-set") {
                definitions.resource_set(value);
            } else if key.eq_ignore_ascii_case(b"acap-qualified-usage") {
                definitions.qualified(value);
            } else if key.eq_ignore_ascii_case(b"acap-composite-usage") {
                definitions.composite(value);
            }
        }
        if !rec.open {
            // ACAP rule fields outside an ACAP record are ignored, as are
            // conventional fields (read by the conventional parse).
            continue;
        }
        if key.eq_ignore_ascii_case(b"acap-usage-purpose") {
            if rec.purposes.is_none() || rec.sub_has_rule {
                rec.purposes = Some(Vec::new());
                rec.sub_has_rule = false;
            }
            if !value.is_empty() {
                rec.purposes.as_mut().unwrap().push(value.to_vec());
            }
            continue;
        }
        let (allow, part) = if starts_with_ci(key, "acap-allow-") {
            (true, &key["acap-allow-".len()..])
        } else if starts_with_ci(key, "acap-disallow-") {
            (false, &key["acap-disallow-".len()..])
        } else if key.eq_ignore_ascii_case(b"acap-permissions-reference") {
            if !(rec.named || rec.any) || !sub_applies(&rec, purposes) {
                continue;
            }
            let found = references
                .iter()
                .find(|(path, _)| path.as_bytes() == value)
                .filter(|_| depth == 0);
            match found {
                Some((_, text)) => {
                    let mut defs = definitions.clone();
                    let inner = walk(text, agent, purposes, &mut defs, references, depth + 1);
                    for (read, named, any) in inner.rules {
                        if named || any {
                            let r = Read {
                                line: number,
                                ..read
                            };
                            out.rules.push((r, rec.named, rec.any));
                        }
                    }
                }
                None => {
                    for &usage in Usage::ACAP {
                        let r = Read {
                            usage,
                            allow: false,
                            written: b"/".to_vec(),
                            line: number,
                            qualified: false,
                        };
                        out.rules.push((r, rec.named, rec.any));
                    }
                }
            }
            continue;
        } else {
            // Action requests, unknown ACAP keys, conventional fields.
            continue;
        };
        if rec.purposes.is_some() {
            rec.sub_has_rule = true;
        }
        if !(rec.named || rec.any) || !sub_applies(&rec, purposes) {
            continue;
        }
        let mut tokens = value
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(spec) = tokens.next() else {
            continue;
        };
        // Qualifiers count on a permission only (2.4.2).
        let written = allow && tokens.next().is_some();
        let Some(usages) = definitions.usages(part, written) else {
            continue;
        };
        let Some(patterns) = definitions.patterns(spec) else {
            continue;
        };
        for pattern in &patterns {
            for &(usage, qualified) in &usages {
                let r = Read {
                    usage,
                    allow,
                    written: pattern.to_ascii_lowercase(),
                    line: number,
                    qualified: allow && qualified,
                };
                out.rules.push((r, rec.named, rec.any));
            }
        }
    }
    out
}

/// Does the current sub-record (if any) apply to the declared purposes?
fn sub_applies(rec: &RecordState, purposes: &[String]) -> bool {
    match &rec.purposes {
        None => true,
        Some(patterns) => patterns.iter().any(|p| {
            let p = p.to_ascii_lowercase();
            purposes
                .iter()
                .any(|d| pattern_matches(&p, d.to_ascii_lowercase().as_bytes()))
        }),
    }
}

/// The bytes of `body` that are read: rfc9309's parse limit (the default
/// 500 KiB), cut after the last line end within it, as the parser cuts.
fn within_limit(body: &[u8]) -> &[u8] {
    rfc9309::within_limit(body, DEFAULT_MAX_BYTES)
}

/// The oracle for one robots.txt, agent, set of purposes and references.
#[derive(Clone, Debug)]
pub struct AcapOracle {
    rules: Vec<AcapRule>,
}

impl AcapOracle {
    /// body: the robots.txt bytes; agent: the crawler's product token;
    /// purposes: declared usage purposes; references: (path as written in
    /// ACAP-permissions-reference, file body) pairs.
    pub fn new(
        body: &[u8],
        agent: &str,
        purposes: &[String],
        references: &[(String, Vec<u8>)],
    ) -> AcapOracle {
        // The input stage every dialect shares (docs/dialects.md, "Input"):
        // a UTF-16 body is read decoded.
        let decoded = body_text(body);
        let body = within_limit(&decoded);
        let references: Vec<(String, Vec<u8>)> = references
            .iter()
            .map(|(path, text)| {
                let text = body_text(text);
                (path.clone(), within_limit(&text).to_vec())
            })
            .collect();
        let mut definitions = Definitions::default();
        let walked = walk(body, agent, purposes, &mut definitions, &references, 0);
        let mut rules = Vec::new();
        for (read, named, any) in walked.rules {
            for tier in [true, false] {
                if (tier && named) || (!tier && any) {
                    rules.push(AcapRule {
                        named: tier,
                        usage: read.usage,
                        allow: read.allow,
                        matched: google_pattern(&read.written).to_ascii_lowercase(),
                        written: read.written.clone(),
                        conventional: false,
                        qualified: read.qualified,
                        line: read.line,
                        seq: rules.len(),
                    });
                }
            }
        }
        if !walked.ignore_conventional {
            let conventional =
                conventional_rules(body, agent, &walked.acap_lines, &walked.acap_starts);
            for c in conventional {
                let written = c.raw.to_ascii_lowercase();
                let dropped = rules.iter().any(|r| {
                    !r.conventional
                        && r.usage == Usage::Crawl
                        && r.allow != c.allow
                        && r.written == written
                });
                if !dropped {
                    rules.push(AcapRule {
                        named: c.named,
                        usage: Usage::Crawl,
                        allow: c.allow,
                        written,
                        matched: c.encoded,
                        conventional: true,
                        qualified: false,
                        line: c.line,
                        seq: rules.len(),
                    });
                }
            }
        }
        AcapOracle { rules }
    }

    /// Every rule that applies to the agent and its purposes, both tiers.
    pub fn rules(&self) -> &[AcapRule] {
        &self.rules
    }

    /// url: absolute (http://host/path?q) or a path. Plain rule walk,
    /// pairwise narrowest-scope comparison.
    pub fn check(&self, url: &[u8], usage: Usage) -> AcapAnswer {
        let path = rfc9309::matched_path(url, UrlMode::Google);
        let lower = path.to_ascii_lowercase();
        // Named over any: the named tier when one of its rules concerns the
        // usage and matches (an `other` rule concerns every usage when no
        // permission of its tier does, so a matching one counts).
        let named_speaks = self.rules.iter().any(|r| {
            r.named
                && (r.concerns_directly(usage) || r.usage == Usage::Other)
                && r.matches(&path, &lower)
        });
        let mut tier: Vec<&AcapRule> = self
            .rules
            .iter()
            .filter(|r| r.named == named_speaks && r.matches(&path, &lower))
            .collect();
        // Conventional lines that disagree settle as rfc9309 does (2.9.2:
        // "interpreted as normal"): only the longest (encoded), Allow on a
        // tie, the first such in file order, stays.
        let conventional: Vec<&AcapRule> = tier
            .iter()
            .copied()
            .filter(|r| r.conventional && r.concerns_directly(usage))
            .collect();
        if conventional.iter().any(|r| r.allow) && conventional.iter().any(|r| !r.allow) {
            let longest = conventional.iter().map(|r| r.matched.len()).max().unwrap();
            let longest = conventional.iter().filter(|r| r.matched.len() == longest);
            let allow_among = longest.clone().any(|r| r.allow);
            let keep = first(longest.filter(|r| r.allow == allow_among).copied()).unwrap();
            tier.retain(|r| !r.conventional || std::ptr::eq(*r, keep));
        }
        let permitted = tier.iter().any(|r| r.allow && r.concerns_directly(usage));
        let set: Vec<&AcapRule> = tier
            .into_iter()
            .filter(|r| {
                r.concerns_directly(usage)
                    || (r.usage == Usage::Other && (usage == Usage::Other || !permitted))
            })
            .collect();
        resolve(&set)
    }
}

/// The first in file order: lowest source line, then expansion order.
fn first<'r>(rules: impl Iterator<Item = &'r AcapRule>) -> Option<&'r AcapRule> {
    rules.min_by_key(|r| r.order())
}

/// 2.4.5 over the rules `set` (those that concern the usage and match).
fn resolve(set: &[&AcapRule]) -> AcapAnswer {
    if set.is_empty() {
        return AcapAnswer {
            allowed: true,
            line: None,
            undecidable: false,
        };
    }
    let allowed = set[0].allow;
    // The rules narrower than every other (or of an equal pattern and the
    // same verdict); the first of them in file order.
    let narrowest = || {
        first(set.iter().copied().filter(|w| {
            set.iter().all(|r| {
                std::ptr::eq(*w, *r)
                    || match narrower(&w.written, &r.written) {
                        Scope::First => true,
                        Scope::Equal => r.allow == w.allow,
                        Scope::Second | Scope::Undetermined => false,
                    }
            })
        }))
    };
    if set.iter().all(|r| r.allow == allowed) {
        // Step 2: no conflict. The first rule in file order names it;
        // among permissions one of which has qualifiers, the narrowest
        // does (its qualifiers are the ones that apply), when there is one.
        let qualified = allowed && set.iter().any(|r| r.qualified);
        let decider = match qualified.then(narrowest).flatten() {
            Some(w) => w,
            None => first(set.iter().copied()).unwrap(),
        };
        return AcapAnswer {
            allowed,
            line: Some(decider.line),
            undecidable: false,
        };
    }
    // Step 3: `w` is narrower than every other rule, or has the same
    // pattern and the same verdict.
    match narrowest() {
        Some(w) => AcapAnswer {
            allowed: w.allow,
            line: Some(w.line),
            undecidable: false,
        },
        None => AcapAnswer {
            allowed: false,
            line: None,
            undecidable: true,
        },
    }
}

/// A conventional Allow/Disallow that applies to the agent.
struct Conventional {
    /// From groups naming the agent (else from `*` groups).
    named: bool,
    allow: bool,
    /// The value as written.
    raw: Vec<u8>,
    /// The value as rfc9309 encodes it.
    encoded: Vec<u8>,
    line: u32,
}

/// The conventional records' rules for `agent`, read as rfc9309 reads them
/// from the body with the ACAP records' lines blanked. An ACAP record ends
/// the conventional record before it (docs/dialects.md: a record runs
/// "until a line that starts a record of the other kind"), so its first line
/// becomes an empty `Disallow:`, which closes a Google group and is no rule:
/// `User-agent: a`, an ACAP record, `User-agent: b` are two groups, not one.
fn conventional_rules(
    body: &[u8],
    agent: &str,
    acap_lines: &[u32],
    acap_starts: &[u32],
) -> Vec<Conventional> {
    let mut blanked = Vec::with_capacity(body.len());
    let mut start = 0;
    let mut ends = Vec::new();
    // Re-split keeping the line ends, so line numbers stay identical.
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\n' => {
                ends.push((start, i, i + 1));
                start = i + 1;
            }
            b'\r' => {
                let next = if body.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                ends.push((start, i, next));
                start = next;
                i = next - 1;
            }
            _ => {}
        }
        i += 1;
    }
    ends.push((start, body.len(), body.len()));
    // Physical line k (1-based) is ends[k-1], BOM aside: Lines skips a
    // leading BOM within line 1, which blanking never touches unless line 1
    // is an ACAP line (then it is blanked whole, BOM included).
    for (k, &(s, e, next)) in ends.iter().enumerate() {
        let number = k as u32 + 1;
        if acap_starts.contains(&number) {
            blanked.extend_from_slice(b"Disallow:");
        } else if !acap_lines.contains(&number) {
            blanked.extend_from_slice(&body[s..e]);
        }
        blanked.extend_from_slice(&body[e..next]);
    }
    let opts = Rfc9309Options::default();
    let walk = rfc9309::walk(rfc9309::read(&blanked, &opts), &[agent], &opts);
    walk.applying()
        .filter(|l| matches!(l.key, Key::Allow | Key::Disallow) && !l.value.is_empty())
        .map(|l| Conventional {
            named: walk.named,
            allow: l.key == Key::Allow,
            raw: l.value.to_vec(),
            encoded: google_pattern(l.value),
            line: l.number,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(body: &str, agent: &str, purposes: &[&str]) -> AcapOracle {
        let p: Vec<String> = purposes.iter().map(|s| s.to_string()).collect();
        AcapOracle::new(body.as_bytes(), agent, &p, &[])
    }

    fn ans(o: &AcapOracle, url: &str, usage: Usage) -> (bool, Option<u32>, bool) {
        let a = o.check(url.as_bytes(), usage);
        (a.allowed, a.line, a.undecidable)
    }

    #[test]
    fn narrower_follows_the_spec() {
        // Ran out: the other is narrower.
        assert_eq!(narrower(b"/a", b"/a/b"), Scope::Second);
        assert_eq!(narrower(b"/a/b", b"/a"), Scope::First);
        // `$` against anything else, `*` included.
        assert_eq!(narrower(b"/a$", b"/ab"), Scope::Second);
        assert_eq!(narrower(b"/a*", b"/a$"), Scope::First);
        // `*` against an ordinary character.
        assert_eq!(narrower(b"/*.gif", b"/a.gif"), Scope::Second);
        assert_eq!(narrower(b"/a", b"/*"), Scope::First);
        // Undetermined and equal, case ignored.
        assert_eq!(narrower(b"/a", b"/b"), Scope::Undetermined);
        assert_eq!(narrower(b"/A*$", b"/a*$"), Scope::Equal);
        assert_eq!(narrower(b"", b""), Scope::Equal);
    }

    #[test]
    fn resolution_steps() {
        let body = "ACAP-crawler: *\n\
                    ACAP-disallow-crawl: /a\n\
                    ACAP-allow-crawl: /a/b\n\
                    ACAP-allow-crawl: /a/b\n\
                    ACAP-disallow-index: /x\n\
                    ACAP-allow-index: /X\n\
                    ACAP-allow-follow: /p\n\
                    ACAP-allow-follow: /p/q\n\
                    ACAP-disallow-preserve: /*.gif\n\
                    ACAP-allow-preserve: /a\n";
        let o = oracle(body, "bot", &[]);
        // Step 1: no rule.
        assert_eq!(ans(&o, "/zzz", Usage::Crawl), (true, None, false));
        // Step 3: the narrower decides; equal patterns with one verdict:
        // the first in file order.
        assert_eq!(ans(&o, "/a/b/c", Usage::Crawl), (true, Some(3), false));
        assert_eq!(ans(&o, "/a/c", Usage::Crawl), (false, Some(2), false));
        // Step 3: equal patterns, opposite verdicts: undecidable.
        assert_eq!(ans(&o, "/x", Usage::Index), (false, None, true));
        // Step 2: all allow: the first in file order names it.
        assert_eq!(ans(&o, "/p/q", Usage::Follow), (true, Some(7), false));
        // Step 3: `/*.gif` against `/a`: `*` vs `a` makes `/a` narrower.
        assert_eq!(ans(&o, "/a.gif", Usage::Preserve), (true, Some(10), false));
        assert_eq!(ans(&o, "/b.gif", Usage::Preserve), (false, Some(9), false));
    }

    #[test]
    fn undetermined_pair_is_undecidable() {
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a*c\nACAP-disallow-crawl: /*bc\n";
        let o = oracle(body, "bot", &[]);
        // `/a*c` vs `/*bc`: `a` vs `*` → `/a*c` narrower.
        assert_eq!(ans(&o, "/abc", Usage::Crawl), (true, Some(2), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a*\nACAP-disallow-crawl: /ab\nACAP-disallow-crawl: /ac*\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/ab", Usage::Crawl), (false, Some(3), false));
        // `/ab` and `/ac*` never both match; `/a*` vs `/ac*`: `/ac*` narrower.
        assert_eq!(ans(&o, "/acx", Usage::Crawl), (false, Some(4), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a*x\nACAP-disallow-crawl: /ab*\n";
        let o = oracle(body, "bot", &[]);
        // `*` vs `b`: `/ab*` narrower.
        assert_eq!(ans(&o, "/abx", Usage::Crawl), (false, Some(3), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /*a\nACAP-disallow-crawl: /b*\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/ba", Usage::Crawl), (false, Some(3), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a\nACAP-disallow-crawl: /b\nACAP-disallow-crawl: *\nACAP-allow-crawl: /ab\nACAP-disallow-crawl: /*b\n";
        let o = oracle(body, "bot", &[]);
        // `/ab` vs `/*b`: `/ab` narrower; vs `/a`, `*`: narrower.
        assert_eq!(ans(&o, "/ab", Usage::Crawl), (true, Some(5), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a*b\nACAP-disallow-crawl: /a*c\n";
        let o = oracle(body, "bot", &[]);
        // `b` vs `c` after equal `*`s: undetermined.
        assert_eq!(ans(&o, "/abc", Usage::Crawl), (false, None, true));
        assert_eq!(ans(&o, "/acb", Usage::Crawl), (false, None, true));
        assert_eq!(ans(&o, "/ab", Usage::Crawl), (true, Some(2), false));
        assert_eq!(ans(&o, "/ac", Usage::Crawl), (false, Some(3), false));
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /a*b*\nACAP-disallow-crawl: /a*c*\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/abc", Usage::Crawl), (false, None, true));
    }

    #[test]
    fn step_two_without_a_narrowest_takes_the_first() {
        let body = "ACAP-crawler: *\nACAP-disallow-crawl: /a*\nACAP-disallow-crawl: /*b\n";
        let o = oracle(body, "bot", &[]);
        // `/a*` vs `/*b`: `a` vs `*` → `/a*` narrower.
        assert_eq!(ans(&o, "/ab", Usage::Crawl), (false, Some(2), false));
        let body = "ACAP-crawler: *\nACAP-disallow-crawl: /*b*\nACAP-disallow-crawl: /*c*\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/bc", Usage::Crawl), (false, Some(2), false));
        assert_eq!(ans(&o, "/cb", Usage::Crawl), (false, Some(2), false));
    }

    #[test]
    fn named_over_any() {
        let body = "ACAP-crawler: *\nACAP-disallow-crawl: /\nACAP-disallow-index: /a\n\
                    ACAP-crawler: BOT\nACAP-allow-crawl: /pub/\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/pub/x", Usage::Crawl), (true, Some(5), false));
        // The named tier says nothing about /other: the any tier decides.
        assert_eq!(ans(&o, "/other", Usage::Crawl), (false, Some(2), false));
        assert_eq!(ans(&o, "/pub/x", Usage::Index), (true, None, false));
        assert_eq!(ans(&o, "/a", Usage::Index), (false, Some(3), false));
        let other = oracle(body, "otherbot", &[]);
        assert_eq!(ans(&other, "/pub/x", Usage::Crawl), (false, Some(2), false));
    }

    #[test]
    fn purposes() {
        let body = "ACAP-crawler: *\nACAP-disallow-index: /\n\
                    ACAP-usage-purpose: news\nACAP-allow-index: /n/\n\
                    ACAP-usage-purpose: *images$\nACAP-usage-purpose: x\nACAP-allow-index: /i/\n";
        let none = oracle(body, "bot", &[]);
        assert_eq!(ans(&none, "/n/1", Usage::Index), (false, Some(2), false));
        let news = oracle(body, "bot", &["NewsFeed"]);
        assert_eq!(ans(&news, "/n/1", Usage::Index), (true, Some(4), false));
        assert_eq!(ans(&news, "/i/1", Usage::Index), (false, Some(2), false));
        let images = oracle(body, "bot", &["all-images"]);
        assert_eq!(ans(&images, "/i/1", Usage::Index), (true, Some(7), false));
        let not = oracle(body, "bot", &["images-x"]);
        assert_eq!(ans(&not, "/i/1", Usage::Index), (false, Some(2), false));
    }

    #[test]
    fn other_and_present() {
        let body = "ACAP-crawler: *\nACAP-allow-crawl: /p/\nACAP-allow-present: /p/\n\
                    ACAP-disallow-present-snippet: /p/s\nACAP-disallow-other: /\n";
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/p/x", Usage::Crawl), (true, Some(2), false));
        assert_eq!(ans(&o, "/p/x", Usage::Index), (false, Some(5), false));
        assert_eq!(
            ans(&o, "/p/x", Usage::PresentThumbnail),
            (true, Some(3), false)
        );
        assert_eq!(
            ans(&o, "/p/s", Usage::PresentSnippet),
            (false, Some(4), false)
        );
        assert_eq!(ans(&o, "/p/s", Usage::PresentLink), (true, Some(3), false));
        assert_eq!(ans(&o, "/p/x", Usage::Other), (false, Some(5), false));
        assert_eq!(ans(&o, "/q", Usage::Crawl), (false, Some(5), false));
    }

    #[test]
    fn conventional_interplay() {
        let body = "User-agent: *\nDisallow: /a\nDisallow: /b\nAllow: /c\n\n\
                    ACAP-crawler: *\nACAP-allow-crawl: /A\nDisallow: /d\n\
                    User-agent: bot\nDisallow: /e\n";
        // `bot` gets the named conventional group (line 10).
        let o = oracle(body, "bot", &[]);
        assert_eq!(ans(&o, "/e", Usage::Crawl), (false, Some(10), false));
        assert_eq!(ans(&o, "/e", Usage::Index), (true, None, false));
        // Any tier: /a dropped by the ACAP allow of the same pattern.
        let o = oracle(body, "x", &[]);
        assert_eq!(ans(&o, "/a", Usage::Crawl), (true, Some(7), false));
        assert_eq!(ans(&o, "/b", Usage::Crawl), (false, Some(3), false));
        // A conventional field inside an ACAP record is ignored.
        assert_eq!(ans(&o, "/d", Usage::Crawl), (true, None, false));
        // Conventional matching stays case-sensitive.
        assert_eq!(ans(&o, "/B", Usage::Crawl), (true, None, false));
        // An ACAP record ends the conventional record before it: `bot`'s
        // group is empty, not merged with `other`'s.
        let split = "User-agent: bot\nACAP-crawler: *\nACAP-disallow-index: /i/\n\
                     User-agent: other\nDisallow: /\n";
        let o = oracle(split, "bot", &[]);
        assert_eq!(ans(&o, "/x", Usage::Crawl), (true, None, false));
        assert_eq!(ans(&o, "/i/", Usage::Index), (false, Some(3), false));
        let o = oracle(split, "other", &[]);
        assert_eq!(ans(&o, "/x", Usage::Crawl), (false, Some(5), false));
        // Conventional lines that disagree settle as rfc9309 does (2.9.2);
        // the winner then competes with the ACAP rules by scope.
        let settled = "User-agent: *\nAllow: /p/\nDisallow: /*.html\nAllow: /s\nDisallow: /s\n\
                       ACAP-crawler: *\nACAP-allow-crawl: /p/x.html$\n";
        let o = oracle(settled, "x", &[]);
        assert_eq!(ans(&o, "/p/a.html", Usage::Crawl), (false, Some(3), false));
        assert_eq!(ans(&o, "/s", Usage::Crawl), (true, Some(4), false));
        assert_eq!(ans(&o, "/p/x.html", Usage::Crawl), (true, Some(7), false));
        let ignoring = format!("ACAP-ignore-conventional-records\n{body}");
        // Agreeing permissions, one with qualifiers: the narrowest names it
        // (an unqualified narrower one included); otherwise the first.
        let qualified = "ACAP-qualified-usage: q index time-limit=3-days\nACAP-crawler: *\n\
                         ACAP-allow-index: /\nACAP-allow-(q): /news/\nACAP-allow-index: /news/free/\n\
                         ACAP-allow-preserve: /*x\nACAP-allow-preserve: /*y x=1\n";
        let o = oracle(qualified, "x", &[]);
        assert_eq!(ans(&o, "/news/x", Usage::Index), (true, Some(4), false));
        assert_eq!(
            ans(&o, "/news/free/x", Usage::Index),
            (true, Some(5), false)
        );
        assert_eq!(ans(&o, "/x", Usage::Index), (true, Some(3), false));
        assert_eq!(ans(&o, "/y", Usage::Preserve), (true, Some(7), false));
        // `/*x` against `/*y`: no narrowest, so the first.
        assert_eq!(ans(&o, "/xy", Usage::Preserve), (true, Some(6), false));
        let o = oracle(&ignoring, "x", &[]);
        assert_eq!(ans(&o, "/b", Usage::Crawl), (true, None, false));
    }

    #[test]
    fn definitions() {
        let body = "ACAP-resource-set: crawlable /public/ /news/\n\
                    ACAP-qualified-usage: cache preserve time-limit=until-recrawled\n\
                    ACAP-composite-usage: basic crawl index (cache) (nope)\n\
                    ACAP-crawler: *\n\
                    ACAP-disallow-crawl: /\nACAP-disallow-index: /\nACAP-disallow-preserve: /\n\
                    ACAP-allow-(basic): the-acap:resource-set:crawlable\n\
                    ACAP-allow-(undefined): /news/\n\
                    ACAP-allow-follow: the-acap:resource-set:missing\n\
                    ACAP-resource-set: late /late/\n\
                    ACAP-allow-crawl: the-acap:resource-set:late\n";
        let o = oracle(body, "bot", &[]);
        for u in [Usage::Crawl, Usage::Index, Usage::Preserve] {
            assert_eq!(ans(&o, "/news/1", u), (true, Some(8), false));
            assert_eq!(ans(&o, "/public/1", u), (true, Some(8), false));
        }
        assert_eq!(ans(&o, "/late/1", Usage::Crawl), (false, Some(5), false));
        assert_eq!(ans(&o, "/x", Usage::Follow), (true, None, false));
    }

    #[test]
    fn references() {
        let body = b"ACAP-crawler: bot\nACAP-permissions-reference: /bot.txt\n\
                     ACAP-crawler: *\nACAP-permissions-reference: /missing.txt\n";
        let refs = vec![(
            "/bot.txt".to_string(),
            b"ACAP-crawler: *\nACAP-disallow-crawl: /x\nACAP-crawler: other\nACAP-disallow-crawl: /\n"
                .to_vec(),
        )];
        let o = AcapOracle::new(body, "bot", &[], &refs);
        assert_eq!(ans(&o, "/x", Usage::Crawl), (false, Some(2), false));
        assert_eq!(ans(&o, "/y", Usage::Crawl), (false, Some(4), false));
        assert_eq!(ans(&o, "/y", Usage::Index), (false, Some(4), false));
        let o = AcapOracle::new(body, "zed", &[], &refs);
        assert_eq!(ans(&o, "/x", Usage::PresentLink), (false, Some(4), false));
    }

    #[test]
    fn parse_limit() {
        let mut body = "ACAP-crawler: *\nACAP-disallow-crawl: /a\n".to_string();
        while body.len() < DEFAULT_MAX_BYTES {
            body.push_str("# padding padding padding padding padding padding\n");
        }
        body.push_str("ACAP-crawler: *\nACAP-disallow-crawl: /b\n");
        let o = oracle(&body, "bot", &[]);
        assert_eq!(ans(&o, "/a", Usage::Crawl), (false, Some(2), false));
        assert_eq!(ans(&o, "/b", Usage::Crawl), (true, None, false));
    }

    #[test]
    fn spec_overview_file() {
        let body = "##ACAP version=1.0\n# Legacy robots.txt content...\n\n\
User-agent: *\nDisallow: /\n\n\
User-agent: named-crawler\nAllow: /index.html\nAllow: /public/\nAllow: /promotion/\nAllow: /news/\n\n\
# ACAP-ignore-conventional-records\n\n\
ACAP-resource-set: crawlable /public/ /promotion/ /news/\n\
ACAP-qualified-usage: cache preserve time-limit=until-recrawled\n\
ACAP-composite-usage: basic-usages crawl index present\n\
ACAP-crawler: *\nACAP-disallow-crawl: /\n\
ACAP-crawler: named-crawler\nACAP-allow-(basic-usages): the-acap:resource-set:crawlable\n";
        let o = oracle(body, "named-crawler", &[]);
        assert_eq!(ans(&o, "/public/a", Usage::Crawl), (true, Some(9), false));
        assert_eq!(ans(&o, "/news/a", Usage::Index), (true, Some(21), false));
        assert_eq!(
            ans(&o, "/news/a", Usage::PresentSnippet),
            (true, Some(21), false)
        );
        assert_eq!(ans(&o, "/index.html", Usage::Crawl), (true, Some(8), false));
        assert_eq!(ans(&o, "/private", Usage::Crawl), (false, Some(19), false));
        assert_eq!(ans(&o, "/news/a", Usage::Preserve), (true, None, false));
        let o = oracle(body, "somebot", &[]);
        assert_eq!(ans(&o, "/public/a", Usage::Crawl), (false, Some(5), false));
        assert_eq!(ans(&o, "/public/a", Usage::Index), (true, None, false));
    }
}
