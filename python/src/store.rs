//! `robocc.Store`, `robocc.StoreReport` and `robocc.build_store`.

use crate::convert::{self, with_url, FsPath};
use crate::options::{
    AgentsArg, Limit, Options, References, Seconds, Strings, DEFAULT_MAX_BYTES_ARG,
    DEFAULT_MAX_LINE_LEN_ARG, DEFAULT_MAX_RULES_ARG,
};
use crate::policy::{signal_usage, states_dict, verdict, Policy, Verdict};
use crate::slot::Slot;
use crate::StoreBuildError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use robocc_compiler::Budget;
use robocc_engine::{HostSource, LoadError, PolicyFile};
use robocc_store::{
    inputs_from_dir, manifest_inputs_from, HostInput, InputError, OnFailure, StoreBuilder,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The policies of many hosts in one memory-mapped file (built by
/// :func:`robocc.build_store` or ``robocc store build``), or in a store set:
/// a directory of shards with an ``index.txt`` (``robocc store build
/// --shards``, the ``robocc.spark`` job). A context manager: ``with
/// robocc.Store.open(path) as store:`` unmaps it at the end (:meth:`close`).
///
/// Opening costs the same whatever the number of hosts; each host's policy
/// is validated the first time a URL of that host is checked (and a set's
/// shard is mapped then).
///
/// The file stays mapped while the object lives: replace it by renaming a
/// new file over it (as ``build_store`` and the command line do), never by
/// rewriting it in place. A mapped file truncated or rewritten under a
/// reader can crash the process (docs/RELIABILITY.md). A set is replaced by
/// building a new set directory and opening that: a shard rebuilt before
/// its first use no longer matches the index read at open, and is refused.
#[pyclass(frozen, module = "robocc")]
pub struct Store {
    /// The store or set, until closed.
    inner: Slot<Inner>,
}

impl Store {
    fn new(inner: Inner) -> Store {
        Store {
            inner: Slot::new("Store", inner),
        }
    }

    /// The store, or a `ValueError` once closed.
    pub(crate) fn inner(&self) -> PyResult<Arc<Inner>> {
        self.inner.get()
    }
}

pub(crate) enum Inner {
    One(robocc_engine::Store),
    Set(robocc_engine::StoreSet),
}

impl Inner {
    /// The store, or each shard of the set in order (mapped now).
    pub(crate) fn stores(
        &self,
    ) -> Box<dyn Iterator<Item = Result<&robocc_engine::Store, LoadError>> + '_> {
        match self {
            Inner::One(s) => Box::new(std::iter::once(Ok(s))),
            Inner::Set(s) => Box::new((0..s.shard_count()).map(|i| s.shard(i))),
        }
    }

    /// The store that holds (or would hold) `url`'s host.
    fn store_for(&self, url: &[u8]) -> Result<Option<&robocc_engine::Store>, LoadError> {
        match self {
            Inner::One(s) => Ok(Some(s)),
            Inner::Set(s) => s.store_for(url),
        }
    }

    fn policy_for(&self, url: &[u8]) -> Result<Option<robocc_engine::Policy<'_>>, LoadError> {
        match self {
            Inner::One(s) => s.policy_for(url),
            Inner::Set(s) => s.policy_for(url),
        }
    }
}

/// Refuses a URL from which no host can be read (no `scheme://` or `//`:
/// `a.example/p`, `https:a.example/p`, `/p`): the engine answers it as a
/// host not in the store, which would tell the caller "fetch its
/// robots.txt" about a URL that is not one (`robocc check --store` answers
/// it unknown, "no host", whatever `--missing` says). `at` names the item
/// of a batch.
fn require_host(url: &[u8], at: Option<usize>) -> PyResult<()> {
    if robocc_engine::HostKey::of_url(url).is_some() {
        return Ok(());
    }
    Err(no_host(
        url,
        at,
        "has no host: a store answers absolute URLs (scheme://host/path) whose \
         authority URL parsers agree on (docs/artifact.md, \"Which host a URL names\")",
    ))
}

/// The `ValueError` for `url` (item `at` of a batch), which `what`.
fn no_host(url: &[u8], at: Option<usize>, what: &str) -> PyErr {
    let shown: String = String::from_utf8_lossy(url).chars().take(200).collect();
    let which = at.map_or(String::new(), |i| format!("urls[{i}] = "));
    PyValueError::new_err(format!("{which}{shown:?} {what}"))
}

/// After a lookup missed: refuses a URL whose host no store build accepts
/// (`a..example`, `[]`, port 0), as [`require_host`] refuses one with no
/// host, instead of `None` ("not in the store", which a crawler may read
/// as "fetch its robots.txt" or as allowed; `robocc check --store` answers
/// it unknown, "no host"). Only misses pay for it: a host found in a
/// store was accepted by its build.
fn require_store_host(url: &[u8], at: Option<usize>) -> PyResult<()> {
    match robocc_store::url_host_key(url) {
        None => require_host(url, at),
        Some(Ok(_)) => Ok(()),
        Some(Err(why)) => Err(no_host(
            url,
            at,
            &format!("has no host a store can hold: {why}"),
        )),
    }
}

/// `find` of where `url`'s host is stored: `url` itself, or for a host
/// written as a Unicode name the `//KEY/` URL of its IDNA form (a build
/// stores `Bücher.example` only as `xn--bcher-kva.example`; the engine
/// reads the host as written). `find` looks up the host of the URL it is
/// given; the path to check stays `url`'s. `None` (not in the store) only
/// for a host a store could hold: [`require_store_host`] refuses the rest.
fn found<T>(
    url: &[u8],
    at: Option<usize>,
    find: impl Fn(&[u8]) -> Result<Option<T>, LoadError>,
) -> PyResult<Option<T>> {
    let key_url = robocc_store::idna_lookup_url(url);
    let lookup = key_url.as_deref().map_or(url, str::as_bytes);
    let t = find(lookup).map_err(convert::load_error)?;
    if t.is_none() {
        require_store_host(url, at)?;
    }
    Ok(t)
}

/// The policy of `url`'s host (which [`require_host`] checks) and where
/// it came from; `None` when the store lacks the host.
fn host_policy<'s>(
    inner: &'s Inner,
    url: &[u8],
) -> PyResult<Option<(robocc_engine::Policy<'s>, HostSource)>> {
    require_host(url, None)?;
    let host = found(url, None, |at| match inner.store_for(at)? {
        Some(store) => Ok(store.host(at)?.map(|host| (store, host))),
        None => Ok(None),
    })?;
    let Some((store, host)) = host else {
        return Ok(None);
    };
    let policy = store
        .policy(host.policy)
        .map_err(|e| crate::LoadError::new_err(format!("host {}: {e}", host.key)))?;
    Ok(Some((policy, host.source)))
}

/// A store's verdict: [`verdict`] with the host's source. A policy that
/// stands for a status (unavailable, unreachable, failed) is robocc's own,
/// not lines of a robots.txt: no rule is named.
fn store_verdict(
    policy: robocc_engine::Policy<'_>,
    v: robocc_engine::Verdict,
    source: HostSource,
) -> Verdict {
    let mut out = verdict(policy, v);
    if !source.has_lines() {
        out.rule = None;
        out.rule_line = None;
        out.pattern = None;
        out.origin = None;
    }
    out.source = Some(source.name());
    out
}

#[pymethods]
impl Store {
    /// Memory-maps the store at ``path`` and checks its header; a directory
    /// is opened as a store set (its index is read, each shard is mapped
    /// when first needed).
    ///
    /// Raises ``OSError`` when the file cannot be opened and
    /// :class:`robocc.LoadError` when it is not a valid store, or when a
    /// directory has no valid store set index (``index.txt``). ``path``
    /// is a ``str``, ``bytes`` or ``os.PathLike``, as for ``open()``.
    #[staticmethod]
    fn open(path: FsPath) -> PyResult<Store> {
        let path = path.0;
        if path.is_dir() {
            return robocc_engine::StoreSet::open(&path)
                .map(|set| Store::new(Inner::Set(set)))
                .map_err(convert::load_error);
        }
        // The engine opens it again (non-blocking too): this open only
        // gives its refusal the usual OSError subclass.
        convert::open_input(&path)?;
        robocc_engine::Store::open(&path)
            .map(|store| Store::new(Inner::One(store)))
            .map_err(convert::load_error)
    }

    /// Reads a store from bytes, copying them.
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Store> {
        let bytes = convert::artifact_bytes(data, "store bytes", "robocc.Store.open")?;
        robocc_engine::Store::from_slice(&bytes)
            .map(|store| Store::new(Inner::One(store)))
            .map_err(convert::load_error)
    }

    /// Whether ``url`` (absolute, with a host) may be crawled by its host's
    /// policy; ``None`` when the host is not in the store (the caller
    /// decides: fetch its robots.txt, or skip). Hosts are looked up by
    /// their key (lower case, ``:port`` unless the scheme's default; a
    /// Unicode name is stored, and found, in its ``xn--`` form; one
    /// trailing dot is dropped, so ``a.example.`` is ``a.example``).
    ///
    /// Raises ``ValueError`` for a URL from which no host can be read (no
    /// ``scheme://`` or ``//``: ``a.example/p``, ``/p``) or whose host no
    /// store build accepts (``https://a..example/``, port 0), which is
    /// never "not in the store", and :class:`robocc.LoadError` when the
    /// host's policy is corrupted.
    fn allowed(&self, url: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
        let inner = self.inner()?;
        with_url(url, |u| {
            require_host(u, None)?;
            let v = found(u, None, |at| {
                if std::ptr::eq(at, u) {
                    // The common case: lookup and check in one call.
                    match &*inner {
                        Inner::One(s) => s.check(u),
                        Inner::Set(s) => s.check(u),
                    }
                } else {
                    Ok(inner.policy_for(at)?.map(|p| p.check(u)))
                }
            })?;
            Ok(v.map(|v| v.allowed))
        })?
    }

    /// The :class:`Verdict` for ``url`` by its host's policy, or ``None``
    /// when the host is not in the store. Its ``source`` says where the
    /// policy came from: ``"fetched"`` or ``"redirected"`` (the rule fields
    /// name a line of that robots.txt), ``"unavailable"`` (allow all),
    /// ``"unreachable"`` (disallow all) or ``"failed"`` (the builder's
    /// ``on_failure`` policy); for the last three no rule is named.
    /// A URL without a host is a ``ValueError``, as for :meth:`allowed`.
    fn check(&self, url: &Bound<'_, PyAny>) -> PyResult<Option<Verdict>> {
        let inner = self.inner()?;
        with_url(url, |u| -> PyResult<Option<Verdict>> {
            let Some((policy, source)) = host_policy(&inner, u)? else {
                return Ok(None);
            };
            Ok(Some(store_verdict(policy, policy.check(u), source)))
        })?
    }

    /// Each agent's :class:`Verdict` for ``url`` by its host's policy, as
    /// :meth:`check` gives it, from one walk (per column of the policy): a
    /// dict from agent to verdict, the agents in the order the store was
    /// built for (``build_store(..., each_agent=True)`` or ``robocc store
    /// build --each-agent``; a store of one policy per host for several
    /// agents read together answers them as one, under :attr:`agent`);
    /// ``None`` when the host is not in the store. A URL without a host is
    /// a ``ValueError``, as for :meth:`allowed`.
    fn check_each<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let inner = self.inner()?;
        with_url(url, |u| -> PyResult<Option<Bound<'py, PyDict>>> {
            let Some((policy, source)) = host_policy(&inner, u)? else {
                return Ok(None);
            };
            let mut out = vec![
                robocc_engine::Verdict {
                    allowed: true,
                    rule: None
                };
                policy.agent_count()
            ];
            policy.check_each(u, &mut out);
            let dict = PyDict::new(py);
            for (agent, v) in policy.agents().zip(out) {
                dict.set_item(agent, store_verdict(policy, v, source))?;
            }
            Ok(Some(dict))
        })?
    }

    /// ``[store.allowed(u) for u in urls]`` in one call, with the GIL
    /// released while checking; a URL without a host is a ``ValueError``
    /// naming its index, before any is checked, and so is one whose host no
    /// store can hold (``https://a..example/``), once the batch is checked.
    fn allowed_many(&self, py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<Vec<Option<bool>>> {
        let urls = convert::urls(urls)?;
        for (i, u) in urls.iter().enumerate() {
            require_host(u.as_bytes(), Some(i))?;
        }
        let inner = self.inner()?;
        let allowed = py
            .detach(|| {
                let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
                let mut out = vec![None; refs.len()];
                match &*inner {
                    Inner::One(s) => s.check_batch(&refs, &mut out),
                    Inner::Set(s) => s.check_batch(&refs, &mut out),
                }
                .map(|()| out.iter().map(|v| v.map(|v| v.allowed)).collect::<Vec<_>>())
            })
            .map_err(|e| convert::load_error(e.error))?;
        let mut allowed = allowed;
        for (i, (u, v)) in urls.iter().zip(allowed.iter_mut()).enumerate() {
            if v.is_none() {
                // Looked up as written: a Unicode name is stored in its IDNA
                // form, so look that up ([`found`]); then refuse a host no
                // store can hold.
                let u = u.as_bytes();
                if let Some(key_url) = robocc_store::idna_lookup_url(u) {
                    *v = inner
                        .policy_for(key_url.as_bytes())
                        .map_err(convert::load_error)?
                        .map(|p| p.check(u).allowed);
                }
                if v.is_none() {
                    require_store_host(u, Some(i))?;
                }
            }
        }
        Ok(allowed)
    }

    /// :meth:`Policy.preference` by ``url``'s host's policy: ``True``,
    /// ``False``, or ``None`` when nothing is stated for it — or when the
    /// host is not in the store (:meth:`allowed` tells the two apart).
    ///
    /// Raises ``ValueError`` for a usage that is not an AI-usage preference
    /// channel and, as :meth:`allowed` does, for a URL with no host a store
    /// can hold; :class:`robocc.LoadError` when the host's policy is
    /// corrupted.
    fn preference(&self, url: &Bound<'_, PyAny>, usage: &str) -> PyResult<Option<bool>> {
        let usage = signal_usage(usage)?;
        let inner = self.inner()?;
        with_url(url, |u| {
            require_host(u, None)?;
            let Some(p) = found(u, None, |at| inner.policy_for(at))? else {
                return Ok(None);
            };
            Ok(p.preference(u, usage).map(|v| v.allowed))
        })?
    }

    /// :meth:`Policy.usage_states` by ``url``'s host's policy (one pass),
    /// or ``None`` when the host is not in the store.
    ///
    /// Raises ``ValueError`` for a URL with no host a store can hold (as
    /// :meth:`allowed`), :class:`robocc.LoadError` when the host's policy
    /// is corrupted.
    fn usage_states<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let inner = self.inner()?;
        let found = with_url(url, |u| {
            require_host(u, None)?;
            let p = found(u, None, |at| inner.policy_for(at))?;
            PyResult::Ok(p.map(|p| (p, p.usage_states(u))))
        })??;
        found
            .map(|(policy, states)| states_dict(py, policy, states))
            .transpose()
    }

    /// The :class:`Policy` of ``url``'s host (a copy of its bytes), or
    /// ``None`` when the host is not in the store: its crawl delay,
    /// sitemaps, rules.
    fn policy_for(&self, url: &Bound<'_, PyAny>) -> PyResult<Option<Policy>> {
        // A store's policy is a view into the store's mapping; the Python
        // object owns a copy of its bytes instead of borrowing `self`.
        let inner = self.inner()?;
        with_url(url, |u| {
            require_host(u, None)?;
            found(u, None, |at| {
                let Some(store) = inner.store_for(at)? else {
                    return Ok(None);
                };
                let Some(host) = store.host(at)? else {
                    return Ok(None);
                };
                let bytes = store.policy_artifact(host.policy)?;
                PolicyFile::from_slice(bytes).map(|f| Some(Policy::from_file(f)))
            })
        })?
    }

    /// The product token every policy was compiled for.
    #[getter]
    fn agent(&self) -> PyResult<String> {
        Ok(match &*self.inner()? {
            Inner::One(s) => s.agent(),
            Inner::Set(s) => s.agent(),
        }
        .to_string())
    }

    /// The dialect every policy was compiled with.
    #[getter]
    fn dialect(&self) -> PyResult<&'static str> {
        Ok(match &*self.inner()? {
            Inner::One(s) => s.dialect(),
            Inner::Set(s) => s.dialect(),
        }
        .name())
    }

    /// Number of hosts.
    #[getter]
    fn host_count(&self) -> PyResult<usize> {
        Ok(match &*self.inner()? {
            Inner::One(s) => s.host_count(),
            Inner::Set(s) => usize::try_from(s.host_count()).unwrap_or(usize::MAX),
        })
    }

    /// Number of distinct policies (of a set: the sum over its shards,
    /// which are mapped to count them).
    #[getter]
    fn policy_count(&self) -> PyResult<usize> {
        match &*self.inner()? {
            Inner::One(s) => Ok(s.policy_count()),
            Inner::Set(s) => (0..s.shard_count())
                .map(|i| s.shard(i).map(|store| store.policy_count()))
                .sum::<Result<usize, LoadError>>()
                .map_err(convert::load_error),
        }
    }

    /// Number of shards: 1 for a single store file.
    #[getter]
    fn shard_count(&self) -> PyResult<usize> {
        Ok(match &*self.inner()? {
            Inner::One(_) => 1,
            Inner::Set(s) => s.shard_count(),
        })
    }

    fn __len__(&self) -> PyResult<usize> {
        self.host_count()
    }

    /// Releases the store (unmaps its file, or its set's shards); every
    /// method then raises ``ValueError``. A batch check running in another
    /// thread finishes first on what it holds; a :class:`Policy` from
    /// :meth:`policy_for` owns its bytes and stays usable. Closing again
    /// does nothing.
    fn close(&self) {
        self.inner.close();
    }

    /// Whether :meth:`close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// ``with robocc.Store.open(path) as store:`` closes it at the end.
    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().inner()?;
        Ok(slf)
    }

    fn __exit__(
        &self,
        _type: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        let Ok(inner) = self.inner() else {
            return "<robocc.Store closed>".to_string();
        };
        match &*inner {
            Inner::One(s) => format!(
                "<robocc.Store agent={:?} hosts={} policies={}>",
                s.agent(),
                s.host_count(),
                s.policy_count()
            ),
            Inner::Set(s) => format!(
                "<robocc.Store set={:?} agent={:?} hosts={} shards={}>",
                s.dir().display().to_string(),
                s.agent(),
                s.host_count(),
                s.shard_count()
            ),
        }
    }
}

/// What :func:`robocc.build_store` did.
///
/// ``hosts``, ``unique_policies``, ``compiled`` (distinct bodies compiled),
/// ``reused`` (copied from ``base``), ``bodies_read`` and ``bodies_skipped``
/// (manifest body files read, and not read because their ``sha256`` named a
/// policy of ``base``), ``bytes`` (store size),
/// ``by_source`` (hosts per source: ``fetched``, ``unavailable`` (allow
/// all), ``unreachable`` (disallow all), ``redirected``, ``failed``),
/// ``split``, ``unread`` (hosts whose robots.txt was not read as written: a
/// limit cut it, lines were lost, or it is not text) and ``failures``
/// (``(host, note)`` pairs), ``duplicates``
/// (hosts given more than once, in key order; the last one wins; a
/// redirect of a host to itself beside another input of it is none),
/// ``not_modified`` (hosts that answered 304 and keep ``base``'s policy)
/// and ``not_modified_lost`` (``(host, why)`` pairs: hosts that answered
/// 304 with no policy of ``base`` to keep: unreachable, disallow all).
#[pyclass(frozen, get_all, module = "robocc")]
pub struct StoreReport {
    pub hosts: usize,
    pub unique_policies: usize,
    pub compiled: usize,
    pub reused: usize,
    pub bodies_read: usize,
    pub bodies_skipped: usize,
    pub bytes: usize,
    pub by_source: BTreeMap<&'static str, usize>,
    pub split: Vec<(String, String)>,
    pub unread: Vec<(String, String)>,
    pub failures: Vec<(String, String)>,
    pub duplicates: Vec<String>,
    pub not_modified: usize,
    pub not_modified_lost: Vec<(String, String)>,
}

#[pymethods]
impl StoreReport {
    fn __repr__(&self) -> String {
        format!(
            "StoreReport(hosts={}, unique_policies={}, compiled={}, reused={}, bytes={}, \
             failures={})",
            self.hosts,
            self.unique_policies,
            self.compiled,
            self.reused,
            self.bytes,
            self.failures.len()
        )
    }
}

fn build_error(e: impl std::fmt::Display) -> PyErr {
    StoreBuildError::new_err(e.to_string())
}

/// `on_failure` as `build_store` and the store-set pieces take it.
pub(crate) fn on_failure_arg(on_failure: &str) -> PyResult<OnFailure> {
    match on_failure.to_ascii_lowercase().as_str() {
        "disallow" => Ok(OnFailure::Disallow),
        "allow" => Ok(OnFailure::Allow),
        _ => Err(PyValueError::new_err(format!(
            "on_failure={on_failure:?}: expected \"disallow\" or \"allow\""
        ))),
    }
}

/// Builds a store for ``agent`` from ``manifest_path`` and writes it to
/// ``out_path``; returns a :class:`StoreReport`.
///
/// ``manifest_path`` is a JSONL manifest (one object per host: ``host``,
/// ``status``, ``body_path`` relative to the manifest or ``body``, optional
/// ``location``, ``fetched_at`` and ``sha256``: the body's digest, so that a
/// rebuild with ``base`` does not read unchanged body files) or a directory
/// of ``<host>.txt`` files,
/// as for ``robocc store build``. Statuses follow RFC 9309 §2.3.1 (4xx
/// allows all but 429, which disallows all as 5xx does). The compile
/// options are those of :func:`robocc.compile` (``references`` included);
/// ``on_failure``
/// (``"disallow"`` or ``"allow"``) is what hosts whose body fails to compile
/// get; ``base`` is a previous store whose unchanged policies are copied
/// (validated whole first: a damaged one raises ``StoreBuildError``);
/// ``max_store_bytes`` refuses a larger store (0: no limit); a build that read
/// no host does not replace a store with hosts unless ``allow_empty``. Paths are
/// ``str``, ``bytes`` or ``os.PathLike``; a FIFO, socket or device is an
/// ``OSError`` at once (never waited on). The GIL is released while
/// building. ``dialect="auto"`` is refused (one dialect for every host, as
/// ``robocc store build`` requires). ``agent`` may be a list (rfc9309), as
/// :func:`robocc.compile`'s: read together, or with ``each_agent=True``
/// each answered separately (every host's policy answers each agent as
/// one compiled for it alone, :meth:`Store.check_each`; ``robocc store
/// build --each-agent``).
///
/// Raises :class:`robocc.StoreBuildError` (unreadable or invalid input, a
/// store over the limit), :class:`robocc.AgentError` (a ``ValueError``;
/// a ``StoreBuildError`` as before) for an agent that is not a product
/// token, and ``ValueError`` for a bad option.
#[pyfunction]
#[pyo3(signature = (
    manifest_path, agent, out_path, *,
    dialect = "rfc9309", url_mode = None, robots_txt = "allow", data_txt = false,
    max_bytes = DEFAULT_MAX_BYTES_ARG, max_line_len = DEFAULT_MAX_LINE_LEN_ARG,
    max_rules = DEFAULT_MAX_RULES_ARG, max_states = Limit::new(Budget::default().max_states),
    max_table_bytes = Limit::new(Budget::default().total_bytes),
    max_automata = Limit::new(Budget::default().max_automata),
    compile_timeout = Seconds::new(Budget::default().time.as_secs_f64()),
    records_close_groups = false, training_agents = Strings::default(),
    preference_grouping = "spec",
    purposes = Strings::default(), layout = "auto", references = References::default(),
    on_failure = "disallow", base = None, max_store_bytes = Limit::new(u32::MAX as usize),
    allow_empty = false, each_agent = false,
))]
// Written out: see `compile`.
#[pyo3(
    text_signature = "(manifest_path, agent, out_path, *, dialect='rfc9309', url_mode=None, \
                      robots_txt='allow', data_txt=False, max_bytes=512000, max_line_len=16663, \
                      max_rules=100000, max_states=200000, max_table_bytes=268435456, \
                      max_automata=1024, compile_timeout=30.0, records_close_groups=False, \
                      training_agents=(), preference_grouping='spec', purposes=(), layout='auto', \
                      references={}, on_failure='disallow', base=None, max_store_bytes=4294967295, \
                      allow_empty=False, each_agent=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn build_store(
    py: Python<'_>,
    manifest_path: FsPath,
    agent: AgentsArg,
    out_path: FsPath,
    dialect: &str,
    url_mode: Option<&str>,
    robots_txt: &str,
    data_txt: bool,
    max_bytes: Limit,
    max_line_len: Limit,
    max_rules: Limit,
    max_states: Limit,
    max_table_bytes: Limit,
    max_automata: Limit,
    compile_timeout: Seconds,
    records_close_groups: bool,
    training_agents: Strings,
    preference_grouping: &str,
    purposes: Strings,
    layout: &str,
    references: References,
    on_failure: &str,
    base: Option<FsPath>,
    max_store_bytes: Limit,
    allow_empty: bool,
    each_agent: bool,
) -> PyResult<StoreReport> {
    let (manifest_path, out_path, base) = (manifest_path.0, out_path.0, base.map(|b| b.0));
    let options = Options {
        dialect,
        url_mode,
        robots_txt,
        data_txt,
        max_bytes,
        max_line_len,
        max_rules,
        max_states,
        max_table_bytes,
        max_automata,
        compile_timeout,
        records_close_groups,
        training_agents,
        preference_grouping,
        purposes,
        layout,
        references,
    }
    .compile_options(None)?;
    let agents = agent.get()?;
    if each_agent {
        // Each agent is read alone.
        for a in agents.iter() {
            crate::check_agent(py, &robocc_compiler::Agents::from(a), options.dialect)?;
        }
    } else {
        crate::check_agent(py, &agents, options.dialect)?;
    }
    let max_store_bytes = max_store_bytes.get("max_store_bytes")?;
    let on_failure = on_failure_arg(on_failure)?;
    let base = match base {
        Some(p) => {
            convert::open_input(&p)?;
            Some(robocc_engine::Store::open(&p).map_err(convert::load_error)?)
        }
        None => None,
    };
    // A manifest is read from the file opened here (never blocking on a
    // FIFO), not opened again by name.
    let manifest = if manifest_path.is_dir() {
        std::fs::read_dir(&manifest_path)?;
        None
    } else {
        Some(convert::open_input(&manifest_path)?)
    };
    let (bytes, report) = py.detach(|| {
        let inputs: Box<dyn Iterator<Item = Result<HostInput, InputError>>> = match manifest {
            None => Box::new(
                inputs_from_dir(&manifest_path)
                    .map_err(build_error)?
                    .into_iter()
                    .map(Ok),
            ),
            Some(file) => Box::new(manifest_inputs_from(
                file,
                &manifest_path.display().to_string(),
                manifest_path.parent().unwrap_or(std::path::Path::new(".")),
            )),
        };
        StoreBuilder::new(agents)
            .each_agent(each_agent)
            .compile_options(options)
            .on_failure(on_failure)
            .base(base.as_ref())
            .build(inputs)
            .map_err(build_error)
    })?;
    // 0: no limit, as on the command line.
    if bytes.len() > robocc_compiler::zero_is_unlimited(max_store_bytes) {
        return Err(build_error(format!(
            "{}: not written: the store would be {} bytes, over max_store_bytes={}",
            out_path.display(),
            bytes.len(),
            max_store_bytes
        )));
    }
    if report.hosts == 0 && !allow_empty {
        if let Some(held) = robocc_store::output::hosts_held(&out_path) {
            return Err(build_error(robocc_store::output::emptying_refused(
                &out_path,
                &held,
                "allow_empty=True",
            )));
        }
    }
    convert::write_replacing(&out_path, &bytes)?;
    let c = report.by_source;
    Ok(StoreReport {
        hosts: report.hosts,
        unique_policies: report.unique_policies,
        compiled: report.compiled,
        reused: report.reused,
        bodies_read: report.bodies_read,
        bodies_skipped: report.bodies_skipped,
        bytes: report.bytes,
        by_source: BTreeMap::from([
            ("fetched", c.fetched),
            ("unavailable", c.unavailable),
            ("unreachable", c.unreachable),
            ("redirected", c.redirected),
            ("failed", c.failed),
        ]),
        split: notes(report.split),
        unread: notes(report.unread),
        failures: notes(report.failures),
        duplicates: report.duplicates,
        not_modified: report.not_modified,
        not_modified_lost: notes(report.not_modified_lost),
    })
}

fn notes(notes: Vec<robocc_store::HostNote>) -> Vec<(String, String)> {
    notes.into_iter().map(|n| (n.host, n.note)).collect()
}
