//! `robocc store build`: many hosts' robots.txt → one policy store.

use crate::artifacts::open_base_store;
use crate::options::{CompileFlags, Given};
use clap::{Args, Subcommand, ValueEnum};
use robocc_store::warc::{warc_inputs, WarcCounts};
use robocc_store::StoreReport;
use robocc_store::{
    dir_inputs, manifest_inputs, manifest_inputs_from, HostInput, HostNote, InputError,
    InputErrorKind, OnFailure, StoreBuilder, StoreError,
};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;

#[derive(Subcommand)]
pub enum StoreCommand {
    /// Build a store from a directory of <host>.txt files, a JSONL manifest or WARC files.
    #[command(
        after_help = "Examples:\n  robocc store build --agent Googlebot -o hosts.store robots-dir/\n  \
                            robocc store build --agent Googlebot -o hosts.store --manifest fetched.jsonl\n  \
                            robocc store build --agent Googlebot --shards 16 -o hosts.set --manifest fetched.jsonl\n  \
                            robocc store build --agent Googlebot --shards 16 -o hosts.set --warc CC-robots-*.warc.gz\n\n\
                            Manifest lines: {\"host\": \"example.com\", \"status\": 200, \"body_path\": \"example.com.txt\"}\n\
                            (or \"body\": \"...\" inline; optional \"location\" for 3xx, \"fetched_at\"; status 0 = unreachable;\n\
                            4xx allows all, but 429 disallows all, as 5xx and unreachable do;\n\
                            optional \"sha256\": the body's digest, so that --base skips reading unchanged bodies;\n\
                            status 304 keeps the --base store's policy of the host; any other field is an error)"
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
    /// A directory of <host>.txt or <host>_<port>.txt files (a .txt file
    /// whose name is not a host is set aside, with a warning; a file that
    /// cannot be read, a FIFO among them, is its host's failure).
    #[arg(value_name = "DIR", help_heading = "Input")]
    dir: Option<PathBuf>,
    /// A JSONL manifest of fetch results (instead of a directory); - reads
    /// standard input (body_path then relative to the current directory).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "dir",
        help_heading = "Input"
    )]
    manifest: Option<PathBuf>,
    /// Common Crawl robots.txt WARC files (.warc or .warc.gz), read in the
    /// order given: each response record of a /robots.txt is its host's
    /// capture; other records are counted and set aside (instead of a
    /// directory or a manifest). A file cut short keeps the records before
    /// the cut, with a warning.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["dir", "manifest"],
        help_heading = "Input"
    )]
    warc: Vec<PathBuf>,
    /// A previous store for the same agent and options: policies whose
    /// robots.txt is unchanged are copied from it instead of recompiled
    /// (and with a manifest's "sha256", unchanged bodies are not even read);
    /// a host that answered 304 Not Modified keeps its policy from it. The
    /// whole base is validated first (every slot, policy and checksum): a
    /// damaged base is refused, never copied from. One store file: a store
    /// set cannot be a base yet.
    #[arg(long, value_name = "STORE", help_heading = "Input")]
    base: Option<PathBuf>,
    /// Where to write the store: a file (replaced atomically), a FIFO or
    /// device (written through), or - for standard output. With --shards: a
    /// directory (created if absent; an empty one, or a store set whose
    /// files are replaced).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "STORE|DIR",
        help_heading = "Output"
    )]
    output: PathBuf,
    /// Write a store set: N shard stores and an index in the directory -o
    /// names, hosts partitioned by the hash of their key (1 to 65536;
    /// docs/artifact.md, "Store sets"); more shards than hosts is warned
    /// about.
    #[arg(long, value_name = "N", help_heading = "Output")]
    shards: Option<usize>,
    /// Policy for hosts whose robots.txt fails to compile.
    #[arg(long, value_enum, default_value = "disallow", help_heading = "Output")]
    on_failure: OnFailureArg,
    /// Refuse to write a store (with --shards: a shard) larger than this (0:
    /// the format's limit, 4 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = robocc_engine::MAX_FRAMED_LEN,
          help_heading = "Output")]
    max_store_bytes: usize,
    /// Write the store (or set) even when the build read no host and -o
    /// holds a store (or set) with hosts: without it, that is refused, so
    /// that a failed fetch stage does not empty yesterday's store.
    #[arg(long, help_heading = "Output")]
    allow_empty: bool,
    /// No progress bar and no summary.
    #[arg(short, long, conflicts_with = "verbose", help_heading = "Output")]
    quiet: bool,
    /// List every host whose robots.txt failed, was split or was not read
    /// whole, and every duplicate host (not only the counts).
    #[arg(short, long, help_heading = "Output")]
    verbose: bool,
    #[command(flatten)]
    flags: CompileFlags,
}

pub fn run(cmd: &StoreCommand, given: &Given) -> Result<i32, String> {
    let StoreCommand::Build(args) = cmd;
    let each = args.flags.each_agent_given();
    let agent = if each {
        args.flags.each_agents(Some(args.flags.dialect()))?
    } else {
        args.flags.agent()?
    };
    if args.flags.dialect_auto() {
        return Err(
            "--dialect auto reads one robots.txt; a store compiles every host with one \
             dialect: give it (e.g. --dialect rfc9309)"
                .into(),
        );
    }
    let options = args.flags.options(None, given)?;
    let mut inputs_read: Vec<&std::path::Path> = Vec::new();
    inputs_read.extend(args.manifest.as_deref().filter(|m| m.as_os_str() != "-"));
    inputs_read.extend(args.dir.as_deref());
    inputs_read.extend(args.warc.iter().map(PathBuf::as_path));
    // The output is checked before anything is read or compiled (and
    // again when it is written).
    let set_dir = match args.shards {
        Some(n) => Some((n, check_shards(args, n, &inputs_read)?)),
        None => {
            if args.output.is_dir() {
                return Err(format!(
                    "{} is a directory: give a file name for the store (e.g. -o {}), or --shards N to write a store set into it",
                    args.output.display(),
                    args.output.join("hosts.store").display()
                ));
            }
            crate::output::plan_output(&args.output, "store", &inputs_read)?;
            None
        }
    };
    // A directory's files whose name is not a host.
    let mut set_aside: Vec<HostNote> = Vec::new();
    // Each WARC file's counts, once it is read.
    let tally: Rc<RefCell<Vec<(String, WarcCounts)>>> = Rc::default();
    // Each WARC file that ends before its last record does, and where.
    let cuts: Rc<RefCell<Vec<(String, String)>>> = Rc::default();
    let inputs: Box<dyn Iterator<Item = Result<HostInput, InputError>>> =
        match (&args.manifest, &args.dir) {
            _ if !args.warc.is_empty() => {
                let mut files = Vec::new();
                for w in &args.warc {
                    let file = warc_inputs(w).map_err(|e| e.to_string())?;
                    files.push(file.parse_limit(options.parse.max_bytes));
                }
                let tally = Rc::clone(&tally);
                let cuts = Rc::clone(&cuts);
                Box::new(files.into_iter().flat_map(move |mut file| {
                    let tally = Rc::clone(&tally);
                    let cuts = Rc::clone(&cuts);
                    let mut counted = false;
                    std::iter::from_fn(move || {
                        let next = file.next();
                        if next.is_none() && !counted {
                            counted = true;
                            tally
                                .borrow_mut()
                                .push((file.name().to_string(), file.counts()));
                            if let Some(cut) = file.truncated() {
                                cuts.borrow_mut()
                                    .push((file.name().to_string(), cut.to_string()));
                            }
                        }
                        next
                    })
                }))
            }
            (Some(m), _) if m.as_os_str() == "-" => Box::new(manifest_inputs_from(
                std::io::stdin(),
                "standard input",
                std::path::Path::new("."),
            )),
            (Some(m), _) if m.is_dir() => {
                return Err(format!(
                    "{} is a directory, not a manifest: give a directory of <host>.txt \
                     files without --manifest",
                    m.display()
                ))
            }
            (None, Some(d)) if d.is_file() => {
                return Err(format!(
                    "{} is a file, not a directory of <host>.txt files (a JSONL manifest is \
                     read with --manifest FILE)",
                    d.display()
                ))
            }
            (Some(m), _) => Box::new(manifest_inputs(m).map_err(|e| e.to_string())?),
            (None, Some(d)) => {
                let d = dir_inputs(d).map_err(|e| e.to_string())?;
                set_aside = d.set_aside;
                Box::new(d.inputs.into_iter().map(Ok))
            }
            (None, None) => {
                return Err(
                    "nothing to build from: give a directory of <host>.txt files, \
                            --manifest FILE or --warc FILE…"
                        .to_string(),
                )
            }
        };
    let inputs = guard_bodies(args, inputs)?;
    let mut builder = StoreBuilder::new(&agent);
    builder.compile_options(options).each_agent(each);
    let base = match &args.base {
        Some(p) => {
            let base = open_base_store(p)?;
            if !base.agent().eq_ignore_ascii_case(agent.as_str())
                || base.options_hash() != builder.options_fingerprint()
            {
                diag!(
                    "{}: warning: built for agent {} with other options or compiler: no \
                     policy can be reused from it",
                    p.display(),
                    base.agent()
                );
            }
            Some(base)
        }
        None => None,
    };
    let bar = if !args.quiet && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "compiling distinct robots.txt bodies {bar:30} {pos}/{len} \
                 [{elapsed_precise} elapsed, {per_sec}, ETA {eta}]",
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
    builder
        .on_failure(on_failure)
        .base(base.as_ref())
        .progress(Some(&progress));
    let max = if args.max_store_bytes == 0 {
        usize::MAX
    } else {
        args.max_store_bytes
    };
    if let Some((n, was)) = set_dir {
        let (set, report) = builder
            .build_set(inputs, n)
            .map_err(|e| build_error(args, e))?;
        bar.finish_and_clear();
        if report.hosts == 0 {
            refuse_emptying(args)?;
        }
        if let Some((i, s)) = set.shards.iter().enumerate().find(|(_, s)| s.len() > max) {
            return Err(format!(
                "{}: not written: shard {i} would be {} bytes, over --max-store-bytes {}; use more shards or raise the limit",
                args.output.display(),
                s.len(),
                args.max_store_bytes
            ));
        }
        let shards: Vec<&[u8]> = set.shards.iter().map(|s| &s[..]).collect();
        crate::output::write_set(&args.output, &was, &shards, &set.index)?;
        if !args.quiet {
            summary(args, &report, &tally.borrow());
        }
        warnings(args, &report, &tally.borrow(), &set_aside);
        cut_files(&cuts.borrow());
        if n > report.hosts {
            // Not refused: a pipeline with a fixed N may have a small day.
            diag!(
                "{}: warning: --shards {n} for {} hosts: at least {} of the {n} shard files \
                 hold no host; fewer shards would do",
                args.output.display(),
                report.hosts,
                n - report.hosts
            );
        }
        return Ok(0);
    }
    let (bytes, report) = builder.build(inputs).map_err(|e| build_error(args, e))?;
    bar.finish_and_clear();
    if report.hosts == 0 {
        refuse_emptying(args)?;
    }
    if bytes.len() > max {
        return Err(format!(
            "{}: not written: the store would be {} bytes, over --max-store-bytes {}; \
             split the hosts into several stores or raise the limit",
            args.output.display(),
            bytes.len(),
            args.max_store_bytes
        ));
    }
    crate::output::write_output(&args.output, &bytes[..], "store", &inputs_read)?;
    if !args.quiet {
        summary(args, &report, &tally.borrow());
    }
    warnings(args, &report, &tally.borrow(), &set_aside);
    cut_files(&cuts.borrow());
    Ok(0)
}

/// WARC files cut short (a download that broke off): their records up to
/// the cut are in the store, the rest is missing, so said even with
/// --quiet.
fn cut_files(cuts: &[(String, String)]) {
    for (name, at) in cuts {
        diag!(
            "{name}: warning: the file is cut short: it ends {at}; the records before the cut \
             are read, the rest is missing (download the file again)"
        );
    }
}

/// A build that read no host does not replace a store (or set) that has
/// hosts unless `--allow-empty` says so: an empty manifest is what a failed
/// fetch stage leaves, and an empty store answers "unknown" for every host.
/// Nothing, an empty file, or an empty store may be replaced; so may a
/// FIFO or standard output (nothing is lost there).
fn refuse_emptying(args: &BuildArgs) -> Result<(), String> {
    if args.allow_empty {
        return Ok(());
    }
    match robocc_store::output::hosts_held(&args.output) {
        None => Ok(()),
        Some(held) => Err(robocc_store::output::emptying_refused(
            &args.output,
            &held,
            "--allow-empty",
        )),
    }
}

/// A build's error, with what to do when the input or the base is damaged.
fn build_error(args: &BuildArgs, e: StoreError) -> String {
    match &e {
        StoreError::Base(_) => format!(
            "--base {}: {e}: rebuild it, or build without --base (every body is then read \
             and compiled, and a 304 has no policy to keep)",
            args.base
                .as_deref()
                .unwrap_or(std::path::Path::new("-"))
                .display()
        ),
        StoreError::Input(InputError {
            kind: InputErrorKind::Damaged(_),
            ..
        }) => format!(
            "{e}: the file is damaged (or was cut or appended to in transfer): download it \
             again, or leave it out of --warc"
        ),
        _ => e.to_string(),
    }
}

/// What deserves a word even with --quiet: a WARC file without a single
/// robots.txt capture (an empty download, the wrong file), a build of no
/// host at all.
fn warnings(
    args: &BuildArgs,
    report: &StoreReport,
    files: &[(String, WarcCounts)],
    set_aside: &[HostNote],
) {
    let out = crate::output::output_name(&args.output);
    // A file left out, or a body that could not be read, changes answers
    // (unknown, or the --on-failure policy): said even with --quiet.
    for n in set_aside
        .iter()
        .take(if args.verbose { usize::MAX } else { 5 })
    {
        diag!("{}: warning: set aside (not a host): {}", n.host, n.note);
    }
    if set_aside.len() > 5 && !args.verbose {
        diag!(
            "{out}: warning: {} files set aside in all (their names are not hosts); --verbose \
             lists them",
            set_aside.len()
        );
    }
    if report.bodies_unreadable > 0 {
        diag!(
            "{out}: warning: {} body files could not be read: their hosts get the --on-failure \
             policy (the summary lists them with the file)",
            report.bodies_unreadable
        );
    }
    for (name, c) in files.iter().filter(|(_, c)| c.captures == 0) {
        if c.records == 0 {
            diag!("{name}: warning: no WARC record in it: is it the file you meant?");
        } else {
            diag!(
                "{name}: warning: no robots.txt capture in its {} records (set aside: {c}): is \
                 it a robots.txt WARC file?",
                c.records
            );
        }
    }
    if report.hosts == 0 {
        diag!(
            "{}: warning: no host was read: the store is empty",
            crate::output::output_name(&args.output)
        );
    }
    // A 304 with no policy to keep becomes disallow all: an answer the
    // crawler did not ask for, so said even with --quiet.
    let lost = &report.not_modified_lost;
    if !lost.is_empty() {
        let shown: Vec<String> = lost
            .iter()
            .take(5)
            .map(|n| format!("{} ({})", n.host, n.note))
            .collect();
        let more = if lost.len() > shown.len() {
            format!(
                "; and {} more (--verbose lists them)",
                lost.len() - shown.len()
            )
        } else {
            String::new()
        };
        diag!(
            "{}: warning: {} hosts answered 304 Not Modified with no policy to keep: \
             unreachable (disallow all): {}{more}",
            crate::output::output_name(&args.output),
            lost.len(),
            shown.join(", ")
        );
        if args.verbose {
            for n in lost.iter().skip(5) {
                diag!(
                    "  not modified (304), no policy to keep: {}: {}",
                    n.host,
                    n.note
                );
            }
        }
    }
}

/// `--shards N`: N in range, no flag that a set cannot take, and an output
/// directory a set may be written to.
fn check_shards(
    args: &BuildArgs,
    n: usize,
    inputs: &[&std::path::Path],
) -> Result<crate::output::SetDir, String> {
    if n == 0 || n > robocc_engine::MAX_SHARDS {
        return Err(format!(
            "--shards {n}: a store set has 1 to {} shards",
            robocc_engine::MAX_SHARDS
        ));
    }
    if args.output.as_os_str() == "-" {
        return Err(
            "--shards writes a directory of shard stores, not standard output: give -o DIR".into(),
        );
    }
    if args.base.is_some() {
        return Err(
            "--base with --shards is not supported yet: build the set without --base".into(),
        );
    }
    crate::output::check_set_dir(&args.output, n, inputs)
}

fn summary(args: &BuildArgs, report: &StoreReport, files: &[(String, WarcCounts)]) {
    let shards = args
        .shards
        .map(|n| format!(" in {n} shards and {}", robocc_engine::STORE_SET_INDEX))
        .unwrap_or_default();
    diag!(
        "{}: {} hosts, {} unique policies (dedup {:.1}x), {} bytes{shards}\n  hosts: {}\n  \
         policies compiled {}, reused from the base store {}; on the split path {} \
         ({} hosts)",
        crate::output::output_name(&args.output),
        report.hosts,
        report.unique_policies,
        report.dedup_ratio(),
        report.bytes,
        report.by_source,
        report.compiled,
        report.reused,
        report.split_policies,
        report.split.len(),
    );
    let list = |what: &str, notes: &[robocc_store::HostNote], hint: &str| {
        if notes.is_empty() {
            return;
        }
        if args.verbose {
            for n in notes {
                diag!("  {what}: {}: {}", n.host, n.note);
            }
        } else {
            diag!("  {what}: {} hosts{hint}", notes.len());
        }
    };
    if report.bodies_skipped > 0 {
        diag!(
            "  body files read {}, not read {} (their \"sha256\" named a policy of the base \
             store)",
            report.bodies_read,
            report.bodies_skipped
        );
    }
    if report.not_modified > 0 {
        diag!(
            "  not modified (304): {} hosts keep the base store's policy",
            report.not_modified
        );
    }
    list(
        "not read whole",
        &report.unread,
        " (a limit cut the robots.txt, lines were lost, or it is not text); --verbose lists them",
    );
    list(
        "on the split path",
        if args.verbose { &report.split } else { &[] },
        "",
    );
    // Failures change answers: always listed.
    for f in &report.failures {
        diag!("  failed: {}: {}", f.host, f.note);
    }
    if args.verbose {
        for d in &report.duplicates {
            diag!("  duplicate host (last one kept, unless a redirect to itself): {d}");
        }
    } else if !report.duplicates.is_empty() {
        let mut hosts = report.duplicates.clone();
        hosts.dedup();
        diag!(
            "  duplicate hosts: {} ({} extra inputs; the last one kept, unless a redirect to \
             itself); --verbose lists them",
            hosts.len(),
            report.duplicates.len()
        );
    }
    if !files.is_empty() {
        let mut all = WarcCounts::default();
        for (_, c) in files {
            all.add(c);
        }
        diag!(
            "  WARC records {}: robots.txt captures {}, set aside {} ({all})",
            all.records,
            all.captures,
            all.skipped()
        );
    }
}

/// Refuses a build whose `-o` names one of the bodies it reads (a
/// `<host>.txt` of its directory, even a new one, or a manifest's
/// `body_path`): the store would replace that robots.txt, or the next build
/// would read a store as a host's body. A manifest's bodies are compared as they stream by, by
/// file name first (the output's, and its link target's), so that a
/// million-line manifest costs no extra file system calls; a body_path that
/// is itself a link under another name is not caught.
fn guard_bodies<'a>(
    args: &BuildArgs,
    inputs: Box<dyn Iterator<Item = Result<HostInput, InputError>> + 'a>,
) -> Result<Box<dyn Iterator<Item = Result<HostInput, InputError>> + 'a>, String> {
    let out = args.output.clone();
    if args.shards.is_some() || out.as_os_str() == "-" {
        return Ok(inputs);
    }
    if let Some(dir) = &args.dir {
        // Where the output really is (-o may be a link into the directory),
        // or would be: a new <host>.txt there is read by the next build.
        let real = std::fs::canonicalize(&out).ok().or_else(|| {
            let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
            let parent = std::fs::canonicalize(parent.unwrap_or(std::path::Path::new(".")));
            Some(parent.ok()?.join(out.file_name()?))
        });
        let in_dir = real.as_deref().is_some_and(|r| {
            r.parent().is_some_and(|p| crate::output::same_file(p, dir))
                && r.to_str().is_some_and(|n| n.ends_with(".txt"))
        });
        if in_dir {
            return Err(format!(
                "{} is a <host>.txt of the directory the build reads ({}): the next build \
                 would read the store as that host's robots.txt; write it elsewhere, or name \
                 it *.store",
                out.display(),
                dir.display()
            ));
        }
    }
    if !std::fs::metadata(&out).is_ok_and(|m| m.is_file()) {
        return Ok(inputs);
    }
    let refusal = |out: &std::path::Path, body: &std::path::Path| {
        format!(
            "its body_path {} is the output, -o {}: write the store elsewhere",
            body.display(),
            out.display()
        )
    };
    // The name as given and as its links resolve (-o LINK to a body).
    let names: Vec<std::ffi::OsString> = [Some(out.clone()), std::fs::canonicalize(&out).ok()]
        .into_iter()
        .flatten()
        .filter_map(|p| p.file_name().map(std::ffi::OsStr::to_owned))
        .collect();
    Ok(Box::new(inputs.map(move |r| match r {
        Ok(h)
            if h.body_path.as_deref().is_some_and(|p| {
                p.file_name().is_some_and(|n| names.iter().any(|m| m == n))
                    && crate::output::same_file(p, &out)
            }) =>
        {
            let body = h.body_path.unwrap_or_default();
            Err(InputError {
                at: format!("host {:?}", h.host),
                kind: robocc_store::InputErrorKind::Refused(refusal(&out, &body)),
            })
        }
        r => r,
    })))
}
