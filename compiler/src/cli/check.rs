//! `robocc check`: URLs → `allow`/`disallow` lines (or JSON objects).

use super::compile::compile_source;
use super::{
    error, open_policy, open_store, open_store_set, Built, CompileFlags, Given, EXIT_USAGE,
};
use clap::{Args, ValueEnum};
use robocc_engine::{HostSource, Policy, PolicyFile, Store, StoreSet};
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    /// The robots.txt to check against (compiled on the fly).
    #[arg(long, value_name = "FILE", help_heading = "Input (one of)")]
    robots: Option<PathBuf>,
    /// A compiled policy to check against (robocc compile).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "robots",
        help_heading = "Input (one of)"
    )]
    policy: Option<PathBuf>,
    /// A policy store, or a store set's directory: each URL is checked
    /// against its host's policy.
    #[arg(long, value_name = "STORE|DIR", conflicts_with_all = ["robots", "policy"],
          help_heading = "Input (one of)")]
    store: Option<PathBuf>,
    /// With --store: the verdict for hosts the store does not have.
    #[arg(
        long,
        value_enum,
        default_value = "unknown",
        help_heading = "Input (one of)"
    )]
    missing: Missing,
    /// Read URLs from FILE (- for stdin), one per line; blank lines and lines
    /// starting with # are skipped. Default: the URL arguments, else stdin.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "url",
        help_heading = "URLs"
    )]
    urls: Option<PathBuf>,
    /// URLs to check.
    #[arg(value_name = "URL", help_heading = "URLs")]
    url: Vec<String>,
    /// Output: `text` (verdict<TAB>URL) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// Exit with 1 when any URL is disallowed.
    #[arg(long, help_heading = "Output")]
    fail_on_disallow: bool,
    /// Print every diagnostic of the robots.txt, not three per kind.
    #[arg(short, long, help_heading = "Output")]
    verbose: bool,
    #[command(flatten)]
    flags: CompileFlags,
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
    /// A store set: each URL is judged by the shard of its host.
    Set(StoreSet),
}

/// A verdict as printed.
struct Judged {
    /// `Some(allowed)`, or unknown.
    allowed: Option<bool>,
    /// The deciding rule's line in the host's robots.txt.
    line: Option<u32>,
    /// With a store: why the host has its policy, and the status given.
    host: Option<Option<(HostSource, u16)>>,
}

fn judge(src: &Source, url: &[u8], missing: Missing) -> Result<Judged, String> {
    Ok(match src {
        Source::Policy(p) => {
            let (allowed, line) = verdict_of(&p.policy(), url);
            Judged {
                allowed,
                line,
                host: None,
            }
        }
        Source::Store(s) => judge_store(s, url, missing)?,
        Source::Set(set) => match set.store_for(url).map_err(|e| e.to_string())? {
            Some(s) => judge_store(s, url, missing)?,
            // No host: not in the set, as a single store says.
            None => not_in_store(missing),
        },
    })
}

fn not_in_store(missing: Missing) -> Judged {
    Judged {
        allowed: match missing {
            Missing::Allow => Some(true),
            Missing::Disallow => Some(false),
            Missing::Unknown => None,
        },
        line: None,
        host: Some(None),
    }
}

fn judge_store(s: &Store, url: &[u8], missing: Missing) -> Result<Judged, String> {
    let Some(host) = s.host(url).map_err(|e| e.to_string())? else {
        return Ok(not_in_store(missing));
    };
    let p = s.policy(host.policy as usize).map_err(|e| e.to_string())?;
    let (allowed, line) = verdict_of(&p, url);
    // Only a fetched body (or a redirect target's) has lines; the others
    // stand for a status and their lines are robocc's own.
    let has_lines = matches!(host.source, HostSource::Fetched | HostSource::Redirected);
    Ok(Judged {
        allowed,
        line: line.filter(|_| has_lines),
        host: Some(Some((host.source, host.status))),
    })
}

fn verdict_of(p: &Policy<'_>, url: &[u8]) -> (Option<bool>, Option<u32>) {
    let v = p.check(url);
    let line = v.rule.and_then(|r| p.rule(r)).map(|r| r.line);
    (Some(v.allowed), line)
}

/// One JSON object per URL; a URL that is not UTF-8 also comes as its exact
/// bytes (`url_bytes`), since a JSON string cannot hold them.
fn json_line(url: &[u8], word: &str, j: &Judged) -> serde_json::Value {
    let mut obj = serde_json::json!({
        "url": String::from_utf8_lossy(url),
        "verdict": word,
        "rule_line": j.line,
    });
    if std::str::from_utf8(url).is_err() {
        obj["url_bytes"] = serde_json::json!(url);
    }
    if let Some(host) = j.host {
        obj["source"] = serde_json::json!(host.map_or("not in store", |(s, _)| s.name()));
        obj["status"] = serde_json::json!(host.map(|(_, status)| status));
    }
    obj
}

/// Says on stderr when a compiled policy did not read its whole robots.txt.
fn note_cut_policy(path: &std::path::Path, p: &Policy<'_>) {
    let h = p.header();
    if h.max_bytes != 0 && h.source_len > h.max_bytes {
        eprintln!(
            "{}: warning: compiled from the first {} of {} bytes of its robots.txt (the \
             parse limit): rules past that were not read",
            path.display(),
            h.max_bytes,
            h.source_len
        );
    }
}

pub fn run(args: &CheckArgs, given: &Given) -> Result<i32, String> {
    if given.has("missing") && args.store.is_none() {
        return Err("--missing applies to --store only (hosts the store does not have)".into());
    }
    let source = match (&args.robots, &args.policy, &args.store) {
        (_, Some(path), _) => {
            let file = open_policy(path)?;
            let p = file.policy();
            let h = p.header();
            let built = Built {
                agent: h.agent,
                dialect: h.dialect,
                policy: Some(h),
            };
            args.flags
                .check_against(given, &path.display().to_string(), &built)?;
            note_cut_policy(path, &p);
            Source::Policy(file)
        }
        (_, None, Some(path)) if path.is_dir() => {
            let set = open_store_set(path)?;
            let built = Built {
                agent: set.agent(),
                dialect: set.dialect(),
                policy: None,
            };
            args.flags
                .check_against(given, &path.display().to_string(), &built)?;
            Source::Set(set)
        }
        (_, None, Some(path)) => {
            let store = open_store(path)?;
            let built = Built {
                agent: store.agent(),
                dialect: store.dialect(),
                policy: None,
            };
            args.flags
                .check_against(given, &path.display().to_string(), &built)?;
            Source::Store(store)
        }
        (Some(path), None, None) => {
            let src = compile_source(path, &args.flags, given)?;
            src.report(false, args.verbose);
            Source::Policy(
                PolicyFile::from_slice(&src.compiled.to_bytes()).map_err(|e| e.to_string())?,
            )
        }
        (None, None, None) => {
            return Err(
                "nothing to check against: give --robots FILE (with --agent), --policy FILE \
                 or --store FILE|DIR"
                    .into(),
            )
        }
    };
    if let Some(i) = args.url.iter().position(String::is_empty) {
        return Err(format!("URL argument {} is empty", i + 1));
    }
    let mut failure: Option<String> = None;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut any_disallowed = false;
    let json = args.format == Format::Json;
    let mut emit = |url: &[u8], out: &mut BufWriter<std::io::StdoutLock>| -> std::io::Result<()> {
        let judged = match judge(&source, url, args.missing) {
            Ok(v) => v,
            Err(e) => {
                failure = Some(e);
                return Err(std::io::Error::other("store policy refused"));
            }
        };
        any_disallowed |= judged.allowed == Some(false);
        let word = match judged.allowed {
            Some(true) => "allow",
            Some(false) => "disallow",
            None => "unknown",
        };
        if json {
            writeln!(out, "{}", json_line(url, word, &judged))
        } else {
            out.write_all(word.as_bytes())?;
            out.write_all(b"\t")?;
            out.write_all(url)?;
            out.write_all(b"\n")
        }
    };
    let from_stdin = args.urls.as_deref().is_none_or(|p| p.as_os_str() == "-");
    let io_result = if args.urls.is_none() && !args.url.is_empty() {
        args.url
            .iter()
            .try_for_each(|u| emit(u.as_bytes(), &mut out))
    } else {
        let reader: Box<dyn Read> = match &args.urls {
            Some(path) if !from_stdin => Box::new(
                std::fs::File::open(path)
                    .map_err(|e| format!("cannot read URL list {}: {e}", path.display()))?,
            ),
            _ => {
                let stdin = std::io::stdin();
                if stdin.is_terminal() {
                    eprintln!("robocc: reading URLs from stdin, one per line (Ctrl-D ends)");
                }
                Box::new(stdin)
            }
        };
        // Streams: one line in memory at a time, whatever the file's size.
        let mut reader = BufReader::with_capacity(1 << 16, reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break Ok(()),
                Ok(_) => {
                    let url = line.trim_ascii();
                    if url.is_empty() || url.starts_with(b"#") {
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
