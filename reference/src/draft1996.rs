//! An independent oracle for `--dialect draft1996`: Koster's 1996
//! Internet-Draft (`../shared/specs/datatxt-and-1996-draft.txt`), written
//! from its text and from docs/dialects.md, sharing with the compiler only
//! its input stage (UTF-16 decoding) and its parser.
//!
//! It does not use `dialect`, `glob`, `ruleset`, `lower`, the pattern
//! normalisers or `agent::select_first_record`: the record choice, the
//! decoding, prefix matching and the rule order are all written again here,
//! plainly, so that a ranking or decoding bug in the compiler cannot hide
//! behind a reference matcher that makes the same mistake. The differential
//! and conformance tests compare the compiled engine with it.
//!
//! What the draft says, and how each sentence is read:
//!
//! * **Records.** "The format logically consists of a non-empty set or
//!   records, separated by blank lines" (§3.2), and the grammar (§3.3) is
//!   `record = *commentline agentline *(commentline | agentline) 1*ruleline
//!   *(commentline | ruleline)` with `ruleline = (disallowline | allowline |
//!   extension)`, each line `Field ":" value`. The file is read by the shared
//!   parser with, whatever the caller passed,
//!   [`ParseOptions::blank_lines_end_records`] and
//!   [`ParseOptions::records_close_groups`] on (an extension line after the
//!   user-agent lines is a rule line: a user-agent line after it starts a
//!   new record) and [`LineGrammar::Draft`] (whole field names, a colon,
//!   `#` starts a comment); its groups are the draft's records
//!   (docs/dialects.md explains the liberal reading of files that do not
//!   separate records).
//! * **Which record.** "The robot must obey the first record in /robots.txt
//!   that contains a User-Agent line whose value contains the name token of
//!   the robot as a substring. The name comparisons are case-insensitive. If
//!   no such record exists, it should obey the first record with a
//!   User-agent line with a "*" value, if present. If no record satisfied
//!   either condition, or no records are present at all, access is
//!   unlimited." (§3.2.1) — see [`select_record`]. One record only: records
//!   are never merged. An empty name names no record.
//! * **Which rule.** "To evaluate if access to a URL is allowed, a robot must
//!   attempt to match the paths in Allow and Disallow lines against the URL,
//!   in the order they occur in the record. The first match found is used.
//!   If no match is found, the default assumption is that the URL is
//!   allowed." (§3.2.2) A line with an empty value is no rule: the §4
//!   example's `Disallow:` gives webcrawler and excite every URL.
//! * **Matching.** "The matching process compares every octet in the path
//!   portion of the URL and the path from the record. If a %xx encoded octet
//!   is encountered it is unencoded prior to comparison, unless it is the "/"
//!   character, which has special meaning in a path. The match evaluates
//!   positively if and only if the end of the path from the record is reached
//!   before a difference in octets is encountered." (§3.2.2) — a plain prefix
//!   test on decoded octets, `*` and `$` being ordinary characters; see
//!   [`decode`] for the two ways of writing the decoded form.
//! * **Always allowed.** "The /robots.txt URL is always allowed" (§3.2.2):
//!   exactly the path `/robots.txt` (decoded; `/robots.txt?x` is judged by
//!   the rules), or `/data.txt` for the data.txt variant (its §3.1), when
//!   [`OracleOptions::self_allowed`] is set.
//!
//! The path of a URL is Google's `GetPathParamsQuery` as the rfc9309
//! oracle writes it ([`crate::rfc9309::path_params_query`], tested against
//! Google's table), cut at the first `#` and the first NUL, as the engine
//! reads it.

use robocc_compiler::parse::{parse, LineGrammar, ParseOptions, RobotsTxt, Rule, RuleKind};
use robocc_engine::UrlMode;

/// One unit of a decoded path or pattern: an octet (`0..=255`) or
/// [`ENCODED_SLASH`].
pub type Sym = u16;

/// A `%2F` (any case) read with [`Escapes::Octets`]: the octet `/` kept
/// encoded, so distinct from a `/` written as such.
pub const ENCODED_SLASH: Sym = 256;

/// How the decoded form is written — the two readings of "unencoded prior to
/// comparison, unless it is the "/" character".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Escapes {
    /// docs/dialects.md's canonical form, the one the engine compares: every
    /// escape decoded except `%2F`, `%25`, `%23` and `%00`, which stay three
    /// octets with upper-case hex (`%2f` → `%2F`); a `%` that starts no escape
    /// becomes `%25`; a raw `#` or NUL in a pattern becomes `%23` / `%00`.
    #[default]
    Canonical,
    /// The draft's words taken literally: every escape is one decoded octet
    /// (`%25` is `%`, `%23` is `#`), a stray `%` is the octet `%`, and `%2F`
    /// is one octet, [`ENCODED_SLASH`], distinct from `/`.
    ///
    /// For prefix and exact matches the two readings always agree (the
    /// canonical form is an injective, prefix-preserving spelling of the
    /// octets). They differ only for robots2 wildcards — `?` and `[...]`
    /// match one octet of the decoded form, so `/?` matches `/%25` here but
    /// not in the canonical form, where `%25` is three octets.
    Octets,
}

/// What shapes a verdict besides the file, the agent and the URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OracleOptions {
    /// Parse limits; [`ParseOptions::blank_lines_end_records`] is always
    /// turned on (the draft's records).
    pub parse: ParseOptions,
    /// The file's own path is always allowed (`CompileOptions::robots_txt_allowed`).
    pub self_allowed: bool,
    /// The file is a /data.txt: its own path is `/data.txt`.
    pub data_txt: bool,
    /// How the decoded form is written.
    pub escapes: Escapes,
}

impl Default for OracleOptions {
    fn default() -> OracleOptions {
        OracleOptions {
            parse: ParseOptions::records(),
            self_allowed: true,
            data_txt: false,
            escapes: Escapes::default(),
        }
    }
}

/// An oracle's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OracleVerdict {
    /// May the URL be fetched?
    pub allowed: bool,
    /// Source line of the deciding rule: `Some(0)` when the implicit allow
    /// of the file's own path decided, `None` when no rule matched.
    pub line: Option<u32>,
}

impl OracleVerdict {
    /// Nothing matched: "the default assumption is that the URL is allowed".
    pub const DEFAULT: OracleVerdict = OracleVerdict {
        allowed: true,
        line: None,
    };

    /// The file's own path: always allowed.
    pub const SELF_PATH: OracleVerdict = OracleVerdict {
        allowed: true,
        line: Some(0),
    };
}

/// Parses `robots` as the draft's records, its lines read by `grammar`
/// (robots2 changes only where a comment starts).
pub(crate) fn parse_records<'a>(
    robots: &'a [u8],
    opts: &OracleOptions,
    grammar: LineGrammar,
) -> RobotsTxt<'a> {
    let parse_options = ParseOptions {
        blank_lines_end_records: true,
        records_close_groups: true,
        line_grammar: grammar,
        ..opts.parse.clone()
    };
    parse(robots, &parse_options)
}

/// Reads `robots` (UTF-16 decoded, as the compiler's input stage reads
/// it) as the draft's records with `grammar`, chooses the record robot
/// `name` obeys ([`select_record`]) and hands both to `read`.
pub(crate) fn with_record<R>(
    robots: &[u8],
    name: &str,
    opts: &OracleOptions,
    grammar: LineGrammar,
    read: impl FnOnce(&RobotsTxt<'_>, Option<usize>) -> R,
) -> R {
    let input = robocc_compiler::input::read(robots);
    let file = parse_records(&input.text, opts, grammar);
    let record = select_record(&file, name);
    read(&file, record)
}

/// The Allow and Disallow lines of `record` with a value (an empty one is
/// no rule), in file order; none without a record.
pub(crate) fn record_rules<'f, 'a>(
    file: &'f RobotsTxt<'a>,
    record: Option<usize>,
) -> impl Iterator<Item = &'f Rule<'a>> {
    record
        .into_iter()
        .flat_map(|g| &file.groups[g].rules)
        .filter(|r| !r.raw.is_empty())
}

fn ascii_lower(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(u8::to_ascii_lowercase).collect()
}

/// The record (group index) that `name` obeys, per §3.2.1: the first record
/// with a User-agent value containing `name`, ignoring ASCII case; else the
/// first record with a User-agent value `*`; else none.
pub fn select_record(robots: &RobotsTxt<'_>, name: &str) -> Option<usize> {
    let needle = ascii_lower(name.as_bytes());
    let names_robot = |value: &[u8]| {
        let hay = ascii_lower(value);
        !needle.is_empty()
            && hay.len() >= needle.len()
            && (0..=hay.len() - needle.len()).any(|at| hay[at..at + needle.len()] == needle[..])
    };
    let first_where = |pred: &dyn Fn(&[u8]) -> bool| {
        robots
            .groups
            .iter()
            .position(|record| record.agents.iter().any(|line| pred(line.value)))
    };
    first_where(&names_robot).or_else(|| first_where(&|value| value == b"*"))
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(10 + b - b'a'),
        b'A'..=b'F' => Some(10 + b - b'A'),
        _ => None,
    }
}

/// Decodes a URL path or the literal part of a pattern, written as
/// `escapes` says.
pub fn decode(bytes: &[u8], escapes: Escapes) -> Vec<Sym> {
    let mut out: Vec<Sym> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // An escape is `%` and two hex digits; anything else is one octet.
        let escape = match bytes[i..] {
            [b'%', hi, lo, ..] => hex_digit(hi).zip(hex_digit(lo)).map(|(h, l)| h * 16 + l),
            _ => None,
        };
        let (octet, was_escaped) = match escape {
            Some(v) => {
                i += 3;
                (v, true)
            }
            None => {
                i += 1;
                (bytes[i - 1], false)
            }
        };
        match escapes {
            Escapes::Octets => out.push(if was_escaped && octet == b'/' {
                ENCODED_SLASH
            } else {
                Sym::from(octet)
            }),
            Escapes::Canonical => {
                // Stays written as an escape: an escaped `/`, and every `%`,
                // `#` and NUL however written (a raw `%` here starts no
                // escape, and a raw `#` or NUL can only be in a pattern).
                let kept = (was_escaped && octet == b'/') || matches!(octet, b'%' | b'#' | 0);
                if kept {
                    let digits = b"0123456789ABCDEF";
                    out.extend(
                        [
                            b'%',
                            digits[usize::from(octet / 16)],
                            digits[usize::from(octet % 16)],
                        ]
                        .map(Sym::from),
                    );
                } else {
                    out.push(Sym::from(octet));
                }
            }
        }
    }
    out
}

/// The path of `url` as the draft's robot compares it (before decoding):
/// `path;params?query`, cut at the first `#` and at the first NUL.
pub fn url_path(url: &[u8]) -> Vec<u8> {
    crate::rfc9309::matched_path(url, UrlMode::Google)
}

/// The decoded path of the file itself, when it is always allowed.
pub(crate) fn self_path(opts: &OracleOptions) -> Option<Vec<Sym>> {
    let path: &[u8] = if opts.data_txt {
        b"/data.txt"
    } else {
        b"/robots.txt"
    };
    opts.self_allowed.then(|| decode(path, opts.escapes))
}

/// An Allow or Disallow line of the chosen record, as a decoded prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PrefixRule {
    allow: bool,
    prefix: Vec<Sym>,
    line: u32,
}

/// The draft1996 oracle for one file and one robot.
#[derive(Clone, Debug)]
pub struct Draft1996Oracle {
    record: Option<usize>,
    rules: Vec<PrefixRule>,
    self_path: Option<Vec<Sym>>,
    escapes: Escapes,
}

impl Draft1996Oracle {
    /// Reads `robots` and chooses the record robot `name` obeys.
    pub fn new(robots: &[u8], name: &str, opts: &OracleOptions) -> Draft1996Oracle {
        let (record, rules) =
            with_record(robots, name, opts, LineGrammar::Draft, |file, record| {
                let rules = record_rules(file, record)
                    .map(|r| PrefixRule {
                        allow: r.kind == RuleKind::Allow,
                        prefix: decode(r.raw, opts.escapes),
                        line: r.line,
                    })
                    .collect();
                (record, rules)
            });
        Draft1996Oracle {
            record,
            rules,
            self_path: self_path(opts),
            escapes: opts.escapes,
        }
    }

    /// Index of the chosen record among the parsed groups, if any.
    pub fn record(&self) -> Option<usize> {
        self.record
    }

    /// The verdict for `url` (absolute, or a path).
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        let path = decode(&url_path(url), self.escapes);
        if self.self_path.as_deref() == Some(&path[..]) {
            return OracleVerdict::SELF_PATH;
        }
        self.rules
            .iter()
            .find(|r| path.starts_with(&r.prefix))
            .map_or(OracleVerdict::DEFAULT, |r| OracleVerdict {
                allowed: r.allow,
                line: Some(r.line),
            })
    }
}

/// One-shot form of [`Draft1996Oracle`]: parses `robots` and checks `url`.
pub fn check(robots: &[u8], name: &str, opts: &OracleOptions, url: &[u8]) -> OracleVerdict {
    Draft1996Oracle::new(robots, name, opts).check(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(syms: &[Sym]) -> String {
        syms.iter()
            .map(|&s| {
                if s == ENCODED_SLASH {
                    "<%2F>".to_string()
                } else {
                    char::from(s as u8).to_string()
                }
            })
            .collect()
    }

    #[test]
    fn decoding_in_both_readings() {
        let c = |s: &str| text(&decode(s.as_bytes(), Escapes::Canonical));
        let o = |s: &str| text(&decode(s.as_bytes(), Escapes::Octets));
        assert_eq!(c("/a%3cd.html"), "/a<d.html");
        assert_eq!(c("/a%2fb"), "/a%2Fb");
        assert_eq!(o("/a%2fb"), "/a<%2F>b");
        assert_eq!(c("/%7Ejoe"), "/~joe");
        assert_eq!(c("/100%"), "/100%25");
        assert_eq!(o("/100%"), "/100%");
        assert_eq!(c("/%25%23%00"), "/%25%23%00");
        assert_eq!(o("/%25%23"), "/%#");
        assert_eq!(c("/%4"), "/%254");
        assert_eq!(c("/%%41"), "/%25A");
        assert_eq!(c("#"), "%23");
    }

    /// §3.2.2's table, row by row.
    #[test]
    fn path_table() {
        let rows = [
            ("/tmp", "/tmp", true),
            ("/tmp", "/tmp.html", true),
            ("/tmp", "/tmp/a.html", true),
            ("/tmp/", "/tmp", false),
            ("/tmp/", "/tmp/", true),
            ("/tmp/", "/tmp/a.html", true),
            ("/a%3cd.html", "/a%3cd.html", true),
            ("/a%3Cd.html", "/a%3cd.html", true),
            ("/a%3cd.html", "/a%3Cd.html", true),
            ("/a%3Cd.html", "/a%3Cd.html", true),
            ("/a%2fb.html", "/a%2fb.html", true),
            ("/a%2fb.html", "/a/b.html", false),
            ("/a/b.html", "/a%2fb.html", false),
            ("/a/b.html", "/a/b.html", true),
            ("/%7ejoe/index.html", "/~joe/index.html", true),
            ("/~joe/index.html", "/%7Ejoe/index.html", true),
        ];
        for escapes in [Escapes::Canonical, Escapes::Octets] {
            let opts = OracleOptions {
                escapes,
                ..OracleOptions::default()
            };
            for (record, url, matches) in rows {
                let body = format!("User-agent: *\nDisallow: {record}\n");
                let v = check(body.as_bytes(), "bot", &opts, url.as_bytes());
                assert_eq!(!v.allowed, matches, "{record} vs {url} ({escapes:?})");
            }
        }
    }

    /// §4's matrix for www.fict.org.
    #[test]
    fn fict_org() {
        let body = b"User-agent: unhipbot\nDisallow: /\n\nUser-agent: webcrawler\nUser-agent: excite\nDisallow: \n\nUser-agent: *\nDisallow: /org/plans.html\nAllow: /org/\nAllow: /serv\nAllow: /~mak\nDisallow: /\n";
        let urls = [
            "/",
            "/index.html",
            "/robots.txt",
            "/server.html",
            "/services/fast.html",
            "/services/slow.html",
            "/orgo.gif",
            "/org/about.html",
            "/org/plans.html",
            "/%7Ejim/jim.html",
            "/%7Emak/mak.html",
        ];
        let table: [(&str, &str); 4] = [
            ("unhipbot", "NNYNNNNNNNN"),
            ("webcrawler", "YYYYYYYYYYY"),
            ("excite", "YYYYYYYYYYY"),
            ("other", "NNYYYYNYNNY"),
        ];
        for (bot, row) in table {
            let oracle = Draft1996Oracle::new(body, bot, &OracleOptions::default());
            for (url, want) in urls.iter().zip(row.chars()) {
                let v = oracle.check(format!("http://www.fict.org{url}").as_bytes());
                assert_eq!(v.allowed, want == 'Y', "{bot} {url}");
            }
        }
        let other = Draft1996Oracle::new(body, "other", &OracleOptions::default());
        assert_eq!(other.check(b"/robots.txt"), OracleVerdict::SELF_PATH);
        assert_eq!(
            other.check(b"/org/plans.html").line,
            Some(9),
            "the first match decides"
        );
    }

    #[test]
    fn record_choice() {
        let body = b"User-agent: *\nDisallow: /a\n\nUser-agent: Webcrawler-Plus\nDisallow: /b\n\nUser-agent: webcrawler\nDisallow: /c\n";
        let file = parse(body, &ParseOptions::records());
        assert_eq!(select_record(&file, "WebCrawler"), Some(1));
        assert_eq!(select_record(&file, "crawl"), Some(1));
        assert_eq!(select_record(&file, "other"), Some(0));
        assert_eq!(select_record(&file, ""), Some(0));
        let named_only = parse(b"User-agent: x\nDisallow: /\n", &ParseOptions::records());
        assert_eq!(select_record(&named_only, "other"), None);
        let star_prefix = parse(b"User-agent: *bot\nDisallow: /\n", &ParseOptions::records());
        assert_eq!(
            select_record(&star_prefix, "other"),
            None,
            "`*` is the whole value"
        );
    }

    #[test]
    fn literal_star_dollar_and_self_paths() {
        let body = b"User-agent: *\nDisallow: /a*\nDisallow: /b$\nDisallow: /\n";
        let o = Draft1996Oracle::new(body, "x", &OracleOptions::default());
        assert_eq!(o.check(b"/a*x").line, Some(2));
        assert_eq!(o.check(b"/ax").line, Some(4));
        assert_eq!(o.check(b"/b$").line, Some(3));
        assert_eq!(o.check(b"/%72obots.txt"), OracleVerdict::SELF_PATH);
        assert_eq!(o.check(b"/robots.txt?x").line, Some(4));
        let data = OracleOptions {
            data_txt: true,
            ..OracleOptions::default()
        };
        let o = Draft1996Oracle::new(body, "x", &data);
        assert_eq!(o.check(b"/data.txt"), OracleVerdict::SELF_PATH);
        assert!(!o.check(b"/robots.txt").allowed);
        let none = OracleOptions {
            self_allowed: false,
            ..OracleOptions::default()
        };
        assert!(!check(body, "x", &none, b"/robots.txt").allowed);
    }

    #[test]
    fn fragment_and_nul_end_the_path() {
        let body = b"User-agent: *\nDisallow: /a%23\nDisallow: /b%00\nAllow: /\n";
        let o = Draft1996Oracle::new(body, "x", &OracleOptions::default());
        assert_eq!(o.check(b"/a#frag").line, Some(4));
        assert_eq!(o.check(b"/a%23").line, Some(2));
        assert_eq!(o.check(b"/b\0x").line, Some(4));
        assert_eq!(o.check(b"/b%00").line, Some(3));
    }
}
