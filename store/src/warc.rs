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
//! A host's capture is a `response` record whose `WARC-Target-URI` is a
//! robots.txt (`http`/`https`, path `/robots.txt`:
//! [`crate::is_robots_txt_url`]). Every other record is set aside
//! and counted by kind ([`WarcCounts`]): a response for another path (a
//! page a redirect led to, a home page), `request`, `metadata`, `revisit`
//! (its payload is another record's), `warcinfo`, other types, and a
//! record without `WARC-Type`. Per capture:
//!
//! * the host is the target URI's authority, keyed as a manifest's `host`
//!   is ([`crate::host_key`]);
//! * the HTTP status line gives the status, `Location` the redirect target
//!   (a relative one is taken against the target URI:
//!   [`crate::absolute_location`]);
//! * the payload is the body of a 2xx (other statuses carry none, as in a
//!   manifest), decoded as `Transfer-Encoding` and then `Content-Encoding`
//!   say (`chunked`, `gzip`, `x-gzip`, `deflate`, `identity`; another
//!   coding makes the host a failure); a payload over 256 MiB decoded (what
//!   a manifest's body file may have) makes the host a failure;
//! * `WARC-Date` is the host's `fetched_at`.
//!
//! A capture cut short (`WARC-Truncated`, or a file that ends inside the
//! record) is read for what it holds: its status and `Location` when its
//! HTTP headers are whole, which is all a status other than 2xx needs; a
//! 2xx body that holds more than the parse limit ([`WarcInputs::parse_limit`])
//! is compiled from what is there, which answers as the whole body would
//! (the parser reads no further; the build lists it as not read whole); a
//! shorter one, headers cut short, or a payload that cannot be decoded
//! make the host's input a failure ([`HostInput::failure`], with the status
//! when it was read): the host gets the `--on-failure` fallback.
//!
//! Framing that is not WARC (a bad version line, a missing or invalid
//! `Content-Length`, a block not followed by `\r\n\r\n`), a file that
//! breaks off before a record says which host it is, a damaged gzip member
//! (named with its byte offset) and bytes after the last gzip member are
//! an [`InputError`] naming the file and record, as a bad manifest line is:
//! robocc does not drop captures silently.

use crate::inputs::prefix_reads_as_whole;
use crate::{
    absolute_location, host_key, is_robots_txt_url, HostInput, InputError, InputErrorKind,
};
use robocc_engine::HostKey;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Longest header line read (bytes).
const MAX_LINE: u64 = 64 * 1024;
/// Most header lines in one record.
const MAX_HEADERS: usize = 1024;
/// Largest record block read whole (bytes); a larger one is an error.
const MAX_BLOCK: u64 = 256 * 1024 * 1024;
/// Most bytes of a decoded payload: what a manifest's body file may have.
const MAX_PAYLOAD: u64 = robocc_compiler::input::MAX_INPUT_BYTES;

/// What a WARC reader read, by kind of record: the captures it gave as host
/// inputs, and the records it set aside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarcCounts {
    /// Records read.
    pub records: usize,
    /// `response` records of a robots.txt: the host inputs given.
    pub captures: usize,
    /// `response` records of another path than `/robots.txt` (a page a
    /// redirect led to, a home page), or of a URI without one (`dns:`).
    pub other_paths: usize,
    /// `revisit` records: their payload is another record's.
    pub revisits: usize,
    /// `request` records.
    pub requests: usize,
    /// `metadata` records.
    pub metadata: usize,
    /// `warcinfo` records.
    pub warcinfo: usize,
    /// Records of another type (`resource`, `conversion`, `continuation`,
    /// or one WARC does not define).
    pub other_types: usize,
    /// Records without the `WARC-Type` that WARC requires.
    pub untyped: usize,
}

impl WarcCounts {
    /// Adds another file's counts.
    pub fn add(&mut self, o: &WarcCounts) {
        self.records += o.records;
        self.captures += o.captures;
        self.other_paths += o.other_paths;
        self.revisits += o.revisits;
        self.requests += o.requests;
        self.metadata += o.metadata;
        self.warcinfo += o.warcinfo;
        self.other_types += o.other_types;
        self.untyped += o.untyped;
    }

    /// Records set aside (every record but the captures).
    pub fn skipped(&self) -> usize {
        self.records - self.captures
    }

    fn count_type(&mut self, kind: Option<&str>) {
        *match kind {
            None => &mut self.untyped,
            Some(k) if k.eq_ignore_ascii_case("revisit") => &mut self.revisits,
            Some(k) if k.eq_ignore_ascii_case("request") => &mut self.requests,
            Some(k) if k.eq_ignore_ascii_case("metadata") => &mut self.metadata,
            Some(k) if k.eq_ignore_ascii_case("warcinfo") => &mut self.warcinfo,
            Some(_) => &mut self.other_types,
        } += 1;
    }
}

impl fmt::Display for WarcCounts {
    /// The records set aside, by kind (those of which there are any).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = [
            (
                "responses for another path than /robots.txt",
                self.other_paths,
            ),
            ("request", self.requests),
            ("metadata", self.metadata),
            ("revisit", self.revisits),
            ("warcinfo", self.warcinfo),
            ("of other types", self.other_types),
            ("without WARC-Type", self.untyped),
        ];
        let mut first = true;
        for (what, n) in kinds.iter().filter(|(_, n)| *n > 0) {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{what} {n}")?;
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

/// The robots.txt captures of one WARC file, as host inputs, in file order.
pub struct WarcInputs {
    reader: Box<dyn BufRead>,
    name: String,
    /// Records read so far (1-based number of the current one).
    record: usize,
    done: bool,
    parse_limit: usize,
    counts: WarcCounts,
    /// Where the file ended before its last record did, once it has.
    cut: Option<String>,
}

/// Opens a WARC file (`.warc` or `.warc.gz`).
///
/// # Errors
///
/// The file cannot be opened.
pub fn warc_inputs(path: &Path) -> Result<WarcInputs, InputError> {
    let file = std::fs::File::open(path).map_err(|e| InputError {
        at: path.display().to_string(),
        kind: InputErrorKind::io("cannot read WARC file", e),
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
            GzMembers {
                state: Some(GzState::Between(Counted { inner: raw, pos: 0 })),
                failed: None,
            },
        ))
    } else {
        Box::new(raw)
    };
    WarcInputs {
        reader,
        name: name.to_string(),
        record: 0,
        done: false,
        parse_limit: robocc_compiler::DEFAULT_MAX_BYTES,
        counts: WarcCounts::default(),
        cut: None,
    }
}

/// Why a read stopped.
struct Failure {
    why: String,
    /// The I/O error, when one stopped it (kept as the input error's
    /// source).
    io: Option<io::Error>,
    /// The input ended there (the file, or a gzip member, cut short).
    eof: bool,
    /// The gzip layer failed there ([`GzDamage`]): damage, or (with `eof`)
    /// a member cut short.
    damaged: bool,
    /// Of a line the input ends inside, its first bytes.
    tail: Vec<u8>,
}

impl Failure {
    fn of(e: io::Error) -> Failure {
        Failure {
            why: e.to_string(),
            eof: e.kind() == io::ErrorKind::UnexpectedEof,
            damaged: e.get_ref().is_some_and(|i| i.is::<GzDamage>()),
            io: Some(e),
            tail: Vec::new(),
        }
    }
}

/// Skips the line breaks before a record, in place: a WARC record is
/// followed by one blank line pair, and extra ones are tolerated, at the
/// cost of a scan (1 GiB of them is a pass over 1 GiB, not a billion
/// line reads).
fn skip_blank_lines(r: &mut dyn BufRead) -> Result<(), Failure> {
    loop {
        let buf = r.fill_buf().map_err(Failure::of)?;
        if buf.is_empty() {
            return Ok(());
        }
        let n = buf
            .iter()
            .position(|&b| b != b'\n' && b != b'\r')
            .unwrap_or(buf.len());
        let done = n < buf.len();
        r.consume(n);
        if done {
            return Ok(());
        }
    }
}

/// One line, at most [`MAX_LINE`] bytes; `Ok(None)` at the end of input,
/// `Err` on a read error (a damaged gzip member) or an overlong line.
fn read_line(r: &mut dyn BufRead) -> Result<Option<Vec<u8>>, Failure> {
    let mut line = Vec::new();
    let n = r
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)
        .map_err(Failure::of)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        if n as u64 == MAX_LINE {
            return Err(Failure {
                why: format!("a header line longer than {MAX_LINE} bytes"),
                io: None,
                eof: false,
                damaged: false,
                tail: Vec::new(),
            });
        }
        // The input ended inside the line.
        line.truncate(16);
        return Err(Failure {
            why: "the file ends inside a header line".into(),
            io: None,
            eof: true,
            damaged: false,
            tail: line,
        });
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

impl Headers {
    /// Field `name` (lower case) with its value (unfolded, trimmed).
    fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        match name {
            "warc-type" => self.kind = Some(value.to_string()),
            "warc-target-uri" => {
                // WARC 1.0 examples wrap it in <>.
                let v = value.trim_start_matches('<').trim_end_matches('>');
                self.uri = Some(v.to_string());
            }
            "warc-date" => self.date = Some(value.to_string()),
            "warc-truncated" => self.truncated = Some(value.to_string()),
            "content-length" => match value.parse::<u64>() {
                Ok(n) => self.length = Some(n),
                Err(_) => return Err(format!("Content-Length {value:?}")),
            },
            _ => {}
        }
        Ok(())
    }
}

type Next = Option<Result<HostInput, InputError>>;

impl WarcInputs {
    /// The parse limit of the build (`--max-bytes`, 0 for none; the
    /// default parse options' by default): a 2xx capture cut short is
    /// compiled from what it holds when that is more than the limit (and
    /// at least 8 KiB, the bytes that tell how a body is read; not UTF-16),
    /// which answers as the whole body would, and is a failure otherwise.
    #[must_use]
    pub fn parse_limit(mut self, max_bytes: usize) -> WarcInputs {
        self.parse_limit = max_bytes;
        self
    }

    /// What was read so far, by kind of record.
    pub fn counts(&self) -> WarcCounts {
        self.counts
    }

    /// The name errors give the file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the file ended before its last record did, once the reader
    /// met that end (a download cut short: the gzip member or record it
    /// ends in, and why): every record before it was read, the record it
    /// cuts was read for what it holds, and whatever followed is missing.
    /// `None` for a file that ends where a record does.
    pub fn truncated(&self) -> Option<&str> {
        self.cut.as_deref()
    }

    /// An error at `at` (the current record, or the place between records).
    fn fail(&mut self, at: String, kind: InputErrorKind) -> Next {
        self.done = true;
        Some(Err(InputError {
            at: format!("{}: {at}", self.name),
            kind,
        }))
    }

    /// Framing that is not WARC, in the current record.
    fn framing(&mut self, what: impl Into<String>) -> Next {
        let at = format!("record {}", self.record);
        self.fail(
            at,
            InputErrorKind::NotWarc(format!("not a WARC file: {}", what.into())),
        )
    }

    /// Where the reader is between records.
    fn after(&self) -> String {
        match self.record {
            0 => "at its start".to_string(),
            n => format!("after record {n}"),
        }
    }

    /// A read that failed for another reason than the end of the input: a
    /// damaged gzip member, an overlong line, an I/O error. Whatever
    /// follows is unread, so the build cannot go on.
    fn read_error(&mut self, f: Failure, between: bool) -> Next {
        let at = if between {
            self.after()
        } else {
            format!("record {}", self.record)
        };
        let kind = match f.io {
            _ if f.damaged => InputErrorKind::Damaged(f.why),
            Some(e) if between => InputErrorKind::io("", e),
            Some(e) => InputErrorKind::io("not a WARC file", e),
            None if between => InputErrorKind::NotWarc(f.why),
            None => InputErrorKind::NotWarc(format!("not a WARC file: {}", f.why)),
        };
        self.fail(at, kind)
    }

    /// The file ends before its last record does (`why`, where): the
    /// records before are kept, and the cut is said ([`WarcInputs::truncated`]).
    fn ended(&mut self, why: String) -> Next {
        self.done = true;
        self.cut = Some(why);
        None
    }

    /// A record the file ends inside (`block`: what of its block there
    /// is, when its headers are whole). Nothing is lost when it is not a
    /// capture; a capture is read for what it holds; a record cut before
    /// it says which it is is a loss the cut reports, as the records it
    /// hid are.
    fn cut_short(&mut self, h: &Headers, block: Option<&[u8]>, why: &str) -> Next {
        let at = format!("in record {} ({why})", self.record);
        self.done = true;
        self.cut = Some(at);
        match h.kind.as_deref() {
            Some(k) if k.eq_ignore_ascii_case("response") => {}
            Some(_) => {
                self.counts.count_type(h.kind.as_deref());
                return None;
            }
            None => return None,
        }
        let uri = h.uri.clone()?;
        if !is_robots_txt_url(&uri) {
            self.counts.other_paths += 1;
            return None;
        }
        let (host, origin) = match self.host_of(&uri) {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        self.counts.captures += 1;
        let cut = format!("the file ends inside the record: {why}");
        Some(Ok(match block {
            Some(block) => self.capture(host, &origin, h, block, Some(cut)),
            None => HostInput {
                host,
                fetched_at: h.date.clone(),
                failure: Some(format!(
                    "the capture is truncated in its WARC headers ({cut})"
                )),
                ..HostInput::default()
            },
        }))
    }

    /// The host input of a capture: `cut` says why its block is not whole,
    /// if it is not.
    fn capture(
        &self,
        host: String,
        origin: &str,
        h: &Headers,
        block: &[u8],
        cut: Option<String>,
    ) -> HostInput {
        let mut input = HostInput {
            host,
            fetched_at: h.date.clone(),
            ..HostInput::default()
        };
        let cut = cut.or_else(|| h.truncated.as_ref().map(|t| format!("WARC-Truncated: {t}")));
        match http_response(block, origin, cut.as_deref(), self.parse_limit) {
            Ok((status, location, body)) => {
                input.status = status;
                input.location = location;
                input.body = body;
            }
            Err((status, why)) => {
                input.status = status;
                input.failure = Some(why);
            }
        }
        input
    }

    /// Host key and `scheme://authority` of a target URI.
    fn host_of(&self, uri: &str) -> Result<(String, String), InputError> {
        let err = |kind| InputError {
            at: format!("{}: record {}", self.name, self.record),
            kind,
        };
        let bad = |why| err(InputErrorKind::BadTargetUri(uri.to_string(), why));
        let (scheme, rest) = uri
            .split_once("://")
            .ok_or_else(|| bad("WARC-Target-URI is not an absolute URL"))?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(bad("WARC-Target-URI is not http or https"));
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        // The host a client fetches, read as a store lookup reads it (no
        // host where URL parsers disagree on the authority).
        let hostport = HostKey::of_url(uri.as_bytes())
            .ok_or_else(|| bad("URL parsers read its host differently, or it has none"))?
            .to_key();
        let key = host_key(&hostport)
            .map_err(|why| err(InputErrorKind::BadHost(uri.to_string(), why)))?;
        Ok((
            key,
            format!("{}://{authority}", scheme.to_ascii_lowercase()),
        ))
    }
}

impl Iterator for WarcInputs {
    type Item = Result<HostInput, InputError>;

    fn next(&mut self) -> Next {
        while !self.done {
            // Version line (blank lines before it are tolerated).
            let line = match skip_blank_lines(&mut *self.reader) {
                Ok(()) => read_line(&mut *self.reader),
                Err(f) => Err(f),
            };
            let version = match line {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some(l)) => l,
                // A gzip member cut short, or the start of a version line:
                // the download ends there.
                Err(f)
                    if f.eof
                        && (f.damaged
                            || [&b"WARC/1.0\r"[..], b"WARC/1.1\r"]
                                .iter()
                                .any(|v| v.starts_with(&f.tail))) =>
                {
                    let at = self.after();
                    return self.ended(format!("{at} ({})", f.why));
                }
                Err(f) if f.eof => {
                    let at = self.after();
                    return self.fail(
                        at,
                        InputErrorKind::NotWarc(
                            "not a WARC record: the file ends inside a line (a damaged \
                             file, or bytes after its last record)"
                                .into(),
                        ),
                    );
                }
                Err(f) => return self.read_error(f, true),
            };
            if version != b"WARC/1.0" && version != b"WARC/1.1" {
                let shown = String::from_utf8_lossy(&version[..version.len().min(40)]).into_owned();
                let at = self.after();
                return self.fail(
                    at,
                    InputErrorKind::NotWarc(format!(
                        "not a WARC record: expected WARC/1.0 or WARC/1.1, found {shown:?} \
                         (a damaged file, or bytes after its last record)"
                    )),
                );
            }
            self.record += 1;
            self.counts.records += 1;
            // Headers.
            let mut h = Headers::default();
            let mut count = 0;
            // The field being read: a line that starts with a space or a
            // tab continues it (WARC's LWS, as in HTTP/1.0 headers).
            let mut field: Option<(String, String)> = None;
            loop {
                let line = match read_line(&mut *self.reader) {
                    Ok(Some(l)) => l,
                    Err(f) if !f.eof => return self.read_error(f, false),
                    end => {
                        let why = match end {
                            Err(f) => f.why,
                            Ok(_) => "in its WARC headers".to_string(),
                        };
                        // What was read of the headers says what the record is.
                        if let Some((name, value)) = field.take() {
                            let _ = h.set(&name, &value);
                        }
                        return self.cut_short(&h, None, &why);
                    }
                };
                if line.is_empty() {
                    break;
                }
                count += 1;
                if count > MAX_HEADERS {
                    return self.framing(format!("more than {MAX_HEADERS} header lines"));
                }
                let line = String::from_utf8_lossy(&line);
                if line.starts_with([' ', '\t']) {
                    let Some((_, value)) = &mut field else {
                        return self
                            .framing(format!("a continuation line before any header: {line:?}"));
                    };
                    if value.len() + line.len() > MAX_LINE as usize {
                        return self.framing(format!("a header longer than {MAX_LINE} bytes"));
                    }
                    value.push(' ');
                    value.push_str(line.trim());
                    continue;
                }
                let Some((name, value)) = line.split_once(':') else {
                    return self.framing(format!("header line without ':': {line:?}"));
                };
                let next = (name.trim().to_ascii_lowercase(), value.trim().to_string());
                if let Some((name, value)) = field.replace(next) {
                    if let Err(e) = h.set(&name, &value) {
                        return self.framing(e);
                    }
                }
            }
            if let Some((name, value)) = field.take() {
                if let Err(e) = h.set(&name, &value) {
                    return self.framing(e);
                }
            }
            let Some(length) = h.length else {
                return self.framing("a record without Content-Length");
            };
            if length > MAX_BLOCK {
                return self.framing(format!("a record block of {length} bytes"));
            }
            // Block.
            let mut block = Vec::new();
            let read = (&mut self.reader).take(length).read_to_end(&mut block);
            if let Err(e) = read {
                let f = Failure::of(e);
                if f.eof {
                    return self.cut_short(&h, Some(&block), &f.why);
                }
                return self.read_error(f, false);
            }
            if (block.len() as u64) < length {
                let why = format!("{} of {length} bytes of block", block.len());
                return self.cut_short(&h, Some(&block), &why);
            }
            // Record end: "\r\n\r\n", or the end of the file.
            let mut end = Vec::new();
            match (&mut self.reader).take(4).read_to_end(&mut end) {
                Ok(_) if end == b"\r\n\r\n" => {}
                // The file ends in (or before) the separator: the block is
                // whole, and the cut is said.
                Ok(_) if b"\r\n\r\n".starts_with(&end) => {
                    self.done = true;
                    self.cut = Some(format!(
                        "after record {}: the file ends before the record's closing blank lines",
                        self.record
                    ));
                }
                Ok(_) => return self.framing("a record block not followed by \\r\\n\\r\\n"),
                // The block is whole, and the file (a gzip member) ends in
                // what follows it.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    self.done = true;
                    self.cut = Some(format!("after record {} ({e})", self.record));
                }
                Err(e) => return self.read_error(Failure::of(e), false),
            }
            // WARC 1.1 gives no rule for the case of WARC-Type's value:
            // read as the other types are, case-insensitively.
            if !h
                .kind
                .as_deref()
                .is_some_and(|k| k.eq_ignore_ascii_case("response"))
            {
                self.counts.count_type(h.kind.as_deref());
                continue;
            }
            let Some(uri) = h.uri.clone() else {
                return self.framing("a response record without WARC-Target-URI");
            };
            if !is_robots_txt_url(&uri) {
                self.counts.other_paths += 1;
                continue;
            }
            let (host, origin) = match self.host_of(&uri) {
                Ok(x) => x,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            self.counts.captures += 1;
            return Some(Ok(self.capture(host, &origin, &h, &block, None)));
        }
        None
    }
}

/// Status, `Location` and body of an HTTP response.
type Response = (u16, Option<String>, Option<Vec<u8>>);

/// The status of a status line (`HTTP/1.1 200 OK`).
fn status_of(line: &str) -> Option<u16> {
    line.strip_prefix("HTTP/")
        .and_then(|r| r.split_ascii_whitespace().nth(1))
        .filter(|s| s.len() == 3)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|&s| s >= 100)
}

/// Status, `Location` (absolute) and, for a 2xx, the decoded payload of an
/// HTTP response as a WARC `response` block holds it. `cut`: why the block
/// is not whole, if it is not. An error is the host's failure, with the
/// status when it was read.
fn http_response(
    block: &[u8],
    origin: &str,
    cut: Option<&str>,
    parse_limit: usize,
) -> Result<Response, (u16, String)> {
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
        (None, None) => {
            let head = String::from_utf8_lossy(block);
            let status = head
                .split_once('\n')
                .and_then(|(line, _)| status_of(line.trim_end()))
                .unwrap_or(0);
            return Err((
                status,
                match cut {
                    Some(why) => format!("the capture is truncated in its HTTP headers ({why})"),
                    None => "the HTTP response headers are cut short".into(),
                },
            ));
        }
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or("");
    let status = status_of(status_line).ok_or_else(|| {
        let shown: String = status_line.chars().take(40).collect();
        (0, format!("no HTTP status line: {shown:?}"))
    })?;
    // A line that starts with a space or a tab continues the header before
    // it (RFC 9112 §5.2's obsolete folding: read as one space), so that a
    // folded Location is read whole.
    let mut fields: Vec<(&str, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            fields.push((name, value.trim().to_string()));
        }
    }
    let (mut location, mut transfer, mut content) = (None, Vec::new(), Vec::new());
    for (name, value) in &fields {
        let value = value.as_str();
        let codings = |list: &mut Vec<String>| {
            list.extend(
                value
                    .split(',')
                    .map(|c| c.trim().to_ascii_lowercase())
                    .filter(|c| !c.is_empty()),
            );
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "location" => location = Some(absolute_location(value, origin)),
            "content-encoding" => codings(&mut content),
            "transfer-encoding" => codings(&mut transfer),
            _ => {}
        }
    }
    // Only a 2xx body is read (RFC 9309 §2.3.1): whatever the rest of the
    // block holds, and whether it is all there, another status needs none.
    if !(200..300).contains(&status) {
        return Ok((status, location, None));
    }
    let body =
        decode_payload(payload, &transfer, &content, cut.is_some()).map_err(|why| (status, why))?;
    if let Some(why) = cut {
        if !prefix_reads_as_whole(&body, parse_limit) {
            let limit = if parse_limit == 0 {
                "without a parse limit the whole body is needed".to_string()
            } else {
                format!("the rules within the {parse_limit}-byte parse limit are not all there")
            };
            return Err((
                status,
                format!(
                    "the capture is truncated ({why}) after {} bytes of body: {limit}",
                    body.len()
                ),
            ));
        }
    }
    Ok((status, location, Some(body)))
}

/// A payload decoded: the transfer codings undone (last applied first),
/// then the content codings. `cut`: the payload is not whole, and what of
/// it decodes is kept.
fn decode_payload(
    payload: &[u8],
    transfer: &[String],
    content: &[String],
    cut: bool,
) -> Result<Vec<u8>, String> {
    if payload.len() as u64 > MAX_PAYLOAD {
        return Err(too_large());
    }
    let mut data = std::borrow::Cow::Borrowed(payload);
    for (header, codings) in [
        ("Transfer-Encoding", transfer),
        ("Content-Encoding", content),
    ] {
        for coding in codings.iter().rev() {
            data = std::borrow::Cow::Owned(match coding.as_str() {
                "identity" => continue,
                "chunked" => dechunk(&data, cut)?,
                "gzip" | "x-gzip" => {
                    decode(flate2::read::MultiGzDecoder::new(&data[..]), coding, cut)?
                }
                "deflate" => match decode(flate2::read::ZlibDecoder::new(&data[..]), coding, cut) {
                    Ok(b) => b,
                    // Servers send raw deflate too.
                    Err(_) => decode(flate2::read::DeflateDecoder::new(&data[..]), coding, cut)?,
                },
                other => return Err(format!("unsupported {header}: {other}")),
            });
        }
    }
    Ok(data.into_owned())
}

/// A payload past [`MAX_PAYLOAD`] is a failure on every path (plain,
/// chunked, compressed), as a manifest's body file past it is.
fn too_large() -> String {
    format!("the payload is larger than {} MiB", MAX_PAYLOAD >> 20)
}

/// A compressed payload decoded. Of a payload cut short, what decodes.
fn decode(r: impl Read, what: &str, cut: bool) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let read = r.take(MAX_PAYLOAD + 1).read_to_end(&mut out);
    if let Err(e) = read {
        // Of a payload cut short, what decodes before the cut; nothing
        // decoding is no payload of this coding.
        if !cut || out.is_empty() {
            return Err(format!("the {what} payload cannot be decoded: {e}"));
        }
    }
    if out.len() as u64 > MAX_PAYLOAD {
        return Err(too_large());
    }
    Ok(out)
}

/// `Transfer-Encoding: chunked` payload → its bytes. Of a payload cut
/// short, the bytes of its chunks up to the cut.
fn dechunk(mut data: &[u8], cut: bool) -> Result<Vec<u8>, String> {
    let short = || "the chunked payload is cut short".to_string();
    let mut out = Vec::new();
    loop {
        let Some(eol) = memchr::memchr(b'\n', data) else {
            return if cut { Ok(out) } else { Err(short()) };
        };
        let line = String::from_utf8_lossy(&data[..eol]);
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| format!("bad chunk size {size:?} in a chunked payload"))?;
        data = &data[eol + 1..];
        if size == 0 {
            return Ok(out);
        }
        let take = size.min(data.len());
        if (out.len() + take) as u64 > MAX_PAYLOAD {
            return Err(too_large());
        }
        out.extend_from_slice(&data[..take]);
        if take < size {
            return if cut { Ok(out) } else { Err(short()) };
        }
        data = &data[size..];
        if cut && data.is_empty() {
            return Ok(out);
        }
        data = data
            .strip_prefix(b"\r\n")
            .or_else(|| data.strip_prefix(b"\n"))
            .ok_or_else(short)?;
    }
}

/// Where a gzip input went wrong: the error inside the `io::Error`s of
/// [`GzMembers`], so that the WARC reader tells damage from framing.
#[derive(Debug)]
struct GzDamage(String);

impl fmt::Display for GzDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GzDamage {}

/// A buffered reader that counts the bytes consumed from it.
struct Counted<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.pos += n as u64;
        self.inner.consume(n);
    }
}

/// The members of a gzip file decoded one after another, as
/// `MultiGzDecoder` reads them, except that an error names the member by
/// its byte offset in the file, and bytes after the last member are an
/// error that says so (never a silent end).
struct GzMembers<R> {
    state: Option<GzState<R>>,
    /// The error every read gives once one was met.
    failed: Option<(io::ErrorKind, String)>,
}

enum GzState<R> {
    /// At a member boundary (or the end of the file).
    Between(Counted<R>),
    /// In the member that starts at this byte offset.
    In(flate2::bufread::GzDecoder<Counted<R>>, u64),
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some((kind, what)) = &self.failed {
                return Err(io::Error::new(*kind, GzDamage(what.clone())));
            }
            let Some(state) = self.state.take() else {
                return Ok(0);
            };
            match state {
                GzState::Between(mut r) => match r.fill_buf()?.first() {
                    None => {
                        self.state = Some(GzState::Between(r));
                        return Ok(0);
                    }
                    Some(0x1f) => {
                        let at = r.pos;
                        self.state = Some(GzState::In(flate2::bufread::GzDecoder::new(r), at));
                    }
                    Some(_) => {
                        self.failed = Some((
                            io::ErrorKind::InvalidData,
                            format!(
                                "the bytes from byte offset {} on are not a gzip member (bytes \
                                 after the last record, or a damaged member)",
                                r.pos
                            ),
                        ));
                    }
                },
                GzState::In(mut d, at) => match d.read(out) {
                    Ok(0) => self.state = Some(GzState::Between(d.into_inner())),
                    Ok(n) => {
                        self.state = Some(GzState::In(d, at));
                        return Ok(n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                        self.failed = Some((
                            e.kind(),
                            format!("the file ends inside the gzip member at byte offset {at}"),
                        ));
                    }
                    Err(e) => {
                        self.failed = Some((
                            e.kind(),
                            format!("damaged gzip member at byte offset {at}: {e}"),
                        ));
                    }
                },
            }
        }
    }
}
