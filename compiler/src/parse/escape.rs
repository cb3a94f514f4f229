//! Google's `MaybeEscapePattern`: how Allow/Disallow values are encoded
//! before matching in Google mode.
//!
//! Every byte >= 0x80 becomes `%XX`; the hex digits of an existing `%xx`
//! escape are upper-cased; nothing is decoded. Borrows when nothing changes,
//! which is the common case.

use robocc_engine::normalize::{hex_val, HEX};
use std::borrow::Cow;

/// Encodes a pattern the way Google's parser does.
pub fn google_escape(src: &[u8]) -> Cow<'_, [u8]> {
    // Most patterns have neither: one quick scan (every rule of every body
    // is encoded before its first answer).
    if !src.iter().any(|&b| b >= 0x80 || b == b'%') {
        return Cow::Borrowed(src);
    }
    let needs_work = src
        .iter()
        .enumerate()
        .any(|(i, &b)| b >= 0x80 || (b == b'%' && is_escape_with_lower(&src[i..])));
    if !needs_work {
        return Cow::Borrowed(src);
    }
    let mut out = Vec::with_capacity(src.len() + 8);
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        if b == b'%' && is_escape(&src[i..]) {
            out.extend_from_slice(&[
                b'%',
                src[i + 1].to_ascii_uppercase(),
                src[i + 2].to_ascii_uppercase(),
            ]);
            i += 3;
        } else if b >= 0x80 {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            i += 1;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Cow::Owned(out)
}

fn is_escape(s: &[u8]) -> bool {
    s.len() >= 3 && hex_val(s[1]).is_some() && hex_val(s[2]).is_some()
}

fn is_escape_with_lower(s: &[u8]) -> bool {
    is_escape(s) && (s[1].is_ascii_lowercase() || s[2].is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::google_escape;

    #[test]
    fn google_examples() {
        assert_eq!(
            &*google_escape("/SanJoséSellers".as_bytes()),
            b"/SanJos%C3%A9Sellers"
        );
        assert_eq!(&*google_escape(b"%aa"), b"%AA");
        assert_eq!(&*google_escape(b"/a%2fb%"), b"/a%2Fb%");
        assert_eq!(&*google_escape(b"/%zz"), b"/%zz");
        assert!(matches!(
            google_escape(b"/plain"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            &*google_escape("/foo/bar/ツ".as_bytes()),
            b"/foo/bar/%E3%83%84"
        );
    }
}
