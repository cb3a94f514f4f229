//! An independent oracle for `--dialect rfc9309`: Google's robotstxt library
//! (`robots.cc`, `RobotsTxtParser` and `RobotsMatcher`) with the choices and
//! divergences docs/dialects.md lists for robocc's default dialect.
//!
//! It shares no code with the compiler: the body is read into lines, keys
//! and values here, the agent's rules are chosen here by the walk Google's
//! matcher makes over the lines, and URLs and patterns are encoded here. It
//! shares with the rest of the reference crate [`crate::pattern_matches`]
//! (Google's `Matches`) and [`OracleVerdict`]; from the engine it takes only
//! [`UrlMode`], to name the URL mode. A parse, grouping or selection bug in
//! the compiler therefore shows up as a disagreement with this oracle.
//!
//! How each step follows Google's library, and where robocc departs from it
//! (docs/dialects.md, "rfc9309"):
//!
//! * **Input.** A UTF-16 body (a byte-order mark, or zero bytes in nearly
//!   every other position of its first 8 KiB) is decoded to UTF-8 first
//!   (robocc's choice; Google reads no rules from it); see [`body_text`].
//! * **Parse limit** (robocc): past [`Rfc9309Options::max_bytes`] (0: none)
//!   the text is cut after the last line end within the limit; see
//!   [`within_limit`].
//! * **Lines** (`RobotsTxtParser::Parse`): LF, CR or CRLF end a line; a
//!   leading (partial) UTF-8 byte-order mark is skipped; a line keeps at most
//!   [`Rfc9309Options::max_line_len`] bytes (Google's buffer holds 16,663);
//!   its content ends at a NUL; see [`lines`].
//! * **Key and value** (`GetKeyAndValueFrom`): a `#` starts a comment; the
//!   key ends at the first `:`, or, without one, at the blank between
//!   exactly two words; both are trimmed of ASCII whitespace; see
//!   [`key_and_value`] and [`key_kind`] (prefixes and typos, in Google's
//!   order).
//! * **The agent's rules** (`RobotsMatcher::HandleUserAgent`, `HandleAllow`,
//!   `HandleDisallow`, `disallow()`): a user-agent line after a separator
//!   (an Allow or Disallow line; with
//!   [`Rfc9309Options::records_close_groups`], robocc's option, any other
//!   record) starts a group; the rules of groups with a user-agent line
//!   naming the agent are its own, those of groups with a `*` line the
//!   global ones; the first set is used when any line named the agent, else
//!   the second. A group keeps at most
//!   [`Rfc9309Options::max_rules_per_group`] rules (robocc's limit); see
//!   [`walk`].
//! * **Several agents** (`AllowedByRobots` with a vector of user agents):
//!   `HandleUserAgent` compares the line's token with each, so a line
//!   naming any of them makes its group specific, and
//!   `ever_seen_specific_agent_` is set by any; from there nothing differs:
//!   the specific matches of every such group are one pool (one longest
//!   Allow, one longest Disallow, the first line of each priority), and the
//!   `*` groups count only when no line named any of the agents
//!   ([`Rfc9309Oracle::for_agents`]).
//! * **Patterns** (`MaybeEscapePattern`): bytes ≥ 0x80 become `%XX`, the hex
//!   digits of an escape are upper-cased; in the RFC URL mode (robocc's
//!   option) patterns and URLs are normalised per RFC 9309 §2.2.2 instead
//!   ([`rfc_pattern`], [`rfc_path`]). An empty value never decides.
//! * **Matching** (`LongestMatchRobotsMatchStrategy`, `disallow()`,
//!   `matching_line()`): the priority of a matching rule is its pattern's
//!   length; the first rule of the highest priority of each kind is kept,
//!   and the Disallow decides only when strictly longer. An Allow that does
//!   not match and whose last `/` starts `/index.htm` is tried again as
//!   `<dir>/$` (Google's `index.htm` rule).
//! * **URLs** (`GetPathParamsQuery`): scheme, authority and fragment are
//!   dropped, a leading `/` added; in Google's mode the path ends at a NUL
//!   (a C string); see [`path_params_query`].
//! * **/robots.txt** (robocc, RFC 9309 §2.2.2): with
//!   [`Rfc9309Options::self_allowed`] the path `/robots.txt` (as matched:
//!   normalised in the RFC mode) is allowed whatever the rules say, with
//!   line 0 ([`OracleVerdict::SELF_PATH`]); `/data.txt` instead with
//!   [`Rfc9309Options::data_txt`].

use crate::{pattern_matches, OracleVerdict};
use robocc_engine::UrlMode;
use std::borrow::Cow;

/// The parse limit by default: 500 KiB (docs/dialects.md: RFC 9309 §2.5's
/// minimum, what Googlebot reads).
pub const DEFAULT_MAX_BYTES: usize = 500 * 1024;

/// Bytes kept of a line by default: Google's `kMaxLineLen` (2083 × 8) less
/// the terminating NUL its buffer also holds.
pub const DEFAULT_MAX_LINE_LEN: usize = 2083 * 8 - 1;

/// Rules kept per group by default (docs/dialects.md).
pub const DEFAULT_MAX_RULES_PER_GROUP: usize = 100_000;

/// What shapes a verdict besides the body, the agent and the URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rfc9309Options {
    /// URLs as given ([`UrlMode::Google`]) or RFC 9309 normalised
    /// ([`UrlMode::Rfc`]). [`UrlMode::Decode`] is the drafts' and is refused.
    pub url_mode: UrlMode,
    /// The file's own path is allowed whatever the rules say.
    pub self_allowed: bool,
    /// The file's own path is `/data.txt` (else `/robots.txt`).
    pub data_txt: bool,
    /// Any record other than a user-agent line ends the agent lines of a
    /// group, as a rule does (`--records-close-groups`).
    pub records_close_groups: bool,
    /// Bytes of the (decoded) text read; `0` for no limit.
    pub max_bytes: usize,
    /// Bytes kept of one line.
    pub max_line_len: usize,
    /// Allow and Disallow lines kept per group.
    pub max_rules_per_group: usize,
}

impl Default for Rfc9309Options {
    fn default() -> Rfc9309Options {
        Rfc9309Options {
            url_mode: UrlMode::Google,
            self_allowed: true,
            data_txt: false,
            records_close_groups: false,
            max_bytes: DEFAULT_MAX_BYTES,
            max_line_len: DEFAULT_MAX_LINE_LEN,
            max_rules_per_group: DEFAULT_MAX_RULES_PER_GROUP,
        }
    }
}

impl Rfc9309Options {
    /// Google's library exactly: no parse limit, `/robots.txt` judged by
    /// the rules, URLs as given.
    pub fn google() -> Rfc9309Options {
        Rfc9309Options {
            self_allowed: false,
            max_bytes: 0,
            ..Rfc9309Options::default()
        }
    }
}

// ---------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------

/// Bytes looked at to recognise UTF-16 without a byte-order mark.
const SNIFF_BYTES: usize = 8192;

/// The text the parser reads: `body`, or its UTF-8 decoding when it is
/// UTF-16 (docs/dialects.md, "Input"). A robocc artifact (its magic first)
/// is read as it is; `FF FE 00 00` is UTF-32's mark, not UTF-16's.
pub fn body_text(body: &[u8]) -> Cow<'_, [u8]> {
    const ROBOCC_MAGICS: [&[u8]; 3] = [b"ROBOCC\0P", b"ROBOCC\0S", b"robocc-s"];
    if ROBOCC_MAGICS.iter().any(|m| body.starts_with(m)) {
        return Cow::Borrowed(body);
    }
    let (units, big_endian) = match body {
        [0xff, 0xfe, 0, 0, ..] => return Cow::Borrowed(body),
        [0xff, 0xfe, rest @ ..] => (rest, false),
        [0xfe, 0xff, rest @ ..] => (rest, true),
        _ => match utf16_without_mark(body) {
            Some(big_endian) => (body, big_endian),
            None => return Cow::Borrowed(body),
        },
    };
    let code_units = units.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    let text: String = char::decode_utf16(code_units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    Cow::Owned(text.into_bytes())
}

/// UTF-16 without a byte-order mark: among the first 8 KiB (at least eight
/// code units), one byte of the pair is zero in ≥ 90 % of the units and the
/// other in ≤ 5 %. `Some(true)` for big-endian (the first byte zero).
fn utf16_without_mark(body: &[u8]) -> Option<bool> {
    let sample = &body[..body.len().min(SNIFF_BYTES)];
    let units: Vec<&[u8]> = sample.chunks_exact(2).collect();
    if units.len() < 8 {
        return None;
    }
    let zero_first = units.iter().filter(|u| u[0] == 0).count();
    let zero_second = units.iter().filter(|u| u[1] == 0).count();
    let most = |n: usize| n * 10 >= units.len() * 9;
    let few = |n: usize| n * 20 <= units.len();
    if most(zero_second) && few(zero_first) {
        Some(false)
    } else if most(zero_first) && few(zero_second) {
        Some(true)
    } else {
        None
    }
}

/// The part of `text` read under parse limit `max` (0: none): all of it
/// when it fits, else up to and including the last CR or LF within the
/// first `max` bytes (a line the limit cuts in two is dropped whole).
pub fn within_limit(text: &[u8], max: usize) -> &[u8] {
    if max == 0 || text.len() <= max {
        return text;
    }
    let end = text[..max]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    &text[..end]
}

// ---------------------------------------------------------------------------
// Lines, keys and values
// ---------------------------------------------------------------------------

/// Google's line loop: `(line number, content)` for every line, the content
/// cut to `max_len` bytes and at its first NUL. The last line is emitted
/// even when empty, as Google's parser emits it.
pub fn lines(text: &[u8], max_len: usize) -> Vec<(u32, &[u8])> {
    const BOM: [u8; 3] = [0xef, 0xbb, 0xbf];
    let mut start = 0;
    while start < BOM.len() && text.get(start) == Some(&BOM[start]) {
        start += 1;
    }
    let content = |line: &'_ [u8]| -> usize {
        let kept = line.len().min(max_len);
        line[..kept].iter().position(|&b| b == 0).unwrap_or(kept)
    };
    let mut out: Vec<(u32, &[u8])> = Vec::new();
    let mut line_start = start;
    let mut last_was_cr = false;
    for (i, &b) in text.iter().enumerate().skip(start) {
        if b != b'\n' && b != b'\r' {
            continue;
        }
        let line = &text[line_start..i];
        // The LF of a CRLF ends no line of its own.
        if !(line.is_empty() && last_was_cr && b == b'\n') {
            let number = (out.len() as u32).saturating_add(1);
            out.push((number, &line[..content(line)]));
        }
        line_start = i + 1;
        last_was_cr = b == b'\r';
    }
    let line = &text[line_start..];
    let number = (out.len() as u32).saturating_add(1);
    out.push((number, &line[..content(line)]));
    out
}

/// ASCII whitespace as absl's `StripAsciiWhitespace` sees it (C `isspace`).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn strip(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

/// Google's `GetKeyAndValueFrom`: the key and value of a line's content,
/// or `None` when the line has none.
pub fn key_and_value(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(comment) => &line[..comment],
        None => line,
    };
    let line = strip(line);
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let sep = match line.iter().position(|&b| b == b':') {
        Some(colon) => colon,
        None => {
            // Google's leniency: `key value`, exactly two words.
            let sep = line.iter().position(blank)?;
            let value_start = sep + line[sep..].iter().take_while(|b| blank(b)).count();
            if line[value_start..].iter().any(blank) {
                return None;
            }
            sep
        }
    };
    let key = strip(&line[..sep]);
    if key.is_empty() {
        return None;
    }
    Some((key, strip(&line[sep + 1..])))
}

/// What a key means to Google's parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// `user-agent`, `useragent`, `user agent`…
    UserAgent,
    /// `allow`…
    Allow,
    /// `disallow` and its typos…
    Disallow,
    /// `sitemap`, `site-map`…
    Sitemap,
    /// Anything else (Google's `HandleUnknownAction`).
    Other,
}

/// Google's `ParsedRobotsKey::Parse`: the first of its tests that the key
/// starts with (ASCII case ignored), in its order.
pub fn key_kind(key: &[u8]) -> Key {
    let starts = |prefix: &str| {
        key.len() >= prefix.len() && key[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    };
    let any = |prefixes: &[&str]| prefixes.iter().any(|p| starts(p));
    if any(&["user-agent", "useragent", "user agent"]) {
        Key::UserAgent
    } else if starts("allow") {
        Key::Allow
    } else if any(&[
        "disallow",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ]) {
        Key::Disallow
    } else if any(&["sitemap", "site-map"]) {
        Key::Sitemap
    } else {
        Key::Other
    }
}

/// A line with a key and a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number, as Google counts lines.
    pub number: u32,
    /// What the key means.
    pub key: Key,
    /// The key as written (trimmed).
    pub key_text: &'a [u8],
    /// The value as written (trimmed; not encoded).
    pub value: &'a [u8],
}

/// The lines of `text` that have a key and a value, read under `opts`'
/// parse limit and line length.
pub fn read<'a>(text: &'a [u8], opts: &Rfc9309Options) -> Vec<Line<'a>> {
    lines(within_limit(text, opts.max_bytes), opts.max_line_len)
        .into_iter()
        .filter_map(|(number, content)| {
            let (key_text, value) = key_and_value(content)?;
            Some(Line {
                number,
                key: key_kind(key_text),
                key_text,
                value,
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The agent's lines
// ---------------------------------------------------------------------------

/// Where a line stands for the agent ([`walk`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Before the first user-agent line.
    File,
    /// In a group one of whose user-agent lines names the agent (one of
    /// the agents).
    Specific,
    /// In a group with a `*` user-agent line and none naming the agent
    /// (any of the agents).
    Global,
    /// Another crawler's line, a rule past the per-group limit, or a
    /// user-agent line.
    Neither,
}

/// A user-agent value `*`, or `*` followed by whitespace and anything.
pub fn is_global_value(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => is_space(*next),
        _ => false,
    }
}

/// Google's `ExtractUserAgent`: the value's leading run of `[A-Za-z_-]`.
pub fn extract_user_agent(value: &[u8]) -> &[u8] {
    let n = value
        .iter()
        .take_while(|&&b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
        .count();
    &value[..n]
}

/// Every line of the file with its tier for the agents.
#[derive(Clone, Debug)]
pub struct Walk<'a> {
    /// The lines (user-agent lines included), each with its tier.
    pub lines: Vec<(Line<'a>, Tier)>,
    /// Some user-agent line named the agent (one of the agents): the
    /// [`Tier::Specific`] lines apply, else the [`Tier::Global`] ones.
    pub named: bool,
    /// Some user-agent line was `*`.
    pub any_global: bool,
}

impl<'a> Walk<'a> {
    /// The tier whose lines apply to the agent.
    pub fn chosen(&self) -> Tier {
        if self.named {
            Tier::Specific
        } else {
            Tier::Global
        }
    }

    /// The lines that apply to the agent (not the file-level ones).
    pub fn applying(&self) -> impl Iterator<Item = &Line<'a>> + '_ {
        let chosen = self.chosen();
        self.lines
            .iter()
            .filter(move |(_, t)| *t == chosen)
            .map(|(l, _)| l)
    }
}

/// Google's `RobotsMatcher` over `lines` for `agents` (its vector of user
/// agents: one or more), without a path: which lines it reads as the
/// agents', as `*`'s, or as neither.
///
/// The lines are grouped first, whatever the agent: a user-agent line
/// starts a group when it is the first one or follows a separator (an Allow
/// or Disallow line, or with [`Rfc9309Options::records_close_groups`] any
/// other record); every other line after the first user-agent line belongs
/// to the group being read, and a group keeps at most
/// [`Rfc9309Options::max_rules_per_group`] Allow and Disallow lines. A
/// group's lines are the agents' when one of its user-agent lines names
/// one of them (its token equal to any, ASCII case ignored, as
/// `HandleUserAgent` loops over the vector), else `*`'s when one is
/// global. For a rule that is exactly
/// the matcher's `seen_specific_agent_` / `seen_global_agent_` when it
/// reads the rule, since a user-agent line after a rule starts a new
/// group; for another record (which Google ignores) it reads the record
/// as a member of its group, later user-agent lines of the group included.
pub fn walk<'a>(lines: Vec<Line<'a>>, agents: &[&str], opts: &Rfc9309Options) -> Walk<'a> {
    walk_with_rules(lines, agents, opts, &|_| false)
}

/// [`walk`], where a line of another key for which `extra_rule` holds also
/// ends the agent lines of its group, as an Allow or Disallow line does: a
/// grammar that extends RFC 9309's `rule` (aipref attach-05 §3 adds
/// `content-usage`). Such a line is not counted against the rule limit.
pub fn walk_with_rules<'a>(
    lines: Vec<Line<'a>>,
    agents: &[&str],
    opts: &Rfc9309Options,
    extra_rule: &dyn Fn(&Line<'a>) -> bool,
) -> Walk<'a> {
    /// Does one of the group's user-agent lines name the agent, `*`?
    #[derive(Clone, Copy, Default)]
    struct Names {
        agent: bool,
        global: bool,
    }
    /// Where a line stands.
    #[derive(Clone, Copy)]
    enum Place {
        /// Before the first user-agent line.
        File,
        /// A rule past its group's limit.
        Dropped,
        /// In a group (user-agent lines included).
        Group(usize),
    }
    let mut groups: Vec<Names> = Vec::new();
    let mut places: Vec<Place> = Vec::with_capacity(lines.len());
    let mut separator = false;
    let mut rules_in_group = 0usize;
    for line in &lines {
        let place = match line.key {
            Key::UserAgent => {
                if groups.is_empty() || separator {
                    groups.push(Names::default());
                    separator = false;
                    rules_in_group = 0;
                }
                let names = groups.last_mut().expect("a group was just started");
                if is_global_value(line.value) {
                    names.global = true;
                } else {
                    let token = extract_user_agent(line.value);
                    if agents
                        .iter()
                        .any(|a| token.eq_ignore_ascii_case(a.as_bytes()))
                    {
                        names.agent = true;
                    }
                }
                Place::Group(groups.len() - 1)
            }
            _ if groups.is_empty() => Place::File,
            Key::Allow | Key::Disallow => {
                separator = true;
                rules_in_group += 1;
                if rules_in_group > opts.max_rules_per_group {
                    Place::Dropped
                } else {
                    Place::Group(groups.len() - 1)
                }
            }
            Key::Sitemap | Key::Other => {
                separator |= opts.records_close_groups || extra_rule(line);
                Place::Group(groups.len() - 1)
            }
        };
        places.push(place);
    }
    let lines = lines
        .into_iter()
        .zip(places)
        .map(|(line, place)| {
            let tier = match place {
                _ if line.key == Key::UserAgent => Tier::Neither,
                Place::File => Tier::File,
                Place::Dropped => Tier::Neither,
                Place::Group(g) if groups[g].agent => Tier::Specific,
                Place::Group(g) if groups[g].global => Tier::Global,
                Place::Group(_) => Tier::Neither,
            };
            (line, tier)
        })
        .collect();
    Walk {
        lines,
        named: groups.iter().any(|g| g.agent),
        any_global: groups.iter().any(|g| g.global),
    }
}

// ---------------------------------------------------------------------------
// Patterns and URLs
// ---------------------------------------------------------------------------

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

fn push_escape(out: &mut Vec<u8>, v: u8) {
    out.extend_from_slice(&[
        b'%',
        HEX_DIGITS[usize::from(v >> 4)],
        HEX_DIGITS[usize::from(v & 0xf)],
    ]);
}

/// The value of `%HH` at the start of `s`.
fn escape_at(s: &[u8]) -> Option<u8> {
    let hex = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    match s {
        [b'%', h, l, ..] => Some(hex(*h)? * 16 + hex(*l)?),
        _ => None,
    }
}

/// Google's `MaybeEscapePattern`: bytes ≥ 0x80 as `%XX`, the hex digits of
/// an escape upper-cased, nothing decoded.
pub fn google_pattern(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if escape_at(&value[i..]).is_some() {
            out.push(b'%');
            out.extend(value[i + 1..i + 3].iter().map(u8::to_ascii_uppercase));
            i += 3;
        } else {
            if value[i] >= 0x80 {
                push_escape(&mut out, value[i]);
            } else {
                out.push(value[i]);
            }
            i += 1;
        }
    }
    out
}

/// RFC 3986's unreserved characters: decoded from their escapes.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Bytes encoded wherever they stand: outside printable ASCII, and the
/// characters RFC 3986 never allows literally.
fn always_encoded(b: u8) -> bool {
    !(0x21..=0x7e).contains(&b) || b"\"<>\\^`{|}".contains(&b)
}

/// The RFC 9309 §2.2.2 form of `s`: unreserved escapes decoded, other
/// escapes upper-cased, a `%` that starts none as `%25`, the bytes
/// [`always_encoded`] encoded; `literal(i)` says whether the byte at `i` of
/// `*` or `$` is data (encoded as `%2A`, `%24`) or the pattern's operator.
fn rfc_form(s: &[u8], literal: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if let Some(v) = escape_at(&s[i..]) {
            if unreserved(v) {
                out.push(v);
            } else {
                push_escape(&mut out, v);
            }
            i += 3;
            continue;
        }
        let encode = match b {
            b'%' => true,
            b'*' | b'$' => literal(i),
            _ => always_encoded(b),
        };
        if encode {
            push_escape(&mut out, b);
        } else {
            out.push(b);
        }
        i += 1;
    }
    out
}

/// A pattern in the RFC URL mode: `*` stays the wildcard and a final `$`
/// the end anchor; any other `$` is data.
pub fn rfc_pattern(value: &[u8]) -> Vec<u8> {
    rfc_form(value, |i| value[i] == b'$' && i + 1 != value.len())
}

/// A URL path in the RFC URL mode: `*` and `$` are data.
pub fn rfc_path(path: &[u8]) -> Vec<u8> {
    rfc_form(path, |_| true)
}

/// Google's `GetPathParamsQuery`: the path, params and query of `url`
/// (scheme, authority and fragment dropped), always starting with `/`.
pub fn path_params_query(url: &[u8]) -> Vec<u8> {
    const NONE: usize = usize::MAX;
    let find_any = |set: &[u8], from: usize| {
        url.get(from..)
            .and_then(|rest| rest.iter().position(|b| set.contains(b)))
            .map_or(NONE, |i| from + i)
    };
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let early_path = find_any(b"/?;", search_start);
    let mut protocol_end = url
        .get(search_start..)
        .and_then(|rest| rest.windows(3).position(|w| w == b"://"))
        .map_or(NONE, |i| search_start + i);
    if early_path < protocol_end {
        protocol_end = NONE;
    }
    let protocol_end = if protocol_end == NONE {
        search_start
    } else {
        protocol_end + 3
    };
    let path_start = find_any(b"/?;", protocol_end);
    if path_start == NONE {
        return b"/".to_vec();
    }
    let hash = find_any(b"#", search_start);
    if hash < path_start {
        return b"/".to_vec();
    }
    let path = &url[path_start..hash.min(url.len())];
    if path[0] == b'/' {
        path.to_vec()
    } else {
        [b"/", path].concat()
    }
}

/// The path of `url` as it meets the patterns in `mode`.
pub fn matched_path(url: &[u8], mode: UrlMode) -> Vec<u8> {
    let mut path = path_params_query(url);
    match mode {
        UrlMode::Google => {
            if let Some(nul) = path.iter().position(|&b| b == 0) {
                path.truncate(nul);
            }
            path
        }
        UrlMode::Rfc => rfc_path(&path),
        UrlMode::Decode => panic!("rfc9309 reads URLs as given or as RFC 9309 normalises them"),
    }
}

// ---------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------

/// One of the agent's Allow or Disallow lines, encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Allow (else Disallow).
    pub allow: bool,
    /// The value as written.
    pub raw: Vec<u8>,
    /// The pattern as matched (Google's escaping, or the RFC's form).
    pub pattern: Vec<u8>,
    /// Source line.
    pub line: u32,
}

impl Rule {
    /// The priority with which the rule matches `path`, if it does: its
    /// pattern's length; for an Allow that does not match, Google's
    /// `index.htm` rule tries `<dir>/$`.
    pub fn priority(&self, path: &[u8]) -> Option<usize> {
        if pattern_matches(&self.pattern, path) {
            return Some(self.pattern.len());
        }
        if !self.allow {
            return None;
        }
        let slash = self.pattern.iter().rposition(|&b| b == b'/')?;
        if !self.pattern[slash..].starts_with(b"/index.htm") {
            return None;
        }
        let dir = [&self.pattern[..=slash], b"$"].concat();
        pattern_matches(&dir, path).then_some(dir.len())
    }
}

/// How the agent's rules were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    /// Some user-agent line names the agent (one of the agents).
    Named,
    /// None does; the `*` lines apply.
    Global,
    /// Neither a named nor a `*` line: nothing applies.
    Nothing,
}

/// The rfc9309 oracle for one body and one agent (or several, read
/// together).
#[derive(Clone, Debug)]
pub struct Rfc9309Oracle {
    rules: Vec<Rule>,
    chosen: Chosen,
    url_mode: UrlMode,
    self_path: Option<&'static [u8]>,
}

impl Rfc9309Oracle {
    /// Reads `body` and chooses the rules product token `agent` obeys.
    pub fn new(body: &[u8], agent: &str, opts: &Rfc9309Options) -> Rfc9309Oracle {
        Rfc9309Oracle::for_agents(body, &[agent], opts)
    }

    /// Reads `body` and chooses the rules a crawler obeying all of
    /// `agents` follows: Google's `AllowedByRobots(body, &agents, url)`.
    pub fn for_agents(body: &[u8], agents: &[&str], opts: &Rfc9309Options) -> Rfc9309Oracle {
        let text = body_text(body);
        let walk = walk(read(&text, opts), agents, opts);
        let chosen = match (walk.named, walk.any_global) {
            (true, _) => Chosen::Named,
            (false, true) => Chosen::Global,
            (false, false) => Chosen::Nothing,
        };
        let rules = walk
            .applying()
            .filter(|l| matches!(l.key, Key::Allow | Key::Disallow) && !l.value.is_empty())
            .map(|l| Rule {
                allow: l.key == Key::Allow,
                raw: l.value.to_vec(),
                pattern: match opts.url_mode {
                    UrlMode::Rfc => rfc_pattern(l.value),
                    _ => google_pattern(l.value),
                },
                line: l.number,
            })
            .collect();
        let own_path: &'static [u8] = if opts.data_txt {
            b"/data.txt"
        } else {
            b"/robots.txt"
        };
        Rfc9309Oracle {
            rules,
            chosen,
            url_mode: opts.url_mode,
            self_path: opts.self_allowed.then_some(own_path),
        }
    }

    /// The agent's rules, in file order (empty values left out).
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// How they were chosen.
    pub fn chosen(&self) -> Chosen {
        self.chosen
    }

    /// The verdict for `url` (absolute, or a path).
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        let path = matched_path(url, self.url_mode);
        if self.self_path == Some(&path[..]) {
            return OracleVerdict::SELF_PATH;
        }
        // (priority, line) of the first best Allow and Disallow.
        let mut allow: Option<(usize, u32)> = None;
        let mut disallow: Option<(usize, u32)> = None;
        for rule in &self.rules {
            let Some(priority) = rule.priority(&path) else {
                continue;
            };
            let best = if rule.allow {
                &mut allow
            } else {
                &mut disallow
            };
            if best.is_none_or(|(p, _)| priority > p) {
                *best = Some((priority, rule.line));
            }
        }
        match (allow, disallow) {
            (None, None) => OracleVerdict::DEFAULT,
            (Some((a, _)), Some((d, line))) if d > a => OracleVerdict {
                allowed: false,
                line: Some(line),
            },
            (None, Some((_, line))) => OracleVerdict {
                allowed: false,
                line: Some(line),
            },
            (Some((_, line)), _) => OracleVerdict {
                allowed: true,
                line: Some(line),
            },
        }
    }
}

/// One-shot form of [`Rfc9309Oracle`]: reads `body` and checks `url`.
pub fn check(body: &[u8], agent: &str, opts: &Rfc9309Options, url: &[u8]) -> OracleVerdict {
    Rfc9309Oracle::new(body, agent, opts).check(url)
}

#[cfg(test)]
mod tests;
