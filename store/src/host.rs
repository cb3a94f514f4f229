//! Host keys and redirects: the key a store files a host under (checked
//! here, in the form the engine's [`HostKey`] reads a URL's host in), which
//! host a redirect leads to, and a `Location` made absolute.

// The host-key normaliser has one home, the engine (feature `idna`), so
// that a build files hosts exactly as a lookup reads them.
use robocc_engine::HostKey;
pub use robocc_engine::{host_key, idna_lookup_url, url_host_key, HostKeyError};
use std::collections::HashMap;

/// Redirect hops followed (RFC 9309 §2.3.1.2: at least five): the fetch
/// rules' ([`robocc_compiler::fetch`]).
pub const MAX_REDIRECTS: usize = robocc_compiler::fetch::MAX_REDIRECTS as usize;

/// Whether a fetch result is a redirect to its own host key (another
/// scheme or path on the same host): such a result never replaces another
/// one of the same host (see [`StoreBuilder`](crate::StoreBuilder) on duplicates).
pub fn is_self_redirect(key: &str, status: u16, location: Option<&str>) -> bool {
    (300..=399).contains(&status)
        && location
            .and_then(|l| HostKey::of_url(l.as_bytes()))
            .is_some_and(|k| k.to_key() == key)
}

/// Whether a URL names a host's robots.txt (its path is exactly
/// `/robots.txt`): what a WARC capture must be to count as its host's
/// robots.txt, and what a redirect's target must be to be followed within
/// the input (the inputs hold robots.txt files only, never the document at
/// another path). The fetch rules' ([`robocc_compiler::fetch`]).
pub use robocc_compiler::fetch::is_robots_txt_url;

/// The host key a redirect leads to within the input: the `location`'s
/// host, when the location is a robots.txt ([`is_robots_txt_url`]). A
/// redirect to any other document has no target in the input (only
/// robots.txt captures are inputs), so it resolves as one to a host not in
/// the input: unreachable.
pub fn redirect_target(location: Option<&str>) -> Option<String> {
    let location = location.filter(|l| is_robots_txt_url(l))?;
    HostKey::of_url(location.as_bytes()).map(|k| k.to_key())
}

/// A `Location` made absolute against `origin` (`scheme://authority`) of
/// the response to `origin/robots.txt`, as a browser resolves it (RFC 3986
/// §5.2, dot segments removed; [`robocc_compiler::fetch::resolve`]): a
/// relative `/robots.txt` from `a.example` is `scheme://a.example/robots.txt`.
/// An absolute URL is kept as written.
pub fn absolute_location(location: &str, origin: &str) -> String {
    robocc_compiler::fetch::resolve(location, &format!("{origin}/robots.txt"))
}

/// The shard of a store set of `shards` shards that a host key (as
/// [`host_key`] returns it) belongs to: FNV-1a 64 of the key, mod `shards`
/// (docs/artifact.md, "Store sets").
pub fn shard_of_key(key: &str, shards: usize) -> usize {
    let hash = HostKey::of_key(key).map_or(0, |k| k.hash());
    robocc_engine::shard_of_hash(hash, shards.max(1))
}

/// For each host whose status is a redirect, the other hosts its
/// resolution may read (the chain of redirect targets present in the table,
/// up to one hop past [`MAX_REDIRECTS`]), in order. `table` is every host
/// of a build as (host key, status, location): no bodies, so a driver can
/// hold it for millions of hosts. A job that builds one shard at a time
/// gives each shard these hosts too ([`StoreBuilder::build_shard`](crate::StoreBuilder::build_shard)). Give each host
/// once (duplicates resolved as a build does).
pub fn redirect_dependencies(
    table: &[(String, u16, Option<String>)],
) -> HashMap<String, Vec<String>> {
    let mut by_key: HashMap<&str, (u16, Option<&str>)> = HashMap::new();
    for (key, status, location) in table {
        by_key.insert(key, (*status, location.as_deref()));
    }
    let target = |status: u16, location: Option<&str>| -> Option<String> {
        if !(300..=399).contains(&status) {
            return None;
        }
        let key = redirect_target(location)?;
        by_key.contains_key(key.as_str()).then_some(key)
    };
    let mut out = HashMap::new();
    for (key, &(status, location)) in &by_key {
        let mut chain: Vec<String> = Vec::new();
        let mut next = target(status, location);
        while let Some(t) = next {
            if chain.len() > MAX_REDIRECTS || chain.contains(&t) {
                break;
            }
            let (s, l) = by_key[t.as_str()];
            next = target(s, l);
            chain.push(t);
        }
        chain.retain(|t| t != key);
        if !chain.is_empty() {
            out.insert(key.to_string(), chain);
        }
    }
    out
}

/// A host whose body took the split path or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostNote {
    /// Host key.
    pub host: String,
    /// What happened.
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A URL whose host is a Unicode name is looked up at its IDNA key
    /// instead, with the port the engine reads from the URL; any other URL
    /// as written (ASCII hosts need nothing, and no key is invented for a
    /// host no build accepts).
    #[test]
    fn idna_lookup_url_is_the_key_a_build_stores() {
        let cases: [(&[u8], Option<&str>); 11] = [
            (
                b"http://b\xc3\xbccher.example:08080/p",
                Some("//xn--bcher-kva.example:8080/"),
            ),
            // Another scheme's default port is a port, as for ASCII hosts.
            (
                b"http://b\xc3\xbccher.example:443/p",
                Some("//xn--bcher-kva.example:443/"),
            ),
            (
                b"ftp://b\xc3\xbccher.example:80/p",
                Some("//xn--bcher-kva.example:80/"),
            ),
            (
                b"https://B\xc3\xbccher.example/p?q",
                Some("//xn--bcher-kva.example/"),
            ),
            (
                b"http://b\xc3\xbccher.example:8080/p",
                Some("//xn--bcher-kva.example:8080/"),
            ),
            (
                b"https://b\xc3\xbccher.example:443/p",
                Some("//xn--bcher-kva.example/"),
            ),
            (
                b"//b\xc3\xbccher.example./p",
                Some("//xn--bcher-kva.example/"),
            ),
            (b"https://Buecher.example/p", None),
            (b"https://xn--bcher-kva.example/p", None),
            (b"https://a..b\xc3\xbc/p", None),
            (b"/b\xc3\xbccher/p", None),
        ];
        for (url, want) in cases {
            let got = idna_lookup_url(url);
            assert_eq!(got.as_deref(), want, "{}", String::from_utf8_lossy(url));
            if let Some(k) = got {
                // The engine reads there the port it reads from `url`, and
                // the name a build stores for the host written in `url`.
                let (w, a) = (
                    HostKey::of_url(url).unwrap(),
                    HostKey::of_url(k.as_bytes()).unwrap(),
                );
                assert_eq!(w.port, a.port, "{k}");
                let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
                assert_eq!(host_key(&text(w.host)), Ok(text(a.host)), "{k}");
            }
        }
    }

    #[test]
    fn host_keys_are_validated() {
        assert_eq!(host_key("Example.COM").as_deref(), Ok("example.com"));
        assert_eq!(host_key("example.com:443").as_deref(), Ok("example.com"));
        assert_eq!(
            host_key("example.com:8080").as_deref(),
            Ok("example.com:8080")
        );
        assert_eq!(host_key("[::1]:8443").as_deref(), Ok("[::1]:8443"));
        assert_eq!(host_key("10.0.0.1").as_deref(), Ok("10.0.0.1"));
        assert_eq!(
            host_key("Bücher.Example:8080").as_deref(),
            Ok("xn--bcher-kva.example:8080")
        );
        // As URL parsers read hosts (stores audit F14, F21).
        for (given, key) in [
            ("my_blog.Example.com", "my_blog.example.com"),
            ("_dmarc.example.com", "_dmarc.example.com"),
            ("dot.example.", "dot.example"),
            ("Dot.Example.:8080", "dot.example:8080"),
            ("zero.example:080", "zero.example"),
            ("zero.example:08080", "zero.example:8080"),
            ("zero.example:", "zero.example"),
            ("[2001:DB8:0:0::1]", "[2001:db8::1]"),
            ("[2001:db8::1]:0443", "[2001:db8::1]"),
            ("[::FFFF:1.2.3.4]:8080", "[::ffff:1.2.3.4]:8080"),
            ("Bücher.Example.", "xn--bcher-kva.example"),
        ] {
            assert_eq!(host_key(given).as_deref(), Ok(key), "{given}");
            // The key a URL of that host looks up (http: 80 is its
            // default; 443 is https's).
            if given.is_ascii() {
                let scheme = if given.contains("443") {
                    "https"
                } else {
                    "http"
                };
                let url = format!("{scheme}://{given}/p");
                let k = HostKey::of_url(url.as_bytes()).unwrap();
                assert_eq!(k.to_key(), key, "{url}");
            }
        }
        // Refused, with the reason.
        for (bad, why) in [
            ("dots.example..", "an empty label"),
            ("[]", "[] is not an IPv6 address"),
            ("[1.2.3]", "is not an IPv6 address"),
            ("[::1", "lacks its ']'"),
            ("[::1]x", "may follow"),
            ("::1", "in brackets"),
            ("user:pw@ui.example", "without user information"),
            ("a.example:8080:80", "more than one ':'"),
            (
                &format!("{}.example", "a".repeat(64)),
                "a label of 64 bytes",
            ),
            ("a.example:0080a", "not a number"),
            ("a.example:065536", "not a number"),
            ("a*b.example", "'*' in a label"),
            ("a.123", "a.123 ends in a number"),
            ("1.2.3", "ends in a number"),
            ("A.0X1F.", "a.0x1f ends in a number"),
            ("0x", "ends in a number"),
            ("1.2.3.04", "ends in a number"),
        ] {
            let e = host_key(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        for bad in [
            "",
            "https://b.com/",
            "protego++github.com",
            "a..b",
            "-a.com",
            "exa mple.com",
            "a\u{0}b.com",
            "a.com:0",
            "a.com:99999",
        ] {
            assert!(host_key(bad).is_err(), "{bad:?} accepted");
        }
    }

    /// Which URLs are a host's robots.txt, and how a `Location` is made
    /// absolute.
    #[test]
    fn robots_txt_urls_and_locations() {
        for yes in [
            "https://a.com/robots.txt",
            "HTTP://A.COM:8080/robots.txt",
            "//a.com/robots.txt",
            "https://u@a.com/robots.txt?x#y",
            "https://a.com/robots.txt#f",
        ] {
            assert!(is_robots_txt_url(yes), "{yes}");
        }
        for no in [
            "https://a.com/",
            "https://a.com",
            "https://a.com/robots_a.txt",
            "https://a.com/ROBOTS.TXT",
            "https://a.com/x/robots.txt",
            "https://a.com/robots.txt/",
            "/robots.txt",
            "dns:a.com",
        ] {
            assert!(!is_robots_txt_url(no), "{no}");
        }
        let o = "https://a.com:8443";
        for (l, want) in [
            ("/robots.txt", "https://a.com:8443/robots.txt"),
            ("robots.txt", "https://a.com:8443/robots.txt"),
            ("./x/../robots.txt", "https://a.com:8443/robots.txt"),
            ("/a/../../robots.txt?q", "https://a.com:8443/robots.txt?q"),
            ("?lang=en", "https://a.com:8443/robots.txt?lang=en"),
            ("//b.com/robots.txt", "https://b.com/robots.txt"),
            ("http://c.com/robots.txt", "http://c.com/robots.txt"),
            ("/x/", "https://a.com:8443/x/"),
        ] {
            assert_eq!(absolute_location(l, o), want, "{l}");
        }
        assert_eq!(
            redirect_target(Some("https://B.com:443/robots.txt")).as_deref(),
            Some("b.com")
        );
        assert_eq!(redirect_target(Some("https://b.com/")), None);
    }
}
