//! The input stage: the bytes a server sent → the text the parser reads.
//!
//! RFC 9309 §2.2 defines robots.txt as UTF-8 text. Servers also send UTF-16,
//! HTML error pages and binary bodies, and people hand robocc its own
//! artifacts. This stage recognises each kind and says so in a diagnostic;
//! the one change it makes is decoding UTF-16 to UTF-8 (docs/dialects.md,
//! "Input"). Every other body is parsed as it is, as a crawler would.

use crate::diag::{DiagCode, Diagnostic};
use robocc_engine::FileKind;
use std::borrow::Cow;

/// What the body looked like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputKind {
    /// Text (UTF-8, ASCII or another 8-bit encoding): parsed as it is.
    Text,
    /// UTF-16, decoded to UTF-8.
    Utf16 {
        /// Big-endian (else little-endian).
        big_endian: bool,
        /// Recognised by its byte-order mark (else by its zero bytes).
        bom: bool,
    },
    /// An HTML page: parsed as it is (its lines are ignored as rules).
    Html,
    /// Not text: parsed as it is.
    Binary,
    /// A robocc policy or store: parsed as it is.
    Robocc(FileKind),
}

/// The text to parse, what it was, and what was said about it.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// The bytes the parser reads: the body, or its UTF-8 decoding.
    pub text: Cow<'a, [u8]>,
    /// What the body looked like.
    pub kind: InputKind,
    /// At most one finding (line 0) saying what the body is.
    pub diagnostics: Vec<Diagnostic>,
}

/// Bytes looked at to tell text from binary and HTML (and UTF-16 without
/// a byte-order mark).
pub const SAMPLE: usize = 8192;

/// Whether [`read`] decodes `body` as UTF-16 (its parse limit then applies
/// to the decoded text, not to these bytes).
pub fn is_utf16(body: &[u8]) -> bool {
    utf16(body).is_some()
}

/// Reads a body: recognises its kind and decodes UTF-16.
pub fn read(body: &[u8]) -> Input<'_> {
    let whole = |kind, diagnostics| Input {
        text: Cow::Borrowed(body),
        kind,
        diagnostics,
    };
    let note = |code, message: String| vec![Diagnostic::new(0, code, message)];
    if let Some(kind) = FileKind::sniff(body) {
        return whole(
            InputKind::Robocc(kind),
            note(
                DiagCode::RoboccFile,
                format!("this is a robocc {}, not a robots.txt", kind.name()),
            ),
        );
    }
    if let Some(Utf16Text {
        text,
        big_endian,
        bom,
        replaced,
    }) = utf16_text(body)
    {
        let mut message = format!(
            "the body is UTF-16 ({}-endian, {}): decoded to UTF-8 before parsing \
             (robots.txt is UTF-8; Google's library reads no rules from UTF-16)",
            if big_endian { "big" } else { "little" },
            if bom {
                "with a byte-order mark"
            } else {
                "recognised by its zero bytes"
            }
        );
        if replaced > 0 {
            message.push_str(&format!("; {replaced} invalid code units became U+FFFD"));
        }
        return Input {
            text: Cow::Owned(text),
            kind: InputKind::Utf16 { big_endian, bom },
            diagnostics: note(DiagCode::Utf16, message),
        };
    }
    let sample = &body[..body.len().min(SAMPLE)];
    let odd = not_text_bytes(sample);
    // Real robots.txt files in 8-bit encodings have a few percent of bytes
    // that are not UTF-8; random or compressed bodies have about half.
    if !sample.is_empty() && odd * 10 > sample.len() {
        return whole(
            InputKind::Binary,
            note(
                DiagCode::NotText,
                format!(
                    "the body looks binary, not a robots.txt: {}% of its first {} bytes \
                     are control bytes or invalid UTF-8",
                    odd * 100 / sample.len(),
                    sample.len()
                ),
            ),
        );
    }
    if looks_like_html(sample) {
        return whole(
            InputKind::Html,
            note(
                DiagCode::Html,
                "the body looks like an HTML page, not a robots.txt".into(),
            ),
        );
    }
    whole(InputKind::Text, Vec::new())
}

/// A UTF-16 body decoded to UTF-8 ([`utf16_text`]).
pub struct Utf16Text {
    /// The text, as UTF-8.
    pub text: Vec<u8>,
    /// Big-endian (else little-endian) code units.
    pub big_endian: bool,
    /// Recognised by its byte-order mark (else by its zero bytes).
    pub bom: bool,
    /// Unpaired surrogates (and an odd last byte) replaced by U+FFFD.
    pub replaced: usize,
}

/// `body` decoded to UTF-8 when it is UTF-16 (by its byte-order mark, or
/// by its zero bytes): the one decoding of robots.txt files and pages.
pub fn utf16_text(body: &[u8]) -> Option<Utf16Text> {
    let (big_endian, bom) = utf16(body)?;
    let (text, replaced) = decode_utf16(body, big_endian, bom);
    Some(Utf16Text {
        text,
        big_endian,
        bom,
        replaced,
    })
}

/// UTF-16 by its byte-order mark, or by zero bytes in every other position
/// (ASCII text in UTF-16 without a mark): `(big_endian, bom)`.
fn utf16(body: &[u8]) -> Option<(bool, bool)> {
    match body {
        // FF FE 00 00 is UTF-32's mark: not UTF-16.
        [0xff, 0xfe, 0, 0, ..] => None,
        [0xff, 0xfe, ..] => Some((false, true)),
        [0xfe, 0xff, ..] => Some((true, true)),
        _ => {
            let sample = &body[..body.len().min(SAMPLE) & !1];
            let units = sample.len() / 2;
            // Without a zero byte it is not UTF-16 (the common case, found
            // by one fast scan).
            if units < 8 || memchr::memchr(0, sample).is_none() {
                return None;
            }
            let zero_at = |first: bool| {
                sample
                    .chunks_exact(2)
                    .filter(|u| (if first { u[0] } else { u[1] }) == 0)
                    .count()
            };
            let (even, odd) = (zero_at(true), zero_at(false));
            // Nearly all high bytes zero, nearly no low byte zero.
            let mostly = |n: usize| n * 10 >= units * 9;
            let rarely = |n: usize| n * 20 <= units;
            if mostly(odd) && rarely(even) {
                Some((false, false))
            } else if mostly(even) && rarely(odd) {
                Some((true, false))
            } else {
                None
            }
        }
    }
}

/// UTF-16 → UTF-8, without the mark; returns the count of unpaired
/// surrogates replaced by U+FFFD.
fn decode_utf16(body: &[u8], big_endian: bool, bom: bool) -> (Vec<u8>, usize) {
    let body = if bom { &body[2..] } else { body };
    let units = body.chunks_exact(2).map(|u| {
        if big_endian {
            u16::from_be_bytes([u[0], u[1]])
        } else {
            u16::from_le_bytes([u[0], u[1]])
        }
    });
    let mut out = String::with_capacity(body.len() / 2);
    let mut replaced = 0;
    for c in char::decode_utf16(units) {
        out.push(c.unwrap_or_else(|_| {
            replaced += 1;
            char::REPLACEMENT_CHARACTER
        }));
    }
    // An odd trailing byte is half a code unit.
    replaced += body.len() % 2;
    (out.into_bytes(), replaced)
}

/// Control bytes (besides tab, line feed, form feed, carriage return and
/// escape) and bytes of invalid UTF-8 sequences.
fn not_text_bytes(sample: &[u8]) -> usize {
    // Control bytes but whitespace and ESC, and DEL. Compares joined by `&`
    // and `|`, and counted in bytes per 255-byte chunk, so that the loop is
    // vectorised: every body is read this way before its first answer.
    let control = |b: u8| {
        u8::from(
            (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\x0c') & (b != b'\r') & (b != 0x1b)
                | (b == 0x7f),
        )
    };
    let controls: usize = sample
        .chunks(255)
        .map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + control(b))))
        .sum();
    let mut invalid = 0;
    let mut rest = sample;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(_) => break,
            Err(e) => {
                let bad = match e.error_len() {
                    Some(n) => n,
                    // A sequence cut by the end of the sample is not an error.
                    None => break,
                };
                invalid += bad;
                rest = &rest[e.valid_up_to() + bad..];
            }
        }
    }
    controls + invalid
}

/// An HTML document: `<!doctype` or `<html` first, or `<head`/`<body` early.
fn looks_like_html(sample: &[u8]) -> bool {
    let head = &sample[..sample.len().min(1024)];
    // Every mark below starts with `<` (most robots.txt have none).
    if memchr::memchr(b'<', head).is_none() {
        return false;
    }
    let lower = head.to_ascii_lowercase();
    let start = lower
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(&lower)
        .trim_ascii_start();
    let contains = |needle: &[u8]| lower.windows(needle.len()).any(|w| w == needle);
    start.starts_with(b"<!doctype")
        || start.starts_with(b"<html")
        || contains(b"<body")
        || contains(b"<head>")
}

/// The most bytes robocc reads from one input file (a robots.txt, a page, a
/// store build's body, a manifest line): far above any parse limit (Google
/// reads 500 KiB of a robots.txt, 15 MB of a page), and a bound on memory
/// and time for a file that never ends (`/dev/zero`, a FIFO).
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads the file at `path` whole, if it has at most [`MAX_INPUT_BYTES`].
///
/// # Errors
///
/// The file cannot be read, or it is longer than that (a regular file is
/// refused before it is read; a stream after that many bytes): then the
/// error's kind is [`std::io::ErrorKind::FileTooLarge`].
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let too_long = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "longer than {} MiB, the most robocc reads of one input",
                MAX_INPUT_BYTES >> 20
            ),
        )
    };
    let file = std::fs::File::open(path)?;
    let len = file.metadata().map(|m| m.is_file().then_some(m.len()));
    if let Ok(Some(len)) = len {
        if len > MAX_INPUT_BYTES {
            return Err(too_long());
        }
    }
    read_all(file)
}

/// Reads `reader` to its end, if it holds at most [`MAX_INPUT_BYTES`] (a
/// stream such as standard input; [`read_file`] for a path).
///
/// # Errors
///
/// As [`read_file`]'s, for a stream.
pub fn read_all(reader: impl std::io::Read) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "longer than {} MiB, the most robocc reads of one input",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// Opens `path` for reading only if it is a regular file: the one home for
/// opening an input that robocc finds rather than one the user names as a
/// stream (a store build's body files, a directory's `<host>.txt`). A FIFO,
/// socket or device is refused at once, never waited on: the file is opened
/// non-blocking and its type read from the open file, so a FIFO swapped in
/// after a check is refused too (as the engine opens artifacts).
///
/// # Errors
///
/// The open fails, or the file is a directory (kind `IsADirectory`) or not
/// a regular file (kind `InvalidInput`, naming its type: "it is a FIFO, not
/// a regular file").
pub fn open_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    robocc_engine::open_regular(path)
}

/// A regular file read for what a parse needs of it ([`read_prefix`]).
#[derive(Debug)]
pub struct Prefix {
    /// The whole file, or its first `keep` bytes when it is longer.
    pub bytes: Vec<u8>,
    /// When `bytes` is only the start: the whole file's length and SHA-256.
    pub whole: Option<(u64, [u8; 32])>,
}

/// Reads the regular file at `path` ([`open_regular`]), keeping at most
/// `keep` bytes: a longer file is read to its end in 64 KiB pieces for its
/// length and SHA-256 only, so that memory is `keep` bytes whatever its
/// size (RFC 9309 §2.5: a parser may stop at a limit; the digest still
/// names the whole body). A file of at most `keep` bytes is not hashed.
///
/// # Errors
///
/// As [`open_regular`], or a read fails.
pub fn read_prefix(path: &std::path::Path, keep: usize) -> std::io::Result<Prefix> {
    use sha2::Digest;
    use std::io::Read;
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    (&mut file).take(keep as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() <= keep {
        return Ok(Prefix { bytes, whole: None });
    }
    let mut hasher = sha2::Sha256::new();
    hasher.update(&bytes);
    let mut len = bytes.len() as u64;
    bytes.truncate(keep);
    bytes.shrink_to_fit();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    Ok(Prefix {
        bytes,
        whole: Some((len, hasher.finalize().into())),
    })
}

/// Reads one line of `reader` into `line` (cleared first; with its line
/// break), refusing one whose text — without `\n` or `\r\n` — is longer
/// than `max` bytes. `Ok(false)` at the end of the input. Line-oriented
/// inputs (URL lists, manifests) use it, so that an input without line
/// breaks (`/dev/zero`) is refused instead of filling memory.
///
/// # Errors
///
/// The reader fails, or the line is too long (kind
/// [`std::io::ErrorKind::FileTooLarge`], saying the limit).
pub fn read_line(
    reader: &mut impl std::io::BufRead,
    max: u64,
    line: &mut Vec<u8>,
) -> std::io::Result<bool> {
    use std::io::{BufRead, Read};
    line.clear();
    let n = reader.take(max.saturating_add(2)).read_until(b'\n', line)?;
    if n == 0 {
        return Ok(false);
    }
    let mut text = line.as_slice();
    let ended = text.last() == Some(&b'\n');
    if ended {
        text = &text[..text.len() - 1];
    }
    if text.last() == Some(&b'\r') && (ended || (text.len() as u64) > max) {
        text = &text[..text.len() - 1];
    }
    if text.len() as u64 > max || (!ended && n as u64 == max.saturating_add(2)) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("a line longer than {}", show_bytes(max)),
        ));
    }
    Ok(true)
}

/// `n` bytes, in MiB when a whole number of them.
fn show_bytes(n: u64) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16_le(s: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    #[test]
    fn kinds() {
        let text = "User-agent: *\nDisallow: /private\n";
        let plain = read(text.as_bytes());
        assert_eq!(plain.kind, InputKind::Text);
        assert!(plain.diagnostics.is_empty());
        assert!(matches!(plain.text, Cow::Borrowed(_)));
        for bom in [true, false] {
            let body = utf16_le(text, bom);
            let r = read(&body);
            assert_eq!(
                r.kind,
                InputKind::Utf16 {
                    big_endian: false,
                    bom
                }
            );
            assert_eq!(&r.text[..], text.as_bytes());
            assert_eq!(r.diagnostics[0].code, DiagCode::Utf16);
        }
        let be: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(&read(&be).text[..], text.as_bytes());
        // An unpaired surrogate is replaced and counted.
        let mut bad = utf16_le("User-agent: *\n", true);
        bad.extend_from_slice(&[0x00, 0xd8, b'x', 0]);
        let r = read(&bad);
        assert!(r.diagnostics[0].message.contains("1 invalid"), "{r:?}");

        let random: Vec<u8> = (0u32..4096)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert_eq!(read(&random).kind, InputKind::Binary);
        // Latin-1 comments are text.
        let latin1 = b"# R\xe9pertoire priv\xe9\nUser-agent: *\nDisallow: /priv\xe9/\n";
        assert_eq!(read(latin1).kind, InputKind::Text);
        assert_eq!(
            read(b"<!DOCTYPE html>\n<html><body>404</body></html>").kind,
            InputKind::Html
        );
        let policy = robocc_engine::frame(FileKind::Policy, &[]);
        assert_eq!(read(&policy).kind, InputKind::Robocc(FileKind::Policy));
        assert_eq!(read(b"").kind, InputKind::Text);
    }

    /// A regular file over the bound is refused without being read (a
    /// sparse file: no disk used); a small one is read whole.
    #[test]
    fn read_file_stops_at_the_bound() {
        let dir = std::env::temp_dir().join(format!("robocc-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.txt");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap();
        let e = read_file(&path).unwrap_err();
        assert!(e.to_string().contains("longer than 256 MiB"), "{e}");
        f.set_len(1000).unwrap();
        assert_eq!(read_file(&path).unwrap(), vec![0; 1000]);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A line's text may be `max` bytes whatever ends it (`\n`, `\r\n`,
    /// the end of the input); one byte more is refused, and the input is
    /// not read past the refused line's first `max + 2` bytes.
    #[test]
    fn read_line_bounds_the_text_not_the_line_break() {
        let max = 8u64;
        let ok = "x".repeat(8);
        let long = "x".repeat(9);
        for (input, lines) in [
            (format!("{ok}\n{ok}\r\n{ok}"), 3),
            (format!("{ok}\r\n"), 1),
            (String::new(), 0),
            ("\n\r\n".to_string(), 2),
        ] {
            let mut r = std::io::BufReader::new(input.as_bytes());
            let mut line = Vec::new();
            let mut n = 0;
            while read_line(&mut r, max, &mut line).unwrap() {
                n += 1;
            }
            assert_eq!(n, lines, "{input:?}");
        }
        for input in [
            format!("{long}\n"),
            format!("{long}\r\n"),
            long.clone(),
            format!("{ok}\r{ok}\n"),
            "x".repeat(100),
        ] {
            let mut r = std::io::BufReader::new(input.as_bytes());
            let mut line = Vec::new();
            let e = read_line(&mut r, max, &mut line).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge, "{input:?}");
            assert!(line.len() as u64 <= max + 2, "{input:?}");
        }
    }
}
