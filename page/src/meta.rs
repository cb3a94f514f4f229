//! Stage 2: conventional Robots META / `X-Robots-Tag` directives
//! (`noindex`, `nofollow`, `none`, `noarchive`, `nosnippet`, `max-snippet`,
//! `unavailable_after`, …; `noai`, `noimageai` for the AI-usage preference
//! channels) as statements on usages and page qualifiers.

use super::{Qualifier, Source, Statement, StatementKind, MAX_DIAGS, MAX_QUALIFIERS};
use robocc_engine::Usage;
use std::rc::Rc;

/// Directive names that take a `:value` (so that `max-snippet: 0` is not
/// read as an agent prefix in an `X-Robots-Tag` value).
const VALUED: &[&str] = &[
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
];

/// An `X-Robots-Tag` value as runs of directives with their addressee
/// (`visit(who, directives)`, in order): an `agent:` prefix (a product
/// token before the first `:` of a comma-separated element, not a
/// directive that takes a value) applies to the directives after it up to
/// the next prefix; before any prefix, `robots`. Field lines combined with
/// commas (RFC 9110 §5.3) so read as the lines would one by one.
pub(crate) fn agent_runs<'v>(value: &'v str, mut visit: impl FnMut(&'v str, &'v str)) {
    let mut who = "robots";
    // Where the current run's directives start, and the current element.
    let mut start = 0;
    let mut elem = 0;
    loop {
        let end = value[elem..].find(',').map_or(value.len(), |j| elem + j);
        if let Some((k, _)) = value[elem..end].split_once(':') {
            let k = k.trim();
            if super::token_like(k) && !VALUED.iter().any(|d| k.eq_ignore_ascii_case(d)) {
                // The run before it ends at the comma before this element.
                if elem > 0 && !value[start..elem - 1].trim().is_empty() {
                    visit(who, &value[start..elem - 1]);
                }
                who = k;
                start = value[elem..].find(':').map_or(end, |j| elem + j + 1);
            }
        }
        if end == value.len() {
            break;
        }
        elem = end + 1;
    }
    if !value[start..].trim().is_empty() {
        visit(who, &value[start..]);
    }
}

/// The directive names [`parse`] reads (an unreadable date ends before
/// one of them).
const KNOWN: &[&str] = &[
    "noindex",
    "nofollow",
    "none",
    "noarchive",
    "nocache",
    "nosnippet",
    "noai",
    "noimageai",
    "index",
    "follow",
    "all",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "noimageindex",
    "notranslate",
    "indexifembedded",
    "unavailable_after",
];

/// Tokens and bytes per token an `unavailable_after` date is looked for
/// in: the longest date form (`Wed, 25 Jun 2026 15:00:00 GMT`) has six
/// tokens, so a long list costs a bounded amount per directive.
const DATE_TOKENS: usize = 8;
/// Tokens a date form has at most (RFC 1123 with its weekday and zone:
/// `Wed,` `25` `Jun` `2026` `15:00:00` `GMT`): a longer prefix of the run
/// is not tried (each try reads it whole).
const DATE_FORM_TOKENS: usize = 6;
const DATE_TOKEN_LEN: usize = 64;

/// A byte a date's token can have (names, digits, `:` and `.` of a time,
/// `+` `-` of a zone or an ISO date); a token's ends may be other
/// whitespace, which [`parse_date`] trims.
fn date_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b':' | b'+' | b'-' | b'.')
}

fn is_directive(tok: &str) -> bool {
    let key = tok.split_once(':').map_or(tok, |(k, _)| k);
    KNOWN.iter().any(|k| key.eq_ignore_ascii_case(k))
}

/// Tokens as one date string: a space between tokens of one item, `, `
/// between items; and where each prefix of the run ends in it (`ends[n]`:
/// the first `n` tokens), so that every prefix is read from one string.
fn join(run: &[(usize, &str)]) -> (String, Vec<usize>) {
    let mut s = String::new();
    let mut ends = vec![0];
    for (k, (item, t)) in run.iter().enumerate() {
        if k > 0 {
            s.push_str(if run[k - 1].0 == *item { " " } else { ", " });
        }
        s.push_str(t);
        ends.push(s.len());
    }
    (s, ends)
}

/// A list that keeps its first `N` items and drops the rest: the reader
/// reports at most [`MAX_DIAGS`] findings and [`MAX_QUALIFIERS`] qualifiers
/// (then one `page-limit` finding), so a tag of many tokens keeps no more
/// than could be reported (one more, for that finding).
#[derive(Debug)]
pub(crate) struct Capped<T, const N: usize>(Vec<T>);

impl<T, const N: usize> Default for Capped<T, N> {
    fn default() -> Self {
        Capped(Vec::new())
    }
}

impl<T, const N: usize> Capped<T, N> {
    /// Keeps the item `item` makes, made only when it is kept (past the
    /// cap, a hostile list's items cost no copy).
    pub fn push_with(&mut self, item: impl FnOnce() -> T) {
        if self.0.len() < N {
            self.0.push(item());
        }
    }
}

impl<T, const N: usize> std::ops::Deref for Capped<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

/// What a directive list says.
#[derive(Default)]
pub(crate) struct Directives {
    /// (usage, allowed, directive as written): the first of each directive
    /// name per usage and verdict (`none none` is `none`; the statements a
    /// repetition would make are equal but for how they are written).
    pub rules: Vec<(Usage, bool, String)>,
    pub qualifiers: Capped<Qualifier, { MAX_QUALIFIERS + 1 }>,
    /// Unknown directives and unreadable values (each clipped).
    pub unknown: Capped<String, { MAX_DIAGS + 1 }>,
    /// `unavailable_after` instants (seconds since the epoch), as read.
    pub unavailable_after: Dates,
}

/// `unavailable_after` instants (seconds since the epoch) and dates as
/// written, in reading order: the first one read, and the first past at
/// `now` (all that [`statements`] reads: a later past date would make the
/// same statement but for how it is written), however many the content has.
#[derive(Debug, Default)]
pub(crate) struct Dates {
    now: Option<i64>,
    kept: Vec<(i64, String)>,
}

impl Dates {
    pub fn push(&mut self, (t, date): (i64, String)) {
        let past = |t: i64| self.now.is_some_and(|now| t <= now);
        if self.kept.is_empty() || (past(t) && !self.kept.iter().any(|(k, _)| past(*k))) {
            self.kept.push((t, date));
        }
    }
}

impl std::ops::Deref for Dates {
    type Target = [(i64, String)];
    fn deref(&self) -> &[(i64, String)] {
        &self.kept
    }
}

/// Reads a conventional directive list: names and values case-insensitive,
/// comma- or space-separated; `name:value` or `name: value`.
pub(crate) fn parse(content: &str) -> Directives {
    parse_at(content, None)
}

/// [`parse`], keeping the `unavailable_after` dates that [`statements`]
/// reads at `now`.
pub(crate) fn parse_at(content: &str, now: Option<i64>) -> Directives {
    let mut d = Directives::default();
    d.unavailable_after.now = now;
    // Read as they come (a content of commas makes no list of items).
    let mut items = content.split(',').peekable();
    while let Some(item) = items.next() {
        let mut toks = item.split_ascii_whitespace().peekable();
        while let Some(tok) = toks.next() {
            let (key, inline) = match tok.split_once(':') {
                Some((k, v)) => (k.to_ascii_lowercase(), Some(v)),
                None => (tok.to_ascii_lowercase(), None),
            };
            if key == "unavailable_after" {
                // The date is the longest run of the tokens that follow
                // (into the next item: RFC 850's comma after the weekday)
                // that reads as a date; what follows it are directives.
                // Tokens are marked 0 in this item, 1 in the next.
                let mut run: Vec<(usize, &str)> = Vec::new();
                if let Some(v) = inline.filter(|v| !v.is_empty()) {
                    run.push((0, v));
                }
                let next = items
                    .peek()
                    .into_iter()
                    .flat_map(|it| it.split_ascii_whitespace().map(|t| (1, t)));
                for (item, t) in toks.clone().map(|t| (0, t)).chain(next) {
                    if run.len() == DATE_TOKENS || t.len() > DATE_TOKEN_LEN {
                        break;
                    }
                    run.push((item, t));
                }
                let inline_len = usize::from(inline.is_some_and(|v| !v.is_empty()));
                // Every date form starts with a digit or a letter (a year,
                // a day, a weekday or month name): a run that does not is
                // no date however many of its tokens are read.
                let (joined, ends) = join(&run);
                let read = joined
                    .starts_with(|c: char| c.is_ascii_alphanumeric())
                    .then(|| {
                        // Nor a prefix with a token of other characters
                        // than a date's (`unavailable_after:` is none).
                        let datable = run
                            .iter()
                            .take(DATE_FORM_TOKENS)
                            .take_while(|(_, t)| t.trim().bytes().all(date_byte))
                            .count();
                        (1..=datable)
                            .rev()
                            .find_map(|n| parse_date(&joined[..ends[n]]).map(|t| (n, t)))
                    })
                    .flatten();
                let (taken, at) = match read {
                    Some((n, t)) => (n, Some(t)),
                    // Unreadable: the rest of the item, up to a directive.
                    None => (
                        inline_len
                            + run[inline_len..]
                                .iter()
                                .take_while(|(item, t)| *item == 0 && !is_directive(t))
                                .count(),
                        None,
                    ),
                };
                let date = &joined[..ends[taken]];
                let in_next = run[..taken].iter().filter(|(item, _)| *item == 1).count();
                if in_next > 0 {
                    toks = items
                        .next()
                        .expect("a token was read from it")
                        .split_ascii_whitespace()
                        .peekable();
                    for _ in 0..in_next {
                        toks.next();
                    }
                } else {
                    for _ in inline_len..taken {
                        toks.next();
                    }
                }
                d.qualifiers
                    .push_with(|| Qualifier::new("unavailable_after", date));
                match at {
                    Some(t) => d.unavailable_after.push((t, date.to_string())),
                    None => d.unknown.push_with(|| {
                        super::clip(&format!("unavailable_after: unreadable date {date:?}"))
                    }),
                }
                continue;
            }
            let value = match inline {
                Some(v) if !v.is_empty() => Some(v.to_string()),
                Some(_) => toks.next().map(str::to_string),
                None => None,
            };
            let mut rule = |u: Usage, allowed: bool| {
                fn name(w: &str) -> &str {
                    w.split(':').next().unwrap_or("")
                }
                if !d.rules.iter().any(|(v, a, w)| {
                    (*v, *a) == (u, allowed) && name(w).eq_ignore_ascii_case(name(tok))
                }) {
                    d.rules.push((u, allowed, super::clip(tok)));
                }
            };
            match (key.as_str(), value.as_deref()) {
                ("noindex", None) => rule(Usage::Index, false),
                ("nofollow", None) => rule(Usage::Follow, false),
                ("none", None) => {
                    rule(Usage::Index, false);
                    rule(Usage::Follow, false);
                }
                ("noarchive" | "nocache", None) => {
                    rule(Usage::Preserve, false);
                    rule(Usage::PresentCurrentcopy, false);
                }
                ("nosnippet", None) => rule(Usage::PresentSnippet, false),
                // AI-usage preferences (issue 18): not for training, not as
                // input at answer time. `noimageai` is about the page's
                // images; a per-URL answer cannot tell them apart, so the
                // page's channels say disallow (docs/dialects.md).
                ("noai" | "noimageai", None) => {
                    rule(Usage::TrainAi, false);
                    rule(Usage::AiInput, false);
                }
                ("index", None) => rule(Usage::Index, true),
                ("follow", None) => rule(Usage::Follow, true),
                ("all", None) => {}
                ("max-snippet", Some(v)) => {
                    d.qualifiers.push_with(|| Qualifier::new("max-snippet", v));
                    match v.trim().parse::<i64>() {
                        Ok(0) => rule(Usage::PresentSnippet, false),
                        Ok(_) => {}
                        Err(_) => d.unknown.push_with(|| {
                            super::clip(&format!("max-snippet: {v:?} is not a number"))
                        }),
                    }
                }
                ("max-image-preview" | "max-video-preview", Some(v)) => {
                    d.qualifiers.push_with(|| Qualifier::new(&key, v));
                }
                ("noimageindex" | "notranslate" | "indexifembedded", None) => {
                    d.qualifiers.push_with(|| Qualifier::new(&key, ""));
                }
                _ => d.unknown.push_with(|| super::clip(tok)),
            }
        }
    }
    d
}

/// The statements of a directive list (read with [`parse_at`] at `now`).
pub(crate) fn statements(
    d: &Directives,
    named: bool,
    source: &Rc<Source>,
    now: Option<i64>,
) -> Vec<Statement> {
    let mut out: Vec<Statement> = d
        .rules
        .iter()
        .map(|(u, allowed, written)| Statement {
            usage: *u,
            allowed: *allowed,
            named,
            kind: StatementKind::Conventional,
            purpose: None,
            qualifiers: String::new(),
            written: written.clone(),
            source: source.clone(),
            reason: None,
        })
        .collect();
    if let Some(now) = now {
        // The first past date: the statements later ones would make are
        // equal to its but for how they are written.
        if let Some((_, date)) = d.unavailable_after.iter().find(|(t, _)| *t <= now) {
            out.push(Statement {
                usage: Usage::Index,
                allowed: false,
                named,
                kind: StatementKind::Conventional,
                purpose: None,
                qualifiers: String::new(),
                written: super::clip(&format!("unavailable_after: {date}")),
                source: source.clone(),
                reason: Some(super::Reason::UnavailableAfter),
            });
        }
    }
    out
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian). Years
/// are 0..=9999 here ([`year`], [`iso_date`]), so nothing overflows.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days from the epoch to a calendar date that exists (no 30 February,
/// no month 13).
fn civil(y: i64, m: i64, d: i64) -> Option<i64> {
    const LEN: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let len = match m {
        2 if leap(y) => 29,
        1..=12 => LEN[m as usize - 1],
        _ => return None,
    };
    (1..=len).contains(&d).then(|| days_from_civil(y, m, d))
}

/// ISO 8601 day of the week of a day count: Monday 1 … Sunday 7
/// (1970-01-01 was a Thursday).
fn weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7) + 1
}

/// An ISO 8601 week date: day `d` (1 = Monday) of week `w` of year `y`;
/// week 1 holds the year's first Thursday, and a year has 53 weeks when
/// it starts on a Thursday (or, leap, on a Wednesday).
fn week_date(y: i64, w: i64, d: i64) -> Option<i64> {
    let jan1 = days_from_civil(y, 1, 1);
    let weeks = match weekday(jan1) {
        4 => 53,
        3 if leap(y) => 53,
        _ => 52,
    };
    if !(1..=weeks).contains(&w) || !(1..=7).contains(&d) {
        return None;
    }
    let jan4 = jan1 + 3;
    Some(jan4 - (weekday(jan4) - 1) + (w - 1) * 7 + d - 1)
}

/// An ISO 8601 ordinal date: day `n` of year `y`.
fn ordinal_date(y: i64, n: i64) -> Option<i64> {
    let len = if leap(y) { 366 } else { 365 };
    (1..=len)
        .contains(&n)
        .then(|| days_from_civil(y, 1, 1) + n - 1)
}

/// `s` as a number when it is `lo..=hi` ASCII digits (no sign).
fn digits(s: &str, lo: usize, hi: usize) -> Option<i64> {
    if s.len() < lo || s.len() > hi || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn month(s: &str) -> Option<i64> {
    const M: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    // Compared in place (no lower-case copy per attempt).
    let is = |w: &str| s.eq_ignore_ascii_case(w);
    M.iter()
        .position(|m| is(m) || is(&m[..3]) || (is("sept") && m.starts_with("sept")))
        .map(|i| i as i64 + 1)
}

/// A day name (`Wed`, `Wednesday`): not checked against the date.
fn weekday_name(s: &str) -> bool {
    const D: [&str; 7] = [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    D.iter()
        .any(|d| s.eq_ignore_ascii_case(d) || s.eq_ignore_ascii_case(&d[..3]))
}

/// The seconds of a time of day that exists: hour 0–23 (24 only as
/// 24:00:00, the end of the day), minute 0–59, second 0–60 (a leap
/// second).
fn seconds(h: i64, m: i64, s: i64) -> Option<i64> {
    let ok = (h < 24 || (h == 24 && m == 0 && s == 0)) && m < 60 && s <= 60;
    ok.then_some(h * 3600 + m * 60 + s)
}

/// Drops a decimal fraction of the second (`.5`, `,5`: ISO 8601 allows
/// both signs); `None` when what follows the sign is not digits.
fn whole_seconds(s: &str) -> Option<&str> {
    match s.find(['.', ',']) {
        Some(i) => {
            let frac = &s[i + 1..];
            (!frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit())).then_some(&s[..i])
        }
        None => Some(s),
    }
}

/// A time of day with colons: `hh:mm[:ss[.fff]]` (the hour may have one
/// digit, as RFC 822 mail often writes it).
fn clock(s: &str) -> Option<i64> {
    let mut p = s.split(':');
    let h = digits(p.next()?, 1, 2)?;
    let m = digits(p.next()?, 2, 2)?;
    let sec = match p.next() {
        Some(x) => digits(whole_seconds(x)?, 2, 2)?,
        None => 0,
    };
    if p.next().is_some() {
        return None;
    }
    seconds(h, m, sec)
}

/// An ISO 8601 time of day without colons: `hh`, `hhmm`, `hhmmss[.fff]`.
fn clock_basic(t: &str) -> Option<i64> {
    let s = whole_seconds(t)?;
    let fraction = s.len() < t.len();
    let n = |i: usize| digits(s.get(i..i + 2)?, 2, 2);
    match s.len() {
        2 if !fraction => seconds(n(0)?, 0, 0),
        4 if !fraction => seconds(n(0)?, n(2)?, 0),
        6 => seconds(n(0)?, n(2)?, n(4)?),
        _ => None,
    }
}

/// A numeric offset `±hh`, `±hhmm` or `±hh:mm`, in seconds east of UTC.
fn offset(s: &str) -> Option<i64> {
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = &s[1..];
    if !rest.is_ascii() {
        return None;
    }
    let (h, m) = match rest.len() {
        2 => (rest, "00"),
        4 => rest.split_at(2),
        5 if rest.as_bytes()[2] == b':' => (&rest[..2], &rest[3..]),
        _ => return None,
    };
    let (h, m) = (digits(h, 2, 2)?, digits(m, 2, 2)?);
    (h < 24 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

/// A zone of an RFC 822/1123/850 date (`GMT`, a US zone, or an offset)
/// in seconds east of UTC.
fn zone(s: &str) -> Option<i64> {
    let hours = match s.to_ascii_uppercase().as_str() {
        "Z" | "GMT" | "UTC" | "UT" => 0,
        "EDT" => -4,
        "EST" | "CDT" => -5,
        "CST" | "MDT" => -6,
        "MST" | "PDT" => -7,
        "PST" => -8,
        _ => return offset(s),
    };
    Some(hours * 3600)
}

/// Seconds since the epoch of a date (docs/dialects.md, "Conventional
/// directives"): an ISO 8601 / RFC 3339 complete date, calendar
/// (`2026-07-01`, `20260701`), week (`2026-W27-3`, `2026W273`) or ordinal
/// (`2026-182`, `2026182`), alone or with a time of day (`T` or a space,
/// then `hh[:mm[:ss[.f]]]` or `hh[mm[ss[.f]]]`, then `Z`, `±hh`, `±hhmm`,
/// `±hh:mm` or nothing for UTC); or one of RFC 9110 §5.6.7's HTTP dates:
/// RFC 822/1123 (`[Wed, ]25 Jun 2026 15:00:00 GMT`), RFC 850
/// (`Wednesday, 25-Jun-26 15:00:00 GMT`) or asctime
/// (`Wed Jun 25 15:00:00 2026`). `None` for anything else, a date or time
/// that does not exist (30 February, 25:00) and a year beyond 9999.
pub fn parse_date(s: &str) -> Option<i64> {
    let s = s.trim();
    iso(s).or_else(|| rfc822(s)).or_else(|| asctime(s))
}

/// Days from the epoch of an ISO 8601 complete date (ASCII).
fn iso_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let n = |from: usize, to: usize| digits(s.get(from..to)?, to - from, to - from);
    let week = |i: usize| b.get(i).is_some_and(|c| c.eq_ignore_ascii_case(&b'w'));
    match b.len() {
        10 if b[4] == b'-' && week(5) && b[8] == b'-' => week_date(n(0, 4)?, n(6, 8)?, n(9, 10)?),
        10 if b[4] == b'-' && b[7] == b'-' => civil(n(0, 4)?, n(5, 7)?, n(8, 10)?),
        8 if week(4) => week_date(n(0, 4)?, n(5, 7)?, n(7, 8)?),
        8 if b[4] == b'-' => ordinal_date(n(0, 4)?, n(5, 8)?),
        8 => civil(n(0, 4)?, n(4, 6)?, n(6, 8)?),
        7 => ordinal_date(n(0, 4)?, n(4, 7)?),
        _ => None,
    }
}

fn iso(s: &str) -> Option<i64> {
    if !s.is_ascii() {
        return None;
    }
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let day = iso_date(date)?.checked_mul(86_400)?;
    let Some(time) = time else {
        return Some(day);
    };
    let zpos = time.find(['Z', 'z', '+', '-']).unwrap_or(time.len());
    let (t, z) = time.split_at(zpos);
    let t = if t.contains(':') {
        // Extended format: two-digit hours.
        t.find(':').filter(|&i| i == 2)?;
        clock(t)?
    } else {
        clock_basic(t)?
    };
    let z = match z {
        "" | "Z" | "z" => 0,
        _ => offset(z)?,
    };
    day.checked_add(t)?.checked_sub(z)
}

/// A day of the month as written (1 or 2 digits); [`civil`] checks it.
fn day(s: &str) -> Option<i64> {
    digits(s, 1, 2)
}

/// A year of at most four digits (no sign): a longer one is no date a
/// page means (docs/dialects.md). Two digits (RFC 850; one tolerated):
/// 00–49 are 2000–2049, 50–99 are 1950–1999; three: 1900 + (RFC 5322
/// §4.3).
fn year(s: &str) -> Option<i64> {
    let y = digits(s, 1, 4)?;
    Some(match s.len() {
        1 | 2 if y < 50 => 2000 + y,
        1 | 2 => 1900 + y,
        3 => 1900 + y,
        _ => y,
    })
}

/// RFC 822/1123 (`[Wed, ]25 Jun 2026 15:00:00 GMT`) and RFC 850
/// (`Wednesday, 25-Jun-26 15:00:00 GMT`); the time and the zone are
/// optional (midnight, GMT).
fn rfc822(s: &str) -> Option<i64> {
    let s = match s.split_once(',') {
        Some((w, rest)) if weekday_name(w.trim()) => rest,
        Some(_) => return None,
        None => s,
    };
    let mut parts = s.split_ascii_whitespace();
    let first = parts.next()?;
    let (d, m, y) = if first.contains('-') {
        let mut p = first.split('-');
        let dmy = (day(p.next()?)?, month(p.next()?)?, year(p.next()?)?);
        if p.next().is_some() {
            return None;
        }
        dmy
    } else {
        (day(first)?, month(parts.next()?)?, year(parts.next()?)?)
    };
    let days = civil(y, m, d)?;
    let t = match parts.next() {
        Some(t) => clock(t)?,
        None => 0,
    };
    let z = match parts.next() {
        Some(z) => zone(z)?,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    days.checked_mul(86_400)?.checked_add(t)?.checked_sub(z)
}

/// asctime (`Wed Jun 25 15:00:00 2026`, RFC 9110 §5.6.7; the day of the
/// week may be left out): GMT.
fn asctime(s: &str) -> Option<i64> {
    let mut parts = s.split_ascii_whitespace().peekable();
    if parts.peek().is_some_and(|w| weekday_name(w)) {
        parts.next();
    }
    let m = month(parts.next()?)?;
    let d = day(parts.next()?)?;
    let t = clock(parts.next()?)?;
    let y = digits(parts.next()?, 4, 4)?;
    if parts.next().is_some() {
        return None;
    }
    civil(y, m, d)?.checked_mul(86_400)?.checked_add(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("1970-01-02T00:00:00Z"), Some(86_400));
        assert_eq!(parse_date("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_date("Thu, 01 Jan 1970 00:00:10 GMT"), Some(10));
        assert_eq!(parse_date("01 Jan 1970 00:00:00 PST"), Some(8 * 3600));
        assert_eq!(parse_date("Thursday, 01-Jan-70 00:00:00 GMT"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(951_868_800));
        assert_eq!(parse_date("tomorrow"), None);
    }

    #[test]
    fn iso_8601_forms_and_http_dates() {
        let day = parse_date("2020-09-21").unwrap();
        let at10 = parse_date("2020-09-21T10:00:00Z").unwrap();
        assert_eq!(at10, day + 10 * 3600);
        // ISO 8601 basic format, reduced-precision times, fractions.
        assert_eq!(parse_date("20200921"), Some(day));
        assert_eq!(parse_date("20200921T100000Z"), Some(at10));
        assert_eq!(parse_date("20200921T1000Z"), Some(at10));
        assert_eq!(parse_date("20200921T10Z"), Some(at10));
        assert_eq!(parse_date("2020-09-21T10Z"), Some(at10));
        assert_eq!(parse_date("2020-09-21T10:00Z"), Some(at10));
        assert_eq!(parse_date("2020-09-21t10:00:00.75z"), Some(at10));
        assert_eq!(parse_date("20200921T100000,5Z"), Some(at10));
        // Offsets: ±hh, ±hhmm, ±hh:mm; none is UTC.
        assert_eq!(parse_date("2020-09-21T12:00:00+02"), Some(at10));
        assert_eq!(parse_date("2020-09-21T12:00:00+0200"), Some(at10));
        assert_eq!(parse_date("2020-09-21T07:30:00-02:30"), Some(at10));
        assert_eq!(parse_date("20200921T120000+02"), Some(at10));
        assert_eq!(parse_date("2020-09-21T10:00:00"), Some(at10));
        assert_eq!(parse_date("2020-09-21 10:00:00Z"), Some(at10));
        // Week and ordinal dates (2020-09-21 is the Monday of week 39,
        // day 265 of a leap year).
        assert_eq!(parse_date("2020-W39-1"), Some(day));
        assert_eq!(parse_date("2020W391"), Some(day));
        assert_eq!(parse_date("2020-W39-1T10:00:00Z"), Some(at10));
        assert_eq!(parse_date("2020-265"), Some(day));
        assert_eq!(parse_date("2020265"), Some(day));
        assert_eq!(parse_date("2020-W53-1"), parse_date("2020-12-28"));
        assert_eq!(parse_date("2021-W01-1"), parse_date("2021-01-04"));
        assert_eq!(parse_date("2020-W01-1"), parse_date("2019-12-30"));
        assert_eq!(parse_date("2020-366"), parse_date("2020-12-31"));
        // RFC 9110 §5.6.7's three HTTP forms.
        assert_eq!(parse_date("Mon, 21 Sep 2020 10:00:00 GMT"), Some(at10));
        assert_eq!(parse_date("Monday, 21-Sep-20 10:00:00 GMT"), Some(at10));
        assert_eq!(parse_date("Mon Sep 21 10:00:00 2020"), Some(at10));
        assert_eq!(
            parse_date("Tue Sep  1 10:00:00 2020"),
            parse_date("2020-09-01T10:00:00Z")
        );
        assert_eq!(parse_date("21 September 2020"), Some(day));
        assert_eq!(parse_date("21 Sep 2020 12:00 +02"), Some(at10));
        assert_eq!(parse_date("2020-09-21T24:00:00Z"), parse_date("2020-09-22"));
        assert_eq!(parse_date("2020-02-29"), Some(day - 205 * 86_400));
    }

    #[test]
    fn impossible_dates_are_unreadable() {
        for s in [
            "2020-02-30",
            "2021-02-29",
            "1900-02-29",
            "2020-04-31",
            "2020-13-01",
            "2020-00-10",
            "2020-09-00",
            "20200230",
            "2020-09-21T25:00:00Z",
            "2020-09-21T24:00:01Z",
            "2020-09-21T10:60:00Z",
            "2020-09-21T10:00:61Z",
            "2020-09-21T10:00:00+24",
            "2020-09-21T10:00:00+0260",
            "2020-09-21T10:00:1e1Z",
            "2020-09-21T10.5Z",
            "2021-366",
            "2020-000",
            "2019-W53-1",
            "2020-W00-1",
            "2020-W39-8",
            "30 Feb 2020",
            "31 Apr 2020 10:00:00 GMT",
            "Wednesday, 31-Jun-20 10:00:00 GMT",
            "Mon Feb 30 10:00:00 2020",
            "Mon Sep 21 25:00:00 2020",
            "21 Sep 2020 10:00:00 GMT extra",
            "today, 21 Sep 2020",
            "+2020-09-21",
            "2020-9-21",
            "2020-09-21T",
        ] {
            assert_eq!(parse_date(s), None, "{s}");
        }
    }

    #[test]
    fn years_beyond_four_digits_are_unreadable() {
        // Wrapped by `* 86_400` (a far-future year read as past; a panic
        // with overflow checks) before years were bounded.
        assert_eq!(parse_date("25 Jun 922337203685477 00:00:00 GMT"), None);
        assert_eq!(parse_date("25 Jun -5000000000000000"), None);
        assert_eq!(parse_date("25 Jun 99999999999 00:00:00 GMT"), None);
        assert_eq!(parse_date("25 Jun 10000"), None);
        assert_eq!(
            parse_date("Fri, 31 Dec 9999 23:59:59 GMT"),
            Some(253_402_300_799)
        );
    }

    #[test]
    fn a_date_ends_where_it_stops_reading_as_one() {
        let read = |content: &str| {
            let d = parse(content);
            let rules: Vec<_> = d.rules.iter().map(|(u, a, _)| (*u, *a)).collect();
            let dates: Vec<_> = d.unavailable_after.iter().map(|(_, s)| s.clone()).collect();
            (rules, dates, d.unknown.to_vec())
        };
        let nofollow = vec![(Usage::Follow, false)];
        assert_eq!(
            read("unavailable_after: 2020-09-21 nofollow"),
            (nofollow.clone(), vec!["2020-09-21".to_string()], vec![])
        );
        assert_eq!(
            read("nofollow unavailable_after: 2020-09-21 noarchive"),
            (
                vec![
                    (Usage::Follow, false),
                    (Usage::Preserve, false),
                    (Usage::PresentCurrentcopy, false)
                ],
                vec!["2020-09-21".to_string()],
                vec![]
            )
        );
        // Dates with spaces and a comma keep working, wherever they end.
        for (content, date) in [
            (
                "unavailable_after: Wednesday, 25-Jun-10 15:00:00 GMT nofollow",
                "Wednesday, 25-Jun-10 15:00:00 GMT",
            ),
            (
                "unavailable_after: Wednesday, 25-Jun-10 15:00:00 GMT, nofollow",
                "Wednesday, 25-Jun-10 15:00:00 GMT",
            ),
            (
                "unavailable_after: Wed, 25 Jun 2010 15:00:00 PST nofollow",
                "Wed, 25 Jun 2010 15:00:00 PST",
            ),
            (
                "unavailable_after:2010-06-25 15:00:00+02 nofollow",
                "2010-06-25 15:00:00+02",
            ),
            (
                "unavailable_after: Fri Jun 25 15:00:00 2010 nofollow",
                "Fri Jun 25 15:00:00 2010",
            ),
        ] {
            assert_eq!(
                read(content),
                (nofollow.clone(), vec![date.to_string()], vec![]),
                "{content}"
            );
        }
        // An unreadable date stops before a directive.
        let (rules, dates, unknown) = read("unavailable_after: 32 Jun 2010 nofollow, noindex");
        assert_eq!(rules, [(Usage::Follow, false), (Usage::Index, false)]);
        assert!(dates.is_empty());
        assert_eq!(
            unknown,
            ["unavailable_after: unreadable date \"32 Jun 2010\""]
        );
        let (rules, _, unknown) = read("unavailable_after: none");
        assert_eq!(rules, [(Usage::Index, false), (Usage::Follow, false)]);
        assert_eq!(unknown, ["unavailable_after: unreadable date \"\""]);
    }

    #[test]
    fn agent_prefixes_per_element() {
        let runs = |v: &str| {
            let mut out = Vec::new();
            agent_runs(v, |who, d| {
                out.push((who.to_string(), d.trim().to_string()))
            });
            out
        };
        let r = |who: &str, d: &str| (who.to_string(), d.to_string());
        assert_eq!(
            runs("noarchive, googlebot: noindex"),
            [r("robots", "noarchive"), r("googlebot", "noindex")]
        );
        assert_eq!(
            runs("bingbot: noarchive, nosnippet, GoogleBot : noindex, nofollow"),
            [
                r("bingbot", "noarchive, nosnippet"),
                r("GoogleBot", "noindex, nofollow")
            ]
        );
        assert_eq!(
            runs("max-snippet: 0, unavailable_after: Wednesday, 25-Jun-10 15:00:00 GMT"),
            [r(
                "robots",
                "max-snippet: 0, unavailable_after: Wednesday, 25-Jun-10 15:00:00 GMT"
            )]
        );
        assert_eq!(
            runs("googlebot: unavailable_after: 2020-09-21T10:00:00Z"),
            [r("googlebot", "unavailable_after: 2020-09-21T10:00:00Z")]
        );
        assert_eq!(runs(", bingbot:, googlebot:"), []);
        assert_eq!(runs(""), []);
        assert_eq!(
            runs("googlebot/2.1: noindex"),
            [r("robots", "googlebot/2.1: noindex")]
        );
    }

    #[test]
    fn directives() {
        let d = parse("NOINDEX, nofollow max-snippet: 0 unavailable_after: Thursday, 01-Jan-70 00:00:00 GMT, noimageindex");
        let r: Vec<_> = d.rules.iter().map(|(u, a, _)| (*u, *a)).collect();
        assert_eq!(
            r,
            [
                (Usage::Index, false),
                (Usage::Follow, false),
                (Usage::PresentSnippet, false)
            ]
        );
        assert_eq!(d.unavailable_after.len(), 1);
        assert_eq!(d.unavailable_after[0].0, 0);
        assert!(d.qualifiers.iter().any(|q| q.name == "noimageindex"));
        assert!(d.unknown.is_empty(), "{:?}", d.unknown);
        // Every name an unreadable date stops at is one `parse` reads.
        for k in KNOWN {
            let written = match *k {
                "unavailable_after" => format!("{k}: 2020-09-21"),
                _ if VALUED.contains(k) => format!("{k}:1"),
                _ => k.to_string(),
            };
            assert!(parse(&written).unknown.is_empty(), "{k}");
        }
        assert!(VALUED.iter().all(|v| KNOWN.contains(v)));
    }
}
