//! Common Crawl robots.txt captures (WARC 1.0 / 1.1 files, plain or gzip)
//! as store inputs: `robocc store build --warc FILE…`.
//!
//! A small strict reader of the record framing (version line, headers,
//! `Content-Length` bytes of block, `\r\n\r\n`), not a general WARC
//! library: robocc needs one record type and must never panic or allocate
//! without bound on a hostile file. A `.warc.gz` file is a series of gzip
//! members (one per record, as Common Crawl writes them), read as one
//! stream; a plain file is read as is (the gzip magic decides, not the
//! name).
//!
//! Per `response` record (every other type is skipped):
//!
//! * the host is the `WARC-Target-URI`'s authority (`http`/`https` only),
//!   keyed as a manifest's `host` is ([`crate::store::host_key`]);
//! * the HTTP status line gives the status, `Location` the redirect target
//!   (a relative one is taken against the target URI);
//! * the payload is the body of a 2xx (other statuses carry none, as in a
//!   manifest), de-chunked when `Transfer-Encoding: chunked` and
//!   decompressed when `Content-Encoding: gzip`, `x-gzip` or `deflate`; a
//!   payload over 16 MiB (decoded) makes the host a failure;
//! * `WARC-Date` is the host's `fetched_at`;
//! * a record cut short (`WARC-Truncated`, a block shorter than its
//!   `Content-Length` at the end of the file, a damaged gzip member) or a
//!   payload that cannot be decoded makes the host's input a failure
//!   ([`HostInput::failure`]): the host gets the `--on-failure` fallback.
//!
//! Framing that is not WARC (a bad version line, a missing or invalid
//! `Content-Length`, a block not followed by `\r\n\r\n`), and a file that
//! breaks off before a record says which host it is (inside the first
//! lines of its headers, or in a gzip member nothing of which decodes), is
//! an [`InputError`] naming the file and record, as a bad manifest line is:
//! robocc does not drop captures silently.

use crate::store::{host_key, HostInput, InputError, InputErrorKind};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Longest header line read (bytes).
const MAX_LINE: u64 = 64 * 1024;
/// Most header lines in one record.
const MAX_HEADERS: usize = 1024;
/// Largest record block read whole (bytes); a larger one is an error.
const MAX_BLOCK: u64 = 256 * 1024 * 1024;
/// Most bytes of a decoded payload kept.
const MAX_PAYLOAD: u64 = 16 * 1024 * 1024;

/// The `response` records of one WARC file, as host inputs, in file order.
pub struct WarcInputs {
    reader: Box<dyn BufRead>,
    name: String,
    /// Records read so far (1-based number of the current one).
    record: usize,
    done: bool,
    /// A read error met after a whole record, reported at the next call.
    pending: Option<String>,
}

/// Opens a WARC file (`.warc` or `.warc.gz`).
///
/// # Errors
///
/// The file cannot be opened.
pub fn warc_inputs(path: &Path) -> Result<WarcInputs, InputError> {
    let file = std::fs::File::open(path).map_err(|e| InputError {
        at: path.display().to_string(),
        kind: InputErrorKind::Io(format!("cannot read WARC file: {e}")),
    })?;
    Ok(warc_inputs_from(file, &path.display().to_string()))
}

/// Reads WARC records from `reader` (plain or gzip, as the first two bytes
/// say); `name` is used in errors.
pub fn warc_inputs_from(reader: impl Read + 'static, name: &str) -> WarcInputs {
    let mut raw = BufReader::with_capacity(1 << 16, reader);
    let gz = matches!(raw.fill_buf(), Ok(b) if b.starts_with(&[0x1f, 0x8b]));
    let reader: Box<dyn BufRead> = if gz {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(raw),
        ))
    } else {
        Box::new(raw)
    };
    WarcInputs {
        reader,
        name: name.to_string(),
        record: 0,
        done: false,
        pending: None,
    }
}

/// Why a read stopped, and whether it was the end of the input (a file or
/// a gzip member cut short) rather than something unreadable.
type ReadFailure = (String, bool);

/// Whether an I/O error is the input ending early.
fn is_eof(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::UnexpectedEof
}

/// One line, at most [`MAX_LINE`] bytes; `Ok(None)` at the end of input,
/// `Err` on a read error (a damaged gzip member) or an overlong line.
fn read_line(r: &mut dyn BufRead) -> Result<Option<Vec<u8>>, ReadFailure> {
    let mut line = Vec::new();
    let n = r
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)
        .map_err(|e| (e.to_string(), is_eof(&e)))?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        if n as u64 == MAX_LINE {
            return Err((format!("a header line longer than {MAX_LINE} bytes"), false));
        }
        // The input ended inside the line.
        return Err(("the file ends inside a header line".into(), true));
    }
    while matches!(line.last(), Some(b'\n' | b'\r')) {
        line.pop();
    }
    Ok(Some(line))
}

/// A record's WARC headers that matter.
#[derive(Default)]
struct Headers {
    kind: Option<String>,
    uri: Option<String>,
    date: Option<String>,
    length: Option<u64>,
    truncated: Option<String>,
}

impl WarcInputs {
    fn error(&mut self, what: impl Into<String>) -> Option<Result<HostInput, InputError>> {
        self.done = true;
        Some(Err(InputError {
            at: format!("{}: record {}", self.name, self.record),
            kind: InputErrorKind::Io(format!("not a WARC file: {}", what.into())),
        }))
    }

    /// The host input of a response whose record broke off: a failure, or
    /// an error when the record cannot be attributed to a host. `eof`: the
    /// file ended there; otherwise reading failed (a damaged gzip member,
    /// an overlong line), and whatever follows in the file is unread, which
    /// is an error after this record's failure, never a silent end.
    fn cut_short(
        &mut self,
        h: &Headers,
        why: &str,
        eof: bool,
    ) -> Option<Result<HostInput, InputError>> {
        self.done = true;
        if h.kind.as_deref() != Some("response") {
            // A record of another type cut off by the end of the file:
            // nothing is lost.
            if h.kind.is_some() && eof {
                return None;
            }
            return self.error(format!("the record is cut short ({why})"));
        }
        if !eof {
            // Report the rest of the file as unreadable at the next call.
            self.done = false;
            self.pending = Some(format!("cannot read past record {}: {why}", self.record));
        }
        match h.uri.as_deref().map(|u| self.host_of(u)) {
            Some(Ok((host, _))) => Some(Ok(HostInput {
                host,
                status: 0,
                fetched_at: h.date.clone(),
                failure: Some(format!("truncated WARC record: {why}")),
                ..HostInput::default()
            })),
            Some(Err(e)) => Some(Err(e)),
            None => self.error(format!("the record is cut short ({why})")),
        }
    }

    /// Host key and `scheme://authority` of a target URI.
    fn host_of(&self, uri: &str) -> Result<(String, String), InputError> {
        let err = |why: &str| InputError {
            at: format!("{}: record {}", self.name, self.record),
            kind: InputErrorKind::BadHost(uri.to_string(), why.to_string()),
        };
        let (scheme, rest) = uri
            .split_once("://")
            .ok_or_else(|| err("WARC-Target-URI is not an absolute URL"))?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(err("WARC-Target-URI is not http or https"));
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let key = host_key(hostport).map_err(|why| err(&why))?;
        Ok((
            key,
            format!("{}://{authority}", scheme.to_ascii_lowercase()),
        ))
    }
}

impl Iterator for WarcInputs {
    type Item = Result<HostInput, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            if let Some(e) = self.pending.take() {
                self.record += 1;
                return self.error(e);
            }
            // Version line (blank lines before it are tolerated).
            let version = loop {
                match read_line(&mut *self.reader) {
                    Ok(None) => {
                        self.done = true;
                        return None;
                    }
                    Ok(Some(l)) if l.is_empty() => continue,
                    Ok(Some(l)) => break l,
                    Err((e, _)) => {
                        self.record += 1;
                        return self.error(e);
                    }
                }
            };
            self.record += 1;
            if version != b"WARC/1.0" && version != b"WARC/1.1" {
                let shown = String::from_utf8_lossy(&version[..version.len().min(40)]).into_owned();
                return self.error(format!("expected WARC/1.0 or WARC/1.1, found {shown:?}"));
            }
            // Headers.
            let mut h = Headers::default();
            let mut count = 0;
            loop {
                let line = match read_line(&mut *self.reader) {
                    Ok(Some(l)) => l,
                    Ok(None) => {
                        return self.cut_short(&h, "the file ends in the WARC headers", true)
                    }
                    Err((e, eof)) => return self.cut_short(&h, &e, eof),
                };
                if line.is_empty() {
                    break;
                }
                count += 1;
                if count > MAX_HEADERS {
                    return self.error(format!("more than {MAX_HEADERS} header lines"));
                }
                let line = String::from_utf8_lossy(&line);
                let Some((name, value)) = line.split_once(':') else {
                    return self.error(format!("header line without ':': {line:?}"));
                };
                let value = value.trim();
                match name.trim().to_ascii_lowercase().as_str() {
                    "warc-type" => h.kind = Some(value.to_string()),
                    "warc-target-uri" => {
                        // WARC 1.0 examples wrap it in <>.
                        let v = value.trim_start_matches('<').trim_end_matches('>');
                        h.uri = Some(v.to_string());
                    }
                    "warc-date" => h.date = Some(value.to_string()),
                    "warc-truncated" => h.truncated = Some(value.to_string()),
                    "content-length" => match value.parse::<u64>() {
                        Ok(n) => h.length = Some(n),
                        Err(_) => return self.error(format!("Content-Length {value:?}")),
                    },
                    _ => {}
                }
            }
            let Some(length) = h.length else {
                return self.error("a record without Content-Length");
            };
            if length > MAX_BLOCK {
                return self.error(format!("a record block of {length} bytes"));
            }
            // Block.
            let mut block = Vec::new();
            let read = (&mut self.reader).take(length).read_to_end(&mut block);
            if let Err(e) = read {
                return self.cut_short(&h, &e.to_string(), is_eof(&e));
            }
            if (block.len() as u64) < length {
                let why = format!("{} of {length} bytes of block", block.len());
                return self.cut_short(&h, &why, true);
            }
            // Record end: "\r\n\r\n", or the end of the file.
            let mut end = Vec::new();
            match (&mut self.reader).take(4).read_to_end(&mut end) {
                Ok(_) if end.is_empty() => self.done = true,
                Ok(_) if end == b"\r\n\r\n" => {}
                Ok(_) => return self.error("a record block not followed by \\r\\n\\r\\n"),
                // This record is whole; what follows is damaged.
                Err(e) => self.pending = Some(e.to_string()),
            }
            if h.kind.as_deref() != Some("response") {
                continue;
            }
            let Some(uri) = h.uri.clone() else {
                return self.error("a response record without WARC-Target-URI");
            };
            let (host, origin) = match self.host_of(&uri) {
                Ok(x) => x,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let mut input = HostInput {
                host,
                fetched_at: h.date.clone(),
                ..HostInput::default()
            };
            if let Some(t) = &h.truncated {
                input.failure = Some(format!("truncated WARC record (WARC-Truncated: {t})"));
                return Some(Ok(input));
            }
            match http_response(&block, &origin) {
                Ok((status, location, body)) => {
                    input.status = status;
                    input.location = location;
                    input.body = body;
                }
                Err(why) => input.failure = Some(why),
            }
            return Some(Ok(input));
        }
        None
    }
}

/// Status, `Location` and body of an HTTP response.
type Response = (u16, Option<String>, Option<Vec<u8>>);

/// Status, `Location` (absolute) and, for a 2xx, the decoded payload of an
/// HTTP response as a WARC `response` block holds it.
fn http_response(block: &[u8], origin: &str) -> Result<Response, String> {
    // The headers end at the first blank line, CRLF or bare LF (a body
    // may itself hold the other spelling).
    let crlf = memchr::memmem::find(block, b"\r\n\r\n").map(|i| (i, 4));
    let lf = memchr::memmem::find(block, b"\n\n").map(|i| (i, 2));
    let (head, payload) = match (crlf, lf) {
        (Some(a), Some(b)) => {
            let (i, n) = if b.0 < a.0 { b } else { a };
            (&block[..i], &block[i + n..])
        }
        (Some((i, n)), None) | (None, Some((i, n))) => (&block[..i], &block[i + n..]),
        (None, None) => return Err("the HTTP response headers are cut short".into()),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .strip_prefix("HTTP/")
        .and_then(|r| r.split_ascii_whitespace().nth(1))
        .filter(|s| s.len() == 3)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|&s| s >= 100)
        .ok_or_else(|| {
            let shown: String = status_line.chars().take(40).collect();
            format!("no HTTP status line: {shown:?}")
        })?;
    let (mut location, mut encoding, mut chunked) = (None, None, false);
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "location" => location = Some(absolute(value, origin)),
            "content-encoding" => encoding = Some(value.to_ascii_lowercase()),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    if !(200..300).contains(&status) {
        return Ok((status, location, None));
    }
    let mut body = if chunked {
        dechunk(payload)?
    } else if payload.len() as u64 > MAX_PAYLOAD {
        return Err(too_large());
    } else {
        payload.to_vec()
    };
    match encoding.as_deref() {
        None | Some("" | "identity") => {}
        Some("gzip" | "x-gzip") => {
            body = decode(flate2::read::MultiGzDecoder::new(&body[..]), "gzip")?;
        }
        Some("deflate") => {
            body = match decode(flate2::read::ZlibDecoder::new(&body[..]), "deflate") {
                Ok(b) => b,
                // Servers send raw deflate too.
                Err(_) => decode(flate2::read::DeflateDecoder::new(&body[..]), "deflate")?,
            };
        }
        Some(other) => return Err(format!("unsupported Content-Encoding: {other}")),
    }
    Ok((status, location, Some(body)))
}

/// A payload past [`MAX_PAYLOAD`] is a failure on every path (plain,
/// chunked, compressed): never cut silently.
fn too_large() -> String {
    format!("the payload is larger than {MAX_PAYLOAD} bytes")
}

fn decode(r: impl Read, what: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    r.take(MAX_PAYLOAD + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the {what} payload cannot be decoded: {e}"))?;
    if out.len() as u64 > MAX_PAYLOAD {
        return Err(too_large());
    }
    Ok(out)
}

/// `Transfer-Encoding: chunked` payload → its bytes.
fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let cut = || "the chunked payload is cut short".to_string();
    let mut out = Vec::new();
    loop {
        let eol = memchr::memchr(b'\n', data).ok_or_else(cut)?;
        let line = String::from_utf8_lossy(&data[..eol]);
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| format!("bad chunk size {size:?} in a chunked payload"))?;
        data = &data[eol + 1..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size {
            return Err(cut());
        }
        if (out.len() + size) as u64 > MAX_PAYLOAD {
            return Err(too_large());
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size..];
        data = data
            .strip_prefix(b"\r\n")
            .or_else(|| data.strip_prefix(b"\n"))
            .ok_or_else(cut)?;
    }
}

/// A `Location` value made absolute against `origin` (`scheme://authority`).
fn absolute(location: &str, origin: &str) -> String {
    if location.contains("://") {
        location.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        let scheme = origin.split("://").next().unwrap_or("http");
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{origin}{location}")
    } else {
        format!("{origin}/{location}")
    }
}
