//! `robocc store build`: many hosts' robots.txt → one policy store.

use super::SourceArgs;
use clap::{Args, Subcommand, ValueEnum};
use robocc_compiler::store::{
    build_store, inputs_from_dir, manifest_inputs, HostInput, InputError, OnFailure, StoreOptions,
};
use robocc_engine::Store;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum StoreCommand {
    /// Build a store from a directory of <host>.txt files or a JSONL manifest.
    #[command(
        after_help = "Examples:\n  robocc store build --agent Googlebot -o hosts.store robots-dir/\n  \
                            robocc store build --agent Googlebot -o hosts.store --manifest fetched.jsonl\n\n\
                            Manifest lines: {\"host\": \"example.com\", \"status\": 200, \"body_path\": \"example.com.txt\"}\n\
                            (or \"body\": \"...\" inline; optional \"location\" for 3xx, \"fetched_at\"; status 0 = unreachable)"
    )]
    Build(BuildArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum OnFailureArg {
    Allow,
    Disallow,
}

#[derive(Args)]
pub struct BuildArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Where to write the store.
    #[arg(short = 'o', long = "output", value_name = "STORE")]
    output: PathBuf,
    /// A JSONL manifest of fetch results (instead of a directory).
    #[arg(long, value_name = "FILE", conflicts_with = "dir")]
    manifest: Option<PathBuf>,
    /// A directory of <host>.txt or <host>_<port>.txt files.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Policy for hosts whose robots.txt fails to compile.
    #[arg(long, value_enum, default_value = "disallow")]
    on_failure: OnFailureArg,
    /// No progress bar and no summary.
    #[arg(short, long)]
    quiet: bool,
    /// Refuse to write a store larger than this (the format's limit is 4 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = robocc_engine::MAX_FRAMED_LEN)]
    max_store_bytes: usize,
    /// A previous store for the same agent and options: policies whose
    /// robots.txt is unchanged are copied from it instead of recompiled.
    #[arg(long, value_name = "STORE")]
    base: Option<PathBuf>,
}

pub fn run(cmd: &StoreCommand) -> Result<i32, String> {
    let StoreCommand::Build(args) = cmd;
    let agent = args.source.agent()?;
    let inputs: Box<dyn Iterator<Item = Result<HostInput, InputError>>> =
        match (&args.manifest, &args.dir) {
            (Some(m), _) => Box::new(manifest_inputs(m).map_err(|e| e.to_string())?),
            (None, Some(d)) => Box::new(
                inputs_from_dir(d)
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .map(Ok),
            ),
            (None, None) => return Err("give a directory or --manifest FILE".to_string()),
        };
    let base = match &args.base {
        Some(p) => Some(Store::open(p).map_err(|e| e.to_string())?),
        None => None,
    };
    let bar = if !args.quiet && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "compiling distinct bodies {bar:30} {pos}/{len} [{elapsed_precise}, {per_sec}, ETA {eta}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let on_failure = match args.on_failure {
        OnFailureArg::Allow => OnFailure::Allow,
        OnFailureArg::Disallow => OnFailure::Disallow,
    };
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let options = StoreOptions {
        on_failure,
        base: base.as_ref(),
        progress: Some(&progress),
    };
    let (bytes, report) = build_store(inputs, &agent, &args.source.compile_options(), &options)
        .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    if bytes.len() > args.max_store_bytes {
        return Err(format!(
            "{}: not written: the store would be {} bytes, over --max-store-bytes {}; \
             split the hosts into several stores or raise the limit",
            args.output.display(),
            bytes.len(),
            args.max_store_bytes
        ));
    }
    super::write_replacing(&args.output, &bytes[..], "store")?;
    if !args.quiet {
        eprintln!(
            "{}: {} hosts, {} unique policies (dedup {:.1}x), {} bytes\n  {}\n  \
             compiled {}, reused from the base store {}; hosts on the split path {}",
            args.output.display(),
            report.hosts,
            report.unique_policies,
            report.dedup_ratio(),
            report.bytes,
            report.by_source,
            report.compiled,
            report.reused,
            report.split.len(),
        );
        for f in &report.failures {
            eprintln!("  failed: {}: {}", f.host, f.note);
        }
        for d in &report.duplicates {
            eprintln!("  duplicate host (last one kept): {d}");
        }
    }
    Ok(0)
}
