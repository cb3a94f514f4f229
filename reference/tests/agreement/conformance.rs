//! Runs the data-driven cases of corpus/conformance/ through the compiled
//! engine, the rule-set reference and the independent oracle of the
//! dialect (`reference::rfc9309`, `reference::draft1996`,
//! `reference::robots2`); all must give the expected verdict, and the
//! engine must name the rule the oracle names. The acap cases (one verdict per usage type) run through
//! `reference::acap`'s oracle. The signals cases (a preference per channel:
//! `search`, `train-ai`, `ai-input`, and `crawl`) run through
//! `reference::signals`'s oracle.
//!
//! The files are read into typed records that reject unknown keys and
//! values, so a misspelt option (`"url_mod"`, `"googel"`) fails the test
//! with the file and the case named instead of being silently ignored.

use crate::common;

use common::DialectOracles;
use robocc_compiler::{compile, CompileOptions, PreferenceGrouping};
use robocc_engine::{Dialect, Policy, UrlMode, Usage};
use robocc_reference::signals::Grouping;
use robocc_reference::{AcapOracle, Channel, OracleVerdict, Pref, SignalsOracle};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A conformance file (corpus/conformance/README.md).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConformanceFile {
    format: String,
    dialect: DialectName,
    /// Read one by one into [`Case`], so that an error names its case.
    cases: Vec<serde_json::Value>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum DialectName {
    Rfc9309,
    Draft1996,
    Robots2,
    Acap,
    /// AI-usage preference signals (docs/dialects.md); crawl is rfc9309's.
    Signals,
}

impl DialectName {
    fn dialect(self) -> Dialect {
        match self {
            DialectName::Rfc9309 => Dialect::Rfc9309,
            DialectName::Draft1996 => Dialect::Draft1996,
            DialectName::Robots2 => Dialect::Robots2,
            DialectName::Acap => Dialect::Acap,
            DialectName::Signals => Dialect::Rfc9309,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    spec: String,
    agent: String,
    robots: Option<String>,
    robots_hex: Option<String>,
    #[serde(default)]
    options: CaseOptions,
    /// `[url, verdict]`, or (acap) `[url, usage, verdict]`: read into
    /// [`Check`]s by [`Case::checks`].
    checks: Vec<Vec<String>>,
    /// `[time "HH:MM" UTC, may visit now, rate "documents/seconds" or null]`.
    #[serde(default)]
    visits: Vec<(String, bool, Option<String>)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseOptions {
    url_mode: Option<UrlModeName>,
    robots_txt: Option<RobotsTxtMode>,
    max_bytes: Option<usize>,
    records_close_groups: Option<bool>,
    data_txt: Option<bool>,
    /// acap only: the crawler's declared usage purposes.
    purposes: Option<Vec<String>>,
    /// acap only: the files `ACAP-permissions-reference` fields name.
    references: Option<BTreeMap<String, String>>,
    /// signals only: the training tokens (`--training-agent`).
    training_agents: Option<Vec<String>>,
    /// signals only: `spec` (the default) or `crawl`
    /// (`--preference-grouping`).
    preference_grouping: Option<GroupingName>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum GroupingName {
    Spec,
    Crawl,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum UrlModeName {
    Google,
    Rfc,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RobotsTxtMode {
    /// /robots.txt is always allowed (the default).
    Allow,
    /// /robots.txt is judged by the rules.
    Rules,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Allow,
    Disallow,
    /// acap only: prohibited because no rule has the narrowest scope.
    Undecidable,
    /// signals only: no statement applies.
    Unknown,
}

impl Expect {
    fn read(s: &str) -> Result<Expect, String> {
        match s {
            "allow" => Ok(Expect::Allow),
            "disallow" => Ok(Expect::Disallow),
            "undecidable" => Ok(Expect::Undecidable),
            "unknown" => Ok(Expect::Unknown),
            other => Err(format!(
                "unknown verdict {other:?} (allow, disallow, undecidable, unknown)"
            )),
        }
    }
}

/// A signals check's channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChannelName {
    Crawl,
    Signal(Channel),
}

impl ChannelName {
    fn read(s: &str) -> Result<ChannelName, String> {
        match s {
            "crawl" => Ok(ChannelName::Crawl),
            "search" => Ok(ChannelName::Signal(Channel::Search)),
            "train-ai" => Ok(ChannelName::Signal(Channel::TrainAi)),
            "ai-input" => Ok(ChannelName::Signal(Channel::AiInput)),
            other => Err(format!(
                "unknown channel {other:?} (crawl, search, train-ai, ai-input)"
            )),
        }
    }
}

/// One check: a URL, the usage (`crawl` unless the check names one), and
/// the expected verdict; for signals, the channel and optionally the
/// deciding line.
#[derive(Debug)]
struct Check {
    url: String,
    usage: Usage,
    expect: Expect,
    channel: Option<ChannelName>,
    line: Option<u32>,
}

/// A signals check: `[url, channel, verdict]` or `[url, channel, verdict,
/// line]`.
fn signals_check(c: &[String]) -> Result<Check, String> {
    let (url, channel, expect, line) = match c {
        [url, channel, expect] => (url, channel, expect, None),
        [url, channel, expect, line] => (url, channel, expect, Some(line)),
        _ => {
            return Err(format!(
                "check {c:?}: expected [url, channel, verdict] or [url, channel, verdict, line]"
            ))
        }
    };
    let channel = ChannelName::read(channel).map_err(|e| format!("check {c:?}: {e}"))?;
    let expect = Expect::read(expect).map_err(|e| format!("check {c:?}: {e}"))?;
    let line = line
        .map(|l| {
            l.parse::<u32>()
                .map_err(|_| format!("check {c:?}: line {l:?} is not a number"))
        })
        .transpose()?;
    let fits = match channel {
        ChannelName::Crawl => matches!(expect, Expect::Allow | Expect::Disallow) && line.is_none(),
        ChannelName::Signal(_) => {
            expect != Expect::Undecidable && (line.is_none() || expect != Expect::Unknown)
        }
    };
    if !fits {
        return Err(format!(
            "check {c:?}: `crawl` is allow or disallow without a line; a signal channel is \
             allow, disallow or unknown, and `unknown` has no line"
        ));
    }
    Ok(Check {
        url: url.clone(),
        usage: Usage::Crawl,
        expect,
        channel: Some(channel),
        line,
    })
}

impl Case {
    /// The checks, read and validated: usages and `undecidable` are acap's.
    fn checks(&self, dialect: DialectName) -> Result<Vec<Check>, String> {
        let acap = matches!(dialect, DialectName::Acap);
        if matches!(dialect, DialectName::Signals) {
            return self.checks.iter().map(|c| signals_check(c)).collect();
        }
        self.checks
            .iter()
            .map(|c| {
                let (url, usage, expect) = match &c[..] {
                    [url, expect] => (url, Usage::Crawl, expect),
                    [url, usage, expect] if acap => {
                        let usage = usage
                            .parse::<Usage>()
                            .map_err(|_| format!("check {c:?}: unknown usage {usage:?}"))?;
                        (url, usage, expect)
                    }
                    _ => {
                        return Err(format!(
                            "check {c:?}: expected [url, verdict]{}",
                            if acap {
                                " or [url, usage, verdict]"
                            } else {
                                ""
                            }
                        ))
                    }
                };
                let expect = Expect::read(expect).map_err(|e| format!("check {c:?}: {e}"))?;
                if expect == Expect::Undecidable && !acap {
                    return Err(format!("check {c:?}: `undecidable` is for acap cases"));
                }
                if expect == Expect::Unknown {
                    return Err(format!("check {c:?}: `unknown` is for signals cases"));
                }
                Ok(Check {
                    url: url.clone(),
                    usage,
                    expect,
                    channel: None,
                    line: None,
                })
            })
            .collect()
    }

    /// The acap options are refused elsewhere.
    fn check_options(&self, dialect: DialectName) -> Result<(), String> {
        let o = &self.options;
        if !matches!(dialect, DialectName::Acap) && (o.purposes.is_some() || o.references.is_some())
        {
            return Err("`purposes` and `references` are acap options".to_string());
        }
        if !matches!(dialect, DialectName::Signals)
            && (o.training_agents.is_some() || o.preference_grouping.is_some())
        {
            return Err(
                "`training_agents` and `preference_grouping` are signals options".to_string(),
            );
        }
        if matches!(dialect, DialectName::Signals)
            && (o.url_mode.is_some()
                || o.robots_txt.is_some()
                || o.max_bytes.is_some()
                || o.records_close_groups.is_some()
                || o.data_txt.is_some())
        {
            return Err(
                "signals cases take only `training_agents` and `preference_grouping`".to_string(),
            );
        }
        Ok(())
    }

    /// The compile options of an acap case.
    fn acap_compile_options(&self) -> CompileOptions {
        CompileOptions {
            dialect: Dialect::Acap,
            purposes: self.options.purposes.clone().unwrap_or_default(),
            references: self
                .options
                .references
                .iter()
                .flatten()
                .map(|(path, text)| (path.clone(), text.as_bytes().to_vec()))
                .collect(),
            ..CompileOptions::default()
        }
    }

    /// The oracle for an acap case.
    fn acap_oracle(&self) -> AcapOracle {
        let purposes = self.options.purposes.clone().unwrap_or_default();
        let references: Vec<(String, Vec<u8>)> = self
            .options
            .references
            .iter()
            .flatten()
            .map(|(path, text)| (path.clone(), text.as_bytes().to_vec()))
            .collect();
        AcapOracle::new(&self.body().unwrap(), &self.agent, &purposes, &references)
    }

    fn body(&self) -> Result<Vec<u8>, String> {
        match (&self.robots, &self.robots_hex) {
            (Some(text), None) => Ok(text.as_bytes().to_vec()),
            (None, Some(h)) => hex(h),
            _ => Err("needs exactly one of `robots` and `robots_hex`".to_string()),
        }
    }

    fn compile_options(&self, dialect: DialectName) -> CompileOptions {
        let mut o = CompileOptions {
            dialect: dialect.dialect(),
            ..CompileOptions::default()
        };
        let opts = &self.options;
        if let Some(b) = opts.data_txt {
            o.data_txt = b;
        }
        if let Some(m) = opts.url_mode {
            o.url_mode = match m {
                UrlModeName::Google => UrlMode::Google,
                UrlModeName::Rfc => UrlMode::Rfc,
            };
        }
        if let Some(r) = opts.robots_txt {
            o.robots_txt_allowed = matches!(r, RobotsTxtMode::Allow);
        }
        if let Some(n) = opts.max_bytes {
            o.parse.max_bytes = n;
        }
        if let Some(b) = opts.records_close_groups {
            o.parse.records_close_groups = b;
        }
        o
    }
}

fn hex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!(
            "robots_hex has an odd number of digits ({})",
            s.len()
        ));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("robots_hex: {:?} at {i} is not a hex byte", &s[i..]))
        })
        .collect()
}

/// Reads a conformance file; an error names the file and, for a case, the
/// case (its name, or its index when it has none).
fn read_file(file: &str, text: &[u8]) -> Result<(DialectName, Vec<Case>), String> {
    read_file_checks(file, text).map(|(d, cases)| (d, cases.into_iter().map(|(c, _)| c).collect()))
}

/// [`read_file`], with each case's checks read.
#[allow(clippy::type_complexity)]
fn read_file_checks(
    file: &str,
    text: &[u8],
) -> Result<(DialectName, Vec<(Case, Vec<Check>)>), String> {
    let doc: ConformanceFile = serde_json::from_slice(text).map_err(|e| format!("{file}: {e}"))?;
    if !doc.format.starts_with("robocc conformance cases v1") {
        return Err(format!("{file}: unknown format {:?}", doc.format));
    }
    let mut cases = Vec::with_capacity(doc.cases.len());
    let mut names = std::collections::HashSet::new();
    for (i, value) in doc.cases.into_iter().enumerate() {
        let label = match value.get("name").and_then(|n| n.as_str()) {
            Some(name) => format!("case {name:?}"),
            None => format!("case #{i}"),
        };
        let case: Case =
            serde_json::from_value(value).map_err(|e| format!("{file}: {label}: {e}"))?;
        case.body().map_err(|e| format!("{file}: {label}: {e}"))?;
        case.check_options(doc.dialect)
            .map_err(|e| format!("{file}: {label}: {e}"))?;
        let checks = case
            .checks(doc.dialect)
            .map_err(|e| format!("{file}: {label}: {e}"))?;
        if !names.insert(case.name.clone()) {
            return Err(format!("{file}: {label}: the name is used twice"));
        }
        if case.spec.is_empty() || case.checks.is_empty() {
            return Err(format!("{file}: {label}: empty `spec` or `checks`"));
        }
        cases.push((case, checks));
    }
    Ok((doc.dialect, cases))
}

fn minute_of(t: &str) -> Option<u16> {
    let (h, m) = t.split_once(':')?;
    Some(h.parse::<u16>().ok()? * 60 + m.parse::<u16>().ok()?)
}

#[test]
fn conformance_cases() {
    let dir = common::root().join("corpus/conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        // page.json holds page-level cases (another format): tests/page.rs.
        .filter(|p| p.file_name().is_none_or(|n| n != "page.json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no conformance files in {}",
        dir.display()
    );
    let (mut cases, mut checks, mut oracle_checks, mut failures) = (0, 0, 0, Vec::new());
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (dialect, file_cases) = read_file_checks(&file, &std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{e}"));
        for (case, case_checks) in file_cases {
            cases += 1;
            let name = &case.name;
            if matches!(dialect, DialectName::Signals) {
                // engine side: wired when the signals lowering lands
                let training = case.options.training_agents.clone().unwrap_or_default();
                let (grouping, oracle_grouping) = match case.options.preference_grouping {
                    None | Some(GroupingName::Spec) => (PreferenceGrouping::Spec, Grouping::Spec),
                    Some(GroupingName::Crawl) => (PreferenceGrouping::Crawl, Grouping::Crawl),
                };
                let oracle = SignalsOracle::grouped(
                    &case.body().unwrap(),
                    &[case.agent.as_str()],
                    &training,
                    oracle_grouping,
                );
                let opts = CompileOptions {
                    training_agents: training.clone(),
                    preference_grouping: grouping,
                    ..CompileOptions::default()
                };
                let compiled = compile(&case.body().unwrap(), &case.agent, &opts)
                    .unwrap_or_else(|e| panic!("{file}: {name}: {e}"));
                let bytes = compiled.to_bytes();
                let policy = Policy::from_bytes(&bytes).unwrap();
                for c in &case_checks {
                    checks += 1;
                    oracle_checks += 1;
                    let (verdict, line) = match c.channel {
                        Some(ChannelName::Signal(channel)) => {
                            let got = oracle.check(c.url.as_bytes(), channel);
                            let verdict = match got.pref {
                                Pref::Allow => Expect::Allow,
                                Pref::Disallow => Expect::Disallow,
                                Pref::Unknown => Expect::Unknown,
                            };
                            (verdict, got.line)
                        }
                        _ => {
                            let allowed = oracle.crawl_allowed(c.url.as_bytes());
                            let verdict = if allowed {
                                Expect::Allow
                            } else {
                                Expect::Disallow
                            };
                            (verdict, None)
                        }
                    };
                    if verdict != c.expect || (c.line.is_some() && line != c.line) {
                        failures.push(format!(
                            "{file}: {name}: {:?} {:?} expected {:?} (line {:?}), oracle {verdict:?} \
                             (line {line:?})",
                            c.url, c.channel, c.expect, c.line
                        ));
                    }
                    // The compiled engine: the same verdict, and the oracle's
                    // deciding line.
                    let (engine, engine_line) = match c.channel {
                        Some(ChannelName::Signal(channel)) => {
                            let usage = match channel {
                                Channel::Search => robocc_engine::Usage::Search,
                                Channel::TrainAi => robocc_engine::Usage::TrainAi,
                                Channel::AiInput => robocc_engine::Usage::AiInput,
                            };
                            match policy.preference(c.url.as_bytes(), usage) {
                                None => (Expect::Unknown, None),
                                Some(v) => (
                                    if v.allowed {
                                        Expect::Allow
                                    } else {
                                        Expect::Disallow
                                    },
                                    v.rule.and_then(|r| policy.rule(r)).map(|r| r.line),
                                ),
                            }
                        }
                        _ => {
                            let v = policy.check(c.url.as_bytes());
                            (
                                if v.allowed {
                                    Expect::Allow
                                } else {
                                    Expect::Disallow
                                },
                                line,
                            )
                        }
                    };
                    if engine != c.expect || engine_line != line {
                        failures.push(format!(
                            "{file}: {name}: {:?} {:?} expected {:?} (oracle line {line:?}), \
                             engine {engine:?} (line {engine_line:?})",
                            c.url, c.channel, c.expect
                        ));
                    }
                }
                continue;
            }
            if matches!(dialect, DialectName::Acap) {
                // The compiled engine and the oracle: each must give the
                // expected verdict, and they must name the same line.
                let oracle = case.acap_oracle();
                let opts = case.acap_compile_options();
                let compiled = compile(&case.body().unwrap(), &case.agent, &opts)
                    .unwrap_or_else(|e| panic!("{file}: {name}: {e}"));
                let bytes = compiled.to_bytes();
                let policy = Policy::from_bytes(&bytes).unwrap();
                for c in &case_checks {
                    checks += 1;
                    oracle_checks += 1;
                    let got = oracle.check(c.url.as_bytes(), c.usage);
                    let verdict = if got.undecidable {
                        Expect::Undecidable
                    } else if got.allowed {
                        Expect::Allow
                    } else {
                        Expect::Disallow
                    };
                    if verdict != c.expect {
                        failures.push(format!(
                            "{file}: {name}: {:?} {} expected {:?}, oracle {got:?}",
                            c.url, c.usage, c.expect
                        ));
                    }
                    let e = policy.check_usage(c.url.as_bytes(), c.usage);
                    let engine = match (e.allowed, e.rule) {
                        (true, _) => Expect::Allow,
                        (false, None) => Expect::Undecidable,
                        (false, Some(_)) => Expect::Disallow,
                    };
                    let line = e.rule.and_then(|r| policy.rule(r)).map(|r| r.line);
                    if engine != c.expect || line != got.line {
                        failures.push(format!(
                            "{file}: {name}: {:?} {} expected {:?}, engine {e:?} (line \
                             {line:?}), oracle line {:?}",
                            c.url, c.usage, c.expect, got.line
                        ));
                    }
                }
                continue;
            }
            let body = case.body().unwrap();
            let opts = case.compile_options(dialect);
            let compiled = compile(&body, &case.agent, &opts)
                .unwrap_or_else(|e| panic!("{file}: {name}: {e}"));
            let bytes = compiled.to_bytes();
            let policy = Policy::from_bytes(&bytes).unwrap();
            let oracles = DialectOracles::new(&body, &[&case.agent], &opts)
                .unwrap_or_else(|| panic!("{file}: {name}: no oracle for {dialect:?}"));
            for Check { url, expect, .. } in &case_checks {
                checks += 1;
                oracle_checks += 1;
                let want = *expect == Expect::Allow;
                let got = policy.check(url.as_bytes());
                let reference =
                    robocc_reference::check_url(&compiled.rule_set, url.as_bytes()).allowed;
                let verdict = oracles.check(url.as_bytes());
                if got.allowed != want || reference != want || verdict.allowed != want {
                    failures.push(format!(
                        "{file}: {name}: {url:?} expected {expect:?}, engine {}, reference {}, \
                         oracle {verdict:?}",
                        got.allowed, reference
                    ));
                }
                let engine = OracleVerdict {
                    allowed: got.allowed,
                    line: got.rule.map(|id| compiled.rule_set.rules[id.index()].line),
                };
                if let Err(why) = oracles.judge(engine, url.as_bytes()) {
                    failures.push(format!("{file}: {name}: {url:?}: {why}"));
                }
            }
            for (t, allowed_now, rate) in &case.visits {
                checks += 1;
                let minute =
                    minute_of(t).unwrap_or_else(|| panic!("{file}: {name}: bad time {t:?}"));
                let advice = policy.visit_at_minute(minute);
                let got_rate = advice
                    .rate
                    .map(|r| format!("{}/{}", r.documents, r.seconds));
                if advice.allowed_now != *allowed_now || got_rate != *rate {
                    failures.push(format!(
                        "{file}: {name}: at {t} expected {allowed_now} {rate:?}, got {advice:?}"
                    ));
                }
            }
        }
    }
    let octets = common::take_known_differences();
    eprintln!(
        "{cases} cases, {checks} checks, {oracle_checks} through the oracles; the octet reading \
         of escapes would change {octets}"
    );
    assert!(
        failures.is_empty(),
        "{} of {checks} checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        cases > 50 && checks > 100 && oracle_checks > 300,
        "only {cases} cases / {checks} checks / {oracle_checks} oracle checks ran"
    );
}

/// A misspelt key or value is an error naming the file and the case.
#[test]
fn unknown_keys_and_values_are_rejected() {
    let file = |case: &str| {
        format!(
            r#"{{"format": "robocc conformance cases v1", "dialect": "rfc9309", "cases": [{case}]}}"#
        )
    };
    let good =
        r#"{"name": "ok", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow"]]}"#;
    assert!(read_file("t.json", file(good).as_bytes()).is_ok());
    let bad = [
        (
            r#"{"name": "c1", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow"]], "optoins": {}}"#,
            "optoins",
        ),
        (
            r#"{"name": "c2", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow"]], "options": {"url_mod": "rfc"}}"#,
            "url_mod",
        ),
        (
            r#"{"name": "c3", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow"]], "options": {"url_mode": "googel"}}"#,
            "googel",
        ),
        (
            r#"{"name": "c4", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "alow"]]}"#,
            "alow",
        ),
        (
            r#"{"name": "c5", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow", "x"]]}"#,
            "expected [url, verdict]",
        ),
        (
            r#"{"name": "c6", "spec": "s", "agent": "a", "checks": [["/", "allow"]]}"#,
            "robots",
        ),
        (
            r#"{"name": "c7", "spec": "s", "agent": "a", "robots": "", "robots_hex": "00", "checks": [["/", "allow"]]}"#,
            "robots_hex",
        ),
    ];
    for (case, word) in bad {
        let err = read_file("t.json", file(case).as_bytes()).unwrap_err();
        let name = &case[10..12];
        assert!(
            err.starts_with("t.json: case ") && err.contains(name) && err.contains(word),
            "{err}"
        );
    }
    let err = read_file(
        "t.json",
        br#"{"format": "robocc conformance cases v1", "dialect": "rfc9309", "cases": [], "dialekt": 1}"#,
    )
    .unwrap_err();
    assert!(
        err.starts_with("t.json: ") && err.contains("dialekt"),
        "{err}"
    );
    let err = read_file(
        "t.json",
        br#"{"format": "robocc conformance cases v1", "dialect": "rfc", "cases": []}"#,
    )
    .unwrap_err();
    assert!(err.contains("rfc"), "{err}");
}

/// The signals forms: a channel per check, `unknown`, an optional line and
/// `training_agents` are read in signals files and refused in the others.
#[test]
fn signals_forms_are_checked() {
    let file = |dialect: &str, case: &str| {
        format!(
            r#"{{"format": "robocc conformance cases v1", "dialect": "{dialect}", "cases": [{case}]}}"#
        )
    };
    let good = r#"{"name": "ok", "spec": "s", "agent": "a", "robots": "", "options": {"training_agents": ["G"]}, "checks": [["/", "crawl", "allow"], ["/", "train-ai", "disallow", "3"], ["/", "ai-input", "unknown"]]}"#;
    let (_, cases) = read_file_checks("t.json", file("signals", good).as_bytes()).unwrap();
    assert_eq!(
        cases[0].1[1].channel,
        Some(ChannelName::Signal(Channel::TrainAi))
    );
    assert_eq!(cases[0].1[1].line, Some(3));
    assert_eq!(cases[0].1[2].expect, Expect::Unknown);
    let refused = [
        ("rfc9309", good, "signals option"),
        (
            "rfc9309",
            r#"{"name": "c1", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "unknown"]]}"#,
            "signals cases",
        ),
        (
            "signals",
            r#"{"name": "c2", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "allow"]]}"#,
            "[url, channel, verdict]",
        ),
        (
            "signals",
            r#"{"name": "c3", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "train_ai", "allow"]]}"#,
            "train_ai",
        ),
        (
            "signals",
            r#"{"name": "c4", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "crawl", "unknown"]]}"#,
            "crawl",
        ),
        (
            "signals",
            r#"{"name": "c5", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "search", "unknown", "2"]]}"#,
            "no line",
        ),
        (
            "signals",
            r#"{"name": "c6", "spec": "s", "agent": "a", "robots": "", "options": {"training_agent": ["x"]}, "checks": [["/", "search", "allow"]]}"#,
            "training_agent",
        ),
        (
            "signals",
            r#"{"name": "c7", "spec": "s", "agent": "a", "robots": "", "options": {"url_mode": "rfc"}, "checks": [["/", "search", "allow"]]}"#,
            "only `training_agents`",
        ),
        (
            "signals",
            r#"{"name": "c8", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "search", "maybe"]]}"#,
            "maybe",
        ),
    ];
    for (dialect, case, word) in refused {
        let err = read_file("t.json", file(dialect, case).as_bytes()).unwrap_err();
        assert!(
            err.starts_with("t.json: case ") && err.contains(word),
            "{err}"
        );
    }
}

/// The acap forms: a usage per check, `undecidable`, `purposes` and
/// `references` are read in acap files and refused in the others.
#[test]
fn acap_forms_are_checked() {
    let file = |dialect: &str, case: &str| {
        format!(
            r#"{{"format": "robocc conformance cases v1", "dialect": "{dialect}", "cases": [{case}]}}"#
        )
    };
    let good = r#"{"name": "ok", "spec": "s", "agent": "a", "robots": "", "options": {"purposes": ["news"], "references": {"/r.txt": ""}}, "checks": [["/", "allow"], ["/", "present-Snippet", "undecidable"]]}"#;
    let (_, cases) = read_file_checks("t.json", file("acap", good).as_bytes()).unwrap();
    assert_eq!(cases[0].1[1].usage, Usage::PresentSnippet);
    assert_eq!(cases[0].1[1].expect, Expect::Undecidable);
    let refused = [
        ("rfc9309", good, "acap options"),
        (
            "rfc9309",
            r#"{"name": "c1", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "crawl", "allow"]]}"#,
            "[url, verdict]",
        ),
        (
            "rfc9309",
            r#"{"name": "c2", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "undecidable"]]}"#,
            "undecidable",
        ),
        (
            "acap",
            r#"{"name": "c3", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "crawls", "allow"]]}"#,
            "crawls",
        ),
        (
            "acap",
            r#"{"name": "c4", "spec": "s", "agent": "a", "robots": "", "checks": [["/", "index", "alow"]]}"#,
            "alow",
        ),
        (
            "acap",
            r#"{"name": "c5", "spec": "s", "agent": "a", "robots": "", "options": {"purpose": ["x"]}, "checks": [["/", "allow"]]}"#,
            "purpose",
        ),
        (
            "acap",
            r#"{"name": "c6", "spec": "s", "agent": "a", "robots": "", "checks": [["/"]]}"#,
            "[url, verdict] or [url, usage, verdict]",
        ),
    ];
    for (dialect, case, word) in refused {
        let err = read_file("t.json", file(dialect, case).as_bytes()).unwrap_err();
        assert!(
            err.starts_with("t.json: case ") && err.contains(word),
            "{err}"
        );
    }
}
