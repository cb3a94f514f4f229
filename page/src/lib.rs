//! Page-level permissions: what a fetched HTML page and its response
//! headers say about each usage type, and how that combines with the site's
//! robots.txt policy (issue 17; ACAP 1.1 Part 2, Robots META tags,
//! `X-Robots-Tag`). docs/dialects.md, "Page level", states every choice.
//!
//! The stages, one file each:
//!
//! * `tokenize`: the HTML as start/end tags (a WHATWG tokenizer; no DOM,
//!   memory bounded by the token being read);
//! * `meta`: conventional directives (`noindex`, `nosnippet`, …) and their
//!   qualifiers, from META tags and `X-Robots-Tag` headers;
//! * `acap_meta`: ACAP META contents and `the-acap:` class values;
//! * `preferences`: AI-usage preferences (`Content-Usage` header, TDMRep;
//!   `noai` comes through `meta`);
//! * this module: addressing (robots / the agent / others), the ACAP version
//!   rule, element spans, and the per-usage resolution ([`PageRules`]);
//! * `combine`: the page over the site policy ([`combine()`]).

mod acap_meta;
mod combine;
mod lint;
mod meta;
mod preferences;
pub mod tdmrep;
mod tokenize;

pub use combine::{combine, Combined, Final, FinalSource};
pub use lint::{lint, PageFinding};
pub use meta::parse_date;
pub use preferences::{PageSignal, SignalKind};

use robocc_engine::{Usage, UsageSet};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::rc::Rc;

/// A page's verdict for one usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageVerdict {
    /// Permitted.
    Allow,
    /// Prohibited.
    Disallow,
    /// The page says nothing about the usage.
    Unspecified,
}

impl PageVerdict {
    /// `allow`, `disallow` or `unspecified`.
    pub fn name(self) -> &'static str {
        match self {
            PageVerdict::Allow => "allow",
            PageVerdict::Disallow => "disallow",
            PageVerdict::Unspecified => "unspecified",
        }
    }
}

/// Where a statement was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A META tag: byte offset of its `<`, its `name` and `content`
    /// (character references decoded).
    Meta {
        /// Byte offset of the tag's `<`.
        offset: usize,
        /// The `name` attribute.
        name: String,
        /// The `content` attribute.
        content: String,
    },
    /// A response header: its index among the headers given (0-based),
    /// name and value.
    Header {
        /// Index among the headers given, from 0.
        index: usize,
        /// Header name as given.
        name: String,
        /// Header value, trimmed.
        value: String,
    },
    /// A `class` attribute on an element: offset of the element's `<`, the
    /// tag name and the class token.
    Class {
        /// Byte offset of the element's `<`.
        offset: usize,
        /// Lower-case tag name.
        tag: String,
        /// The class token.
        token: String,
    },
    /// A rule of the site's `tdmrep.json` ([`PageOptions::tdmrep`]).
    TdmrepFile {
        /// Position in the file's array, from 0.
        rule: usize,
        /// Its `location`.
        location: String,
    },
}

impl Source {
    /// `META name="robots" content="…" at byte 120`, `header 2 X-Robots-Tag: …`.
    pub fn describe(&self) -> String {
        match self {
            Source::Meta {
                offset,
                name,
                content,
            } => format!("META name={name:?} content={content:?} at byte {offset}"),
            Source::Header { index, name, value } => {
                format!("header {} {name}: {value}", index + 1)
            }
            Source::Class { offset, tag, token } => {
                format!("<{tag} class=\"{token}\"> at byte {offset}")
            }
            Source::TdmrepFile { rule, location } => {
                format!("tdmrep.json rule {} (location {location:?})", rule + 1)
            }
        }
    }
}

/// Why a usage has its page verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Nothing on the page speaks of the usage.
    Unspecified,
    /// Permitted (one or more permissions, no prohibition).
    Allowed,
    /// Prohibited (one or more prohibitions, no permission).
    Prohibited,
    /// A permission and a prohibition (2.2.8, or the conventional "most
    /// restrictive"): prohibited.
    Conflict,
    /// A permission qualified by `location=` for another URI (2.2.9.1).
    LocationMismatch,
    /// `unavailable_after` is past (`now` given).
    UnavailableAfter,
    /// A `class` permission or prohibition for the usage on some element:
    /// prohibited for the page as a whole (2.2.6).
    ElementFallback,
}

impl Reason {
    /// The name used in JSON and messages.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Unspecified => "unspecified",
            Reason::Allowed => "allowed",
            Reason::Prohibited => "prohibited",
            Reason::Conflict => "conflict",
            Reason::LocationMismatch => "location-mismatch",
            Reason::UnavailableAfter => "unavailable-after",
            Reason::ElementFallback => "element-fallback",
        }
    }
}

/// The page's answer for one usage.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The usage.
    pub usage: Usage,
    /// The page-wide verdict, with 2.2.6's fallback applied: what a crawler
    /// that does not process elements one by one must use.
    pub verdict: PageVerdict,
    /// The verdict of the META tags and headers alone, for a crawler that
    /// applies [`PageRules::elements`] element by element.
    pub element_aware: PageVerdict,
    /// Why.
    pub reason: Reason,
    /// The deciding statement's source (the first in order: headers, then
    /// the document).
    pub source: Option<Source>,
    /// The deciding statement as written (`noindex`, `allow-index`).
    pub written: Option<String>,
    /// The qualifiers of the permissions that allow it.
    pub qualifiers: Vec<String>,
    /// The META/header verdict comes from `disallow-other` / `allow-other`
    /// alone: no statement of the page concerns the usage itself (Part 1
    /// 2.5.6: `other` concerns the usages not explicitly permitted). Over
    /// an acap site policy that permits the usage for the URL by a rule,
    /// [`combine()`] sets it aside (2.2.8's NOTE).
    pub by_other: bool,
}

/// An element carrying a `the-acap:` class permission or prohibition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// Lower-case tag name.
    pub tag: String,
    /// Byte span: from its start tag's `<` to just past its end tag's `>`
    /// (the start tag alone for a void element, or a self-closing one in
    /// SVG or MathML).
    pub start: usize,
    /// See `start`.
    pub end: usize,
    /// Whether a matching end tag (or a start tag that is the whole
    /// element) ended it; otherwise it runs to the end of what was read.
    pub closed: bool,
    /// The usage of the class value.
    pub usage: Usage,
    /// `the-acap:allow-…` (true) or `the-acap:disallow-…`.
    pub allowed: bool,
}

/// A page qualifier (`max-snippet`, `unavailable_after`, …) or an ACAP
/// permission's qualifier, with where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qualifier {
    /// Lower-case name (`max-snippet`, `location`, …).
    pub name: String,
    /// Value as written (empty for a bare directive).
    pub value: String,
    /// Where it was read.
    pub source: Option<Source>,
}

impl Qualifier {
    pub(crate) fn new(name: &str, value: &str) -> Qualifier {
        Qualifier {
            name: name.to_string(),
            value: value.to_string(),
            source: None,
        }
    }
}

/// What a page diagnostic is about (what `robocc lint --html` reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageDiagKind {
    /// A permission and a prohibition for one usage to one addressee.
    Conflict,
    /// Directives addressed to a name that no crawler token can equal.
    NeverMatches,
    /// Directives addressed to another crawler than the agent.
    OtherCrawler,
    /// ACAP features beyond the declared (or the implemented) version.
    BeyondVersion,
    /// A class permission that 2.2.6 turns into a page-wide prohibition.
    ElementFallback,
    /// Something unreadable (unknown directive or usage, bad value).
    Malformed,
    /// A limit of the reader was reached (elements, diagnostics).
    Limit,
    /// The page is UTF-16: read decoded to UTF-8 (offsets are the
    /// decoded text's).
    Encoding,
}

impl PageDiagKind {
    /// The code `lint` shows.
    pub fn name(self) -> &'static str {
        match self {
            PageDiagKind::Conflict => "page-conflict",
            PageDiagKind::NeverMatches => "page-name-never-matches",
            PageDiagKind::OtherCrawler => "page-other-crawler",
            PageDiagKind::BeyondVersion => "page-acap-version",
            PageDiagKind::ElementFallback => "page-element-fallback",
            PageDiagKind::Malformed => "page-malformed",
            PageDiagKind::Limit => "page-limit",
            PageDiagKind::Encoding => "page-encoding",
        }
    }
}

#[derive(Clone, Debug)]
/// A finding about the page (what `lint --html` shows).
pub struct PageDiag {
    /// What it is about.
    pub kind: PageDiagKind,
    /// Where, when it is one place.
    pub source: Option<Source>,
    /// What to know, said for a site owner.
    pub message: String,
}

/// How to read a page.
#[derive(Clone, Debug, Default)]
pub struct PageOptions<'a> {
    /// The crawler's product token (META name / `X-Robots-Tag` prefix).
    pub agent: &'a str,
    /// The page's URL (for `location=`, 2.2.9.1).
    pub url: &'a str,
    /// The crawler's usage purposes (ACAP purpose patterns, 2.2.2).
    pub purposes: &'a [String],
    /// Seconds since the epoch, for `unavailable_after`; `None`: never past.
    pub now: Option<i64>,
    /// Stop reading at `</head>` or `<body>`: META tags and classes in the
    /// body are then not read (a reading that departs from the documented
    /// semantics; for measurement and callers that choose it).
    pub head_only: bool,
    /// The site's `/.well-known/tdmrep.json`, read with
    /// [`tdmrep::Tdmrep::parse`]: its first rule matching `url` is
    /// TDMRep's first level.
    pub tdmrep: Option<&'a tdmrep::Tdmrep>,
}

/// Elements and diagnostics kept at most (a hostile page gets a `Limit`
/// diagnostic past them).
pub const MAX_ELEMENTS: usize = 10_000;
/// See [`MAX_ELEMENTS`].
pub const MAX_DIAGS: usize = 1_000;
/// Page qualifiers kept at most.
pub const MAX_QUALIFIERS: usize = 1_000;
/// Distinct statements (permissions and prohibitions) kept at most before
/// further permissions are dropped; prohibitions are always kept (one with
/// a purpose pattern folded into a prohibition that no named tag sets
/// aside, 2.2.1: never less prohibited). Also the number of distinct
/// purpose patterns kept.
pub const MAX_STATEMENTS: usize = 10_000;

/// Bytes of an ACAP purpose pattern matched at most (real ones are a
/// few dozen: `news.*`); a longer one is a `page-limit` finding.
pub const MAX_PURPOSE_PATTERN: usize = 1024;

/// The purpose number of a statement past the limits (`MAX_STATEMENTS`):
/// it sets nothing aside and nothing sets it aside (2.2.1), so it only ever
/// prohibits more than its pattern would.
const FOLDED: u32 = u32::MAX;

/// What a page says, usage by usage.
#[derive(Clone, Debug)]
pub struct PageRules {
    decisions: Vec<Decision>,
    /// Elements with `the-acap:` class values, in document order.
    pub elements: Vec<Element>,
    /// Page qualifiers (conventional and ACAP), in reading order.
    pub qualifiers: Vec<Qualifier>,
    /// Findings, in reading order.
    pub diagnostics: Vec<PageDiag>,
    /// Every AI-usage preference statement read (`Content-Usage` header,
    /// `noai`, TDMRep), in reading order: the file, the headers, the HTML.
    pub signals: Vec<PageSignal>,
    /// The ACAP version declared (2.2.7), if any.
    pub acap_version: Option<(u32, u32)>,
    /// META tags addressed to the crawler (robots or its name) read after
    /// `<body>` (or `</head>`).
    pub metas_in_body: usize,
    /// Where the head ended (`</head>` or `<body>`), if seen.
    pub head_end: Option<usize>,
    /// Bytes of HTML read (all of it unless `head_only`).
    pub bytes_read: usize,
    /// Class values with a used-resource type, which §3 does not allow in
    /// a class and robocc cannot apply to their element: (usage, where),
    /// the first per usage. They count only for 2.2.6's page-wide
    /// fallback.
    typed_classes: Vec<(Usage, Source)>,
}

/// One permission or prohibition read from the page.
#[derive(Clone, Debug)]
pub(crate) struct Statement {
    pub usage: Usage,
    pub allowed: bool,
    /// Addressed to the agent by name (else to all crawlers).
    pub named: bool,
    pub kind: StatementKind,
    /// The purpose pattern, as a number: equal numbers for patterns equal
    /// but for ASCII case (`Reader::purposes`).
    pub purpose: Option<u32>,
    /// Qualifiers as written, separated by single spaces (at most
    /// `MAX_QUALIFIERS + 1`, each clipped).
    pub qualifiers: String,
    pub written: String,
    /// Shared by the statements of one tag or header.
    pub source: Rc<Source>,
    /// Set when the statement is a derived prohibition.
    pub reason: Option<Reason>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StatementKind {
    Acap,
    Conventional,
}

/// Start tags that are the whole element: HTML's void elements, and the
/// obsolete ones the WHATWG tree builder also pops at once (`param`,
/// `keygen`, `basefont`, `bgsound`, `frame`; `image` is `img`).
#[rustfmt::skip]
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr", b"param", b"keygen", b"basefont", b"bgsound", b"frame",
    b"image",
];

/// Text kept in sources and messages: at most `CLIP` bytes (then `…`), so
/// that a huge attribute is not copied into every report that names it.
const CLIP: usize = 512;

pub(crate) fn clip(s: &str) -> String {
    clip_to(s, CLIP)
}

/// `s` cut to at most `max` bytes (at a character boundary, then `…`).
fn clip_to(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A finding's message: it quotes what it is about, so it is clipped as
/// sources are (at most `4 * CLIP` bytes).
fn clip_message(message: String) -> String {
    if message.len() > 4 * CLIP {
        clip_to(&message, 4 * CLIP)
    } else {
        message
    }
}

/// Statements a conflict finding names (the rest are counted).
const CONFLICT_NAMED: usize = 3;

/// Is `name` a possible product token (letters, digits, `_`, `-`)?
fn token_like(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Scheme and host compared ignoring ASCII case, the rest exactly; a
/// fragment is no part of where a resource is located.
fn same_uri(a: &str, b: &str) -> bool {
    fn split(u: &str) -> (String, &str) {
        let u = u.split('#').next().unwrap_or("");
        match u.find("://") {
            Some(i) => {
                let after = &u[i + 3..];
                let end = after.find(['/', '?']).unwrap_or(after.len());
                (u[..i + 3 + end].to_ascii_lowercase(), &after[end..])
            }
            None => (String::new(), u),
        }
    }
    let (sa, ra) = split(a.trim());
    let (sb, rb) = split(b.trim());
    let ra = if ra.is_empty() { "/" } else { ra };
    let rb = if rb.is_empty() { "/" } else { rb };
    sa == sb && ra == rb
}

/// An `ACAP version` tag: the number read, as written, where.
type VersionTag = (Option<(u32, u32)>, String, Source);

/// Per tag name: the start tags of that name open now, and the open
/// ACAP-class elements as (that count when each opened, index in
/// `rules.elements`), innermost last.
type OpenElements = (usize, Vec<(usize, usize)>);

struct Reader<'o> {
    opts: &'o PageOptions<'o>,
    statements: Vec<Statement>,
    /// ACAP statements, kept apart until the version is known.
    acap: Vec<Statement>,
    versions: Vec<VersionTag>,
    rules: PageRules,
    in_body: bool,
    /// Per tag name with an open ACAP-class element: the start tags of
    /// that name open now, and the open elements as (that count when each
    /// opened, index in `rules.elements`), innermost last.
    open: std::collections::HashMap<Vec<u8>, OpenElements>,
    /// Distinct statements read (their keys), for deduplication.
    seen: HashSet<String>,
    /// Purpose patterns read, lower-case, and their numbers.
    purposes: HashMap<String, u32>,
    /// Whether the statement and qualifier limits were reached (said once).
    capped: (bool, bool),
    /// Whether the element limit's finding was given (once).
    elements_capped: bool,
    /// The first class value per usage, elements past [`MAX_ELEMENTS`]
    /// included: what 2.2.6's fallback needs.
    classes: ClassUsages,
}

/// Per usage, the first `the-acap:` class value that names it, with its
/// place among all class values read: 2.2.6 makes the usage prohibited for
/// the page as a whole whether or not the element is reported (uncapped,
/// and at most one per usage).
#[derive(Default)]
struct ClassUsages {
    first: [Option<(usize, Element)>; Usage::ACAP_COUNT],
    read: usize,
}

impl ClassUsages {
    /// Notes a class value on `usage`; `element` is built only for the
    /// first one per usage.
    fn note(&mut self, usage: Usage, element: impl FnOnce() -> Element) {
        let slot = &mut self.first[usage as usize];
        if slot.is_none() {
            *slot = Some((self.read, element()));
        }
        self.read += 1;
    }

    /// The first element whose class value concerns `u` (one on `present`
    /// concerns every `present-*` usage).
    fn concerning(&self, u: Usage) -> Option<&Element> {
        let own = self.first.get(u as usize).and_then(Option::as_ref);
        let present = if u.is_present() {
            self.first[Usage::Present as usize].as_ref()
        } else {
            None
        };
        [own, present]
            .into_iter()
            .flatten()
            .min_by_key(|(at, _)| *at)
            .map(|(_, e)| e)
    }
}

impl Reader<'_> {
    /// Whether [`Reader::diag`] keeps nothing more (its limit finding made):
    /// a caller that would build a message per token asks first.
    fn diags_full(&self) -> bool {
        self.rules.diagnostics.len() > MAX_DIAGS
    }

    fn diag(&mut self, kind: PageDiagKind, source: Option<Source>, message: String) {
        let d = &mut self.rules.diagnostics;
        if d.len() < MAX_DIAGS {
            d.push(PageDiag {
                kind,
                source,
                message: clip_message(message),
            });
        } else if d.len() == MAX_DIAGS {
            d.push(PageDiag {
                kind: PageDiagKind::Limit,
                source: None,
                message: format!("more than {MAX_DIAGS} diagnostics: the rest are not kept"),
            });
        }
    }

    /// Directives in META `name` / `X-Robots-Tag` addressed to `who`.
    /// `looks` is whether `content` reads as robots directives, when a
    /// reader of the same tag has found it (each reader of a scan would
    /// otherwise parse the content again).
    fn directives(&mut self, who: &str, content: &str, source: Source, looks: &Cell<Option<bool>>) {
        let named = if who.eq_ignore_ascii_case("robots") {
            false
        } else if !self.opts.agent.is_empty() && who.eq_ignore_ascii_case(self.opts.agent) {
            true
        } else {
            // Not addressed to this crawler: only lint cares, and only when
            // the content reads as robots directives.
            let looks = looks.get().unwrap_or_else(|| {
                let d = meta::parse(content);
                let l = acap_meta::is_acap(content)
                    || ((!d.rules.is_empty() || !d.qualifiers.is_empty()) && d.unknown.is_empty());
                looks.set(Some(l));
                l
            });
            if looks {
                if token_like(who) {
                    self.diag(
                        PageDiagKind::OtherCrawler,
                        Some(source),
                        format!(
                            "addressed to {who:?}, not to {}: ignored for this crawler",
                            self.opts.agent
                        ),
                    );
                } else {
                    self.diag(
                        PageDiagKind::NeverMatches,
                        Some(source),
                        format!(
                            "addressed to {who:?}, which no crawler's product token can equal \
                             (letters, digits, '_' and '-' only): write the token alone, e.g. \
                             name=\"robots\" or name=\"googlebot\""
                        ),
                    );
                }
            }
            return;
        };
        if acap_meta::is_acap(content) {
            if matches!(source, Source::Header { .. }) {
                self.diag(
                    PageDiagKind::Malformed,
                    Some(source),
                    "ACAP in an X-Robots-Tag header: ACAP 1.1 Part 2 defines ACAP META tags \
                     only; ignored"
                        .into(),
                );
                return;
            }
            self.acap_content(content, named, Rc::new(source));
            return;
        }
        let d = meta::parse_at(content, self.opts.now);
        for u in d.unknown.iter() {
            self.diag(
                PageDiagKind::Malformed,
                Some(source.clone()),
                format!("unknown or unreadable directive {:?}: ignored", clip(u)),
            );
        }
        for q in d.qualifiers.iter() {
            let mut q = q.clone();
            q.source = Some(source.clone());
            self.qualifier(q);
        }
        let source = Rc::new(source);
        for st in meta::statements(&d, named, &source, self.opts.now) {
            self.push(st, false);
        }
    }

    /// An ACAP content, item by item as `acap_meta::parse` reads it: each
    /// rule is kept (or not) before the next is read.
    fn acap_content(&mut self, content: &str, named: bool, source: Rc<Source>) {
        // The tag's purpose pattern: whether it applies, and its number.
        let mut purpose: Option<(bool, u32)> = None;
        let mut long_purpose = false;
        acap_meta::parse(content, |item| match item {
            acap_meta::Item::Version(v, written) => {
                if v.is_none() {
                    self.diag(
                        PageDiagKind::Malformed,
                        Some((*source).clone()),
                        format!(
                            "ACAP version {written:?} is not integers separated by dots \
                             (2.2.7): ignored"
                        ),
                    );
                } else {
                    self.versions
                        .push((v, written.to_string(), (*source).clone()));
                }
                // What follows the number comes next, read as any ACAP
                // content's rules (with a note each).
            }
            acap_meta::Item::Purpose(p)
                if p.len() > MAX_PURPOSE_PATTERN && !self.opts.purposes.is_empty() =>
            {
                // Not matched (a glob costs tens of bytes per byte): its
                // prohibitions are read as applying, unnumbered (nothing
                // sets them aside), its permissions not at all. (With no
                // purpose declared no pattern applies: nothing to match.)
                self.diag(
                    PageDiagKind::Limit,
                    Some((*source).clone()),
                    format!(
                        "ACAP purpose pattern of {} bytes, longer than {MAX_PURPOSE_PATTERN}: \
                         not matched; its prohibitions apply to every crawler the tag \
                         addresses and its permissions to none",
                        p.len()
                    ),
                );
                purpose = Some((true, FOLDED));
                long_purpose = true;
            }
            acap_meta::Item::Purpose(p) => {
                // Numbered only when it applies: the rules of a tag whose
                // pattern does not are not read.
                purpose = Some(
                    if robocc_compiler::acap::purpose_applies(&[p.to_string()], self.opts.purposes)
                    {
                        (true, self.purpose_id(p, &source))
                    } else {
                        (false, FOLDED)
                    },
                );
            }
            acap_meta::Item::Note(n) => {
                if !self.diags_full() {
                    self.diag(PageDiagKind::Malformed, Some((*source).clone()), n);
                }
            }
            acap_meta::Item::Rule(r) => {
                if purpose.is_some_and(|(applies, _)| !applies) || (long_purpose && r.allowed) {
                    return;
                }
                let mut st = Statement {
                    usage: r.usage,
                    allowed: r.allowed,
                    named,
                    kind: StatementKind::Acap,
                    purpose: purpose.map(|(_, id)| id),
                    qualifiers: r.qualifiers,
                    written: r.written,
                    source: source.clone(),
                    reason: None,
                };
                if let Some(loc) = &r.location {
                    if !same_uri(loc, self.opts.url) {
                        st.allowed = false;
                        st.reason = Some(Reason::LocationMismatch);
                    }
                }
                for q in st.qualifiers.split(' ').filter(|q| !q.is_empty()) {
                    if self.capped.1 {
                        break;
                    }
                    let (n, v) = q.split_once('=').unwrap_or((q, ""));
                    self.qualifier(Qualifier {
                        name: n.to_string(),
                        value: v.to_string(),
                        source: Some((*source).clone()),
                    });
                }
                self.push(st, true);
            }
        });
    }

    /// Keeps a statement unless an equal one (but for its source) was
    /// read; past `MAX_STATEMENTS` distinct ones, permissions are dropped
    /// (with a finding) and prohibitions kept: memory stays bounded by the
    /// distinct statements, never a prohibition lost.
    ///
    /// Prohibitions are equal when they prohibit the same usage to the same
    /// addressee, kind, purpose and reason, however written: resolution
    /// reads the first of them only (the decider, set aside or not with
    /// it), so the others could change no answer. (Permissions differ by
    /// their qualifiers too, which are reported; AI-usage preference
    /// statements are listed one by one.)
    fn push(&mut self, mut st: Statement, acap: bool) {
        let key = |st: &Statement| {
            if st.allowed || st.usage.is_signal() {
                // Quoted (`{:?}`): a `|` in a qualifier cannot make two
                // keys one.
                format!(
                    "{}|{}|{}|{}|{:?}|{:?}|{:?}|{:?}",
                    st.usage as u8,
                    st.allowed,
                    st.named,
                    acap,
                    st.purpose,
                    st.reason,
                    st.qualifiers,
                    st.written.to_ascii_lowercase()
                )
            } else {
                format!(
                    "{}|no|{}|{}|{:?}|{:?}",
                    st.usage as u8, st.named, acap, st.purpose, st.reason
                )
            }
        };
        let mut k = key(&st);
        if self.seen.contains(&k) {
            return;
        }
        if self.seen.len() >= MAX_STATEMENTS {
            if st.allowed {
                self.statement_limit(&st.source);
                return;
            }
            // A prohibition is never dropped; one with a purpose pattern is
            // folded into the prohibition of its usage that no named tag
            // sets aside (2.2.1), which only ever prohibits more.
            if st.purpose.is_some_and(|p| p != FOLDED) {
                self.statement_limit(&st.source);
                st.purpose = Some(FOLDED);
                k = key(&st);
                if self.seen.contains(&k) {
                    return;
                }
            }
        }
        let key = k;
        self.seen.insert(key);
        if st.usage.is_signal() {
            // `noai` / `noimageai`: preferences, listed with the others.
            self.rules.signals.push(PageSignal {
                usage: st.usage,
                allowed: st.allowed,
                kind: SignalKind::NoAi,
                written: st.written,
                source: (*st.source).clone(),
                superseded: false,
            });
            return;
        }
        if acap {
            self.acap.push(st);
        } else {
            self.statements.push(st);
        }
    }

    /// The statement limit's finding (once).
    fn statement_limit(&mut self, source: &Rc<Source>) {
        if !self.capped.0 {
            self.capped.0 = true;
            self.diag(
                PageDiagKind::Limit,
                Some((**source).clone()),
                format!(
                    "more than {MAX_STATEMENTS} distinct permissions and prohibitions (or \
                     purpose patterns): further permissions are not read, and further \
                     prohibitions with a purpose pattern are read as if no tag addressed to \
                     the crawler by name could set them aside (2.2.1), so a usage is never \
                     less prohibited"
                ),
            );
        }
    }

    /// The number of a purpose pattern (ASCII case ignored); past
    /// `MAX_STATEMENTS` patterns, a new one is [`FOLDED`] (with the statement
    /// limit's finding).
    fn purpose_id(&mut self, pattern: &str, source: &Rc<Source>) -> u32 {
        let lower = pattern.to_ascii_lowercase();
        if let Some(&id) = self.purposes.get(&lower) {
            return id;
        }
        if self.purposes.len() >= MAX_STATEMENTS {
            self.statement_limit(source);
            return FOLDED;
        }
        let id = self.purposes.len() as u32;
        self.purposes.insert(lower, id);
        id
    }

    /// Keeps a page-level preference statement (`Content-Usage`, TDMRep)
    /// unless an equal one from the same level was read; bounded as
    /// [`Reader::push`] is.
    fn signal(
        &mut self,
        usage: Usage,
        allowed: bool,
        kind: SignalKind,
        written: String,
        source: Source,
    ) {
        let level = preferences::tdm_level(&source);
        let key = format!(
            "signal|{}|{allowed}|{}|{level}|{}",
            usage as u8,
            kind.name(),
            written.to_ascii_lowercase()
        );
        if self.seen.contains(&key) {
            return;
        }
        if self.seen.len() >= MAX_STATEMENTS && allowed {
            return;
        }
        self.seen.insert(key);
        self.rules.signals.push(PageSignal {
            usage,
            allowed,
            kind,
            written,
            source,
            superseded: false,
        });
    }

    /// A `tdm-reservation` value (header or META): 1 disallows `train-ai`,
    /// 0 allows it; anything else is TDMRep's protocol error (unset).
    fn tdm_reservation(&mut self, value: &str, source: Source) {
        match preferences::tdm_reservation(value) {
            Some(reserved) => self.signal(
                Usage::TrainAi,
                !reserved,
                SignalKind::Tdmrep,
                format!("tdm-reservation: {}", value.trim()),
                source,
            ),
            None => self.diag(
                PageDiagKind::Malformed,
                Some(source),
                format!(
                    "tdm-reservation {:?} is not 0 or 1: a protocol error, so it is unset (TDMRep)",
                    clip(value.trim())
                ),
            ),
        }
    }

    /// The site's `tdmrep.json`: its first rule matching the URL.
    fn tdmrep_file(&mut self) {
        let Some(rule) = self
            .opts
            .tdmrep
            .and_then(|t| t.lookup(self.opts.url.as_bytes()))
        else {
            return;
        };
        let source = Source::TdmrepFile {
            rule: rule.index,
            location: clip(&rule.location),
        };
        match rule.reservation {
            Some(reserved) => self.signal(
                Usage::TrainAi,
                !reserved,
                SignalKind::Tdmrep,
                format!("tdm-reservation: {}", u8::from(reserved)),
                source.clone(),
            ),
            None => self.diag(
                PageDiagKind::Malformed,
                Some(source.clone()),
                "the first tdmrep.json rule matching the URL has no tdm-reservation of 0 or 1: a protocol error, so it is unset (TDMRep)"
                    .into(),
            ),
        }
        if let Some(p) = &rule.policy {
            self.qualifier(Qualifier {
                name: "tdm-policy".into(),
                value: clip(p),
                source: Some(source),
            });
        }
    }

    /// The `Content-Usage` header: its lines joined (RFC 9651 §4.2), read
    /// once as a Dictionary. Each line loses only its OWS (SP, HTAB:
    /// RFC 9110 §5.5): any other byte around the value, NBSP included, is
    /// the Dictionary's to refuse, as in robots.txt.
    fn content_usage(&mut self, lines: &[(usize, &str, &str)]) {
        let Some(&(index, name, _)) = lines.first() else {
            return;
        };
        let value = lines
            .iter()
            .map(|(_, _, v)| v.trim_matches([' ', '\t']))
            .collect::<Vec<_>>()
            .join(", ");
        let source = Source::Header {
            index,
            name: clip(name.trim()),
            value: clip(&value),
        };
        match preferences::content_usage(&value) {
            Ok((statements, notes)) => {
                for n in notes {
                    self.diag(PageDiagKind::Malformed, Some(source.clone()), n);
                }
                for (usage, allowed, written) in statements {
                    self.signal(usage, allowed, SignalKind::ContentUsage, written, source.clone());
                }
            }
            Err(()) => self.diag(
                PageDiagKind::Malformed,
                Some(source),
                "Content-Usage is not a Structured Fields Dictionary (lower-case keys, `train-ai=n, search=y`): it states nothing (vocab-07 §6.5.1)"
                    .into(),
            ),
        }
    }

    fn qualifier(&mut self, q: Qualifier) {
        if self.rules.qualifiers.len() < MAX_QUALIFIERS {
            self.rules.qualifiers.push(q);
        } else if !self.capped.1 {
            self.capped.1 = true;
            self.diag(
                PageDiagKind::Limit,
                q.source.clone(),
                format!("more than {MAX_QUALIFIERS} page qualifiers: the rest are not reported"),
            );
        }
    }

    /// A start tag; `meta` is its `name` and `content` decoded (once for
    /// all the readers of one scan), `class` its class attribute, `looks`
    /// the shared answer of [`Reader::directives`] for other crawlers.
    fn start(
        &mut self,
        tag: &tokenize::StartTag,
        meta: Option<(&str, &str)>,
        class: Option<&str>,
        looks: &Cell<Option<bool>>,
    ) {
        let name = &tag.name[..];
        if name == b"body" && self.rules.head_end.is_none() {
            self.rules.head_end = Some(tag.start);
        }
        if name == b"body" {
            self.in_body = true;
        }
        if name == b"meta" {
            if let Some((who, content)) = meta {
                let addressed = who.eq_ignore_ascii_case("robots")
                    || (!self.opts.agent.is_empty() && who.eq_ignore_ascii_case(self.opts.agent));
                if addressed && self.in_body {
                    self.rules.metas_in_body += 1;
                }
                let source = Source::Meta {
                    offset: tag.start,
                    name: clip(who),
                    content: clip(content),
                };
                if who.eq_ignore_ascii_case("tdm-reservation") {
                    self.tdm_reservation(content, source);
                } else if who.eq_ignore_ascii_case("tdm-policy") {
                    self.qualifier(Qualifier {
                        name: "tdm-policy".into(),
                        value: clip(content.trim()),
                        source: Some(source),
                    });
                } else {
                    self.directives(who, content, source, looks);
                }
            }
        }
        if let Some(o) = self.open.get_mut(name) {
            o.0 += 1;
        }
        if let Some(class) = class {
            // The tag's name once, clipped as every quoted value is: a
            // hostile name must not be copied per class token.
            let tag_name = clip(&String::from_utf8_lossy(name));
            for token in class.split_ascii_whitespace() {
                let Some(r) = acap_meta::class_token(token) else {
                    continue;
                };
                let source = || Source::Class {
                    offset: tag.start,
                    tag: tag_name.clone(),
                    token: clip(token),
                };
                let (allowed, usage) = match r {
                    Ok((allowed, usage, None)) => (allowed, usage),
                    Ok((allowed, usage, Some(_))) => {
                        self.diag(
                            PageDiagKind::Malformed,
                            Some(source()),
                            format!(
                                "class {:?}: §3 allows no used-resource type in a class \
                                 attribute, so this {} cannot be applied to its element: {} is \
                                 prohibited for the whole page (ACAP 2.2.6)",
                                clip(token),
                                if allowed { "permission" } else { "prohibition" },
                                usage.name()
                            ),
                        );
                        let typed = &mut self.rules.typed_classes;
                        if !typed.iter().any(|(u, _)| *u == usage) {
                            typed.push((usage, source()));
                        }
                        continue;
                    }
                    Err(e) => {
                        self.diag(
                            PageDiagKind::Malformed,
                            Some(source()),
                            format!("{e}: ignored"),
                        );
                        continue;
                    }
                };
                // WHATWG 13.1.2.1: the `/` of `<div/>` has no effect on an
                // HTML element; it ends a foreign (SVG, MathML) one.
                let void = VOID.contains(&name) || (tag.self_closing && tag.foreign);
                let element = || Element {
                    tag: tag_name.clone(),
                    start: tag.start,
                    end: tag.end,
                    closed: void,
                    usage,
                    allowed,
                };
                self.classes.note(usage, element);
                if self.rules.elements.len() >= MAX_ELEMENTS {
                    if !self.elements_capped {
                        self.elements_capped = true;
                        self.diag(
                            PageDiagKind::Limit,
                            Some(source()),
                            format!("more than {MAX_ELEMENTS} elements with ACAP classes: the rest are not reported (each usage a class value names is still prohibited for the page as a whole, 2.2.6)"),
                        );
                    }
                    continue;
                }
                let idx = self.rules.elements.len();
                self.rules.elements.push(element());
                if !void {
                    // A name not tracked yet: this start tag is its first.
                    let o = self.open.entry(name.to_vec()).or_insert((1, Vec::new()));
                    o.1.push((o.0, idx));
                }
            }
        }
    }

    fn end(&mut self, name: &[u8], end: usize) {
        if name == b"head" && self.rules.head_end.is_none() {
            self.rules.head_end = Some(end);
        }
        if name == b"head" || name == b"body" {
            // After </head>, what follows is the body's (the parser would
            // put a META there in the body).
            self.in_body = true;
        }
        let Some(o) = self.open.get_mut(name) else {
            return;
        };
        // The elements of this name opened when `closing` start tags of
        // the name were open end here (innermost first: O(1) per element).
        let closing = o.0;
        o.0 = o.0.saturating_sub(1);
        while let Some(&(at, idx)) = o.1.last() {
            if at < closing {
                break;
            }
            o.1.pop();
            let e = &mut self.rules.elements[idx];
            e.end = end;
            e.closed = true;
        }
        if o.1.is_empty() {
            self.open.remove(name);
        }
    }
}

/// The text a page is read as: the bytes themselves, or, when they are
/// UTF-16 (a byte-order mark, or zero bytes in every other place: the
/// robots.txt input's test, `crate::input`), their UTF-8 decoding, with
/// the finding that says so. Offsets in sources and element spans are
/// offsets in this text.
pub(crate) fn page_text(html: &[u8]) -> (std::borrow::Cow<'_, [u8]>, Option<String>) {
    let Some(t) = robocc_compiler::input::utf16_text(html) else {
        return (std::borrow::Cow::Borrowed(html), None);
    };
    let mut message = format!(
        "the page is UTF-16 ({}-endian, {}): read decoded to UTF-8, as browsers read it; \
         byte offsets are the decoded text's",
        if t.big_endian { "big" } else { "little" },
        if t.bom {
            "with a byte-order mark"
        } else {
            "recognised by its zero bytes"
        }
    );
    if t.replaced > 0 {
        message.push_str(&format!(
            "; {} invalid code units became U+FFFD",
            t.replaced
        ));
    }
    (std::borrow::Cow::Owned(t.text), Some(message))
}

impl PageRules {
    /// Reads a page for `agent` at `url`: no purposes, no `now`.
    pub fn from_html<'h>(
        html: &[u8],
        headers: impl IntoIterator<Item = (&'h str, &'h str)>,
        agent: &str,
        url: &str,
    ) -> PageRules {
        PageRules::read(
            html,
            headers,
            &PageOptions {
                agent,
                url,
                purposes: &[],
                now: None,
                head_only: false,
                tdmrep: None,
            },
        )
    }

    /// Reads a page: the response headers (`X-Robots-Tag` lines; others
    /// ignored), then the HTML once (decoded to UTF-8 first when it is
    /// UTF-16, as a browser does, with a `page-encoding` finding).
    pub fn read<'h>(
        html: &[u8],
        headers: impl IntoIterator<Item = (&'h str, &'h str)>,
        opts: &PageOptions<'_>,
    ) -> PageRules {
        let headers: Vec<(&str, &str)> = headers.into_iter().collect();
        PageRules::read_many(html, &headers, std::slice::from_ref(opts))
            .pop()
            .expect("one reading per options")
    }

    /// [`PageRules::read`] once per options, from one scan of the HTML:
    /// each tag is tokenized and its META values decoded once, for every
    /// reader (`lint --html` reads a page as each crawler it names). The
    /// options' `head_only` must agree.
    pub(crate) fn read_many(
        html: &[u8],
        headers: &[(&str, &str)],
        opts: &[PageOptions<'_>],
    ) -> Vec<PageRules> {
        let mut readers: Vec<Reader<'_>> = opts.iter().map(Reader::new).collect();
        for r in &mut readers {
            r.tdmrep_file();
            r.headers(headers);
        }
        let (html, utf16) = page_text(html);
        if let Some(message) = utf16 {
            for r in &mut readers {
                r.diag(PageDiagKind::Encoding, None, message.clone());
            }
        }
        let html = &html[..];
        let head_only = opts.first().is_some_and(|o| o.head_only);
        debug_assert!(opts.iter().all(|o| o.head_only == head_only));
        let scanned = tokenize::scan(html, |ev| {
            match ev {
                tokenize::Event::Start(tag) => {
                    if head_only && tag.name == b"body" {
                        return ControlFlow::Break(());
                    }
                    // Borrowed when they are UTF-8 (no copy of a huge value).
                    let meta = match (&tag.name[..], &tag.attr_name, &tag.content) {
                        (b"meta", Some(n), Some(c)) => {
                            Some((String::from_utf8_lossy(n), String::from_utf8_lossy(c)))
                        }
                        _ => None,
                    };
                    let meta = meta.as_ref().map(|(n, c)| (n.trim(), &c[..]));
                    let class = tag.class.as_deref().map(String::from_utf8_lossy);
                    let looks = Cell::new(None);
                    for r in &mut readers {
                        r.start(tag, meta, class.as_deref(), &looks);
                    }
                }
                tokenize::Event::End { name, end } => {
                    for r in &mut readers {
                        r.end(name, end);
                    }
                    if head_only && name == b"head" {
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        });
        readers
            .into_iter()
            .map(|r| r.finish(scanned.read, scanned.foreign_capped))
            .collect()
    }
}

impl<'o> Reader<'o> {
    fn new(opts: &'o PageOptions<'o>) -> Reader<'o> {
        Reader {
            opts,
            statements: Vec::new(),
            acap: Vec::new(),
            versions: Vec::new(),
            rules: PageRules {
                decisions: Vec::new(),
                elements: Vec::new(),
                qualifiers: Vec::new(),
                diagnostics: Vec::new(),
                signals: Vec::new(),
                acap_version: None,
                metas_in_body: 0,
                head_end: None,
                bytes_read: 0,
                typed_classes: Vec::new(),
            },
            in_body: false,
            open: std::collections::HashMap::new(),
            seen: HashSet::new(),
            purposes: HashMap::new(),
            capped: (false, false),
            elements_capped: false,
            classes: ClassUsages::default(),
        }
    }

    /// The response headers: `X-Robots-Tag`, `Content-Usage`,
    /// `tdm-reservation`, `tdm-policy` (others ignored).
    fn headers(&mut self, headers: &[(&str, &str)]) {
        let r = self;
        let mut content_usage: Vec<(usize, &str, &str)> = Vec::new();
        for (index, &(name, value)) in headers.iter().enumerate() {
            let header = |value: &str| Source::Header {
                index,
                name: clip(name.trim()),
                value: clip(value.trim()),
            };
            let name_is = |n: &str| name.trim().eq_ignore_ascii_case(n);
            if name_is("content-usage") {
                content_usage.push((index, name, value));
                continue;
            }
            if name_is("tdm-reservation") {
                r.tdm_reservation(value, header(value));
                continue;
            }
            if name_is("tdm-policy") {
                r.qualifier(Qualifier {
                    name: "tdm-policy".into(),
                    value: clip(value.trim()),
                    source: Some(header(value)),
                });
                continue;
            }
            if !name_is("x-robots-tag") {
                continue;
            }
            let source = Source::Header {
                index,
                name: clip(name.trim()),
                value: clip(value.trim()),
            };
            meta::agent_runs(value, |who, rest| {
                r.directives(who, rest, source.clone(), &Cell::new(None))
            });
        }
        r.content_usage(&content_usage);
    }

    /// The reading after the scan: `read` bytes scanned.
    fn finish(mut self, read: usize, foreign_capped: bool) -> PageRules {
        let r = &mut self;
        if foreign_capped {
            r.diag(
                PageDiagKind::Limit,
                None,
                format!(
                    "SVG/MathML elements nested more than {} deep: past that depth robocc \
                     counts them without their names, and a tag that ends foreign content \
                     there ends all of it, so which <script>, <style>, <title> or \
                     <textarea> is raw text may differ from a browser's reading",
                    tokenize::MAX_FOREIGN_DEPTH
                ),
            );
        }
        r.rules.bytes_read = read;
        for (_, (_, open)) in std::mem::take(&mut r.open) {
            for (_, idx) in open {
                r.rules.elements[idx].end = read;
            }
        }
        r.version();
        let Reader {
            mut statements,
            acap,
            mut rules,
            classes,
            ..
        } = self;
        statements.extend(acap);
        rules.resolve(&statements, &classes);
        rules
    }
}

impl PageRules {
    fn resolve(&mut self, statements: &[Statement], classes: &ClassUsages) {
        let overridden = overridden(statements);
        for &u in Usage::ACAP {
            let (mut d, capped) = resolve_usage(u, statements, &overridden, classes);
            typed_class_fallback(&mut d, &self.typed_classes);
            if capped && self.diagnostics.len() < MAX_DIAGS {
                self.diagnostics.push(PageDiag {
                    kind: PageDiagKind::Limit,
                    source: d.source.clone(),
                    message: format!(
                        "{}: more than {MAX_QUALIFIERS} qualifiers: the rest are not reported \
                         (qualifiers never change the verdict)",
                        u.name()
                    ),
                });
            }
            if d.reason == Reason::Conflict && self.diagnostics.len() < MAX_DIAGS {
                // The first few permissions, each clipped, and a count of
                // the rest: the message stays within the clip whatever
                // their number (each has its own finding's place anyway).
                let mut named = Vec::new();
                let mut more = 0usize;
                for s in statements
                    .iter()
                    .filter(|s| concerns(s.usage, u) && s.allowed)
                {
                    if named.len() < CONFLICT_NAMED {
                        named.push(clip_to(
                            &format!("{} ({})", s.written, s.source.describe()),
                            CLIP * 3 / 4,
                        ));
                    } else {
                        more += 1;
                    }
                }
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                self.diagnostics.push(PageDiag {
                    kind: PageDiagKind::Conflict,
                    source: d.source.clone(),
                    message: clip_message(format!(
                        "{}: {} conflicts with {}{more}: prohibited (ACAP 2.2.8; the more \
                         restrictive rule applies)",
                        u.name(),
                        clip_to(d.written.as_deref().unwrap_or(""), CLIP / 2),
                        named.join(", "),
                    )),
                });
            }
            if d.reason == Reason::ElementFallback
                && d.element_aware != PageVerdict::Disallow
                && self.diagnostics.len() < MAX_DIAGS
            {
                {
                    self.diagnostics.push(PageDiag {
                        kind: PageDiagKind::ElementFallback,
                        source: d.source.clone(),
                        message: format!(
                            "{}: an element-specific permission or prohibition makes {} \
                             prohibited for the whole page for crawlers that cannot apply it \
                             element by element (ACAP 2.2.6)",
                            u.name(),
                            u.name()
                        ),
                    });
                }
            }
            self.decisions.push(d);
        }
        // The AI-usage preference channels (vocab-07 §5.1): any disallow,
        // else any allow, else nothing stated; TDMRep's superseded levels
        // do not count.
        preferences::supersede(&mut self.signals);
        preferences::tdm_policies(&self.signals, &mut self.qualifiers);
        for &u in Usage::SIGNALS {
            let counted = || {
                self.signals
                    .iter()
                    .filter(|s| s.usage == u && !s.superseded)
            };
            let no = counted().find(|s| !s.allowed);
            let yes = counted().find(|s| s.allowed);
            let (verdict, reason, decider) = match (no, yes) {
                (Some(no), Some(_)) => (PageVerdict::Disallow, Reason::Conflict, Some(no)),
                (Some(no), None) => (PageVerdict::Disallow, Reason::Prohibited, Some(no)),
                (None, Some(yes)) => (PageVerdict::Allow, Reason::Allowed, Some(yes)),
                (None, None) => (PageVerdict::Unspecified, Reason::Unspecified, None),
            };
            self.decisions.push(Decision {
                usage: u,
                verdict,
                element_aware: verdict,
                reason,
                source: decider.map(|s| s.source.clone()),
                written: decider.map(|s| s.written.clone()),
                qualifiers: Vec::new(),
                by_other: false,
            });
        }
    }

    /// The decision for `usage`.
    pub fn decision(&self, usage: Usage) -> &Decision {
        &self.decisions[usage as usize]
    }

    /// All decisions, in usage order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// The page-wide verdict for `usage` (2.2.6's fallback applied).
    pub fn verdict(&self, usage: Usage) -> PageVerdict {
        self.decision(usage).verdict
    }

    /// The usages the page prohibits (page-wide).
    pub fn disallowed(&self) -> UsageSet {
        self.set(PageVerdict::Disallow)
    }

    /// The usages the page permits explicitly.
    pub fn allowed(&self) -> UsageSet {
        self.set(PageVerdict::Allow)
    }

    fn set(&self, v: PageVerdict) -> UsageSet {
        self.decisions
            .iter()
            .filter(|d| d.verdict == v)
            .fold(UsageSet::EMPTY, |s, d| s.with(d.usage))
    }
}

impl Reader<'_> {
    /// 2.2.7: the declared version decides which ACAP tags are read.
    fn version(&mut self) {
        let versions = std::mem::take(&mut self.versions);
        let Some((Some(v), written, source)) = versions.first().cloned() else {
            return;
        };
        for (other, w, s) in versions.iter().skip(1) {
            if *other != Some(v) {
                self.diag(
                    PageDiagKind::BeyondVersion,
                    Some(s.clone()),
                    format!("a second ACAP version tag ({w}) differs from the first ({written}): the first is used"),
                );
            }
        }
        self.rules.acap_version = Some(v);
        if v.0 != 1 {
            self.acap.clear();
            self.diag(
                PageDiagKind::BeyondVersion,
                Some(source),
                format!(
                    "ACAP version {written}: robocc reads ACAP 1.x; a major version is not \
                     backwards-compatible (2.2.7), so the page's ACAP permissions and \
                     prohibitions are ignored (conventional directives still apply)"
                ),
            );
        } else if v.1 > 1 {
            self.diag(
                PageDiagKind::BeyondVersion,
                Some(source),
                format!(
                    "ACAP version {written}: robocc implements 1.1; features of later minor \
                     versions are ignored (2.2.7)"
                ),
            );
        }
    }
}

/// Does a statement on `written` concern `usage` (a `present` statement
/// concerns every `present-*` usage; `other` is handled apart)?
fn concerns(written: Usage, usage: Usage) -> bool {
    written == usage || (written == Usage::Present && usage.is_present())
}

/// ACAP 2.2.1, for every statement at once: an ACAP statement to all
/// crawlers is overridden by an ACAP statement to the agent by name with the
/// same usage type and purpose (both none, or equal ignoring ASCII case:
/// the same number, [`Statement::purpose`]). The named ones are indexed by (usage, purpose) first, so that each
/// statement costs one look-up: linear in the statements, where comparing
/// each with every other was quadratic (a 2 MB page of distinct
/// prohibitions took minutes).
fn overridden(statements: &[Statement]) -> Vec<bool> {
    let key = |s: &Statement| (s.usage, s.purpose);
    let named: HashSet<(Usage, Option<u32>)> = statements
        .iter()
        .filter(|t| t.kind == StatementKind::Acap && t.named && t.purpose != Some(FOLDED))
        .map(key)
        .collect();
    statements
        .iter()
        .map(|s| {
            s.kind == StatementKind::Acap
                && !s.named
                && !named.is_empty()
                && named.contains(&key(s))
        })
        .collect()
}

/// ACAP 2.2.8 over the statements that remain for a usage: any prohibition
/// with a permission is a conflict (prohibited, the first prohibition
/// decides); else the first prohibition, else the first permission; none:
/// unspecified.
fn conflict<'s>(set: &[&'s Statement]) -> (PageVerdict, Reason, Option<&'s Statement>) {
    let no = set.iter().find(|s| !s.allowed);
    let yes = set.iter().find(|s| s.allowed);
    match (no, yes) {
        (None, None) => (PageVerdict::Unspecified, Reason::Unspecified, None),
        (Some(no), Some(_)) => (PageVerdict::Disallow, Reason::Conflict, Some(*no)),
        (Some(no), None) => (
            PageVerdict::Disallow,
            no.reason.unwrap_or(Reason::Prohibited),
            Some(*no),
        ),
        (None, Some(yes)) => (PageVerdict::Allow, Reason::Allowed, Some(*yes)),
    }
}

/// The decision for `u`, and whether its qualifiers were cut at
/// [`MAX_QUALIFIERS`]; `overridden[i]`: statement `i` is set aside
/// (2.2.1, [`overridden`]). Whether a statement is set aside depends only on
/// its usage and purpose, not on the other statements that concern `u`, so
/// one answer per statement serves every usage.
fn resolve_usage(
    u: Usage,
    statements: &[Statement],
    overridden: &[bool],
    classes: &ClassUsages,
) -> (Decision, bool) {
    let kept = || {
        statements
            .iter()
            .zip(overridden)
            .filter(|(_, o)| !**o)
            .map(|(s, _)| s)
    };
    let mut set: Vec<&Statement> = kept()
        .filter(|s| s.usage != Usage::Other && concerns(s.usage, u))
        .collect();
    // 2.5.6 (Part 1): `other` concerns the usages no permission concerns.
    let by_other = u != Usage::Other && set.is_empty();
    if u == Usage::Other || !set.iter().any(|s| s.allowed) {
        set.extend(kept().filter(|s| s.usage == Usage::Other));
    }
    let by_other = by_other && !set.is_empty();
    let (element_aware, reason, decider) = conflict(&set);
    // The permissions' qualifiers, at most MAX_QUALIFIERS (`capped`: more
    // were written).
    let mut qualifiers = Vec::new();
    let mut capped = false;
    if element_aware == PageVerdict::Allow {
        let written = set
            .iter()
            .filter(|s| s.allowed)
            .flat_map(|s| s.qualifiers.split(' ').filter(|q| !q.is_empty()));
        for q in written {
            if qualifiers.len() == MAX_QUALIFIERS {
                capped = true;
                break;
            }
            qualifiers.push(q.to_string());
        }
    }
    let mut d = Decision {
        usage: u,
        verdict: element_aware,
        element_aware,
        reason,
        source: decider.map(|s| (*s.source).clone()),
        written: decider.map(|s| s.written.clone()),
        qualifiers,
        by_other,
    };
    // 2.2.6: an element-specific permission or prohibition → the usage is
    // prohibited for the page as a whole (reported elements or not).
    if let Some(e) = classes.concerning(u) {
        d.verdict = PageVerdict::Disallow;
        d.reason = Reason::ElementFallback;
        let token = format!(
            "the-acap:{}-{}",
            if e.allowed { "allow" } else { "disallow" },
            e.usage.name()
        );
        d.source = Some(Source::Class {
            offset: e.start,
            tag: e.tag.clone(),
            token: token.clone(),
        });
        d.written = Some(token);
        d.qualifiers.clear();
    }
    (d, capped)
}

/// 2.2.6 for a class value robocc cannot apply to its element (it has a
/// used-resource type): its usage is prohibited for the page as a whole,
/// as an element's is; the first class value in the document decides.
fn typed_class_fallback(d: &mut Decision, typed: &[(Usage, Source)]) {
    let at = |s: &Source| match s {
        Source::Class { offset, .. } => *offset,
        _ => usize::MAX,
    };
    let Some((_, source)) = typed
        .iter()
        .filter(|(t, _)| concerns(*t, d.usage))
        .min_by_key(|(_, s)| at(s))
    else {
        return;
    };
    if d.reason == Reason::ElementFallback && d.source.as_ref().map_or(0, at) <= at(source) {
        return;
    }
    d.verdict = PageVerdict::Disallow;
    d.reason = Reason::ElementFallback;
    d.written = match source {
        Source::Class { token, .. } => Some(token.clone()),
        _ => None,
    };
    d.source = Some(source.clone());
    d.qualifiers.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert!(same_uri(
            "http://MyServer.com/a.htm",
            "http://myserver.com/a.htm#x"
        ));
        assert!(!same_uri(
            "http://myserver.com/A.htm",
            "http://myserver.com/a.htm"
        ));
        assert!(same_uri("http://myserver.com", "http://myserver.com/"));
    }

    #[test]
    fn spans() {
        let html = b"<html><head><META name=robots content=noindex></head><body><div class=\"x the-acap:disallow-index\"><div>a</div></div><img class=the-acap:allow-index></body></html>";
        let p = PageRules::from_html(&html[..], [], "bot", "http://a/");
        let meta = html.windows(5).position(|w| w == b"<META").unwrap();
        assert_eq!(
            p.decision(Usage::Index).source,
            Some(Source::Class {
                offset: html.windows(4).position(|w| w == b"<div").unwrap(),
                tag: "div".into(),
                token: "the-acap:disallow-index".into()
            })
        );
        assert_eq!(
            p.decision(Usage::Index).element_aware,
            PageVerdict::Disallow
        );
        // The element's prohibition decides Index outright (no fallback to
        // report), and nothing else on the page conflicts: no finding.
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let e = &p.elements[0];
        let div_end = html.windows(12).position(|w| w == b"</div></div>").unwrap() + 12;
        assert_eq!(
            (e.start, e.end, e.closed),
            (
                html.windows(4).position(|w| w == b"<div").unwrap(),
                div_end,
                true
            )
        );
        assert!(p.elements[1].closed);
        assert_eq!(
            &html[p.elements[1].start..p.elements[1].end],
            b"<img class=the-acap:allow-index>"
        );
        let _ = meta;
    }

    /// ACAP 2.2.1's overriding as first written, each statement against
    /// every other one (quadratic): the reference the indexed resolution
    /// must agree with.
    fn overridden_reference(s: &Statement, set: &[&Statement]) -> bool {
        s.kind == StatementKind::Acap
            && !s.named
            && set.iter().any(|t| {
                t.kind == StatementKind::Acap
                    && t.named
                    && t.usage == s.usage
                    && t.purpose == s.purpose
            })
    }

    /// The statement part of `resolve_usage` as first written (no
    /// elements): verdict, reason, deciding statement, qualifiers. Its
    /// overriding is its own (each statement against every other); the
    /// conflict rule (`conflict`) is the one `resolve_usage` uses.
    fn resolve_reference(u: Usage, statements: &[Statement]) -> String {
        let base: Vec<&Statement> = statements
            .iter()
            .filter(|s| s.usage != Usage::Other && concerns(s.usage, u))
            .collect();
        let mut set: Vec<&Statement> = base
            .iter()
            .copied()
            .filter(|s| !overridden_reference(s, &base))
            .collect();
        if u == Usage::Other || !set.iter().any(|s| s.allowed) {
            set.extend(statements.iter().filter(|s| s.usage == Usage::Other));
            let all = set.clone();
            set.retain(|s| !overridden_reference(s, &all));
        }
        let (verdict, reason, decider) = conflict(&set);
        let qualifiers: Vec<&str> = if verdict == PageVerdict::Allow {
            set.iter()
                .filter(|s| s.allowed)
                .flat_map(|s| s.qualifiers.split(' ').filter(|q| !q.is_empty()))
                .collect()
        } else {
            Vec::new()
        };
        format!(
            "{verdict:?} {reason:?} {:?} {qualifiers:?}",
            decider.map(|s| (&s.written, &s.source))
        )
    }

    fn decision_summary(d: &Decision) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            d.element_aware,
            d.reason,
            d.written.as_ref().zip(d.source.as_ref()),
            d.qualifiers
        )
    }

    /// A statement for the tests: `i` makes its source (and what it says)
    /// its own.
    fn statement(i: usize, usage: Usage, allowed: bool, named: bool) -> Statement {
        Statement {
            usage,
            allowed,
            named,
            kind: StatementKind::Acap,
            purpose: None,
            qualifiers: String::new(),
            written: format!(
                "{}-{}-{i}",
                if allowed { "allow" } else { "disallow" },
                usage.name()
            ),
            source: Rc::new(Source::Meta {
                offset: i,
                name: "robots".into(),
                content: String::new(),
            }),
            reason: None,
        }
    }

    /// The indexed resolution answers as the quadratic one did, on random
    /// mixes of named and general, ACAP and conventional statements,
    /// purposes, `present` and its sub-types, and `other`.
    #[test]
    fn resolution_agrees_with_the_reference() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % n) as usize
        };
        let usages = [
            Usage::Index,
            Usage::Present,
            Usage::PresentSnippet,
            Usage::Other,
            Usage::Follow,
        ];
        // Purpose patterns by number (`news` and `NEWS` are one).
        let purposes = [None, Some(0), Some(0), Some(1)];
        for round in 0..3_000 {
            let n = next(10);
            let statements: Vec<Statement> = (0..n)
                .map(|i| {
                    let mut s = statement(i, usages[next(5)], next(2) == 0, next(2) == 0);
                    if next(3) == 0 {
                        s.kind = StatementKind::Conventional;
                    }
                    s.purpose = purposes[next(4)];
                    if s.allowed && next(2) == 0 {
                        s.qualifiers = format!("q={i} r");
                    }
                    if !s.allowed && next(4) == 0 {
                        s.reason = Some(Reason::LocationMismatch);
                    }
                    s
                })
                .collect();
            let mut page = PageRules::from_html(b"", [], "bot", "http://a/");
            page.decisions.clear();
            page.resolve(&statements, &ClassUsages::default());
            for &u in Usage::ACAP {
                assert_eq!(
                    decision_summary(page.decision(u)),
                    resolve_reference(u, &statements),
                    "round {round}, usage {}: {statements:#?}",
                    u.name()
                );
            }
        }
    }

    /// F1 (audit of `robocc page`): 100,000 distinct statements on one usage
    /// are resolved. Resolution looked at every statement for each
    /// statement (2.2.1's overriding): 10^10 comparisons here, minutes in a
    /// release build and far more in a debug one, where a linear resolution
    /// takes well under a second. Not timed: a hang is the failure.
    #[test]
    fn many_statements_resolve_in_linear_time() {
        let mut statements: Vec<Statement> = (0..100_000)
            .map(|i| statement(i, Usage::Index, false, false))
            .collect();
        statements.push(statement(100_000, Usage::Other, false, false));
        statements.push(statement(100_001, Usage::Follow, true, true));
        let mut page = PageRules::from_html(b"", [], "bot", "http://a/");
        page.decisions.clear();
        page.resolve(&statements, &ClassUsages::default());
        let index = page.decision(Usage::Index);
        assert_eq!(index.verdict, PageVerdict::Disallow);
        assert_eq!(index.written.as_deref(), Some("disallow-index-0"));
        assert_eq!(page.verdict(Usage::Follow), PageVerdict::Allow);
        assert_eq!(page.verdict(Usage::Preserve), PageVerdict::Disallow);
    }

    #[test]
    fn only_the_tdm_policy_that_counts_is_reported() {
        let file = tdmrep::Tdmrep::parse(
            br#"[{"location": "/", "tdm-reservation": 1, "tdm-policy": "https://e.com/file.json"}]"#,
        )
        .unwrap();
        let policies = |headers: &[(&str, &str)], html: &[u8]| {
            let p = PageRules::read(
                html,
                headers.iter().copied(),
                &PageOptions {
                    agent: "bot",
                    url: "https://e.com/a",
                    tdmrep: Some(&file),
                    ..PageOptions::default()
                },
            );
            let q: Vec<String> = p.qualifiers.iter().map(|q| q.value.clone()).collect();
            (p.verdict(Usage::TrainAi), q)
        };
        // The file's alone.
        assert_eq!(
            policies(&[], b""),
            (
                PageVerdict::Disallow,
                vec!["https://e.com/file.json".to_string()]
            )
        );
        // The header's policy supersedes the file's.
        assert_eq!(
            policies(
                &[
                    ("tdm-reservation", "1"),
                    ("tdm-policy", "https://e.com/h.json")
                ],
                b""
            ),
            (
                PageVerdict::Disallow,
                vec!["https://e.com/h.json".to_string()]
            )
        );
        // A header without a policy keeps the file's (absence resets nothing).
        assert_eq!(
            policies(&[("tdm-reservation", "1")], b"").1,
            vec!["https://e.com/file.json".to_string()]
        );
        // Reservation 0 counts: no policy is to be processed.
        assert_eq!(
            policies(&[("tdm-reservation", "0")], b""),
            (PageVerdict::Allow, vec![])
        );
        assert_eq!(
            policies(&[], b"<meta name=tdm-reservation content=0>").1,
            Vec::<String>::new()
        );
    }

    #[test]
    fn content_usage_header_is_trimmed_of_ows_only() {
        let train = |value: &str| {
            let p = PageRules::from_html(b"", [("Content-Usage", value)], "bot", "http://a/");
            p.verdict(Usage::TrainAi)
        };
        assert_eq!(train(" \ttrain-ai=n\t "), PageVerdict::Disallow);
        // RFC 9651: a Date parameter is valid.
        assert_eq!(train("train-ai=n;d=@1700000000"), PageVerdict::Disallow);
        // NBSP or VT around the value is no Dictionary (as in robots.txt).
        assert_eq!(train("\u{a0}train-ai=n\u{a0}"), PageVerdict::Unspecified);
        assert_eq!(train("train-ai=n\u{b}"), PageVerdict::Unspecified);
    }
}
