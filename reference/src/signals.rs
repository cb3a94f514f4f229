//! An independent oracle for the AI-usage preference signals of a
//! robots.txt: `Content-Usage` (draft-ietf-aipref-attach-05 §3 with
//! draft-ietf-aipref-vocab-07 §6), `Content-Signal` (Cloudflare's Content
//! Signals Policy) and training tokens, as the section "AI-usage preferences
//! (signals)" of docs/dialects.md specifies them.
//!
//! It shares no code with the compiler. It reads the file with the rfc9309
//! oracle ([`super::rfc9309`]): its input stage, lines and groups (which
//! place every `Content-Usage` and `Content-Signal` line in its group, or
//! before the first group), Google's pattern escaping and path, and its
//! verdicts for the crawl and the training tokens' Allow/Disallow; and
//! [`super::pattern_matches`]. Everything about the signals is written
//! here, plainly: the Content-Usage value
//! split, an RFC 9651 Dictionary parser (§4.2.2 and the algorithms it
//! calls), the Content-Signal pairs, the longest match with the tie rule,
//! crawlability and the combination with its deciding line.
//!
//! Sections of vocab-07 are cited as its source numbers them (§4.1
//! train-ai, §4.2 search, §5.1 "Combining Preferences", §6.4 "Syntax
//! Extensions", §6.5 "Processing Algorithm", §6.5.1 "Multiple
//! Preferences", §6.5.2 "Preference Parameters"); docs/dialects.md cites
//! the same passages as §3.x, §4.1, §6.5, §6.7 and §6.7.1.
//!
//! Where the texts leave room, this oracle reads them so:
//!
//! * **Lines.** A line is read by the rfc9309 oracle's splitter, so the
//!   colon-less form Google accepts (`Content-Usage train-ai=n`, exactly
//!   two whitespace-separated tokens) is a Content-Usage line too, and the
//!   value ends at the first `#` (and at a NUL) and is trimmed of ASCII
//!   whitespace. Keys are compared whole, ASCII case ignored.
//! * **Structured Fields revision.** The Dictionary is RFC 9651's, which
//!   both drafts cite as FIELDS: a Date (`@…`, §4.2.9) and a Display
//!   String (`%"…"`, §4.2.10) are bare items. Input bytes
//!   outside ASCII are a parse failure (RFC 9651 §4.2 step 1); leading and
//!   trailing SP are discarded (§4.2 steps 2 and 4; the robots.txt trim has
//!   already removed them). A Byte Sequence is checked for its alphabet only
//!   (`A-Za-z0-9+/=` between two `:`); its base64 is not decoded, so
//!   padding is never a failure (§4.2.7 says parsers SHOULD NOT fail on
//!   it). A trailing `;` after parameters (`train-ai;has;parameters="?";`,
//!   vocab-07 §6.5.2's own example) is a parse failure: §4.2.3.2 parses a
//!   key after every `;`, and a key cannot be empty.
//! * **Empty preference.** An empty preference (`Content-Usage:` with
//!   nothing, or a path alone) is an empty Dictionary: it parses, states
//!   nothing, and still matches its path (no path: every URL, length 0).
//! * **Content-Signal pairs.** Parts are split at `,`; a part without `=`
//!   (or an empty part) states nothing and overrides nothing. A part with
//!   `=` is split at its first `=`, both sides trimmed of SP/HTAB; a known
//!   key in such a part overrides the same key's earlier parts of the line
//!   even when its value is neither `yes` nor `no` (then that channel says
//!   nothing on that line: "the last counts", as in a Dictionary). An
//!   empty Content-Signal value states nothing.
//! * **Content-Signal before the first group** applies to every agent and
//!   path; a Content-Signal line after the first `User-agent` line belongs
//!   to its group only (the rfc9309 grouping: it never ends a group; the
//!   Content Signals Policy places the line in robots.txt's groups and
//!   defines no grammar of its own).
//! * **Content-Usage grouping.** attach-05 §3 defines the line as a rule
//!   ("can be included in a Group"), so in RFC 9309's grammar (§2.2: a
//!   group is `startgroupline`s, then rules) a user-agent line after it
//!   starts a new group: `User-agent: *` / `Content-Usage: train-ai=n` /
//!   `User-agent: NewsBot` / `Allow: /` gives NewsBot no Content-Usage line
//!   (the crawl verdict still merges the two, as Google does).
//!   [`Grouping::Crawl`] reads it in the crawl's groups instead.
//! * **Training tokens.** A token's groups are chosen by Google's matching
//!   (the rfc9309 oracle's): the groups naming it, else the `*` ones
//!   (RFC 9309 §2.2.1; Google documents Google-Extended as a common
//!   crawler, and only its special-case crawlers ignore `*`). Their
//!   verdict is the same Google longest match as the crawl verdict, with
//!   robocc's rfc9309 defaults (`/robots.txt` always allowed, Google's
//!   `index.htm` allow), so a token never disallows `/robots.txt`. When
//!   several tokens disallow, the deciding line is the lowest line number
//!   among their deciding Disallow lines.
//! * **URLs.** The path matched is Google's (`path;params?query`, cut at
//!   `#`) and ends at a NUL, as in the crawl verdict; it is matched as given
//!   (not normalised) against the encoded Content-Usage path.
//! * **Deciding line.** For Content-Usage, the first line in file order
//!   among the longest matching lines that state the winning preference;
//!   for Content-Signal, the first applying line that states it (file-level
//!   lines come first in file order). `unknown` has no line.

use super::pattern_matches;
use super::rfc9309::{self, Chosen, Key, Rfc9309Options, Rfc9309Oracle, Tier};
use robocc_engine::UrlMode;

/// A preference for one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pref {
    /// The usage is allowed.
    Allow,
    /// The usage is disallowed.
    Disallow,
    /// No statement applies.
    Unknown,
}

/// The preference channels (docs/dialects.md's vocabulary table). The
/// oracle's own type, independent of the engine's usages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Listing in search results (vocab-07 §4.2).
    Search,
    /// Training or fine-tuning AI models (vocab-07 §4.1).
    TrainAi,
    /// Input to an AI system at answer time (Content-Signal `ai-input`).
    AiInput,
}

impl Channel {
    /// All channels, in table order.
    pub const ALL: [Channel; 3] = [Channel::Search, Channel::TrainAi, Channel::AiInput];

    /// The channel's name (`search`, `train-ai`, `ai-input`).
    pub fn name(self) -> &'static str {
        match self {
            Channel::Search => "search",
            Channel::TrainAi => "train-ai",
            Channel::AiInput => "ai-input",
        }
    }

    fn index(self) -> usize {
        match self {
            Channel::Search => 0,
            Channel::TrainAi => 1,
            Channel::AiInput => 2,
        }
    }
}

/// The oracle's answer for one channel of one URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalAnswer {
    /// The preference.
    pub pref: Pref,
    /// Line of the deciding source line (None when Unknown).
    pub line: Option<u32>,
}

impl SignalAnswer {
    const UNKNOWN: SignalAnswer = SignalAnswer {
        pref: Pref::Unknown,
        line: None,
    };
}

/// Per-channel preferences of one statement (index: [`Channel::index`]).
type Prefs = [Pref; 3];

const NOTHING: Prefs = [Pref::Unknown; 3];

/// Which groups the preference lines belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Each as its text reads: Content-Usage a rule of RFC 9309's grammar
    /// (attach-05 §3), Content-Signal a record of the crawl's groups (the
    /// Content Signals Policy defines no grammar of its own).
    Spec,
    /// Both in the crawl's groups (Google's grouping).
    Crawl,
}

/// One `Content-Usage` line of the agent's groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageLine {
    /// 1-based source line.
    pub line: u32,
    /// The path, encoded as Google encodes Allow/Disallow values; `None`
    /// when the value has no path (matches every URL).
    pub pattern: Option<Vec<u8>>,
    /// Search, train-ai, ai-input (Content-Usage's `ai-use`).
    prefs: Prefs,
}

impl UsageLine {
    /// The match length: the encoded path's byte count (0 without a path).
    fn length(&self) -> usize {
        self.pattern.as_ref().map_or(0, Vec::len)
    }

    fn matches(&self, path: &[u8]) -> bool {
        self.pattern
            .as_ref()
            .is_none_or(|p| pattern_matches(p, path))
    }
}

/// One `Content-Signal` line that applies to the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SignalLine {
    line: u32,
    prefs: Prefs,
}

/// The signals oracle for one robots.txt and one agent.
pub struct SignalsOracle {
    crawl: Rfc9309Oracle,
    usage: Vec<UsageLine>,
    signals: Vec<SignalLine>,
    /// The rfc9309 oracle of each training token that some group names.
    training: Vec<Rfc9309Oracle>,
}

impl SignalsOracle {
    /// Reads `body` for product token `agent`, with the given training
    /// tokens (`--training-agent`).
    pub fn new(body: &[u8], agent: &str, training_agents: &[String]) -> SignalsOracle {
        SignalsOracle::for_agents(body, &[agent], training_agents)
    }

    /// Reads `body` for a crawler obeying all of `agents` (the groups
    /// naming any of them, as [`Rfc9309Oracle::for_agents`] chooses).
    pub fn for_agents(body: &[u8], agents: &[&str], training_agents: &[String]) -> SignalsOracle {
        SignalsOracle::grouped(body, agents, training_agents, Grouping::Spec)
    }

    /// [`SignalsOracle::for_agents`] with the preference lines grouped by
    /// `grouping`.
    pub fn grouped(
        body: &[u8],
        agents: &[&str],
        training_agents: &[String],
        grouping: Grouping,
    ) -> SignalsOracle {
        let opts = Rfc9309Options::default();
        let text = rfc9309::body_text(body);
        let is_usage = |key: &[u8]| key.eq_ignore_ascii_case(b"content-usage");
        let walk = rfc9309::walk(rfc9309::read(&text, &opts), agents, &opts);
        // attach-05 §3 makes Content-Usage a `rule` of RFC 9309's grammar
        // (§2.2: a group is user-agent lines, then rules): a user-agent
        // line after one starts a new group.
        let usage_walk =
            rfc9309::walk_with_rules(rfc9309::read(&text, &opts), agents, &opts, &|line| {
                grouping == Grouping::Spec && line.key == Key::Other && is_usage(line.key_text)
            });
        let mut usage = Vec::new();
        let mut signals = Vec::new();
        // File-level Content-Signal lines (before the first user-agent
        // line) apply to every agent; a Content-Usage line there belongs to
        // no group.
        let chosen = walk.chosen();
        for (line, tier) in &walk.lines {
            if line.key == Key::Other
                && line.key_text.eq_ignore_ascii_case(b"content-signal")
                && (*tier == Tier::File || *tier == chosen)
            {
                signals.push(SignalLine {
                    line: line.number,
                    prefs: content_signal(line.value),
                });
            }
        }
        let chosen = usage_walk.chosen();
        for (line, tier) in &usage_walk.lines {
            if line.key == Key::Other && is_usage(line.key_text) && *tier == chosen {
                usage.push(content_usage(line.number, line.value));
            }
        }
        // A training token is a crawler's product token: its groups are
        // those naming it, else the `*` ones (RFC 9309 §2.2.1; Google's
        // common crawlers, Google-Extended among them, obey `*`).
        let training = training_agents
            .iter()
            .map(|token| Rfc9309Oracle::new(body, token, &opts))
            .filter(|o| o.chosen() != Chosen::Nothing)
            .collect();
        SignalsOracle {
            crawl: Rfc9309Oracle::for_agents(body, agents, &opts),
            usage,
            signals,
            training,
        }
    }

    /// May the agent crawl `url` (rfc9309 as Google reads it, robocc's
    /// defaults)?
    pub fn crawl_allowed(&self, url: &[u8]) -> bool {
        self.crawl.check(url).allowed
    }

    /// The Content-Usage lines of the agent's groups, in file order.
    pub fn usage_lines(&self) -> &[UsageLine] {
        &self.usage
    }

    /// The preference of one channel for `url` (absolute or a path).
    pub fn check(&self, url: &[u8], channel: Channel) -> SignalAnswer {
        if !self.crawl_allowed(url) {
            return SignalAnswer::UNKNOWN;
        }
        let path = rfc9309::matched_path(url, UrlMode::Google);
        let sources = [
            self.content_usage(&path, channel),
            self.content_signal(channel),
            self.training_token(url, channel),
        ];
        for want in [Pref::Disallow, Pref::Allow] {
            if let Some(answer) = sources.iter().find(|a| a.pref == want) {
                return *answer;
            }
        }
        SignalAnswer::UNKNOWN
    }

    /// Content-Usage alone: the longest matching lines, combined.
    fn content_usage(&self, path: &[u8], channel: Channel) -> SignalAnswer {
        let matching: Vec<&UsageLine> = self.usage.iter().filter(|u| u.matches(path)).collect();
        let Some(longest) = matching.iter().map(|u| u.length()).max() else {
            return SignalAnswer::UNKNOWN;
        };
        combine(
            matching
                .iter()
                .filter(|u| u.length() == longest)
                .map(|u| (u.line, u.prefs[channel.index()])),
        )
    }

    /// Content-Signal alone: every line that applies, combined.
    fn content_signal(&self, channel: Channel) -> SignalAnswer {
        combine(
            self.signals
                .iter()
                .map(|s| (s.line, s.prefs[channel.index()])),
        )
    }

    /// Training tokens: `train-ai` disallowed where a token's rules
    /// disallow the URL.
    fn training_token(&self, url: &[u8], channel: Channel) -> SignalAnswer {
        if channel != Channel::TrainAi {
            return SignalAnswer::UNKNOWN;
        }
        let lines = self.training.iter().filter_map(|oracle| {
            let verdict = oracle.check(url);
            if verdict.allowed {
                None
            } else {
                verdict.line
            }
        });
        match lines.min() {
            Some(line) => SignalAnswer {
                pref: Pref::Disallow,
                line: Some(line),
            },
            None => SignalAnswer::UNKNOWN,
        }
    }
}

/// Any disallow → disallow, else any allow → allow, else unknown
/// (vocab-07 §5.1); the line is the first (lowest) one that said it.
fn combine(prefs: impl Iterator<Item = (u32, Pref)>) -> SignalAnswer {
    let mut disallow: Option<u32> = None;
    let mut allow: Option<u32> = None;
    for (line, pref) in prefs {
        let slot = match pref {
            Pref::Disallow => &mut disallow,
            Pref::Allow => &mut allow,
            Pref::Unknown => continue,
        };
        if slot.is_none_or(|l| line < l) {
            *slot = Some(line);
        }
    }
    match (disallow, allow) {
        (Some(line), _) => SignalAnswer {
            pref: Pref::Disallow,
            line: Some(line),
        },
        (None, Some(line)) => SignalAnswer {
            pref: Pref::Allow,
            line: Some(line),
        },
        (None, None) => SignalAnswer::UNKNOWN,
    }
}

fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Splits a Content-Usage value into its path (if any) and its preference
/// (attach-05 §3.2).
pub fn split_usage_value(value: &[u8]) -> (Option<&[u8]>, &[u8]) {
    if value.first() != Some(&b'/') {
        return (None, value);
    }
    let end = value.iter().position(|&b| is_ws(b)).unwrap_or(value.len());
    let rest = &value[end..];
    let start = rest.iter().position(|&b| !is_ws(b)).unwrap_or(rest.len());
    (Some(&value[..end]), &rest[start..])
}

fn content_usage(line: u32, value: &[u8]) -> UsageLine {
    let (path, preference) = split_usage_value(value);
    UsageLine {
        line,
        pattern: path.map(rfc9309::google_pattern),
        prefs: usage_preference(preference),
    }
}

/// The preferences a Content-Usage preference states (vocab-07 §6.5):
/// `[search, train-ai, ai-input]`; all unknown when the Dictionary does not
/// parse.
fn usage_preference(bytes: &[u8]) -> Prefs {
    let Ok(dict) = parse_dictionary(bytes) else {
        return NOTHING;
    };
    let pref = |label: &[u8]| match dict.iter().find(|(k, _)| k.as_slice() == label) {
        Some((_, Member::Item(BareItem::Token(t), _))) if t == b"y" => Pref::Allow,
        Some((_, Member::Item(BareItem::Token(t), _))) if t == b"n" => Pref::Disallow,
        _ => Pref::Unknown,
    };
    // `ai-use` (AI Use, "use of an asset as input to a generative AI
    // model, where the asset is not directly provided by the user"): the
    // vocab editor's copy after -07 (ietf-wg-aipref/drafts 008bd89), read
    // into the channel of answer-time AI input.
    [pref(b"search"), pref(b"train-ai"), pref(b"ai-use")]
}

/// The preference Content-Usage states for one channel, from the bare
/// preference text (no path): for tests and tools.
pub fn usage_pref(preference: &[u8], channel: Channel) -> Pref {
    usage_preference(preference)[channel.index()]
}

/// The preferences one Content-Signal value states: `[search, train-ai,
/// ai-input]`.
fn content_signal(value: &[u8]) -> Prefs {
    let mut prefs = NOTHING;
    for part in value.split(|&b| b == b',') {
        let Some(eq) = part.iter().position(|&b| b == b'=') else {
            continue;
        };
        let key = trim_ws(&part[..eq]);
        let val = trim_ws(&part[eq + 1..]);
        let channel = if key.eq_ignore_ascii_case(b"search") {
            Channel::Search
        } else if key.eq_ignore_ascii_case(b"ai-train") {
            Channel::TrainAi
        } else if key.eq_ignore_ascii_case(b"ai-input") {
            Channel::AiInput
        } else {
            continue;
        };
        prefs[channel.index()] = if val.eq_ignore_ascii_case(b"yes") {
            Pref::Allow
        } else if val.eq_ignore_ascii_case(b"no") {
            Pref::Disallow
        } else {
            Pref::Unknown
        };
    }
    prefs
}

/// The preference one Content-Signal value states for one channel: for
/// tests and tools.
pub fn signal_pref(value: &[u8], channel: Channel) -> Pref {
    content_signal(value)[channel.index()]
}

fn trim_ws(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_ws(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_ws(*last) {
            break;
        }
        s = rest;
    }
    s
}

// ---------------------------------------------------------------------------
// RFC 9651 §4.2: parsing a Dictionary, written from the algorithm's steps.

/// An RFC 9651 bare item (§3.3).
#[derive(Clone, Debug, PartialEq)]
pub enum BareItem {
    /// Integer (§3.3.1).
    Integer(i64),
    /// Decimal (§3.3.2), as its text.
    Decimal(String),
    /// String (§3.3.3), unescaped.
    String(Vec<u8>),
    /// Token (§3.3.4).
    Token(Vec<u8>),
    /// Byte Sequence (§3.3.5), its base64 text (not decoded).
    Bytes(Vec<u8>),
    /// Boolean (§3.3.6).
    Boolean(bool),
    /// Date (§3.3.7): seconds since the epoch.
    Date(i64),
    /// Display String (§3.3.8), decoded.
    DisplayString(String),
}

/// Parameters: ordered keys and values, a later key overwriting.
pub type Parameters = Vec<(Vec<u8>, BareItem)>;

/// A Dictionary member value.
#[derive(Clone, Debug, PartialEq)]
pub enum Member {
    /// An Item with its parameters.
    Item(BareItem, Parameters),
    /// An Inner List with its parameters.
    InnerList(Vec<(BareItem, Parameters)>, Parameters),
}

/// A parse failure (RFC 9651: "fail parsing").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseFailure;

type Parsed<T> = Result<T, ParseFailure>;

/// The input string being consumed.
struct Input<'a> {
    s: &'a [u8],
}

impl Input<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.first().copied()
    }
    fn bump(&mut self) -> Option<u8> {
        let (&b, rest) = self.s.split_first()?;
        self.s = rest;
        Some(b)
    }
    fn is_empty(&self) -> bool {
        self.s.is_empty()
    }
    fn skip_sp(&mut self) {
        while self.peek() == Some(b' ') {
            self.bump();
        }
    }
    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.bump();
        }
    }
}

fn set<V>(map: &mut Vec<(Vec<u8>, V)>, key: Vec<u8>, value: V) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => map.push((key, value)),
    }
}

/// §4.2 with field type "dictionary": the members in order, a repeated
/// key's value overwritten by the last one (§4.2.2).
pub fn parse_dictionary(bytes: &[u8]) -> Parsed<Vec<(Vec<u8>, Member)>> {
    // §4.2 step 1: the bytes must be ASCII.
    if !bytes.is_ascii() {
        return Err(ParseFailure);
    }
    let mut input = Input { s: bytes };
    input.skip_sp();
    let dict = dictionary(&mut input)?;
    input.skip_sp();
    if !input.is_empty() {
        return Err(ParseFailure);
    }
    Ok(dict)
}

/// §4.2.2.
fn dictionary(input: &mut Input<'_>) -> Parsed<Vec<(Vec<u8>, Member)>> {
    let mut dict = Vec::new();
    while !input.is_empty() {
        let key = parse_key(input)?;
        let member = if input.peek() == Some(b'=') {
            input.bump();
            item_or_inner_list(input)?
        } else {
            Member::Item(BareItem::Boolean(true), parameters(input)?)
        };
        set(&mut dict, key, member);
        input.skip_ows();
        if input.is_empty() {
            return Ok(dict);
        }
        if input.bump() != Some(b',') {
            return Err(ParseFailure);
        }
        input.skip_ows();
        if input.is_empty() {
            return Err(ParseFailure);
        }
    }
    Ok(dict)
}

/// §4.2.1.1.
fn item_or_inner_list(input: &mut Input<'_>) -> Parsed<Member> {
    if input.peek() == Some(b'(') {
        inner_list(input)
    } else {
        let (item, params) = item(input)?;
        Ok(Member::Item(item, params))
    }
}

/// §4.2.1.2.
fn inner_list(input: &mut Input<'_>) -> Parsed<Member> {
    if input.bump() != Some(b'(') {
        return Err(ParseFailure);
    }
    let mut list = Vec::new();
    while !input.is_empty() {
        input.skip_sp();
        if input.peek() == Some(b')') {
            input.bump();
            return Ok(Member::InnerList(list, parameters(input)?));
        }
        list.push(item(input)?);
        if !matches!(input.peek(), Some(b' ' | b')')) {
            return Err(ParseFailure);
        }
    }
    Err(ParseFailure)
}

/// §4.2.3.
fn item(input: &mut Input<'_>) -> Parsed<(BareItem, Parameters)> {
    let bare = bare_item(input)?;
    Ok((bare, parameters(input)?))
}

/// §4.2.3.1.
fn bare_item(input: &mut Input<'_>) -> Parsed<BareItem> {
    match input.peek() {
        Some(b'-' | b'0'..=b'9') => integer_or_decimal(input),
        Some(b'"') => string(input),
        Some(b) if b.is_ascii_alphabetic() || b == b'*' => token(input),
        Some(b':') => byte_sequence(input),
        Some(b'?') => boolean(input),
        Some(b'@') => date(input),
        Some(b'%') => display_string(input),
        _ => Err(ParseFailure),
    }
}

/// §4.2.3.2.
fn parameters(input: &mut Input<'_>) -> Parsed<Parameters> {
    let mut params = Vec::new();
    while input.peek() == Some(b';') {
        input.bump();
        input.skip_sp();
        let key = parse_key(input)?;
        let value = if input.peek() == Some(b'=') {
            input.bump();
            bare_item(input)?
        } else {
            BareItem::Boolean(true)
        };
        set(&mut params, key, value);
    }
    Ok(params)
}

/// §4.2.3.3.
fn parse_key(input: &mut Input<'_>) -> Parsed<Vec<u8>> {
    match input.peek() {
        Some(b) if b.is_ascii_lowercase() || b == b'*' => {}
        _ => return Err(ParseFailure),
    }
    let mut key = Vec::new();
    while let Some(b) = input.peek() {
        if !(b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.*".contains(&b)) {
            break;
        }
        key.push(b);
        input.bump();
    }
    Ok(key)
}

/// §4.2.4.
fn integer_or_decimal(input: &mut Input<'_>) -> Parsed<BareItem> {
    let mut decimal = false;
    let mut negative = false;
    let mut number = String::new();
    if input.peek() == Some(b'-') {
        input.bump();
        negative = true;
    }
    match input.peek() {
        Some(b) if b.is_ascii_digit() => {}
        _ => return Err(ParseFailure),
    }
    while let Some(b) = input.peek() {
        if b.is_ascii_digit() {
            number.push(char::from(b));
        } else if !decimal && b == b'.' {
            if number.len() > 12 {
                return Err(ParseFailure);
            }
            number.push('.');
            decimal = true;
        } else {
            break;
        }
        input.bump();
        if (!decimal && number.len() > 15) || (decimal && number.len() > 16) {
            return Err(ParseFailure);
        }
    }
    if !decimal {
        let n: i64 = number.parse().map_err(|_| ParseFailure)?;
        return Ok(BareItem::Integer(if negative { -n } else { n }));
    }
    let fraction = number.len() - number.find('.').unwrap_or(0) - 1;
    if number.ends_with('.') || fraction > 3 {
        return Err(ParseFailure);
    }
    if negative {
        number.insert(0, '-');
    }
    Ok(BareItem::Decimal(number))
}

/// §4.2.5.
fn string(input: &mut Input<'_>) -> Parsed<BareItem> {
    if input.bump() != Some(b'"') {
        return Err(ParseFailure);
    }
    let mut out = Vec::new();
    while let Some(c) = input.bump() {
        match c {
            b'\\' => match input.bump() {
                Some(next @ (b'"' | b'\\')) => out.push(next),
                _ => return Err(ParseFailure),
            },
            b'"' => return Ok(BareItem::String(out)),
            0x00..=0x1f | 0x7f..=0xff => return Err(ParseFailure),
            _ => out.push(c),
        }
    }
    Err(ParseFailure)
}

/// §4.2.6.
fn token(input: &mut Input<'_>) -> Parsed<BareItem> {
    match input.peek() {
        Some(b) if b.is_ascii_alphabetic() || b == b'*' => {}
        _ => return Err(ParseFailure),
    }
    let mut out = Vec::new();
    while let Some(b) = input.peek() {
        let tchar = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if !(tchar || b == b':' || b == b'/') {
            break;
        }
        out.push(b);
        input.bump();
    }
    Ok(BareItem::Token(out))
}

/// §4.2.7 (the content's alphabet checked, not decoded).
fn byte_sequence(input: &mut Input<'_>) -> Parsed<BareItem> {
    if input.bump() != Some(b':') {
        return Err(ParseFailure);
    }
    let Some(end) = input.s.iter().position(|&b| b == b':') else {
        return Err(ParseFailure);
    };
    let content = input.s[..end].to_vec();
    input.s = &input.s[end + 1..];
    if !content
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    {
        return Err(ParseFailure);
    }
    Ok(BareItem::Bytes(content))
}

/// §4.2.8.
fn boolean(input: &mut Input<'_>) -> Parsed<BareItem> {
    if input.bump() != Some(b'?') {
        return Err(ParseFailure);
    }
    match input.bump() {
        Some(b'1') => Ok(BareItem::Boolean(true)),
        Some(b'0') => Ok(BareItem::Boolean(false)),
        _ => Err(ParseFailure),
    }
}

/// §4.2.9.
fn date(input: &mut Input<'_>) -> Parsed<BareItem> {
    if input.bump() != Some(b'@') {
        return Err(ParseFailure);
    }
    match integer_or_decimal(input)? {
        BareItem::Integer(n) => Ok(BareItem::Date(n)),
        _ => Err(ParseFailure),
    }
}

/// §4.2.10.
fn display_string(input: &mut Input<'_>) -> Parsed<BareItem> {
    if input.bump() != Some(b'%') || input.bump() != Some(b'"') {
        return Err(ParseFailure);
    }
    let mut bytes = Vec::new();
    while let Some(c) = input.bump() {
        match c {
            0x00..=0x1f | 0x7f..=0xff => return Err(ParseFailure),
            b'%' => {
                let mut octet = 0u8;
                for _ in 0..2 {
                    let digit = match input.bump() {
                        Some(h @ b'0'..=b'9') => h - b'0',
                        Some(h @ b'a'..=b'f') => h - b'a' + 10,
                        _ => return Err(ParseFailure),
                    };
                    octet = octet * 16 + digit;
                }
                bytes.push(octet);
            }
            b'"' => {
                return String::from_utf8(bytes)
                    .map(BareItem::DisplayString)
                    .map_err(|_| ParseFailure)
            }
            _ => bytes.push(c),
        }
    }
    Err(ParseFailure)
}

#[cfg(test)]
mod tests;
