//! The compile options of `robocc.compile` and `robocc.build_store`: the
//! keyword arguments mirror the command line's flags (`--url-mode rfc` is
//! `url_mode="rfc"`), with the same defaults and the same meaning of 0 (no
//! limit, `robocc_compiler::zero_is_unlimited`; for `compile_timeout`, 0 or
//! `float("inf")`: no deadline).

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use robocc_compiler::parse::{lines::MAX_LINE_LEN, DEFAULT_MAX_BYTES, DEFAULT_MAX_RULES_PER_GROUP};
use robocc_compiler::{Budget, CompileOptions, Dialect, Layout, ParseOptions, UrlMode};
use std::time::Duration;

/// A size limit as Python gave it: any `int`. 0 is no limit, and so is a
/// value past `usize` (nothing that large fits in memory, so no answer
/// changes). A negative one is kept to be refused by
/// [`Options::compile_options`], which knows the argument's name: PyO3
/// would raise `OverflowError("can't convert negative int to unsigned")`,
/// naming the argument only in a note that `str(e)` leaves out.
#[derive(Clone, Copy, Debug)]
pub struct Limit(Option<usize>);

impl Limit {
    pub const fn new(n: usize) -> Limit {
        Limit(Some(n))
    }

    /// The value, or a `ValueError` naming `name` for a negative one.
    pub fn get(self, name: &str) -> PyResult<usize> {
        self.0.ok_or_else(|| {
            PyValueError::new_err(format!(
                "{name} is negative: expected a number ≥ 0 (0: no limit)"
            ))
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Limit {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Limit> {
        match obj.extract::<usize>() {
            Ok(n) => Ok(Limit(Some(n))),
            // Only an int gets here (anything else is a TypeError).
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Ok(Limit(if obj.lt(0)? { None } else { Some(usize::MAX) }))
            }
            Err(e) => Err(e),
        }
    }
}

/// Keyword arguments as received; see [`Options::compile_options`].
pub struct Options<'a> {
    pub dialect: &'a str,
    pub url_mode: &'a str,
    pub robots_txt: &'a str,
    pub data_txt: bool,
    pub max_bytes: Limit,
    pub max_line_len: Limit,
    pub max_rules: Limit,
    pub max_states: Limit,
    pub max_table_bytes: Limit,
    pub max_automata: Limit,
    pub compile_timeout: f64,
    pub records_close_groups: bool,
    /// rfc9309: training-only product tokens (`--training-agent`).
    pub training_agents: Vec<String>,
    /// acap: the crawler's usage purposes (`--purpose`).
    pub purposes: Vec<String>,
    /// `"auto"`, `"compact"` or `"dense"` (`--layout`).
    pub layout: &'a str,
}

/// The defaults, shared by the signatures of both functions.
pub const DEFAULT_MAX_BYTES_ARG: Limit = Limit::new(DEFAULT_MAX_BYTES);
pub const DEFAULT_MAX_LINE_LEN_ARG: Limit = Limit::new(MAX_LINE_LEN);
pub const DEFAULT_MAX_RULES_ARG: Limit = Limit::new(DEFAULT_MAX_RULES_PER_GROUP);

impl Options<'_> {
    /// Validates the arguments; a bad one is a `ValueError` naming it and
    /// its valid values.
    pub fn compile_options(self) -> PyResult<CompileOptions> {
        let dialect: Dialect = self
            .dialect
            .parse()
            .map_err(|e| PyValueError::new_err(format!("dialect={:?}: {e}", self.dialect)))?;
        // As on the command line: a dialect's own option given with another
        // dialect would change nothing, so it is refused.
        for (name, given, wants) in [
            (
                "training_agents",
                !self.training_agents.is_empty(),
                Dialect::Rfc9309,
            ),
            ("purposes", !self.purposes.is_empty(), Dialect::Acap),
        ] {
            if given && dialect != wants {
                return Err(PyValueError::new_err(format!(
                    "{name} applies to dialect=\"{}\", and the file is read as {}: pass \
                     dialect=\"{}\", or drop {name}",
                    wants.name(),
                    dialect.name(),
                    wants.name()
                )));
            }
        }
        // A bad value, like a bad option, is a ValueError here, before any
        // file is read: Scrapy and Protego check options once at start-up
        // and read a per-file CompileError as "this file cannot be compiled".
        for t in &self.training_agents {
            robocc_compiler::agent::validate_token(t)
                .map_err(|e| PyValueError::new_err(format!("training_agents: {e}")))?;
        }
        // As on the command line: draft1996 and robots2 always decode URLs
        // as the draft says; url_mode chooses between rfc9309's readings.
        let url_mode = match self.url_mode.to_ascii_lowercase().as_str() {
            "google" => UrlMode::Google,
            "rfc" => UrlMode::Rfc,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "url_mode={:?}: expected \"google\" or \"rfc\"",
                    self.url_mode
                )))
            }
        };
        let robots_txt_allowed = match self.robots_txt.to_ascii_lowercase().as_str() {
            "allow" => true,
            "rules" => false,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "robots_txt={:?}: expected \"allow\" (/robots.txt always allowed) or \
                     \"rules\" (judged like any URL)",
                    self.robots_txt
                )))
            }
        };
        let layout = match self.layout.to_ascii_lowercase().as_str() {
            "auto" => Layout::Auto,
            "compact" => Layout::Compact,
            "dense" => Layout::Dense,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "layout={:?}: expected \"auto\" (the default: compact, with table rows \
                     where `*` rules would slow it), \"compact\" (artifacts about the size of \
                     the robots.txt) or \"dense\" (a table row per state: the fastest checks)",
                    self.layout
                )))
            }
        };
        // 0, and any value past the clock's range (inf included), is no
        // deadline, as on the command line.
        let t = self.compile_timeout;
        let time = if t == 0.0 || t >= Duration::MAX.as_secs_f64() {
            Duration::MAX
        } else {
            Duration::try_from_secs_f64(t).map_err(|_| {
                PyValueError::new_err(format!(
                    "compile_timeout={t}: expected a number of seconds (0 or float(\"inf\"): \
                     no deadline)"
                ))
            })?
        };
        let limit = robocc_compiler::zero_is_unlimited;
        Ok(CompileOptions {
            dialect,
            url_mode,
            robots_txt_allowed,
            data_txt: self.data_txt,
            parse: ParseOptions {
                max_bytes: self.max_bytes.get("max_bytes")?,
                records_close_groups: self.records_close_groups,
                max_line_len: limit(self.max_line_len.get("max_line_len")?),
                max_rules_per_group: limit(self.max_rules.get("max_rules")?),
                ..ParseOptions::default()
            },
            budget: Budget {
                max_states: limit(self.max_states.get("max_states")?),
                total_bytes: limit(self.max_table_bytes.get("max_table_bytes")?),
                max_automata: limit(self.max_automata.get("max_automata")?),
                time,
                layout,
                ..Budget::default()
            },
            training_agents: self.training_agents,
            purposes: self.purposes,
            // ACAP permissions references are not exposed to Python.
            ..CompileOptions::default()
        })
    }
}
