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
        .map_err(|e| format!("{}: {e}{}", path.display(), budget_hint(&e)))?;
    Ok((compiled, path))
}

/// The flag that raises the limit a compile ran into, as advice.
pub fn budget_hint(e: &robocc_compiler::CompileError) -> String {
    use robocc_compiler::lower::BudgetExceeded as B;
    let robocc_compiler::CompileError::Budget(b) = e else {
        return String::new();
    };
    let flag = match b.exceeded {
        B::States(_) | B::Threads(_) => "--max-states",
        B::Time(_) => "--compile-timeout",
        B::Automata(_) => "--max-automata",
        B::TableBytes(_) => "--max-table-bytes",
    };
    format!(" (raise the limit with {flag})")
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
        let policy = robocc_engine::Policy::from_bytes(&bytes).map_err(|e| e.to_string())?;
        let sizes = policy.sizes();
        let h = policy.header();
        eprintln!(
            "{}: {} rules, {} automat{}, {} program bytes, {} bytes in all",
            args.output.display(),
            policy.rule_count(),
            h.automata,
            if h.automata == 1 { "on" } else { "a" },
            sizes.program_bytes,
            bytes.len(),
        );
    }
    Ok(0)
}
