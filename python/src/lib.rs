//! `robocc._native`: the Python bindings over `robocc-engine` and
//! `robocc-compiler`.
//!
//! Every Python object owns what its checks read: a `Policy`
//! holds a [`robocc_engine::PolicyFile`] (mapped or copied artifact bytes) and
//! makes the engine's `Policy<'_>` view per call, which is free, or, made by
//! `compile`, a [`robocc_compiler::Checker`] that answers from the rules
//! until it has compiled (then the artifact replaces it); a
//! `Store` holds a [`robocc_engine::Store`]. Both are frozen Python
//! classes, so they can be shared between threads, and the batch checks run
//! with the GIL released; `close()` empties a lock-guarded slot whose `Arc`
//! each check clones, so a batch in another thread keeps its mapping until
//! it returns.
//!
//! Rust errors become Python exceptions carrying the Rust message:
//! [`CompileError`], [`LoadError`] and [`StoreBuildError`], all subclasses of
//! [`RoboccError`]; bad arguments are `ValueError` or `TypeError` (an agent
//! that is not a product token is `AgentError`, a `ValueError`, and a
//! `CompileError` and `StoreBuildError` as before), and a file that cannot be read is the usual `OSError`
//! subclass.

mod convert;
mod diff;
mod fetch;
mod options;
mod policy;
mod set;
mod slot;
mod store;
mod survey;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    robocc,
    RoboccError,
    PyException,
    "Base class of every error robocc raises."
);
create_exception!(
    robocc,
    CompileError,
    RoboccError,
    "A robots.txt could not be compiled: rules beyond the automaton budget (`limit` names the keyword that raises it), or an unsupported dialect. An invalid agent token is its subclass AgentError."
);
create_exception!(
    robocc,
    LoadError,
    RoboccError,
    "Bytes or a file are not a valid robocc policy or store (wrong kind, version, truncated, corrupted)."
);
create_exception!(
    robocc,
    StoreBuildError,
    RoboccError,
    "A store could not be built: an unreadable or invalid input, or a store over the size limit."
);

static AGENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `robocc.AgentError`: an agent that is not a product token, which is
/// the caller's mistake, so a `ValueError`; also a `CompileError` and a
/// `StoreBuildError`, which `compile` and `build_store` raised for it
/// before (code that catches those keeps working). Made with `type()`: an
/// exception class of several bases.
fn agent_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    AGENT_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<CompileError>(),
                    py.get_type::<StoreBuildError>(),
                    py.get_type::<PyValueError>(),
                ],
            )?;
            let dict = PyDict::new(py);
            dict.set_item("__module__", "robocc")?;
            dict.set_item(
                "__doc__",
                "The agent is not a product token (RFC 9309 §2.2.1: letters, '_' and '-'), \
                 or several agents were given to a dialect that takes one: a mistake of the \
                 caller, so a ValueError; also a CompileError and a StoreBuildError, which \
                 compile and build_store raised for it before.",
            )?;
            let ty = py
                .get_type::<PyType>()
                .call1(("AgentError", bases, dict))?
                .cast_into::<PyType>()?;
            Ok::<_, PyErr>(ty.unbind())
        })
        .map(|t| t.bind(py))
}

/// A `robocc.AgentError` for `agent` (the compiler's message).
pub fn agent_error(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    match agent_error_type(py) {
        Ok(ty) => PyErr::from_type(ty.clone(), e.to_string()),
        Err(err) => err,
    }
}

/// Refuses agents that are not product tokens of `dialect` (RFC 9309's,
/// or the 1996 draft's RFC 1945 token), or several where the dialect takes
/// one, as [`agent_error`].
pub fn check_agent(
    py: Python<'_>,
    agents: &robocc_compiler::Agents,
    dialect: robocc_engine::Dialect,
) -> PyResult<()> {
    let options = robocc_compiler::CompileOptions {
        dialect,
        ..Default::default()
    };
    options.check_tokens(agents).map_err(|e| agent_error(py, e))
}

/// Extracts the crawler's product name from a full User-Agent header (a
/// heuristic): among its ``name/version`` products (the first word too, and
/// a crawler's name in a comment), browser products skipped, the first whose
/// name contains "bot", "crawl", "spider" or "slurp", else the first. The
/// name comes whole (``MJ12bot``, which only draft1996 and robots2 take as
/// an agent). `None` when there is none.
///
/// >>> robocc.token_from_header("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
/// 'Googlebot'
#[pyfunction]
fn token_from_header(header: &str) -> Option<String> {
    robocc_compiler::agent::token_from_header(header)
}

/// Adds the `#[pyfunction]`s at these paths to module `m`, in order.
macro_rules! add_functions {
    ($m:ident: $($f:path),* $(,)?) => {
        $($m.add_function(wrap_pyfunction!($f, $m)?)?;)*
    };
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // `robocc survey --max-reach-states`'s default.
    m.add(
        "DEFAULT_MAX_REACH_STATES",
        robocc_compiler::reach::DEFAULT_MAX_STATES,
    )?;
    m.add("RoboccError", py.get_type::<RoboccError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    // The keyword whose budget a compile ran into, on the instance
    // (`policy::compile_error`); `None` for every other CompileError.
    py.get_type::<CompileError>().setattr("limit", py.None())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("StoreBuildError", py.get_type::<StoreBuildError>())?;
    m.add("AgentError", agent_error_type(py)?)?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::Verdict>()?;
    m.add_class::<policy::Diagnostic>()?;
    m.add_class::<store::Store>()?;
    m.add_class::<store::StoreReport>()?;
    m.add_class::<fetch::FetchRules>()?;
    m.add_class::<fetch::Fetch>()?;
    m.add_class::<fetch::FetchDecision>()?;
    m.add_class::<fetch::RobotsCache>()?;
    m.add_class::<fetch::CacheAnswer>()?;
    add_functions! { m:
        policy::compile, diff::diff, store::build_store, token_from_header, set::host_key, set::shard_of,
        set::is_self_redirect, set::read_warc, set::iter_warc, set::url_host_key,
    }
    m.add_class::<set::WarcIter>()?;
    m.add_class::<set::ManifestRange>()?;
    add_functions! { m:
        set::read_manifest_line, set::redirect_dependencies, set::build_store_shard,
        set::build_store_set, set::store_set_index, set::read_manifest_range,
        survey::survey_store, survey::survey_text, survey::survey_shard,
    }
    for name in ["compile", "build_store"] {
        let signature: String = m.getattr(name)?.getattr("__text_signature__")?.extract()?;
        options::check_signature_defaults(name, &signature).map_err(PyImportError::new_err)?;
    }
    Ok(())
}
