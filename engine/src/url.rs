//! Finding the part of a URL that robots.txt rules are matched against.
//!
//! This follows Google's `GetPathParamsQuery` exactly: scheme and authority
//! are dropped, `path;params?query` is kept, the fragment is dropped, and the
//! result always starts with `/`. It works on borrowed bytes and never
//! allocates: a missing leading `/` is reported as a flag, and the end of the
//! path (the first `#`) is left for the caller to find while it reads, so a
//! check that exits early never scans the rest of a long URL.

/// The matchable part of a URL: `/` (when `slash`) followed by `rest` up to,
/// not including, its first `#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathParts<'a> {
    /// A `/` precedes `rest` (the URL had no path, or it began with `?`/`;`).
    pub slash: bool,
    /// The remaining bytes, starting at the path; they still include any
    /// fragment, which the reader must stop at.
    pub rest: &'a [u8],
}

impl<'a> PathParts<'a> {
    /// The path as an owned byte string, cut at the fragment. For tests,
    /// explanations and the reference matcher; the engine never calls it.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.rest.len() + 1);
        if self.slash {
            v.push(b'/');
        }
        let end = self
            .rest
            .iter()
            .position(|&b| b == b'#')
            .unwrap_or(self.rest.len());
        v.extend_from_slice(&self.rest[..end]);
        v
    }
}

/// Locates `path;params?query` in `url` (an absolute URL, a `//host/…`
/// reference or a bare path), as Google's `GetPathParamsQuery` does.
///
/// ```
/// use robocc_engine::url::path_parts;
/// assert_eq!(path_parts(b"http://example.com/a?b#c").to_vec(), b"/a?b");
/// assert_eq!(path_parts(b"http://example.com").to_vec(), b"/");
/// assert_eq!(path_parts(b"example.com?q").to_vec(), b"/?q");
/// ```
#[inline]
pub fn path_parts(url: &[u8]) -> PathParts<'_> {
    const ROOT: PathParts<'static> = PathParts {
        slash: true,
        rest: b"",
    };
    // Fast paths for the two common shapes: a bare path, and an http(s)
    // URL (whose scheme holds no '#', '/', '?' or ';' to look for).
    match url {
        [b'/', second, ..] if *second != b'/' => return parts_from(url, 0),
        [b'/'] => return parts_from(url, 0),
        _ => {}
    }
    let scheme_len = if url.starts_with(b"https://") {
        8
    } else if url.starts_with(b"http://") {
        7
    } else {
        0
    };
    // Initial two slashes (a network-path reference) are skipped.
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    // One pass finds the first path character ('/', '?', ';') and notes a
    // '#' on the way (a fragment before the path leaves nothing of it).
    let first_path = |from: usize| -> Result<Option<usize>, ()> {
        match first_delimiter(url, from) {
            Some(i) if url[i] == b'#' => Err(()),
            found => Ok(found),
        }
    };
    if scheme_len > 0 {
        return match first_path(scheme_len) {
            Ok(Some(p)) => parts_from(url, p),
            Ok(None) | Err(()) => ROOT,
        };
    }
    // "://" marks a scheme only when it comes before any path character.
    // As it contains '/', it can only start just before the first one.
    let early = first_path(search_start);
    let authority_start = match early {
        Ok(Some(e)) if e > search_start && url[e - 1..].starts_with(b"://") => e + 2,
        Ok(Some(e)) => return parts_from(url, e),
        Ok(None) => return ROOT,
        // A '#' before any path character: whatever follows, the path
        // starts after it.
        Err(()) => return ROOT,
    };
    match first_path(authority_start) {
        Ok(Some(p)) => parts_from(url, p),
        Ok(None) | Err(()) => ROOT,
    }
}

/// The index of the first `/`, `?`, `;` or `#` in `url[from..]`: where
/// Google's reading starts the path.
#[inline(always)]
pub(crate) fn first_delimiter(url: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    // The masks not read here are dropped once inlined: their compares are
    // pure.
    while let Some(m) = block_masks(url, i) {
        let delimiters = m.end | m.semicolon;
        if delimiters != 0 {
            return Some(i + delimiters.trailing_zeros() as usize);
        }
        i += 16;
    }
    scan_words(url, i, true, false).0
}

/// Where the authority that starts at `url[from]` ends (the first `/`, `?`
/// or `#`, as RFC 3986 and the WHATWG URL standard end it; `None`: at the
/// URL's end), and whether it holds a byte that makes it more than a plain
/// host: `@ : [ ] ; \ % < > ^ |`, a space, a control byte or DEL. A store's host
/// key reads such an authority byte by byte; a plain one is the host.
///
/// Sixteen bytes at a time where the target has SSE2 ([`block_masks`]),
/// then eight ([`scan_words`]): a per-byte `match` cost more instructions
/// than the automaton walk on typical URLs (callgrind,
/// docs/PERFORMANCE-notes.md).
#[inline(always)]
pub(crate) fn scan_authority(url: &[u8], from: usize) -> (Option<usize>, bool) {
    let mut marked = false;
    let mut i = from;
    while let Some(m) = block_masks(url, i) {
        if m.end != 0 {
            let at = m.end.trailing_zeros();
            return (
                Some(i + at as usize),
                marked || m.marks & ((1 << at) - 1) != 0,
            );
        }
        marked |= m.marks != 0;
        i += 16;
    }
    scan_words(url, i, false, marked)
}

/// Whether `b` makes an authority more than a plain host (what
/// [`scan_authority`] marks).
#[inline(always)]
pub(crate) fn is_authority_mark(b: u8) -> bool {
    matches!(
        b,
        b'@' | b':' | b'[' | b']' | b';' | b'\\' | b'%' | b'<' | b'>' | b'^' | b'|' | 0x7f
    ) || b <= b' '
}

/// [`first_delimiter`] (`semicolon`: `;` ends the scan too) or
/// [`scan_authority`] eight bytes at a time from `url[from]`, having met a
/// mark before it when `marked`: what targets without SSE2 run throughout,
/// and x86-64 on the last fifteen bytes.
///
/// SWAR: a byte equal to one looked for makes its lane zero after an XOR,
/// and the classic `(x - 0x01…) & !x & 0x80…` test flags zero lanes (and
/// `(x - 0x21…) & !x & 0x80…` the lanes below `0x21`). Either can also flag
/// a lane above a flagged lane (a borrow), never one below the lowest: so
/// the lowest flag is exact, and so is "any flag below lane k".
#[inline(always)]
pub(crate) fn scan_words(
    url: &[u8],
    from: usize,
    semicolon: bool,
    mut marked: bool,
) -> (Option<usize>, bool) {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut i = from;
    while let Some(chunk) = url.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let semi = zero(w ^ (LO * u64::from(b';')));
        let mut end = zero(w ^ (LO * u64::from(b'/')))
            | zero(w ^ (LO * u64::from(b'?')))
            | zero(w ^ (LO * u64::from(b'#')));
        if semicolon {
            end |= semi;
        }
        let marks = zero(w ^ (LO * u64::from(b'@')))
            | zero(w ^ (LO * u64::from(b':')))
            | zero(w ^ (LO * u64::from(b'[')))
            | zero(w ^ (LO * u64::from(b']')))
            | zero(w ^ (LO * u64::from(b'\\')))
            | zero(w ^ (LO * u64::from(b'%')))
            | zero(w ^ (LO * u64::from(b'<')))
            | zero(w ^ (LO * u64::from(b'>')))
            | zero(w ^ (LO * u64::from(b'^')))
            | zero(w ^ (LO * u64::from(b'|')))
            | zero(w ^ (LO * 0x7f))
            | semi
            | (w.wrapping_sub(LO * 0x21) & !w & HI);
        if end != 0 {
            // The flags of the lanes below the end's.
            let below = (1u64 << end.trailing_zeros()) - 1;
            return (
                Some(i + (end.trailing_zeros() / 8) as usize),
                marked || marks & below != 0,
            );
        }
        marked |= marks != 0;
        i += 8;
    }
    for (at, &b) in url.iter().enumerate().skip(i) {
        match b {
            b'/' | b'?' | b'#' => return (Some(at), marked),
            b';' if semicolon => return (Some(at), marked),
            _ => marked |= is_authority_mark(b),
        }
    }
    (None, marked)
}

/// The masks of `url[i..i + 16]`, bit `k` for byte `i + k`.
#[derive(Clone, Copy)]
pub(crate) struct BlockMasks {
    /// `/ ? #`: what ends an authority.
    pub(crate) end: u32,
    /// `;`: what also starts Google's path.
    pub(crate) semicolon: u32,
    /// What [`is_authority_mark`] says.
    pub(crate) marks: u32,
}

/// [`BlockMasks`] of `url[i..i + 16]`. `None` when fewer than sixteen bytes
/// are left, and on targets built without SSE2 (every x86-64 target but the
/// soft-float ones has it), whose callers go on eight bytes at a time. A
/// caller that does not read a mask does not pay for it (the compares are
/// pure, and dropped).
#[inline(always)]
pub(crate) fn block_masks(url: &[u8], i: usize) -> Option<BlockMasks> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        let block = url.get(i..i + 16)?;
        // SAFETY: the target has SSE2 (the `cfg` above); `block` is sixteen
        // bytes, and an unaligned load reads nothing else.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let end = _mm_or_si128(_mm_or_si128(eq(b'/'), eq(b'?')), eq(b'#'));
            let semicolon = eq(b';');
            // min(v, 0x20) == v: the byte is at most a space.
            let low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v);
            let marks = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(b'@'), eq(b':')),
                    _mm_or_si128(eq(b'['), eq(b']')),
                ),
                _mm_or_si128(
                    _mm_or_si128(
                        _mm_or_si128(eq(b'\\'), eq(b'%')),
                        _mm_or_si128(eq(b'<'), eq(b'>')),
                    ),
                    _mm_or_si128(
                        _mm_or_si128(eq(b'^'), eq(b'|')),
                        _mm_or_si128(_mm_or_si128(eq(0x7f), semicolon), low),
                    ),
                ),
            );
            Some(BlockMasks {
                end: _mm_movemask_epi8(end) as u32,
                semicolon: _mm_movemask_epi8(semicolon) as u32,
                marks: _mm_movemask_epi8(marks) as u32,
            })
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let _ = (url, i);
        None
    }
}

/// [`path_parts`] of an absolute URL whose authority ends at `end` (the
/// first `/`, `?`, `;` or `#` after `scheme://`, or the URL's length), as a
/// store lookup finds it.
#[inline]
pub(crate) fn path_parts_after(url: &[u8], end: usize) -> PathParts<'_> {
    match url.get(end) {
        Some(b'#') | None => PathParts {
            slash: true,
            rest: b"",
        },
        Some(_) => parts_from(url, end),
    }
}

fn parts_from(url: &[u8], path_start: usize) -> PathParts<'_> {
    let rest = &url[path_start..];
    PathParts {
        slash: rest[0] != b'/',
        rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_delimiter_agrees_with_a_byte_scan() {
        let naive = |u: &[u8], from: usize| {
            u[from..]
                .iter()
                .position(|b| b"/?;#".contains(b))
                .map(|p| from + p)
        };
        // Every length up to two SSE2 blocks (or four words and a tail),
        // every delimiter (or none) at every position, over fillers that
        // stress the SWAR test: zero bytes, high bytes, neighbours of the
        // delimiters.
        for filler in [
            b'a',
            0,
            0x80,
            0xFF,
            0x01,
            b'.',
            b'.' + 1,
            b'/' + 1,
            b'#' - 1,
        ] {
            for len in 0..36 {
                for at in 0..=len {
                    for d in [b'/', b'?', b';', b'#', filler] {
                        let mut u = vec![filler; len];
                        if at < len {
                            u[at] = d;
                            if at + 2 < len {
                                u[at + 2] = b'/';
                            }
                        }
                        for from in 0..=len.min(9) {
                            let want = naive(&u, from);
                            assert_eq!(first_delimiter(&u, from), want, "{u:?} from {from}");
                            // The portable scan (the one other targets run).
                            assert_eq!(
                                scan_words(&u, from, true, false).0,
                                want,
                                "{u:?} from {from}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// [`scan_authority`] (and its portable form) against a byte-by-byte
    /// reading: every end and every mark at every position of authorities
    /// of up to 34 bytes (two SSE2 blocks, or four words and a tail), alone
    /// and together, over fillers that stress the eight-at-a-time tests
    /// (zero and high bytes, neighbours of the bytes they look for).
    #[test]
    fn scan_authority_agrees_with_a_byte_scan() {
        let naive = |u: &[u8], from: usize| {
            let end = u[from..]
                .iter()
                .position(|b| b"/?#".contains(b))
                .map(|p| from + p);
            let upto = end.unwrap_or(u.len());
            (end, u[from..upto].iter().any(|&b| is_authority_mark(b)))
        };
        let marks = b"/?#@:[];\\%<>^|\x7f \x00\t\x20\x21";
        let mut cases = 0;
        for filler in [b'a', 0x80, 0xFF, b'.', b'/' + 1, b'@' - 1, b'A', b'!'] {
            for len in 0..=34 {
                for from in [0, 3, 8] {
                    let base = vec![filler; from + len];
                    let mut check = |u: &[u8]| {
                        let want = naive(u, from);
                        assert_eq!(scan_authority(u, from), want, "{u:?} from {from}");
                        // The portable scan (the one other targets run).
                        assert_eq!(
                            scan_words(u, from, false, false),
                            want,
                            "words: {u:?} from {from}"
                        );
                        cases += 1;
                    };
                    check(&base);
                    for at in from..from + len {
                        for &m in marks {
                            let mut u = base.clone();
                            u[at] = m;
                            check(&u);
                            for later in (at + 1..from + len).step_by(3) {
                                for &n in marks {
                                    let mut v = u.clone();
                                    v[later] = n;
                                    check(&v);
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(cases > 100_000, "{cases}");
    }

    fn p(url: &str) -> String {
        String::from_utf8(path_parts(url.as_bytes()).to_vec()).unwrap()
    }

    /// The cases of Google's robots_test.cc `GetPathParamsQuery` test.
    #[test]
    fn google_get_path_params_query_cases() {
        assert_eq!("/", p(""));
        assert_eq!("/", p("http://www.example.com"));
        assert_eq!("/", p("http://www.example.com/"));
        assert_eq!("/a", p("http://www.example.com/a"));
        assert_eq!("/a/", p("http://www.example.com/a/"));
        assert_eq!(
            "/a/b?c=http://d.e/",
            p("http://www.example.com/a/b?c=http://d.e/")
        );
        assert_eq!(
            "/a/b?c=d&e=f",
            p("http://www.example.com/a/b?c=d&e=f#fragment")
        );
        assert_eq!("/", p("example.com"));
        assert_eq!("/", p("example.com/"));
        assert_eq!("/a", p("example.com/a"));
        assert_eq!("/a/", p("example.com/a/"));
        assert_eq!("/a/b?c=d&e=f", p("example.com/a/b?c=d&e=f#fragment"));
        assert_eq!("/", p("a"));
        assert_eq!("/", p("a/"));
        assert_eq!("/a", p("/a"));
        assert_eq!("/b", p("a/b"));
        assert_eq!("/?a", p("example.com?a"));
        assert_eq!("/a;b", p("example.com/a;b#c"));
        assert_eq!("/b/c", p("//a/b/c"));
    }

    #[test]
    fn fragment_before_path_gives_root() {
        assert_eq!("/", p("http://a.com#x/y"));
        assert_eq!("/", p("a#b://c/d"));
        assert_eq!("/", p("http#://a.com/x"));
    }

    #[test]
    fn scheme_only_before_the_first_path_character() {
        assert_eq!("/?//x", p("ab:?//x"));
        assert_eq!("/?y://h/p", p("x?y://h/p"));
        assert_eq!("/p", p("x://h/p"));
        assert_eq!("/p", p("://h/p"));
        assert_eq!("/p", p("//x://h/p"));
    }

    #[test]
    fn params_and_query_get_a_slash() {
        assert_eq!("/;x", p("http://a.com;x"));
        assert!(path_parts(b"http://a.com?q").slash);
        assert!(!path_parts(b"http://a.com/q").slash);
    }
}
