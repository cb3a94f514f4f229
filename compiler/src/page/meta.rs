//! Stage 2: conventional Robots META / `X-Robots-Tag` directives
//! (`noindex`, `nofollow`, `none`, `noarchive`, `nosnippet`, `max-snippet`,
//! `unavailable_after`, …; `noai`, `noimageai` for the AI-usage preference
//! channels) as statements on usages and page qualifiers.

use super::{Qualifier, Statement, StatementKind};
use robocc_engine::Usage;

/// Directive names that take a `:value` (so that `max-snippet: 0` is not
/// read as an agent prefix in an `X-Robots-Tag` value).
pub(crate) const VALUED: &[&str] = &[
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
];

/// What a directive list says.
#[derive(Default)]
pub(crate) struct Directives {
    /// (usage, allowed, directive as written).
    pub rules: Vec<(Usage, bool, String)>,
    pub qualifiers: Vec<Qualifier>,
    /// Unknown directives and unreadable values.
    pub unknown: Vec<String>,
    /// `unavailable_after` instants (seconds since the epoch), as read.
    pub unavailable_after: Vec<(i64, String)>,
}

/// Reads a conventional directive list: names and values case-insensitive,
/// comma- or space-separated; `name:value` or `name: value`.
pub(crate) fn parse(content: &str) -> Directives {
    let mut d = Directives::default();
    let items: Vec<&str> = content.split(',').collect();
    let mut i = 0;
    while i < items.len() {
        let mut toks = items[i].split_ascii_whitespace().peekable();
        i += 1;
        while let Some(tok) = toks.next() {
            let (key, inline) = match tok.split_once(':') {
                Some((k, v)) => (k.to_ascii_lowercase(), Some(v)),
                None => (tok.to_ascii_lowercase(), None),
            };
            if key == "unavailable_after" {
                // The date is the rest of the item (it has spaces); an
                // RFC 850 date has a comma after the weekday: then the next
                // item too.
                let mut date = String::from(inline.unwrap_or(""));
                for t in toks.by_ref() {
                    date.push(' ');
                    date.push_str(t);
                }
                let mut date = date.trim().to_string();
                let mut at = parse_date(&date);
                if at.is_none() && i < items.len() {
                    let joined = format!("{date}, {}", items[i].trim());
                    if let Some(t) = parse_date(&joined) {
                        at = Some(t);
                        date = joined;
                        i += 1;
                    }
                }
                d.qualifiers
                    .push(Qualifier::new("unavailable_after", &date));
                match at {
                    Some(t) => d.unavailable_after.push((t, date)),
                    None => d
                        .unknown
                        .push(format!("unavailable_after: unreadable date {date:?}")),
                }
                continue;
            }
            let value = match inline {
                Some(v) if !v.is_empty() => Some(v.to_string()),
                Some(_) => toks.next().map(str::to_string),
                None => None,
            };
            let mut rule = |u: Usage, allowed: bool| d.rules.push((u, allowed, tok.to_string()));
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
                    d.qualifiers.push(Qualifier::new("max-snippet", v));
                    match v.trim().parse::<i64>() {
                        Ok(0) => rule(Usage::PresentSnippet, false),
                        Ok(_) => {}
                        Err(_) => d
                            .unknown
                            .push(format!("max-snippet: {v:?} is not a number")),
                    }
                }
                ("max-image-preview" | "max-video-preview", Some(v)) => {
                    d.qualifiers.push(Qualifier::new(&key, v));
                }
                ("noimageindex" | "notranslate" | "indexifembedded", None) => {
                    d.qualifiers.push(Qualifier::new(&key, ""));
                }
                _ => d.unknown.push(tok.to_string()),
            }
        }
    }
    d
}

/// The statements of a directive list.
pub(crate) fn statements(
    d: &Directives,
    named: bool,
    source: &super::Source,
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
            qualifiers: Vec::new(),
            written: written.clone(),
            source: source.clone(),
            reason: None,
        })
        .collect();
    if let Some(now) = now {
        for (t, date) in &d.unavailable_after {
            if *t <= now {
                out.push(Statement {
                    usage: Usage::Index,
                    allowed: false,
                    named,
                    kind: StatementKind::Conventional,
                    purpose: None,
                    qualifiers: Vec::new(),
                    written: format!("unavailable_after: {date}"),
                    source: source.clone(),
                    reason: Some(super::Reason::UnavailableAfter),
                });
            }
        }
    }
    out
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn month(s: &str) -> Option<i64> {
    const M: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let s = s.to_ascii_lowercase();
    M.iter()
        .position(|m| s.starts_with(m))
        .map(|i| i as i64 + 1)
}

fn hms(s: &str) -> Option<i64> {
    let mut p = s.split(':');
    let h: i64 = p.next()?.parse().ok()?;
    let m: i64 = p.next().unwrap_or("0").parse().ok()?;
    let sec: f64 = p.next().unwrap_or("0").parse().ok()?;
    if p.next().is_some() || h > 24 || m > 59 || !(0.0..61.0).contains(&sec) {
        return None;
    }
    Some(h * 3600 + m * 60 + sec as i64)
}

/// A zone as an offset in seconds east of UTC.
fn zone(s: &str) -> Option<i64> {
    let u = s.to_ascii_uppercase();
    let named = match u.as_str() {
        "" | "Z" | "GMT" | "UTC" | "UT" => Some(0),
        "EST" => Some(-5),
        "EDT" | "CST" => Some(if u == "EDT" { -4 } else { -6 }),
        "CDT" | "MST" => Some(if u == "CDT" { -5 } else { -7 }),
        "MDT" | "PST" => Some(if u == "MDT" { -6 } else { -8 }),
        "PDT" => Some(-7),
        _ => None,
    };
    if let Some(h) = named {
        return Some(h * 3600);
    }
    let (sign, rest) = match u.as_bytes().first()? {
        b'+' => (1, &u[1..]),
        b'-' => (-1, &u[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i64 = digits[..2].parse().ok()?;
    let m: i64 = digits[2..].parse().ok()?;
    Some(sign * (h * 3600 + m * 60))
}

/// Seconds since the epoch of an RFC 3339 / ISO 8601 date or date-time
/// (`2026-07-01`, `2026-07-01T12:00:00Z`, `2026-07-01 12:00:00+02:00`), an
/// RFC 822/1123 date (`[Wed, ]25 Jun 2026 15:00:00 GMT`) or an RFC 850 date
/// (`Wednesday, 25-Jun-26 15:00:00 GMT`); `None` for anything else.
pub fn parse_date(s: &str) -> Option<i64> {
    let s = s.trim();
    iso(s).or_else(|| rfc822(s))
}

fn iso(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y: i64 = s.get(..4)?.parse().ok()?;
    let m: i64 = s.get(5..7)?.parse().ok()?;
    let d: i64 = s.get(8..10)?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let day = days_from_civil(y, m, d).checked_mul(86_400)?;
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(day);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let zpos = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
    let t = hms(rest[..zpos].split('.').next()?)?;
    let z = if zpos == rest.len() || rest[zpos..].eq_ignore_ascii_case("z") {
        0
    } else {
        zone(&rest[zpos..])?
    };
    day.checked_add(t)?.checked_sub(z)
}

fn rfc822(s: &str) -> Option<i64> {
    // Drop a weekday ("Wed," / "Wednesday,").
    let s = match s.split_once(',') {
        Some((_, rest)) => rest.trim(),
        None => s,
    };
    let mut parts = s.split_ascii_whitespace();
    let date = parts.next()?;
    let (d, m, y) = if date.contains('-') {
        // RFC 850: 25-Jun-26
        let mut p = date.split('-');
        let d: i64 = p.next()?.parse().ok()?;
        let m = month(p.next()?)?;
        let y = year(p.next()?)?;
        (d, m, y)
    } else {
        let d: i64 = date.parse().ok()?;
        let m = month(parts.next()?)?;
        let y = year(parts.next()?)?;
        (d, m, y)
    };
    let y = match y {
        0..=49 => 2000 + y,
        50..=99 => 1900 + y,
        _ => y,
    };
    if !(1..=31).contains(&d) {
        return None;
    }
    let t = match parts.next() {
        Some(t) => hms(t)?,
        None => 0,
    };
    let z = zone(parts.next().unwrap_or(""))?;
    if parts.next().is_some() {
        return None;
    }
    days_from_civil(y, m, d)
        .checked_mul(86_400)?
        .checked_add(t)?
        .checked_sub(z)
}

/// A year of at most four digits (no sign): a longer one is no date a
/// page means, and would overflow the arithmetic (docs/dialects.md).
fn year(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
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
    }
}
