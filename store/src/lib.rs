//! Building a policy store: many hosts' robots.txt → one mmap-able file.
//!
//! Per host, the HTTP outcome decides which policy applies (RFC 9309 §2.3.1):
//!
//! | fetch result | policy |
//! | --- | --- |
//! | 2xx | the body, compiled |
//! | 3xx to a robots.txt ([`is_robots_txt_url`]) of a host in the input | the target's policy (up to 5 hops, §2.3.1.2) |
//! | more than 5 redirects | unavailable: allow all (§2.3.1.2) |
//! | 3xx whose target is not in the input: another host, another document than a robots.txt, the host itself when the redirect is its only input | unreachable: disallow all (robocc's choice: the rules are unknown) |
//! | 3xx without `location` | unreachable: disallow all (robocc's choice: a broken response) |
//! | 4xx but 429 | unavailable: allow all (§2.3.1.3) |
//! | 429 Too Many Requests | unreachable: disallow all (Google's reading; docs/dialects.md, "Fetch status") |
//! | 5xx, or status 0 (unreachable) | disallow all (§2.3.1.4) |
//! | 1xx and any other status | unreachable: disallow all (robocc's choice) |
//!
//! The build is four steps: **collect** (stream the inputs; each distinct
//! body is kept once, up to what the parser reads, each host as a small
//! record — memory grows with distinct bodies, not with hosts), **resolve** (status and redirects →
//! which body, and why), **compile** (each distinct body once, in parallel,
//! or reused from a base store when its source and options are unchanged),
//! **index** (hosts → policies, written by the engine's store writer). A
//! body that fails to compile never sinks the build: its hosts get the
//! fallback the caller chose, and the report says why.

pub mod output;
pub mod warc;

use rayon::prelude::*;
use robocc_compiler::{compile, CompileError, CompileOptions};
use robocc_engine::{
    fetched_at_kept, write_store, HostEntry, HostKey, HostSource, Store, StoreMeta,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Body standing for "everything allowed" (4xx but 429).
const ALLOW_ALL: &[u8] = b"";
/// Body standing for "everything disallowed" (5xx, 429, unreachable).
const DISALLOW_ALL: &[u8] = b"User-agent: *\nDisallow: /\n";
/// Redirect hops followed (RFC 9309 §2.3.1.2: at least five).
pub const MAX_REDIRECTS: usize = 5;

/// One host's fetch result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostInput {
    /// Host, optionally with `:port` (case is ignored).
    pub host: String,
    /// HTTP status; 0 when the host was unreachable.
    pub status: u16,
    /// The robots.txt body, for 2xx.
    pub body: Option<Vec<u8>>,
    /// Redirect target URL, for 3xx.
    pub location: Option<String>,
    /// When it was fetched (RFC 3339), kept in the index.
    pub fetched_at: Option<String>,
    /// The fetch result is known to be broken (a truncated WARC record, a
    /// payload that cannot be decoded), with the reason: the host gets the
    /// `on_failure` fallback, as a body that fails to compile does, and is
    /// listed among the failures.
    pub failure: Option<String>,
    /// Where the body is, when the input names a file instead of giving its
    /// bytes (a manifest's `body_path`). The build reads it, for a 2xx
    /// status, unless `sha256` names a policy of the base store.
    pub body_path: Option<std::path::PathBuf>,
    /// The body's SHA-256 as the input states it (a manifest's `sha256`).
    /// A body the build reads is checked against it: a mismatch is a
    /// failure of that host, never a silent answer.
    pub sha256: Option<[u8; 32]>,
}

impl HostInput {
    /// Reads `body_path` into `body` when there is no body yet, and checks
    /// the body against `sha256`: a body file that cannot be read (missing,
    /// not a regular file, over [`robocc_compiler::input::MAX_INPUT_BYTES`]) and a
    /// mismatch become the host's `failure`, as in a store build. (What a
    /// caller that wants every body in memory does; a store build reads
    /// only the bodies it needs, and of a long one only the prefix the
    /// parser reads.)
    ///
    /// # Errors
    ///
    /// None at present: every problem of one body is its host's failure.
    pub fn load_body(&mut self) -> Result<(), InputErrorKind> {
        if self.body.is_none() {
            if let Some(p) = &self.body_path {
                // Without a parse limit, a body is read whole or fails.
                match read_body(p, 0) {
                    Ok(read) => self.body = Some(read.bytes),
                    Err(why) => {
                        self.failure.get_or_insert(why);
                    }
                }
            }
        }
        if let (Some(body), Some(claimed)) = (&self.body, &self.sha256) {
            let actual = robocc_compiler::sha256(body);
            if self.failure.is_none() && actual != *claimed {
                self.failure = Some(digest_mismatch(&actual, claimed));
            }
        }
        Ok(())
    }
}

/// The bytes of a body a build keeps under the parse limit `max_bytes`:
/// the limit and a byte, and at least the bytes that tell how a body is
/// read; everything (up to [`robocc_compiler::input::MAX_INPUT_BYTES`]) without a
/// limit.
fn body_keep(max_bytes: usize) -> usize {
    if max_bytes == 0 {
        robocc_compiler::input::MAX_INPUT_BYTES as usize
    } else {
        (max_bytes + 1).max(robocc_compiler::input::SAMPLE)
    }
}

/// A body file, opened only if it is a regular file (a FIFO among the
/// bodies is refused, never waited on): whole, or, when it is longer than
/// the parse limit and its prefix reads as the whole
/// ([`prefix_reads_as_whole`]), that prefix with the whole's length and
/// SHA-256, whatever its size. Any error is its host's failure (the
/// message names the file), never the build's.
fn read_body(
    p: &std::path::Path,
    max_bytes: usize,
) -> Result<robocc_compiler::input::Prefix, String> {
    let why = |e: &dyn fmt::Display| format!("cannot read body {}: {e}", p.display());
    let read = robocc_compiler::input::read_prefix(p, body_keep(max_bytes)).map_err(|e| why(&e))?;
    match read.whole {
        Some((len, _)) if !prefix_reads_as_whole(&read.bytes, max_bytes) => {
            // No parse limit, or UTF-16 (the limit applies to its decoded
            // text): the whole is needed, within what robocc reads of one
            // input.
            let max = robocc_compiler::input::MAX_INPUT_BYTES;
            if len > max {
                return Err(why(&format_args!(
                    "{len} bytes, longer than {} MiB, the most robocc reads of one input that \
                     cannot be parsed from its start (no parse limit, or UTF-16)",
                    max >> 20
                )));
            }
            let whole =
                robocc_compiler::input::read_prefix(p, max as usize).map_err(|e| why(&e))?;
            match whole.whole {
                None => Ok(whole),
                // It grew while being read.
                Some(_) => Err(why(&"it changed while it was read")),
            }
        }
        _ => Ok(read),
    }
}

/// Lower-case hex, as manifests and `robocc inspect` write digests.
pub fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest_mismatch(actual: &[u8; 32], claimed: &[u8; 32]) -> String {
    format!(
        "the body's SHA-256 is {}, not the {} the input states",
        hex(actual),
        hex(claimed)
    )
}

/// What a failed body gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// Everything allowed.
    Allow,
    /// Everything disallowed (default).
    Disallow,
}

/// How to build a store, besides the compile options.
#[derive(Clone, Copy)]
pub struct StoreOptions<'a> {
    /// What hosts whose body fails to compile get.
    pub on_failure: OnFailure,
    /// A previous store of the same agent and options: policies whose
    /// source bytes are unchanged (same SHA-256) are copied from it instead
    /// of compiled, and a body file whose input states such a digest is
    /// not even read.
    pub base: Option<&'a Store>,
    /// Called after each distinct body is compiled or reused, with (done,
    /// total).
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
}

impl Default for StoreOptions<'_> {
    fn default() -> Self {
        StoreOptions {
            on_failure: OnFailure::Disallow,
            base: None,
            progress: None,
        }
    }
}

/// A host whose body took the split path or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostNote {
    /// Host key.
    pub host: String,
    /// What happened.
    pub note: String,
}

/// Hosts per [`HostSource`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceCounts {
    /// 2xx, compiled.
    pub fetched: usize,
    /// 4xx but 429, or too many redirects: allow all.
    pub unavailable: usize,
    /// 5xx, 429, unreachable, broken redirects: disallow all.
    pub unreachable: usize,
    /// The redirect target's rules.
    pub redirected: usize,
    /// The body failed to compile: the fallback.
    pub failed: usize,
}

impl SourceCounts {
    fn add(&mut self, s: HostSource) {
        *match s {
            HostSource::Fetched => &mut self.fetched,
            HostSource::Unavailable => &mut self.unavailable,
            HostSource::Unreachable => &mut self.unreachable,
            HostSource::Redirected => &mut self.redirected,
            HostSource::Failed => &mut self.failed,
        } += 1;
    }
}

impl fmt::Display for SourceCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fetched {}, unavailable (allow all) {}, unreachable (disallow all) {}, \
             redirected {}, failed {}",
            self.fetched, self.unavailable, self.unreachable, self.redirected, self.failed
        )
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreReport {
    /// Hosts in the index.
    pub hosts: usize,
    /// Distinct policies in the store.
    pub unique_policies: usize,
    /// Distinct bodies compiled now (a body whose compile failed is not
    /// counted: it is listed in `failures`).
    pub compiled: usize,
    /// Distinct base store policies reused.
    pub reused: usize,
    /// Body files read (`HostInput::body_path`).
    pub bodies_read: usize,
    /// Body files not read: their input's `sha256` named a policy of the
    /// base store.
    pub bodies_skipped: usize,
    /// Body files that could not be read (missing, not a regular file, an
    /// I/O error): each made its host a failure, listed in `failures`
    /// with the file (unless a later input of the host replaced it).
    pub bodies_unreadable: usize,
    /// Store size in bytes.
    pub bytes: usize,
    /// Hosts per source.
    pub by_source: SourceCounts,
    /// Hosts whose policy was compiled on the split (several automata) path.
    pub split: Vec<HostNote>,
    /// Distinct policies on the split path (what `robocc inspect` counts).
    pub split_policies: usize,
    /// Hosts whose robots.txt was not read as written (a limit cut it, lines
    /// were lost, the body is not text or was decoded): the diagnostics that
    /// can change a verdict, summarised.
    pub unread: Vec<HostNote>,
    /// Hosts whose body failed to compile, with the reason.
    pub failures: Vec<HostNote>,
    /// Hosts given more than once (the last one wins), in key order, once
    /// per extra input. A redirect of a host to itself set aside beside
    /// another input of that host is not one ([`StoreReport::self_redirects`]).
    pub duplicates: Vec<String>,
    /// Hosts that answered 304 Not Modified (a conditional fetch: the
    /// robots.txt the crawler holds is current) and keep the base store's
    /// policy of that host.
    pub not_modified: usize,
    /// Hosts that answered 304 Not Modified with no policy to keep, and
    /// why: no base store, not in it, held there as another source than
    /// fetched, or its policy not one this build may reuse. They are
    /// unreachable (disallow all); in key order.
    pub not_modified_lost: Vec<HostNote>,
    /// Redirects of a host to itself (Common Crawl's `http://` → `https://`
    /// hop) set aside beside another input of the same host, the capture
    /// they lead to: the expected shape of a crawl, not a duplicate.
    pub self_redirects: usize,
}

impl StoreReport {
    /// Hosts per distinct policy.
    pub fn dedup_ratio(&self) -> f64 {
        self.hosts as f64 / self.unique_policies.max(1) as f64
    }
}

/// Why an input could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// Where: `FILE:LINE` of a manifest, or a file of a directory.
    pub at: String,
    /// What is wrong.
    pub kind: InputErrorKind,
}

/// What is wrong with an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputErrorKind {
    /// The file or directory could not be read.
    Io(String),
    /// A manifest line is not a JSON object.
    NotJson(String),
    /// A manifest line has no `host`.
    MissingHost,
    /// The host is not a host name (with the reason).
    BadHost(String, String),
    /// `status` is missing or not an HTTP status.
    BadStatus,
    /// A 2xx line has neither `body` nor `body_path`.
    MissingBody(u16),
    /// `sha256` is not 64 hex digits (the value as written).
    BadDigest(String),
    /// A field (named) is 4 GiB − 1 bytes or longer: a build keeps its
    /// length in 32 bits.
    TooLong(&'static str),
    /// A manifest line has a field a line does not have (a misspelling,
    /// or a field of another tool): its name.
    UnknownField(String),
    /// A manifest line gives a field twice: its name.
    DuplicateField(String),
    /// A manifest field that is text has another value: the field, and
    /// the value as JSON.
    NotText(&'static str, String),
    /// A manifest line has both `body` and `body_path`.
    BodyAndBodyPath,
    /// A compressed input is damaged or has bytes that are not part of it
    /// (what, and where).
    Damaged(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.at)?;
        match &self.kind {
            InputErrorKind::Io(e) => write!(f, "{e}"),
            InputErrorKind::NotJson(e) => write!(f, "not a JSON object: {e}"),
            InputErrorKind::MissingHost => write!(f, "missing \"host\""),
            InputErrorKind::BadHost(h, why) => write!(f, "{h:?} is not a host name: {why}"),
            InputErrorKind::BadStatus => write!(
                f,
                "missing or invalid \"status\" (an HTTP status, 0 for unreachable)"
            ),
            InputErrorKind::MissingBody(s) => {
                write!(f, "status {s} needs \"body\" or \"body_path\"")
            }
            InputErrorKind::BadDigest(d) => {
                write!(
                    f,
                    "\"sha256\" is {d}, not 64 hex digits (the form sha256sum prints)"
                )
            }
            InputErrorKind::TooLong(field) => {
                write!(f, "\"{field}\" is 4 GiB - 1 bytes or longer")
            }
            InputErrorKind::UnknownField(name) => write!(
                f,
                "unknown field {}: a line has {}",
                serde_json::Value::from(name.as_str()),
                MANIFEST_FIELDS.join(", ")
            ),
            InputErrorKind::DuplicateField(name) => write!(f, "\"{name}\" is given twice"),
            InputErrorKind::NotText(field, value) => {
                write!(f, "\"{field}\" is {value}, not text (a JSON string)")
            }
            InputErrorKind::BodyAndBodyPath => {
                write!(f, "both \"body\" and \"body_path\": give one of them")
            }
            InputErrorKind::Damaged(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for InputError {}

/// Why a store could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The agent token is invalid (nothing can compile).
    Compile(CompileError),
    /// An input could not be read.
    Input(InputError),
    /// A limit of the store format: its size, the number of shards, hosts
    /// whose key hashes collide in the index.
    TooLarge(String),
    /// The base store ([`StoreOptions::base`]) failed
    /// [`Store::validate_all`]: nothing is taken from a damaged base (a
    /// damaged slot would hand a 304 another host's policy, and the new
    /// store would carry it as valid).
    Base(robocc_engine::LoadError),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Compile(e) => e.fmt(f),
            StoreError::Input(e) => e.fmt(f),
            StoreError::TooLarge(e) => f.write_str(e),
            StoreError::Base(e) => {
                write!(
                    f,
                    "the base store is damaged, so nothing is taken from it: {e}"
                )
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Base(e) => Some(e),
            _ => None,
        }
    }
}

/// The key a store build gives `url`'s host: `None` when no host can be
/// read from it (no `scheme://` or `//`), `Some(Err(why))` for a host no
/// build accepts (`a..example`, `[]`, port 0). After a lookup missed, this
/// tells "not in the store" from "no host a store can hold" (`robocc check
/// --store` and Python's `Store` answer the second as no host, never as a
/// host the store lacks).
pub fn url_host_key(url: &[u8]) -> Option<Result<String, String>> {
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
/// The reason the text is not a host.
pub fn host_key(host: &str) -> Result<String, String> {
    let host = host.trim();
    if host.is_empty() {
        return Err("empty".into());
    }
    if host.contains("://") || host.contains('/') {
        return Err("give the host alone, without scheme or path".into());
    }
    if host.contains('@') {
        return Err("give the host alone, without user information (user@)".into());
    }
    // Host and port: an IPv6 literal keeps its colons inside brackets.
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((inner, after)) = rest.split_once(']') else {
            return Err("an IPv6 address in brackets lacks its ']'".into());
        };
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("only \":PORT\" may follow an IPv6 address's ']'")?,
            ),
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
                return Err("an IPv6 address goes in brackets, e.g. [::1]".into())
            }
            Some(_) => return Err("more than one ':' (a host has one port at most)".into()),
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
                _ => return Err("the port is not a number from 1 to 65535".into()),
            }
        }
    };
    let name = if let Some(inner) = name.strip_prefix('[') {
        let inner = &inner[..inner.len() - 1];
        let addr: std::net::Ipv6Addr = inner
            .parse()
            .map_err(|_| format!("[{inner}] is not an IPv6 address"))?;
        format!("[{addr}]")
    } else {
        // A Unicode name becomes its IDNA form (lower-cased, `xn--` labels).
        let ascii = if name.is_ascii() {
            name.to_ascii_lowercase()
        } else {
            idna::domain_to_ascii(name)
                .map_err(|_| "not a valid internationalised domain name (IDNA)")?
        };
        let ascii = ascii.strip_suffix('.').unwrap_or(&ascii).to_string();
        check_host_name(&ascii)?;
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
fn check_host_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty".into());
    }
    if name.len() > 253 {
        return Err(format!(
            "{} bytes long: a host name has at most 253",
            name.len()
        ));
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Err("an empty label (two dots in a row, or a dot first)".into());
        }
        if label.len() > 63 {
            return Err(format!(
                "a label of {} bytes: a label has at most 63",
                label.len()
            ));
        }
        if let Some(c) = label
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        {
            return Err(format!(
                "{c:?} in a label: a host name is dot-separated labels of letters, digits, \
                 '-' and '_'"
            ));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!("the label {label:?} starts or ends with '-'"));
        }
    }
    Ok(())
}

/// Whether a fetch result is a redirect to its own host key (another
/// scheme or path on the same host): such a result never replaces another
/// one of the same host (see [`build_store`] on duplicates).
pub fn is_self_redirect(key: &str, status: u16, location: Option<&str>) -> bool {
    (300..=399).contains(&status)
        && location
            .and_then(|l| HostKey::of_url(l.as_bytes()))
            .is_some_and(|k| k.to_key() == key)
}

/// Whether a URL (`scheme://authority…` or `//authority…`) names a host's
/// robots.txt: its path, before any `?` or `#`, is exactly `/robots.txt`
/// (RFC 9309 §2.3). What a WARC capture must be to count as its host's
/// robots.txt, and what a redirect's target must be to be followed within
/// the input: the inputs hold robots.txt files only, never the document at
/// another path.
pub fn is_robots_txt_url(url: &str) -> bool {
    let rest = match url.split_once("://") {
        Some((_, rest)) => rest,
        None => match url.strip_prefix("//") {
            Some(rest) => rest,
            None => return false,
        },
    };
    let Some(start) = rest.find(['/', '?', '#', ';']) else {
        return false;
    };
    let path = &rest[start..];
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end] == "/robots.txt"
}

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
/// §5.2, dot segments removed): a relative `/robots.txt` from `a.example`
/// is `scheme://a.example/robots.txt`. An absolute URL is kept as written.
pub fn absolute_location(location: &str, origin: &str) -> String {
    let location = location.trim();
    if location.contains("://") {
        return location.to_string();
    }
    if let Some(rest) = location.strip_prefix("//") {
        let scheme = origin.split("://").next().unwrap_or("http");
        return format!("{scheme}://{rest}");
    }
    // Path, query and fragment of the reference; the base path is
    // `/robots.txt`, whose directory is `/`.
    let split = location.find(['?', '#']).unwrap_or(location.len());
    let (path, tail) = location.split_at(split);
    let merged = if path.is_empty() {
        // "?x" or "#x": the base path with the reference's query.
        "/robots.txt".to_string()
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    format!("{origin}{}{tail}", remove_dot_segments(&merged))
}

/// Whether compiling `prefix`, the first bytes of a longer body, answers
/// every URL as compiling the whole body does under the parse limit
/// `max_bytes`: both are over the limit, so the parser cuts both at the
/// same line break within their first `max_bytes` bytes, and the bytes
/// that decide how a body is read (binary, HTML, UTF-16) are all there.
/// Never without a limit (0), nor for UTF-16 (the limit applies to its
/// decoded text).
pub(crate) fn prefix_reads_as_whole(prefix: &[u8], max_bytes: usize) -> bool {
    max_bytes != 0
        && prefix.len() > max_bytes
        && prefix.len() >= robocc_compiler::input::SAMPLE
        && !robocc_compiler::input::is_utf16(prefix)
}

/// RFC 3986 §5.2.4 on an absolute path.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, s) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *s {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// Hosts and distinct bodies, as the inputs stream in.
#[derive(Default)]
struct Collected {
    /// Host keys and their inputs (body replaced by a body id), in input
    /// order, duplicates included.
    hosts: HostRows,
    /// Distinct bodies; ids 0 and 1 are the synthetic allow-all and
    /// disallow-all bodies.
    bodies: Vec<Body>,
    /// Hash of a body's bytes (`hasher`) → ids with that hash.
    by_hash: HashMap<u64, Vec<u32>>,
    /// SHA-256 of a body kept as its first bytes ([`Body::len`]) → its id.
    by_digest: HashMap<[u8; 32], u32>,
    /// The parse limit: of a body longer than it, only what the compile
    /// reads is kept ([`Collected::intern`]).
    max_bytes: usize,
    /// Every body read is hashed to find duplicates: std's keyed SipHash,
    /// about 3× faster than FNV-1a's byte-serial multiply and not open to
    /// chosen collisions. The SHA-256 kept in artifacts is computed once
    /// per distinct body.
    hasher: std::hash::RandomState,
    /// A stated SHA-256 of which the base store has a policy → the body
    /// (not read) that the policy stands for.
    from_base: HashMap<[u8; 32], u32>,
    /// Reasons of inputs known to be broken; `FAILED_INPUT | i` is the
    /// pseudo-body id of reason `i` (never compiled).
    failures: Vec<String>,
    duplicates: Vec<String>,
    self_redirects: usize,
    bodies_read: usize,
    bodies_skipped: usize,
    bodies_unreadable: usize,
    /// Why a 304 found no policy to keep, by host key (settled once the
    /// duplicates are: see `prepare`).
    not_modified_lost: HashMap<String, String>,
    /// Bodies interned and not compiled yet, and their bytes.
    pending: Vec<u32>,
    pending_bytes: usize,
    /// Bodies compiled as the input streamed, by id (their bytes dropped).
    built: HashMap<u32, Built>,
    /// How many were.
    compiled: usize,
    spill: Spill,
}

/// A distinct body.
#[derive(Default)]
struct Body {
    /// Its bytes, or only its first bytes when `len` is given; empty when
    /// it was not read.
    bytes: Vec<u8>,
    /// The whole body's length, when `bytes` holds only the prefix that
    /// the compile reads ([`prefix_reads_as_whole`]; `sha256` is then the
    /// whole body's).
    len: Option<u64>,
    /// Its SHA-256, once known.
    sha256: Option<[u8; 32]>,
    /// Not read: an input stated `sha256`, and the base store's policy of
    /// that digest stands for it.
    from_base: bool,
    /// Compiled already, its bytes dropped (`sha256` identifies it).
    compiled: bool,
}

impl Body {
    fn sha256(&mut self) -> [u8; 32] {
        *self
            .sha256
            .get_or_insert_with(|| robocc_compiler::sha256(&self.bytes))
    }
}

/// Host inputs as a build keeps them: a fixed-size row each, the text in
/// one arena. A `String` per key and per optional field made about 135
/// bytes per host at a million hosts; this is about 50 (32-byte rows plus
/// the text), and the build keeps it until the index is written.
#[derive(Default)]
struct HostRows {
    rows: Vec<HostRow>,
    /// Each row's key, then its location and fetch time if it has them.
    text: String,
}

#[derive(Clone, Copy)]
struct HostRow {
    /// Where the row's text starts in [`HostRows::text`].
    at: usize,
    key_len: u32,
    /// [`ABSENT`] when the input had none.
    location_len: u32,
    fetched_at_len: u32,
    status: u16,
    body: Option<u32>,
}

/// The length of an optional field an input did not have.
const ABSENT: u32 = u32::MAX;

impl HostRows {
    /// Appends a host (its location below [`ABSENT`] bytes: see
    /// [`HostRows::too_long`]). The fetch time is cut to what the index
    /// keeps ([`fetched_at_kept`]).
    fn push(&mut self, key: &str, status: u16, body: Option<u32>, input: &HostInput) {
        let at = self.text.len();
        let mut add = |field: Option<&str>| match field {
            Some(f) => {
                self.text.push_str(f);
                f.len() as u32
            }
            None => ABSENT,
        };
        let key_len = add(Some(key));
        let location_len = add(input.location.as_deref());
        let fetched_at_len = add(input.fetched_at.as_deref().map(fetched_at_kept));
        self.rows.push(HostRow {
            at,
            key_len,
            location_len,
            fetched_at_len,
            status,
            body,
        });
    }

    /// The field of an input that a row cannot hold, if any.
    fn too_long(input: &HostInput) -> Option<&'static str> {
        let long = input
            .location
            .as_ref()
            .is_some_and(|l| l.len() >= ABSENT as usize);
        long.then_some("location")
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn key(&self, i: usize) -> &str {
        self.rows[i].key(&self.text)
    }

    fn fetched_at(&self, i: usize) -> Option<&str> {
        self.rows[i].field(&self.text, 2)
    }

    fn status(&self, i: usize) -> u16 {
        self.rows[i].status
    }

    /// The row of `key`, once the rows are sorted by key.
    fn find(&self, key: &str) -> Option<&HostRow> {
        let i = self
            .rows
            .binary_search_by(|r| r.key(&self.text).cmp(key))
            .ok()?;
        Some(&self.rows[i])
    }
}

impl HostRow {
    /// Field `n` of the row in `text`: 0 key, 1 location, 2 fetch time.
    fn field<'t>(&self, text: &'t str, n: usize) -> Option<&'t str> {
        let lens = [self.key_len, self.location_len, self.fetched_at_len];
        if lens[n] == ABSENT {
            return None;
        }
        let before: usize = lens[..n]
            .iter()
            .filter(|&&l| l != ABSENT)
            .map(|&l| l as usize)
            .sum();
        let start = self.at + before;
        text.get(start..start + lens[n] as usize)
    }

    fn key<'t>(&self, text: &'t str) -> &'t str {
        self.field(text, 0).unwrap_or("")
    }

    fn location<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.field(text, 1)
    }
}

const ALLOW_ID: u32 = 0;
const DISALLOW_ID: u32 = 1;
/// Body ids with this bit set stand for a broken input (`HostInput::failure`).
const FAILED_INPUT: u32 = 1 << 31;

impl Collected {
    fn new(max_bytes: usize) -> Collected {
        let mut c = Collected {
            max_bytes,
            ..Collected::default()
        };
        c.intern(ALLOW_ALL.to_vec());
        c.intern(DISALLOW_ALL.to_vec());
        c
    }

    /// The id of a body, distinct bodies kept once. Of a body longer than
    /// the parse limit, only what the compile reads is kept (the limit plus
    /// a byte, at least the bytes that tell how a body is read), with the
    /// whole body's SHA-256 and length, which identify it and which its
    /// policy records: a few thousand hosts serving megabytes of HTML as
    /// robots.txt cost that much each, not megabytes
    /// ([`robocc_compiler::compile_prefix`] compiles it as the whole).
    fn intern(&mut self, mut body: Vec<u8>) -> u32 {
        let keep = body_keep(self.max_bytes);
        if body.len() > keep && prefix_reads_as_whole(&body[..keep], self.max_bytes) {
            let digest = robocc_compiler::sha256(&body);
            let len = body.len() as u64;
            body.truncate(keep);
            return self.intern_prefix(body, len, digest);
        }
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, &body[..]);
        let ids = self.by_hash.entry(hash).or_default();
        let bodies = &self.bodies;
        // A compiled body's bytes are gone: its SHA-256 stands for them
        // (computed for a body only when its hash meets one).
        let mut digest = None;
        if let Some(&id) = ids.iter().find(|&&id| {
            let b = &bodies[id as usize];
            if b.compiled {
                b.sha256 == Some(*digest.get_or_insert_with(|| robocc_compiler::sha256(&body)))
            } else {
                b.bytes == body
            }
        }) {
            return id;
        }
        let id = self.bodies.len() as u32;
        self.pending_bytes += body.len();
        self.bodies.push(Body {
            bytes: body,
            ..Body::default()
        });
        ids.push(id);
        self.pending.push(id);
        id
    }

    /// Compiles the bodies interned since the last call and drops their
    /// bytes, keeping each one's SHA-256 (which finds its duplicates) and
    /// policy.
    fn compile_pending(
        &mut self,
        agent: &str,
        options: &CompileOptions,
        store: &StoreOptions<'_>,
        reusable: &Reusable,
    ) {
        let ids = std::mem::take(&mut self.pending);
        let built = compile_bodies(
            &self.bodies,
            &ids,
            agent,
            options,
            store,
            reusable,
            self.compiled,
            &mut self.spill,
        );
        self.compiled += ids.len();
        for (&id, b) in ids.iter().zip(built) {
            let body = &mut self.bodies[id as usize];
            body.sha256();
            body.bytes = Vec::new();
            body.compiled = true;
            self.built.insert(id, b);
        }
        self.pending_bytes = 0;
        release_freed_memory();
    }

    /// The id of a body kept as its first bytes ([`body_keep`]), with the
    /// whole body's length and SHA-256 (which identify it).
    fn intern_prefix(&mut self, mut prefix: Vec<u8>, len: u64, digest: [u8; 32]) -> u32 {
        if let Some(&id) = self.by_digest.get(&digest) {
            return id;
        }
        prefix.shrink_to_fit();
        let id = self.bodies.len() as u32;
        self.pending_bytes += prefix.len();
        self.bodies.push(Body {
            bytes: prefix,
            len: Some(len),
            sha256: Some(digest),
            ..Body::default()
        });
        self.by_digest.insert(digest, id);
        self.pending.push(id);
        id
    }

    /// The body id of an input (`None`: its status uses no body, or it has
    /// none). A body file is not read when the input states a digest of
    /// which the base store has a reusable policy: that policy stands for
    /// it (the input's statement is trusted, as its `body_path` is). A body
    /// that is read is checked against the stated digest.
    fn body_of(&mut self, input: &mut HostInput, base: &Reusable) -> Result<Option<u32>, String> {
        // Only a 2xx response's body is compiled (RFC 9309 §2.3.1): another
        // status's is neither read nor checked.
        if !(200..300).contains(&input.status) {
            return Ok(None);
        }
        let claimed = input.sha256;
        if let (None, Some(_), Some(d)) = (&input.body, &input.body_path, claimed) {
            if base.contains_key(&d) {
                self.bodies_skipped += 1;
                return Ok(Some(self.base_body(d)));
            }
        }
        let id = match (input.body.take(), &input.body_path) {
            (Some(b), _) => self.intern(b),
            (None, Some(p)) => {
                self.bodies_read += 1;
                let read = read_body(p, self.max_bytes).inspect_err(|_| {
                    self.bodies_unreadable += 1;
                })?;
                match read.whole {
                    Some((len, digest)) => self.intern_prefix(read.bytes, len, digest),
                    None => self.intern(read.bytes),
                }
            }
            (None, None) => return Ok(None),
        };
        if let Some(d) = claimed {
            let actual = self.bodies[id as usize].sha256();
            if actual != d {
                return Err(digest_mismatch(&actual, &d));
            }
        }
        Ok(Some(id))
    }

    /// The body (not read) that the base store's reusable policy of
    /// source digest `d` stands for.
    fn base_body(&mut self, d: [u8; 32]) -> u32 {
        let bodies = &mut self.bodies;
        *self.from_base.entry(d).or_insert_with(|| {
            bodies.push(Body {
                sha256: Some(d),
                from_base: true,
                ..Body::default()
            });
            (bodies.len() - 1) as u32
        })
    }

    /// A 304 Not Modified answers a conditional fetch: the robots.txt the
    /// crawler holds is current. Its body id ([`kept_by_base`]): the base
    /// store's policy, a failure, or none, noting why (the row is then
    /// unreachable: [`resolve`]). A 304 has no body or target of its own:
    /// any it states is not read.
    fn not_modified(
        &mut self,
        key: &str,
        input: &mut HostInput,
        base: Option<&Store>,
        reusable: &Reusable,
    ) -> Option<u32> {
        input.location = None;
        match kept_by_base(key, base, reusable) {
            Ok(Kept::Policy(d)) => Some(self.base_body(d)),
            Ok(Kept::Failed) => Some(self.failure(
                "304 Not Modified: the --base store holds this host's robots.txt as failed".into(),
            )),
            Err(why) => {
                self.not_modified_lost.insert(key.to_string(), why);
                None
            }
        }
    }

    fn add(
        &mut self,
        mut input: HostInput,
        base: &Reusable,
        base_store: Option<&Store>,
    ) -> Result<(), InputError> {
        let key = host_key(&input.host).map_err(|why| InputError {
            at: format!("host {:?}", input.host),
            kind: InputErrorKind::BadHost(input.host.clone(), why),
        })?;
        if let Some(field) = HostRows::too_long(&input) {
            return Err(InputError {
                at: format!("host {:?}", input.host),
                kind: InputErrorKind::TooLong(field),
            });
        }
        let body = match input.failure.take() {
            Some(why) => Some(self.failure(why)),
            None if input.status == 304 => self.not_modified(&key, &mut input, base_store, base),
            None => match self.body_of(&mut input, base) {
                Ok(id) => id,
                Err(why) => Some(self.failure(why)),
            },
        };
        // Duplicates are resolved once the hosts are sorted ([`Collected::hosts`]).
        self.hosts.push(&key, input.status, body, &input);
        Ok(())
    }

    /// The hosts sorted by key, one record each. Of a host given twice the
    /// last wins, except that a redirect to the host itself (http → https,
    /// as Common Crawl records them beside the capture they lead to) never
    /// replaces another result. Pushing every input and sorting once is
    /// ~2× faster than a hash map at a million hosts (no hashing, no
    /// rehashing, no random writes).
    fn hosts(&mut self) -> HostRows {
        let mut hosts = std::mem::take(&mut self.hosts);
        let HostRows { rows, text } = &mut hosts;
        let text = &*text;
        // Stable: a host's inputs stay in the order they came.
        rows.sort_by(|a, b| a.key(text).cmp(b.key(text)));
        let duplicates = &mut self.duplicates;
        let self_redirects = &mut self.self_redirects;
        // `kept` came before `next`.
        rows.dedup_by(|next, kept| {
            let k = next.key(text);
            if k != kept.key(text) {
                return false;
            }
            let next_to_self = is_self_redirect(k, next.status, next.location(text));
            let kept_to_self = is_self_redirect(k, kept.status, kept.location(text));
            // The later input wins unless it says less: a 304 ("what you
            // hold is current") never replaces another answer of the host
            // in the same input, which is what it refers to, and a
            // redirect to itself replaces nothing.
            let says = |to_self: bool, status: u16| match (to_self, status) {
                (true, _) => 0,
                (false, 304) => 1,
                _ => 2,
            };
            if says(next_to_self, next.status) >= says(kept_to_self, kept.status) {
                std::mem::swap(kept, next);
            }
            // A redirect to itself set aside beside another capture of the
            // host (the http → https hop beside the capture it leads to) is
            // the expected shape, not a duplicate.
            if next_to_self != kept_to_self {
                *self_redirects += 1;
            } else {
                duplicates.push(k.to_string());
            }
            true
        });
        hosts
    }

    /// The pseudo-body id of a broken input.
    fn failure(&mut self, why: String) -> u32 {
        self.failures.push(why);
        FAILED_INPUT | (self.failures.len() - 1) as u32
    }
}

/// What a 304 of host `key` keeps from the base store.
enum Kept {
    /// The policy of this source digest (reusable by this build).
    Policy([u8; 32]),
    /// Nothing that compiled: the host failed there, and fails again.
    Failed,
}

/// What the base store holds for host `key` that a 304 can keep: its
/// policy when it holds the host as fetched with a policy this build may
/// reuse, its failure when it holds it as failed (the same file fails the
/// same way); else why not.
fn kept_by_base(key: &str, base: Option<&Store>, reusable: &Reusable) -> Result<Kept, String> {
    let base = base.ok_or("no --base store")?;
    let host = match base.host(format!("http://{key}/").as_bytes()) {
        Ok(Some(h)) => h,
        Ok(None) => return Err("not in the --base store".into()),
        // Never after `validate_all`; a damaged record is not an absent host.
        Err(e) => return Err(format!("its --base record is damaged: {e}")),
    };
    match host.source {
        HostSource::Fetched => {}
        HostSource::Failed => return Ok(Kept::Failed),
        other => return Err(format!("the --base store holds it as {}", other.name())),
    }
    match base.policy(host.policy as usize) {
        Ok(p) if reusable.contains_key(&p.header().source_sha256) => {
            Ok(Kept::Policy(p.header().source_sha256))
        }
        _ => Err("its --base policy cannot be reused: another agent or options, or damaged".into()),
    }
}

/// Which body applies to a host, and why (RFC 9309 §2.3.1); `hosts` sorted
/// by key, for redirect targets.
fn resolve(hosts: &HostRows, host: &HostRow) -> (u32, HostSource) {
    let mut current = host;
    let mut hops = 0;
    loop {
        let source = if hops > 0 {
            HostSource::Redirected
        } else {
            HostSource::Fetched
        };
        if let Some(b) = current.body.filter(|b| b & FAILED_INPUT != 0) {
            return (b, source);
        }
        match current.status {
            // Its body is the base store's policy, if it had one to keep.
            304 => {
                return match current.body {
                    Some(b) => (b, source),
                    None => (DISALLOW_ID, HostSource::Unreachable),
                }
            }
            200..=299 => {
                return match current.body {
                    Some(b) => (b, source),
                    None => (ALLOW_ID, HostSource::Unavailable),
                }
            }
            300..=399 => {
                let target =
                    redirect_target(current.location(&hosts.text)).and_then(|k| hosts.find(&k));
                match target {
                    None => return (DISALLOW_ID, HostSource::Unreachable),
                    // A redirect to its own host whose row is the redirect
                    // itself: the capture it leads to is not in the input
                    // (a redirect to itself never replaces a capture), as
                    // for a target host not in the input.
                    Some(t) if std::ptr::eq(t, current) => {
                        return (DISALLOW_ID, HostSource::Unreachable)
                    }
                    Some(_) if hops >= MAX_REDIRECTS => return (ALLOW_ID, HostSource::Unavailable),
                    Some(t) => {
                        current = t;
                        hops += 1;
                    }
                }
            }
            // 429 Too Many Requests: a refusal for now, not an absent file
            // (docs/dialects.md, "Fetch status").
            429 => return (DISALLOW_ID, HostSource::Unreachable),
            400..=499 => return (ALLOW_ID, HostSource::Unavailable),
            _ => return (DISALLOW_ID, HostSource::Unreachable),
        }
    }
}

/// A compiled (or reused) distinct body.
enum Built {
    Ok {
        bytes: Artifact,
        split: Option<String>,
        /// What was not read as written, when something was.
        unread: Option<String>,
        /// The base store's policy it is, when reused: bodies that reuse
        /// the same one (read, or named by their digest) share it.
        base: Option<usize>,
    },
    Failed(String),
}

/// Compiles the bodies `ids` once each (in parallel), reusing the base
/// store's policies for unchanged sources; `done` bodies were compiled
/// before (for the progress callback). The policies go to `spill`.
#[allow(clippy::too_many_arguments)]
fn compile_bodies(
    bodies: &[Body],
    ids: &[u32],
    agent: &str,
    options: &CompileOptions,
    store: &StoreOptions<'_>,
    reusable: &Reusable,
    done: usize,
    spill: &mut Spill,
) -> Vec<Built> {
    let counter = std::sync::atomic::AtomicUsize::new(done);
    let total = done + ids.len();
    let fixed = fixed_options(options);
    let built: Vec<Built> = ids
        .par_iter()
        .map(|&id| {
            let body = &bodies[id as usize];
            let from_base = match store.base {
                Some(base) if !reusable.is_empty() => {
                    let digest = body
                        .sha256
                        .unwrap_or_else(|| robocc_compiler::sha256(&body.bytes));
                    reusable.get(&digest).map(|&i| reuse(base, i))
                }
                _ => None,
            };
            let result = match from_base {
                Some(built) => built,
                // Collected only makes an unread body for a digest in
                // `reusable`: a body not read is never compiled as empty.
                None if body.from_base => {
                    Built::Failed("the base store's policy for this body is gone".into())
                }
                // The bodies that stand for a status (also any fetched body
                // with the same bytes) are robocc's own two lines: compiled
                // under limits they always fit, so that a budget too small
                // for anything cannot turn a 503 into the on-failure policy.
                None => match compile_body(
                    body,
                    agent,
                    if id == ALLOW_ID || id == DISALLOW_ID {
                        &fixed
                    } else {
                        options
                    },
                ) {
                    Ok(c) => Built::Ok {
                        split: (c.data.automata.len() > 1)
                            .then(|| c.data.header.split_reason.clone()),
                        unread: robocc_compiler::unread_summary(&c.diagnostics),
                        bytes: Artifact::Memory(c.to_bytes().to_vec()),
                        base: None,
                    },
                    Err(e) => Built::Failed(e.to_string()),
                },
            };
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Some(p) = store.progress {
                p(n, total);
            }
            result
        })
        .collect();
    built
        .into_iter()
        .map(|mut b| {
            if let Built::Ok {
                bytes: slot @ Artifact::Memory(_),
                ..
            } = &mut b
            {
                if let Artifact::Memory(bytes) =
                    std::mem::replace(slot, Artifact::Memory(Vec::new()))
                {
                    *slot = spill.keep(bytes);
                }
            }
            b
        })
        .collect()
}

/// Distinct base policies among `built`: two bodies (one read, one named
/// by its digest) may reuse the same one.
fn distinct_reused(built: &[Built]) -> usize {
    let mut reused: Vec<usize> = built
        .iter()
        .filter_map(|b| match b {
            Built::Ok { base, .. } => *base,
            Built::Failed(_) => None,
        })
        .collect();
    reused.sort_unstable();
    reused.dedup();
    reused.len()
}

/// Compiled policies bytes in memory before [`Spill`] writes them to a
/// temporary file instead.
const SPILL_AFTER: usize = 256 << 20;

/// Distinct body bytes collected before they are compiled (and dropped):
/// what bounds a build's bodies in memory however many distinct ones its
/// input holds.
const COMPILE_AFTER: usize = 64 << 20;

/// A compiled policy: in memory, or at a place of the spill file.
enum Artifact {
    Memory(Vec<u8>),
    Spilled { at: u64, len: usize },
}

/// Where a build keeps its compiled policies until the index is written:
/// in memory up to [`SPILL_AFTER`] bytes, then appended to a temporary file
/// (in `std::env::temp_dir()`, removed as soon as it is created: it goes
/// with the process), so that memory does not grow with the number of
/// distinct bodies. If the file cannot be made or written, they stay in
/// memory (the store is the same).
struct Spill {
    /// Bytes kept in memory before the file is used.
    limit: usize,
    file: Option<std::fs::File>,
    /// Bytes written to `file`.
    len: u64,
    in_memory: usize,
    /// No more writes to `file` (one failed, or it could not be made).
    closed: bool,
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            limit: SPILL_AFTER,
            file: None,
            len: 0,
            in_memory: 0,
            closed: false,
        }
    }
}

impl Spill {
    fn keep(&mut self, bytes: Vec<u8>) -> Artifact {
        if !cfg!(unix) || self.closed || self.in_memory + bytes.len() <= self.limit {
            self.in_memory += bytes.len();
            return Artifact::Memory(bytes);
        }
        if self.file.is_none() {
            self.file = spill_file().ok();
        }
        let written = self.file.as_mut().map(|f| {
            use std::io::Write;
            f.write_all(&bytes)
        });
        match written {
            Some(Ok(())) => {
                let at = self.len;
                self.len += bytes.len() as u64;
                Artifact::Spilled {
                    at,
                    len: bytes.len(),
                }
            }
            _ => {
                // A part may have been written: nothing more is.
                self.closed = true;
                self.in_memory += bytes.len();
                Artifact::Memory(bytes)
            }
        }
    }

    /// The bytes of an artifact.
    fn load<'a>(&self, a: &'a Artifact) -> Result<Cow<'a, [u8]>, StoreError> {
        match a {
            Artifact::Memory(b) => Ok(Cow::Borrowed(b)),
            #[cfg(unix)]
            Artifact::Spilled { at, len } => {
                use std::os::unix::fs::FileExt;
                let mut out = vec![0; *len];
                self.file
                    .as_ref()
                    .ok_or_else(|| std::io::Error::other("no spill file"))
                    .and_then(|f| f.read_exact_at(&mut out, *at))
                    .map_err(|e| {
                        StoreError::Input(InputError {
                            at: "the build's temporary file of compiled policies".into(),
                            kind: InputErrorKind::Io(e.to_string()),
                        })
                    })?;
                Ok(Cow::Owned(out))
            }
            // `keep` spills nothing elsewhere than on Unix.
            #[cfg(not(unix))]
            Artifact::Spilled { .. } => Err(StoreError::Input(InputError {
                at: "the build's temporary file of compiled policies".into(),
                kind: InputErrorKind::Io("not kept on this system".into()),
            })),
        }
    }
}

/// A new temporary file, already unlinked.
fn spill_file() -> std::io::Result<std::fs::File> {
    let dir = std::env::temp_dir();
    for attempt in 0..100 {
        let path = dir.join(format!(
            ".robocc-build-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary file name"))
}

/// A distinct body compiled: a body kept as its first bytes as the whole.
fn compile_body(
    body: &Body,
    agent: &str,
    options: &CompileOptions,
) -> Result<robocc_compiler::Compiled, CompileError> {
    match (body.len, body.sha256) {
        (Some(len), Some(digest)) => {
            robocc_compiler::compile_prefix(&body.bytes, len, digest, agent, options)
        }
        _ => compile(&body.bytes, agent, options),
    }
}

/// The base store's policies that a build with these options may reuse:
/// the SHA-256 of their source → their index in the base store.
type Reusable = HashMap<[u8; 32], usize>;

fn reusable(base: Option<&Store>, agent: &str, options: &CompileOptions) -> Reusable {
    let Some(base) = base else {
        return Reusable::new();
    };
    let wanted = robocc_compiler::options_hash(agent, options);
    let mut out = HashMap::new();
    for i in 0..base.policy_count() {
        // A policy that fails validation is simply not reused.
        if let Ok(p) = base.policy(i) {
            let h = p.header();
            if h.options_hash == wanted && h.agent.eq_ignore_ascii_case(agent) {
                out.insert(h.source_sha256, i);
            }
        }
    }
    out
}

/// A base store's policy `i`, as a compile of its source would have built
/// it (the header keeps why it was split and what was not read whole).
fn reuse(base: &Store, i: usize) -> Built {
    match (base.policy(i), base.policy_artifact(i)) {
        (Ok(p), Ok(bytes)) => {
            let h = p.header();
            Built::Ok {
                bytes: Artifact::Memory(bytes.to_vec()),
                split: h.split_reason.map(str::to_string),
                unread: h.unread.map(str::to_string),
                base: Some(i),
            }
        }
        (Err(e), _) | (_, Err(e)) => Built::Failed(format!("the base store's policy: {e}")),
    }
}

/// The inputs collected, resolved and compiled: what every store (or shard)
/// of a build indexes a part of.
struct Prepared {
    /// Why hosts were left out, for the report.
    duplicates: Vec<String>,
    self_redirects: usize,
    /// The hosts, sorted by key, one row each.
    hosts: HostRows,
    /// Per key: the body that applies, and why.
    resolved: Vec<(u32, HostSource)>,
    /// The bodies used, sorted; `built` is parallel to it.
    used: Vec<u32>,
    built: Vec<Built>,
    reused: usize,
    bodies_read: usize,
    bodies_skipped: usize,
    bodies_unreadable: usize,
    not_modified: usize,
    not_modified_lost: Vec<HostNote>,
    /// Where the policies in `built` are.
    spill: Spill,
}

/// Collect, resolve and compile: everything but the index.
fn prepare<I>(
    inputs: I,
    agent: &str,
    options: &CompileOptions,
    store: &StoreOptions<'_>,
    wanted: impl Fn(&str) -> bool,
) -> Result<Prepared, StoreError>
where
    I: IntoIterator<Item = Result<HostInput, InputError>>,
{
    options.check_tokens(agent).map_err(StoreError::Compile)?;
    // The whole base, before anything is taken from it: lookups verify the
    // slots they read, but a build copies policies and 304s' records into
    // a new store whose checksum would then vouch for them. O(base size),
    // about what reading it costs.
    if let Some(base) = store.base {
        base.validate_all().map_err(StoreError::Base)?;
    }
    let reusable = reusable(store.base, agent, options);
    // Collect.
    let mut collected = Collected::new(options.parse.max_bytes);
    for input in inputs {
        collected
            .add(input.map_err(StoreError::Input)?, &reusable, store.base)
            .map_err(StoreError::Input)?;
        // Bodies are compiled as they stream in, a batch at a time, and
        // only their policies kept: memory does not grow with the number of
        // distinct bodies (a body a later input of its host replaces is
        // compiled for nothing: the price of not holding it).
        if collected.pending_bytes > COMPILE_AFTER {
            collected.compile_pending(agent, options, store, &reusable);
        }
    }
    // Resolve: hosts sorted by key (redirect targets are found by binary
    // search), then split into what the index needs.
    let hosts = collected.hosts();
    let resolved: Vec<(u32, HostSource)> = hosts.rows.iter().map(|r| resolve(&hosts, r)).collect();
    // The 304s that stood once the duplicates were settled, of the hosts
    // written: kept, or lost and why.
    let (mut not_modified, mut not_modified_lost) = (0, Vec::new());
    for i in (0..hosts.len()).filter(|&i| hosts.rows[i].status == 304 && wanted(hosts.key(i))) {
        match hosts.rows[i].body {
            Some(b) if b & FAILED_INPUT == 0 => not_modified += 1,
            Some(_) => {}
            None => not_modified_lost.push(HostNote {
                host: hosts.key(i).to_string(),
                note: collected
                    .not_modified_lost
                    .get(hosts.key(i))
                    .cloned()
                    .unwrap_or_default(),
            }),
        }
    }
    // Only the bodies of the hosts written are compiled.
    let mut used: Vec<u32> = (0..hosts.len())
        .zip(&resolved)
        .filter(|&(i, _)| wanted(hosts.key(i)))
        .map(|(_, r)| r.0)
        .collect();
    used.sort_unstable();
    used.dedup();
    // Compile what is not compiled yet.
    let todo: Vec<u32> = used
        .iter()
        .copied()
        .filter(|&id| id & FAILED_INPUT == 0 && !collected.built.contains_key(&id))
        .collect();
    let done = collected.compiled;
    let fresh = compile_bodies(
        &collected.bodies,
        &todo,
        agent,
        options,
        store,
        &reusable,
        done,
        &mut collected.spill,
    );
    collected.built.extend(todo.into_iter().zip(fresh));
    let built: Vec<Built> = used
        .iter()
        .map(|&id| match id {
            _ if id & FAILED_INPUT != 0 => {
                Built::Failed(collected.failures[(id & !FAILED_INPUT) as usize].clone())
            }
            _ => collected
                .built
                .remove(&id)
                .unwrap_or_else(|| Built::Failed("the body was not compiled".into())),
        })
        .collect();
    let reused = distinct_reused(&built);
    drop(collected.built);
    release_freed_memory();
    Ok(Prepared {
        duplicates: collected.duplicates,
        self_redirects: collected.self_redirects,
        hosts,
        resolved,
        used,
        built,
        reused,
        bodies_read: collected.bodies_read,
        bodies_skipped: collected.bodies_skipped,
        bodies_unreadable: collected.bodies_unreadable,
        not_modified,
        not_modified_lost,
        spill: collected.spill,
    })
}

/// Gives the memory the parallel compile freed back to the system before
/// the index is written. glibc keeps what each compile thread freed in that
/// thread's arena, so the index's buffers came on top of it: at a million
/// hosts the build's peak went from 423 to 331 MB with this call (the store
/// byte-identical). Process-wide: it takes each arena's lock once. Elsewhere
/// than glibc, nothing.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: `malloc_trim` takes no pointer and only returns free
        // memory of glibc's arenas to the system; it may be called at any
        // time from any thread.
        unsafe { malloc_trim(0) };
    }
}

impl Prepared {
    /// A fresh report with what the whole build did.
    fn report(&mut self) -> StoreReport {
        StoreReport {
            compiled: self
                .used
                .iter()
                .zip(&self.built)
                .filter(|(&b, built)| {
                    b & FAILED_INPUT == 0 && matches!(built, Built::Ok { base: None, .. })
                })
                .count(),
            reused: self.reused,
            bodies_read: self.bodies_read,
            bodies_skipped: self.bodies_skipped,
            bodies_unreadable: self.bodies_unreadable,
            duplicates: std::mem::take(&mut self.duplicates),
            self_redirects: self.self_redirects,
            not_modified: self.not_modified,
            not_modified_lost: std::mem::take(&mut self.not_modified_lost),
            ..StoreReport::default()
        }
    }

    /// Writes the store of the hosts `which` (indices into `keys`, in
    /// order) and adds them to `report`. Policies are numbered in the order
    /// hosts (sorted by key) first use them, then the fallback if any host
    /// needs it: the bytes depend on the hosts and bodies, not on the order
    /// of the inputs. Returns the bytes and the body ids stored (the
    /// fallback as `u32::MAX`).
    fn write(
        &self,
        which: impl IntoIterator<Item = usize>,
        agent: &str,
        options: &CompileOptions,
        on_failure: OnFailure,
        report: &mut StoreReport,
    ) -> Result<(rkyv::util::AlignedVec<16>, Vec<u32>), StoreError> {
        // A policy is stored once per body, or per base policy reused.
        let mut stored_as: HashMap<(Option<usize>, u32), u32> = HashMap::new();
        let mut policies: Vec<Cow<'_, [u8]>> = Vec::new();
        let mut stored: Vec<u32> = Vec::new();
        let mut failed_hosts: Vec<usize> = Vec::new();
        let mut entries = Vec::new();
        for k in which {
            let key = self.hosts.key(k);
            let (body, mut source) = self.resolved[k];
            let built = &self.built[self.used.binary_search(&body).unwrap_or(0)];
            let policy = match built {
                Built::Ok {
                    bytes,
                    split,
                    unread,
                    base,
                } => {
                    if let Some(why) = split {
                        report.split.push(HostNote {
                            host: key.to_string(),
                            note: why.clone(),
                        });
                    }
                    if let Some(note) = unread {
                        report.unread.push(HostNote {
                            host: key.to_string(),
                            note: note.clone(),
                        });
                    }
                    let slot = match base {
                        Some(i) => (Some(*i), 0),
                        None => (None, body),
                    };
                    match stored_as.get(&slot) {
                        Some(&i) => i,
                        None => {
                            policies.push(self.spill.load(bytes)?);
                            stored.push(body);
                            let i = (policies.len() - 1) as u32;
                            stored_as.insert(slot, i);
                            i
                        }
                    }
                }
                Built::Failed(why) => {
                    source = HostSource::Failed;
                    report.failures.push(HostNote {
                        host: key.to_string(),
                        note: why.clone(),
                    });
                    failed_hosts.push(entries.len());
                    // Numbered once every compiled policy is known.
                    u32::MAX
                }
            };
            report.by_source.add(source);
            entries.push(HostEntry {
                key,
                policy,
                source,
                status: self.hosts.status(k),
                fetched_at: self.hosts.fetched_at(k),
            });
        }
        if !failed_hosts.is_empty() {
            let index = policies.len() as u32;
            for &i in &failed_hosts {
                entries[i].policy = index;
            }
            policies.push(Cow::Owned(fallback_policy(agent, options, on_failure)));
            stored.push(u32::MAX);
        }
        let policies: Vec<&[u8]> = policies.iter().map(|p| &p[..]).collect();
        report.hosts += entries.len();
        let meta = StoreMeta {
            agent: agent.to_string(),
            dialect: options.dialect,
            compiler_version: env!("CARGO_PKG_VERSION").to_string(),
            options_hash: robocc_compiler::options_hash(agent, options),
        };
        let bytes = write_store(&meta, entries, &policies).map_err(StoreError::TooLarge)?;
        Ok((bytes, stored))
    }

    /// Counts the distinct policies (and those on the split path) among
    /// the body ids stored.
    fn count_policies(&self, stored: &[u32], report: &mut StoreReport) {
        let mut distinct: Vec<u32> = stored.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        report.unique_policies = distinct.len();
        report.split_policies = distinct
            .iter()
            .filter(|&&b| {
                b != u32::MAX
                    && matches!(
                        self.built[self.used.binary_search(&b).unwrap_or(0)],
                        Built::Ok { split: Some(_), .. }
                    )
            })
            .count();
    }
}

/// Builds a store for `agent` from host inputs, streamed.
///
/// The bytes depend on the set of hosts and their inputs, not on the order
/// the inputs come in (except that of a host given twice the last one
/// wins, unless it is a redirect to the host itself and the earlier one is
/// not — [`is_self_redirect`]): hosts are sorted by hash and key, policies numbered in the order
/// hosts sorted by key first use them.
///
/// # Errors
///
/// An invalid agent token, an input that cannot be read, or a store over
/// the format's size. Bodies that fail to compile are not errors: they are
/// in the report.
pub fn build_store<I>(
    inputs: I,
    agent: &str,
    options: &CompileOptions,
    store: &StoreOptions<'_>,
) -> Result<(rkyv::util::AlignedVec<16>, StoreReport), StoreError>
where
    I: IntoIterator<Item = Result<HostInput, InputError>>,
{
    let mut prepared = prepare(inputs, agent, options, store, |_| true)?;
    let mut report = prepared.report();
    let (bytes, stored) = prepared.write(
        0..prepared.hosts.len(),
        agent,
        options,
        store.on_failure,
        &mut report,
    )?;
    prepared.count_policies(&stored, &mut report);
    report.bytes = bytes.len();
    Ok((bytes, report))
}

/// A store set as built: the shard stores in order, and the index that
/// names them (docs/artifact.md, "Store sets").
pub struct BuiltSet {
    /// Shard `i`'s store, to be written as `shard_file_name(i)`.
    pub shards: Vec<rkyv::util::AlignedVec<16>>,
    /// The text of `index.txt`.
    pub index: String,
}

/// Builds a store set of `shards` shards: hosts are partitioned by
/// [`robocc_engine::shard_of_hash`] of their key's hash; redirects are
/// resolved over all the inputs; each distinct body is compiled once for
/// the whole set. Shard `i` is exactly the store [`build_store`] writes for
/// the hosts of shard `i` with those resolutions: deterministic, and
/// independent of the order of the inputs. In the report, `bytes` is the
/// size of every shard and the index, and `unique_policies` counts a policy
/// stored in several shards once.
///
/// # Errors
///
/// As [`build_store`]; `shards` outside 1 to [`robocc_engine::MAX_SHARDS`].
pub fn build_store_set<I>(
    inputs: I,
    agent: &str,
    options: &CompileOptions,
    store: &StoreOptions<'_>,
    shards: usize,
) -> Result<(BuiltSet, StoreReport), StoreError>
where
    I: IntoIterator<Item = Result<HostInput, InputError>>,
{
    if shards == 0 || shards > robocc_engine::MAX_SHARDS {
        return Err(StoreError::TooLarge(format!(
            "{shards} shards: a store set has 1 to {}",
            robocc_engine::MAX_SHARDS
        )));
    }
    let mut prepared = prepare(inputs, agent, options, store, |_| true)?;
    let mut report = prepared.report();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); shards];
    for i in 0..prepared.hosts.len() {
        let hash = HostKey::of_key(prepared.hosts.key(i)).map_or(0, |k| k.hash());
        members[robocc_engine::shard_of_hash(hash, shards)].push(i);
    }
    let mut out = Vec::with_capacity(shards);
    let mut infos = Vec::with_capacity(shards);
    let mut stored_all = Vec::new();
    for which in members {
        let hosts = which.len() as u64;
        let (bytes, stored) =
            prepared.write(which, agent, options, store.on_failure, &mut report)?;
        stored_all.extend(stored);
        infos.push(robocc_engine::ShardInfo {
            bytes: bytes.len() as u64,
            hosts,
            checksum: robocc_engine::artifact::fnv1a64(&bytes),
        });
        report.bytes += bytes.len();
        out.push(bytes);
    }
    prepared.count_policies(&stored_all, &mut report);
    let index = robocc_engine::SetIndex {
        agent: agent.to_string(),
        dialect: options.dialect,
        options_hash: robocc_compiler::options_hash(agent, options),
        compiler_version: env!("CARGO_PKG_VERSION").to_string(),
        shards: infos,
    }
    .to_text()
    .map_err(StoreError::TooLarge)?;
    report.bytes += index.len();
    Ok((BuiltSet { shards: out, index }, report))
}

/// The shard of a store set of `shards` shards that a host key (as
/// [`host_key`] returns it) belongs to: FNV-1a 64 of the key, mod `shards`
/// (docs/artifact.md, "Store sets").
pub fn shard_of_key(key: &str, shards: usize) -> usize {
    let hash = HostKey::of_key(key).map_or(0, |k| k.hash());
    robocc_engine::shard_of_hash(hash, shards.max(1))
}

/// Builds shard `which` of a store set of `shards` shards, alone: exactly
/// the bytes [`build_store_set`] writes as that shard for the same inputs,
/// as long as `inputs` holds every host of the shard and every host their
/// redirects read ([`redirect_dependencies`]); hosts of other shards among
/// the inputs are read for redirects only. Only the bodies of the shard's
/// hosts are compiled (each distinct one once). This is what a per-partition
/// job (the Spark job of `robocc.spark`) calls. Returns the shard's bytes,
/// its index line's figures, and the report of its hosts.
///
/// # Errors
///
/// As [`build_store_set`]; `which` not below `shards`.
pub fn build_store_shard<I>(
    inputs: I,
    agent: &str,
    options: &CompileOptions,
    store: &StoreOptions<'_>,
    shards: usize,
    which: usize,
) -> Result<
    (
        rkyv::util::AlignedVec<16>,
        robocc_engine::ShardInfo,
        StoreReport,
    ),
    StoreError,
>
where
    I: IntoIterator<Item = Result<HostInput, InputError>>,
{
    if shards == 0 || shards > robocc_engine::MAX_SHARDS || which >= shards {
        return Err(StoreError::TooLarge(format!(
            "shard {which} of {shards}: a store set has 1 to {} shards, numbered from 0",
            robocc_engine::MAX_SHARDS
        )));
    }
    let mine = |k: &str| shard_of_key(k, shards) == which;
    let mut prepared = prepare(inputs, agent, options, store, mine)?;
    let mut report = prepared.report();
    let members: Vec<usize> = (0..prepared.hosts.len())
        .filter(|&i| mine(prepared.hosts.key(i)))
        .collect();
    let hosts = members.len() as u64;
    let (bytes, stored) = prepared.write(members, agent, options, store.on_failure, &mut report)?;
    prepared.count_policies(&stored, &mut report);
    report.bytes = bytes.len();
    let info = robocc_engine::ShardInfo {
        bytes: bytes.len() as u64,
        hosts,
        checksum: robocc_engine::artifact::fnv1a64(&bytes),
    };
    Ok((bytes, info, report))
}

/// The text of a store set's `index.txt` for shards with these figures, as
/// [`build_store_set`] writes it.
///
/// # Errors
///
/// An agent or training agent that is not a product token; no shard, or
/// more than [`robocc_engine::MAX_SHARDS`].
pub fn store_set_index(
    agent: &str,
    options: &CompileOptions,
    shards: Vec<robocc_engine::ShardInfo>,
) -> Result<String, StoreError> {
    options.check_tokens(agent).map_err(StoreError::Compile)?;
    robocc_engine::SetIndex {
        agent: agent.to_string(),
        dialect: options.dialect,
        options_hash: robocc_compiler::options_hash(agent, options),
        compiler_version: env!("CARGO_PKG_VERSION").to_string(),
        shards,
    }
    .to_text()
    .map_err(StoreError::TooLarge)
}

/// For each host whose status is a redirect, the other hosts its
/// resolution may read (the chain of redirect targets present in the table,
/// up to one hop past [`MAX_REDIRECTS`]), in order. `table` is every host
/// of a build as (host key, status, location): no bodies, so a driver can
/// hold it for millions of hosts. A job that builds one shard at a time
/// gives each shard these hosts too ([`build_store_shard`]). Give each host
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

/// The fingerprint of agent and options that a store records
/// ([`robocc_engine::Store::options_hash`]): a base store with another one
/// has no policy a build with these can reuse.
pub fn options_fingerprint(agent: &str, options: &CompileOptions) -> u64 {
    robocc_compiler::options_hash(agent, options)
}

/// `options` with the default parse options and budget, for robocc's own
/// policies (allow all, disallow all): their bodies are two lines and always
/// fit these, whatever limits the caller set for fetched bodies.
fn fixed_options(options: &CompileOptions) -> CompileOptions {
    CompileOptions {
        budget: robocc_compiler::Budget::default(),
        parse: robocc_compiler::ParseOptions::default(),
        ..options.clone()
    }
}

/// The policy hosts get when their body failed: compiled under
/// [`fixed_options`] (the caller's just failed).
fn fallback_policy(agent: &str, options: &CompileOptions, on_failure: OnFailure) -> Vec<u8> {
    let body = match on_failure {
        OnFailure::Allow => ALLOW_ALL,
        OnFailure::Disallow => DISALLOW_ALL,
    };
    match compile(body, agent, &fixed_options(options)) {
        Ok(c) => c.to_bytes().to_vec(),
        // The agent was validated and the body is two lines: unreachable,
        // but an empty policy list entry would be refused at use, not
        // answered wrongly.
        Err(_) => Vec::new(),
    }
}

/// [`build_store`] with the default compile options, disallow-all for bodies
/// that fail, no base and no progress.
///
/// # Errors
///
/// As [`build_store`].
pub fn build_store_default(
    inputs: &[HostInput],
    agent: &str,
) -> Result<(rkyv::util::AlignedVec<16>, StoreReport), StoreError> {
    build_store(
        inputs.iter().cloned().map(Ok),
        agent,
        &CompileOptions::default(),
        &StoreOptions::default(),
    )
}

/// A directory's host inputs ([`dir_inputs`]).
#[derive(Debug, Default)]
pub struct DirInputs {
    /// One per `<host>.txt` / `<host>_<port>.txt` file, in name order:
    /// status 200 and `body_path`, read by the build.
    pub inputs: Vec<HostInput>,
    /// `*.txt` files whose name is not a host (file name, why): no host can
    /// be given their rules, so they are left out, and said to be.
    pub set_aside: Vec<HostNote>,
}

/// Reads a directory of `<host>.txt` / `<host>_<port>.txt` files (status
/// 200), in name order. The files are named (`body_path`), not read: the
/// build reads each when it needs it, so that memory does not grow with
/// the directory's size, and a file that cannot be read (missing, a FIFO, a
/// subdirectory) is its host's failure. Files whose name is not a host are
/// set aside, with why; other names (without `.txt`) are not looked at.
///
/// # Errors
///
/// The directory cannot be listed.
pub fn dir_inputs(dir: &std::path::Path) -> Result<DirInputs, InputError> {
    let io = |e: std::io::Error| InputError {
        at: dir.display().to_string(),
        kind: InputErrorKind::Io(e.to_string()),
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    paths.sort();
    let mut out = DirInputs::default();
    for path in paths {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            // Not UTF-8, so not a host name: said, as other odd names are.
            if path.extension().is_some_and(|e| e == "txt") {
                out.set_aside.push(HostNote {
                    host: path.display().to_string(),
                    note: "the file name is not UTF-8".into(),
                });
            }
            continue;
        };
        let Some(stem) = name.strip_suffix(".txt") else {
            continue;
        };
        let host = match stem.rsplit_once('_') {
            Some((h, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{h}:{port}")
            }
            _ => stem.to_string(),
        };
        if let Err(why) = host_key(&host) {
            out.set_aside.push(HostNote {
                host: path.display().to_string(),
                note: format!("{host:?} is not a host name: {why}"),
            });
            continue;
        }
        out.inputs.push(HostInput {
            host,
            status: 200,
            body_path: Some(path),
            ..HostInput::default()
        });
    }
    Ok(out)
}

/// [`dir_inputs`] for callers that want every file to be a host: a name
/// that is not one is an error naming the file.
///
/// # Errors
///
/// The directory cannot be listed, or a name is not a host.
pub fn inputs_from_dir(dir: &std::path::Path) -> Result<Vec<HostInput>, InputError> {
    let d = dir_inputs(dir)?;
    match d.set_aside.into_iter().next() {
        Some(n) => Err(InputError {
            at: n.host,
            kind: InputErrorKind::Io(n.note),
        }),
        None => Ok(d.inputs),
    }
}

/// Streams a JSONL manifest: one object per line with `host`, `status`, and
/// `body_path` (relative to the manifest) or `body` (inline text), plus
/// optional `fetched_at`, `location` and `sha256` (the body's digest, 64
/// hex digits: a build with a base store does not read a body file whose
/// digest names one of its policies). Blank lines are skipped. Body files
/// are read by the build, not by the iterator: an unreadable one is an
/// error naming the host and the file.
///
/// # Errors
///
/// The manifest cannot be opened; each line's own errors come from the
/// iterator, naming `FILE:LINE`.
pub fn manifest_inputs(
    path: &std::path::Path,
) -> Result<impl Iterator<Item = Result<HostInput, InputError>>, InputError> {
    let file = std::fs::File::open(path).map_err(|e| InputError {
        at: path.display().to_string(),
        kind: InputErrorKind::Io(format!("cannot read manifest: {e}")),
    })?;
    let base = path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    Ok(manifest_inputs_from(
        file,
        &path.display().to_string(),
        &base,
    ))
}

/// [`manifest_inputs`] of a manifest read from `reader` (standard input,
/// say): `name` is what errors call it, `base` the directory `body_path`s
/// are relative to.
pub fn manifest_inputs_from(
    reader: impl std::io::Read,
    name: &str,
    base: &std::path::Path,
) -> impl Iterator<Item = Result<HostInput, InputError>> {
    let base = base.to_path_buf();
    let name = name.to_string();
    // Large reads: a million-line manifest is ~150 MB. One line buffer,
    // reused.
    let mut reader = std::io::BufReader::with_capacity(1 << 20, reader);
    let mut line = Vec::new();
    let mut n = 0usize;
    let mut done = false;
    std::iter::from_fn(move || loop {
        n += 1;
        // Only an error needs the location.
        let at = |n: usize| format!("{name}:{n}");
        if done {
            return None;
        }
        match robocc_compiler::input::read_line(
            &mut reader,
            robocc_compiler::input::MAX_INPUT_BYTES,
            &mut line,
        ) {
            Ok(false) => return None,
            Ok(true) => {}
            Err(e) => {
                // Not where a line starts: nothing after it can be read.
                done = true;
                return Some(Err(InputError {
                    at: at(n),
                    kind: InputErrorKind::Io(e.to_string()),
                }));
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Without its '\n', so that a parse error's column is the line's.
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        return Some(manifest_line(text, &base).map_err(|kind| InputError { at: at(n), kind }));
    })
}

/// The fields a manifest line may have.
const MANIFEST_FIELDS: [&str; 7] = [
    "host",
    "status",
    "body",
    "body_path",
    "location",
    "fetched_at",
    "sha256",
];

/// One manifest line (a JSON object, as [`manifest_inputs`] reads them;
/// `body_path` relative to `base`) as a host input. A body file is named,
/// not read: a store build reads it when it needs it, and
/// [`HostInput::load_body`] reads it for other callers. A relative
/// `location` is made absolute against the line's host
/// ([`absolute_location`]), as a WARC reader does. A UTF-8 byte-order mark
/// before the object is skipped (an editor's, on the first line).
///
/// # Errors
///
/// What is wrong with the line: besides missing or invalid values, a
/// field a line does not have (a misspelt `locaton` would leave the
/// redirect out), a field given twice, a text field of another type, and
/// both `body` and `body_path`.
pub fn manifest_line(line: &[u8], base: &std::path::Path) -> Result<HostInput, InputErrorKind> {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    // The common line (an object whose fields have the expected types) is
    // read straight into borrowed fields; any line that reading refuses
    // goes through its entries, which say what is wrong (a million lines:
    // 0.88 → 0.63 s). Only a line that starts as an object is tried: serde
    // reads a struct from a JSON array too.
    let typed = line
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
        .then(|| serde_json::from_slice::<LineFields<'_>>(line).ok())
        .flatten();
    match typed {
        Some(fields) => fields.into_input(base),
        None => {
            let entries: Entries =
                serde_json::from_slice(line).map_err(|e| InputErrorKind::NotJson(e.to_string()))?;
            LineFields::of_entries(&entries.0)?.into_input(base)
        }
    }
}

/// A JSON object's entries in order, a key given twice included (a
/// `serde_json::Value` keeps only its last value).
struct Entries(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, serde_json::Value>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// The fields of a manifest line that a host input is made of. Unknown
/// fields, a field given twice and a value of another type are refused
/// here by serde, and named by [`LineFields::of_entries`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LineFields<'a> {
    #[serde(borrow)]
    host: Option<Cow<'a, str>>,
    status: Option<u64>,
    #[serde(borrow)]
    body: Option<Cow<'a, str>>,
    #[serde(borrow)]
    body_path: Option<Cow<'a, str>>,
    #[serde(borrow)]
    location: Option<Cow<'a, str>>,
    #[serde(borrow)]
    fetched_at: Option<Cow<'a, str>>,
    /// Text as written; a value that is not text is [`LineFields::bad_digest`].
    #[serde(borrow)]
    sha256: Option<Cow<'a, str>>,
    /// A `sha256` that is not text, as JSON.
    #[serde(skip)]
    bad_digest: Option<String>,
}

impl<'a> LineFields<'a> {
    /// The fields of an object's entries, or what is wrong with them: a
    /// field a line does not have, one given twice, text of another type
    /// (`null` stands for an absent field). A `status` or `sha256` of
    /// another type is [`InputErrorKind::BadStatus`] or
    /// [`InputErrorKind::BadDigest`], as an invalid value is.
    fn of_entries(
        entries: &'a [(String, serde_json::Value)],
    ) -> Result<LineFields<'a>, InputErrorKind> {
        use serde_json::Value;
        for (i, (k, _)) in entries.iter().enumerate() {
            if !MANIFEST_FIELDS.contains(&k.as_str()) {
                return Err(InputErrorKind::UnknownField(k.clone()));
            }
            if entries[..i].iter().any(|(e, _)| e == k) {
                return Err(InputErrorKind::DuplicateField(k.clone()));
            }
        }
        let get = |k: &str| {
            entries
                .iter()
                .find(|(e, _)| e == k)
                .map(|(_, v)| v)
                .filter(|v| !v.is_null())
        };
        let text = |k: &'static str| -> Result<Option<Cow<'a, str>>, InputErrorKind> {
            match get(k) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(Cow::Borrowed(s.as_str()))),
                Some(v) => Err(InputErrorKind::NotText(k, v.to_string())),
            }
        };
        let (sha256, bad_digest) = match get("sha256") {
            None => (None, None),
            Some(Value::String(d)) => (Some(Cow::Borrowed(d.as_str())), None),
            Some(d) => (None, Some(d.to_string())),
        };
        Ok(LineFields {
            host: text("host")?,
            status: get("status").and_then(Value::as_u64),
            body: text("body")?,
            body_path: text("body_path")?,
            location: text("location")?,
            fetched_at: text("fetched_at")?,
            sha256,
            bad_digest,
        })
    }

    fn into_input(self, base: &std::path::Path) -> Result<HostInput, InputErrorKind> {
        let host = self.host.ok_or(InputErrorKind::MissingHost)?.into_owned();
        let key = host_key(&host).map_err(|why| InputErrorKind::BadHost(host.clone(), why))?;
        let status = self
            .status
            .filter(|&s| s < 1000)
            .ok_or(InputErrorKind::BadStatus)? as u16;
        let (body, body_path) = match (self.body, self.body_path) {
            (Some(_), Some(_)) => return Err(InputErrorKind::BodyAndBodyPath),
            (Some(inline), None) => (Some(inline.into_owned().into_bytes()), None),
            (None, Some(rel)) => (None, Some(base.join(&*rel))),
            (None, None) if (200..300).contains(&status) => {
                return Err(InputErrorKind::MissingBody(status))
            }
            (None, None) => (None, None),
        };
        let sha256 = match (self.sha256, self.bad_digest) {
            (_, Some(bad)) => return Err(InputErrorKind::BadDigest(bad)),
            (None, None) => None,
            (Some(d), None) => Some(parse_sha256(&d).ok_or_else(|| {
                InputErrorKind::BadDigest(serde_json::Value::from(&*d).to_string())
            })?),
        };
        // A relative location is the line's host's: its scheme is not
        // known, and not part of a store's key.
        let location = self
            .location
            .map(|l| absolute_location(&l, &format!("http://{key}")));
        Ok(HostInput {
            host,
            status,
            body,
            location,
            fetched_at: self.fetched_at.map(Cow::into_owned),
            failure: None,
            body_path,
            sha256,
        })
    }
}

/// 64 hex digits (either case) as a SHA-256.
fn parse_sha256(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *o = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(host: &str, status: u16, body: Option<&str>, location: Option<&str>) -> HostInput {
        HostInput {
            host: host.to_string(),
            status,
            body: body.map(|b| b.as_bytes().to_vec()),
            location: location.map(str::to_string),
            ..HostInput::default()
        }
    }

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

    /// Every combination of absent, empty and present optional fields reads
    /// back from the rows' shared text as it was given (a fetch time cut to
    /// the 255 bytes the index keeps, at a character boundary).
    #[test]
    fn host_rows_read_back_their_fields() {
        let long = "é".repeat(200);
        let values = [
            None,
            Some(""),
            Some("https://é.example/x"),
            Some("2026-01-01T00:00:00Z"),
            Some(long.as_str()),
        ];
        let mut rows = HostRows::default();
        let mut given = Vec::new();
        for (n, (&location, &fetched_at)) in values
            .iter()
            .flat_map(|l| values.iter().map(move |f| (l, f)))
            .enumerate()
        {
            let key = format!("h{n}.example");
            let input = HostInput {
                location: location.map(str::to_string),
                fetched_at: fetched_at.map(str::to_string),
                ..HostInput::default()
            };
            rows.push(&key, 300 + n as u16, Some(n as u32), &input);
            given.push((key, location, fetched_at));
        }
        for (i, (key, location, fetched_at)) in given.iter().enumerate() {
            assert_eq!(rows.key(i), key);
            assert_eq!(rows.rows[i].location(&rows.text), *location, "{key}");
            let kept = fetched_at.map(|f| if f.len() > 255 { &f[..254] } else { f });
            assert_eq!(rows.fetched_at(i), kept, "{key}");
            assert_eq!(rows.status(i), 300 + i as u16);
            assert_eq!(rows.rows[i].body, Some(i as u32));
        }
        let text = rows.text.clone();
        rows.rows.sort_by(|a, b| a.key(&text).cmp(b.key(&text)));
        for (n, (key, ..)) in given.iter().enumerate() {
            assert_eq!(rows.find(key).map(|r| r.status), Some(300 + n as u16));
        }
        assert!(rows.find("h25.example").is_none());
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
        ] {
            let e = host_key(bad).unwrap_err();
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

    #[test]
    fn statuses_and_redirects() {
        let blocked = "User-agent: *\nDisallow: /private\n";
        let mut inputs = vec![
            input("a.com", 200, Some(blocked), None),
            input("B.com", 200, Some(blocked), None),
            input("gone.com", 404, None, None),
            input("down.com", 503, None, None),
            input("dead.com", 0, None, None),
            input("moved.com", 301, None, Some("https://a.com/robots.txt")),
            input(
                "nowhere.com",
                302,
                None,
                Some("https://unknown.com/robots.txt"),
            ),
            input("broken.com", 302, None, None),
            input("odd.com", 102, None, None),
            input(
                "port.com:8080",
                200,
                Some("User-agent: *\nDisallow: /\n"),
                None,
            ),
        ];
        // A lone redirect to itself (the capture it leads to is not in
        // the input), a redirect into one, and a redirect to another
        // document than a robots.txt: unreachable, as a redirect to a host
        // not in the input. A query does not make another document.
        inputs.push(input(
            "self.com",
            301,
            None,
            Some("https://self.com/robots.txt"),
        ));
        inputs.push(input(
            "via.com",
            301,
            None,
            Some("http://self.com/robots.txt"),
        ));
        inputs.push(input(
            "page.com",
            301,
            None,
            Some("https://a.com/home.html"),
        ));
        inputs.push(input(
            "query.com",
            301,
            None,
            Some("https://a.com/robots.txt?l=en"),
        ));
        // A chain of 6 redirects ends unavailable (allow all).
        for i in 0..6 {
            inputs.push(input(
                &format!("r{i}.com"),
                301,
                None,
                Some(&format!("http://r{}.com/robots.txt", i + 1)),
            ));
        }
        inputs.push(input("r6.com", 200, Some(blocked), None));
        let (bytes, report) = build_store_default(&inputs, "Googlebot").unwrap();
        let store = Store::from_slice(&bytes).unwrap();
        store.validate_all().unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
        assert_eq!(allowed("https://a.com/private"), Some(false));
        assert_eq!(allowed("https://b.com/private"), Some(false));
        assert_eq!(allowed("https://A.COM/public"), Some(true));
        assert_eq!(allowed("https://gone.com/private"), Some(true));
        assert_eq!(allowed("https://down.com/x"), Some(false));
        assert_eq!(allowed("https://dead.com/x"), Some(false));
        assert_eq!(allowed("https://moved.com/private"), Some(false));
        assert_eq!(allowed("https://moved.com/public"), Some(true));
        assert_eq!(allowed("https://nowhere.com/x"), Some(false));
        assert_eq!(allowed("https://broken.com/x"), Some(false));
        assert_eq!(allowed("https://odd.com/x"), Some(false));
        assert_eq!(allowed("http://port.com:8080/x"), Some(false));
        assert_eq!(allowed("http://port.com/x"), None);
        assert_eq!(
            allowed("https://r1.com/private"),
            Some(false),
            "5 hops are followed"
        );
        assert_eq!(
            allowed("https://r0.com/private"),
            Some(true),
            "6 hops: unavailable"
        );
        assert_eq!(allowed("https://missing.com/"), None);
        for lost in ["self.com", "via.com", "page.com"] {
            let url = format!("https://{lost}/x");
            let h = store.host(url.as_bytes()).unwrap().unwrap();
            assert_eq!(h.source, HostSource::Unreachable, "{lost}");
        }
        assert_eq!(allowed("https://query.com/private"), Some(false));
        assert_eq!(allowed("https://query.com/public"), Some(true));
        // a.com, b.com and the redirects share one compiled body.
        assert!(report.unique_policies <= 4, "{report:?}");
        assert_eq!(report.hosts, inputs.len());
        assert!(report.dedup_ratio() > 3.0);
        assert_eq!(report.by_source.redirected, 7);
    }

    /// 429 Too Many Requests is a server's refusal for now, not a
    /// robots.txt that is absent: disallow all, as Google reads it (its
    /// robots.txt documentation: "4xx … except 429" allow; "5xx and 429"
    /// disallow), and as RFC 9309 §2.3.1.4's "unreachable" (§2.3.1.3's
    /// "unavailable" is a resource that is not there). Its neighbours stay
    /// unavailable, and a redirect to a 429 is unreachable, as one to a 503.
    #[test]
    fn a_429_disallows_all_and_its_neighbours_allow() {
        let inputs = vec![
            input("busy.com", 429, None, None),
            input("before.com", 428, None, None),
            input("after.com", 430, None, None),
            input(
                "to-busy.com",
                301,
                None,
                Some("https://busy.com/robots.txt"),
            ),
        ];
        let (bytes, report) = build_store_default(&inputs, "Googlebot").unwrap();
        let store = Store::from_slice(&bytes).unwrap();
        let said = |host: &str| {
            let url = format!("https://{host}/x");
            let h = store.host(url.as_bytes()).unwrap().unwrap();
            let v = store.check(url.as_bytes()).unwrap().unwrap();
            (h.source, h.status, v.allowed)
        };
        assert_eq!(said("busy.com"), (HostSource::Unreachable, 429, false));
        assert_eq!(said("to-busy.com"), (HostSource::Unreachable, 301, false));
        assert_eq!(said("before.com"), (HostSource::Unavailable, 428, true));
        assert_eq!(said("after.com"), (HostSource::Unavailable, 430, true));
        assert_eq!(
            (report.by_source.unreachable, report.by_source.unavailable),
            (2, 2)
        );
    }

    #[test]
    fn a_shard_built_alone_equals_the_sets_shard() {
        let mut inputs = Vec::new();
        for i in 0..60 {
            let body = format!("User-agent: *\nDisallow: /p{}\n", i % 9);
            let host = format!("h{i}.com");
            inputs.push(match i % 6 {
                0 => input(
                    &host,
                    301,
                    None,
                    Some(&format!("https://h{}.com/", (i + 7) % 60)),
                ),
                1 => input(&host, 404, None, None),
                _ => input(&host, 200, Some(&body), None),
            });
        }
        inputs.push(HostInput {
            failure: Some("truncated".into()),
            ..input("cut.com", 200, None, None)
        });
        inputs.push(input(
            "to-cut.com",
            302,
            None,
            Some("http://cut.com/robots.txt"),
        ));
        let opts = CompileOptions::default();
        let (set, _) = build_store_set(
            inputs.iter().cloned().map(Ok),
            "Googlebot",
            &opts,
            &StoreOptions::default(),
            4,
        )
        .unwrap();
        let table: Vec<_> = inputs
            .iter()
            .map(|h| (host_key(&h.host).unwrap(), h.status, h.location.clone()))
            .collect();
        let deps = redirect_dependencies(&table);
        assert_eq!(deps["to-cut.com"], ["cut.com"]);
        let mut infos = Vec::new();
        for which in 0..4 {
            // The shard's hosts and what their redirects read, nothing else.
            let mut needed: Vec<String> = Vec::new();
            for (k, _, _) in &table {
                if shard_of_key(k, 4) == which {
                    needed.push(k.clone());
                    needed.extend(deps.get(k).cloned().unwrap_or_default());
                }
            }
            let part = inputs
                .iter()
                .filter(|h| needed.contains(&host_key(&h.host).unwrap()))
                .cloned()
                .map(Ok);
            let (bytes, info, report) =
                build_store_shard(part, "Googlebot", &opts, &StoreOptions::default(), 4, which)
                    .unwrap();
            assert_eq!(&bytes[..], &set.shards[which][..], "shard {which}");
            assert_eq!(report.hosts as u64, info.hosts);
            infos.push(info);
        }
        assert_eq!(
            store_set_index("Googlebot", &opts, infos).unwrap(),
            set.index
        );
    }

    #[test]
    fn a_failing_body_gets_the_fallback_and_is_reported() {
        let hostile = "User-agent: *\nDisallow: /*a*b*c*d\nDisallow: /x\n";
        let inputs = [
            input("bad.com", 200, Some(hostile), None),
            input("good.com", 200, Some("User-agent: *\nDisallow: /x\n"), None),
            input("down.com", 503, None, None),
            input("gone.com", 404, None, None),
        ];
        // A budget no automaton fits in.
        let mut opts = CompileOptions::default();
        opts.budget.max_states = 1;
        for (on_failure, allowed) in [(OnFailure::Disallow, false), (OnFailure::Allow, true)] {
            let store_opts = StoreOptions {
                on_failure,
                ..StoreOptions::default()
            };
            let (bytes, report) = build_store(
                inputs.iter().cloned().map(Ok),
                "Googlebot",
                &opts,
                &store_opts,
            )
            .unwrap();
            assert_eq!(report.failures.len(), 2, "{report:?}");
            assert!(report.failures[0].note.contains("states"), "{report:?}");
            let store = Store::from_slice(&bytes).unwrap();
            let entry = store.host(b"https://bad.com/").unwrap().unwrap();
            assert_eq!(entry.source, HostSource::Failed);
            assert_eq!(
                store
                    .check(b"https://bad.com/y")
                    .unwrap()
                    .map(|v| v.allowed),
                Some(allowed)
            );
            // The hosts that stand for a status keep their meaning: their
            // policies are robocc's own, never held to the caller's budget
            // (a 503 host became allowed with on_failure allow).
            for (host, source, allowed) in [
                ("down.com", HostSource::Unreachable, false),
                ("gone.com", HostSource::Unavailable, true),
            ] {
                let url = format!("https://{host}/y");
                let entry = store.host(url.as_bytes()).unwrap().unwrap();
                assert_eq!(entry.source, source, "{host}");
                let v = store.check(url.as_bytes()).unwrap().unwrap();
                assert_eq!(v.allowed, allowed, "{host} {on_failure:?}");
            }
        }
    }

    /// A temporary directory removed when dropped.
    struct TempDir(std::path::PathBuf);
    impl TempDir {
        fn new(name: &str) -> TempDir {
            let d = std::env::temp_dir().join(format!("robocc-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            TempDir(d)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn build_with(inputs: &[HostInput], base: Option<&Store>) -> (Vec<u8>, StoreReport) {
        let opts = StoreOptions {
            base,
            ..StoreOptions::default()
        };
        let (bytes, report) = build_store(
            inputs.iter().cloned().map(Ok),
            "Googlebot",
            &CompileOptions::default(),
            &opts,
        )
        .unwrap();
        (bytes.to_vec(), report)
    }

    /// A base store with any byte flipped: the build that would take 304s'
    /// policies from it refuses it (`validate_all` first), or, where the
    /// flip leaves it valid, builds the store the intact base gives. Before,
    /// a 304 took the policy a damaged slot named, and the new store's own
    /// checksum then vouched for it (issue 41).
    #[test]
    fn a_damaged_base_is_refused_before_anything_is_taken_from_it() {
        let mut first = Vec::new();
        for (i, body) in ["Disallow: /", "Disallow: /x", "Allow: /"]
            .iter()
            .enumerate()
        {
            for h in 0..3 {
                let text = format!("User-agent: *\n{body}\n");
                first.push(input(&format!("h{h}-{i}.com"), 200, Some(&text), None));
            }
        }
        let (base, _) = build_with(&first, None);
        let again: Vec<HostInput> = first
            .iter()
            .map(|h| input(&h.host, 304, None, None))
            .collect();
        let answers = |bytes: &[u8]| -> Vec<_> {
            let s = Store::from_slice(bytes).unwrap();
            s.validate_all().unwrap();
            first
                .iter()
                .map(|h| {
                    let url = format!("https://{}/x", h.host);
                    let v = s.check(url.as_bytes()).unwrap().map(|v| v.allowed);
                    let info = s.host(url.as_bytes()).unwrap().map(|i| i.source);
                    (v, info)
                })
                .collect()
        };
        let intact = Store::from_slice(&base).unwrap();
        let want = answers(&build_with(&again, Some(&intact)).0);
        assert!(
            want.iter().all(|a| a.1 == Some(HostSource::Fetched)),
            "{want:?}"
        );
        let (mut refused, mut same) = (0, 0);
        for at in 32..base.len() {
            let mut m = base.clone();
            m[at] ^= 0x01;
            let Ok(damaged) = Store::from_slice(&m) else {
                continue;
            };
            let opts = StoreOptions {
                base: Some(&damaged),
                ..StoreOptions::default()
            };
            let built = build_store(
                again.iter().cloned().map(Ok),
                "Googlebot",
                &CompileOptions::default(),
                &opts,
            );
            match built {
                Err(e) => {
                    assert!(
                        e.to_string().contains("base store is damaged"),
                        "byte {at}: {e}"
                    );
                    refused += 1;
                }
                Ok((bytes, _)) => {
                    assert_eq!(answers(&bytes), want, "byte {at}");
                    same += 1;
                }
            }
        }
        eprintln!("{refused} flips of the base refused, {same} left it valid");
        assert!(refused > 0);
    }

    #[test]
    fn a_body_named_by_a_known_digest_is_not_read() {
        let dir = TempDir::new("digest-skip");
        // 12 hosts over 4 bodies, each body a file named by its digest.
        let bodies: Vec<String> = (0..4)
            .map(|i| format!("User-agent: *\nDisallow: /p{i}\n"))
            .collect();
        let inputs: Vec<HostInput> = (0..12)
            .map(|i| {
                let body = &bodies[i % 4];
                let path = dir.0.join(format!("b{}.txt", i % 4));
                std::fs::write(&path, body).unwrap();
                HostInput {
                    host: format!("h{i}.com"),
                    status: 200,
                    body_path: Some(path),
                    sha256: Some(robocc_compiler::sha256(body.as_bytes())),
                    ..HostInput::default()
                }
            })
            .collect();
        // Without a base, every body file is read (and checked).
        let (full, report) = build_with(&inputs, None);
        assert_eq!((report.bodies_read, report.bodies_skipped), (12, 0));
        // The same store as one built from the bytes.
        let inline: Vec<HostInput> = inputs
            .iter()
            .map(|h| HostInput {
                body: Some(std::fs::read(h.body_path.as_ref().unwrap()).unwrap()),
                body_path: None,
                sha256: None,
                ..h.clone()
            })
            .collect();
        assert_eq!(build_with(&inline, None).0, full);
        // A rebuild whose digests the base has reads nothing: the files
        // may even be gone. One body changed: only it is read.
        let base = Store::from_slice(&full).unwrap();
        let changed_body = "User-agent: *\nDisallow: /changed\n";
        let changed_path = dir.0.join("changed.txt");
        std::fs::write(&changed_path, changed_body).unwrap();
        for i in 0..4 {
            std::fs::remove_file(dir.0.join(format!("b{i}.txt"))).unwrap();
        }
        let mut next = inputs.clone();
        next[5].body_path = Some(changed_path);
        next[5].sha256 = Some(robocc_compiler::sha256(changed_body.as_bytes()));
        let (new, report) = build_with(&next, Some(&base));
        assert_eq!((report.bodies_read, report.bodies_skipped), (1, 11));
        assert_eq!((report.reused, report.compiled), (4, 1), "{report:?}");
        let store = Store::from_slice(&new).unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
        assert_eq!(allowed("https://h5.com/changed"), Some(false));
        assert_eq!(allowed("https://h5.com/p1"), Some(true));
        assert_eq!(allowed("https://h9.com/p1"), Some(false));
        assert_eq!(allowed("https://h2.com/p2"), Some(false));
        // Without the base, each missing file is its host's failure,
        // naming the file.
        let opts = StoreOptions::default();
        let (_, report) = build_store(
            next.iter().cloned().map(Ok),
            "Googlebot",
            &CompileOptions::default(),
            &opts,
        )
        .unwrap();
        let h0 = report.failures.iter().find(|n| n.host == "h0.com").unwrap();
        assert!(h0.note.contains("cannot read body"), "{h0:?}");
        assert!(report.bodies_unreadable > 0, "{report:?}");
        assert_eq!(
            report.bodies_unreadable,
            report.failures.len(),
            "{report:?}"
        );
    }

    #[test]
    fn a_body_that_is_not_its_digest_fails_its_host_only() {
        let body = "User-agent: *\nDisallow: /a\n";
        let wrong = robocc_compiler::sha256(b"something else");
        let mut inputs = vec![
            input("good.com", 200, Some(body), None),
            input("bad.com", 200, Some(body), None),
        ];
        inputs[0].sha256 = Some(robocc_compiler::sha256(body.as_bytes()));
        inputs[1].sha256 = Some(wrong);
        let (bytes, report) = build_with(&inputs, None);
        assert_eq!(report.failures.len(), 1, "{report:?}");
        assert_eq!(report.failures[0].host, "bad.com");
        assert!(report.failures[0].note.contains(&hex(&wrong)), "{report:?}");
        let store = Store::from_slice(&bytes).unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
        assert_eq!(allowed("https://good.com/b"), Some(true));
        // The fallback (disallow all), not the body's rules.
        assert_eq!(allowed("https://bad.com/b"), Some(false));
        // A digest stated wrongly is never trusted later in the build: a
        // body file named by it is read.
        let mut load = inputs[1].clone();
        load.load_body().unwrap();
        assert!(load.failure.as_deref().unwrap().contains("SHA-256"));
    }

    #[test]
    fn digests_never_make_the_answer_depend_on_the_order_of_the_inputs() {
        let dir = TempDir::new("digest-order");
        let (x, y) = (
            "User-agent: *\nDisallow: /x\n",
            "User-agent: *\nDisallow: /y\n",
        );
        std::fs::write(dir.0.join("x.txt"), x).unwrap();
        std::fs::write(dir.0.join("y.txt"), y).unwrap();
        let line = |host: &str, file: &str, digest_of: &str, status: u16| HostInput {
            host: host.into(),
            status,
            body_path: Some(dir.0.join(file)),
            sha256: Some(robocc_compiler::sha256(digest_of.as_bytes())),
            ..HostInput::default()
        };
        // a.com's file holds x but states y's digest; b.com is right.
        let a = line("a.com", "x.txt", y, 200);
        let b = line("b.com", "y.txt", y, 200);
        // A 404's body is not used: neither read nor checked.
        let gone = line("gone.com", "missing.txt", "anything", 404);
        let (ab, report) = build_with(&[a.clone(), b.clone(), gone.clone()], None);
        let (ba, _) = build_with(&[gone, b, a], None);
        assert_eq!(ab, ba);
        assert_eq!(report.failures.len(), 1, "{report:?}");
        assert_eq!(report.failures[0].host, "a.com");
        let store = Store::from_slice(&ab).unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
        assert_eq!(allowed("https://a.com/x"), Some(false)); // the fallback
        assert_eq!(allowed("https://a.com/z"), Some(false));
        assert_eq!(allowed("https://b.com/x"), Some(true));
        assert_eq!(allowed("https://gone.com/x"), Some(true));
    }

    #[test]
    fn a_rebuild_stores_a_reused_policy_once_however_its_hosts_name_it() {
        let body = "User-agent: *\nDisallow: /a\n";
        let plain = [
            input("one.com", 200, Some(body), None),
            input("two.com", 200, Some(body), None),
        ];
        let (first, _) = build_with(&plain, None);
        let base = Store::from_slice(&first).unwrap();
        // one.com names it by digest (not read), two.com gives the bytes.
        let mut mixed = plain.clone();
        mixed[0] = HostInput {
            body: None,
            body_path: Some("/nonexistent/one.txt".into()),
            sha256: Some(robocc_compiler::sha256(body.as_bytes())),
            ..mixed[0].clone()
        };
        let (again, report) = build_with(&mixed, Some(&base));
        assert_eq!((report.bodies_skipped, report.unique_policies), (1, 1));
        assert_eq!((report.reused, report.compiled), (1, 0), "{report:?}");
        assert_eq!(again, build_with(&plain, Some(&base)).0);
        assert_eq!(again, first);
    }

    #[test]
    fn a_reused_policy_keeps_its_notes() {
        // Not read whole (a parse limit cuts it) and split are both kept in
        // the header, so a rebuild reports what the build did.
        let long = format!("User-agent: *\nDisallow: /a\n{}", "# pad\n".repeat(100));
        let inputs = [input("long.com", 200, Some(&long), None)];
        let options = CompileOptions {
            parse: robocc_compiler::ParseOptions {
                max_bytes: 64,
                ..robocc_compiler::ParseOptions::default()
            },
            ..CompileOptions::default()
        };
        let build = |base: Option<&Store>| {
            let opts = StoreOptions {
                base,
                ..StoreOptions::default()
            };
            build_store(inputs.iter().cloned().map(Ok), "Googlebot", &options, &opts).unwrap()
        };
        let (first, report) = build(None);
        assert_eq!(report.unread.len(), 1, "{report:?}");
        let base = Store::from_slice(&first).unwrap();
        let (_, again) = build(Some(&base));
        assert_eq!(again.reused, 1);
        assert_eq!(again.unread, report.unread);
    }

    /// A manifest line read through its entries only (the reading
    /// `manifest_line` falls back to).
    fn line_by_value(line: &str, dir: &std::path::Path) -> Result<HostInput, InputErrorKind> {
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        let entries: Entries =
            serde_json::from_str(line).map_err(|e| InputErrorKind::NotJson(e.to_string()))?;
        LineFields::of_entries(&entries.0)?.into_input(dir)
    }

    const LINE_KEYS: [&str; 11] = [
        r#""host""#,
        r#""status""#,
        r#""body""#,
        r#""body_path""#,
        r#""location""#,
        r#""fetched_at""#,
        r#""sha256""#,
        r#""x""#,
        r#""ho\u0073t""#,
        r#""Host""#,
        r#""""#,
    ];
    const LINE_VALUES: [&str; 24] = [
        r#""a.com""#,
        r#""A.COM:8080""#,
        r#""a b""#,
        r#""""#,
        "200",
        "404",
        "301",
        "200.0",
        "2e2",
        "-1",
        "1e400",
        "18446744073709551616",
        "null",
        "true",
        "[]",
        r#"{"y": [1, null, "\ud800"]}"#,
        r#""\ud800""#,
        r#""x\ny/\u00e9""#,
        r#""b\/c.txt""#,
        r#""https://a.com/robots.txt""#,
        r#""2026-01-01T00:00:00Z""#,
        r#""5103956925285a497686049403b432bddcd080e13854c8c743c94857c648f59c""#,
        r#""5103956925285A497686049403B432BDDCD080E13854C8C743C94857C648F59""#,
        "{}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Objects made of the fields a manifest line may hold and others,
        /// each with values of every JSON type (and a broken end now and
        /// then): the typed reading gives what the `Value` reading gives.
        #[test]
        fn manifest_lines_read_the_same_typed_or_as_a_value(
            fields in proptest::collection::vec((0..LINE_KEYS.len(), 0..LINE_VALUES.len()), 0..9),
            pad in 0..3usize,
            cut in proptest::option::weighted(0.1, 0..200usize),
        ) {
            let dir = std::path::Path::new("/m");
            let pairs: Vec<String> = fields
                .iter()
                .map(|&(k, v)| format!("{}: {}", LINE_KEYS[k], LINE_VALUES[v]))
                .collect();
            let mut line = format!("{}{{{}}}", " ".repeat(pad), pairs.join(", "));
            if let Some(c) = cut {
                let mut c = c.min(line.len());
                while !line.is_char_boundary(c) {
                    c -= 1;
                }
                line.truncate(c);
            }
            proptest::prop_assert_eq!(manifest_line(line.as_bytes(), dir), line_by_value(&line, dir), "{}", line);
        }
    }

    /// The typed reading of a line gives what the `Value` reading gives,
    /// whatever the line holds: field types, escapes, nulls, duplicates.
    #[test]
    fn a_manifest_line_reads_the_same_typed_or_as_a_value() {
        let dir = std::path::Path::new("/m");
        let by_value = |line: &str| line_by_value(line, dir);
        let d = hex(&robocc_compiler::sha256(b"x"));
        let lines = [
            r#"{"host": "a.com", "status": 200, "body": "User-agent: *\nDisallow: /\u00e9"}"#.to_string(),
            r#"  {"host": "A.com", "status": 404}"#.to_string(),
            r#"{"host": "a.com", "status": 200, "body_path": "b\/c.txt", "fetched_at": "2026-01-01", "extra": [1, {"x": 2}]}"#.to_string(),
            format!(r#"{{"host": "a.com", "status": 200, "body_path": "b", "sha256": "{d}"}}"#),
            r#"{"host": "a.com", "status": 301, "location": "https://b.com/"}"#.to_string(),
            r#"{"host": "a.com", "status": 301, "location": null, "body": null}"#.to_string(),
            // Types other than expected: absent, or wrong.
            r#"{"host": "a.com", "status": 200, "body": 12, "body_path": "b"}"#.to_string(),
            r#"{"host": "a.com", "status": 200, "body": "x", "sha256": 12}"#.to_string(),
            r#"{"host": "a.com", "status": 200, "body": "x", "sha256": "zz"}"#.to_string(),
            r#"{"host": "a.com", "status": "200", "body": "x"}"#.to_string(),
            r#"{"host": "a.com", "status": 200.0, "body": "x"}"#.to_string(),
            r#"{"host": "a.com", "status": -1, "body": "x"}"#.to_string(),
            r#"{"host": "a.com", "status": 1000, "body": "x"}"#.to_string(),
            r#"{"host": 7, "status": 200, "body": "x"}"#.to_string(),
            r#"{"host": "a b", "status": 200, "body": "x"}"#.to_string(),
            r#"{"status": 200, "body": "x"}"#.to_string(),
            r#"{"host": "a.com", "status": 200}"#.to_string(),
            // A field given twice: the last one counts.
            r#"{"host": "a.com", "host": "b.com", "status": 200, "body": "x"}"#.to_string(),
            // Other fields: checked as the `Value` reading checks them.
            r#"{"host": "a.com", "status": 404, "x": 1e400}"#.to_string(),
            r#"{"host": "a.com", "status": 404, "x": {"y": "\ud800"}}"#.to_string(),
            r#"{"host": "a.com", "status": 404, "x": [1, {"y": null}], "z": "\u00e9"}"#.to_string(),
            format!(r#"{{"host": "a.com", "status": 404, "x": {}1{}}}"#, "[".repeat(200), "]".repeat(200)),
            // Not objects.
            r#"["a.com", 200, "x"]"#.to_string(),
            r#""a.com""#.to_string(),
            r#"{"host": "a.com", "status": 200, "body": "x""#.to_string(),
        ];
        for line in &lines {
            assert_eq!(
                manifest_line(line.as_bytes(), dir),
                by_value(line),
                "{line}"
            );
        }
        // Bytes that are not UTF-8, in a field the input does not use.
        let line = b"{\"host\": \"a.com\", \"status\": 404, \"x\": \"\xff\"}";
        assert!(matches!(
            manifest_line(line, dir),
            Err(InputErrorKind::NotJson(_))
        ));
    }

    /// A manifest's errors name the line, and the column within it.
    #[test]
    fn manifest_errors_name_the_line_and_column() {
        let dir = TempDir::new("manifest-errors");
        let path = dir.0.join("m.jsonl");
        std::fs::write(
            &path,
            "{\"host\": \"a.com\", \"status\": 404}\n\n{\"host\": \"b.com\", \"status\"\n{\"host\": \"c.com\", \"status\": 404}",
        )
        .unwrap();
        let read: Vec<_> = manifest_inputs(&path).unwrap().collect();
        assert_eq!(read.len(), 3);
        assert_eq!(read[0].as_ref().unwrap().host, "a.com");
        let e = read[1].as_ref().unwrap_err();
        assert!(e.at.ends_with("m.jsonl:3"), "{e}");
        assert!(
            matches!(&e.kind, InputErrorKind::NotJson(m) if m.contains("line 1 column 26")),
            "{e}"
        );
        assert_eq!(read[2].as_ref().unwrap().host, "c.com");
    }

    /// Of a host given more than once the last input wins, except that a
    /// redirect to the host itself never replaces another result; each
    /// extra input is reported once.
    #[test]
    fn the_last_input_of_a_host_wins_unless_it_redirects_to_itself() {
        let blocked = "User-agent: *\nDisallow: /\n";
        let open = "User-agent: *\nDisallow:\n";
        let to_self = Some("https://a.com/robots.txt");
        // (inputs, allowed, duplicates, redirects to itself set aside)
        let cases: [(Vec<HostInput>, bool, usize, usize); 5] = [
            (
                vec![
                    input("a.com", 200, Some(open), None),
                    input("a.com", 200, Some(blocked), None),
                ],
                false,
                1,
                0,
            ),
            (
                vec![
                    input("a.com", 200, Some(blocked), None),
                    input("a.com", 301, None, to_self),
                ],
                false,
                0,
                1,
            ),
            (
                vec![
                    input("a.com", 301, None, to_self),
                    input("a.com", 200, Some(blocked), None),
                    input("a.com", 301, None, to_self),
                ],
                false,
                0,
                2,
            ),
            (
                vec![
                    input("a.com", 200, Some(blocked), None),
                    input("A.com", 200, Some(open), None),
                    input("a.com", 301, None, to_self),
                ],
                true,
                1,
                1,
            ),
            // Two lone redirects to itself: one replaces the other, and
            // the capture they lead to is not there.
            (
                vec![
                    input("a.com", 301, None, to_self),
                    input("a.com", 302, None, to_self),
                ],
                false,
                1,
                0,
            ),
        ];
        for (inputs, allowed, duplicates, to_itself) in cases {
            let mut with_others = inputs.clone();
            with_others.insert(1, input("b.com", 200, Some(blocked), None));
            let (bytes, report) = build_store_default(&with_others, "Googlebot").unwrap();
            let store = Store::from_slice(&bytes).unwrap();
            let v = store.check(b"https://a.com/x").unwrap().unwrap();
            assert_eq!(v.allowed, allowed, "{inputs:?}");
            assert_eq!(report.duplicates, vec!["a.com"; duplicates], "{inputs:?}");
            assert_eq!(report.self_redirects, to_itself, "{inputs:?}");
            assert_eq!(report.hosts, 2);
        }
    }

    #[test]
    fn manifest_digests_are_64_hex_digits() {
        let dir = std::path::Path::new("/nonexistent");
        let line = |d: &str| {
            manifest_line(
                format!(
                    r#"{{"host": "a.com", "status": 200, "body_path": "a.txt", "sha256": {d}}}"#
                )
                .as_bytes(),
                dir,
            )
        };
        let want = robocc_compiler::sha256(b"x");
        let h = line(&format!("\"{}\"", hex(&want).to_uppercase())).unwrap();
        assert_eq!(h.sha256, Some(want));
        // Named, not read.
        assert_eq!((h.body, h.body_path), (None, Some(dir.join("a.txt"))));
        assert_eq!(line("null").unwrap().sha256, None);
        for bad in ["\"abc\"", "12", &format!("\"{}zz\"", &hex(&want)[2..])] {
            assert!(
                matches!(line(bad), Err(InputErrorKind::BadDigest(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_rebuild_reuses_unchanged_policies() {
        let inputs: Vec<HostInput> = (0..20)
            .map(|i| {
                let body = format!("User-agent: *\nDisallow: /p{i}\n");
                input(&format!("h{i}.com"), 200, Some(&body), None)
            })
            .collect();
        let (old, _) = build_store_default(&inputs, "Googlebot").unwrap();
        let base = Store::from_slice(&old).unwrap();
        let mut changed = inputs.clone();
        changed[3].body = Some(b"User-agent: *\nDisallow: /changed\n".to_vec());
        let (new, report) = build_with(&changed, Some(&base));
        assert_eq!((report.reused, report.compiled), (19, 1), "{report:?}");
        let store = Store::from_slice(&new).unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
        assert_eq!(allowed("https://h3.com/changed"), Some(false));
        assert_eq!(allowed("https://h3.com/p3"), Some(true));
        assert_eq!(allowed("https://h4.com/p4"), Some(false));
        // Another agent reuses nothing.
        let opts = StoreOptions {
            base: Some(&base),
            ..StoreOptions::default()
        };
        let (_, report) = build_store(
            changed.iter().cloned().map(Ok),
            "Bingbot",
            &CompileOptions::default(),
            &opts,
        )
        .unwrap();
        assert_eq!(report.reused, 0);
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

    /// A manifest line's relative `location` is its host's, so a relative
    /// redirect to itself is one (it never replaces the host's capture),
    /// as in a WARC file.
    #[test]
    fn a_relative_location_is_the_lines_hosts() {
        let dir = std::path::Path::new("/m");
        let line = |l: &str| manifest_line(l.as_bytes(), dir).unwrap();
        let h = line(r#"{"host": "F.com:8080", "status": 301, "location": "/robots.txt"}"#);
        assert_eq!(h.location.as_deref(), Some("http://f.com:8080/robots.txt"));
        let inputs = [
            line(
                r#"{"host": "f.com", "status": 200, "body": "User-agent: *\nDisallow: /private\n"}"#,
            ),
            line(r#"{"host": "f.com", "status": 301, "location": "/robots.txt"}"#),
        ];
        let (bytes, report) = build_store_default(&inputs, "Googlebot").unwrap();
        let store = Store::from_slice(&bytes).unwrap();
        assert!(
            store
                .check(b"https://f.com/public")
                .unwrap()
                .unwrap()
                .allowed
        );
        assert!(
            !store
                .check(b"https://f.com/private")
                .unwrap()
                .unwrap()
                .allowed
        );
        assert_eq!((report.duplicates.len(), report.self_redirects), (0, 1));
    }

    /// A manifest line with a field a line does not have, a field given
    /// twice, text of another type, or both bodies is refused, naming
    /// what; `null` is an absent field; a byte-order mark is skipped.
    #[test]
    fn manifest_fields_are_checked() {
        let dir = std::path::Path::new("/m");
        let line = |l: &str| manifest_line(l.as_bytes(), dir);
        let refused = [
            (
                r#"{"host": "t.com", "status": 301, "locaton": "https://a.com/robots.txt"}"#,
                InputErrorKind::UnknownField("locaton".into()),
            ),
            (
                r#"{"host": "t.com", "status": 404, "x": null}"#,
                InputErrorKind::UnknownField("x".into()),
            ),
            (
                r#"{"host": "t.com", "status": 301, "location": 5}"#,
                InputErrorKind::NotText("location", "5".into()),
            ),
            (
                r#"{"host": ["t.com"], "status": 404}"#,
                InputErrorKind::NotText("host", r#"["t.com"]"#.into()),
            ),
            (
                r#"{"host": "t.com", "status": 200, "body": "", "body_path": "a.txt"}"#,
                InputErrorKind::BodyAndBodyPath,
            ),
            (
                r#"{"host": "first.com", "host": "second.com", "status": 404}"#,
                InputErrorKind::DuplicateField("host".into()),
            ),
            (
                r#"{"host": "t.com", "status": 404, "status": 404}"#,
                InputErrorKind::DuplicateField("status".into()),
            ),
            (
                r#"{"host": "t.com", "status": "404"}"#,
                InputErrorKind::BadStatus,
            ),
        ];
        for (l, want) in refused {
            assert_eq!(line(l), Err(want), "{l}");
        }
        let e = InputError {
            at: "m.jsonl:2".into(),
            kind: InputErrorKind::UnknownField("locaton".into()),
        }
        .to_string();
        assert!(e.contains("\"locaton\"") && e.contains("location"), "{e}");
        let h = line(r#"{"host": "t.com", "status": 301, "location": null, "fetched_at": null}"#)
            .unwrap();
        assert_eq!((h.location, h.fetched_at), (None, None));
        let bom = line("\u{feff}{\"host\": \"t.com\", \"status\": 404}").unwrap();
        assert_eq!((bom.host.as_str(), bom.status), ("t.com", 404));
    }

    /// A body of `n` bytes with rules throughout (a distinct one every
    /// ~900 bytes), so that where the parse limit cuts changes the policy.
    fn long_body(n: usize) -> Vec<u8> {
        let mut b = b"User-agent: *\nAllow: /a$\n".to_vec();
        let mut i = 0;
        while b.len() < n {
            b.extend_from_slice(format!("Disallow: /p{i}/*x\n").as_bytes());
            for _ in 0..20 {
                b.extend_from_slice(b"# a comment line of a long robots.txt\n");
            }
            i += 1;
        }
        b
    }

    /// Compiling the prefix a build keeps of a long body, with the whole
    /// body's length and digest, makes the policy compiling the whole body
    /// makes, byte for byte, whatever the parse limit and dialect.
    #[test]
    fn a_long_body_is_kept_as_the_prefix_the_compile_reads() {
        let body = long_body(700_000);
        for dialect in [
            robocc_engine::Dialect::Rfc9309,
            robocc_engine::Dialect::Draft1996,
            robocc_engine::Dialect::Acap,
        ] {
            for max_bytes in [
                robocc_compiler::DEFAULT_MAX_BYTES,
                8191,
                8192,
                3000,
                600_000,
            ] {
                let mut options = CompileOptions {
                    dialect,
                    ..CompileOptions::default()
                };
                options.budget.time = std::time::Duration::from_secs(3600);
                options.parse.max_bytes = max_bytes;
                let whole = compile(&body, "Googlebot", &options).unwrap();
                let mut c = Collected::new(max_bytes);
                let id = c.intern(body.clone()) as usize;
                let kept = &c.bodies[id];
                assert_eq!(kept.bytes.len(), (max_bytes + 1).max(8192));
                assert_eq!(kept.len, Some(body.len() as u64));
                let cut = compile_body(kept, "Googlebot", &options).unwrap();
                assert!(
                    whole.to_bytes()[..] == cut.to_bytes()[..],
                    "{dialect:?} {max_bytes}"
                );
                assert_eq!(whole.diagnostics, cut.diagnostics);
                // The same body again is the same id.
                assert_eq!(c.intern(body.clone()) as usize, id);
            }
        }
        // Without a limit, or UTF-16, a body is kept whole.
        let mut c = Collected::new(0);
        let id = c.intern(body.clone()) as usize;
        assert_eq!(c.bodies[id].bytes.len(), body.len());
        let utf16: Vec<u8> = String::from_utf8(body.clone())
            .unwrap()
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let mut c = Collected::new(robocc_compiler::DEFAULT_MAX_BYTES);
        let id = c.intern(utf16.clone()) as usize;
        assert_eq!(c.bodies[id].bytes.len(), utf16.len());
        // A rebuild finds the policy by the whole body's digest.
        let inputs = [input("a.com", 200, None, None)];
        let mut inputs = inputs.to_vec();
        inputs[0].body = Some(body.clone());
        let (old, _) = build_store_default(&inputs, "Googlebot").unwrap();
        let base = Store::from_slice(&old).unwrap();
        assert_eq!(
            base.policy(0).unwrap().header().source_sha256,
            robocc_compiler::sha256(&body)
        );
        let (new, report) = build_with(&inputs, Some(&base));
        assert_eq!((report.reused, report.compiled), (1, 0), "{report:?}");
        assert_eq!(new, old.to_vec());
    }

    /// "policies compiled" counts the compiles that gave a policy, not the
    /// failures (listed apart) (stores audit F25).
    /// Policies past the spill limit go to the temporary file and come
    /// back byte for byte.
    #[test]
    fn spilled_policies_read_back() {
        let mut spill = Spill {
            limit: 10,
            ..Spill::default()
        };
        let parts: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 7 + i as usize]).collect();
        let kept: Vec<Artifact> = parts.iter().map(|p| spill.keep(p.clone())).collect();
        assert!(matches!(kept[0], Artifact::Memory(_)));
        if cfg!(unix) {
            assert!(matches!(kept[4], Artifact::Spilled { .. }));
        }
        for (p, a) in parts.iter().zip(&kept) {
            assert_eq!(&spill.load(a).unwrap()[..], &p[..]);
        }
    }

    #[test]
    fn a_failed_compile_is_not_counted_as_compiled() {
        let big: String = std::iter::once("User-agent: *\n".to_string())
            .chain((0..300).map(|i| format!("Disallow: /a{i}*b{i}$\n")))
            .collect();
        let inputs = [
            input("big.com", 200, Some(&big), None),
            input("a.com", 200, Some("User-agent: *\nDisallow: /x\n"), None),
        ];
        let mut options = CompileOptions::default();
        options.budget.total_bytes = 3000;
        let (_, report) = build_store(
            inputs.iter().cloned().map(Ok),
            "Googlebot",
            &options,
            &StoreOptions::default(),
        )
        .unwrap();
        assert_eq!(report.failures.len(), 1, "{report:?}");
        assert_eq!(report.compiled, 1, "{report:?}");
    }
}
