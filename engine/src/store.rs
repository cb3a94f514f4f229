//! [`Store`]: the compiled policies of many hosts in one mmap-able file.
//!
//! Layout: the same 16-byte frame as a policy (magic `ROBOCC\0S`, version,
//! length), then an rkyv archive of [`StoreData`]: a host index sorted by
//! host key and the deduplicated policies it points to. A lookup extracts the
//! host from the URL, binary-searches the index comparing lower-cased bytes
//! on the fly, and checks the URL against that host's policy: no allocation.

use crate::artifact::{Dialect, PolicyData};
use crate::load::{self, LoadError};
use crate::policy::{Policy, Verdict};
use rkyv::{Archive, Deserialize, Serialize};
use std::cmp::Ordering;
use std::path::Path;

/// First eight bytes of every store.
pub const STORE_MAGIC: [u8; 8] = *b"ROBOCC\0S";
/// Store format version written and read by this crate.
pub const STORE_FORMAT_VERSION: u32 = 1;

/// Why a host has the policy it has (RFC 9309 §2.3.1).
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
#[repr(u8)]
pub enum HostSource {
    /// 2xx: the robots.txt body was compiled.
    Fetched = 0,
    /// 4xx (or too many redirects): "unavailable", everything allowed.
    Unavailable = 1,
    /// 5xx or unreachable: everything disallowed.
    Unreachable = 2,
    /// Redirected: the rules of the redirect target apply.
    Redirected = 3,
    /// The body could not be compiled; the builder's fallback policy applies.
    Failed = 4,
}

/// One host of the index.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct HostEntry {
    /// Lower-cased host, with `:port` when the port is not the scheme's default.
    pub host: String,
    /// Index into [`StoreData::policies`].
    pub policy: u32,
    /// Why this policy.
    pub source: HostSource,
    /// HTTP status the manifest gave (0: unreachable; 200 for directory input).
    pub status: u16,
    /// When the robots.txt was fetched (RFC 3339, as the manifest gave it).
    pub fetched_at: Option<String>,
}

/// The archived root object of a store.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct StoreData {
    /// The product token every policy was compiled for.
    pub agent: String,
    /// The dialect every policy was compiled with.
    pub dialect: Dialect,
    /// `robocc-compiler` version that built the store.
    pub compiler_version: String,
    /// Hosts, strictly increasing by `host` bytes.
    pub hosts: Vec<HostEntry>,
    /// Deduplicated policies.
    pub policies: Vec<PolicyData>,
}

/// Many hosts' policies, read in place.
pub struct Store<'a> {
    data: &'a ArchivedStoreData,
    _map: Option<memmap2::Mmap>,
}

impl std::fmt::Debug for Store<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("agent", &self.data.agent.as_str())
            .field("hosts", &self.data.hosts.len())
            .field("policies", &self.data.policies.len())
            .finish()
    }
}

fn validate(bytes: &[u8]) -> Result<&ArchivedStoreData, LoadError> {
    validate_store(bytes).map_err(LoadError::for_store)
}

fn validate_store(bytes: &[u8]) -> Result<&ArchivedStoreData, LoadError> {
    let body = load::unframe(bytes, &STORE_MAGIC, STORE_FORMAT_VERSION)?;
    let data = load::access_archive::<ArchivedStoreData>(body)?;
    for (i, p) in data.policies.iter().enumerate() {
        load::check_semantics(p)
            .map_err(|e| LoadError::invalid(format!("store policy {i}: {e}")))?;
    }
    let mut prev: Option<&str> = None;
    for h in data.hosts.iter() {
        if h.policy.to_native() as usize >= data.policies.len() {
            return Err(LoadError::invalid(format!(
                "host {:?} names policy {} of {}",
                h.host.as_str(),
                h.policy,
                data.policies.len()
            )));
        }
        if prev.is_some_and(|p| p.as_bytes() >= h.host.as_bytes()) {
            return Err(LoadError::invalid("host index is not sorted"));
        }
        prev = Some(h.host.as_str());
    }
    Ok(data)
}

impl<'a> Store<'a> {
    /// Reads a store from bytes without copying them.
    ///
    /// # Errors
    ///
    /// As [`Policy::from_bytes`], for the store and every policy in it.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Store<'a>, LoadError> {
        Ok(Store {
            data: validate(bytes)?,
            _map: None,
        })
    }

    /// The verdict for `url` (absolute, with a host), or `None` when its host
    /// is not in the store (the caller chooses what that means).
    #[inline]
    pub fn check(&self, url: &[u8]) -> Option<Verdict> {
        self.policy_for(url).map(|p| p.check(url))
    }

    /// The policy of the host of `url`.
    pub fn policy_for(&self, url: &[u8]) -> Option<Policy<'_>> {
        let key = HostKey::of_url(url)?;
        self.find(&key)
            .map(|e| Policy::from_validated(&self.data.policies[e.policy.to_native() as usize]))
    }

    /// The index entry for `url`'s host.
    pub fn host_entry(&self, url: &[u8]) -> Option<&ArchivedHostEntry> {
        self.find(&HostKey::of_url(url)?)
    }

    fn find(&self, key: &HostKey<'_>) -> Option<&ArchivedHostEntry> {
        let hosts = self.data.hosts.as_slice();
        hosts
            .binary_search_by(|e| key.cmp_stored(e.host.as_bytes()).reverse())
            .ok()
            .map(|i| &hosts[i])
    }

    /// The whole archived store, for tools that show everything.
    pub fn data(&self) -> &ArchivedStoreData {
        self.data
    }

    /// A policy by index.
    pub fn policy(&self, i: usize) -> Option<Policy<'_>> {
        self.data.policies.get(i).map(Policy::from_validated)
    }
}

impl Store<'static> {
    /// Memory-maps the store at `path` and validates it.
    ///
    /// # Errors
    ///
    /// As [`Store::from_bytes`], plus I/O errors; every message names `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Store<'static>, LoadError> {
        // As in `Policy::open`: the mapping lives in the `Store` beside
        // `data`, which accessors only re-borrow through `&self`.
        let (map, data) =
            load::open_mapped(path.as_ref(), validate).map_err(LoadError::for_store)?;
        Ok(Store {
            data,
            _map: Some(map),
        })
    }
}

/// The host part of a URL as the store keys it, borrowed: `host` is compared
/// lower-cased, `port` is present only when it is not the scheme's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostKey<'a> {
    /// Host bytes as written (any case).
    pub host: &'a [u8],
    /// Port digits, when not the scheme default.
    pub port: Option<&'a [u8]>,
}

impl<'a> HostKey<'a> {
    /// Extracts the host of an absolute URL (`scheme://[user@]host[:port]…`)
    /// or of a network-path reference (`//host/…`). `None` for a bare path.
    pub fn of_url(url: &'a [u8]) -> Option<HostKey<'a>> {
        let (scheme, rest) = match url.windows(3).position(|w| w == b"://") {
            Some(i)
                if url[..i]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)) =>
            {
                (&url[..i], &url[i + 3..])
            }
            _ if url.starts_with(b"//") => (&b""[..], &url[2..]),
            _ => return None,
        };
        let end = rest
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b';'))
            .unwrap_or(rest.len());
        let mut authority = &rest[..end];
        if let Some(at) = authority.iter().rposition(|&b| b == b'@') {
            authority = &authority[at + 1..];
        }
        // `[v6]:port` keeps its brackets in the host.
        let colon = match authority.iter().rposition(|&b| b == b':') {
            Some(c) if !authority[c..].contains(&b']') => Some(c),
            _ => None,
        };
        let (host, port) = match colon {
            Some(c) => (&authority[..c], Some(&authority[c + 1..])),
            None => (authority, None),
        };
        if host.is_empty() {
            return None;
        }
        let default = if scheme.eq_ignore_ascii_case(b"https") {
            Some(&b"443"[..])
        } else if scheme.eq_ignore_ascii_case(b"http") {
            Some(&b"80"[..])
        } else {
            None
        };
        let port = port.filter(|p| !p.is_empty() && Some(*p) != default);
        Some(HostKey { host, port })
    }

    /// Compares this key with a stored (lower-cased) key, byte by byte,
    /// without building the key.
    pub fn cmp_stored(&self, stored: &[u8]) -> Ordering {
        let port: &[u8] = self.port.unwrap_or(b"");
        let colon: &[u8] = if self.port.is_some() { b":" } else { b"" };
        let ours = self
            .host
            .iter()
            .map(u8::to_ascii_lowercase)
            .chain(colon.iter().copied())
            .chain(port.iter().copied());
        ours.cmp(stored.iter().copied())
    }

    /// The key as stored (for builders and messages).
    pub fn to_key(&self) -> String {
        let mut k = String::from_utf8_lossy(self.host).to_ascii_lowercase();
        if let Some(p) = self.port {
            k.push(':');
            k.push_str(&String::from_utf8_lossy(p));
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::HostKey;

    fn key(url: &str) -> Option<String> {
        HostKey::of_url(url.as_bytes()).map(|k| k.to_key())
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
    }
}
