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

fn is_path_start(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b';')
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
pub fn path_parts(url: &[u8]) -> PathParts<'_> {
    const ROOT: PathParts<'static> = PathParts {
        slash: true,
        rest: b"",
    };
    // Initial two slashes (a network-path reference) are skipped.
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let early_path = url[search_start..]
        .iter()
        .position(|&b| is_path_start(b))
        .map(|p| p + search_start);
    // "://" only marks a scheme when it comes before any path character; as it
    // contains '/', it can only start at or just before `early_path`.
    let proto_window_end = early_path.map_or(url.len(), |e| (e + 3).min(url.len()));
    let protocol = url[search_start..proto_window_end]
        .windows(3)
        .position(|w| w == b"://")
        .map(|p| p + search_start)
        .filter(|&p| early_path.is_none_or(|e| e >= p));
    let authority_start = protocol.map_or(search_start, |p| p + 3);
    let Some(path_start) = url[authority_start..]
        .iter()
        .position(|&b| is_path_start(b))
        .map(|p| p + authority_start)
    else {
        return ROOT;
    };
    // A fragment that starts before the path leaves nothing of it.
    if url[search_start..path_start].contains(&b'#') {
        return ROOT;
    }
    let rest = &url[path_start..];
    PathParts {
        slash: rest[0] != b'/',
        rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn params_and_query_get_a_slash() {
        assert_eq!("/;x", p("http://a.com;x"));
        assert!(path_parts(b"http://a.com?q").slash);
        assert!(!path_parts(b"http://a.com/q").slash);
    }
}
