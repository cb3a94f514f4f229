//! What a closable Python object (`Policy`, `Store`) holds until `close()`:
//! one slot, shared by both, behind their `close`, `closed` and `with`.

use pyo3::exceptions::PyValueError;
use pyo3::PyResult;
use std::sync::{Arc, PoisonError, RwLock};

/// `None` once closed. Checks take their own `Arc` (a batch holds it while
/// the GIL is released), so `close` never unmaps what a check in another
/// thread reads: the last holder drops the mapping.
pub(crate) struct Slot<T> {
    /// The Python class, as the error of a closed object names it.
    what: &'static str,
    held: RwLock<Option<Arc<T>>>,
}

impl<T> Slot<T> {
    pub(crate) fn new(what: &'static str, value: T) -> Slot<T> {
        Slot {
            what,
            held: RwLock::new(Some(Arc::new(value))),
        }
    }

    /// What it holds, or the error of every method of a closed object: a
    /// `ValueError`, as Python's own files raise once closed.
    pub(crate) fn get(&self) -> PyResult<Arc<T>> {
        let held = self.held.read().unwrap_or_else(PoisonError::into_inner);
        held.clone().ok_or_else(|| {
            PyValueError::new_err(format!(
                "the {} is closed (close() or the end of its with block): open it again",
                self.what
            ))
        })
    }

    /// Replaces what it holds by `f`'s answer when there is one (and the
    /// slot is not closed); a check holding the old `Arc` finishes on it.
    pub(crate) fn replace(&self, f: impl FnOnce(&T) -> Option<T>) {
        let mut held = self.held.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(new) = held.as_deref().and_then(f) {
            let old = held.replace(Arc::new(new));
            drop(held);
            drop(old);
        }
    }

    /// Empties the slot (closing again does nothing); a check holding an
    /// `Arc` finishes first on what it holds.
    pub(crate) fn close(&self) {
        let taken = self
            .held
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(taken);
    }

    /// Whether [`Slot::close`] was called.
    pub(crate) fn is_closed(&self) -> bool {
        self.held
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }
}
