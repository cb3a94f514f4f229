//! `robocc._native`: the Python bindings over `robocc-engine` and
//! `robocc-compiler`.
//!
//! Every Python object owns what its checks read: a `Policy`
//! holds a [`robocc_engine::PolicyFile`] (mapped or copied artifact bytes) and
//! makes the engine's `Policy<'_>` view per call, which is free; a
//! `Store` holds a [`robocc_engine::Store`]. Both are frozen
//! (immutable) Python classes, so they can be shared between threads, and the
//! batch checks run with the GIL released.
//!
//! Rust errors become Python exceptions carrying the Rust message:
//! [`CompileError`], [`LoadError`] and [`StoreBuildError`], all subclasses of
//! [`RoboccError`]; bad arguments are `ValueError` or `TypeError`, and a file
//! that cannot be read is the usual `OSError` subclass.

mod convert;
mod options;
mod policy;
mod set;
mod store;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

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
    "A robots.txt could not be compiled: an invalid agent token, an unsupported dialect, or rules beyond the automaton budget."
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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RoboccError", py.get_type::<RoboccError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("StoreBuildError", py.get_type::<StoreBuildError>())?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<policy::Verdict>()?;
    m.add_class::<policy::Diagnostic>()?;
    m.add_class::<store::Store>()?;
    m.add_class::<store::StoreReport>()?;
    m.add_function(wrap_pyfunction!(policy::compile, m)?)?;
    m.add_function(wrap_pyfunction!(store::build_store, m)?)?;
    m.add_function(wrap_pyfunction!(token_from_header, m)?)?;
    m.add_function(wrap_pyfunction!(set::host_key, m)?)?;
    m.add_function(wrap_pyfunction!(set::shard_of, m)?)?;
    m.add_function(wrap_pyfunction!(set::is_self_redirect, m)?)?;
    m.add_function(wrap_pyfunction!(set::read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(set::iter_warc, m)?)?;
    m.add_function(wrap_pyfunction!(set::url_host_key, m)?)?;
    m.add_class::<set::WarcIter>()?;
    m.add_function(wrap_pyfunction!(set::read_manifest_line, m)?)?;
    m.add_function(wrap_pyfunction!(set::redirect_dependencies, m)?)?;
    m.add_function(wrap_pyfunction!(set::build_store_shard, m)?)?;
    m.add_function(wrap_pyfunction!(set::build_store_set, m)?)?;
    m.add_function(wrap_pyfunction!(set::store_set_index, m)?)?;
    Ok(())
}
