//! The compile options of `robocc.compile` and `robocc.build_store`: the
//! keyword arguments mirror the command line's flags (`--url-mode rfc` is
//! `url_mode="rfc"`), with the same defaults and the same meaning of 0 (no
//! limit, `robocc_compiler::zero_is_unlimited`; for `compile_timeout`, 0 or
//! `float("inf")`: no deadline).

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyString};
use robocc_compiler::dialect::{semantics, UrlModeRule};
use robocc_compiler::parse::{lines::MAX_LINE_LEN, DEFAULT_MAX_BYTES, DEFAULT_MAX_RULES_PER_GROUP};
use robocc_compiler::{Budget, CompileOptions, Dialect, Layout, ParseOptions, UrlMode};

/// A size limit as Python gave it: any `int`. 0 is no limit, and so is a
/// value past `usize` (nothing that large fits in memory, so no answer
/// changes). A negative one, and a `bool` (an `int` to Python:
/// `max_bytes=True` would be a 1-byte limit), are kept to be refused by
/// [`Limit::get`], which knows the argument's name: PyO3 names it only in
/// a note that `str(e)` leaves out.
#[derive(Clone, Copy, Debug)]
pub struct Limit(Result<usize, NotALimit>);

#[derive(Clone, Copy, Debug)]
enum NotALimit {
    Negative,
    Bool,
}

impl Limit {
    pub const fn new(n: usize) -> Limit {
        Limit(Ok(n))
    }

    /// The value; a `ValueError` naming `name` for a negative one, a
    /// `TypeError` for a `bool`.
    pub fn get(self, name: &str) -> PyResult<usize> {
        match self.0 {
            Ok(n) => Ok(n),
            Err(NotALimit::Negative) => Err(PyValueError::new_err(format!(
                "{name} is negative: expected a number ≥ 0 (0: no limit)"
            ))),
            Err(NotALimit::Bool) => Err(PyTypeError::new_err(format!(
                "{name} is a bool: expected an int ≥ 0 (0: no limit)"
            ))),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Limit {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Limit> {
        if obj.is_instance_of::<PyBool>() {
            return Ok(Limit(Err(NotALimit::Bool)));
        }
        match obj.extract::<usize>() {
            Ok(n) => Ok(Limit(Ok(n))),
            // Only an int gets here (anything else is a TypeError).
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(Limit(if obj.lt(0)? {
                Err(NotALimit::Negative)
            } else {
                Ok(usize::MAX)
            })),
            Err(e) => Err(e),
        }
    }
}

/// `compile_timeout` as Python gave it: an `int` or `float`; a `bool` (a
/// number to Python) is kept to be refused by [`Seconds::get`], as
/// [`Limit`] refuses it.
#[derive(Clone, Copy, Debug)]
pub struct Seconds(Option<f64>);

impl Seconds {
    pub const fn new(secs: f64) -> Seconds {
        Seconds(Some(secs))
    }

    /// The number, or a `TypeError` for a `bool`.
    pub fn get(self) -> PyResult<f64> {
        self.0.ok_or_else(|| {
            PyTypeError::new_err(
                "compile_timeout is a bool: expected a number of seconds ≥ 0 (0: no deadline)",
            )
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Seconds {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Seconds> {
        if obj.is_instance_of::<PyBool>() {
            return Ok(Seconds(None));
        }
        Ok(Seconds(Some(obj.extract::<f64>()?)))
    }
}

/// `agent` as Python gave it: a product token (`str`), or several read
/// together (any iterable of `str`, as [`Strings`]; rfc9309:
/// [`robocc_compiler::Agents`]). Anything else is refused by
/// [`AgentsArg::get`], naming the argument.
pub struct AgentsArg(Result<robocc_compiler::Agents, String>);

impl AgentsArg {
    /// The agents, or a `TypeError` naming the argument.
    pub fn get(self) -> PyResult<robocc_compiler::Agents> {
        self.0.map_err(|what| {
            PyTypeError::new_err(format!("agent must be a str or a list of str, {what}"))
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for AgentsArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<AgentsArg> {
        if let Ok(token) = obj.cast::<PyString>() {
            return Ok(AgentsArg(Ok(token.to_cow()?.as_ref().into())));
        }
        Ok(AgentsArg(
            Strings::extract(obj)?.0.map(robocc_compiler::Agents::new),
        ))
    }
}

/// A list of product tokens or purposes as Python gave it: any iterable of
/// `str` except a lone `str` (whose characters would be the items) or
/// `bytes`. Anything else is kept, as what it is, to be refused by
/// [`Strings::get`] naming the argument (PyO3's own message for a `str`,
/// "Can't extract `str` to `Vec`", names Rust types and not the argument).
#[derive(Clone, Debug)]
pub struct Strings(Result<Vec<String>, String>);

impl Default for Strings {
    fn default() -> Strings {
        Strings(Ok(Vec::new()))
    }
}

impl Strings {
    /// The strings, or a `TypeError` naming `name`.
    pub fn get(self, name: &str) -> PyResult<Vec<String>> {
        self.0
            .map_err(|what| PyTypeError::new_err(format!("{name} must be a list of str, {what}")))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Strings {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Strings> {
        let not = |what: String| Ok(Strings(Err(what)));
        if obj.is_instance_of::<PyString>() {
            return not(format!(
                "not one str: wrap it in a list, e.g. [{}]",
                obj.repr()?
            ));
        }
        let type_name = obj.get_type().name()?.to_string();
        if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
            return not(format!("not {type_name}"));
        }
        let Ok(items) = obj.try_iter() else {
            return not(format!("not {type_name}"));
        };
        let mut out = Vec::new();
        for item in items {
            let item = item?;
            let Ok(s) = item.cast::<PyString>() else {
                return not(format!(
                    "and an item is {}: {}",
                    item.get_type().name()?,
                    item.repr()?
                ));
            };
            out.push(s.to_cow()?.into_owned());
        }
        Ok(Strings(Ok(out)))
    }
}

/// ACAP permissions references (`--reference PATH=FILE`) as Python gave
/// them: a mapping from the path as an `ACAP-permissions-reference` field
/// writes it to the referenced file's contents (`bytes`, or `str` as
/// `compile` takes a robots.txt: a file's name is refused). A value of the
/// wrong type is kept to be refused by [`References::get`], as [`Strings`].
#[derive(Clone, Debug)]
pub struct References(Result<Vec<(String, Vec<u8>)>, PyErrText>);

/// A refusal kept for later: (is it a `TypeError`, message).
type PyErrText = (bool, String);

impl Default for References {
    fn default() -> References {
        References(Ok(Vec::new()))
    }
}

impl References {
    /// The (path, contents) pairs, in the mapping's order, or the error.
    pub fn get(self) -> PyResult<Vec<(String, Vec<u8>)>> {
        self.0.map_err(|(type_error, message)| {
            if type_error {
                PyTypeError::new_err(message)
            } else {
                PyValueError::new_err(message)
            }
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for References {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<References> {
        let not = |type_error: bool, what: String| Ok(References(Err((type_error, what))));
        if !obj.hasattr("items")? || obj.is_instance_of::<PyString>() {
            return not(
                true,
                format!(
                    "references must be a dict of path to contents \
                     ({{\"/searchbot.txt\": open(\"searchbot.txt\", \"rb\").read()}}), not {}",
                    obj.get_type().name()?
                ),
            );
        }
        let mut out = Vec::new();
        for item in obj.call_method0("items")?.try_iter()? {
            let (path, body): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
            let Ok(path) = path.cast::<PyString>() else {
                return not(
                    true,
                    format!("references: a path is {}, not str", path.get_type().name()?),
                );
            };
            let path = path.to_cow()?.into_owned();
            match crate::convert::robots_body(&body, &format!("references[{path:?}]")) {
                Ok(body) => out.push((path, body)),
                Err(e) => {
                    let py = obj.py();
                    return not(e.is_instance_of::<PyTypeError>(py), e.value(py).to_string());
                }
            }
        }
        Ok(References(Ok(out)))
    }
}

/// What a dialect whose URL reading is fixed does with URLs, for the
/// refusal of `url_mode` (`None` for rfc9309, which reads `url_mode`).
pub fn fixed_url_reading(dialect: Dialect) -> Option<&'static str> {
    match semantics(dialect).url_mode {
        UrlModeRule::Requested => None,
        UrlModeRule::Fixed(UrlMode::Decode) => Some("decodes %xx escapes except %2F"),
        UrlModeRule::Fixed(UrlMode::Google) => Some("matches URLs as given, without decoding"),
        UrlModeRule::Fixed(UrlMode::Rfc) => Some("normalises URLs per RFC 9309 §2.2.2"),
    }
}

/// The keyword that raises the budget a compile ran into, as advice to
/// append to its message, and the keyword alone (the exception's `limit`
/// attribute); `None` for other errors.
pub fn budget_keyword(e: &robocc_compiler::CompileError) -> Option<&'static str> {
    use robocc_compiler::BudgetExceeded as B;
    let robocc_compiler::CompileError::Budget(b) = e else {
        return None;
    };
    Some(match b.exceeded {
        B::States(_) | B::Threads(_) => "max_states",
        B::Time(_) => "compile_timeout",
        B::Automata(_) => "max_automata",
        B::TableBytes(_) => "max_table_bytes",
    })
}

/// Keyword arguments as received; see [`Options::compile_options`].
pub struct Options<'a> {
    pub dialect: &'a str,
    /// `None`: not given (the dialect's own reading; rfc9309: google).
    pub url_mode: Option<&'a str>,
    pub robots_txt: &'a str,
    pub data_txt: bool,
    pub max_bytes: Limit,
    pub max_line_len: Limit,
    pub max_rules: Limit,
    pub max_states: Limit,
    pub max_table_bytes: Limit,
    pub max_automata: Limit,
    pub compile_timeout: Seconds,
    pub records_close_groups: bool,
    /// rfc9309: training-only product tokens (`--training-agent`).
    pub training_agents: Strings,
    /// rfc9309: `"spec"` or `"crawl"` (`--preference-grouping`).
    pub preference_grouping: &'a str,
    /// acap: the crawler's usage purposes (`--purpose`).
    pub purposes: Strings,
    /// `"auto"`, `"compact"` or `"dense"` (`--layout`).
    pub layout: &'a str,
    /// acap: the files `ACAP-permissions-reference` fields name
    /// (`--reference`).
    pub references: References,
}

/// The defaults of `compile`'s and `build_store`'s signatures (which spell
/// them out), and of `**options`.
impl Default for Options<'static> {
    fn default() -> Options<'static> {
        let b = Budget::default();
        Options {
            dialect: "rfc9309",
            url_mode: None,
            robots_txt: "allow",
            data_txt: false,
            max_bytes: DEFAULT_MAX_BYTES_ARG,
            max_line_len: DEFAULT_MAX_LINE_LEN_ARG,
            max_rules: DEFAULT_MAX_RULES_ARG,
            max_states: Limit::new(b.max_states),
            max_table_bytes: Limit::new(b.total_bytes),
            max_automata: Limit::new(b.max_automata),
            compile_timeout: Seconds::new(b.time.as_secs_f64()),
            records_close_groups: false,
            training_agents: Strings::default(),
            preference_grouping: "spec",
            purposes: Strings::default(),
            layout: "auto",
            references: References::default(),
        }
    }
}

/// The defaults, shared by the signatures of both functions.
pub const DEFAULT_MAX_BYTES_ARG: Limit = Limit::new(DEFAULT_MAX_BYTES);
pub const DEFAULT_MAX_LINE_LEN_ARG: Limit = Limit::new(MAX_LINE_LEN);
pub const DEFAULT_MAX_RULES_ARG: Limit = Limit::new(DEFAULT_MAX_RULES_PER_GROUP);

/// The defaults that `compile`'s and `build_store`'s `text_signature`s
/// must spell (PyO3 shows a default that is not a literal as `...`, so the
/// signatures are written out), as the library's constants give them:
/// `_native` refuses to import when a signature differs (any test run then
/// fails), so `help()` cannot drift from what is used.
pub fn check_signature_defaults(name: &str, signature: &str) -> Result<(), String> {
    let b = Budget::default();
    let spelled = [
        ("max_bytes", DEFAULT_MAX_BYTES.to_string()),
        ("max_line_len", MAX_LINE_LEN.to_string()),
        ("max_rules", DEFAULT_MAX_RULES_PER_GROUP.to_string()),
        ("max_states", b.max_states.to_string()),
        ("max_table_bytes", b.total_bytes.to_string()),
        ("max_automata", b.max_automata.to_string()),
        ("compile_timeout", format!("{:?}", b.time.as_secs_f64())),
    ];
    let store_limit = format!(" max_store_bytes={}", u32::MAX);
    if name == "build_store"
        && ![",", ")"]
            .iter()
            .any(|end| signature.contains(&format!("{store_limit}{end}")))
    {
        return Err(format!(
            "robocc._native.{name}'s text signature does not say{store_limit}"
        ));
    }
    for (arg, value) in spelled {
        let want = format!(" {arg}={value},");
        if !signature.contains(&want) {
            return Err(format!(
                "robocc._native.{name}'s text signature does not say{want} (python/src)"
            ));
        }
    }
    Ok(())
}

impl Options<'_> {
    /// Validates the arguments; a bad one is a `ValueError` naming it and
    /// its valid values. `body` is the robots.txt that `dialect="auto"`
    /// reads the dialect from (`None`: a store's many files, where `"auto"`
    /// is refused, as `robocc store build --dialect auto` is).
    pub fn compile_options(self, body: Option<&[u8]>) -> PyResult<CompileOptions> {
        let training_agents = self.training_agents.clone().get("training_agents")?;
        let purposes = self.purposes.clone().get("purposes")?;
        let references = self.references.clone().get()?;
        let auto = self.dialect.eq_ignore_ascii_case("auto");
        let dialect: Dialect = match (auto, body) {
            // As `--dialect auto`: acap when a key starts with ACAP-,
            // robots2 when one is Robot-version, else rfc9309.
            (true, Some(body)) => robocc_compiler::dialect::detect(body),
            (true, None) => {
                return Err(PyValueError::new_err(
                    "dialect=\"auto\" reads one robots.txt, and a store compiles every host \
                     with one dialect: name it (\"rfc9309\", \"draft1996\", \"robots2\" or \
                     \"acap\")",
                ))
            }
            (false, _) => self.dialect.parse().map_err(|_| {
                PyValueError::new_err(format!(
                    "dialect={:?}: expected \"rfc9309\", \"draft1996\", \"robots2\", \"acap\" \
                     or \"auto\" (chosen from the file)",
                    self.dialect
                ))
            })?,
        };
        // With "auto", the file's dialect: say where it came from.
        let read_as = |name: &str| {
            if auto {
                format!("the file reads as {} (dialect=\"auto\")", dialect.name())
            } else {
                format!("the file is read as {}", name)
            }
        };
        // As on the command line: a dialect's own option given with another
        // dialect would change nothing, so it is refused.
        for (name, given, wants) in [
            (
                "training_agents",
                !training_agents.is_empty(),
                Dialect::Rfc9309,
            ),
            ("purposes", !purposes.is_empty(), Dialect::Acap),
            ("references", !references.is_empty(), Dialect::Acap),
        ] {
            if given && dialect != wants {
                return Err(PyValueError::new_err(format!(
                    "{name} applies to dialect=\"{}\", and {}: pass dialect=\"{}\", or \
                     drop {name}",
                    wants.name(),
                    read_as(dialect.name()),
                    wants.name()
                )));
            }
        }
        // A bad value, like a bad option, is a ValueError here, before any
        // file is read: Scrapy and Protego check options once at start-up
        // and read a per-file CompileError as "this file cannot be compiled".
        for t in &training_agents {
            robocc_compiler::agent::validate_token(t)
                .map_err(|e| PyValueError::new_err(format!("training_agents: {e}")))?;
        }
        // As on the command line: url_mode chooses between rfc9309's two
        // readings; every other dialect has its own (draft1996 and robots2
        // decode as the draft says, acap matches URLs as given), so a
        // url_mode given with one would change nothing and is refused.
        let url_mode = match self.url_mode.map(str::to_ascii_lowercase).as_deref() {
            None | Some("google") => UrlMode::Google,
            Some("rfc") => UrlMode::Rfc,
            Some(_) => {
                return Err(PyValueError::new_err(format!(
                    "url_mode={:?}: expected \"google\" or \"rfc\"",
                    self.url_mode.unwrap_or_default()
                )))
            }
        };
        if let (Some(given), Some(reading)) = (self.url_mode, fixed_url_reading(dialect)) {
            return Err(PyValueError::new_err(format!(
                "url_mode applies to dialect=\"rfc9309\" only, and {}, which {reading}: drop \
                 url_mode={given:?}",
                read_as(dialect.name())
            )));
        }
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
        // As `--compile-timeout` reads it: 0, and any value past the
        // clock's range (inf included), is no deadline.
        let t = self.compile_timeout.get()?;
        let time = robocc_compiler::timeout_from_secs(t).ok_or_else(|| {
            PyValueError::new_err(format!(
                "compile_timeout={t}: expected a number of seconds ≥ 0 (0 or float(\"inf\"): \
                 no deadline)"
            ))
        })?;
        let preference_grouping = robocc_compiler::PreferenceGrouping::from_name(
            &self.preference_grouping.to_ascii_lowercase(),
        )
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "preference_grouping={:?}: expected \"spec\" (the default: each preference \
                 line grouped as its spec reads, a Content-Usage line a rule of RFC 9309's \
                 grammar) or \"crawl\" (every preference line in the crawl's groups, Google's \
                 grouping)",
                self.preference_grouping
            ))
        })?;
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
            training_agents,
            preference_grouping,
            purposes,
            references,
        })
    }
}

/// `robocc.compile`'s keyword arguments given as `**options` (the
/// store-set pieces `robocc.spark` calls), each read as `compile` reads it,
/// with its defaults; an unknown keyword is a `TypeError` naming `func`.
pub fn kwargs_options(func: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<CompileOptions> {
    // The string options, owned here and lent to `Options`.
    let [mut dialect, mut url_mode, mut robots_txt, mut layout, mut grouping]: [Option<String>; 5] =
        Default::default();
    let mut o = Options::default();
    for (key, value) in kwargs.into_iter().flatten() {
        let key: String = key.extract()?;
        // One arm per keyword: the string ones, owned here; the others,
        // each read into `o`'s field of its name.
        macro_rules! read_fields {
            ($($field:ident)*) => {
                match key.as_str() {
                    "dialect" => dialect = Some(value.extract()?),
                    "url_mode" => url_mode = value.extract()?,
                    "robots_txt" => robots_txt = Some(value.extract()?),
                    "layout" => layout = Some(value.extract()?),
                    "preference_grouping" => grouping = Some(value.extract()?),
                    $(stringify!($field) => o.$field = value.extract()?,)*
                    _ => {
                        return Err(PyTypeError::new_err(format!(
                            "{func}() got an unexpected keyword argument {key:?} (it takes \
                             robocc.compile's)"
                        )))
                    }
                }
            };
        }
        read_fields!(
            data_txt records_close_groups max_bytes max_line_len max_rules max_states
            max_table_bytes max_automata compile_timeout training_agents purposes references
        );
    }
    Options {
        dialect: dialect.as_deref().unwrap_or(o.dialect),
        url_mode: url_mode.as_deref(),
        robots_txt: robots_txt.as_deref().unwrap_or(o.robots_txt),
        layout: layout.as_deref().unwrap_or(o.layout),
        preference_grouping: grouping.as_deref().unwrap_or(o.preference_grouping),
        ..o
    }
    .compile_options(None)
}
