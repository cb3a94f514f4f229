//! robocc for WebAssembly: the functions the npm package `robocc` (js/)
//! calls, over a plain C ABI.
//!
//! No glue generator: the package's own few lines of JavaScript
//! (`js/lib/core.js`) copy arguments into the module's memory
//! ([`robocc_alloc`]), call these functions and read strings back from
//! the result buffer ([`robocc_out_ptr`], [`robocc_out_len`]). Structured
//! answers (explain, lint, diff, errors) cross as JSON; the check path
//! crosses as integers, so a check allocates nothing on either side but
//! the URL's copy.
//!
//! A [`Policy`] answers from a [`Checker`]: a page that recompiles on
//! every keystroke pays for reading the rules, not for lowering them to an
//! automaton, until its checks have cost about what lowering does.

use robocc_compiler::normalize::matched_path;
use robocc_compiler::{Agents, Checker, CompileOptions};
use robocc_engine::{PolicyFile, RuleRef, Usage};
use serde_json::{json, Value};
use std::cell::RefCell;

mod options;

/// A compiled policy as the package holds it: the checker, and what the
/// explanation says of it.
pub struct Policy {
    checker: Checker,
}

thread_local! {
    /// The last string result: JSON, or an error's message.
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn put(bytes: Vec<u8>) {
    OUT.with(|o| *o.borrow_mut() = bytes);
}

/// Puts `r`'s value (JSON) or error (its message) in the result buffer:
/// 0 when it holds JSON, 1 when a message.
fn finish(r: Result<Value, String>) -> i32 {
    match r {
        Ok(v) => {
            put(v.to_string().into_bytes());
            0
        }
        Err(e) => {
            put(e.into_bytes());
            1
        }
    }
}

/// The bytes at `ptr`, `len` long.
///
/// # Safety
///
/// `ptr` is from [`robocc_alloc`] of at least `len` bytes, or `len` is 0.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// `len` bytes of memory the caller writes an argument into (and gives
/// back with [`robocc_dealloc`]).
#[no_mangle]
pub extern "C" fn robocc_alloc(len: usize) -> *mut u8 {
    let mut v = std::mem::ManuallyDrop::new(Vec::<u8>::with_capacity(len));
    v.as_mut_ptr()
}

/// Frees what [`robocc_alloc`] gave.
///
/// # Safety
///
/// `ptr` and `len` are one [`robocc_alloc`] call's, freed once.
#[no_mangle]
pub unsafe extern "C" fn robocc_dealloc(ptr: *mut u8, len: usize) {
    // SAFETY: a Vec of capacity `len` made by robocc_alloc.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len) });
}

/// Where the last string result starts.
#[no_mangle]
pub extern "C" fn robocc_out_ptr() -> *const u8 {
    OUT.with(|o| o.borrow().as_ptr())
}

/// The last string result's length in bytes.
#[no_mangle]
pub extern "C" fn robocc_out_len() -> usize {
    OUT.with(|o| o.borrow().len())
}

/// Reads `robots` for the agents `agent` (JSON: a string or an array of
/// strings) with the options `opts` (JSON). A policy, or null with the
/// error's message in the result buffer.
///
/// # Safety
///
/// Each (pointer, length) pair: written memory from [`robocc_alloc`], or
/// a length of 0.
#[no_mangle]
pub unsafe extern "C" fn robocc_compile(
    robots: *const u8,
    robots_len: usize,
    agent: *const u8,
    agent_len: usize,
    opts: *const u8,
    opts_len: usize,
) -> *mut Policy {
    // SAFETY: the caller's contract.
    let (robots, agent, opts) = unsafe {
        (
            bytes(robots, robots_len),
            bytes(agent, agent_len),
            bytes(opts, opts_len),
        )
    };
    match compile(robots, agent, opts) {
        Ok(p) => Box::into_raw(Box::new(p)),
        Err(e) => {
            put(e.into_bytes());
            std::ptr::null_mut()
        }
    }
}

/// [`robocc_compile`] in Rust.
pub fn compile(robots: &[u8], agent: &[u8], opts: &[u8]) -> Result<Policy, String> {
    let agents = options::agents(agent)?;
    let (options, _) = options::compile_options(opts, robots, &[])?;
    let checker = Checker::new(robots, agents, &options).map_err(|e| e.to_string())?;
    Ok(Policy { checker })
}

/// Frees a policy.
///
/// # Safety
///
/// `p` is from [`robocc_compile`], freed once.
#[no_mangle]
pub unsafe extern "C" fn robocc_policy_free(p: *mut Policy) {
    if !p.is_null() {
        // SAFETY: made by Box::into_raw in robocc_compile.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// The crawl verdict for the URL: 1 allow, 0 disallow.
///
/// # Safety
///
/// `p` is a live policy; the URL: written memory from [`robocc_alloc`],
/// or a length of 0.
#[no_mangle]
pub unsafe extern "C" fn robocc_check(p: *const Policy, url: *const u8, url_len: usize) -> i32 {
    // SAFETY: the caller's contract.
    let (p, url) = unsafe { (&*p, bytes(url, url_len)) };
    i32::from(p.checker.check(url).allowed)
}

/// The URL's verdict on `usage` (its name): 1 allow, 0 disallow, 2
/// unknown (an AI-usage preference nothing states), -1 an unknown usage
/// (the message in the result buffer).
///
/// # Safety
///
/// As [`robocc_check`], for the usage too.
#[no_mangle]
pub unsafe extern "C" fn robocc_check_usage(
    p: *const Policy,
    url: *const u8,
    url_len: usize,
    usage: *const u8,
    usage_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    let (p, url, usage) = unsafe { (&*p, bytes(url, url_len), bytes(usage, usage_len)) };
    match p.check_usage(url, &String::from_utf8_lossy(usage)) {
        Ok(Some(true)) => 1,
        Ok(Some(false)) => 0,
        Ok(None) => 2,
        Err(e) => {
            put(e.into_bytes());
            -1
        }
    }
}

/// The explanation of the URL's crawl verdict, as JSON in the result
/// buffer.
///
/// # Safety
///
/// As [`robocc_check`].
#[no_mangle]
pub unsafe extern "C" fn robocc_explain(p: *const Policy, url: *const u8, url_len: usize) -> i32 {
    // SAFETY: the caller's contract.
    let (p, url) = unsafe { (&*p, bytes(url, url_len)) };
    finish(Ok(p.explain(url)))
}

/// What the policy is for (agent, dialect, URL mode, usages) and the
/// compiler's findings, as JSON in the result buffer.
///
/// # Safety
///
/// `p` is a live policy.
#[no_mangle]
pub unsafe extern "C" fn robocc_info(p: *const Policy) -> i32 {
    // SAFETY: the caller's contract.
    finish(Ok(unsafe { &*p }.info()))
}

/// Lint findings of `robots` (options JSON, with an optional `agent`), as
/// a JSON array in the result buffer (0), or an error's message (1).
///
/// # Safety
///
/// Each (pointer, length) pair: written memory from [`robocc_alloc`], or
/// a length of 0.
#[no_mangle]
pub unsafe extern "C" fn robocc_lint(
    robots: *const u8,
    robots_len: usize,
    opts: *const u8,
    opts_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    let (robots, opts) = unsafe { (bytes(robots, robots_len), bytes(opts, opts_len)) };
    finish(lint(robots, opts))
}

/// [`robocc_lint`] in Rust.
pub fn lint(robots: &[u8], opts: &[u8]) -> Result<Value, String> {
    let (options, map) = options::compile_options(opts, robots, &["agent"])?;
    let agents = match map.get("agent") {
        None | Some(Value::Null) => None,
        Some(a) => Some(agents_for(a, &options)?),
    };
    let findings = robocc_compiler::lint::lint(robots, agents.as_ref(), &options);
    Ok(Value::Array(
        findings
            .iter()
            .map(|f| {
                json!({
                    "line": f.line,
                    "severity": f.severity.name(),
                    "code": f.code,
                    "message": with_hint(&f.message, f.code),
                    "fix": f.fix,
                })
            })
            .collect(),
    ))
}

/// A limit's finding carries the library's message, which names no
/// option: say which one raises the limit (as the CLI names its flag).
fn with_hint(message: &str, code: &str) -> String {
    use robocc_compiler::DiagCode::{LineTooLong, ParseLimit, RulesPerGroupLimit};
    let option = [
        (ParseLimit, "maxBytes"),
        (LineTooLong, "maxLineLen"),
        (RulesPerGroupLimit, "maxRules"),
    ]
    .into_iter()
    .find(|(c, _)| c.name() == code);
    match option {
        Some((_, o)) => format!("{message} (raise it with {o}, 0 for no limit)"),
        None => message.to_string(),
    }
}

/// The agents of a JSON value, checked as the dialect reads them.
fn agents_for(a: &Value, options: &CompileOptions) -> Result<Agents, String> {
    let agents = options::agents(a.to_string().as_bytes())?;
    options.check_tokens(&agents).map_err(|e| e.to_string())?;
    Ok(agents)
}

/// Every change of verdict from `old` to `new` for `agent` (JSON), with
/// the options `opts` (JSON: the compile options, `usage`, `maxPairs`), as
/// JSON in the result buffer (0), or an error's message (1).
///
/// # Safety
///
/// Each (pointer, length) pair: written memory from [`robocc_alloc`], or
/// a length of 0.
#[no_mangle]
pub unsafe extern "C" fn robocc_diff(
    old: *const u8,
    old_len: usize,
    new: *const u8,
    new_len: usize,
    agent: *const u8,
    agent_len: usize,
    opts: *const u8,
    opts_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    let (old, new, agent, opts) = unsafe {
        (
            bytes(old, old_len),
            bytes(new, new_len),
            bytes(agent, agent_len),
            bytes(opts, opts_len),
        )
    };
    finish(diff(old, new, agent, opts))
}

/// [`robocc_diff`] in Rust. With `dialect: "auto"` each file is read in
/// the dialect it is written in (the diff refuses two that read URLs
/// differently).
pub fn diff(old: &[u8], new: &[u8], agent: &[u8], opts: &[u8]) -> Result<Value, String> {
    let agents = options::agents(agent)?;
    let side = |body: &[u8], which: &str| -> Result<PolicyFile, String> {
        let (options, _) = options::compile_options(opts, body, options::DIFF_KEYS)?;
        let c = robocc_compiler::compile(body, &agents, &options)
            .map_err(|e| format!("{which}: {e}"))?;
        PolicyFile::from_slice(&c.to_bytes()).map_err(|e| format!("{which}: {e}"))
    };
    let (old, new) = (side(old, "old")?, side(new, "new")?);
    let (_, map) = options::compile_options(opts, b"", options::DIFF_KEYS)?;
    let d_opts = options::diff_options(&map)?;
    let d = robocc_compiler::diff(&old.policy(), &new.policy(), &d_opts).map_err(|e| match e {
        robocc_compiler::DiffError::TooManyPairs { .. } => {
            format!("{e} (raise the limit with maxPairs, 0 for no limit)")
        }
        _ => e.to_string(),
    })?;
    let changes: Vec<Value> = d
        .changes
        .iter()
        .map(|c| {
            json!({
                "from": c.old.word(),
                "to": c.new.word(),
                "old_line": c.old.line,
                "new_line": c.new.line,
                "old_rule": c.old.text,
                "new_rule": c.new.text,
                "witness": c.witness_text(),
            })
        })
        .collect();
    Ok(json!({
        "equivalent": changes.is_empty(),
        "usage": d_opts.usage.name(),
        "changes": changes,
    }))
}

/// A rule as the explanation shows it.
fn rule_json(r: &RuleRef<'_>) -> Value {
    json!({
        "line": r.source_line(),
        "kind": if r.allow { "allow" } else { "disallow" },
        "pattern": r.pattern_text(),
        "origin": r.origin.name(),
    })
}

impl Policy {
    /// The verdict on `usage` (by name): `Some(allowed)`, or `None` for
    /// an AI-usage preference nothing states (as `robocc check --usage`).
    pub fn check_usage(&self, url: &[u8], usage: &str) -> Result<Option<bool>, String> {
        let u = options::usage(usage)?;
        let c = &self.checker;
        if u.is_signal() {
            return Ok(c.preference(url, u).map(|v| v.allowed));
        }
        Ok(Some(c.check_usage(url, u).allowed))
    }

    /// Why `url` gets its crawl verdict: the deciding rule and its line
    /// (null when no rule decides), the path as matched, and (rfc9309) the
    /// AI-usage preferences.
    pub fn explain(&self, url: &[u8]) -> Value {
        let c = &self.checker;
        let v = c.check(url);
        let rule = v.rule.and_then(|id| c.rule(id));
        let mut obj = json!({
            "url": String::from_utf8_lossy(url),
            "verdict": if v.allowed { "allow" } else { "disallow" },
            "line": rule.as_ref().and_then(RuleRef::source_line),
            "rule": rule.as_ref().map(rule_json),
            "matched_path": String::from_utf8_lossy(&matched_path(url, c.url_mode())),
            "url_mode": c.url_mode().name(),
        });
        if c.dialect() == robocc_engine::Dialect::Rfc9309 {
            let mut prefs = serde_json::Map::new();
            for u in [Usage::Search, Usage::TrainAi, Usage::AiInput] {
                let p = c.preference(url, u);
                let line = p
                    .and_then(|p| p.rule)
                    .and_then(|id| c.rule(id))
                    .and_then(|r| r.source_line());
                prefs.insert(
                    u.name().to_string(),
                    json!({
                        "verdict": match p.map(|p| p.allowed) {
                            Some(true) => "allow",
                            Some(false) => "disallow",
                            None => "unknown",
                        },
                        "line": line,
                    }),
                );
            }
            obj["preferences"] = Value::Object(prefs);
        }
        obj
    }

    /// The agent(s), dialect, URL mode, usages the policy answers and the
    /// compiler's findings.
    pub fn info(&self) -> Value {
        let c = &self.checker;
        let diagnostics: Vec<Value> = c
            .diagnostics()
            .iter()
            .map(|d| {
                json!({
                    "line": d.line,
                    "severity": d.severity.name(),
                    "code": d.code.name(),
                    "message": with_hint(&d.message, d.code.name()),
                })
            })
            .collect();
        json!({
            "agent": c.agents().iter().collect::<Vec<_>>(),
            "dialect": c.dialect().name(),
            "url_mode": c.url_mode().name(),
            "usages": c.channels(),
            "diagnostics": diagnostics,
        })
    }
}
