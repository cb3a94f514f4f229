//! An independent oracle for `--dialect robots2`: the proposed "robots.txt
//! 2.0" extended standard (`../shared/specs/robots-2.0-extended-standard.txt`)
//! as docs/dialects.md resolves it, sharing with the compiler only its input
//! stage and its parser (and, with draft1996's oracle, the record choice and
//! decoding).
//!
//! * **Records and agents.** "The method hasn't changed between Version 1.0
//!   and Version 2.0": records and the record a robot obeys are the 1996
//!   draft's ([`super::draft1996::select_record`]), and URLs
//!   are decoded as there ([`decode`]).
//! * **Comments.** "Any text following a "#" up to the end of a line is
//!   to be ignored. The "#" character can appear at any portion only after
//!   a blank (or whitespace) character, or at the start of a line": the
//!   lines are read with [`LineGrammar::Robots2`], so `Disallow: /a#b` is
//!   the path `/a#b` (a URL carries that `#` as `%23`).
//! * **Robot-version.** "This will follow the User-agent: header. If it does
//!   not immediately follow, or is missing, then the robot is to assume the
//!   rule set follows the Version 1.0 standard." and "Only one
//!   Robot-version: header per rule set is allowed." The record's first
//!   Robot-version line counts only when no other directive — a rule, or any
//!   other record, the file-level Sitemap/Host/Clean-param included — stands
//!   between it and the user-agent line it follows (comments, blank and
//!   unreadable lines are not directives); later ones are ignored. Its value
//!   is `major.minor[.rest]` in digits: major 2 with an even minor is 2.0 ("a
//!   higher version number than its looking for is okay" when "the second
//!   digit is even"); an odd minor is experimental ("should probably ignore
//!   that rule set and use the default", read as 1.0); anything else is 1.0.
//! * **1.0 rule sets.** General matches "are treated as if they contain the
//!   character "*" … at the end of the string" — a prefix — and rules are
//!   "processed in the order they appear in the rule set": the first match
//!   decides, exactly as in the 1996 draft (`*`, `?`, `[` are ordinary
//!   characters there).
//! * **2.0 rule sets.** A value containing `*`, `?` or `[` is a wildcard
//!   pattern, "compatible with that used by /bin/sh", matched against the
//!   whole decoded path with its query: `*` any run, `?` one octet,
//!   `[...]` one octet of a class (`!` or `^` first negates, `a-z` a range —
//!   empty when reversed, `]` first is a member, `\x` is `x`, a `[` that is
//!   never closed is a literal `[`), `\x` outside a class a literal `x`, and
//!   the literal runs between them decoded. Any other value is an explicit
//!   match, which "must match all the characters present exactly".
//! * **Precedence.** "explicit allows have a higher precedence than a
//!   disallow rule. Disallow rules have a higher precedence than regular
//!   expression allow rules", and a wildcard Allow "only grants the robot
//!   permission to retrieve the URLs matching only if any disallow rules do
//!   not filter out the URL". docs/dialects.md adds one refinement the
//!   example site requires: a Disallow that matches every path (the
//!   examples' `Disallow: *`, "nothing else will be allowed") is the rule
//!   set's default and ranks below the wildcard Allows. So, highest first:
//!   explicit Allow, Disallow, wildcard Allow, catch-all Disallow; within a
//!   class the first in file order; "If a URL is not covered by any allow or
//!   disallow rules, then the URL is to be allowed". See [`Precedence`];
//!   "matches every path" is decided exactly
//!   ([`Pattern::matches_every_path`]): `*`, `/*`, `**`, but also `*/*`,
//!   `?*`, `*?`, `[!a]*`.
//! * **Always allowed.** The file's own path, exactly, above every rule.

use super::draft1996::{
    decode, record_rules, self_path, url_path, with_record, Escapes, OracleOptions, OracleVerdict,
    Sym, ENCODED_SLASH,
};
use robocc_compiler::parse::keys::KeyKind;
use robocc_compiler::parse::{LineGrammar, RobotsTxt, RuleKind};

/// The precedence classes of a 2.0 rule set, highest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precedence {
    /// An Allow with an explicit (exact) pattern.
    ExplicitAllow,
    /// A Disallow, explicit or wildcard, that is not the catch-all.
    Disallow,
    /// An Allow with a wildcard pattern.
    WildcardAllow,
    /// A Disallow that matches every path: the rule set's catch-all.
    CatchAllDisallow,
}

/// One step of a wildcard pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// This decoded octet (or the encoded slash).
    Sym(Sym),
    /// `?`: any one.
    One,
    /// `[...]`: one octet of `set` (not of `set` when `negated`). The
    /// encoded slash of [`Escapes::Octets`] is in no set.
    Class {
        /// Member octets, as written.
        set: Box<[bool; 256]>,
        /// `[!...]` or `[^...]`.
        negated: bool,
    },
    /// `*`: any run, the empty one included.
    Star,
}

impl Item {
    fn accepts(&self, s: Sym) -> bool {
        match self {
            Item::Sym(x) => *x == s,
            Item::One | Item::Star => true,
            Item::Class { set, negated } => {
                let member = s < 256 && set[usize::from(s)];
                member != *negated
            }
        }
    }
}

/// A rule's pattern, as its rule set's version reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// 1.0: a general match, i.e. a prefix.
    Prefix(Vec<Sym>),
    /// 2.0 without `*`, `?`, `[`: the whole path, exactly.
    Explicit(Vec<Sym>),
    /// 2.0 with `*`, `?` or `[`: a /bin/sh pattern over the whole path.
    Wildcard(Vec<Item>),
}

impl Pattern {
    /// Reads a rule value (non-empty).
    pub fn read(raw: &[u8], version2: bool, escapes: Escapes) -> Pattern {
        if !version2 {
            Pattern::Prefix(decode(raw, escapes))
        } else if raw.iter().any(|b| matches!(b, b'*' | b'?' | b'[')) {
            Pattern::Wildcard(shell_items(raw, escapes))
        } else {
            Pattern::Explicit(decode(raw, escapes))
        }
    }

    /// Does the pattern match the decoded `path`?
    pub fn matches(&self, path: &[Sym]) -> bool {
        match self {
            Pattern::Prefix(p) => path.starts_with(p),
            Pattern::Explicit(p) => path == &p[..],
            Pattern::Wildcard(items) => wildcard_matches(items, path),
        }
    }

    /// Does the pattern match every path a URL can have (every decoded path,
    /// which always starts with `/`)?
    ///
    /// Exact for wildcard patterns: every non-`*` item takes one octet and
    /// the path `/` has one, so a pattern with two or more of them misses
    /// `/`, and one with none but a `*` matches everything. With exactly one,
    /// `A`, and some `*`: if a `*` follows `A` the pattern matches every path
    /// when `A` takes `/` (the first octet of every path, and with a `*`
    /// before `A` it may take any octet); if `A` is last, it must take every
    /// octet a path can end with. A pattern without `*` matches paths of
    /// one length only.
    pub fn matches_every_path(&self, escapes: Escapes) -> bool {
        let Pattern::Wildcard(items) = self else {
            return false;
        };
        let single: Vec<usize> = (0..items.len())
            .filter(|&i| items[i] != Item::Star)
            .collect();
        let has_star = single.len() < items.len();
        match single[..] {
            [] => has_star,
            [at] if has_star => {
                let a = &items[at];
                let star_after = items[at + 1..].contains(&Item::Star);
                a.accepts(Sym::from(b'/')) && (star_after || ends_any_path(a, escapes))
            }
            _ => false,
        }
    }
}

/// Does `a` take every octet that can end a decoded path? In the canonical
/// form a path never ends with `%` (it starts an escape), `#` or NUL (a raw
/// one ends the path, an escaped one stays escaped); in the octet form any
/// octet, the encoded slash included, can end one.
fn ends_any_path(a: &Item, escapes: Escapes) -> bool {
    match escapes {
        Escapes::Octets => (0..=ENCODED_SLASH).all(|s| a.accepts(s)),
        Escapes::Canonical => (0..=255u8)
            .filter(|b| !matches!(b, b'%' | b'#' | 0))
            .all(|b| a.accepts(Sym::from(b))),
    }
}

/// Splits a /bin/sh pattern into items; the literal runs between the
/// wildcards are decoded.
fn shell_items(raw: &[u8], escapes: Escapes) -> Vec<Item> {
    let mut items = Vec::new();
    let mut literal: Vec<u8> = Vec::new();
    let flush = |literal: &mut Vec<u8>, items: &mut Vec<Item>| {
        items.extend(decode(literal, escapes).into_iter().map(Item::Sym));
        literal.clear();
    };
    let mut i = 0;
    while i < raw.len() {
        let wildcard = match raw[i] {
            b'*' => Some((Item::Star, 1)),
            b'?' => Some((Item::One, 1)),
            b'[' => bracket(&raw[i..]),
            _ => None,
        };
        if let Some((item, used)) = wildcard {
            flush(&mut literal, &mut items);
            items.push(item);
            i += used;
        } else if raw[i] == b'\\' && i + 1 < raw.len() {
            literal.push(raw[i + 1]);
            i += 2;
        } else {
            literal.push(raw[i]);
            i += 1;
        }
    }
    flush(&mut literal, &mut items);
    items
}

/// The octet at `p[i]`, `\`-escaped or not, and where the next one starts.
fn class_octet(p: &[u8], i: usize) -> Option<(u8, usize)> {
    match *p.get(i)? {
        b'\\' => Some((*p.get(i + 1)?, i + 2)),
        b => Some((b, i + 1)),
    }
}

/// A bracket expression at the start of `p` (`p[0]` is `[`): the class and
/// the bytes it spans, or `None` when it is never closed.
fn bracket(p: &[u8]) -> Option<(Item, usize)> {
    let negated = matches!(p.get(1), Some(b'!' | b'^'));
    let first = if negated { 2 } else { 1 };
    let mut set = Box::new([false; 256]);
    let mut i = first;
    loop {
        if *p.get(i)? == b']' && i > first {
            return Some((Item::Class { set, negated }, i + 1));
        }
        let (low, next) = class_octet(p, i)?;
        i = next;
        let range_end = match (p.get(i), p.get(i + 1)) {
            (Some(b'-'), Some(&end)) if end != b']' => Some(class_octet(p, i + 1)?),
            _ => None,
        };
        match range_end {
            Some((high, next)) => {
                i = next;
                for b in low..=high {
                    set[usize::from(b)] = true;
                }
            }
            None => set[usize::from(low)] = true,
        }
    }
}

/// /bin/sh matching of the whole `path`: one pass that remembers the last
/// `*` and, on a mismatch, lets that `*` take one more octet.
fn wildcard_matches(items: &[Item], path: &[Sym]) -> bool {
    let (mut p, mut s) = (0, 0);
    // (item after the last `*`, path position that `*` has reached)
    let mut retry: Option<(usize, usize)> = None;
    while s < path.len() {
        match items.get(p) {
            Some(Item::Star) => {
                retry = Some((p + 1, s));
                p += 1;
            }
            Some(item) if item.accepts(path[s]) => {
                p += 1;
                s += 1;
            }
            _ => match retry {
                Some((after_star, reached)) => {
                    retry = Some((after_star, reached + 1));
                    p = after_star;
                    s = reached + 1;
                }
                None => return false,
            },
        }
    }
    items[p..].iter().all(|i| *i == Item::Star)
}

/// Is `value` a Robot-version of 2.0 (major 2, even minor)?
pub fn version_is_2(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    fn number(part: Option<&[u8]>) -> Option<&[u8]> {
        part.filter(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
    }
    match (number(parts.next()), number(parts.next())) {
        (Some(major), Some(minor)) => {
            let major = &major[major.iter().take_while(|&&d| d == b'0').count()..];
            major == b"2" && minor[minor.len() - 1] % 2 == 0
        }
        _ => false,
    }
}

/// Does record `g` declare version 2.0? Its first Robot-version line must
/// come right after a user-agent line of the record, no other directive in
/// between, and read as 2.0.
pub fn declares_version_2(file: &RobotsTxt<'_>, g: usize) -> bool {
    let record = &file.groups[g];
    let Some(version) = record
        .records
        .iter()
        .filter(|r| r.kind == KeyKind::RobotVersion)
        .min_by_key(|r| r.line)
    else {
        return false;
    };
    let Some(agent_line) = record
        .agents
        .iter()
        .map(|a| a.line)
        .filter(|&l| l < version.line)
        .max()
    else {
        return false;
    };
    let directive_between = record
        .rules
        .iter()
        .map(|r| r.line)
        .chain(record.records.iter().map(|r| r.line))
        .chain(file.global.iter().map(|r| r.line))
        .any(|l| agent_line < l && l < version.line);
    !directive_between && version_is_2(version.value)
}

/// A rule of the chosen record.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Robots2Rule {
    allow: bool,
    pattern: Pattern,
    /// Only meaningful in a 2.0 rule set.
    precedence: Precedence,
    line: u32,
}

/// The robots2 oracle for one file and one robot.
#[derive(Clone, Debug)]
pub struct Robots2Oracle {
    record: Option<usize>,
    version2: bool,
    rules: Vec<Robots2Rule>,
    self_path: Option<Vec<Sym>>,
    escapes: Escapes,
}

impl Robots2Oracle {
    /// Reads `robots`, chooses the record robot `name` obeys and reads its
    /// version and patterns.
    pub fn new(robots: &[u8], name: &str, opts: &OracleOptions) -> Robots2Oracle {
        let read = |file: &RobotsTxt<'_>, record: Option<usize>| {
            let version2 = record.is_some_and(|g| declares_version_2(file, g));
            let rules = record_rules(file, record)
                .map(|r| {
                    let allow = r.kind == RuleKind::Allow;
                    let pattern = Pattern::read(r.raw, version2, opts.escapes);
                    let catch_all = pattern.matches_every_path(opts.escapes);
                    let precedence = match (allow, &pattern) {
                        (true, Pattern::Wildcard(_)) => Precedence::WildcardAllow,
                        (true, _) => Precedence::ExplicitAllow,
                        (false, _) if catch_all => Precedence::CatchAllDisallow,
                        (false, _) => Precedence::Disallow,
                    };
                    Robots2Rule {
                        allow,
                        pattern,
                        precedence,
                        line: r.line,
                    }
                })
                .collect();
            (record, version2, rules)
        };
        let (record, version2, rules) = with_record(robots, name, opts, LineGrammar::Robots2, read);
        Robots2Oracle {
            record,
            version2,
            rules,
            self_path: self_path(opts),
            escapes: opts.escapes,
        }
    }

    /// Index of the chosen record among the parsed groups, if any.
    pub fn record(&self) -> Option<usize> {
        self.record
    }

    /// Is the chosen record a 2.0 rule set?
    pub fn version2(&self) -> bool {
        self.version2
    }

    /// The verdict for `url` (absolute, or a path).
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        let path = decode(&url_path(url), self.escapes);
        if self.self_path.as_deref() == Some(&path[..]) {
            return OracleVerdict::SELF_PATH;
        }
        let verdict = |r: &Robots2Rule| OracleVerdict {
            allowed: r.allow,
            line: Some(r.line),
        };
        let matching = || self.rules.iter().filter(|r| r.pattern.matches(&path));
        if !self.version2 {
            return matching().next().map_or(OracleVerdict::DEFAULT, verdict);
        }
        [
            Precedence::ExplicitAllow,
            Precedence::Disallow,
            Precedence::WildcardAllow,
            Precedence::CatchAllDisallow,
        ]
        .iter()
        .find_map(|&class| matching().find(|r| r.precedence == class))
        .map_or(OracleVerdict::DEFAULT, verdict)
    }
}

/// One-shot form of [`Robots2Oracle`]: parses `robots` and checks `url`.
pub fn check(robots: &[u8], name: &str, opts: &OracleOptions, url: &[u8]) -> OracleVerdict {
    Robots2Oracle::new(robots, name, opts).check(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wild(p: &str) -> Pattern {
        Pattern::read(p.as_bytes(), true, Escapes::Canonical)
    }

    fn m(p: &str, path: &str) -> bool {
        wild(p).matches(&decode(path.as_bytes(), Escapes::Canonical))
    }

    #[test]
    fn shell_wildcards() {
        assert!(m("*index.html", "/a/index.html"));
        assert!(!m("*index.html", "/a/index.html?x"));
        assert!(m("/images*", "/images/x.gif"));
        assert!(m("/a?c", "/abc") && !m("/a?c", "/abbc"));
        assert!(m("/[a-c]x", "/bx") && !m("/[a-c]x", "/dx"));
        assert!(m("/[!a-c]x", "/dx") && !m("/[!a-c]x", "/ax"));
        assert!(m("/[^a]x", "/bx") && !m("/[^a]x", "/ax"));
        assert!(m("/[]]", "/]") && m("/[!]]", "/a") && !m("/[!]]", "/]"));
        assert!(m("/[a-]", "/-") && m("/[-a]", "/-"));
        assert!(!m("/[c-a]", "/b"), "a reversed range is empty");
        assert!(m("/[\\]]", "/]"));
        assert!(m("/[x", "/[x"), "an unclosed class is literal");
        assert!(m("/[*", "/[abc"), "the rest of an unclosed class is read");
        assert!(m("/a\\*b", "/a*b") && !m("/a\\*b", "/axb"));
        assert!(m("/a\\", "/a\\"));
        assert!(m("/*.php*", "/a.php.php?x") && !m("/*.php", "/a.php5"));
        assert!(m("*a*b*c", "/xaybzc") && !m("*a*b*c", "/xaybzcd"));
        assert!(m("/%61*", "/a") && m("/a%2F*", "/a%2fb") && !m("/a%2F*", "/a/b"));
        assert!(m("/[%]*", "/%"), "class members are not decoded");
    }

    /// Every word of up to `max` letters of `alphabet`, shorter first.
    fn words<T: Clone>(alphabet: &[T], max: usize) -> Vec<Vec<T>> {
        let mut words = vec![Vec::new()];
        for len in 1..=max {
            let longer: Vec<Vec<T>> = words
                .iter()
                .filter(|w| w.len() == len - 1)
                .flat_map(|w| {
                    alphabet.iter().map(move |a| {
                        let mut longer = w.clone();
                        longer.push(a.clone());
                        longer
                    })
                })
                .collect();
            words.extend(longer);
        }
        words
    }

    /// The one-pass matcher against plain recursion, on every pattern of up
    /// to 4 items over `a b ? * [a]` and every path of up to 5 of `a b`.
    #[test]
    fn one_pass_matcher_is_exact() {
        fn naive(items: &[Item], path: &[Sym]) -> bool {
            match items.split_first() {
                None => path.is_empty(),
                Some((Item::Star, rest)) => (0..=path.len()).any(|k| naive(rest, &path[k..])),
                Some((item, rest)) => {
                    path.first().is_some_and(|&s| item.accepts(s)) && naive(rest, &path[1..])
                }
            }
        }
        let mut class_a = Box::new([false; 256]);
        class_a[usize::from(b'a')] = true;
        let alphabet = [
            Item::Sym(Sym::from(b'a')),
            Item::Sym(Sym::from(b'b')),
            Item::One,
            Item::Star,
            Item::Class {
                set: class_a,
                negated: false,
            },
        ];
        let patterns = words(&alphabet, 4);
        let paths = words(&[Sym::from(b'a'), Sym::from(b'b')], 5);
        for p in &patterns {
            for path in &paths {
                assert_eq!(wildcard_matches(p, path), naive(p, path), "{p:?} {path:?}");
            }
        }
    }

    #[test]
    fn explicit_and_prefix() {
        assert!(wild("/a.html").matches(&decode(b"/a.html", Escapes::Canonical)));
        assert!(!wild("/a.html").matches(&decode(b"/a.html?x", Escapes::Canonical)));
        let prefix = Pattern::read(b"/a*", false, Escapes::Canonical);
        assert!(prefix.matches(&decode(b"/a*b", Escapes::Canonical)));
        assert!(!prefix.matches(&decode(b"/ab", Escapes::Canonical)));
    }

    #[test]
    fn catch_all() {
        let every = |p: &str, e| Pattern::read(p.as_bytes(), true, e).matches_every_path(e);
        for e in [Escapes::Canonical, Escapes::Octets] {
            for p in [
                "*", "**", "/*", "/**", "*/*", "?*", "*?", "*?*", "[!a]*", "*[/]*",
            ] {
                assert!(every(p, e), "{p} {e:?}");
            }
            for p in [
                "/", "*/", "*.html", "/a*", "??*", "*[!a]", "[a]*", "\\*", "*a*",
            ] {
                assert!(!every(p, e), "{p} {e:?}");
            }
        }
        assert!(every("*[!%#]", Escapes::Canonical) && !every("*[!%#]", Escapes::Octets));
    }

    #[test]
    fn octets_reading_of_wildcards() {
        let o = |p: &str, path: &str| {
            Pattern::read(p.as_bytes(), true, Escapes::Octets)
                .matches(&decode(path.as_bytes(), Escapes::Octets))
        };
        assert!(o("/?", "/%25") && !m("/?", "/%25"));
        assert!(o("/?", "/%2F") && !m("/?", "/%2F"));
        assert!(!o("*2F", "/a%2F") && m("*2F", "/a%2F"));
        assert!(o("/[!/]", "/%2f") && !o("/[/]", "/%2f"));
        assert!(o("/a%2F*", "/a%2fb") && !o("/a%2F*", "/a/b"));
    }

    #[test]
    fn versions() {
        for v in [
            "2.0",
            "2.0.0",
            "2.2",
            "2.10",
            "02.0",
            "2.0.x",
            "2.99999999999999999998",
        ] {
            assert!(version_is_2(v.as_bytes()), "{v}");
        }
        for v in [
            "1.0", "2.1", "2", "2.", "3.0", "2.0a", " 2.0", "+2.0", "", "20.0",
        ] {
            assert!(!version_is_2(v.as_bytes()), "{v}");
        }
        let v2 = |body: &str| {
            Robots2Oracle::new(body.as_bytes(), "a", &OracleOptions::default()).version2()
        };
        assert!(v2("User-agent: a\nRobot-version: 2.0\nDisallow: *\n"));
        assert!(v2("User-agent: a\nUser-agent: b\nRobot-version: 2.0\n"));
        assert!(v2("User-agent: a\n# note\nRobot-version: 2.0\n"));
        assert!(v2(
            "User-agent: a\nRobot-version: 2.0\nUser-agent: b\nAllow: /x\n"
        ));
        assert!(v2(
            "User-agent: a\nRobot-version: 2.0\nRobot-version: 1.0\n"
        ));
        assert!(!v2("User-agent: a\nDisallow: /x\nRobot-version: 2.0\n"));
        assert!(!v2("User-agent: a\nCrawl-delay: 5\nRobot-version: 2.0\n"));
        assert!(!v2("User-agent: a\nSitemap: /s.xml\nRobot-version: 2.0\n"));
        assert!(!v2(
            "User-agent: a\nRobot-version: 1.0\nRobot-version: 2.0\n"
        ));
        assert!(!v2("User-agent: a\nRobot-version: 2.1\nDisallow: *\n"));
        assert!(
            !v2("User-agent: b\nRobot-version: 2.0\n"),
            "no record for a"
        );
    }

    /// The example site of the 2.0 text, as reconstructed in
    /// corpus/conformance/robots2.json: a few verdicts its prose states.
    #[test]
    fn precedence_classes() {
        let body = b"User-agent: alfred\nRobot-version: 2.0\nAllow: *index.html\nAllow: /images/index.html\nAllow: /blackhole/index.html\nAllow: /blackhole/info*\nDisallow: *\nDisallow: *.shtml\nDisallow: *.cgi\nDisallow: *.gif\nDisallow: *.jpg\nDisallow: /images*\nDisallow: /blackhole/info99*\nDisallow: /blackhole/info8.html\n\nUser-agent: hackerbot\nRobot-version: 2.0\nAllow: *index.html\nDisallow: *\n";
        let alfred = Robots2Oracle::new(body, "alfred", &OracleOptions::default());
        assert!(alfred.version2());
        let line = |o: &Robots2Oracle, url: &str| {
            (
                o.check(url.as_bytes()).allowed,
                o.check(url.as_bytes()).line,
            )
        };
        assert_eq!(line(&alfred, "/images/index.html"), (true, Some(4)));
        assert_eq!(line(&alfred, "/images/usamap.gif"), (false, Some(10)));
        assert_eq!(line(&alfred, "/blackhole/info98.shtml"), (false, Some(8)));
        assert_eq!(line(&alfred, "/blackhole/info98.html"), (true, Some(6)));
        assert_eq!(line(&alfred, "/blackhole/info99.html"), (false, Some(13)));
        assert_eq!(line(&alfred, "/products.html"), (false, Some(7)));
        assert_eq!(line(&alfred, "/index.html"), (true, Some(3)));
        assert_eq!(line(&alfred, "/robots.txt"), (true, Some(0)));
        let hacker = Robots2Oracle::new(body, "hackerbot", &OracleOptions::default());
        assert_eq!(
            line(&hacker, "/blackhole/info/index.html"),
            (true, Some(18))
        );
        assert_eq!(line(&hacker, "/order.html"), (false, Some(19)));
        let other = Robots2Oracle::new(body, "other", &OracleOptions::default());
        assert_eq!(other.record(), None);
        assert_eq!(line(&other, "/x"), (true, None));
    }
}
