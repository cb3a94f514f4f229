//! `robocc compile`: robots.txt → policy artifact.

use crate::input::read_robots;
use crate::options::{CompileFlags, Given};
use clap::Args;
use robocc_compiler::{Compiled, CompiledEach, Diagnostic};
use robocc_engine::PolicyFile;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CompileArgs {
    /// The robots.txt file to read (`-`: standard input).
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    robots: PathBuf,
    /// Where to write the policy: a file (replaced atomically), a FIFO or
    /// device (written through), or - for standard output.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        help_heading = "Output"
    )]
    output: PathBuf,
    /// Do not print diagnostics.
    #[arg(short, long, help_heading = "Output", conflicts_with = "verbose")]
    quiet: bool,
    /// Print every diagnostic (not three per kind) and why rules were split.
    #[arg(short, long, help_heading = "Output")]
    verbose: bool,
    #[command(flatten)]
    flags: CompileFlags,
}

/// A robots.txt compiled by the command line: the result and what was read.
pub struct Source {
    pub compiled: Compiled,
    pub path: PathBuf,
    pub body: Vec<u8>,
    pub agent: robocc_compiler::Agents,
    pub options: robocc_compiler::CompileOptions,
}

/// A robots.txt read as the flags say, not compiled yet: the body, and the
/// agent and options it is read for.
pub struct Reading {
    pub body: Vec<u8>,
    pub agent: robocc_compiler::Agents,
    pub options: robocc_compiler::CompileOptions,
}

/// Reads the robots.txt at `path` and settles the agent and options
/// `flags` give for it (`--dialect auto` by the file).
pub fn read_source(path: &Path, flags: &CompileFlags, given: &Given) -> Result<Reading, String> {
    read_source_as(path, flags, given, false)
}

/// [`read_source`] for `--each-agent`: its agents, to be answered each
/// ([`compile_each_reading`]).
pub fn read_source_each(
    path: &Path,
    flags: &CompileFlags,
    given: &Given,
) -> Result<Reading, String> {
    read_source_as(path, flags, given, true)
}

/// [`read_source`]; with `each`, of the `--each-agent` agents (without,
/// `--each-agent` is refused by [`CompileFlags::agent`]).
fn read_source_as(
    path: &Path,
    flags: &CompileFlags,
    given: &Given,
    each: bool,
) -> Result<Reading, String> {
    let mut agent = if each {
        flags.each_agents((!flags.dialect_auto()).then(|| flags.dialect()))?
    } else {
        flags.agent()?
    };
    let mut options = flags.options(Some(path), given)?;
    let body = read_robots(path)?;
    flags.resolve_auto(&mut options, &body, path, given)?;
    if flags.dialect_auto() {
        // Checked before the file was read by the widest rule; now by the
        // dialect the file reads as, with what to type.
        agent = if each {
            flags.each_agents(Some(options.dialect))?
        } else {
            flags.agent_in(options.dialect)?
        };
    }
    Ok(Reading {
        body,
        agent,
        options,
    })
}

/// Why the robots.txt at `path` cannot be compiled (or read), with the
/// flag that raises the limit it ran into.
pub fn compile_error(path: &Path, e: &robocc_compiler::CompileError) -> String {
    format!("{}: {e}{}", path.display(), budget_hint(e))
}

/// Reads and compiles the robots.txt at `path` with `flags`.
pub fn compile_source(path: &Path, flags: &CompileFlags, given: &Given) -> Result<Source, String> {
    compile_reading(path, read_source(path, flags, given)?)
}

/// Compiles the robots.txt read from `path`.
pub fn compile_reading(path: &Path, reading: Reading) -> Result<Source, String> {
    let Reading {
        body,
        agent,
        options,
    } = reading;
    let compiled =
        robocc_compiler::compile(&body, &agent, &options).map_err(|e| compile_error(path, &e))?;
    Ok(Source {
        compiled,
        path: path.to_path_buf(),
        body,
        agent,
        options,
    })
}

/// Compiles the robots.txt read from `path` answering each of its agents
/// (`--each-agent`).
pub fn compile_each_reading(path: &Path, reading: &Reading) -> Result<CompiledEach, String> {
    robocc_compiler::compile_each(&reading.body, reading.agent.iter(), &reading.options)
        .map_err(|e| compile_error(path, &e))
}

/// Prints the findings on the robots.txt at `path` that can change a
/// verdict (all of them with `all`), once, on stderr.
pub fn report(path: &Path, diagnostics: &[Diagnostic], all: bool, verbose: bool) {
    let shown: Vec<_> = diagnostics
        .iter()
        .filter(|d| all || d.code.can_change_verdict())
        .collect();
    crate::diagnostics::print_diagnostics(path, &shown, verbose);
}

impl Source {
    /// The compiled policy, loaded from its artifact bytes.
    pub fn policy_file(&self) -> Result<PolicyFile, String> {
        PolicyFile::from_slice(&self.compiled.to_bytes()).map_err(|e| e.to_string())
    }

    /// Prints the diagnostics that can change a verdict (all of them with
    /// `all`), once, on stderr.
    pub fn report(&self, all: bool, verbose: bool) {
        report(&self.path, &self.compiled.diagnostics, all, verbose);
        if verbose && all {
            let why = &self.compiled.data.header.split_reason;
            if !why.is_empty() {
                diag!(
                    "{}: split because one automaton of all rules: {why}",
                    self.path.display()
                );
            }
        }
    }
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
    format!(" (raise the limit with {flag}, 0 for no limit)")
}

pub fn run(args: &CompileArgs, given: &Given) -> Result<i32, String> {
    let bytes = if args.flags.each_agent_given() {
        let reading = read_source_each(&args.robots, &args.flags, given)?;
        let compiled = compile_each_reading(&args.robots, &reading)?;
        if !args.quiet {
            report(&args.robots, &compiled.diagnostics, true, args.verbose);
        }
        compiled.to_bytes()
    } else {
        let source = compile_source(&args.robots, &args.flags, given)?;
        if !args.quiet {
            source.report(true, args.verbose);
        }
        source.compiled.to_bytes()
    };
    crate::output::write_output(&args.output, &bytes[..], "policy", &[&args.robots])?;
    if !args.quiet {
        let policy = robocc_engine::Policy::from_bytes(&bytes).map_err(|e| e.to_string())?;
        let sizes = policy.sizes();
        let h = policy.header();
        diag!(
            "{}: {} rules, {} automat{}, {} program bytes, {} bytes in all{}",
            crate::output::output_name(&args.output),
            policy.rule_count(),
            h.automata,
            if h.automata == 1 { "on" } else { "a" },
            sizes.program_bytes,
            bytes.len(),
            if policy.is_each_agent() {
                format!(", answering {} agents each", policy.agent_count())
            } else {
                String::new()
            }
        );
    }
    Ok(0)
}
