//! URL normalisation, byte by byte, without a buffer.
//!
//! [`feed_rfc`] is RFC 9309 §2.2.2 ([`UrlMode::Rfc`](crate::UrlMode::Rfc));
//! [`feed_decoded`] is the 1996 draft's decoding
//! ([`UrlMode::Decode`](crate::UrlMode::Decode)). Patterns get
//! the same treatment at compile time (see the compiler's `normalize` module),
//! so both sides meet in one canonical form:
//!
//! * `%XY` naming an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded;
//!   any other escape is kept with its hex digits upper-cased (`%2f` → `%2F`,
//!   which never becomes `/`).
//! * Bytes outside printable ASCII and the characters RFC 3986 never allows
//!   literally (`"` `<` `>` `\` `^` `` ` `` `{` `|` `}` space, DEL) are
//!   percent-encoded; a `%` that starts no valid escape becomes `%25`.
//! * A literal `*` or `$` in the URL becomes `%2A` / `%24`, which is how a
//!   pattern names those characters (RFC 9309 §2.2.3).

/// Upper-case hex digits.
pub const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// The value of an ASCII hex digit.
#[inline]
pub fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// RFC 3986 unreserved characters.
#[inline]
pub fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Bytes that are percent-encoded wherever they appear.
#[inline]
pub fn must_encode(b: u8) -> bool {
    b <= 0x20
        || b >= 0x7f
        || matches!(
            b,
            b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
        )
}

/// Feeds the normalised form of `input` to `sink`, one byte at a time, until
/// `input` ends, a `#` is read (the fragment is not part of the path) or
/// `sink` returns `true` (the caller has its answer).
///
/// Returns `true` when `sink` asked to stop.
#[inline]
pub fn feed_rfc(input: &[u8], mut sink: impl FnMut(u8) -> bool) -> bool {
    feed(
        input,
        &mut sink,
        |v, sink| {
            if is_unreserved(v) {
                sink(v)
            } else {
                escaped(v, sink)
            }
        },
        |b, sink| {
            if b == b'*' || b == b'$' || must_encode(b) {
                escaped(b, sink)
            } else {
                sink(b)
            }
        },
    )
}

/// Feeds the 1996 draft's canonical form of `input` to `sink` (see
/// [`UrlMode::Decode`](crate::UrlMode::Decode)): `%xx` is decoded
/// unless it names `/`, `%`, `#` or NUL, which stay escaped with upper-case
/// hex; a `%` that starts no escape becomes `%25`; a raw `#` ends the path;
/// every other byte passes unchanged. Stops like [`feed_rfc`].
#[inline]
pub fn feed_decoded(input: &[u8], mut sink: impl FnMut(u8) -> bool) -> bool {
    feed(
        input,
        &mut sink,
        |v, sink| {
            if stays_escaped(v) {
                escaped(v, sink)
            } else {
                sink(v)
            }
        },
        |b, sink| sink(b),
    )
}

/// The walk both modes share: `#` ends the path, `%XY` goes to `escape`
/// with its value, a `%` that starts no escape is emitted as `%25`, any other
/// byte goes to `raw`. Returns `true` when the sink asked to stop.
#[inline(always)]
fn feed<S: FnMut(u8) -> bool>(
    input: &[u8],
    sink: &mut S,
    escape: impl Fn(u8, &mut S) -> bool,
    raw: impl Fn(u8, &mut S) -> bool,
) -> bool {
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        i += 1;
        let stop = match b {
            b'#' => return false,
            b'%' => match (
                input.get(i).copied().and_then(hex_val),
                input.get(i + 1).copied().and_then(hex_val),
            ) {
                (Some(h), Some(l)) => {
                    i += 2;
                    escape((h << 4) | l, sink)
                }
                _ => escaped(b'%', sink),
            },
            _ => raw(b, sink),
        };
        if stop {
            return true;
        }
    }
    false
}

/// Bytes the draft's decoding keeps escaped: `/` (the draft's rule) and the
/// bytes whose raw form means something else here (`%` an escape, `#` and
/// NUL the end of the path).
#[inline]
pub fn stays_escaped(v: u8) -> bool {
    matches!(v, b'/' | b'%' | b'#' | 0)
}

#[inline]
fn escaped(v: u8, sink: &mut impl FnMut(u8) -> bool) -> bool {
    sink(b'%') || sink(HEX[usize::from(v >> 4)]) || sink(HEX[usize::from(v & 0xf)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `feed` sends for `s`, as text.
    fn collect(feed: fn(&[u8], &mut dyn FnMut(u8) -> bool) -> bool, s: &[u8]) -> String {
        let mut out = Vec::new();
        feed(s, &mut |b| {
            out.push(b);
            false
        });
        String::from_utf8_lossy(&out).into_owned()
    }

    fn norm(s: &[u8]) -> String {
        collect(|s, sink| feed_rfc(s, sink), s)
    }

    /// RFC 9309 §2.2.2, "Examples of matching percent-encoded URI components":
    /// the "Path to Match" column.
    #[test]
    fn rfc9309_table_4() {
        assert_eq!(norm(b"/foo/bar?baz=quz"), "/foo/bar?baz=quz");
        assert_eq!(
            norm(b"/foo/bar?baz=http%3A%2F%2Ffoo.bar"),
            "/foo/bar?baz=http%3A%2F%2Ffoo.bar"
        );
        assert_eq!(norm("/foo/bar/ツ".as_bytes()), "/foo/bar/%E3%83%84");
        assert_eq!(norm(b"/foo/bar/%E3%83%84"), "/foo/bar/%E3%83%84");
        assert_eq!(norm(b"/foo/bar/%62%61%7A"), "/foo/bar/baz");
    }

    #[test]
    fn reserved_escapes_are_kept_and_upper_cased() {
        assert_eq!(norm(b"/a%2fb"), "/a%2Fb");
        assert_eq!(norm(b"/a%7ejoe"), "/a~joe");
    }

    #[test]
    fn special_characters_and_stray_percent() {
        assert_eq!(norm(b"/file-with-a-*.html"), "/file-with-a-%2A.html");
        assert_eq!(norm(b"/foo-$"), "/foo-%24");
        assert_eq!(norm(b"/100%"), "/100%25");
        assert_eq!(norm(b"/a b"), "/a%20b");
        assert_eq!(norm(b"/a#frag"), "/a");
    }

    fn decoded(s: &[u8]) -> String {
        collect(|s, sink| feed_decoded(s, sink), s)
    }

    /// The 1996 draft §3.2.2: every escape but `%2F` is decoded.
    #[test]
    fn draft_decoding() {
        assert_eq!(decoded(b"/a%3cd.html"), "/a<d.html");
        assert_eq!(decoded(b"/a%3Cd.html"), "/a<d.html");
        assert_eq!(decoded(b"/a%2fb.html"), "/a%2Fb.html");
        assert_eq!(decoded(b"/%7Ejoe/index.html"), "/~joe/index.html");
        assert_eq!(decoded(b"/100%"), "/100%25");
        assert_eq!(decoded(b"/a%25b%23c%00"), "/a%25b%23c%00");
        assert_eq!(decoded(b"/a#frag"), "/a");
    }

    #[test]
    fn sink_can_stop_early() {
        let mut n = 0;
        assert!(feed_rfc(b"/abcdef", |_| {
            n += 1;
            n == 3
        }));
        assert_eq!(n, 3);
    }
}
