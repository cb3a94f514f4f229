//! Python values in and out: URLs and bodies as `str` or `bytes`, engine
//! errors as exceptions, robots 2.0 timing as the `robocc` named tuples.

use crate::LoadError;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use robocc_engine::{RequestRate, TimeWindow};
use std::path::{Path, PathBuf};

/// A file path as Python's `open()` takes it: `str`, `bytes` or an
/// `os.PathLike` (read through `os.fsdecode`, so bytes that are not UTF-8
/// name the same file). Anything else is a `TypeError`, which PyO3 prefixes
/// with the argument's name.
pub struct FsPath(pub PathBuf);

impl<'a, 'py> FromPyObject<'a, 'py> for FsPath {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<FsPath> {
        let text = obj.py().import("os")?.getattr("fsdecode")?.call1((obj,))?;
        Ok(FsPath(text.extract::<PathBuf>()?))
    }
}

/// Calls `f` with the bytes of a URL given as `str` (UTF-8) or `bytes`,
/// without copying where the interpreter allows it.
#[inline]
pub fn with_url<R>(url: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(s) = url.cast::<PyString>() {
        // The stable ABI of CPython 3.9 has no way to borrow a str's UTF-8:
        // encode it once into a bytes object and read that.
        let utf8 = s.encode_utf8()?;
        Ok(f(utf8.as_bytes()))
    } else if let Ok(b) = url.cast::<PyBytes>() {
        Ok(f(b.as_bytes()))
    } else {
        Err(PyTypeError::new_err(format!(
            "a URL must be str or bytes, not {}",
            url.get_type().name()?
        )))
    }
}

/// A URL kept for a batch check run without the GIL.
pub enum Url {
    Str(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Url {
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Url::Str(s) => s.as_bytes(),
            Url::Bytes(b) => b,
        }
    }
}

/// Reads every URL of an iterable (a list, a tuple, a generator…) of `str`
/// or `bytes`. A lone `str` or `bytes` is refused: iterating it would check
/// its characters one by one.
pub fn urls(urls: &Bound<'_, PyAny>) -> PyResult<Vec<Url>> {
    if urls.is_instance_of::<PyString>() || urls.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "allowed_many takes an iterable of URLs, not one URL: wrap it in a list",
        ));
    }
    let mut out = Vec::with_capacity(urls.len().unwrap_or(0));
    for item in urls.try_iter()? {
        let item = item?;
        out.push(if let Ok(s) = item.cast::<PyString>() {
            Url::Str(PyBackedStr::try_from(s.clone())?)
        } else if let Ok(b) = item.cast::<PyBytes>() {
            Url::Bytes(PyBackedBytes::from(b.clone()))
        } else {
            return Err(PyTypeError::new_err(format!(
                "a URL must be str or bytes, not {}",
                item.get_type().name()?
            )));
        });
    }
    Ok(out)
}

/// Contents given as `bytes`, `bytearray` or `str` (encoded as UTF-8);
/// `what` names them in the error ("robots.txt contents"). A `str` that
/// is a file's name rather than a file's text is refused
/// ([`refuse_file_name`]): compiled, it would be a one-line robots.txt that
/// allows everything.
pub fn robots_body(robots: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = robots.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else if let Ok(s) = robots.cast::<PyString>() {
        let text = s.to_cow()?;
        refuse_file_name(&text, what, true)?;
        Ok(text.as_bytes().to_vec())
    } else if let Ok(b) = robots.cast::<PyByteArray>() {
        Ok(b.to_vec())
    } else {
        let ty = robots.get_type().name()?;
        // A path object names a file: say how to read it.
        let hint = if robots.hasattr("__fspath__")? {
            ": to compile a file, read it (open(path, 'rb').read())"
        } else {
            ""
        };
        Err(PyTypeError::new_err(format!(
            "{what} must be bytes, bytearray or str, not {ty}{hint}"
        )))
    }
}

/// Refuses `text`, given as a robots.txt's contents, when it is rather a
/// file's name: one line (no line break) that names an existing file, or,
/// when `strict`, one that no robots.txt line could be (neither `:` nor
/// white space between a key and a value, such as `robots.txt`). Bytes are
/// never refused: they are what a fetch returns, and a body `OK` is a
/// robots.txt that allows everything. (`Protego.parse`, whose callers pass
/// fetched text, applies only the first test.)
pub fn refuse_file_name(text: &str, what: &str, strict: bool) -> PyResult<()> {
    // A path longer than PATH_MAX names no file.
    if text.contains(['\n', '\r']) || text.trim().is_empty() || text.len() > 4096 {
        return Ok(());
    }
    // As Python writes it, to be pasted back.
    let shown = Python::attach(|py| {
        PyString::new(py, text)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| format!("{text:?}"))
    });
    let how = format!(
        "compile a file's contents with robocc.compile(open({shown}, 'rb').read(), agent); \
         a compiled policy file opens with robocc.Policy.open({shown})"
    );
    if std::path::Path::new(text).exists() {
        return Err(PyValueError::new_err(format!(
            "{what} is {shown}, which names a file: {how}"
        )));
    }
    if strict && !text.contains(|c: char| c == ':' || c.is_whitespace()) {
        return Err(PyValueError::new_err(format!(
            "{what} is {shown}, one line with no ':' or space, which no robots.txt line \
             is (a file name? there is none such here): {how}; pass bytes to compile \
             text as it is"
        )));
    }
    Ok(())
}

/// Artifact bytes given as `bytes` or `bytearray`; `what` names them
/// ("policy bytes"), `open` the method that reads a file (a `str` is
/// refused: it would be a path, `Policy.open`'s argument).
pub fn artifact_bytes(data: &Bound<'_, PyAny>, what: &str, open: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        Ok(b.to_vec())
    } else {
        let ty = data.get_type().name()?;
        let hint = if data.is_instance_of::<PyString>() || data.hasattr("__fspath__")? {
            format!(": a file is opened with {open}(path)")
        } else {
            String::new()
        };
        Err(PyTypeError::new_err(format!(
            "{what} must be bytes or bytearray, not {ty}{hint}"
        )))
    }
}

/// A load error as the `robocc.LoadError` exception, with the Rust message.
pub fn load_error(e: robocc_engine::LoadError) -> PyErr {
    LoadError::new_err(e.to_string())
}

/// Opens the input file at `path` as the engine opens artifacts
/// (`robocc_engine::open_regular`): non-blocking, so a FIFO with no writer
/// is refused at once instead of blocking the open forever with the GIL
/// held (every thread frozen, Ctrl-C ignored); a socket or device is
/// refused too, and a directory. The file's type is read from the opened
/// file, so callers read from the returned `File`, never from `path` again.
/// Errors are the usual `OSError` subclass naming the file
/// (`FileNotFoundError`, `PermissionError`, `IsADirectoryError`…); the
/// engine's own I/O errors carry only a message.
pub fn open_input(path: &Path) -> PyResult<std::fs::File> {
    robocc_engine::open_regular(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::IsADirectory => {
            os_error(&std::io::Error::from_raw_os_error(EISDIR), path)
        }
        // Not a regular file: no errno names that, so EINVAL (a plain
        // OSError) with the engine's words ("it is a FIFO, not a regular
        // file").
        std::io::ErrorKind::InvalidInput if e.raw_os_error().is_none() => {
            PyOSError::new_err((EINVAL, e.to_string(), path.display().to_string()))
        }
        _ => os_error(&e, path),
    })
}

/// Writes `bytes` to `path` as the command line's `-o` does: a regular
/// file (or a new path) is replaced through
/// `robocc_store::output::replace_file` (a temporary file beside it,
/// synced, then renamed over it, keeping the old file's permissions), so
/// that a reader that has the old file mapped keeps a consistent view; a
/// symbolic link is followed and the link kept; a read-only file is not
/// replaced. Errors are the usual `OSError` subclasses naming `path`
/// (`IsADirectoryError`, `PermissionError`, `FileNotFoundError` for a
/// link to nothing…); another kind of file (a FIFO, a device) is an
/// `OSError` that says so.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> PyResult<()> {
    use robocc_store::output::{destination, replace_file, Destination, Refusal};
    let fail = |e: std::io::Error| os_error(&e, path);
    let refuse = |errno: i32, why: &str| {
        PyOSError::new_err((
            errno,
            format!("{why}: not written"),
            path.display().to_string(),
        ))
    };
    match destination(path) {
        Ok(Destination::New) => replace_file(path, bytes, None).map_err(fail),
        Ok(Destination::Replace { permissions, .. }) if permissions.readonly() => Err(refuse(
            EACCES,
            "read-only file (make it writable or write elsewhere)",
        )),
        Ok(Destination::Replace {
            target,
            permissions,
        }) => replace_file(&target, bytes, Some(permissions)).map_err(fail),
        Err(Refusal::Directory) => Err(refuse(EISDIR, "is a directory")),
        Err(Refusal::DanglingLink) => Err(refuse(ENOENT, "a symbolic link to nothing")),
        Ok(Destination::Stream) | Err(Refusal::Other) => Err(refuse(0, "not a regular file")),
        Err(Refusal::Io(e)) => Err(fail(e)),
    }
}

/// `OSError(errno, strerror, filename)`: Python picks the subclass
/// (`FileNotFoundError`, `PermissionError`…) from the number.
fn os_error(error: &std::io::Error, path: &Path) -> PyErr {
    let errno = error.raw_os_error().unwrap_or(0);
    let text = error.to_string();
    let suffix = format!(" (os error {errno})");
    let text = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
    PyOSError::new_err((errno, text, path.display().to_string()))
}

/// "No such file", "Permission denied" and "Is a directory" (the same
/// numbers on Linux, macOS and the BSDs).
const ENOENT: i32 = 2;
const EACCES: i32 = 13;
const EISDIR: i32 = 21;
/// "Invalid argument" (the same number on Linux, macOS and the BSDs).
const EINVAL: i32 = 22;

static REQUEST_RATE: PyOnceLock<Py<pyo3::types::PyType>> = PyOnceLock::new();
static VISIT_TIME: PyOnceLock<Py<pyo3::types::PyType>> = PyOnceLock::new();
static TIME: PyOnceLock<Py<pyo3::types::PyType>> = PyOnceLock::new();

fn minute_of_day<'py>(py: Python<'py>, minute: u16) -> PyResult<Bound<'py, PyAny>> {
    TIME.import(py, "datetime", "time")?
        .call1((minute / 60, minute % 60))
}

/// A `robocc.RequestRate(requests, seconds, start_time, end_time)`.
pub fn request_rate<'py>(py: Python<'py>, r: &RequestRate) -> PyResult<Bound<'py, PyAny>> {
    let (start, end) = match r.window {
        Some(w) => (
            Some(minute_of_day(py, w.start)?),
            Some(minute_of_day(py, w.end)?),
        ),
        None => (None, None),
    };
    REQUEST_RATE
        .import(py, "robocc._types", "RequestRate")?
        .call1((r.rate.documents, r.rate.seconds, start, end))
}

/// A `robocc.VisitTime(start_time, end_time)`.
pub fn visit_time<'py>(py: Python<'py>, w: &TimeWindow) -> PyResult<Bound<'py, PyAny>> {
    VISIT_TIME
        .import(py, "robocc._types", "VisitTime")?
        .call1((minute_of_day(py, w.start)?, minute_of_day(py, w.end)?))
}
