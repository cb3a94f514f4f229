//! Patterns as the automaton sees them: a sequence of atoms.
//!
//! Every dialect's pattern syntax is lowered to the same small language —
//! a byte, any byte, a set of bytes, or a run of any bytes — plus whether the
//! pattern must reach the end of the path. The lowering and the reference
//! matcher both work on [`Glob`]s, so a dialect is only a parser into this
//! form plus a ranking of rules.

use robocc_engine::artifact::PatternSyntax;
use robocc_engine::normalize::{hex_val, stays_escaped, HEX};
use robocc_engine::UrlMode;

/// A set of bytes (a bit per byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteSet(pub [u64; 4]);

impl ByteSet {
    /// The empty set.
    pub const EMPTY: ByteSet = ByteSet([0; 4]);

    /// Adds a byte.
    pub fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    /// Is `b` in the set?
    pub fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// Every byte not in the set.
    pub fn complement(&self) -> ByteSet {
        ByteSet(self.0.map(|w| !w))
    }
}

/// One step of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    /// Exactly this byte.
    Byte(u8),
    /// Any one byte (`?` in a shell pattern).
    Any,
    /// One byte of the set (`[...]` in a shell pattern).
    Set(ByteSet),
    /// Any run of bytes, the empty run included (`*`).
    Star,
}

impl Atom {
    /// Does this atom consume `b`? (`Star` consumes any byte, repeatedly.)
    pub fn accepts(&self, b: u8) -> bool {
        match self {
            Atom::Byte(x) => *x == b,
            Atom::Any | Atom::Star => true,
            Atom::Set(s) => s.contains(b),
        }
    }
}

/// A pattern: atoms matched from the first byte of the path; `anchored`
/// patterns must also end with the path, the others match any path they
/// are a prefix of.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Glob {
    /// The atoms, in order.
    pub atoms: Vec<Atom>,
    /// Must the match reach the end of the path?
    pub anchored: bool,
}

impl Glob {
    /// Reads `pattern` written in `syntax`; literal bytes are put in the
    /// canonical form of `url_mode` ([`UrlMode::Decode`] decodes them).
    /// Patterns of [`UrlMode::Google`] and [`UrlMode::Rfc`] arrive already
    /// encoded (see `ruleset`).
    pub fn parse(pattern: &[u8], syntax: PatternSyntax, url_mode: UrlMode) -> Glob {
        let literal = |bytes: &[u8], out: &mut Vec<Atom>| match url_mode {
            UrlMode::Decode => out.extend(decode_canonical(bytes).into_iter().map(Atom::Byte)),
            UrlMode::Google | UrlMode::Rfc => out.extend(bytes.iter().map(|&b| Atom::Byte(b))),
        };
        // One more than the bytes: a glob pushes a `*` after its last run
        // before popping it, which would otherwise grow the vector.
        let mut atoms = Vec::with_capacity(pattern.len() + 1);
        match syntax {
            PatternSyntax::Glob => {
                let (body, anchored) = match pattern.strip_suffix(b"$") {
                    Some(b) => (b, true),
                    None => (pattern, false),
                };
                for run in body.split(|&b| b == b'*') {
                    literal(run, &mut atoms);
                    atoms.push(Atom::Star);
                }
                atoms.pop();
                return Glob { atoms, anchored };
            }
            PatternSyntax::Prefix | PatternSyntax::Exact => literal(pattern, &mut atoms),
            PatternSyntax::Shell => {
                let mut run: Vec<u8> = Vec::new();
                let mut i = 0;
                while i < pattern.len() {
                    let b = pattern[i];
                    let meta = match b {
                        b'*' => Some((Atom::Star, 1)),
                        b'?' => Some((Atom::Any, 1)),
                        b'[' => shell_class(&pattern[i..]).map(|(s, n)| (Atom::Set(s), n)),
                        _ => None,
                    };
                    match meta {
                        Some((atom, n)) => {
                            literal(&run, &mut atoms);
                            run.clear();
                            atoms.push(atom);
                            i += n;
                        }
                        None if b == b'\\' && i + 1 < pattern.len() => {
                            run.push(pattern[i + 1]);
                            i += 2;
                        }
                        None => {
                            run.push(b);
                            i += 1;
                        }
                    }
                }
                literal(&run, &mut atoms);
            }
        }
        Glob {
            atoms,
            anchored: matches!(syntax, PatternSyntax::Exact | PatternSyntax::Shell),
        }
    }

    /// The same pattern matching ASCII letters in either case (ACAP 2.8:
    /// "Pattern matching in ACAP fields should always be case-insensitive").
    pub fn case_insensitive(&self) -> Glob {
        let fold = |a: Atom| match a {
            Atom::Byte(b) if b.is_ascii_alphabetic() => {
                let mut set = ByteSet::EMPTY;
                set.insert(b.to_ascii_lowercase());
                set.insert(b.to_ascii_uppercase());
                Atom::Set(set)
            }
            Atom::Set(mut set) => {
                let original = set;
                for b in b'a'..=b'z' {
                    if original.contains(b) || original.contains(b - 32) {
                        set.insert(b);
                        set.insert(b - 32);
                    }
                }
                Atom::Set(set)
            }
            a => a,
        };
        Glob {
            atoms: self.atoms.iter().copied().map(fold).collect(),
            anchored: self.anchored,
        }
    }

    /// The same pattern with `**` collapsed and trailing `*`s removed (a
    /// trailing `*` makes an anchored pattern a prefix pattern).
    pub fn simplified(&self) -> Glob {
        let mut atoms: Vec<Atom> = Vec::with_capacity(self.atoms.len());
        for &a in &self.atoms {
            if !(a == Atom::Star && atoms.last() == Some(&Atom::Star)) {
                atoms.push(a);
            }
        }
        let mut anchored = self.anchored;
        while atoms.last() == Some(&Atom::Star) {
            atoms.pop();
            anchored = false;
        }
        Glob { atoms, anchored }
    }

    /// Does the pattern match every path that starts with `/`? Decided on
    /// the pattern's own automaton: every set of positions reachable by a
    /// path must accept it (for a prefix pattern, accepting once is
    /// enough). Patterns whose automaton has more than
    /// [`UNIVERSAL_BUDGET`] states are answered `false`.
    pub fn is_universal(&self) -> bool {
        let g = self.simplified();
        let n = g.atoms.len();
        let close = |mut set: Vec<usize>| -> Vec<usize> {
            let mut k = 0;
            while k < set.len() {
                let p = set[k];
                if p < n && g.atoms[p] == Atom::Star && !set.contains(&(p + 1)) {
                    set.push(p + 1);
                }
                k += 1;
            }
            set.sort_unstable();
            set
        };
        let step = |set: &[usize], b: u8| -> Vec<usize> {
            let mut next = Vec::new();
            for &p in set {
                match g.atoms.get(p) {
                    Some(Atom::Star) => next.push(p),
                    Some(atom) if atom.accepts(b) => next.push(p + 1),
                    _ => {}
                }
            }
            next.sort_unstable();
            next.dedup();
            close(next)
        };
        let start = close(vec![0]);
        if !g.anchored && start.contains(&n) {
            return true;
        }
        let first = step(&start, b'/');
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![first];
        while let Some(set) = todo.pop() {
            if !seen.insert(set.clone()) {
                continue;
            }
            if seen.len() > UNIVERSAL_BUDGET {
                return false;
            }
            let accepts = set.contains(&n);
            if !accepts {
                return false;
            }
            if !g.anchored {
                // A prefix pattern that matched matches every longer path.
                continue;
            }
            // '#' and NUL end a path in every mode: they are never in one.
            todo.extend(
                (0..=255u8)
                    .filter(|&b| b != b'#' && b != 0)
                    .map(|b| step(&set, b)),
            );
        }
        true
    }

    /// Does the pattern match `path`? Tracks the set of path positions the
    /// atoms read so far can reach: O(atoms × path), no backtracking.
    pub fn matches(&self, path: &[u8]) -> bool {
        let mut reach = vec![false; path.len() + 1];
        reach[0] = true;
        for atom in &self.atoms {
            if *atom == Atom::Star {
                let first = reach.iter().position(|&r| r);
                if let Some(f) = first {
                    reach[f..].iter_mut().for_each(|r| *r = true);
                }
                continue;
            }
            let mut next = vec![false; path.len() + 1];
            for i in 0..path.len() {
                if reach[i] && atom.accepts(path[i]) {
                    next[i + 1] = true;
                }
            }
            reach = next;
            if !reach.contains(&true) {
                return false;
            }
        }
        if self.anchored {
            reach[path.len()]
        } else {
            reach.contains(&true)
        }
    }
}

/// Most automaton states [`Glob::is_universal`] explores.
pub const UNIVERSAL_BUDGET: usize = 4096;

/// A `[...]` class at the start of `p` as /bin/sh reads it: `!` or `^`
/// first negates, a `]` first is literal, `a-z` is a range, `\x` is `x`.
/// Returns the set and the bytes used, or `None` when the class is not
/// closed (then `[` is a literal byte).
fn shell_class(p: &[u8]) -> Option<(ByteSet, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut set = ByteSet::EMPTY;
    let mut first = true;
    loop {
        let mut b = *p.get(i)?;
        if b == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if b == b'\\' {
            i += 1;
            b = *p.get(i)?;
        }
        i += 1;
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&e| e != b']') {
            let mut end = p[i + 1];
            i += 2;
            if end == b'\\' {
                end = *p.get(i)?;
                i += 1;
            }
            for x in b.min(end)..=b.max(end) {
                set.insert(x);
            }
        } else {
            set.insert(b);
        }
    }
    Some((if negate { set.complement() } else { set }, i))
}

/// The 1996 draft's canonical form of literal bytes (see
/// [`UrlMode::Decode`]): `%xx` decoded unless it names `/`, `%`, `#` or NUL,
/// which stay escaped in upper case; a `%` starting no escape becomes `%25`;
/// raw `#` and NUL are escaped too (in a URL they end the path, so a
/// pattern can only mean them literally). Written independently of the
/// engine's `feed_decoded` — the differential tests compare the two.
pub fn decode_canonical(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let push_escaped = |out: &mut Vec<u8>, v: u8| {
        out.extend_from_slice(&[b'%', HEX[usize::from(v >> 4)], HEX[usize::from(v & 15)]]);
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let hex = (
            bytes.get(i + 1).copied().and_then(hex_val),
            bytes.get(i + 2).copied().and_then(hex_val),
        );
        match (b, hex) {
            (b'%', (Some(h), Some(l))) => {
                let v = h << 4 | l;
                if stays_escaped(v) {
                    push_escaped(&mut out, v);
                } else {
                    out.push(v);
                }
                i += 3;
            }
            (b'%' | b'#' | 0, _) => {
                push_escaped(&mut out, b);
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(p: &str) -> Glob {
        Glob::parse(p.as_bytes(), PatternSyntax::Shell, UrlMode::Decode)
    }

    #[test]
    fn universal_patterns_are_every_catch_all_spelling() {
        for p in ["*", "/*", "*?*", "*/*", "?*", "*?", "[!x]*", "/**"] {
            assert!(shell(p).is_universal(), "{p}");
        }
        for p in ["/", "/a*", "*.html", "??*", "[!/]*", "*/a", "*/"] {
            assert!(!shell(p).is_universal(), "{p}");
        }
        let glob = |p: &str| Glob::parse(p.as_bytes(), PatternSyntax::Glob, UrlMode::Google);
        assert!(glob("/").is_universal() && glob("*").is_universal());
        assert!(!glob("/a").is_universal() && !glob("/$").is_universal());
    }

    #[test]
    fn shell_patterns_match_the_whole_path() {
        assert!(shell("*index.html").matches(b"/a/index.html"));
        assert!(!shell("*index.html").matches(b"/a/index.html?x"));
        assert!(shell("/images*").matches(b"/images/x.gif"));
        assert!(shell("/a?c").matches(b"/abc") && !shell("/a?c").matches(b"/abbc"));
        assert!(shell("/[a-c]x").matches(b"/bx") && !shell("/[a-c]x").matches(b"/dx"));
        assert!(shell("/[!a-c]x").matches(b"/dx") && !shell("/[!a-c]x").matches(b"/ax"));
        assert!(shell("/[]]").matches(b"/]"));
        assert!(shell("/[x").matches(b"/[x"), "an unclosed class is literal");
        assert!(shell("/a\\*b").matches(b"/a*b") && !shell("/a\\*b").matches(b"/axb"));
    }

    #[test]
    fn google_syntax() {
        let g = Glob::parse(b"/a*b$", PatternSyntax::Glob, UrlMode::Google);
        assert_eq!(
            g.atoms,
            vec![
                Atom::Byte(b'/'),
                Atom::Byte(b'a'),
                Atom::Star,
                Atom::Byte(b'b')
            ]
        );
        assert!(g.anchored);
        assert!(g.matches(b"/a.b") && !g.matches(b"/a.bc"));
        assert!(Glob::parse(b"/a$x", PatternSyntax::Glob, UrlMode::Google).matches(b"/a$xyz"));
    }

    #[test]
    fn simplification_and_universal() {
        let g = Glob::parse(b"/a**b**$", PatternSyntax::Glob, UrlMode::Google).simplified();
        assert_eq!(g.atoms.len(), 4);
        assert!(!g.anchored);
        assert!(shell("*").is_universal() && shell("/*").is_universal());
        assert!(!shell("*.html").is_universal());
    }

    /// The 1996 draft §3.2.2 table: decoded patterns against decoded paths.
    #[test]
    fn draft_decoding() {
        assert_eq!(decode_canonical(b"/a%3cd.html"), b"/a<d.html");
        assert_eq!(decode_canonical(b"/a%2fb.html"), b"/a%2Fb.html");
        assert_eq!(decode_canonical(b"/%7ejoe"), b"/~joe");
        assert_eq!(decode_canonical(b"/100%"), b"/100%25");
        assert_eq!(decode_canonical(b"/%25%23#"), b"/%25%23%23");
    }
}
