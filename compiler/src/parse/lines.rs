//! Bytes → lines, exactly as Google's robotstxt parser splits them.
//!
//! * Line ends are LF, CR or CRLF; CRLF counts as one line end.
//! * A UTF-8 byte order mark at the very start is skipped, also a partial one
//!   (each leading byte that continues the BOM sequence is dropped).
//! * A line keeps at most [`MAX_LINE_LEN`] bytes; the rest of it is ignored.
//! * The last line is emitted even when the file does not end with a newline.
//!
//! Lines borrow from the input; nothing is copied.

/// Bytes of a line that are kept: Google's `kMaxLineLen` (2083 × 8 = 16,664)
/// is the size of its buffer, which also holds the terminating NUL, so 16,663
/// content bytes survive.
pub const MAX_LINE_LEN: usize = 2083 * 8 - 1;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One physical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number, counted as Google counts it.
    pub number: u32,
    /// Content, without the line end, cut to [`MAX_LINE_LEN`] bytes.
    pub text: &'a [u8],
    /// Bytes dropped because the line was too long.
    pub cut: usize,
}

/// Iterator over the lines of a robots.txt body.
pub struct Lines<'a> {
    rest: &'a [u8],
    max_len: usize,
    number: u32,
    done: bool,
    last_was_cr: bool,
}

impl<'a> Lines<'a> {
    /// Splits `body` (BOM handling included), keeping [`MAX_LINE_LEN`]
    /// bytes of a line.
    pub fn new(body: &'a [u8]) -> Lines<'a> {
        Lines::with_max_len(body, MAX_LINE_LEN)
    }

    /// Splits `body`, keeping at most `max_len` bytes of a line.
    pub fn with_max_len(body: &'a [u8], max_len: usize) -> Lines<'a> {
        let mut skip = 0;
        while skip < BOM.len() && body.get(skip) == Some(&BOM[skip]) {
            skip += 1;
        }
        Lines {
            rest: &body[skip..],
            max_len,
            number: 0,
            done: false,
            last_was_cr: false,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        loop {
            if self.done {
                return None;
            }
            let (text, ended_by) = match memchr::memchr2(b'\n', b'\r', self.rest) {
                Some(i) => {
                    let t = &self.rest[..i];
                    let e = self.rest[i];
                    self.rest = &self.rest[i + 1..];
                    (t, Some(e))
                }
                None => {
                    self.done = true;
                    (std::mem::take(&mut self.rest), None)
                }
            };
            // The LF of a CRLF ends no line of its own.
            let crlf_tail = text.is_empty() && self.last_was_cr && ended_by == Some(b'\n');
            self.last_was_cr = ended_by == Some(b'\r');
            if crlf_tail {
                continue;
            }
            self.number = self.number.saturating_add(1);
            let kept = text.len().min(self.max_len);
            return Some(Line {
                number: self.number,
                text: &text[..kept],
                cut: text.len() - kept,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(b: &[u8]) -> Vec<(u32, &[u8])> {
        Lines::new(b).map(|l| (l.number, l.text)).collect()
    }

    #[test]
    fn line_ends() {
        assert_eq!(
            lines(b"a\nb\rc\r\nd"),
            vec![(1, &b"a"[..]), (2, b"b"), (3, b"c"), (4, b"d")]
        );
        assert_eq!(lines(b"a\r\n"), vec![(1, &b"a"[..]), (2, b"")]);
        assert_eq!(
            lines(b"a\r\r\nb"),
            vec![(1, &b"a"[..]), (2, b""), (3, b"b")]
        );
        assert_eq!(lines(b"a\n\rb"), vec![(1, &b"a"[..]), (2, b""), (3, b"b")]);
        assert_eq!(lines(b""), vec![(1, &b""[..])]);
    }

    #[test]
    fn bom_and_partial_bom() {
        assert_eq!(lines(b"\xEF\xBB\xBFa"), vec![(1, &b"a"[..])]);
        assert_eq!(lines(b"\xEF\xBBa"), vec![(1, &b"a"[..])]);
        assert_eq!(lines(b"\xEFa"), vec![(1, &b"a"[..])]);
        assert_eq!(lines(b"\xBB\xBFa"), vec![(1, &b"\xBB\xBFa"[..])]);
        assert_eq!(lines(b"a\xEF\xBB\xBF"), vec![(1, &b"a\xEF\xBB\xBF"[..])]);
    }

    #[test]
    fn long_lines_are_cut() {
        let mut b = vec![b'x'; MAX_LINE_LEN + 10];
        b.extend_from_slice(b"\ny");
        let l: Vec<Line> = Lines::new(&b).collect();
        assert_eq!(l[0].text.len(), MAX_LINE_LEN);
        assert_eq!(l[0].cut, 10);
        assert_eq!(l[1].text, b"y");
    }
}
