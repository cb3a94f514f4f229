//! What a build reads: [`HostInput`] (one host's fetch result), a JSONL
//! manifest's lines, a directory of `<host>.txt` files, body files read
//! whole or as the prefix the parser reads, and [`InputError`].

use crate::host::{absolute_location, host_key, HostKeyError, HostNote};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

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
pub(crate) fn body_keep(max_bytes: usize) -> usize {
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
pub(crate) fn read_body(
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

pub(crate) fn digest_mismatch(actual: &[u8; 32], claimed: &[u8; 32]) -> String {
    format!(
        "the body's SHA-256 is {}, not the {} the input states",
        hex(actual),
        hex(claimed)
    )
}

/// Why an input could not be read. (No equality: an [`std::io::Error`]
/// has none.)
#[derive(Clone, Debug)]
pub struct InputError {
    /// Where: `FILE:LINE` of a manifest, or a file of a directory.
    pub at: String,
    /// What is wrong.
    pub kind: InputErrorKind,
}

/// What is wrong with an input.
#[derive(Clone, Debug)]
pub enum InputErrorKind {
    /// The file or directory could not be read: what was being done
    /// (empty: nothing more to say than where), and the I/O error, which is
    /// the [`InputError`]'s [`source`](std::error::Error::source).
    Io {
        /// What failed (`cannot read manifest`), without the error.
        context: String,
        /// The error (shared, so that the error stays `Clone`).
        error: Arc<std::io::Error>,
    },
    /// Bytes that are not WARC where a WARC file was read (what was found,
    /// said whole).
    NotWarc(String),
    /// A file of a directory whose name is not a host (why): no host can be
    /// given its rules.
    NotAHost(String),
    /// The caller refused the input (why): a tool's own check, such as the
    /// command line's refusal of a body that is the output file.
    Refused(String),
    /// A manifest line is not a JSON object.
    NotJson(String),
    /// A manifest line has no `host`.
    MissingHost,
    /// The host is not a host name (with the reason).
    BadHost(String, HostKeyError),
    /// A WARC record's target URI has no host to read (the URI, and why:
    /// not an absolute URL, not http or https, a host URL parsers read
    /// differently). Said as [`InputErrorKind::BadHost`] is.
    BadTargetUri(String, &'static str),
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
            InputErrorKind::Io { context, error } if context.is_empty() => write!(f, "{error}"),
            InputErrorKind::Io { context, error } => write!(f, "{context}: {error}"),
            InputErrorKind::NotWarc(why)
            | InputErrorKind::NotAHost(why)
            | InputErrorKind::Refused(why) => f.write_str(why),
            InputErrorKind::NotJson(e) => write!(f, "not a JSON object: {e}"),
            InputErrorKind::MissingHost => write!(f, "missing \"host\""),
            InputErrorKind::BadHost(h, why) => write!(f, "{h:?} is not a host name: {why}"),
            InputErrorKind::BadTargetUri(uri, why) => {
                write!(f, "{uri:?} is not a host name: {why}")
            }
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

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            InputErrorKind::Io { error, .. } => Some(&**error),
            InputErrorKind::BadHost(_, why) => Some(why),
            _ => None,
        }
    }
}

impl InputErrorKind {
    /// [`InputErrorKind::Io`]: `context` says what failed, without the
    /// error (empty: nothing more than where).
    pub fn io(context: impl Into<String>, error: std::io::Error) -> InputErrorKind {
        InputErrorKind::Io {
            context: context.into(),
            error: Arc::new(error),
        }
    }
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
        kind: InputErrorKind::io("", e),
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
            kind: InputErrorKind::NotAHost(n.note),
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
        kind: InputErrorKind::io("cannot read manifest", e),
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
                    kind: InputErrorKind::io("", e),
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
    use crate::test_support::TempDir;
    use crate::StoreBuilder;
    use robocc_engine::Store;

    /// A reading as its fields say (errors have no equality: an I/O
    /// error has none).
    fn shown(r: Result<HostInput, InputErrorKind>) -> String {
        format!("{r:?}")
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
            proptest::prop_assert_eq!(shown(manifest_line(line.as_bytes(), dir)), shown(line_by_value(&line, dir)), "{}", line);
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
                shown(manifest_line(line.as_bytes(), dir)),
                shown(by_value(line)),
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
        let (bytes, report) = StoreBuilder::new("Googlebot")
            .build(inputs.into_iter().map(Ok))
            .unwrap();
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
            assert_eq!(shown(line(l)), shown(Err(want)), "{l}");
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
}
