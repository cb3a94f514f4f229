//! `robocc compile`: robots.txt → policy artifact.

use super::{read_file, SourceArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct CompileArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Where to write the policy artifact.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Do not print diagnostics.
    #[arg(short, long)]
    quiet: bool,
}

/// Compiles `args.source` and returns it with its robots.txt path.
pub fn compile_source(source: &SourceArgs) -> Result<(robocc_compiler::Compiled, PathBuf), String> {
    let path = source.robots.clone().ok_or("--robots FILE is required")?;
    let agent = source.agent()?;
    let body = read_file(&path, "robots.txt")?;
    let compiled = robocc_compiler::compile(&body, &agent, &source.compile_options())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((compiled, path))
}

pub fn run(args: &CompileArgs) -> Result<i32, String> {
    let (compiled, path) = compile_source(&args.source)?;
    if !args.quiet {
        for d in &compiled.diagnostics {
            eprintln!("{}: {}", path.display(), super::show_diagnostic(d));
        }
    }
    let bytes = compiled.to_bytes();
    super::write_replacing(&args.output, &bytes[..], "policy")?;
    if !args.quiet {
        let d = &compiled.data;
        let states: usize = d
            .automata
            .iter()
            .map(|a| a.trans.len() / a.stride as usize)
            .sum();
        eprintln!(
            "{}: {} rules, {} automata, {} states, {} bytes ({})",
            args.output.display(),
            d.rules.len(),
            d.automata.len(),
            states,
            bytes.len(),
            d.header.build
        );
    }
    Ok(0)
}
