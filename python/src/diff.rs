//! `robocc.diff`: which URLs a robots.txt change gives another verdict
//! (`robocc_compiler::diff`); `robocc/__init__.py` wraps the tuples in
//! `robocc._types`' typed objects.

use crate::convert;
use crate::options::{kwargs_options, AgentsArg};
use crate::policy::{compile_error, parse_usage};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use robocc_compiler::diff::{Decision, DiffOptions, DEFAULT_MAX_PAIRS};
use robocc_engine::Policy;

/// One side of a change: allowed, rule id, rule line, rule text.
type Side = (bool, Option<u32>, Option<u32>, Option<String>);

/// One change class: both sides, the witness as text and as bytes.
type Class = (Side, Side, String, Vec<u8>);

fn side(d: &Decision) -> Side {
    (
        d.allowed,
        d.rule.map(|r| r.index() as u32),
        d.line,
        d.text.clone(),
    )
}

/// The change classes from `old` to `new` (robots.txt bodies) for
/// `agent` on `usage`: `(old side, new side, witness text, witness
/// bytes)` each, shortest witnesses first. `options`: `robocc.compile`'s
/// keywords.
#[pyfunction]
#[pyo3(signature = (old, new, agent, usage = "crawl", max_pairs = DEFAULT_MAX_PAIRS, **options))]
pub fn diff(
    py: Python<'_>,
    old: &Bound<'_, PyAny>,
    new: &Bound<'_, PyAny>,
    agent: AgentsArg,
    usage: &str,
    max_pairs: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Class>> {
    let usage = parse_usage(usage)?;
    let compile_options = kwargs_options("diff", options)?;
    let agents = agent.get()?;
    crate::check_agent(py, &agents, compile_options.dialect)?;
    let (old, new) = (
        convert::robots_body(old, "old")?,
        convert::robots_body(new, "new")?,
    );
    let compile = |body: &[u8]| {
        robocc_compiler::compile(body, &agents, &compile_options)
            .map(|c| c.to_bytes())
            .map_err(|e| compile_error(py, &e))
    };
    let (a, b) = (compile(&old)?, compile(&new)?);
    let view = |bytes| {
        Policy::from_bytes(bytes).map_err(|e| {
            // The compiler's own output failing validation is a robocc bug.
            crate::CompileError::new_err(format!("the compiled artifact was refused: {e}"))
        })
    };
    let (a, b) = (view(&a)?, view(&b)?);
    let d = py
        .detach(|| robocc_compiler::diff(&a, &b, &DiffOptions { usage, max_pairs }))
        .map_err(|e| {
            let hint = match e {
                robocc_compiler::DiffError::TooManyPairs { .. } => {
                    " (raise the limit with max_pairs=N, or max_pairs=0 for no limit)"
                }
                _ => "",
            };
            crate::RoboccError::new_err(format!("{e}{hint}"))
        })?;
    Ok(d.changes
        .iter()
        .map(|c| {
            (
                side(&c.old),
                side(&c.new),
                c.witness_text(),
                c.witness.clone(),
            )
        })
        .collect())
}
