//! `robocc survey`: a row per host of a store of each-agent policies (or of
//! a manifest or WARC files, compiled each-agent on the fly), written by
//! the store crate's `survey` writers; the summary goes to standard error.

use crate::artifacts::open_store;
use crate::options::{CompileFlags, Given};
use clap::{Args, ValueEnum};
use robocc_engine::Store;
use robocc_store::survey::{Format, Summary, Survey, SurveyOptions};
use robocc_store::warc::warc_inputs;
use robocc_store::{manifest_inputs, HostInput, InputError, StoreBuilder};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Csv,
    Jsonl,
}

#[derive(Args)]
pub struct SurveyArgs {
    /// A store of each-agent policies (`store build --each-agent A…`)
    /// answering every agent surveyed.
    #[arg(
        long,
        value_name = "STORE",
        conflicts_with_all = ["manifest", "warc"],
        help_heading = "Input"
    )]
    store: Option<PathBuf>,
    /// A JSONL manifest of fetch results (as `store build --manifest`),
    /// compiled each-agent for the agents surveyed.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "warc",
        help_heading = "Input"
    )]
    manifest: Option<PathBuf>,
    /// Common Crawl robots.txt WARC files (as `store build --warc`),
    /// compiled each-agent for the agents surveyed.
    #[arg(long, value_name = "FILE", num_args = 1.., help_heading = "Input")]
    warc: Vec<PathBuf>,
    /// A probe path, answered per agent (repeatable; default `/`).
    #[arg(long = "path", value_name = "PATH", help_heading = "Output")]
    paths: Vec<String>,
    /// The rows' format (docs/survey.md, "Columns").
    #[arg(long, value_enum, default_value = "csv", help_heading = "Output")]
    format: FormatArg,
    /// Where to write the rows: a file (replaced atomically), a new path, a
    /// FIFO, or - for standard output (not a terminal).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        help_heading = "Output"
    )]
    output: PathBuf,
    /// Most states explored per policy for the classes; a policy over it
    /// gets the class `unknown` (0: no limit).
    #[arg(long, value_name = "N", default_value_t = robocc_compiler::reach::DEFAULT_MAX_STATES,
          help_heading = "Output")]
    max_reach_states: usize,
    /// No summary on standard error.
    #[arg(short, long, help_heading = "Output")]
    quiet: bool,
    #[command(flatten)]
    flags: CompileFlags,
}

pub fn run(args: &SurveyArgs, given: &Given) -> Result<i32, String> {
    if !args.flags.each_agent_given() {
        return Err("survey answers each agent: give the agents with --each-agent A…".into());
    }
    let agents = args.flags.each_agents(Some(args.flags.dialect()))?;
    let mut inputs_read: Vec<&std::path::Path> = Vec::new();
    inputs_read.extend(args.store.as_deref());
    inputs_read.extend(args.manifest.as_deref());
    inputs_read.extend(args.warc.iter().map(PathBuf::as_path));
    crate::output::plan_output(&args.output, "survey", &inputs_read)?;
    let store = match (&args.store, &args.manifest) {
        (Some(s), _) => open_store(s)?,
        (None, manifest) => {
            if args.flags.dialect_auto() {
                return Err(
                    "--dialect auto reads one robots.txt; a survey compiles every host with \
                     one dialect: give it (e.g. --dialect rfc9309)"
                        .into(),
                );
            }
            let options = args.flags.options(None, given)?;
            let inputs: Box<dyn Iterator<Item = Result<HostInput, InputError>>> = match manifest {
                Some(m) => Box::new(manifest_inputs(m).map_err(|e| e.to_string())?),
                None if !args.warc.is_empty() => {
                    let mut files = Vec::new();
                    for w in &args.warc {
                        let file = warc_inputs(w).map_err(|e| e.to_string())?;
                        files.push(file.parse_limit(options.parse.max_bytes));
                    }
                    Box::new(files.into_iter().flatten())
                }
                None => {
                    return Err("nothing to survey: give --store STORE, --manifest FILE or \
                             --warc FILE…"
                        .into())
                }
            };
            let (bytes, _) = StoreBuilder::new(&agents)
                .compile_options(options)
                .each_agent(true)
                .build(inputs)
                .map_err(|e| e.to_string())?;
            Store::from_slice(&bytes).map_err(|e| e.to_string())?
        }
    };
    let mut options = SurveyOptions::new(agents.iter());
    if !args.paths.is_empty() {
        options.paths = args.paths.clone();
    }
    options.max_states = args.max_reach_states;
    let survey = Survey::new(&store, options).map_err(|e| e.to_string())?;
    let format = match args.format {
        FormatArg::Csv => Format::Csv,
        FormatArg::Jsonl => Format::Jsonl,
    };
    let mut out = Vec::new();
    let mut summary = Summary::new(&survey.options().agents);
    let fail = |e: std::io::Error| e.to_string();
    survey.write_header(format, &mut out).map_err(fail)?;
    for row in survey.rows() {
        let row = row.map_err(|e| e.to_string())?;
        summary.add(&row);
        survey.write_row(format, &row, &mut out).map_err(fail)?;
    }
    crate::output::write_output(&args.output, &out, "survey", &inputs_read)?;
    if !args.quiet {
        diag!("{summary}");
    }
    Ok(0)
}
