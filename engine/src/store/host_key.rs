//! [`HostKey`]: the host of a URL as a store keys it, read without
//! allocating, and the hashes a store and a store set find it by.

use super::layout::le_u64;
use crate::artifact::fnv1a64_iter;
use crate::url::{path_parts, path_parts_after, scan_authority, PathParts};
use std::cmp::Ordering;

/// The host part of a URL as the store keys it, borrowed: `host` is compared
/// lower-cased, `port` is present only when it is not the scheme's default.
///
/// A URL's host is read as URL parsers normalise it: one trailing dot is
/// dropped (`a.example.` is `a.example`), a port's leading zeros too
/// (`:080` is `:80`, the default of http), and an IPv6 literal is keyed in
/// its canonical form (`[2001:DB8:0:0::1]` is `[2001:db8::1]`, as
/// [`std::net::Ipv6Addr`] prints it: RFC 5952), held inline, so nothing is
/// allocated. Builders store keys in that form (docs/artifact.md, "Keys").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostKey<'a> {
    /// Host bytes as written (any case; without the dropped trailing dot).
    /// An IPv6 literal's key is its canonical form, not these bytes.
    pub host: &'a [u8],
    /// Port digits, when not the scheme default (without leading zeros).
    pub port: Option<&'a [u8]>,
    /// An IPv6 literal's canonical text (brackets included), when `host`
    /// is one.
    v6: Option<V6Text>,
}

/// The canonical text of an IPv6 literal, `[` and `]` included (at most
/// 41 bytes: eight groups of four hex digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct V6Text {
    len: u8,
    text: [u8; V6_TEXT],
}

const V6_TEXT: usize = 48;

impl V6Text {
    /// The canonical form of `host` when it is an IPv6 literal in brackets
    /// (`None` otherwise, or when what the brackets hold is not an IPv6
    /// address: such a host is keyed as written, and no builder stores it).
    fn of(host: &[u8]) -> Option<V6Text> {
        use std::io::Write;
        let inner = host.strip_prefix(b"[")?.strip_suffix(b"]")?;
        let addr: std::net::Ipv6Addr = std::str::from_utf8(inner).ok()?.parse().ok()?;
        let mut text = [0u8; V6_TEXT];
        let mut w = &mut text[..];
        write!(w, "[{addr}]").ok()?;
        let len = V6_TEXT - w.len();
        Some(V6Text {
            len: len as u8,
            text,
        })
    }

    fn bytes(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }
}

/// `port` without its leading zeros (one `0` is kept of all zeros).
#[inline]
fn trim_port_zeros(port: &[u8]) -> &[u8] {
    match port.iter().position(|&b| b != b'0') {
        Some(at) => &port[at..],
        None => &port[port.len().saturating_sub(1)..],
    }
}

/// Whether `host` is not read as an IPv4 address by the WHATWG URL standard
/// or is one written as everyone reads it: a host whose last label is a
/// number (digits, or `0x` and hex digits) is an IPv4 address there
/// (`1.2.3` is `1.2.0.3`, `0x7f.1` is `127.0.0.1`) while RFC 3986 parsers
/// read it as a name, so only four decimal parts of 0 to 255 without
/// leading zeros are both.
#[inline]
pub(super) fn number_is_ipv4(host: &[u8]) -> bool {
    let last = match host.iter().rposition(|&b| b == b'.') {
        Some(dot) => &host[dot + 1..],
        None => host,
    };
    let number = match last {
        [b'0', b'x' | b'X', hex @ ..] => hex.iter().all(u8::is_ascii_hexdigit),
        _ => !last.is_empty() && last.iter().all(u8::is_ascii_digit),
    };
    if !number {
        return true;
    }
    let mut parts = 0;
    for part in host.split(|&b| b == b'.') {
        let canonical = match part {
            [b'0'] => true,
            [b'1'..=b'9', ..] if part.len() <= 3 => {
                part.iter().all(u8::is_ascii_digit) && (part.len() < 3 || part <= &b"255"[..])
            }
            _ => false,
        };
        parts += 1;
        if !canonical || parts > 4 {
            return false;
        }
    }
    parts == 4
}

/// Whether two readings of a URL's path found the same bytes.
#[inline]
fn same_start(a: PathParts<'_>, b: PathParts<'_>) -> bool {
    a.slash == b.slash
        && a.rest.len() == b.rest.len()
        && (a.rest.is_empty() || a.rest.as_ptr() == b.rest.as_ptr())
}

/// `host` without one trailing dot (an IPv6 literal's brackets keep what
/// they hold).
#[inline]
fn trim_host_dot(host: &[u8]) -> &[u8] {
    match host {
        [rest @ .., b'.'] if host.first() != Some(&b'[') => rest,
        _ => host,
    }
}

impl<'a> HostKey<'a> {
    /// Extracts the host of an absolute URL (`scheme://[user@]host[:port]…`)
    /// or of a network-path reference (`//host/…`). `None` for a bare path.
    pub fn of_url(url: &'a [u8]) -> Option<HostKey<'a>> {
        HostKey::of_url_and_path(url).map(|(k, _)| k)
    }

    /// [`HostKey::of_url`], and where the URL's authority ends (the first
    /// `/`, `?` or `#` after it, or the URL's length), which is where
    /// [`path_parts`](crate::url::path_parts) finds the path too: a URL
    /// for which Google's reading would start the path elsewhere (at a `;`
    /// inside the authority, or after a `://` that follows a `//host`) has
    /// no host here, so that host and path are never read from two
    /// different places.
    ///
    /// The host is what URL parsers agree it is (RFC 3986 and the WHATWG
    /// URL standard, hence `urllib`, `requests`, curl and browsers): what
    /// follows the last `@` of the authority. An authority they read
    /// differently gives no host: one with a backslash (a path separator to
    /// WHATWG), a space, a control byte or DEL (tab and newline are dropped
    /// by WHATWG), a `;` (where Google's path starts), a `%` or bracket in
    /// the host outside an IPv6 literal, or a port that is not a number up
    /// to 65535.
    #[inline]
    pub(crate) fn of_url_and_path(url: &'a [u8]) -> Option<(HostKey<'a>, usize)> {
        // The schemes crawlers fetch, written in lower case, skip the search
        // for `://` (the general reading gives the same key for them).
        let (scheme, from, plain_scheme) = if url.starts_with(b"https://") {
            (&url[..5], 8, true)
        } else if url.starts_with(b"http://") {
            (&url[..4], 7, true)
        } else {
            let (scheme, rest) = HostKey::scheme_and_rest(url)?;
            (scheme, url.len() - rest.len(), false)
        };
        // One pass finds where the authority ends and whether it holds
        // anything but a host; usually not, and the authority is the host.
        let (end, marked) = scan_authority(url, from);
        let end = end.unwrap_or(url.len());
        let authority = &url[from..end];
        let key = if !marked {
            let host = trim_host_dot(authority);
            if host.is_empty() || !number_is_ipv4(host) {
                return None;
            }
            HostKey {
                host,
                port: None,
                v6: None,
            }
        } else {
            let default = if scheme.eq_ignore_ascii_case(b"https") {
                Some(&b"443"[..])
            } else if scheme.eq_ignore_ascii_case(b"http") {
                Some(&b"80"[..])
            } else {
                None
            };
            HostKey::of_url_authority(authority)?.normalised(default)?
        };
        // After `http://` or `https://` Google's path starts at the first
        // `/ ? ; #`, which is `end` when the authority holds no `;` (such
        // an authority has no host above). Otherwise ask Google's reading.
        if !plain_scheme && !same_start(path_parts(url), path_parts_after(url, end)) {
            return None;
        }
        Some((key, end))
    }

    /// The host and port of a URL's authority that holds a mark
    /// ([`crate::url::is_authority_mark`]), read strictly: `None` wherever
    /// URL parsers disagree on it ([`HostKey::of_url_and_path`]).
    fn of_url_authority(authority: &'a [u8]) -> Option<HostKey<'a>> {
        if authority
            .iter()
            .any(|&b| matches!(b, b'\\' | b';' | 0x7f) || b <= b' ')
        {
            return None;
        }
        let hostport = match authority.iter().rposition(|&b| b == b'@') {
            // Brackets in the user information: urllib refuses the URL.
            Some(at) if authority[..at].iter().any(|&b| matches!(b, b'[' | b']')) => return None,
            Some(at) => &authority[at + 1..],
            None => authority,
        };
        let (host, port) = if hostport.first() == Some(&b'[') {
            let close = hostport.iter().position(|&b| b == b']')?;
            let (host, after) = hostport.split_at(close + 1);
            V6Text::of(host)?;
            match after {
                [] => (host, None),
                [b':', port @ ..] => (host, Some(port)),
                _ => return None,
            }
        } else {
            let (host, port) = match hostport.iter().position(|&b| b == b':') {
                Some(c) => (&hostport[..c], Some(&hostport[c + 1..])),
                None => (hostport, None),
            };
            if host
                .iter()
                .any(|&b| matches!(b, b'[' | b']' | b'%' | b'<' | b'>' | b'^' | b'|'))
            {
                return None;
            }
            (host, port)
        };
        // An empty port is none, as URL parsers read it.
        let port = match port.filter(|p| !p.is_empty()) {
            None => None,
            Some(p) => {
                let digits = trim_port_zeros(p);
                let number = p.iter().all(u8::is_ascii_digit)
                    && (digits.len() < 5 || (digits.len() == 5 && digits <= &b"65535"[..]));
                if !number {
                    return None;
                }
                Some(p)
            }
        };
        Some(HostKey {
            host,
            port,
            v6: None,
        })
    }

    /// The URL reading of a key split from an authority: one trailing dot
    /// dropped, the port's leading zeros (and then a default port) too, an
    /// IPv6 literal's canonical form. `None` when no host is left.
    fn normalised(mut self, default: Option<&[u8]>) -> Option<HostKey<'a>> {
        self.host = trim_host_dot(self.host);
        if self.host.is_empty() || !number_is_ipv4(self.host) {
            return None;
        }
        self.port = self
            .port
            .map(trim_port_zeros)
            .filter(|p| Some(*p) != default);
        if self.host.first() == Some(&b'[') {
            self.v6 = V6Text::of(self.host);
        }
        Some(self)
    }

    /// The scheme and what follows `://` (any scheme, any case), or an
    /// empty scheme and what follows a leading `//`.
    fn scheme_and_rest(url: &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
        match url.windows(3).position(|w| w == b"://") {
            Some(i)
                if url[..i]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)) =>
            {
                Some((&url[..i], &url[i + 3..]))
            }
            _ if url.starts_with(b"//") => Some((&b""[..], &url[2..])),
            _ => None,
        }
    }

    /// Reads a stored key (`host` or `host:port`, no scheme) as it is: the
    /// key's bytes are the stored ones, normalised or not (a store's
    /// validation compares them with the key a URL gives).
    pub fn of_key(key: &'a str) -> Option<HostKey<'a>> {
        let key = key.as_bytes();
        // Usually none of '@', ':' or ']' is there: the key is the host
        // (eight bytes at a time).
        if !any_of_at_colon_bracket(key) {
            return (!key.is_empty()).then_some(HostKey {
                host: key,
                port: None,
                v6: None,
            });
        }
        HostKey::of_marked_authority(key, None)
    }

    /// A key split from an authority known to hold an `@`, `:` or `]`.
    fn of_marked_authority(authority: &'a [u8], default: Option<&[u8]>) -> Option<HostKey<'a>> {
        // One pass from the end: the host follows the last '@'; the port
        // follows the last ':' after it, unless a ']' comes later (`[v6]`
        // keeps its colons and brackets in the host).
        let (mut start, mut colon, mut bracket, mut decided) = (0, None, false, false);
        for (i, &b) in authority.iter().enumerate().rev() {
            match b {
                b'@' => {
                    start = i + 1;
                    break;
                }
                b']' => bracket = true,
                b':' if !decided => {
                    decided = true;
                    colon = (!bracket).then_some(i);
                }
                // A second port separator (`a.example:8080:80`): not a
                // host. (Read as one, its key would be stored with the
                // port split off, and hashed otherwise.)
                b':' if colon.is_some() && !bracket => return None,
                _ => {}
            }
        }
        let (host, port) = match colon {
            Some(c) => (&authority[start..c], Some(&authority[c + 1..])),
            None => (&authority[start..], None),
        };
        if host.is_empty() {
            return None;
        }
        let port = port.filter(|p| !p.is_empty() && Some(*p) != default);
        Some(HostKey {
            host,
            port,
            v6: None,
        })
    }

    /// The host as keyed (before lower-casing): an IPv6 literal's canonical
    /// form, else the host as written.
    #[inline]
    fn key_host(&self) -> &[u8] {
        match &self.v6 {
            Some(v6) => v6.bytes(),
            None => self.host,
        }
    }

    /// The key's bytes as stored: lower-cased host, then `:port`.
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let port: &[u8] = self.port.unwrap_or(b"");
        let colon: &'static [u8] = if self.port.is_some() { b":" } else { b"" };
        self.key_host()
            .iter()
            .map(u8::to_ascii_lowercase)
            .chain(colon.iter().copied())
            .chain(port.iter().copied())
    }

    /// The store sets' partition hash of the key: FNV-1a 64 of its stored
    /// bytes, computed on the fly (docs/artifact.md, "Store sets").
    pub fn hash(&self) -> u64 {
        fnv1a64_iter(self.bytes())
    }

    /// The slot table's hash of the key (store format 8): eight bytes at a
    /// time, the host lower-cased on the way, so that a lookup does not pay
    /// FNV-1a's multiply per byte. Not the store sets' partition hash
    /// ([`HostKey::hash`]), which is documented for other languages.
    /// `seed` is the store's (the seed its index names). With the `build`
    /// feature (for builders, tools and benchmarks).
    #[cfg(feature = "build")]
    #[inline]
    pub fn slot_hash(&self, seed: u64) -> u64 {
        self.seeded_hash(seed)
    }

    /// [`HostKey::slot_hash`], for the store's own lookups.
    #[inline]
    pub(crate) fn seeded_hash(&self, seed: u64) -> u64 {
        let mut h = words_hash(SLOT_SEED ^ seed, self.key_host(), true);
        if let Some(p) = self.port {
            h = words_hash(h ^ PORT_MARK, p, false);
        }
        fold_mul(h, MIX_B)
    }

    /// Compares this key with a stored (lower-cased) key, byte by byte,
    /// without building the key.
    pub fn cmp_stored(&self, stored: &[u8]) -> Ordering {
        self.bytes().cmp(stored.iter().copied())
    }

    /// `cmp_stored(stored) == Equal` for a stored key as stores hold them
    /// (lower case; [`Store::validate_all`](crate::Store::validate_all) refuses others), faster: URLs
    /// usually write the host in lower case already, so one `memcmp`
    /// decides.
    #[inline]
    pub fn eq_stored(&self, stored: &[u8]) -> bool {
        let key_host = self.key_host();
        let Some((host, rest)) = stored.split_at_checked(key_host.len()) else {
            return false;
        };
        let port_matches = match self.port {
            None => rest.is_empty(),
            Some(p) => rest.first() == Some(&b':') && &rest[1..] == p,
        };
        port_matches
            && (key_host == host
                || key_host
                    .iter()
                    .zip(host)
                    .all(|(a, b)| a.to_ascii_lowercase() == *b))
    }

    /// The key as stored (for builders and messages).
    pub fn to_key(&self) -> String {
        String::from_utf8_lossy(&self.bytes().collect::<Vec<u8>>()).into_owned()
    }
}

const SLOT_SEED: u64 = 0x243f_6a88_85a3_08d3;
const PORT_MARK: u64 = 0x1319_8a2e_0370_7344;
const MIX_A: u64 = 0xa409_3822_299f_31d0;
const MIX_B: u64 = 0x082e_fa98_ec4e_6c89;

/// The 128-bit product's halves folded together: every input bit reaches
/// the middle bits of the result.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// ASCII upper-case letters of a little-endian word lower-cased (other
/// bytes, non-ASCII included, unchanged), as `u8::to_ascii_lowercase`
/// does byte by byte.
#[inline(always)]
fn lower_word(w: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HI: u64 = 0x8080_8080_8080_8080;
    let low = w & LO7;
    // High bit of each byte: its low seven bits are >= 'A', and > 'Z'.
    let ge_a = low.wrapping_add(0x3f3f_3f3f_3f3f_3f3f);
    let gt_z = low.wrapping_add(0x2525_2525_2525_2525);
    let upper = ge_a & !gt_z & !w & HI;
    w | (upper >> 2)
}

/// Mixes `bytes` into `h` a word at a time; the length goes in last, so
/// that trailing zero bytes count.
#[inline(always)]
fn words_hash(mut h: u64, bytes: &[u8], lower: bool) -> u64 {
    let word = |w: u64| if lower { lower_word(w) } else { w };
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = fold_mul(h ^ word(le_u64(c)), MIX_A);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // The last bytes, zero-padded to a word: from a word read that ends
        // with them, shifted down, when there are eight bytes to read (no
        // copy of a variable length).
        let last = match bytes.len().checked_sub(8) {
            Some(at) => le_u64(&bytes[at..]) >> (8 * (8 - rest.len())),
            None => {
                let mut b = [0u8; 8];
                b[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(b)
            }
        };
        h = fold_mul(h ^ word(last), MIX_A);
    }
    h ^ bytes.len() as u64
}

/// Whether `bytes` hold an `@`, `:` or `]` (SWAR, eight at a time).
#[inline]
fn any_of_at_colon_bracket(bytes: &[u8]) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        // The zero test can flag a lane above a real zero lane, never one
        // without a zero lane below it: "any" is exact.
        if zero(w ^ (LO * u64::from(b'@')))
            | zero(w ^ (LO * u64::from(b':')))
            | zero(w ^ (LO * u64::from(b']')))
            != 0
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|b| matches!(b, b'@' | b':' | b']'))
}

#[cfg(test)]
mod tests {
    use super::{lower_word, HostKey};
    use crate::store::layout::SEEDS;
    use crate::url::{path_parts, path_parts_after};

    /// The fast comparison agrees with the byte-by-byte one on stored
    /// (lower-case) keys.
    #[test]
    fn eq_stored_is_cmp_stored_equal() {
        let stored = [
            "a.example",
            "a.example:8080",
            "a.example:",
            "b.example",
            "a.exampl",
            "",
        ];
        let urls = [
            "https://a.example/",
            "https://A.Example/",
            "https://a.example:8080/",
            "https://A.EXAMPLE:8080/",
            "https://a.example:8081/",
            "https://a.exampl/",
            "https://a.examplee/",
            "https://b.example/",
            "http://a.example:80/",
        ];
        for u in urls {
            let k = HostKey::of_url(u.as_bytes()).unwrap();
            for st in stored {
                assert_eq!(
                    k.eq_stored(st.as_bytes()),
                    k.cmp_stored(st.as_bytes()) == std::cmp::Ordering::Equal,
                    "{u} {st:?}"
                );
            }
        }
    }

    /// Where a store lookup says the path starts, it is where the engine's
    /// own reading finds it.
    #[test]
    fn the_lookup_finds_the_path_the_engine_reads() {
        let urls = [
            "https://a.example/x?y#z",
            "https://a.example",
            "https://a.example?q",
            "https://a.example/;p",
            "https://a.example#f/x",
            "https://u:p@a.example:8443/x",
            "HTTPS://A.example/x",
            "ftp://a.example/x",
            "x+y.z://a.example/x",
            "://a.example/x",
            "//a.example/x",
            "//a://b/c",
            "https://a.example//x",
            "http://a.example:80",
            "https://a.example/\u{e9}",
            "a.example/x",
            "https:/a.example/x",
        ];
        let mut found = 0;
        for url in urls {
            let Some((_, end)) = HostKey::of_url_and_path(url.as_bytes()) else {
                continue;
            };
            found += 1;
            assert_eq!(
                path_parts_after(url.as_bytes(), end),
                path_parts(url.as_bytes()),
                "{url}"
            );
        }
        assert!(found >= 13, "{found}");
        // Where Google's reading would start the path elsewhere than after
        // the authority, there is no host.
        for url in ["//a://b/c", "https://a.example;p", "x://a.example;p/q"] {
            assert_eq!(HostKey::of_url_and_path(url.as_bytes()), None, "{url}");
        }
    }

    fn key(url: &str) -> Option<String> {
        HostKey::of_url(url.as_bytes()).map(|k| k.to_key())
    }

    /// A key of these bytes, as stored.
    fn raw_key<'a>(host: &'a [u8], port: Option<&'a [u8]>) -> HostKey<'a> {
        HostKey {
            host,
            port,
            v6: None,
        }
    }

    #[test]
    fn host_keys() {
        assert_eq!(key("https://Example.COM/a").as_deref(), Some("example.com"));
        assert_eq!(
            key("https://example.com:443/a").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            key("http://example.com:443/a").as_deref(),
            Some("example.com:443")
        );
        assert_eq!(
            key("http://user:pw@example.com:8080?q").as_deref(),
            Some("example.com:8080")
        );
        assert_eq!(key("//example.com/x").as_deref(), Some("example.com"));
        assert_eq!(key("https://[::1]:8443/").as_deref(), Some("[::1]:8443"));
        assert_eq!(key("https://[::1]/").as_deref(), Some("[::1]"));
        assert_eq!(key("/just/a/path"), None);
        assert_eq!(key("https:///nohost"), None);
        // The lower-case http(s) fast path and the general reading agree.
        for (fast, general) in [
            ("https://example.com/x", "HTTPS://example.com:443/x"),
            ("http://example.com:8080/", "HtTp://example.com:8080/"),
            ("https://example.com", "//example.com"),
        ] {
            assert_eq!(key(fast), key(general), "{fast} {general}");
        }
        assert_eq!(
            key("ftp://files.example/x").as_deref(),
            Some("files.example")
        );
        assert_eq!(key("http:/example.com/x"), None);
        assert_eq!(key("https://"), None);
        // FNV-1a 64's published vectors.
        assert_eq!(crate::artifact::fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(crate::artifact::fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(crate::artifact::fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            key("https://u@h:1@x.example/").as_deref(),
            Some("x.example")
        );
        assert_eq!(key("https://x.example:/p").as_deref(), Some("x.example"));
        assert_eq!(key("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(key("http://[::1:80]/").as_deref(), Some("[::1:80]"));
        assert_eq!(
            key("http://x.example:65535/").as_deref(),
            Some("x.example:65535")
        );
        assert_eq!(
            key("http://x.example:065535/").as_deref(),
            Some("x.example:65535")
        );
        assert_eq!(key("http://x.example:65536/"), None);
        assert_eq!(key("http://x.example:8o/"), None);
        assert_eq!(key("https://h@/x"), None);
        assert_eq!(key("https://@x.example/").as_deref(), Some("x.example"));
        let k = HostKey::of_url(b"https://Example.com:8443/x").unwrap();
        assert_eq!(
            k.hash(),
            HostKey::of_key("example.com:8443").unwrap().hash()
        );
        assert_eq!(
            k.slot_hash(0),
            HostKey::of_key("example.com:8443").unwrap().slot_hash(0)
        );
    }

    /// The host is what follows the last `@` before the first `/ ? #`, as
    /// RFC 3986 and WHATWG read it; where URL parsers disagree there is no
    /// host (issue 41, item 1: `;` used to end the authority, so
    /// `https://allowed.example;@victim.example/private` was answered from
    /// allowed.example's policy while clients fetch victim.example).
    #[test]
    fn the_host_is_the_one_url_parsers_fetch() {
        for (url, want) in [
            ("https://allowed.example;@victim.example/private", None),
            ("https://[::1];@victim.example/", None),
            (
                "https://a.example@victim.example/private",
                Some("victim.example"),
            ),
            (
                "https://a.example:pw@victim.example/",
                Some("victim.example"),
            ),
            ("https://a@b@victim.example/", Some("victim.example")),
            // urllib refuses brackets outside the host.
            ("https://[::1]@victim.example/", None),
            ("https://a[@victim.example/", None),
            (
                "https://a.example%40@victim.example/",
                Some("victim.example"),
            ),
            ("https://victim.example#@a.example/", Some("victim.example")),
            ("https://victim.example?@a.example/", Some("victim.example")),
            // WHATWG reads a backslash as '/', RFC 3986 parsers as a host byte.
            ("https://a.example\\@victim.example/", None),
            ("https://victim.example\\x/", None),
            // WHATWG drops tab and newline; others keep them.
            ("https://vic\ttim.example/", None),
            ("https://victim.example\n/", None),
            ("https://vic tim.example/", None),
            ("https://victim%2Eexample/", None),
            ("https://victim.example%2F/", None),
            ("https://a.example;x/", None),
            ("https://[v1.x]/", None),
            ("https://x[y]/", None),
            ("https://[::1]x/", None),
            ("https://[::1]:x/", None),
            ("https://[::1/", None),
        ] {
            assert_eq!(key(url).as_deref(), want, "{url}");
        }
    }

    /// A URL's host is read as URL parsers normalise it, so that it finds
    /// the key a builder stored (stores audit F21).
    #[test]
    fn url_hosts_are_normalised_as_url_parsers_do() {
        for (url, want) in [
            ("https://dot.example./p", Some("dot.example")),
            ("https://Dot.Example.:8443/p", Some("dot.example:8443")),
            ("https://dots.example../p", Some("dots.example.")),
            ("https://./p", None),
            ("http://zero.example:080/p", Some("zero.example")),
            ("https://zero.example:0443/p", Some("zero.example")),
            ("http://zero.example:008080/p", Some("zero.example:8080")),
            ("http://zero.example:000/p", Some("zero.example:0")),
            ("http://[2001:DB8:0:0::1]/p", Some("[2001:db8::1]")),
            ("http://[2001:db8::1]:8080/p", Some("[2001:db8::1]:8080")),
            ("http://[0:0:0:0:0:0:0:1]:80/p", Some("[::1]")),
            ("http://[::FFFF:1.2.3.4]/p", Some("[::ffff:1.2.3.4]")),
            (
                "http://[1111:2222:3333:4444:5555:6666:7777:8888]/",
                Some("[1111:2222:3333:4444:5555:6666:7777:8888]"),
            ),
            // Not an IPv6 address: no host (URL parsers refuse it).
            ("http://[1.2.3]/p", None),
            ("http://[]/p", None),
            ("https://my_blog.example/p", Some("my_blog.example")),
        ] {
            assert_eq!(key(url).as_deref(), want, "{url}");
            // The stored form reads back to the same slot hash.
            if let Some(want) = want {
                let k = HostKey::of_url(url.as_bytes()).unwrap();
                let stored = HostKey::of_key(want).unwrap();
                assert_eq!(k.slot_hash(0), stored.slot_hash(0), "{url}");
                assert_eq!(k.hash(), stored.hash(), "{url}");
                assert!(k.eq_stored(want.as_bytes()), "{url}");
                assert_eq!(k.cmp_stored(want.as_bytes()), std::cmp::Ordering::Equal);
            }
        }
    }

    /// Every key a URL gives reads back the same from its stored form (as
    /// the writer reads it), so it has the writer's slot hash: authorities
    /// of up to five bytes over an alphabet of the bytes that delimit.
    #[test]
    fn a_url_key_reads_back_from_its_stored_form() {
        const ALPHABET: &[u8] = b"aA:@[]8\xc3";
        let mut authorities = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|a: &Vec<u8>| {
                    ALPHABET.iter().map(move |&b| {
                        let mut a = a.clone();
                        a.push(b);
                        a
                    })
                })
                .collect();
            authorities.extend(last.iter().cloned());
        }
        let mut keys = 0;
        for a in &authorities {
            for scheme in [&b"http://"[..], b"https://", b"HTTP://", b"ftp://", b"//"] {
                let url = [scheme, a.as_slice(), b"/p"].concat();
                let Some(k) = HostKey::of_url(&url) else {
                    continue;
                };
                let stored: Vec<u8> = k.bytes().collect();
                // Keys are text: stores hold no others.
                let Ok(text) = std::str::from_utf8(&stored) else {
                    continue;
                };
                let back = HostKey::of_key(text);
                let back = back.map(|b| (b.bytes().collect::<Vec<u8>>(), b.port));
                assert_eq!(
                    back,
                    Some((stored.clone(), k.port)),
                    "{}",
                    String::from_utf8_lossy(&url)
                );
                assert_eq!(HostKey::of_key(text).unwrap().slot_hash(0), k.slot_hash(0));
                keys += 1;
            }
        }
        assert!(keys > 5_000, "{keys}");
    }

    #[test]
    fn lower_word_lower_cases_as_bytes_do() {
        for b in 0..=255u8 {
            for at in 0..8 {
                // The byte among neighbours that probe the borrows.
                let mut w = [b'Z', b'@', b'[', 0x80, b'a', 0xff, b'A', 0];
                w[at] = b;
                let want = w.map(|c| c.to_ascii_lowercase());
                assert_eq!(
                    lower_word(u64::from_le_bytes(w)).to_le_bytes(),
                    want,
                    "{b:#x} at {at}"
                );
            }
        }
    }

    /// The slot hash is part of the store format: stores written before
    /// must still be read. Its values over hosts of every length up to
    /// four words and ports of every length up to two words, under
    /// every seed (hosts in both cases), are pinned (the hash is format
    /// 8's, unchanged since; the expected values were computed by the code
    /// before the one-pass scan).
    #[test]
    fn slot_hash_values_are_pinned() {
        let fold = |all: u64, h: u64| (all ^ h).wrapping_mul(0x0000_0100_0000_01b3);
        let text = |len: usize| -> Vec<u8> { (0..len).map(|i| b"Ab.9-xZ:"[i % 8]).collect() };
        let mut hosts = 0xcbf2_9ce4_8422_2325u64;
        let mut ports = hosts;
        for &seed in SEEDS.iter().chain(&[0]) {
            for len in 0..=33 {
                let host = text(len);
                for port in [None, Some(&b"8080"[..]), Some(&b"123456789"[..])] {
                    hosts = fold(hosts, raw_key(&host, port).slot_hash(seed));
                }
            }
            for len in 1..=16 {
                let port: Vec<u8> = (0..len).map(|i| b'0' + (i % 10) as u8).collect();
                let key = raw_key(b"a.example", Some(&port));
                ports = fold(ports, key.slot_hash(seed));
            }
        }
        assert_eq!(hosts, 0xb10d_d4a8_972d_362a, "{hosts:#x}");
        assert_eq!(ports, 0x2d3a_490b_4ec0_8b47, "{ports:#x}");
    }

    #[test]
    fn slot_hash_reads_the_stored_key() {
        let h = |u: &str| HostKey::of_url(u.as_bytes()).unwrap().slot_hash(0);
        let k = |k: &str| HostKey::of_key(k).unwrap().slot_hash(0);
        // Any case, the default port, and every length around a word.
        for host in [
            "a",
            "Ab.Cd.eF",
            "WWW.EXAMPLE.COM",
            "x.y-z.example.org.a1234",
        ] {
            let lower = host.to_ascii_lowercase();
            assert_eq!(h(&format!("https://{host}/p")), k(&lower));
            assert_eq!(h(&format!("https://{host}:443/p")), k(&lower));
            assert_eq!(
                h(&format!("http://{host}:8080/")),
                k(&format!("{lower}:8080"))
            );
            assert_ne!(k(&lower), k(&format!("{lower}:8080")));
        }
        // Trailing zero bytes and a port that could be read as host bytes.
        let raw = |host: &[u8], port: Option<&[u8]>| raw_key(host, port).slot_hash(0);
        assert_ne!(raw(b"a", None), raw(b"a\0", None));
        assert_ne!(raw(b"abcdefgh", None), raw(b"abcdefgh\0", None));
        assert_ne!(raw(b"ab", Some(b"1")), raw(b"ab:1", None));
    }
}
