//! Command lines of the bench binaries: `-h`/`--help` prints the usage line,
//! and a missing or malformed value, an unknown option or an unreadable file
//! ends the process with a message and status 2 instead of a panic.

use std::str::FromStr;

/// The arguments after the program name, read one by one.
pub struct Args {
    usage: &'static str,
    rest: std::iter::Skip<std::env::Args>,
}

impl Args {
    /// The process's arguments; `usage` is the line printed for `--help` and
    /// after an error (without the leading "usage: ").
    pub fn new(usage: &'static str) -> Self {
        Args {
            usage,
            rest: std::env::args().skip(1),
        }
    }

    /// The value after option `flag`, parsed.
    pub fn value<T: FromStr>(&mut self, flag: &str) -> T {
        let Some(v) = self.rest.next() else {
            self.fail(&format!("{flag} needs a value"));
        };
        v.parse()
            .unwrap_or_else(|_| self.fail(&format!("{flag}: cannot read {v:?}")))
    }

    /// The value after option `flag`, a number in `range` (a count of 0
    /// measures nothing; a huge one would only fail to allocate).
    pub fn number(&mut self, flag: &str, range: std::ops::RangeInclusive<usize>) -> usize {
        let n: usize = self.value(flag);
        if !range.contains(&n) {
            self.fail(&format!(
                "{flag} {n}: give {} to {}",
                range.start(),
                range.end()
            ));
        }
        n
    }

    /// The value after `--urls`: URLs per workload.
    pub fn urls(&mut self) -> usize {
        self.number("--urls", 1..=10_000_000)
    }

    /// The value after `--rounds`: timed rounds.
    pub fn rounds(&mut self) -> usize {
        self.number("--rounds", 1..=100_000)
    }

    /// The FILE operands, in turn: each one's file name and bytes, read
    /// when the loop reaches it (an unreadable one ends the process then).
    /// No FILE at all ends the process now.
    pub fn files(&self, files: Vec<String>) -> impl Iterator<Item = (String, Vec<u8>)> {
        if files.is_empty() {
            self.fail("no FILE given");
        }
        files.into_iter().map(|file| {
            let body = read(&file);
            let name = std::path::Path::new(&file)
                .file_name()
                .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
            (name, body)
        })
    }

    /// `a`, an operand: an argument that starts with `-` is an option this
    /// binary does not know.
    pub fn operand(&self, a: String) -> String {
        if a.starts_with('-') && a != "-" {
            self.fail(&format!("unknown option {a}"));
        }
        a
    }

    /// The value after `--layout`.
    pub fn layout(&mut self) -> robocc_compiler::Layout {
        match self.value::<String>("--layout").as_str() {
            "auto" => robocc_compiler::Layout::Auto,
            "dense" => robocc_compiler::Layout::Dense,
            "compact" => robocc_compiler::Layout::Compact,
            other => self.fail(&format!(
                "--layout: {other:?} is not auto, compact or dense"
            )),
        }
    }

    /// Ends the process: `message`, the usage line, status 2.
    pub fn fail(&self, message: &str) -> ! {
        eprintln!("error: {message}\nusage: {}", self.usage);
        std::process::exit(2);
    }
}

/// The arguments in turn; `-h` or `--help` prints the usage and exits 0.
impl Iterator for Args {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let a = self.rest.next()?;
        if a == "-h" || a == "--help" {
            println!("usage: {}", self.usage);
            std::process::exit(0);
        }
        Some(a)
    }
}

/// Ends the process: `message`, status 2.
pub fn die(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

/// The bytes of `path`, or the end of the process with the reason.
pub fn read(path: impl AsRef<std::path::Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| die(&format!("{}: {e}", path.display())))
}

/// Writes `bytes` to `path`, or ends the process with the reason.
pub fn write(path: impl AsRef<std::path::Path>, bytes: impl AsRef<[u8]>) {
    let path = path.as_ref();
    std::fs::write(path, bytes).unwrap_or_else(|e| die(&format!("{}: {e}", path.display())))
}
