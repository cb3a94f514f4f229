//! `robocc.Policy`, `robocc.Verdict`, `robocc.Diagnostic` and
//! `robocc.compile`.

use crate::convert::FsPath;
use crate::convert::{self, with_url};
use crate::options::{
    budget_keyword, Limit, Options, References, Seconds, Strings, DEFAULT_MAX_BYTES_ARG,
    DEFAULT_MAX_LINE_LEN_ARG, DEFAULT_MAX_RULES_ARG,
};
use crate::slot::Slot;
use crate::CompileError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use robocc_compiler::Budget;
use robocc_engine::{Dialect, PolicyFile, Usage, UsageStates};
use std::sync::Arc;

/// A compiled robots.txt policy for one agent.
///
/// Made by :func:`robocc.compile`, :meth:`Policy.from_bytes` or
/// :meth:`Policy.open` (memory-mapped). Immutable and safe to share between
/// threads; checks never allocate in the engine. A context manager:
/// ``with robocc.Policy.open(path) as policy:`` unmaps the file at the end
/// (:meth:`close`).
///
/// >>> policy = robocc.compile(b"User-agent: *\nDisallow: /private\n", "ExampleBot")
/// >>> policy.allowed("https://example.com/private/x")
/// False
#[pyclass(frozen, module = "robocc")]
pub struct Policy {
    /// The artifact, until closed.
    file: Slot<PolicyFile>,
    /// What the compiler reported, when this object was compiled here
    /// (artifacts do not keep diagnostics).
    diagnostics: Vec<robocc_compiler::Diagnostic>,
}

impl Policy {
    pub fn from_file(file: PolicyFile) -> Policy {
        Policy {
            file: Slot::new("Policy", file),
            diagnostics: Vec::new(),
        }
    }

    /// The artifact, or a `ValueError` once closed.
    fn file(&self) -> PyResult<Arc<PolicyFile>> {
        self.file.get()
    }
}

/// The usage called `name` (case-insensitive), or a `ValueError` naming
/// every usage.
fn parse_usage(name: &str) -> PyResult<Usage> {
    name.parse::<Usage>().map_err(|_| {
        let names = |us: &[Usage]| us.iter().map(|u| u.name()).collect::<Vec<_>>().join(", ");
        PyValueError::new_err(format!(
            "unknown usage {name:?}: expected one of {} (usage()) or {} (preference())",
            names(Usage::ACAP),
            names(Usage::SIGNALS)
        ))
    })
}

/// The usage `usage()` answers for `name` on a policy of `dialect`: crawl,
/// or an ACAP usage type of an acap policy. A preference channel (tri-state)
/// and an ACAP usage of another dialect (which nothing in the file could
/// have decided) are `ValueError`s saying what to call instead, as the
/// command line refuses them.
pub(crate) fn verdict_usage(name: &str, dialect: Dialect) -> PyResult<Usage> {
    let usage = parse_usage(name)?;
    if usage.is_signal() {
        return Err(PyValueError::new_err(format!(
            "usage {name:?} is an AI-usage preference channel, allowed, disallowed or \
             unknown: ask preference(url, {name:?}), which answers True, False or None"
        )));
    }
    if usage != Usage::Crawl && dialect != Dialect::Acap {
        return Err(PyValueError::new_err(format!(
            "usage {name:?} is an ACAP usage type, and this {} policy speaks of crawl and the \
             AI-usage preferences (search, train-ai, ai-input) only: compile with \
             dialect=\"acap\" to read ACAP records",
            dialect.name()
        )));
    }
    Ok(usage)
}

/// The AI-usage preference channel `preference()` answers for `name`; any
/// other usage is a `ValueError` pointing to `usage()`.
pub(crate) fn signal_usage(name: &str) -> PyResult<Usage> {
    let usage = parse_usage(name)?;
    if !usage.is_signal() {
        return Err(PyValueError::new_err(format!(
            "usage {name:?} is not an AI-usage preference channel (search, train-ai, \
             ai-input): its answer is allowed or disallowed, ask usage(url, {name:?})"
        )));
    }
    Ok(usage)
}

/// `usage_states()`'s dict: each usage the policy answers (its channels, in
/// order) → `True` (allowed), `False` (disallowed) or `None` (unknown).
pub(crate) fn states_dict<'py>(
    py: Python<'py>,
    policy: robocc_engine::Policy<'_>,
    states: UsageStates,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    // Validation: a policy's channels are usage names.
    for usage in policy.channels().filter_map(|c| c.parse::<Usage>().ok()) {
        let state = if states.allowed.contains(usage) {
            Some(true)
        } else if states.disallowed.contains(usage) {
            Some(false)
        } else {
            None
        };
        dict.set_item(PyString::intern(py, usage.name()), state)?;
    }
    Ok(dict)
}

/// The verdict of one policy on a URL, with the deciding rule.
pub fn verdict(policy: robocc_engine::Policy<'_>, v: robocc_engine::Verdict) -> Verdict {
    let rule = v.rule.and_then(|id| policy.rule(id));
    Verdict {
        allowed: v.allowed,
        rule: v.rule,
        rule_line: rule.and_then(|r| r.source_line()),
        pattern: rule.map(|r| r.pattern_text().into_owned()),
        origin: rule.map(|r| r.origin.name()),
        source: None,
    }
}

#[pymethods]
impl Policy {
    /// Reads a policy from artifact bytes (as written by
    /// :meth:`to_bytes` or ``robocc compile``), copying them.
    ///
    /// Raises :class:`robocc.LoadError` for bytes that are not a valid
    /// policy of this format version.
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Policy> {
        let bytes = convert::artifact_bytes(data, "policy bytes", "robocc.Policy.open")?;
        PolicyFile::from_slice(&bytes)
            .map(Policy::from_file)
            .map_err(convert::load_error)
    }

    /// Memory-maps and validates the policy file at ``path``.
    ///
    /// The file stays mapped while the object lives: replace it by renaming
    /// a new file over it (as :meth:`save` and the command line do), never
    /// by rewriting it in place. A mapped file truncated or rewritten under
    /// a reader can crash the process (docs/RELIABILITY.md).
    ///
    /// ``path`` is a ``str``, ``bytes`` or ``os.PathLike``, as for
    /// ``open()``. Raises ``OSError`` when the file cannot be opened and
    /// :class:`robocc.LoadError` when it is not a valid policy.
    #[staticmethod]
    fn open(path: FsPath) -> PyResult<Policy> {
        let path = path.0;
        // The engine opens it again (non-blocking too): this open only
        // gives its refusal the usual OSError subclass.
        convert::open_input(&path)?;
        PolicyFile::open(&path)
            .map(Policy::from_file)
            .map_err(convert::load_error)
    }

    /// The artifact bytes (what :meth:`from_bytes` and ``robocc check
    /// --policy`` read).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.file()?.as_bytes()))
    }

    /// Writes the artifact bytes to ``path`` through a temporary file and a
    /// rename, so that a process that has the old file open
    /// (:meth:`open`) keeps its consistent view. As ``robocc compile -o``:
    /// a link is followed (and kept), the old file's permissions are kept;
    /// a directory, a read-only file or another kind of file is refused,
    /// and a failed write raises, each as the usual ``OSError`` subclass
    /// naming ``path``.
    fn save(&self, path: FsPath) -> PyResult<()> {
        convert::write_replacing(&path.0, self.file()?.as_bytes())
    }

    /// Pickles as its artifact bytes (:meth:`from_bytes` reads them back;
    /// :attr:`diagnostics` are not kept, as in a saved artifact).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((
            from_bytes,
            (PyBytes::new(py, slf.get().file()?.as_bytes()),),
        ))
    }

    /// Releases the artifact (unmaps the file of :meth:`open`); every
    /// method then raises ``ValueError``. A batch check running in another
    /// thread finishes first on what it holds. Closing again does nothing.
    fn close(&self) {
        self.file.close();
    }

    /// Whether :meth:`close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.file.is_closed()
    }

    /// ``with robocc.Policy.open(path) as policy:`` closes it at the end.
    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().file()?;
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

    /// Whether ``url`` (absolute, or a path; ``str`` or ``bytes``) may be
    /// crawled.
    fn allowed(&self, url: &Bound<'_, PyAny>) -> PyResult<bool> {
        let file = self.file()?;
        let policy = file.policy();
        with_url(url, |u| policy.check(u).allowed)
    }

    /// The :class:`Verdict` for ``url``, naming the deciding rule.
    fn check(&self, url: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        let file = self.file()?;
        let policy = file.policy();
        with_url(url, |u| verdict(policy, policy.check(u)))
    }

    /// ``[policy.allowed(u) for u in urls]`` in one call: the URLs are read
    /// first, then checked in Rust with the GIL released.
    fn allowed_many(&self, py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let urls = convert::urls(urls)?;
        let file = self.file()?;
        Ok(py.detach(|| {
            let policy = file.policy();
            let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
            let mut out = vec![policy.check(b"/"); refs.len()];
            policy.check_batch(&refs, &mut out);
            out.iter().map(|v| v.allowed).collect()
        }))
    }

    /// Whether ``url`` may be used for ``usage``: ``"crawl"`` (as
    /// :meth:`allowed`), or on an ``acap`` policy any of its 14 usage types
    /// (``"follow"``, ``"index"``, ``"preserve"``, ``"present"``,
    /// ``"present-snippet"``, …, ``"other"``; any case). ``False`` with no
    /// deciding rule is ACAP's undecidable conflict (prohibited).
    ///
    /// Raises ``ValueError`` for an unknown usage name, for an ACAP usage
    /// type asked of a policy of another dialect (nothing in it could decide
    /// one: compile with ``dialect="acap"``), and for an AI-usage preference
    /// channel (``"search"``, ``"train-ai"``, ``"ai-input"``: tri-state, ask
    /// :meth:`preference`).
    fn usage(&self, url: &Bound<'_, PyAny>, usage: &str) -> PyResult<bool> {
        let file = self.file()?;
        let policy = file.policy();
        let usage = verdict_usage(usage, policy.header().dialect)?;
        with_url(url, |u| policy.check_usage(u, usage).allowed)
    }

    /// The AI-usage preference for ``url`` on ``usage`` (``"search"``,
    /// ``"train-ai"`` or ``"ai-input"``; any case), from the file's
    /// Content-Usage and Content-Signal lines and the ``training_agents``
    /// given to :func:`compile`: ``True`` (allowed), ``False``
    /// (disallowed) or ``None`` (unknown: nothing stated for this URL, a URL
    /// the agent may not crawl, or a policy without preference channels,
    /// such as every non-rfc9309 one).
    ///
    /// >>> policy = robocc.compile(b"User-agent: *\nContent-Usage: train-ai=n\n", "ExampleBot")
    /// >>> policy.preference("https://example.com/", "train-ai"), policy.preference("/", "search")
    /// (False, None)
    ///
    /// Raises ``ValueError`` for an unknown usage name and for a usage that
    /// is not a preference channel (``"crawl"``, the ACAP usage types: ask
    /// :meth:`usage`).
    fn preference(&self, url: &Bound<'_, PyAny>, usage: &str) -> PyResult<Option<bool>> {
        let usage = signal_usage(usage)?;
        let file = self.file()?;
        let policy = file.policy();
        with_url(url, |u| policy.preference(u, usage).map(|v| v.allowed))
    }

    /// Every usage the policy answers for ``url``, from one pass over it:
    /// a dict from usage name (the keys are :attr:`usages`, in order) to
    /// ``True`` (allowed), ``False`` (disallowed) or ``None`` (unknown; only
    /// the preference channels can be).
    ///
    /// The keys: an ``acap`` policy's 14 usage types; ``"crawl"`` and the
    /// preference channels ``"search"``, ``"train-ai"``, ``"ai-input"`` for
    /// an rfc9309 policy whose file states preferences (or that was
    /// compiled with ``training_agents``); ``"crawl"`` alone otherwise
    /// (:meth:`preference` answers ``None`` there).
    fn usage_states<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let file = self.file()?;
        let policy = file.policy();
        let states = with_url(url, |u| policy.usage_states(u))?;
        states_dict(py, policy, states)
    }

    /// The usages this policy answers for, in order: ``("crawl",)``;
    /// ``("crawl", "search", "train-ai", "ai-input")`` for an rfc9309
    /// policy with AI-usage preference channels; the 14 ACAP usage types
    /// for an ``acap`` policy.
    #[getter]
    fn usages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.file()?.policy().channels().collect::<Vec<_>>())
    }

    /// The product token the policy was compiled for.
    #[getter]
    fn agent(&self) -> PyResult<String> {
        Ok(self.file()?.policy().header().agent.to_string())
    }

    /// The dialect it was compiled with (``"rfc9309"``, ``"draft1996"``,
    /// ``"robots2"``, ``"acap"``).
    #[getter]
    fn dialect(&self) -> PyResult<&'static str> {
        Ok(self.file()?.policy().header().dialect.name())
    }

    /// How URLs are encoded before matching (``"google"``, ``"rfc"`` or
    /// ``"decode"``).
    #[getter]
    fn url_mode(&self) -> PyResult<&'static str> {
        Ok(self.file()?.policy().header().url_mode.name())
    }

    /// The agent's Crawl-delay in seconds (the first valid one), or ``None``.
    #[getter]
    fn crawl_delay(&self) -> PyResult<Option<f64>> {
        Ok(self
            .file()?
            .policy()
            .meta()
            .crawl_delay_ms()
            .map(|ms| ms as f64 / 1000.0))
    }

    /// Sitemap URLs of the file, in file order. A ``Sitemap:`` line with
    /// no value names no sitemap and is left out (as Protego does).
    #[getter]
    fn sitemaps(&self) -> PyResult<Vec<String>> {
        Ok(self
            .file()?
            .policy()
            .meta()
            .sitemaps()
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
            .collect())
    }

    /// Host records of the file (Yandex's preferred host), in file order;
    /// a ``Host:`` line with no value is left out.
    #[getter]
    fn hosts(&self) -> PyResult<Vec<String>> {
        Ok(self
            .file()?
            .policy()
            .meta()
            .hosts()
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The agent's first valid Request-rate as a :class:`RequestRate`, or
    /// ``None``. Read in every dialect (robots 2.0 defines it).
    #[getter]
    fn request_rate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.request_rates(py)?.into_iter().next())
    }

    /// Every valid Request-rate of the agent, in file order.
    #[getter]
    fn request_rates<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.file()?
            .policy()
            .meta()
            .request_rates()
            .map(|r| convert::request_rate(py, &r))
            .collect()
    }

    /// The agent's first valid Visit-time as a :class:`VisitTime` (UTC),
    /// or ``None``.
    #[getter]
    fn visit_time<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.visit_times(py)?.into_iter().next())
    }

    /// Every valid Visit-time of the agent, in file order.
    #[getter]
    fn visit_times<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.file()?
            .policy()
            .meta()
            .visit_times()
            .map(|w| convert::visit_time(py, &w))
            .collect()
    }

    /// What the compiler reported (ignored lines, limits reached, …) when
    /// this policy was compiled by :func:`robocc.compile`; empty for a
    /// policy read from bytes or a file.
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .iter()
            .map(|d| Diagnostic {
                line: d.line,
                code: d.code.name(),
                severity: d.severity.name(),
                message: d.message.clone(),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        let Ok(file) = self.file() else {
            return "<robocc.Policy closed>".to_string();
        };
        let p = file.policy();
        let h = p.header();
        format!(
            "<robocc.Policy agent={:?} dialect={} rules={} automata={}>",
            h.agent,
            h.dialect,
            p.rule_count(),
            h.automata
        )
    }
}

/// The answer for one URL.
///
/// ``allowed``: may it be fetched; ``rule``: index of the deciding rule, or
/// ``None`` when no rule matched (the default applies); ``rule_line``: its
/// 1-based line in the robots.txt, ``None`` when no rule or an implicit one
/// decided; ``pattern``: the deciding rule's pattern as matched;
/// ``origin``: ``"line"``, ``"index-htm"`` (Google's index.htm rule) or
/// ``"robots-txt"`` (/robots.txt is always allowed); ``source``: for a
/// :class:`Store`'s answer, where the host's policy came from
/// (:meth:`Store.check`), else ``None``.
#[pyclass(frozen, get_all, eq, hash, module = "robocc")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    pub allowed: bool,
    pub rule: Option<u32>,
    pub rule_line: Option<u32>,
    pub pattern: Option<String>,
    pub origin: Option<&'static str>,
    pub source: Option<&'static str>,
}

#[pymethods]
impl Verdict {
    /// Pickles as its fields (worker processes send verdicts back).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let v = slf.get();
        let state = (
            v.allowed,
            v.rule,
            v.rule_line,
            v.pattern.clone(),
            v.origin,
            v.source,
        );
        Ok((
            slf.get_type().getattr("_from_state")?,
            state.into_pyobject(slf.py())?,
        ))
    }

    /// The inverse of `__reduce__`: names are checked against robocc's own.
    #[staticmethod]
    fn _from_state(
        allowed: bool,
        rule: Option<u32>,
        rule_line: Option<u32>,
        pattern: Option<String>,
        origin: Option<&str>,
        source: Option<&str>,
    ) -> PyResult<Verdict> {
        let bad = |what: &str, name: &str| PyValueError::new_err(format!("not a {what}: {name:?}"));
        let origin = origin
            .map(|o| {
                o.parse::<robocc_engine::RuleOrigin>()
                    .map(|o| o.name())
                    .map_err(|_| bad("rule origin", o))
            })
            .transpose()?;
        let source = source
            .map(|s| {
                robocc_engine::HostSource::ALL
                    .iter()
                    .find(|h| h.name() == s)
                    .map(|h| h.name())
                    .ok_or_else(|| bad("host source", s))
            })
            .transpose()?;
        Ok(Verdict {
            allowed,
            rule,
            rule_line,
            pattern,
            origin,
            source,
        })
    }

    /// No truth value: ``if policy.check(url):`` was true for every
    /// verdict, disallowed ones included, and fetched what it should not.
    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "a Verdict has no truth value: test verdict.allowed (a Store's check() \
             answers None for a host not in the store: test `is None` first)",
        ))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = |v: Option<&str>| -> PyResult<String> {
            match v {
                Some(s) => Ok(PyString::new(py, s).repr()?.to_cow()?.into_owned()),
                None => Ok("None".to_string()),
            }
        };
        // `source` only where there is one (a store's answer).
        let source = match self.source {
            Some(s) => format!(", source={}", r(Some(s))?),
            None => String::new(),
        };
        Ok(format!(
            "Verdict(allowed={}, rule_line={}, pattern={}, origin={}{source})",
            if self.allowed { "True" } else { "False" },
            self.rule_line.map_or("None".to_string(), |l| l.to_string()),
            r(self.pattern.as_deref())?,
            r(self.origin)?,
        ))
    }
}

/// A finding of the compiler: ``line`` (1-based; 0 for the whole file),
/// ``code`` (``"parse-limit"``, ``"typo-key"``, …), ``severity``
/// (``"info"`` or ``"warning"``) and ``message``.
#[pyclass(frozen, get_all, module = "robocc")]
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub line: u32,
    pub code: &'static str,
    pub severity: &'static str,
    pub message: String,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(line={}, code={:?}, severity={:?}, message={:?})",
            self.line, self.code, self.severity, self.message
        )
    }

    fn __str__(&self) -> String {
        format!(
            "line {}: {}: {} [{}]",
            self.line, self.severity, self.message, self.code
        )
    }
}

/// Compiles a robots.txt for the product token ``agent`` into a
/// :class:`Policy`.
///
/// ``robots`` is the file's contents: ``bytes``, or text (encoded as
/// UTF-8). A ``str`` of one line that names an existing file, or that no
/// robots.txt line could be (no ``:`` or space: ``"robots.txt"``), is a
/// ``ValueError``: compile a file with ``compile(open(path, "rb").read(),
/// agent)``; :meth:`Policy.open` opens a compiled policy. The keyword
/// arguments are the command line's flags, with its defaults: ``dialect``
/// (``"rfc9309"``, ``"draft1996"``, ``"robots2"``, ``"acap"``, or
/// ``"auto"``: chosen from the file as ``--dialect auto`` does — acap when
/// a key starts with ``ACAP-``, robots2 when one is ``Robot-version``, else
/// rfc9309; :attr:`Policy.dialect` says which), ``url_mode`` (rfc9309
/// only: ``"google"``, the default, matches URLs as given; ``"rfc"``
/// normalises per RFC 9309; the other dialects read URLs their own way and
/// refuse it), ``robots_txt`` (``"allow"``: /robots.txt always allowed;
/// ``"rules"``), ``data_txt``, the parse limits ``max_bytes``,
/// ``max_line_len``, ``max_rules`` (per group), ``records_close_groups``,
/// and the automaton budget ``max_states``, ``max_table_bytes``,
/// ``max_automata``, ``compile_timeout`` (seconds). As on the command
/// line, 0 lifts any of these limits (and ``float("inf")`` the timeout).
/// A limit that drops input is reported in :attr:`Policy.diagnostics`.
/// ``layout`` (``--layout``): ``"auto"`` (the default: compact, with table
/// rows where ``*`` rules would slow it, up to 32 KiB per automaton and
/// programs of 12× the robots.txt counted as at least 1 KiB),
/// ``"compact"`` (artifacts about the size of the robots.txt) or
/// ``"dense"`` (a table row per state: the fastest checks, typically 3–7×
/// the bytes).
///
/// ``training_agents`` (rfc9309; ``--training-agent``): a list of product
/// tokens AI operators use for training only, such as
/// ``["Google-Extended"]``; where a group naming one disallows a URL, its
/// ``train-ai`` preference is disallowed (:meth:`Policy.preference`).
/// ``purposes`` (acap; ``--purpose``): a list of the usage purposes the
/// crawler serves; ACAP sub-records whose purpose pattern matches one
/// apply. ``references`` (acap; ``--reference PATH=FILE``): a dict from
/// the path an ``ACAP-permissions-reference`` field writes to the
/// referenced file's contents (``bytes`` or ``str``); a reference with no
/// file here makes its record prohibit every usage.
///
/// Raises :class:`robocc.AgentError` (a ``ValueError``, and a
/// ``CompileError``) for an agent that is not a product token;
/// ``ValueError`` for a bad option (an unknown value, ``url_mode``,
/// ``training_agents`` or ``purposes`` with a dialect they do not apply
/// to, ``training_agents`` that are not product tokens); ``TypeError`` for
/// an argument of the wrong type (a ``bool`` as a limit, a ``str`` as a
/// list); :class:`robocc.CompileError` when the file cannot be compiled
/// within the budget: its message names the keyword that raises the limit
/// (``max_automata=0`` …), which its ``limit`` attribute holds.
/// The GIL is released while compiling.
#[pyfunction]
#[pyo3(signature = (
    robots, agent, *,
    dialect = "rfc9309", url_mode = None, robots_txt = "allow", data_txt = false,
    max_bytes = DEFAULT_MAX_BYTES_ARG, max_line_len = DEFAULT_MAX_LINE_LEN_ARG,
    max_rules = DEFAULT_MAX_RULES_ARG, max_states = Limit::new(Budget::default().max_states),
    max_table_bytes = Limit::new(Budget::default().total_bytes),
    max_automata = Limit::new(Budget::default().max_automata),
    compile_timeout = Seconds::new(Budget::default().time.as_secs_f64()),
    records_close_groups = false, training_agents = Strings::default(),
    purposes = Strings::default(), layout = "auto", references = References::default(),
))]
// Written out: PyO3 would show the defaults that are not literals as `...`
// (checked against the library's constants at import:
// `options::check_signature_defaults`).
#[pyo3(
    text_signature = "(robots, agent, *, dialect='rfc9309', url_mode=None, robots_txt='allow', \
                      data_txt=False, max_bytes=512000, max_line_len=16663, max_rules=100000, \
                      max_states=200000, max_table_bytes=268435456, max_automata=1024, \
                      compile_timeout=30.0, records_close_groups=False, training_agents=(), \
                      purposes=(), layout='auto', references={})"
)]
#[allow(clippy::too_many_arguments)]
pub fn compile(
    py: Python<'_>,
    robots: &Bound<'_, PyAny>,
    agent: &str,
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
    purposes: Strings,
    layout: &str,
    references: References,
) -> PyResult<Policy> {
    let body = convert::robots_body(robots, "robots")?;
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
        purposes,
        layout,
        references,
    }
    .compile_options(Some(&body))?;
    crate::check_agent(py, agent, options.dialect)?;
    let compiled = py
        .detach(|| robocc_compiler::compile(&body, agent, &options))
        .map_err(|e| compile_error(py, &e))?;
    let file = PolicyFile::from_slice(&compiled.to_bytes()).map_err(|e| {
        // The compiler's own output failing validation is a robocc bug.
        CompileError::new_err(format!("the compiled artifact was refused: {e}"))
    })?;
    Ok(Policy {
        file: Slot::new("Policy", file),
        diagnostics: compiled.diagnostics,
    })
}

/// A compile error as `robocc.CompileError` (`robocc.AgentError` for a bad
/// agent). A budget's message ends with the keyword that raises it, as the
/// command line's names its flag, and the exception's `limit` attribute is
/// that keyword (`None` for other errors): the Scrapy and Protego adapters
/// read it.
pub fn compile_error(py: Python<'_>, e: &robocc_compiler::CompileError) -> PyErr {
    if let robocc_compiler::CompileError::BadAgent(why) = e {
        return crate::agent_error(py, why);
    }
    let keyword = budget_keyword(e);
    let message = match keyword {
        Some(k) => format!("{e} (raise the limit with {k}=N, or {k}=0 for no limit)"),
        None => e.to_string(),
    };
    let err = CompileError::new_err(message);
    if let Err(set) = err.value(py).setattr("limit", keyword) {
        return set;
    }
    err
}
