//! Line → key and value, and key → what it means.

/// What a key means. The first four are Google's; the rest are records that
/// other crawlers and later dialects rely on and that robocc keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// `User-agent`: starts or extends a group.
    UserAgent,
    /// `Allow`.
    Allow,
    /// `Disallow`.
    Disallow,
    /// `Sitemap`: global.
    Sitemap,
    /// `Crawl-delay`: per group.
    CrawlDelay,
    /// `Request-rate` (robots 2.0): per group.
    RequestRate,
    /// `Visit-time` (robots 2.0): per group.
    VisitTime,
    /// `Robot-version` (robots 2.0): per group.
    RobotVersion,
    /// `Comment` (robots 2.0): per group.
    Comment,
    /// `Content-Signal` (AI usage preferences): per group.
    ContentSignal,
    /// `Host` (Yandex): global.
    Host,
    /// `Clean-param` (Yandex): global.
    CleanParam,
    /// `License` (RSL 1.0, rslstandard.org): global, the site's license
    /// wherever the line stands.
    License,
    /// Anything else; kept with its text.
    Unknown,
}

impl KeyKind {
    /// Records that belong to the file rather than to a group.
    pub fn is_global(self) -> bool {
        matches!(
            self,
            KeyKind::Sitemap | KeyKind::Host | KeyKind::CleanParam | KeyKind::License
        )
    }
}

/// A classified key, with the misspelling Google accepted if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// What the key means.
    pub kind: KeyKind,
    /// The accepted typo (`"dissallow"`, …) when the key was one.
    pub typo: Option<&'static str>,
}

/// Google's prefix tests, in its order: a key *starting with* one of these
/// (case-insensitively) has that meaning, so `Disallowed:` is a disallow.
const GOOGLE_PREFIXES: &[(&str, KeyKind, bool)] = &[
    ("user-agent", KeyKind::UserAgent, false),
    ("useragent", KeyKind::UserAgent, true),
    ("user agent", KeyKind::UserAgent, true),
    ("allow", KeyKind::Allow, false),
    ("disallow", KeyKind::Disallow, false),
    ("dissallow", KeyKind::Disallow, true),
    ("dissalow", KeyKind::Disallow, true),
    ("disalow", KeyKind::Disallow, true),
    ("diasllow", KeyKind::Disallow, true),
    ("disallaw", KeyKind::Disallow, true),
    ("sitemap", KeyKind::Sitemap, false),
    ("site-map", KeyKind::Sitemap, true),
];

/// Other records, matched whole and case-insensitively (Google ignores them,
/// so no prefix or typo leniency is invented for them).
const OTHER_KEYS: &[(&str, KeyKind)] = &[
    ("crawl-delay", KeyKind::CrawlDelay),
    ("request-rate", KeyKind::RequestRate),
    ("visit-time", KeyKind::VisitTime),
    ("robot-version", KeyKind::RobotVersion),
    ("comment", KeyKind::Comment),
    ("content-signal", KeyKind::ContentSignal),
    ("host", KeyKind::Host),
    ("clean-param", KeyKind::CleanParam),
    ("license", KeyKind::License),
];

fn starts_with_ignore_case(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// How a line becomes key and value, and a key a meaning: the part of a
/// dialect that reads lines ([`crate::dialect::Semantics::line_grammar`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LineGrammar {
    /// Google's robotstxt library (rfc9309, acap): a key *starting with*
    /// `allow`, `disallow`, … has that meaning, with Google's typos
    /// (`Dissallow`); `key value` without a colon is read when it is exactly
    /// two tokens; any `#` starts a comment.
    #[default]
    Google,
    /// The 1996 draft's grammar (§3.3, draft1996): `Field ":" value`, a key
    /// means a field only when it is that field's whole name (compared
    /// ignoring case), a line without `:` is no line of the format, and any
    /// `#` starts a comment ("optional whitespace, followed by a comment
    /// character '#'", §3.2). Any other field is an extension, ignored.
    Draft,
    /// robots2: the draft's lines, except that "the "#" character can
    /// appear at any portion only after a blank (or whitespace) character,
    /// or at the start of a line": a `#` glued to a value is part of it.
    Robots2,
}

impl LineGrammar {
    /// Splits a line into key and value (see [`split_line`] for Google's
    /// reading; the draft's grammars need the colon).
    pub fn split(self, line: &[u8]) -> Result<(&[u8], &[u8]), NoPair> {
        match self {
            LineGrammar::Google => split_line(line),
            LineGrammar::Draft | LineGrammar::Robots2 => {
                let end = match self {
                    LineGrammar::Robots2 => memchr::memchr(0, line)
                        .unwrap_or(line.len())
                        .min(robots2_comment(line).unwrap_or(line.len())),
                    _ => memchr::memchr2(0, b'#', line).unwrap_or(line.len()),
                };
                let line = trim(&line[..end]);
                if line.is_empty() {
                    return Err(NoPair::Empty);
                }
                let i = memchr::memchr(b':', line).ok_or(NoPair::NoSeparator)?;
                let key = trim(&line[..i]);
                if key.is_empty() {
                    return Err(NoPair::EmptyKey);
                }
                Ok((key, trim(&line[i + 1..])))
            }
        }
    }

    /// What a (trimmed, non-empty) key means: Google's prefixes and typos,
    /// or, in the draft's grammars, whole field names only.
    pub fn classify(self, key: &[u8]) -> Key {
        if self == LineGrammar::Google {
            return classify(key);
        }
        let kind = GOOGLE_PREFIXES
            .iter()
            .filter(|&&(_, _, typo)| !typo)
            .map(|&(name, kind, _)| (name, kind))
            .chain(OTHER_KEYS.iter().copied())
            .find(|(name, _)| key.eq_ignore_ascii_case(name.as_bytes()))
            .map_or(KeyKind::Unknown, |(_, k)| k);
        Key { kind, typo: None }
    }
}

/// Where robots2's comment starts: the first `#` at the start of the line
/// or right after whitespace.
fn robots2_comment(line: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'#', line).find(|&i| i == 0 || is_space(line[i - 1]))
}

/// Classifies a (trimmed, non-empty) key as Google does.
pub fn classify(key: &[u8]) -> Key {
    // Google tests user-agent, then allow, then disallow, then sitemap; the
    // table keeps that order, typos right after their key.
    for &(prefix, kind, is_typo) in GOOGLE_PREFIXES {
        if starts_with_ignore_case(key, prefix) {
            return Key {
                kind,
                typo: is_typo.then_some(prefix),
            };
        }
    }
    let kind = OTHER_KEYS
        .iter()
        .find(|(name, _)| key.eq_ignore_ascii_case(name.as_bytes()))
        .map_or(KeyKind::Unknown, |&(_, k)| k);
    Key { kind, typo: None }
}

/// ASCII whitespace as absl's `StripAsciiWhitespace` sees it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_space(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_space(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// Why a line yields no key/value pair (for diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPair {
    /// Blank or comment-only.
    Empty,
    /// No `:` and not exactly two whitespace-separated tokens.
    NoSeparator,
    /// The key before the separator is empty.
    EmptyKey,
}

/// Splits a line into key and value as Google's `GetKeyAndValueFrom` does:
/// content ends at the first NUL (C-string semantics) and at the first `#`;
/// the key ends at the first `:`, or — when there is no colon — at the
/// whitespace between exactly two tokens (`Disallow /x`).
pub fn split_line(line: &[u8]) -> Result<(&[u8], &[u8]), NoPair> {
    let line = match memchr::memchr2(0, b'#', line) {
        Some(i) => &line[..i],
        None => line,
    };
    let line = trim(line);
    if line.is_empty() {
        return Err(NoPair::Empty);
    }
    let (key, value) = match memchr::memchr(b':', line) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => {
            let white = |b: &u8| *b == b' ' || *b == b'\t';
            let Some(i) = line.iter().position(white) else {
                return Err(NoPair::NoSeparator);
            };
            let value = &line[i..];
            let start = value.iter().position(|b| !white(b)).unwrap_or(value.len());
            if value[start..].iter().any(white) {
                return Err(NoPair::NoSeparator);
            }
            (&line[..i], value)
        }
    };
    let key = trim(key);
    if key.is_empty() {
        return Err(NoPair::EmptyKey);
    }
    Ok((key, trim(value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_typos() {
        assert_eq!(classify(b"Disallowed").kind, KeyKind::Disallow);
        assert_eq!(classify(b"DISSALOW").typo, Some("dissalow"));
        assert_eq!(classify(b"user agent").kind, KeyKind::UserAgent);
        assert_eq!(classify(b"useragent").kind, KeyKind::UserAgent);
        assert_eq!(classify(b"Site-map").kind, KeyKind::Sitemap);
        assert_eq!(classify(b"Allowance").kind, KeyKind::Allow);
        assert_eq!(classify(b"crawl-delay").kind, KeyKind::CrawlDelay);
        assert_eq!(classify(b"Crawl-delays").kind, KeyKind::Unknown);
        assert_eq!(classify(b"noindex").kind, KeyKind::Unknown);
    }

    #[test]
    fn draft_grammars_read_whole_field_names_with_a_colon() {
        for g in [LineGrammar::Draft, LineGrammar::Robots2] {
            assert_eq!(g.classify(b"DISALLOW").kind, KeyKind::Disallow);
            assert_eq!(g.classify(b"user-agent").kind, KeyKind::UserAgent);
            assert_eq!(g.classify(b"Visit-time").kind, KeyKind::VisitTime);
            for not_a_field in [&b"Disallowed"[..], b"Allowance", b"Dissallow", b"useragent"] {
                assert_eq!(
                    g.classify(not_a_field),
                    Key {
                        kind: KeyKind::Unknown,
                        typo: None
                    }
                );
            }
            assert_eq!(g.split(b"Disallow /x"), Err(NoPair::NoSeparator));
            assert_eq!(g.split(b" Allow : /a "), Ok((&b"Allow"[..], &b"/a"[..])));
            assert_eq!(g.split(b"  # c"), Err(NoPair::Empty));
        }
        // The draft: any `#`; robots2: only at the start or after whitespace.
        assert_eq!(
            LineGrammar::Draft.split(b"Disallow: /a#b"),
            Ok((&b"Disallow"[..], &b"/a"[..]))
        );
        let r2 = LineGrammar::Robots2;
        assert_eq!(
            r2.split(b"Disallow: /a#b"),
            Ok((&b"Disallow"[..], &b"/a#b"[..]))
        );
        assert_eq!(
            r2.split(b"Disallow: /a#b #c"),
            Ok((&b"Disallow"[..], &b"/a#b"[..]))
        );
        assert_eq!(
            r2.split(b"Disallow: /a\t#c"),
            Ok((&b"Disallow"[..], &b"/a"[..]))
        );
        assert_eq!(r2.split(b"#Disallow: /a"), Err(NoPair::Empty));
        assert_eq!(
            r2.split(b"Disallow: /a\0#b"),
            Ok((&b"Disallow"[..], &b"/a"[..]))
        );
    }

    #[test]
    fn split() {
        assert_eq!(
            split_line(b"  Disallow : /a # c"),
            Ok((&b"Disallow"[..], &b"/a"[..]))
        );
        assert_eq!(
            split_line(b"Disallow /x"),
            Ok((&b"Disallow"[..], &b"/x"[..]))
        );
        assert_eq!(
            split_line(b"Disallow \t /x"),
            Ok((&b"Disallow"[..], &b"/x"[..]))
        );
        assert_eq!(split_line(b"Disallow /x /y"), Err(NoPair::NoSeparator));
        assert_eq!(split_line(b"Disallow"), Err(NoPair::NoSeparator));
        assert_eq!(split_line(b": /x"), Err(NoPair::EmptyKey));
        assert_eq!(split_line(b"# only"), Err(NoPair::Empty));
        assert_eq!(
            split_line(b"Allow: /a\0/b"),
            Ok((&b"Allow"[..], &b"/a"[..]))
        );
        assert_eq!(
            split_line(b"Sitemap: http://x/y"),
            Ok((&b"Sitemap"[..], &b"http://x/y"[..]))
        );
        assert_eq!(split_line(b"Disallow:"), Ok((&b"Disallow"[..], &b""[..])));
    }
}
