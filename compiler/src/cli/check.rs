//! `robocc check`: URLs → `allow`/`disallow` lines (or JSON objects).

use super::compile::compile_source;
use super::{error, SourceArgs, EXIT_USAGE};
use clap::{Args, ValueEnum};
use robocc_engine::{Policy, PolicyFile, Store};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A compiled policy to check against (instead of --robots).
    #[arg(long, value_name = "FILE", conflicts_with = "robots")]
    policy: Option<PathBuf>,
    /// A policy store: each URL is checked against its host's policy.
    #[arg(long, value_name = "STORE", conflicts_with_all = ["robots", "policy"])]
    store: Option<PathBuf>,
    /// With --store: the verdict for hosts the store does not have.
    #[arg(long, value_enum, default_value = "unknown")]
    missing: Missing,
    /// Output: `text` (verdict<TAB>URL) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Read URLs from FILE, one per line (default: the arguments, else stdin).
    #[arg(long, value_name = "FILE")]
    urls: Option<PathBuf>,
    /// Exit with 1 when any URL is disallowed.
    #[arg(long)]
    fail_on_disallow: bool,
    /// URLs to check.
    #[arg(value_name = "URL")]
    url: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Missing {
    /// Hosts not in the store are allowed.
    Allow,
    /// Hosts not in the store are disallowed.
    Disallow,
    /// Print `unknown` for them.
    Unknown,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// Where verdicts come from.
enum Source {
    Policy(PolicyFile),
    Store(Store),
}

/// A verdict as printed: `Some(allowed)` or unknown, and the deciding line.
fn judge(
    src: &Source,
    url: &[u8],
    missing: Missing,
) -> Result<(Option<bool>, Option<u32>), String> {
    Ok(match src {
        Source::Policy(p) => verdict_of(&p.policy(), url),
        Source::Store(s) => match s.policy_for(url).map_err(|e| e.to_string())? {
            Some(p) => verdict_of(&p, url),
            None => match missing {
                Missing::Allow => (Some(true), None),
                Missing::Disallow => (Some(false), None),
                Missing::Unknown => (None, None),
            },
        },
    })
}

fn verdict_of(p: &Policy<'_>, url: &[u8]) -> (Option<bool>, Option<u32>) {
    let v = p.check(url);
    let line = v.rule.and_then(|r| p.rule(r)).map(|r| r.line);
    (Some(v.allowed), line)
}

/// A load error, with the flag that reads the file when it is the other
/// kind of robocc file.
fn kind_hint(e: robocc_engine::LoadError) -> String {
    use robocc_engine::{FileKind, LoadErrorKind};
    match e.kind() {
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Policy),
        } => format!("{e} (check it with --policy FILE)"),
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Store),
        } => format!("{e} (check it with --store FILE)"),
        _ => e.to_string(),
    }
}

pub fn run(args: &CheckArgs) -> Result<i32, String> {
    let source = match (&args.policy, &args.store) {
        (Some(path), _) => Source::Policy(PolicyFile::open(path).map_err(kind_hint)?),
        (None, Some(path)) => Source::Store(Store::open(path).map_err(kind_hint)?),
        (None, None) => {
            let (compiled, _) = compile_source(&args.source)?;
            Source::Policy(PolicyFile::from_slice(&compiled.to_bytes()).map_err(|e| e.to_string())?)
        }
    };
    let mut failure: Option<String> = None;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut any_disallowed = false;
    let json = args.format == Format::Json;
    let mut emit = |url: &[u8], out: &mut BufWriter<std::io::StdoutLock>| -> std::io::Result<()> {
        let (allowed, line) = match judge(&source, url, args.missing) {
            Ok(v) => v,
            Err(e) => {
                failure = Some(e);
                return Err(std::io::Error::other("store policy refused"));
            }
        };
        any_disallowed |= allowed == Some(false);
        let word = match allowed {
            Some(true) => "allow",
            Some(false) => "disallow",
            None => "unknown",
        };
        if json {
            let obj = serde_json::json!({
                "url": String::from_utf8_lossy(url),
                "verdict": word,
                "rule_line": line,
            });
            writeln!(out, "{obj}")
        } else {
            out.write_all(word.as_bytes())?;
            out.write_all(b"\t")?;
            out.write_all(url)?;
            out.write_all(b"\n")
        }
    };
    let io_result = if !args.url.is_empty() && args.urls.is_none() {
        args.url
            .iter()
            .try_for_each(|u| emit(u.as_bytes(), &mut out))
    } else {
        let reader: Box<dyn Read> = match &args.urls {
            Some(path) => Box::new(
                std::fs::File::open(path)
                    .map_err(|e| format!("cannot read URL list {}: {e}", path.display()))?,
            ),
            None => Box::new(std::io::stdin()),
        };
        // Streams: one line in memory at a time, whatever the file's size.
        let mut reader = BufReader::with_capacity(1 << 16, reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break Ok(()),
                Ok(_) => {
                    let url = trim_line_end(&line);
                    if url.is_empty() {
                        continue;
                    }
                    if let Err(e) = emit(url, &mut out) {
                        break Err(e);
                    }
                }
                Err(e) => {
                    error(&format!("cannot read URLs: {e}"));
                    return Ok(EXIT_USAGE);
                }
            }
        }
    };
    if let Some(e) = failure {
        let _ = out.flush();
        return Err(e);
    }
    match io_result.and_then(|()| out.flush()) {
        Ok(()) => {}
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
        Err(e) => return Err(format!("cannot write output: {e}")),
    }
    Ok(if args.fail_on_disallow && any_disallowed {
        1
    } else {
        0
    })
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let mut l = line;
    while let [rest @ .., b'\n' | b'\r'] = l {
        l = rest;
    }
    l
}
