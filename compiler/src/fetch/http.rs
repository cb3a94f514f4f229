//! The HTTP pieces the fetch rules read: dates (RFC 9110 §5.6.7),
//! `Cache-Control` and `Expires` freshness (RFC 9111 §4.2.1),
//! `Retry-After` (RFC 9110 §10.2.3), and URLs: origins and `Location`
//! references made absolute (RFC 3986 §5.2).

/// An HTTP-date as Unix seconds: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37
/// GMT`), and the obsolete RFC 850 and asctime forms a recipient must
/// accept (RFC 9110 §5.6.7). `None` for anything else.
pub fn parse_http_date(value: &str) -> Option<u64> {
    let mut month = None;
    let mut time = None;
    let mut numbers = [0u64; 2];
    let mut seen = 0;
    for token in value.split([' ', ',', '-', '\t']).filter(|t| !t.is_empty()) {
        if token.contains(':') {
            let mut parts = token.split(':').map(|p| p.parse::<u64>().ok());
            let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
            if parts.next().is_some() || h > 23 || m > 59 || s > 60 {
                return None;
            }
            time = Some(h * 3600 + m * 60 + s);
        } else if token.bytes().all(|b| b.is_ascii_digit()) {
            if seen == 2 || token.len() > 4 {
                return None;
            }
            numbers[seen] = token.parse().ok()?;
            seen += 1;
        } else if let Some(m) = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(token)) {
            month = Some(m as u64 + 1);
        }
        // Weekday names and `GMT` are read past (the weekday is redundant).
    }
    let [day, year] = numbers;
    let (month, time) = (month?, time?);
    if seen != 2 || !(1..=31).contains(&day) {
        return None;
    }
    // RFC 850's two-digit years: the RFC's rule reads a year more than 50
    // years ahead as past; relative to the 2000s, `70`-`99` are 19xx.
    let year = match year {
        0..=69 => 2000 + year,
        70..=99 => 1900 + year,
        1970.. => year,
        _ => return None,
    };
    Some(days_from_civil(year, month, day)? * 86_400 + time)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`), for dates from 1970 on.
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// What `Cache-Control` says about storing a response: `no-store` or
/// `no-cache` (both: fetch again before using it), or `max-age` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheControl {
    /// `no-store` or `no-cache`.
    DoNotReuse,
    /// `max-age=N`.
    MaxAge(u64),
}

/// Reads `Cache-Control` (RFC 9111 §5.2.2): `no-store`/`no-cache` win over
/// `max-age`; a malformed `max-age` is ignored (as if absent). `s-maxage`
/// is for shared caches and a crawler's is private to it: ignored.
pub fn cache_control(value: &str) -> Option<CacheControl> {
    let mut max_age = None;
    for directive in value.split(',') {
        let (name, arg) = match directive.split_once('=') {
            Some((n, a)) => (n.trim(), Some(a.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
            return Some(CacheControl::DoNotReuse);
        }
        if name.eq_ignore_ascii_case("max-age") {
            max_age = arg.and_then(delta_seconds).or(max_age);
        }
    }
    max_age.map(CacheControl::MaxAge)
}

/// `delta-seconds` (RFC 9111 §1.2.2): digits; values past `u64` saturate.
fn delta_seconds(value: &str) -> Option<u64> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(value.parse().unwrap_or(u64::MAX))
}

/// `Retry-After` (RFC 9110 §10.2.3) as seconds from `now`: delay-seconds,
/// or an HTTP-date (measured against the response's `Date` when it has
/// one, as the server's clock may differ from the crawler's). A date in
/// the past is 0 seconds.
pub fn retry_after(value: &str, date: Option<&str>, now: u64) -> Option<u64> {
    let value = value.trim();
    if let Some(secs) = delta_seconds(value) {
        return Some(secs);
    }
    let at = parse_http_date(value)?;
    let base = date.and_then(parse_http_date).unwrap_or(now);
    Some(at.saturating_sub(base))
}

/// `Expires` (RFC 9111 §5.3) as a freshness lifetime in seconds: the date
/// less the response's `Date` (else `now`). An invalid date (`0`, `-1`)
/// means already expired, as the RFC says.
pub fn expires(value: &str, date: Option<&str>, now: u64) -> u64 {
    match parse_http_date(value) {
        Some(at) => at.saturating_sub(date.and_then(parse_http_date).unwrap_or(now)),
        None => 0,
    }
}

/// A URL's origin, as the fetch rules compare them: scheme, host and port
/// (the scheme's default when none is written), lowercased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// `http`, `https`, …
    pub scheme: String,
    /// The host, without userinfo or port.
    pub host: String,
    /// The port (80 for http, 443 for https when not written).
    pub port: Option<u16>,
}

impl Origin {
    /// The origin of an absolute URL (`scheme://authority…`); `None` when
    /// it has no scheme or host, or an invalid port.
    pub fn of(url: &str) -> Option<Origin> {
        let (scheme, rest) = url.split_once("://")?;
        if scheme.is_empty()
            || !scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        {
            return None;
        }
        let scheme = scheme.to_ascii_lowercase();
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        // `[v6]:port`, `host:port`, `host`.
        let (host, port) = match hostport.rfind(':') {
            Some(i) if !hostport[i..].contains(']') => (&hostport[..i], Some(&hostport[i + 1..])),
            _ => (hostport, None),
        };
        if host.is_empty() {
            return None;
        }
        let port = match port {
            None | Some("") => default_port(&scheme),
            Some(p) => Some(p.parse::<u16>().ok()?),
        };
        Some(Origin {
            host: host.to_ascii_lowercase(),
            port,
            scheme,
        })
    }

    /// `other` is this origin, or this origin's `https` upgrade (`http` to
    /// `https`, the same host, default ports): the one redirect across
    /// origins a same-origin crawler still follows, as StormCrawler does
    /// (apache/stormcrawler PR 2077); `https` to `http` is not.
    pub fn same_or_upgrade(&self, other: &Origin) -> bool {
        self == other
            || (self.scheme == "http"
                && other.scheme == "https"
                && self.host == other.host
                && self.port == Some(80)
                && other.port == Some(443))
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `location` made absolute against `base` (an absolute URL), as a browser
/// resolves it (RFC 3986 §5.2, dot segments removed).
pub fn resolve(location: &str, base: &str) -> String {
    let location = location.trim();
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, base_path) = rest.split_at(authority_end);
    let base_path = &base_path[..base_path.find(['?', '#']).unwrap_or(base_path.len())];
    let split = location.find(['?', '#']).unwrap_or(location.len());
    let (path, tail) = location.split_at(split);
    let merged = if path.is_empty() {
        // "?x" or "#x": the base path with the reference's query.
        if base_path.is_empty() {
            "/".to_string()
        } else {
            base_path.to_string()
        }
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
        if dir.is_empty() {
            format!("/{path}")
        } else {
            format!("{dir}{path}")
        }
    };
    format!(
        "{scheme}://{authority}{}{tail}",
        remove_dot_segments(&merged)
    )
}

/// RFC 3986 §5.2.4 on an absolute path.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, s) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *s {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// Whether a URL (`scheme://authority…` or `//authority…`) names a host's
/// robots.txt: its path, before any `?` or `#`, is exactly `/robots.txt`
/// (RFC 9309 §2.3).
pub fn is_robots_txt_url(url: &str) -> bool {
    let rest = match url.split_once("://") {
        Some((_, rest)) => rest,
        None => match url.strip_prefix("//") {
            Some(rest) => rest,
            None => return false,
        },
    };
    let Some(start) = rest.find(['/', '?', '#', ';']) else {
        return false;
    };
    let path = &rest[start..];
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end] == "/robots.txt"
}
