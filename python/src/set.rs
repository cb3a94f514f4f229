//! The pieces of a store-set build that a distributed job (`robocc.spark`)
//! runs in parts: reading inputs, the host key and shard hash, redirect
//! dependencies, one shard built alone and the index. Every one is the
//! Rust builder's own code, so a set built in parts is byte-identical to
//! `robocc store build --shards N`.

use crate::convert::FsPath;
use crate::StoreBuildError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use robocc_store::{HostInput, StoreBuilder, StoreReport};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read, Seek, SeekFrom};

/// A host input as Python sees it: ``(host, status, body, location,
/// fetched_at, failure)``.
pub(crate) type Row = (
    String,
    u16,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn row(h: HostInput) -> PyResult<Row> {
    let key = robocc_store::host_key(&h.host).map_err(|why| {
        StoreBuildError::new_err(format!("{:?} is not a host name: {why}", h.host))
    })?;
    Ok((key, h.status, h.body, h.location, h.fetched_at, h.failure))
}

pub(crate) fn input(r: Row) -> HostInput {
    let (host, status, body, location, fetched_at, failure) = r;
    HostInput {
        host,
        status,
        body,
        location,
        fetched_at,
        failure,
        ..HostInput::default()
    }
}

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    StoreBuildError::new_err(e.to_string())
}

/// The key a store files ``host`` under (lower-cased, IDNA, ``:port`` unless
/// 80 or 443). Raises ``ValueError`` when it is not a host name.
#[pyfunction]
pub fn host_key(host: &str) -> PyResult<String> {
    robocc_store::host_key(host)
        .map_err(|why| PyValueError::new_err(format!("{host:?} is not a host name: {why}")))
}

/// The shard of a set of ``shards`` shards that a host key belongs to:
/// FNV-1a 64 of the key mod ``shards`` (docs/artifact.md, "Store sets").
#[pyfunction]
pub fn shard_of(key: &str, shards: usize) -> PyResult<usize> {
    if shards == 0 || shards > robocc_engine::MAX_SHARDS {
        return Err(PyValueError::new_err(format!(
            "shards={shards}: 1 to {}",
            robocc_engine::MAX_SHARDS
        )));
    }
    Ok(robocc_store::shard_of_key(key, shards))
}

/// Whether a fetch result is a redirect to its own host key: such a capture
/// never replaces another one of the same host (the duplicate rule).
#[pyfunction]
#[pyo3(signature = (key, status, location=None))]
pub fn is_self_redirect(key: &str, status: u16, location: Option<&str>) -> bool {
    robocc_store::is_self_redirect(key, status, location)
}

/// The host key of an absolute URL's authority (as a redirect's
/// ``Location`` is resolved), or ``None`` when it has none.
#[pyfunction]
pub fn url_host_key(url: &str) -> Option<String> {
    robocc_engine::HostKey::of_url(url.as_bytes()).map(|k| k.to_key())
}

/// Iterates over the response records of a WARC file, streamed, as
/// :func:`read_warc` returns them (an executor reads a multi-gigabyte file
/// without holding it).
#[pyfunction]
pub fn iter_warc(path: FsPath) -> PyResult<WarcIter> {
    let path = path.0;
    // Read from the file opened here (`convert::open_input`: a FIFO or
    // device is refused at once, never waited on; a missing file or a
    // directory is the usual OSError).
    let file = crate::convert::open_input(&path)?;
    Ok(WarcIter {
        inner: robocc_store::warc::warc_inputs_from(file, &path.display().to_string()),
    })
}

/// The iterator :func:`iter_warc` returns.
#[pyclass(unsendable, module = "robocc")]
pub struct WarcIter {
    inner: robocc_store::warc::WarcInputs,
}

#[pymethods]
impl WarcIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> PyResult<Option<Row>> {
        match self.inner.next() {
            None => Ok(None),
            Some(r) => row(r.map_err(err)?).map(Some),
        }
    }
}

/// The robots.txt captures of a WARC file (``.warc`` or ``.warc.gz``:
/// ``response`` records of a ``/robots.txt``; other records are set aside)
/// as ``(host_key, status, body, location, fetched_at, failure)`` tuples,
/// in file order, read by the same code as ``robocc store build --warc``
/// (a 2xx capture cut short is read under the default parse limit).
/// Raises ``OSError`` when the file cannot be opened, and
/// :class:`robocc.StoreBuildError` on framing that is not WARC.
#[pyfunction]
pub fn read_warc(py: Python<'_>, path: FsPath) -> PyResult<Vec<Row>> {
    let path = path.0;
    let file = crate::convert::open_input(&path)?;
    py.detach(|| {
        let mut out = Vec::new();
        // Made here: the reader is not `Send`, the opened file is.
        let records = robocc_store::warc::warc_inputs_from(file, &path.display().to_string());
        for r in records {
            out.push(r.map_err(err)?);
        }
        Ok::<_, PyErr>(out)
    })?
    .into_iter()
    .map(row)
    .collect()
}

/// One manifest line (``store build --manifest`` format; ``body_path``
/// relative to ``base_dir``) as a ``(host_key, status, body, location,
/// fetched_at, failure)`` tuple. Raises :class:`robocc.StoreBuildError`
/// naming ``at`` when the line is invalid.
#[pyfunction]
pub fn read_manifest_line(line: &[u8], base_dir: FsPath, at: &str) -> PyResult<Row> {
    let base_dir = base_dir.0;
    let fail = |kind| {
        err(robocc_store::InputError {
            at: at.into(),
            kind,
        })
    };
    let mut h = robocc_store::manifest_line(line, &base_dir).map_err(fail)?;
    // A row carries its body: read it, and check it against `sha256`.
    h.load_body().map_err(|kind| body_error(&h.host, kind))?;
    row(h)
}

/// A body file that cannot be read, named by its host as the command
/// line's build names it (`host "a.com": cannot read body …`).
fn body_error(host: &str, kind: robocc_store::InputErrorKind) -> PyErr {
    err(robocc_store::InputError {
        at: format!("host {host:?}"),
        kind,
    })
}

/// The lines of a manifest that start in the byte range ``[start, end)``,
/// read as ``robocc store build --manifest`` reads the whole file (the
/// same line reader and length limit, the same blank lines skipped, the
/// same bytes given to the line's JSON reader), as ``(offset, row)``:
/// ``offset`` is the line's first byte (input order), ``row`` what
/// :func:`read_manifest_line` returns. A line that starts before ``start``
/// belongs to the range before, so ranges that tile the file read each
/// line once (``robocc.spark`` reads a manifest in ranges, one task each,
/// bytes as they are: no decoding, no BOM dropped). Errors are
/// :class:`robocc.StoreBuildError` naming ``name:LINE`` (``name``: the
/// manifest as the user named it; the line counted from the file's start)
/// as the command line's do; ``OSError`` when the file cannot be opened.
#[pyfunction]
#[pyo3(signature = (path, start, end, name = None))]
pub fn read_manifest_range(
    path: FsPath,
    start: u64,
    end: u64,
    name: Option<String>,
) -> PyResult<ManifestRange> {
    let path = path.0;
    let file = crate::convert::open_input(&path)?;
    let name = name.unwrap_or_else(|| path.display().to_string());
    let io = |e: std::io::Error| {
        err(robocc_store::InputError {
            at: name.clone(),
            kind: robocc_store::InputErrorKind::io("cannot read manifest", e),
        })
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut pos = start;
    if start > 0 {
        // The range's first line is the first that starts in it: after the
        // line break at or after `start - 1`.
        reader.seek(SeekFrom::Start(start - 1)).map_err(io)?;
        let mut skipped = Vec::new();
        let n = (&mut reader)
            .take(robocc_compiler::input::MAX_INPUT_BYTES + 3)
            .read_until(b'\n', &mut skipped)
            .map_err(io)?;
        pos = start - 1 + n as u64;
        if skipped.last() != Some(&b'\n') && n as u64 > robocc_compiler::input::MAX_INPUT_BYTES {
            // Inside a line too long for any reader: the range that holds
            // its start refuses it.
            pos = u64::MAX;
        }
    }
    let base = path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    Ok(ManifestRange {
        reader,
        path,
        name,
        base,
        pos,
        end,
        line: Vec::new(),
        done: false,
    })
}

/// The iterator :func:`read_manifest_range` returns: one line read per
/// item, so a range's bodies are not all held at once.
#[pyclass(unsendable, module = "robocc")]
pub struct ManifestRange {
    reader: std::io::BufReader<std::fs::File>,
    path: std::path::PathBuf,
    name: String,
    base: std::path::PathBuf,
    /// Offset of the next line.
    pos: u64,
    end: u64,
    line: Vec<u8>,
    done: bool,
}

impl ManifestRange {
    /// `name:LINE` of the line at `offset`: its line breaks before it are
    /// counted (only an error needs it).
    fn at(&self, offset: u64) -> String {
        // Opened as the range was (a FIFO swapped in is refused).
        let counted = robocc_engine::open_regular(&self.path).and_then(|f| {
            let mut r = std::io::BufReader::with_capacity(1 << 20, f.take(offset));
            let mut n = 0u64;
            loop {
                let buf = r.fill_buf()?;
                if buf.is_empty() {
                    return Ok(n);
                }
                n += buf.iter().filter(|&&b| b == b'\n').count() as u64;
                let len = buf.len();
                r.consume(len);
            }
        });
        match counted {
            Ok(n) => format!("{}:{}", self.name, n + 1),
            Err(_) => format!("{} (byte {offset})", self.name),
        }
    }
}

#[pymethods]
impl ManifestRange {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<(u64, Row)>> {
        loop {
            if self.done || self.pos >= self.end {
                return Ok(None);
            }
            let offset = self.pos;
            let fail = |s: &mut Self, kind| {
                s.done = true;
                err(robocc_store::InputError {
                    at: s.at(offset),
                    kind,
                })
            };
            let read = robocc_compiler::input::read_line(
                &mut self.reader,
                robocc_compiler::input::MAX_INPUT_BYTES,
                &mut self.line,
            );
            match read {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                Err(e) => return Err(fail(self, robocc_store::InputErrorKind::io("", e))),
            }
            self.pos += self.line.len() as u64;
            if self.line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // Without its '\n', as the command line's reader gives it.
            let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let base = &self.base;
            let read = py.detach(|| robocc_store::manifest_line(text, base));
            let mut h = match read {
                Ok(h) => h,
                Err(kind) => return Err(fail(self, kind)),
            };
            // A body file that cannot be read is named by its host, as
            // the command line's build names it.
            if let Err(kind) = py.detach(|| h.load_body()) {
                self.done = true;
                return Err(body_error(&h.host, kind));
            }
            return Ok(Some((offset, row(h)?)));
        }
    }
}

/// For each host whose status is a redirect, the other hosts its
/// resolution reads; ``table`` is ``(host_key, status, location)`` per host,
/// each host once.
#[pyfunction]
pub fn redirect_dependencies(
    py: Python<'_>,
    table: Vec<(String, u16, Option<String>)>,
) -> HashMap<String, Vec<String>> {
    py.detach(|| robocc_store::redirect_dependencies(&table))
}

/// The builder of a store-set piece: `robocc.compile`'s keyword arguments
/// (`options`, as [`crate::options::kwargs_options`] reads them) and
/// `on_failure`, checked with the agent as `build_store` checks them.
fn builder(
    py: Python<'_>,
    func: &str,
    agent: &str,
    options: Option<&Bound<'_, PyDict>>,
    on_failure: &str,
) -> PyResult<StoreBuilder<'static>> {
    let compile = crate::options::kwargs_options(func, options)?;
    crate::check_agent(py, &agent.into(), compile.dialect)?;
    let on_failure = crate::store::on_failure_arg(on_failure)?;
    let mut builder = StoreBuilder::new(agent);
    builder.compile_options(compile).on_failure(on_failure);
    Ok(builder)
}

/// A build's report as a dict (what the Spark job's summary adds up).
fn report_dict(r: StoreReport) -> BTreeMap<&'static str, Py<PyAny>> {
    Python::attach(|py| {
        let c = r.by_source;
        let notes = |n: Vec<robocc_store::HostNote>| -> Vec<(String, String)> {
            n.into_iter().map(|n| (n.host, n.note)).collect()
        };
        let by_source = BTreeMap::from([
            ("fetched", c.fetched),
            ("unavailable", c.unavailable),
            ("unreachable", c.unreachable),
            ("redirected", c.redirected),
            ("failed", c.failed),
        ]);
        let mut d: BTreeMap<&'static str, Py<PyAny>> = BTreeMap::new();
        let mut put = |k, v: Bound<'_, PyAny>| {
            d.insert(k, v.unbind());
        };
        put("hosts", r.hosts.into_pyobject(py).unwrap().into_any());
        put(
            "unique_policies",
            r.unique_policies.into_pyobject(py).unwrap().into_any(),
        );
        put("compiled", r.compiled.into_pyobject(py).unwrap().into_any());
        put("bytes", r.bytes.into_pyobject(py).unwrap().into_any());
        put("by_source", by_source.into_pyobject(py).unwrap().into_any());
        put(
            "failures",
            notes(r.failures).into_pyobject(py).unwrap().into_any(),
        );
        put(
            "unread",
            notes(r.unread).into_pyobject(py).unwrap().into_any(),
        );
        put(
            "split",
            notes(r.split).into_pyobject(py).unwrap().into_any(),
        );
        put(
            "duplicates",
            r.duplicates.into_pyobject(py).unwrap().into_any(),
        );
        put(
            "self_redirects",
            r.self_redirects.into_pyobject(py).unwrap().into_any(),
        );
        put(
            "not_modified",
            r.not_modified.into_pyobject(py).unwrap().into_any(),
        );
        put(
            "not_modified_lost",
            notes(r.not_modified_lost)
                .into_pyobject(py)
                .unwrap()
                .into_any(),
        );
        d
    })
}

/// Builds shard ``which`` of a store set of ``shards`` shards from
/// ``inputs`` (``(host, status, body, location, fetched_at, failure)``
/// tuples): the hosts of that shard, plus the hosts their redirects read
/// (:func:`redirect_dependencies`; other hosts are read for redirects
/// only). Returns ``(shard_bytes, (size, hosts, checksum), report)``, the
/// shard byte-identical to ``robocc store build --shards`` of the same
/// inputs. Identical bodies are compiled once. The GIL is released.
/// ``options`` are :func:`robocc.compile`'s keyword arguments (``dialect``,
/// ``url_mode``, ``max_rules``, ``compile_timeout``, ``references``, …),
/// with its defaults; an unknown one is a ``TypeError``.
#[pyfunction]
#[pyo3(signature = (inputs, agent, shards, which, *, on_failure = "disallow", **options))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn build_store_shard<'py>(
    py: Python<'py>,
    inputs: Vec<Row>,
    agent: &str,
    shards: usize,
    which: usize,
    on_failure: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    (u64, u64, u64),
    BTreeMap<&'static str, Py<PyAny>>,
)> {
    let b = builder(py, "build_store_shard", agent, options, on_failure)?;
    let (bytes, info, report) = py
        .detach(|| b.build_shard(inputs.into_iter().map(|r| Ok(input(r))), shards, which))
        .map_err(err)?;
    Ok((
        PyBytes::new(py, &bytes),
        (info.bytes, info.hosts, info.checksum),
        report_dict(report),
    ))
}

/// Builds a whole store set from ``inputs`` (as :func:`build_store_shard`
/// takes them): ``([shard_bytes, …], index_text, report)``, what ``robocc
/// store build --shards`` writes; ``options`` as for it.
#[pyfunction]
#[pyo3(signature = (inputs, agent, shards, *, on_failure = "disallow", **options))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn build_store_set<'py>(
    py: Python<'py>,
    inputs: Vec<Row>,
    agent: &str,
    shards: usize,
    on_failure: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(
    Vec<Bound<'py, PyBytes>>,
    String,
    BTreeMap<&'static str, Py<PyAny>>,
)> {
    let b = builder(py, "build_store_set", agent, options, on_failure)?;
    let (set, report) = py
        .detach(|| b.build_set(inputs.into_iter().map(|r| Ok(input(r))), shards))
        .map_err(err)?;
    let shards = set.shards.iter().map(|s| PyBytes::new(py, s)).collect();
    Ok((shards, set.index, report_dict(report)))
}

/// The text of a store set's ``index.txt`` for shards of these ``(size,
/// hosts, checksum)``, in order, as ``robocc store build --shards`` writes
/// it; ``options`` (:func:`robocc.compile`'s keyword arguments) as the
/// shards were built with.
#[pyfunction]
#[pyo3(signature = (agent, shards, **options))]
pub fn store_set_index(
    py: Python<'_>,
    agent: &str,
    shards: Vec<(u64, u64, u64)>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let b = builder(py, "store_set_index", agent, options, "disallow")?;
    let infos = shards
        .into_iter()
        .map(|(bytes, hosts, checksum)| robocc_engine::ShardInfo {
            bytes,
            hosts,
            checksum,
        })
        .collect();
    b.set_index(infos).map_err(err)
}
