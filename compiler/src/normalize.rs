//! RFC 9309 §2.2.2 normalisation of patterns (URL mode `rfc`).
//!
//! URLs are normalised by the engine as it reads them
//! ([`robocc_engine::normalize::feed_rfc`]); patterns get the same canonical
//! form here, except that `*` stays a wildcard and a final `$` stays the end
//! anchor. A `$` anywhere else is a literal and becomes `%24`, which is also
//! what a literal `$` in a URL becomes.

use robocc_engine::normalize::{feed_rfc, hex_val, is_unreserved, must_encode, HEX};
use robocc_engine::url::path_parts;
use robocc_engine::UrlMode;

/// Normalises a robots.txt pattern (the value as written).
pub fn normalize_pattern(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 8);
    let mut i = 0;
    let push_escaped = |out: &mut Vec<u8>, v: u8| {
        out.extend_from_slice(&[b'%', HEX[usize::from(v >> 4)], HEX[usize::from(v & 0xf)]]);
    };
    while i < raw.len() {
        let b = raw[i];
        i += 1;
        match b {
            b'*' => out.push(b'*'),
            b'$' if i == raw.len() => out.push(b'$'),
            b'%' => match (
                raw.get(i).copied().and_then(hex_val),
                raw.get(i + 1).copied().and_then(hex_val),
            ) {
                (Some(h), Some(l)) => {
                    i += 2;
                    let v = (h << 4) | l;
                    if is_unreserved(v) {
                        out.push(v);
                    } else {
                        push_escaped(&mut out, v);
                    }
                }
                _ => push_escaped(&mut out, b'%'),
            },
            b'$' => push_escaped(&mut out, b),
            _ if must_encode(b) => push_escaped(&mut out, b),
            _ => out.push(b),
        }
    }
    out
}

/// Normalises a URL path (as the engine does on the fly), into a buffer.
pub fn normalize_path(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() + 8);
    feed_rfc(path, |b| {
        out.push(b);
        false
    });
    out
}

/// The path of `url` as matched: extracted as Google does, cut at the first
/// `#` and (Google and draft modes: the engine ends the path there) at the
/// first NUL, and normalised in RFC and draft modes.
pub fn matched_path(url: &[u8], url_mode: UrlMode) -> Vec<u8> {
    let mut path = path_parts(url).to_vec();
    match url_mode {
        UrlMode::Google => {
            if let Some(nul) = path.iter().position(|&b| b == 0) {
                path.truncate(nul);
            }
            path
        }
        UrlMode::Rfc => normalize_path(&path),
        UrlMode::Decode => {
            if let Some(nul) = path.iter().position(|&b| b == 0) {
                path.truncate(nul);
            }
            crate::glob::decode_canonical(&path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        String::from_utf8(normalize_pattern(s.as_bytes())).unwrap()
    }

    #[test]
    fn patterns() {
        assert_eq!(n("/foo/bar/%62%61%7A"), "/foo/bar/baz");
        assert_eq!(n("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
        assert_eq!(n("/a%2fb"), "/a%2Fb");
        assert_eq!(n("/*.php$"), "/*.php$");
        assert_eq!(n("/a$b"), "/a%24b");
        assert_eq!(
            n("/path/file-with-a-%2A.html"),
            "/path/file-with-a-%2A.html"
        );
        assert_eq!(n("/path/foo-%24"), "/path/foo-%24");
        assert_eq!(n("/%7ejoe"), "/~joe");
    }
}
