//! Host names as a store build files them ([`host_key`]), and the IDNA
//! form a lookup of a Unicode host needs ([`idna_lookup_url`]): feature
//! `idna`. The engine's own lookup ([`HostKey`]) reads a URL's host as
//! written and allocates nothing; these allocate, and are the one home of
//! the normaliser a builder and a reader must agree on
//! (`store/tests/store/host_key.rs` checks they do).

use super::host_key::number_is_ipv4;
use super::HostKey;
use std::fmt;

/// The key a store build gives `url`'s host: `None` when no host can be
/// read from it (no `scheme://` or `//`), `Some(Err(why))` for a host no
/// build accepts (`a..example`, `[]`, port 0). After a lookup missed, this
/// tells "not in the store" from "no host a store can hold" (`robocc check
/// --store` and Python's `Store` answer the second as no host, never as a
/// host the store lacks).
pub fn url_host_key(url: &[u8]) -> Option<Result<String, HostKeyError>> {
    HostKey::of_url(url).map(|k| host_key(&k.to_key()))
}

/// Where to look `url`'s host up instead of at `url`: `//NAME[:PORT]/` for
/// a host written as a Unicode name, which a build stores only in its IDNA
/// form (`https://Bücher.example/p` → `//xn--bcher-kva.example/`), while
/// the engine's lookup reads the host as written and allocates nothing.
/// The port is the one the engine reads from `url` (dropped only when it
/// is `url`'s scheme's default: `http://bücher.example:443/` keeps `:443`,
/// as `http://xn--bcher-kva.example:443/` does). `None` for every other URL:
/// the engine reads an ASCII host exactly as a build stores it
/// (docs/artifact.md, "Keys"), and a name with no IDNA form is in no store.
/// Only the host is looked up at that URL; the path to check is `url`'s.
pub fn idna_lookup_url(url: &[u8]) -> Option<String> {
    let k = HostKey::of_url(url)?;
    if k.host.is_ascii() {
        return None;
    }
    let name = host_key(std::str::from_utf8(k.host).ok()?).ok()?;
    Some(match k.port {
        Some(port) => format!("//{name}:{}/", std::str::from_utf8(port).ok()?),
        None => format!("//{name}/"),
    })
}

/// Checks a host name as given in an input and returns the key the store
/// uses, in the form a URL's host is looked up in ([`HostKey::of_url`]):
/// a lower-cased ASCII name (labels of letters, digits, `-` and `_`,
/// separated by `.`; one trailing dot dropped; a Unicode name in its IDNA
/// `xn--` form), an IPv4 address, or an IPv6 address in brackets in its
/// canonical form (`[2001:DB8:0::1]` → `[2001:db8::1]`); then `:port`, the
/// port read as a number (`:080` is `:80`) and dropped when it is 80 or 443
/// (the store keys hosts without their scheme: see docs/artifact.md).
///
/// # Errors
///
/// The reason the text is not a host ([`HostKeyError`]).
pub fn host_key(host: &str) -> Result<String, HostKeyError> {
    let host = host.trim();
    if host.is_empty() {
        return Err(HostKeyError::Empty);
    }
    if host.contains("://") || host.contains('/') {
        return Err(HostKeyError::SchemeOrPath);
    }
    if host.contains('@') {
        return Err(HostKeyError::UserInfo);
    }
    // Host and port: an IPv6 literal keeps its colons inside brackets.
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((inner, after)) = rest.split_once(']') else {
            return Err(HostKeyError::UnclosedBracket);
        };
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or(HostKeyError::AfterBracket)?),
        };
        (&host[..inner.len() + 2], port)
    } else {
        match host.split_once(':') {
            None => (host, None),
            Some((name, port)) if !port.contains(':') => (name, Some(port)),
            Some(_)
                if host
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') =>
            {
                return Err(HostKeyError::BareIpv6)
            }
            Some(_) => return Err(HostKeyError::ManyColons),
        }
    };
    // The port as a number (an empty one, as URL parsers read it, is none).
    let port = match port.filter(|p| !p.is_empty()) {
        None => None,
        Some(p) => {
            let digits = p.trim_start_matches('0');
            let n: Option<u16> = if p.bytes().all(|b| b.is_ascii_digit()) && digits.len() <= 5 {
                digits.parse().ok()
            } else {
                None
            };
            match n {
                Some(n) if n > 0 => Some(n),
                _ => return Err(HostKeyError::BadPort),
            }
        }
    };
    let name = if let Some(inner) = name.strip_prefix('[') {
        let inner = &inner[..inner.len() - 1];
        let addr: std::net::Ipv6Addr = inner
            .parse()
            .map_err(|_| HostKeyError::NotIpv6(inner.to_string()))?;
        format!("[{addr}]")
    } else {
        // A Unicode name becomes its IDNA form (lower-cased, `xn--` labels).
        let ascii = if name.is_ascii() {
            name.to_ascii_lowercase()
        } else {
            idna::domain_to_ascii(name).map_err(|_| HostKeyError::NotIdna)?
        };
        let ascii = ascii.strip_suffix('.').unwrap_or(&ascii).to_string();
        check_host_name(&ascii)?;
        // What a URL parser reads as an IPv4 address in another form is
        // no name: a lookup never finds it (HostKey::of_url).
        if !number_is_ipv4(ascii.as_bytes()) {
            return Err(HostKeyError::NumericName(ascii));
        }
        ascii
    };
    Ok(match port {
        Some(p) if p != 80 && p != 443 => format!("{name}:{p}"),
        _ => name,
    })
}

/// A host name's labels: letters, digits, `-` and `_` (as DNS names and
/// URL hosts have them), 1 to 63 bytes each, not starting or ending with
/// `-`; at most 253 bytes in all.
fn check_host_name(name: &str) -> Result<(), HostKeyError> {
    if name.is_empty() {
        return Err(HostKeyError::Empty);
    }
    if name.len() > 253 {
        return Err(HostKeyError::NameTooLong(name.len()));
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Err(HostKeyError::EmptyLabel);
        }
        if label.len() > 63 {
            return Err(HostKeyError::LabelTooLong(label.len()));
        }
        if let Some(c) = label
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        {
            return Err(HostKeyError::BadChar(c));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(HostKeyError::Hyphen(label.to_string()));
        }
    }
    Ok(())
}

/// Why a text is not a host a store can hold ([`host_key`]). Its `Display`
/// is the reason, lower-case, to follow `"…" is not a host name: `.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostKeyError {
    /// Nothing (or only white space); also a name that is only a dot.
    Empty,
    /// A scheme or a path around the host (`https://a.example/`).
    SchemeOrPath,
    /// User information before the host (`user@a.example`).
    UserInfo,
    /// A `[` without its `]`.
    UnclosedBracket,
    /// Something other than `:PORT` after an IPv6 address's `]`.
    AfterBracket,
    /// An IPv6 address without its brackets (`::1`).
    BareIpv6,
    /// More than one `:` outside brackets.
    ManyColons,
    /// A port that is not a number from 1 to 65535.
    BadPort,
    /// Brackets around what is not an IPv6 address (what is inside them).
    NotIpv6(String),
    /// A Unicode name that has no IDNA form.
    NotIdna,
    /// A name longer than 253 bytes (its length).
    NameTooLong(usize),
    /// An empty label: two dots in a row, or a dot first.
    EmptyLabel,
    /// A label longer than 63 bytes (its length).
    LabelTooLong(usize),
    /// A character that is not a letter, digit, `-` or `_` in a label.
    BadChar(char),
    /// A label that starts or ends with `-` (the label).
    Hyphen(String),
    /// A name whose last label is a number (`a.123`, `1.2.3`, `a.0x1f`)
    /// but which is not four decimal parts of 0 to 255: URL parsers
    /// read it as an IPv4 address (WHATWG) or as a name (RFC 3986), so
    /// no URL reaches it (the name).
    NumericName(String),
}

impl fmt::Display for HostKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostKeyError::Empty => f.write_str("empty"),
            HostKeyError::NumericName(name) => write!(
                f,
                "{name} ends in a number, so URL parsers disagree on whether it is an IPv4 address; give four decimal parts (1.2.3.4) or a name"
            ),
            HostKeyError::SchemeOrPath => {
                f.write_str("give the host alone, without scheme or path")
            }
            HostKeyError::UserInfo => {
                f.write_str("give the host alone, without user information (user@)")
            }
            HostKeyError::UnclosedBracket => {
                f.write_str("an IPv6 address in brackets lacks its ']'")
            }
            HostKeyError::AfterBracket => {
                f.write_str("only \":PORT\" may follow an IPv6 address's ']'")
            }
            HostKeyError::BareIpv6 => f.write_str("an IPv6 address goes in brackets, e.g. [::1]"),
            HostKeyError::ManyColons => {
                f.write_str("more than one ':' (a host has one port at most)")
            }
            HostKeyError::BadPort => f.write_str("the port is not a number from 1 to 65535"),
            HostKeyError::NotIpv6(inner) => write!(f, "[{inner}] is not an IPv6 address"),
            HostKeyError::NotIdna => {
                f.write_str("not a valid internationalised domain name (IDNA)")
            }
            HostKeyError::NameTooLong(len) => {
                write!(f, "{len} bytes long: a host name has at most 253")
            }
            HostKeyError::EmptyLabel => {
                f.write_str("an empty label (two dots in a row, or a dot first)")
            }
            HostKeyError::LabelTooLong(len) => {
                write!(f, "a label of {len} bytes: a label has at most 63")
            }
            HostKeyError::BadChar(c) => write!(
                f,
                "{c:?} in a label: a host name is dot-separated labels of letters, digits, \
                 '-' and '_'"
            ),
            HostKeyError::Hyphen(label) => {
                write!(f, "the label {label:?} starts or ends with '-'")
            }
        }
    }
}

impl std::error::Error for HostKeyError {}
