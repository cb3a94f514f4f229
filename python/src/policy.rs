//! `robocc.Policy`, `robocc.Verdict`, `robocc.Diagnostic` and
//! `robocc.compile`.

use crate::convert::FsPath;
use crate::convert::{self, with_url};
use crate::options::{
    budget_keyword, AgentsArg, Limit, Options, References, Seconds, Strings, DEFAULT_MAX_BYTES_ARG,
    DEFAULT_MAX_LINE_LEN_ARG, DEFAULT_MAX_RULES_ARG,
};
use crate::slot::Slot;
use crate::CompileError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use robocc_compiler::{Budget, Checker};
use robocc_engine::artifact::MetaData;
use robocc_engine::{
    Dialect, PolicyFile, RecordKind, RequestRate, RuleRef, TimeWindow, UrlMode, Usage, UsageStates,
};
use std::sync::Arc;

/// A robots.txt policy for one agent.
///
/// Made by :func:`robocc.compile` (which answers at once from the file's
/// rules and compiles the automaton when the checks have paid for it, or
/// when something needs the artifact), :meth:`Policy.from_bytes` or
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
    /// What it answers from, until closed.
    source: Slot<Source>,
}

/// What a [`Policy`] answers from.
enum Source {
    /// An artifact: read (`from_bytes`, `open`, a store's) or compiled at
    /// once (`compile(..., eager=True)`, with what the compiler reported;
    /// artifacts do not keep diagnostics).
    File {
        file: PolicyFile,
        diagnostics: Vec<robocc_compiler::Diagnostic>,
    },
    /// `compile`'s: the rules, interpreted until the checks have cost
    /// about what compiling does, then the automaton (the checker's ski
    /// rental); the artifact is compiled once, when something needs it
    /// ([`artifact`]), and the checks go to it from then on. A checker that
    /// has compiled is replaced by its artifact ([`Policy::source`]).
    Rules(Box<Checker>),
}

impl Policy {
    pub fn from_file(file: PolicyFile) -> Policy {
        Policy::new(Source::File {
            file,
            diagnostics: Vec::new(),
        })
    }

    fn new(source: Source) -> Policy {
        Policy {
            source: Slot::new("Policy", source),
        }
    }

    /// What it answers from, or a `ValueError` once closed. A checker that
    /// has compiled gives way to its artifact here: the policy then holds
    /// what `compile(..., eager=True)`'s does, not the rules besides.
    fn source(&self) -> PyResult<Arc<Source>> {
        let source = self.source.get()?;
        match &*source {
            Source::Rules(c) if c.is_compiled() => {
                self.source.replace(|now| match now {
                    Source::Rules(c) => {
                        let p = c.promoted().ok()?;
                        // Copied (the checker owns it): validated again,
                        // once.
                        let file = PolicyFile::from_slice(p.file.as_bytes()).ok()?;
                        Some(Source::File {
                            file,
                            diagnostics: p.diagnostics.clone(),
                        })
                    }
                    Source::File { .. } => None,
                });
                self.source.get()
            }
            _ => Ok(source),
        }
    }
}

/// Answers for one call: the artifact's engine view, or the checker while
/// it interprets. Both answer alike (the checker is tested against the
/// compiled policy, verdict and deciding rule, on every channel).
#[derive(Clone, Copy)]
enum Answerer<'a> {
    Compiled(robocc_engine::Policy<'a>),
    Rules(&'a Checker),
}

impl<'a> Answerer<'a> {
    fn of(source: &'a Source) -> Answerer<'a> {
        match source {
            Source::File { file, .. } => Answerer::Compiled(file.policy()),
            Source::Rules(c) => match c.compiled() {
                Some(file) => Answerer::Compiled(file.policy()),
                None => Answerer::Rules(c),
            },
        }
    }

    /// `f` on the checker. A check may compile first (the checks so far
    /// have paid for it): the GIL is released for that one, as `compile`
    /// releases it, so that other threads run meanwhile; an interpreted
    /// check (tens of nanoseconds to microseconds) keeps it.
    fn interpret<R: Send>(py: Python<'_>, c: &Checker, f: impl FnOnce(&Checker) -> R + Send) -> R {
        if c.promotion_due() {
            py.detach(|| f(c))
        } else {
            f(c)
        }
    }

    fn check(self, py: Python<'_>, url: &[u8]) -> robocc_engine::Verdict {
        match self {
            Answerer::Compiled(p) => p.check(url),
            Answerer::Rules(c) => Self::interpret(py, c, |c| c.check(url)),
        }
    }

    fn check_usage(self, py: Python<'_>, url: &[u8], usage: Usage) -> robocc_engine::Verdict {
        match self {
            Answerer::Compiled(p) => p.check_usage(url, usage),
            Answerer::Rules(c) => Self::interpret(py, c, |c| c.check_usage(url, usage)),
        }
    }

    fn preference(self, py: Python<'_>, url: &[u8], usage: Usage) -> Option<bool> {
        let v = match self {
            Answerer::Compiled(p) => p.preference(url, usage),
            Answerer::Rules(c) => Self::interpret(py, c, |c| c.preference(url, usage)),
        };
        v.map(|v| v.allowed)
    }

    fn usage_states(self, py: Python<'_>, url: &[u8]) -> UsageStates {
        match self {
            Answerer::Compiled(p) => p.usage_states(url),
            Answerer::Rules(c) => Self::interpret(py, c, |c| c.usage_states(url)),
        }
    }

    fn rule(self, id: robocc_engine::RuleId) -> Option<RuleRef<'a>> {
        match self {
            Answerer::Compiled(p) => p.rule(id),
            Answerer::Rules(c) => c.rule(id),
        }
    }

    /// The verdict as Python sees it, naming the deciding rule.
    fn verdict(self, v: robocc_engine::Verdict) -> Verdict {
        verdict_of(v, v.rule.and_then(|id| self.rule(id)))
    }

    fn dialect(self) -> Dialect {
        match self {
            Answerer::Compiled(p) => p.header().dialect,
            Answerer::Rules(c) => c.dialect(),
        }
    }

    fn url_mode(self) -> UrlMode {
        match self {
            Answerer::Compiled(p) => p.header().url_mode,
            Answerer::Rules(c) => c.url_mode(),
        }
    }

    fn agent(self) -> &'a str {
        match self {
            Answerer::Compiled(p) => p.header().agent,
            Answerer::Rules(c) => c.agent(),
        }
    }

    fn channels(self) -> Vec<&'a str> {
        match self {
            Answerer::Compiled(p) => p.channels().collect(),
            Answerer::Rules(c) => c.channels().to_vec(),
        }
    }

    fn rule_count(self) -> usize {
        match self {
            Answerer::Compiled(p) => p.rule_count(),
            Answerer::Rules(c) => c.rule_count(),
        }
    }

    /// The policy's records (Crawl-delay, Sitemap, …): the artifact's, or
    /// the checker's, read from the body without compiling.
    fn records(self) -> Records<'a> {
        match self {
            Answerer::Compiled(p) => Records::Artifact(p.meta()),
            Answerer::Rules(c) => Records::Read(c.metadata()),
        }
    }
}

/// A policy's records, as [`robocc_engine::Meta`] reads them from an
/// artifact and as the same data before it is written.
enum Records<'a> {
    Artifact(robocc_engine::Meta<'a>),
    Read(&'a MetaData),
}

impl<'a> Records<'a> {
    fn crawl_delay_ms(&self) -> Option<u64> {
        match self {
            Records::Artifact(m) => m.crawl_delay_ms(),
            Records::Read(m) => m.crawl_delay_ms,
        }
    }

    /// The values of the file's global records of `kind`, in file order
    /// (`Meta::sitemaps`, `Meta::hosts`).
    fn global(&self, kind: RecordKind) -> Vec<&'a str> {
        match self {
            Records::Artifact(m) => m
                .global_records()
                .filter(|r| r.kind == kind)
                .map(|r| r.value)
                .collect(),
            Records::Read(m) => m
                .global_records
                .iter()
                .filter(|r| r.kind == kind as u8)
                .map(|r| r.value.as_str())
                .collect(),
        }
    }

    fn request_rates(&self) -> Vec<RequestRate> {
        match self {
            Records::Artifact(m) => m.request_rates().collect(),
            Records::Read(m) => m
                .request_rates
                .iter()
                .map(|r| RequestRate {
                    rate: robocc_engine::Rate {
                        documents: r.documents,
                        seconds: r.seconds,
                    },
                    window: r.window.as_ref().map(|w| TimeWindow {
                        start: w.start,
                        end: w.end,
                    }),
                    line: r.line,
                })
                .collect(),
        }
    }

    fn visit_times(&self) -> Vec<TimeWindow> {
        match self {
            Records::Artifact(m) => m.visit_times().collect(),
            Records::Read(m) => m
                .visit_times
                .iter()
                .map(|w| TimeWindow {
                    start: w.start,
                    end: w.end,
                })
                .collect(),
        }
    }
}

/// The artifact and the compiler's findings, compiling them now (once,
/// the GIL released) for a policy of `compile`'s; a `CompileError` naming
/// the keyword that raises the limit when the rules cannot be compiled as
/// written within the budget (the policy still answers every check, from
/// its rules).
fn artifact<'s>(
    py: Python<'_>,
    source: &'s Source,
) -> PyResult<(&'s PolicyFile, &'s [robocc_compiler::Diagnostic])> {
    match source {
        Source::File { file, diagnostics } => Ok((file, diagnostics)),
        Source::Rules(c) => {
            let promoted = match c.compiled() {
                Some(_) => c.promoted(),
                None => py.detach(|| c.promoted()),
            };
            promoted
                .map(|p| (&p.file, &p.diagnostics[..]))
                .map_err(|e| {
                    // compile(eager=True) would drop the preferences to fit
                    // (when the rules fit alone): say so, it may be what
                    // the caller wants.
                    let signals = c.channels().iter().any(|u| *u == Usage::TrainAi.name());
                    let eager = "or compile with eager=True, which drops the AI-usage \
                                 preference statements if the rules fit without them";
                    compile_error_advising(py, e, signals.then_some(eager))
                })
        }
    }
}

/// The usage called `name` (case-insensitive), or a `ValueError` naming
/// every usage.
pub(crate) fn parse_usage(name: &str) -> PyResult<Usage> {
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
    channel_states(py, policy.channels(), states)
}

/// [`states_dict`] for the usages `channels` names.
fn channel_states<'py, 'c>(
    py: Python<'py>,
    channels: impl IntoIterator<Item = &'c str>,
    states: UsageStates,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    // Validation: a policy's channels are usage names.
    for usage in channels.into_iter().filter_map(|c| c.parse::<Usage>().ok()) {
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
    verdict_of(v, v.rule.and_then(|id| policy.rule(id)))
}

/// A verdict as Python sees it; `rule` is its deciding rule.
fn verdict_of(v: robocc_engine::Verdict, rule: Option<RuleRef<'_>>) -> Verdict {
    Verdict {
        allowed: v.allowed,
        // Python sees rule ids as ints.
        rule: v.rule.map(robocc_engine::RuleId::get),
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
    /// --policy`` read). A policy of :func:`compile` is compiled now if it
    /// was not yet (once; :class:`robocc.CompileError` when its rules do
    /// not fit the automaton budget).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let source = self.source()?;
        let (file, _) = artifact(py, &source)?;
        Ok(PyBytes::new(py, file.as_bytes()))
    }

    /// Writes the artifact bytes to ``path`` through a temporary file and a
    /// rename, so that a process that has the old file open
    /// (:meth:`open`) keeps its consistent view. As ``robocc compile -o``:
    /// a link is followed (and kept), the old file's permissions are kept;
    /// a directory, a read-only file or another kind of file is refused,
    /// and a failed write raises, each as the usual ``OSError`` subclass
    /// naming ``path``. Compiles first as :meth:`to_bytes` does.
    fn save(&self, py: Python<'_>, path: FsPath) -> PyResult<()> {
        let source = self.source()?;
        let (file, _) = artifact(py, &source)?;
        convert::write_replacing(&path.0, file.as_bytes())
    }

    /// Pickles as its artifact bytes (:meth:`from_bytes` reads them back;
    /// :attr:`diagnostics` are not kept, as in a saved artifact). Compiles
    /// first as :meth:`to_bytes` does.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((from_bytes, (slf.get().to_bytes(py)?,)))
    }

    /// Releases the artifact (unmaps the file of :meth:`open`); every
    /// method then raises ``ValueError``. A batch check running in another
    /// thread finishes first on what it holds. Closing again does nothing.
    fn close(&self) {
        self.source.close();
    }

    /// Whether :meth:`close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.source.is_closed()
    }

    /// ``with robocc.Policy.open(path) as policy:`` closes it at the end.
    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().source()?;
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
    fn allowed(&self, py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<bool> {
        let source = self.source()?;
        let a = Answerer::of(&source);
        with_url(url, |u| a.check(py, u).allowed)
    }

    /// The :class:`Verdict` for ``url``, naming the deciding rule.
    fn check(&self, py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        let source = self.source()?;
        let a = Answerer::of(&source);
        with_url(url, |u| a.verdict(a.check(py, u)))
    }

    /// ``[policy.allowed(u) for u in urls]`` in one call: the URLs are read
    /// first, then checked in Rust with the GIL released.
    fn allowed_many(&self, py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let urls = convert::urls(urls)?;
        let source = self.source()?;
        Ok(py.detach(|| {
            let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
            let mut out = Vec::with_capacity(refs.len());
            // A checker that interprets: one URL at a time until it has
            // compiled (then the rest as one batch).
            if let Source::Rules(c) = &*source {
                while out.len() < refs.len() && !c.is_compiled() {
                    out.push(c.check(refs[out.len()]).allowed);
                }
            }
            let rest = &refs[out.len()..];
            if let Answerer::Compiled(policy) = Answerer::of(&source) {
                let mut verdicts = vec![policy.check(b"/"); rest.len()];
                policy.check_batch(rest, &mut verdicts);
                out.extend(verdicts.iter().map(|v| v.allowed));
            }
            out
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
    fn usage(&self, py: Python<'_>, url: &Bound<'_, PyAny>, usage: &str) -> PyResult<bool> {
        let source = self.source()?;
        let a = Answerer::of(&source);
        let usage = verdict_usage(usage, a.dialect())?;
        with_url(url, |u| a.check_usage(py, u, usage).allowed)
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
    fn preference(
        &self,
        py: Python<'_>,
        url: &Bound<'_, PyAny>,
        usage: &str,
    ) -> PyResult<Option<bool>> {
        let usage = signal_usage(usage)?;
        let source = self.source()?;
        let a = Answerer::of(&source);
        with_url(url, |u| a.preference(py, u, usage))
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
        let source = self.source()?;
        let a = Answerer::of(&source);
        let states = with_url(url, |u| a.usage_states(py, u))?;
        channel_states(py, a.channels(), states)
    }

    /// The usages this policy answers for, in order: ``("crawl",)``;
    /// ``("crawl", "search", "train-ai", "ai-input")`` for an rfc9309
    /// policy with AI-usage preference channels; the 14 ACAP usage types
    /// for an ``acap`` policy.
    #[getter]
    fn usages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let source = self.source()?;
        PyTuple::new(py, Answerer::of(&source).channels())
    }

    /// The agents :meth:`check_each` answers, in order: each agent of a
    /// policy compiled with ``each_agent=True`` (or ``robocc compile
    /// --each-agent``); otherwise one, :attr:`agent`.
    #[getter]
    fn agents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let source = self.source()?;
        match Answerer::of(&source) {
            Answerer::Compiled(p) => PyTuple::new(py, p.agents()),
            Answerer::Rules(c) => PyTuple::new(py, [c.agent()]),
        }
    }

    /// Each agent's :class:`Verdict` for ``url`` (crawl), from one walk: a
    /// dict from agent (:attr:`agents`, in order) to its verdict, as a
    /// policy compiled for that agent alone answers (same deciding line).
    ///
    /// >>> body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n"
    /// >>> policy = robocc.compile(body, ["GPTBot", "CCBot"], each_agent=True)
    /// >>> {a: v.allowed for a, v in policy.check_each("https://example.com/a").items()}
    /// {'GPTBot': False, 'CCBot': True}
    fn check_each<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let source = self.source()?;
        let a = Answerer::of(&source);
        let dict = PyDict::new(py);
        match a {
            Answerer::Compiled(p) => {
                let mut out = vec![
                    robocc_engine::Verdict {
                        allowed: true,
                        rule: None
                    };
                    p.agent_count()
                ];
                with_url(url, |u| p.check_each(u, &mut out))?;
                for (agent, v) in p.agents().zip(out) {
                    dict.set_item(agent, verdict(p, v))?;
                }
            }
            Answerer::Rules(c) => {
                let v = with_url(url, |u| a.verdict(a.check(py, u)))?;
                dict.set_item(c.agent(), v)?;
            }
        }
        Ok(dict)
    }

    /// The product token the policy was compiled for.
    #[getter]
    fn agent(&self) -> PyResult<String> {
        Ok(Answerer::of(&*self.source()?).agent().to_string())
    }

    /// The dialect it was compiled with (``"rfc9309"``, ``"draft1996"``,
    /// ``"robots2"``, ``"acap"``).
    #[getter]
    fn dialect(&self) -> PyResult<&'static str> {
        Ok(Answerer::of(&*self.source()?).dialect().name())
    }

    /// How URLs are encoded before matching (``"google"``, ``"rfc"`` or
    /// ``"decode"``).
    #[getter]
    fn url_mode(&self) -> PyResult<&'static str> {
        Ok(Answerer::of(&*self.source()?).url_mode().name())
    }

    /// The agent's Crawl-delay in seconds (the first valid one), or ``None``.
    #[getter]
    fn crawl_delay(&self) -> PyResult<Option<f64>> {
        let source = self.source()?;
        let ms = Answerer::of(&source).records().crawl_delay_ms();
        Ok(ms.map(|ms| ms as f64 / 1000.0))
    }

    /// Sitemap URLs of the file, in file order. A ``Sitemap:`` line with
    /// no value names no sitemap and is left out (as Protego does).
    #[getter]
    fn sitemaps(&self) -> PyResult<Vec<String>> {
        self.global_values(RecordKind::Sitemap)
    }

    /// Host records of the file (Yandex's preferred host), in file order;
    /// a ``Host:`` line with no value is left out.
    #[getter]
    fn hosts(&self) -> PyResult<Vec<String>> {
        self.global_values(RecordKind::Host)
    }

    /// RSL 1.0 ``License`` URLs of the file (rslstandard.org: the site's
    /// license files, for every crawler wherever the line stands), in file
    /// order; a ``License:`` line with no value is left out.
    #[getter]
    fn licenses(&self) -> PyResult<Vec<String>> {
        self.global_values(RecordKind::License)
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
        let source = self.source()?;
        let rates = Answerer::of(&source).records().request_rates();
        rates.iter().map(|r| convert::request_rate(py, r)).collect()
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
        let source = self.source()?;
        let windows = Answerer::of(&source).records().visit_times();
        windows.iter().map(|w| convert::visit_time(py, w)).collect()
    }

    /// What the compiler reported (ignored lines, limits reached, …) when
    /// this policy was compiled by :func:`robocc.compile`; empty for a
    /// policy read from bytes or a file. They are the whole compile's, so
    /// a policy of :func:`compile` is compiled now if it was not yet, as
    /// for :meth:`to_bytes` (:class:`robocc.CompileError` when its rules do
    /// not fit the automaton budget).
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> PyResult<Vec<Diagnostic>> {
        let source = self.source()?;
        let (_, diagnostics) = artifact(py, &source)?;
        Ok(diagnostics
            .iter()
            .map(|d| Diagnostic {
                line: d.line,
                code: d.code.name(),
                severity: d.severity.name(),
                message: d.message.clone(),
            })
            .collect())
    }

    /// Whether the automaton is built: always for a policy read from
    /// bytes or a file or compiled with ``eager=True``; for one of
    /// :func:`compile`, once its checks have cost about what compiling
    /// does, or once something needed the artifact (:meth:`to_bytes`,
    /// :meth:`save`, pickling, :attr:`diagnostics`). Until then (and for
    /// good when its rules do not fit the automaton budget) it answers
    /// from the rules, alike.
    #[getter]
    fn compiled(&self) -> PyResult<bool> {
        Ok(match &*self.source()? {
            Source::File { .. } => true,
            Source::Rules(c) => c.is_compiled(),
        })
    }

    fn __repr__(&self) -> String {
        let Ok(source) = self.source() else {
            return "<robocc.Policy closed>".to_string();
        };
        let a = Answerer::of(&source);
        let automata = match a {
            Answerer::Compiled(p) => p.header().automata.to_string(),
            Answerer::Rules(_) => "(not compiled yet)".to_string(),
        };
        format!(
            "<robocc.Policy agent={:?} dialect={} rules={} automata={automata}>",
            a.agent(),
            a.dialect(),
            a.rule_count(),
        )
    }
}

impl Policy {
    /// The values of the file's global records of `kind` with a value, in
    /// file order.
    fn global_values(&self, kind: RecordKind) -> PyResult<Vec<String>> {
        let source = self.source()?;
        let values = Answerer::of(&source).records().global(kind);
        Ok(values
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
            .collect())
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
/// ``agent`` may be a list of product tokens (rfc9309): a crawler that
/// obeys all of them, as Google's library reads a list (``["Googlebot-Image",
/// "Googlebot"]``): the groups naming any of them apply, merged, and ``*``
/// only when none is named. :attr:`Policy.agent` joins them with ``,``. The
/// other dialects take one and raise :class:`robocc.AgentError` for
/// several.
///
/// The policy answers at once: ``compile`` reads the file up to its rules
/// (microseconds for a typical file) and the first checks are answered
/// from them; once those have cost about what compiling the automaton
/// does, it is compiled (the GIL released) and answers the rest. Every
/// answer is the one the compiled policy gives (verdict and deciding rule,
/// every usage). What needs the artifact compiles it at once, once:
/// :meth:`Policy.to_bytes`, :meth:`Policy.save`, pickling and
/// :attr:`Policy.diagnostics`; the records (:attr:`Policy.crawl_delay`,
/// :attr:`Policy.sitemaps`, …) do not. ``eager=True`` compiles before
/// returning, as ``compile`` did before it answered from the rules (the
/// budget errors below are then raised here).
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
/// ``["Google-Extended"]``; where the group it obeys (its own, else
/// ``*``) disallows a URL, its ``train-ai`` preference is disallowed
/// (:meth:`Policy.preference`). ``preference_grouping`` (rfc9309;
/// ``--preference-grouping``): ``"spec"`` (the default: a Content-Usage
/// line is a rule, as aipref attach-05 reads it, so a user-agent line after
/// it starts a new group) or ``"crawl"`` (every preference line in the
/// crawl's groups, Google's grouping).
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
/// list).
///
/// A file whose rules do not fit the automaton budget (``max_states``,
/// ``max_table_bytes``, ``max_automata``, ``compile_timeout``) is answered
/// from its rules for every check (what the automaton compiled with that
/// limit lifted answers), and what needs the artifact raises
/// :class:`robocc.CompileError`: its message names the keyword that raises
/// the limit (``max_automata=0`` …), which its ``limit`` attribute holds.
/// So does a file whose AI-usage preference statements do not fit beside
/// its rules (the policy answers them as written); with ``eager=True``,
/// ``compile`` raises the first and compiles the second without its
/// preferences (``crawl`` only, every preference unknown: the
/// ``signals-dropped`` diagnostic), as before.
///
/// ``each_agent=True`` (``--each-agent``): ``agent`` is a list of crawlers
/// answered *each separately* by one policy, compiled at once, walked once
/// per URL for all of them (:meth:`Policy.check_each`,
/// :attr:`Policy.agents`); its one-answer methods answer the first agent.
/// Agents whose groups coincide share the automaton's states. Not for
/// ``dialect="acap"``; over the budget, :class:`robocc.CompileError`.
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
    preference_grouping = "spec",
    purposes = Strings::default(), layout = "auto", references = References::default(),
    eager = false, each_agent = false,
))]
// Written out: PyO3 would show the defaults that are not literals as `...`
// (checked against the library's constants at import:
// `options::check_signature_defaults`).
#[pyo3(
    text_signature = "(robots, agent, *, dialect='rfc9309', url_mode=None, robots_txt='allow', \
                      data_txt=False, max_bytes=512000, max_line_len=16663, max_rules=100000, \
                      max_states=200000, max_table_bytes=268435456, max_automata=1024, \
                      compile_timeout=30.0, records_close_groups=False, training_agents=(), \
                      preference_grouping='spec', purposes=(), layout='auto', references={}, \
                      eager=False, each_agent=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn compile(
    py: Python<'_>,
    robots: &Bound<'_, PyAny>,
    agent: AgentsArg,
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
    eager: bool,
    each_agent: bool,
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
        preference_grouping,
        purposes,
        layout,
        references,
    }
    .compile_options(Some(&body))?;
    let agents = agent.get()?;
    if each_agent {
        // One policy answering each agent: compiled now (no checker reads
        // several agents each).
        let compiled = py
            .detach(|| robocc_compiler::compile_each(&body, agents.iter(), &options))
            .map_err(|e| compile_error(py, &e))?;
        let file = PolicyFile::from_aligned(compiled.to_bytes()).map_err(|e| {
            CompileError::new_err(format!("the compiled artifact was refused: {e}"))
        })?;
        return Ok(Policy::new(Source::File {
            file,
            diagnostics: compiled.diagnostics,
        }));
    }
    crate::check_agent(py, &agents, options.dialect)?;
    if !eager {
        // Reading a file up to its rules takes microseconds: the GIL is
        // kept (releasing it can cost another thread's switch interval)
        // but for a large file.
        let read = || Checker::new(&body, &agents, &options);
        let checker = if body.len() > READ_WITH_GIL {
            py.detach(read)
        } else {
            read()
        };
        return checker
            .map(|c| Policy::new(Source::Rules(Box::new(c))))
            .map_err(|e| compile_error(py, &e));
    }
    let compiled = py
        .detach(|| robocc_compiler::compile(&body, &agents, &options))
        .map_err(|e| compile_error(py, &e))?;
    let file = PolicyFile::from_aligned(compiled.to_bytes()).map_err(|e| {
        // The compiler's own output failing validation is a robocc bug.
        CompileError::new_err(format!("the compiled artifact was refused: {e}"))
    })?;
    Ok(Policy::new(Source::File {
        file,
        diagnostics: compiled.diagnostics,
    }))
}

/// Bodies up to this size are read for a checker with the GIL held.
const READ_WITH_GIL: usize = 64 * 1024;

/// A compile error as `robocc.CompileError` (`robocc.AgentError` for a bad
/// agent). A budget's message ends with the keyword that raises it, as the
/// command line's names its flag, and the exception's `limit` attribute is
/// that keyword (`None` for other errors): the Scrapy and Protego adapters
/// read it.
pub fn compile_error(py: Python<'_>, e: &robocc_compiler::CompileError) -> PyErr {
    compile_error_advising(py, e, None)
}

/// [`compile_error`], with `more` advice after the budget's.
fn compile_error_advising(
    py: Python<'_>,
    e: &robocc_compiler::CompileError,
    more: Option<&str>,
) -> PyErr {
    match e {
        robocc_compiler::CompileError::BadAgent(why) => return crate::agent_error(py, why),
        robocc_compiler::CompileError::SeveralAgents { .. } => return crate::agent_error(py, e),
        _ => {}
    }
    let keyword = budget_keyword(e);
    let more = more.map_or(String::new(), |m| format!("; {m}"));
    let message = match keyword {
        Some(k) => format!("{e} (raise the limit with {k}=N, or {k}=0 for no limit{more})"),
        None => e.to_string(),
    };
    let err = CompileError::new_err(message);
    if let Err(set) = err.value(py).setattr("limit", keyword) {
        return set;
    }
    err
}
