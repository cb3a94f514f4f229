//! `robocc.FetchRules`, `robocc.Fetch`, `robocc.FetchDecision` and
//! `robocc.RobotsCache`: the robots.txt fetch rules (`robocc_compiler::fetch`) for Python crawlers.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMapping, PyString};
use robocc_compiler::fetch::{
    self, AfterOutage, Ask, CacheLimits, Decision, FetchOptions, Headers, Reason, Redirects,
    Response, Step, Transport,
};
use robocc_compiler::CompileOptions;
use std::sync::Mutex;

/// The fetch rules' settings (docs/fetch.md): which redirects are followed
/// (``"same-origin"`` or ``"any-host"``) and how many, the holds in
/// seconds, how long the last good rules are kept through an outage and
/// what applies after (``"unavailable"``, ``"disallow"``, ``"keep-last"``),
/// the parse limit, and whether an HTML page answered 200 is unreachable.
///
/// >>> robocc.FetchRules(redirects="any-host", failure_hold=600).failure_hold
/// 600
#[pyclass(frozen, module = "robocc")]
pub struct FetchRules {
    inner: FetchOptions,
}

#[pymethods]
impl FetchRules {
    #[new]
    #[pyo3(signature = (*, redirects="same-origin", max_redirects=5, max_hold=86400,
        min_hold=60, failure_hold=300, keep_last_good=2592000, after_outage="unavailable",
        parse_limit=512000, html_is_unreachable=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        redirects: &str,
        max_redirects: u8,
        max_hold: u64,
        min_hold: u64,
        failure_hold: u64,
        keep_last_good: u64,
        after_outage: &str,
        parse_limit: usize,
        html_is_unreachable: bool,
    ) -> PyResult<FetchRules> {
        let redirects = match redirects {
            "same-origin" => Redirects::SameOrigin,
            "any-host" => Redirects::AnyHost,
            other => {
                return Err(PyValueError::new_err(format!(
                    "redirects must be 'same-origin' or 'any-host', not {other:?}"
                )))
            }
        };
        let after_outage = match after_outage {
            "unavailable" => AfterOutage::Unavailable,
            "disallow" => AfterOutage::Disallow,
            "keep-last" => AfterOutage::KeepLast,
            other => {
                return Err(PyValueError::new_err(format!(
                    "after_outage must be 'unavailable', 'disallow' or 'keep-last', not {other:?}"
                )))
            }
        };
        Ok(FetchRules {
            inner: FetchOptions {
                redirects,
                max_redirects,
                max_hold,
                min_hold,
                failure_hold,
                keep_last_good,
                after_outage,
                max_bytes: parse_limit,
                html_is_unreachable,
            },
        })
    }

    /// Seconds a failure holds without ``Retry-After``.
    #[getter]
    fn failure_hold(&self) -> u64 {
        self.inner.failure_hold
    }

    /// The longest hold, in seconds.
    #[getter]
    fn max_hold(&self) -> u64 {
        self.inner.max_hold
    }

    fn __repr__(&self) -> String {
        format!("FetchRules({:?})", self.inner)
    }
}

fn options_of(rules: Option<&Bound<'_, FetchRules>>) -> FetchOptions {
    rules.map_or_else(FetchOptions::default, |r| r.get().inner)
}

/// `now` as whole Unix seconds: the caller's, else the system clock's.
fn seconds(now: Option<f64>) -> u64 {
    match now {
        Some(t) if t.is_finite() && t > 0.0 => t as u64,
        Some(_) => 0,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    }
}

fn decision_name(d: Decision) -> &'static str {
    match d {
        Decision::Rules => "rules",
        Decision::AllowAll => "allow_all",
        Decision::DisallowAll => "disallow_all",
    }
}

fn reason_name(r: Reason) -> String {
    match r {
        Reason::Success => "success".into(),
        Reason::EmptySuccess => "empty".into(),
        Reason::HtmlPage => "html_page".into(),
        Reason::NotModified => "not_modified".into(),
        Reason::NotModifiedUnknown => "not_modified_unknown".into(),
        Reason::Unavailable(s) => format!("unavailable {s}"),
        Reason::TooManyRedirects => "too_many_redirects".into(),
        Reason::RedirectWithoutLocation => "redirect_without_location".into(),
        Reason::RedirectRefused => "redirect_refused".into(),
        Reason::RateLimited => "rate_limited".into(),
        Reason::ServerError(s) => format!("server_error {s}"),
        Reason::OtherStatus(s) => format!("other_status {s}"),
        Reason::Transport(t) => format!("transport {}", transport_name(t)),
    }
}

fn transport_name(t: Transport) -> &'static str {
    match t {
        Transport::Timeout => "timeout",
        Transport::Dns => "dns",
        Transport::Connection => "connection",
        Transport::Tls => "tls",
    }
}

/// What one robots.txt fetch decided (:meth:`Fetch.answer`).
///
/// ``decision`` is ``"rules"`` (follow ``body``'s rules), ``"allow_all"``
/// or ``"disallow_all"`` (for now); ``reason`` the row of docs/fetch.md
/// (``"server_error 503"``, ``"unavailable 404"``, ``"transport timeout"``
/// …); ``hold`` the seconds it holds; ``failure`` whether it is a failure
/// to retry after ``hold``.
#[pyclass(frozen, module = "robocc")]
pub struct FetchDecision {
    inner: fetch::Fetched,
}

#[pymethods]
impl FetchDecision {
    /// ``"rules"``, ``"allow_all"`` or ``"disallow_all"``.
    #[getter]
    fn decision(&self) -> &'static str {
        decision_name(self.inner.decision)
    }

    /// Why: the row of docs/fetch.md.
    #[getter]
    fn reason(&self) -> String {
        reason_name(self.inner.reason)
    }

    /// Seconds the decision holds.
    #[getter]
    fn hold(&self) -> u64 {
        self.inner.hold
    }

    /// Whether it is a failure, retried after ``hold``.
    #[getter]
    fn failure(&self) -> bool {
        self.inner.reason.is_failure()
    }

    /// The body (cut at the parse limit) for ``"rules"`` from a 2xx.
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.body.as_ref().map(|b| PyBytes::new(py, b))
    }

    /// The URL the answer came from (after redirects).
    #[getter]
    fn url(&self) -> &str {
        &self.inner.url
    }

    /// ``(Last-Modified, ETag)`` of a 2xx, to revalidate with.
    #[getter]
    fn validators(&self) -> (Option<String>, Option<String>) {
        self.inner.validators.clone()
    }

    /// What was said about the body (an HTML page, the parse limit), as
    /// messages.
    #[getter]
    fn diagnostics(&self) -> Vec<String> {
        self.inner
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "FetchDecision('{}', reason='{}', hold={})",
            self.decision(),
            self.reason(),
            self.inner.hold
        )
    }
}

/// One robots.txt request followed to its decision (RFC 9309 §2.3.1):
/// fetch :attr:`url`, give the response to :meth:`answer` (or the failure
/// to :meth:`fail`), and fetch the URL it returns until it returns a
/// :class:`FetchDecision`. robocc never fetches: the crawler does.
///
/// >>> f = robocc.Fetch("https://example.com/robots.txt")
/// >>> f.answer(503, {"Retry-After": "120"}, now=0)
/// FetchDecision('disallow_all', reason='server_error 503', hold=120)
#[pyclass(module = "robocc")]
pub struct Fetch {
    inner: fetch::Fetch,
}

#[pymethods]
impl Fetch {
    #[new]
    #[pyo3(signature = (robots_url, rules=None))]
    fn new(robots_url: &str, rules: Option<&Bound<'_, FetchRules>>) -> PyResult<Fetch> {
        let inner = fetch::Fetch::new(robots_url, &options_of(rules))
            .ok_or_else(|| PyValueError::new_err(format!("not an absolute URL: {robots_url:?}")))?;
        Ok(Fetch { inner })
    }

    /// The URL to fetch now.
    #[getter]
    fn url(&self) -> &str {
        self.inner.url()
    }

    /// Redirects followed so far.
    #[getter]
    fn hops(&self) -> u8 {
        self.inner.hops()
    }

    /// Reads the response to :attr:`url`: ``status``, ``headers`` (a
    /// mapping, names in any case), ``body`` (``None``: none read);
    /// ``now`` in Unix seconds (default: the clock). Returns the next URL
    /// to fetch (a redirect followed) or the :class:`FetchDecision`.
    #[pyo3(signature = (status, headers=None, body=None, *, now=None))]
    fn answer(
        &mut self,
        py: Python<'_>,
        status: u16,
        headers: Option<&Bound<'_, PyMapping>>,
        body: Option<Vec<u8>>,
        now: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let mut named: [Option<String>; 8] = Default::default();
        const NAMES: [&str; 8] = [
            "location",
            "retry-after",
            "content-type",
            "cache-control",
            "expires",
            "date",
            "last-modified",
            "etag",
        ];
        if let Some(h) = headers {
            for item in h.items()?.iter() {
                let (k, v): (String, String) = item.extract()?;
                if let Some(i) = NAMES.iter().position(|n| n.eq_ignore_ascii_case(k.trim())) {
                    named[i] = Some(v);
                }
            }
        }
        let get = |i: usize| named[i].as_deref();
        let headers = Headers {
            location: get(0),
            retry_after: get(1),
            content_type: get(2),
            cache_control: get(3),
            expires: get(4),
            date: get(5),
            last_modified: get(6),
            etag: get(7),
        };
        let response = Response::Http {
            status,
            headers,
            body: body.as_deref(),
        };
        Ok(match self.inner.answer(response, seconds(now)) {
            Step::Follow(url) => PyString::new(py, &url).into_any().unbind(),
            Step::Done(f) => Py::new(py, FetchDecision { inner: f })?.into_any(),
        })
    }

    /// The decision when no response came: ``kind`` is ``"timeout"``,
    /// ``"dns"``, ``"connection"`` or ``"tls"``.
    #[pyo3(signature = (kind, *, now=None))]
    fn fail(&mut self, kind: &str, now: Option<f64>) -> PyResult<FetchDecision> {
        let t = match kind {
            "timeout" => Transport::Timeout,
            "dns" => Transport::Dns,
            "connection" => Transport::Connection,
            "tls" => Transport::Tls,
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind must be 'timeout', 'dns', 'connection' or 'tls', not {other:?}"
                )))
            }
        };
        match self.inner.answer(Response::Failed(t), seconds(now)) {
            Step::Done(f) => Ok(FetchDecision { inner: f }),
            Step::Follow(_) => unreachable!("a failure is never followed"),
        }
    }
}

/// Hosts → their robots.txt decisions, for a crawler: bounded in hosts and
/// bytes, each decision expiring when its hold ends, one fetch in flight
/// per host. :meth:`check` answers a URL (``True``/``False``), or says
/// ``"fetch"`` (this caller fetches the host's robots.txt and
/// :meth:`report` s it) or ``"wait"`` (another caller is fetching).
///
/// >>> cache = robocc.RobotsCache("ExampleBot")
/// >>> cache.check("https://example.com", "https://example.com/a", now=0)
/// 'fetch'
/// >>> cache.report("https://example.com", robocc.Fetch("https://example.com/robots.txt").answer(404, now=0), now=0)
/// 'allow_all'
/// >>> cache.check("https://example.com", "https://example.com/a", now=1)
/// True
#[pyclass(module = "robocc")]
pub struct RobotsCache {
    inner: Mutex<fetch::Cache>,
}

#[pymethods]
impl RobotsCache {
    #[new]
    #[pyo3(signature = (agent, rules=None, *, max_hosts=100000, max_bytes=1073741824,
        fetch_timeout=120))]
    fn new(
        py: Python<'_>,
        agent: &str,
        rules: Option<&Bound<'_, FetchRules>>,
        max_hosts: usize,
        max_bytes: usize,
        fetch_timeout: u64,
    ) -> PyResult<RobotsCache> {
        let options = options_of(rules);
        let mut compile = CompileOptions::default();
        compile.parse.max_bytes = options.max_bytes;
        let limits = CacheLimits {
            max_hosts,
            max_bytes,
            fetch_timeout,
        };
        let cache = fetch::Cache::new(agent, compile, options, limits)
            .map_err(|e| crate::agent_error(py, e))?;
        Ok(RobotsCache {
            inner: Mutex::new(cache),
        })
    }

    /// A :class:`Fetch` of ``robots_url`` by this cache's rules.
    fn fetch(&self, robots_url: &str) -> PyResult<Fetch> {
        let inner = self
            .lock()
            .fetch(robots_url)
            .ok_or_else(|| PyValueError::new_err(format!("not an absolute URL: {robots_url:?}")))?;
        Ok(Fetch { inner })
    }

    /// ``"use"``, ``"fetch"`` or ``"wait"`` for ``host`` at ``now``.
    #[pyo3(signature = (host, *, now=None))]
    fn ask(&self, host: &str, now: Option<f64>) -> &'static str {
        match self.lock().ask(host, seconds(now)) {
            Ask::Use(_) => "use",
            Ask::FetchNow => "fetch",
            Ask::Wait => "wait",
        }
    }

    /// :attr:`CacheAnswer.ALLOW` / :attr:`CacheAnswer.DISALLOW` for ``url``
    /// of ``host`` while its decision holds; else :attr:`CacheAnswer.FETCH`
    /// (this caller fetches robots.txt now) or :attr:`CacheAnswer.WAIT`
    /// (another caller is fetching it). Not a truth value: compare it.
    #[pyo3(signature = (host, url, *, now=None))]
    fn check(&self, host: &str, url: &str, now: Option<f64>) -> CacheAnswer {
        match self.lock().check(host, url.as_bytes(), seconds(now)) {
            Ask::Use(v) if v.allowed => CacheAnswer::Allow,
            Ask::Use(_) => CacheAnswer::Disallow,
            Ask::FetchNow => CacheAnswer::Fetch,
            Ask::Wait => CacheAnswer::Wait,
        }
    }

    /// Records ``host``'s fetch, done at ``now``: returns the decision in
    /// force (``"rules"``, ``"allow_all"`` or ``"disallow_all"``; through
    /// an outage, the last good one).
    #[pyo3(signature = (host, decision, *, now=None))]
    fn report(&self, host: &str, decision: &FetchDecision, now: Option<f64>) -> &'static str {
        decision_name(
            self.lock()
                .report(host, &decision.inner, seconds(now))
                .decision,
        )
    }

    /// ``host``'s latest decision, expired or not, without asking:
    /// ``(decision, reason, until, failure)`` (``until`` in Unix seconds;
    /// ``failure``: retried then), or ``None`` when none is held.
    fn held(&self, host: &str) -> Option<(&'static str, String, u64, bool)> {
        self.lock().held(host).map(|k| {
            (
                decision_name(k.decision),
                reason_name(k.reason),
                k.until,
                k.reason.is_failure(),
            )
        })
    }

    fn __len__(&self) -> usize {
        self.lock().len()
    }
}

impl RobotsCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, fetch::Cache> {
        // A panic cannot leave the cache half-updated in a way that matters
        // more than losing it: take it back.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What :meth:`RobotsCache.check` answers. It has no truth value: ``if
/// cache.check(host, url):`` would read "fetch robots.txt first" as
/// "allowed"; compare with the members instead (``str()`` gives
/// ``"allow"``, ``"disallow"``, ``"fetch"`` or ``"wait"``).
#[pyclass(eq, frozen, module = "robocc", rename_all = "UPPERCASE")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CacheAnswer {
    Allow,
    Disallow,
    Fetch,
    Wait,
}

#[pymethods]
impl CacheAnswer {
    fn __bool__(&self) -> PyResult<bool> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a CacheAnswer has no truth value: compare it with CacheAnswer.ALLOW \
             (FETCH and WAIT mean the rules are not known yet)",
        ))
    }

    fn __str__(&self) -> &'static str {
        match self {
            CacheAnswer::Allow => "allow",
            CacheAnswer::Disallow => "disallow",
            CacheAnswer::Fetch => "fetch",
            CacheAnswer::Wait => "wait",
        }
    }
}
