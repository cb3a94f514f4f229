//! `robocc check`: URLs → `allow`/`disallow` lines.

use super::compile::compile_source;
use super::{error, SourceArgs, EXIT_USAGE};
use clap::Args;
use robocc_engine::Policy;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A compiled policy to check against (instead of --robots).
    #[arg(long, value_name = "FILE", conflicts_with = "robots")]
    policy: Option<PathBuf>,
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

pub fn run(args: &CheckArgs) -> Result<i32, String> {
    let compiled_bytes;
    let policy = match &args.policy {
        Some(path) => Policy::open(path).map_err(|e| e.to_string())?,
        None => {
            let (compiled, _) = compile_source(&args.source)?;
            compiled_bytes = compiled.to_bytes();
            Policy::from_bytes(&compiled_bytes).map_err(|e| e.to_string())?
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut any_disallowed = false;
    let mut emit = |url: &[u8], out: &mut BufWriter<std::io::StdoutLock>| -> std::io::Result<()> {
        let v = policy.check(url);
        any_disallowed |= !v.allowed;
        out.write_all(if v.allowed { b"allow\t" } else { b"disallow\t" })?;
        out.write_all(url)?;
        out.write_all(b"\n")
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
