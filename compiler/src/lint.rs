//! Findings a site owner can act on, each with a line and a one-line fix.

use crate::agent::{Agents, Selection};
use crate::diag::{quoted, DiagCode, Severity};
use crate::dialect::{LineGrammar, PatternRule, Ranking, Semantics};
use crate::normalize::normalize_pattern;
use crate::parse::keys::KeyKind;
use crate::parse::{parse, Record, RobotsTxt};
use crate::ruleset::RuleSet;
use crate::signals::{label, labels, Syntax};
use crate::{parse_delay_ms, parse_rate, parse_window, CompileOptions};
use std::collections::{BTreeSet, HashMap};

mod readers;
mod traps;

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// 1-based line (0: the whole file).
    pub line: u32,
    /// `Error`: the file is not a robots.txt as written (binary, HTML,
    /// UTF-16, a robocc file); `Warning`: crawlers read something otherwise
    /// than it seems meant; `Info`: harmless.
    pub severity: Severity,
    /// Short identifier of the check (`unknown-key`, `shadowed-rule`, …).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// How to fix it, in one line.
    pub fix: String,
}

const KNOWN_KEYS: &[&str] = &[
    "user-agent",
    "allow",
    "disallow",
    "sitemap",
    "crawl-delay",
    "request-rate",
    "visit-time",
    "robot-version",
    "comment",
    "content-signal",
    "content-usage",
    "host",
    "clean-param",
    "license",
];

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Where a `$` that is not the pattern's last byte is (rfc9309 matches it
/// as a literal `$`; ACAP 2.8: "may only occur as the last character").
fn mid_pattern_dollar(pattern: &[u8]) -> Option<usize> {
    let (_, head) = pattern.split_last()?;
    head.iter().position(|&b| b == b'$')
}

/// Lints `body`; `agents` restricts the rule analyses to one product token
/// (or to several, read together as compiling reads them).
///
/// The pattern analyses (`$` mid-pattern, allow/disallow ties, shadowed
/// rules) follow rfc9309's glob and longest match; under dialects that read
/// patterns otherwise only the file-level findings (keys, records, HTML,
/// parse limit, orphan rules) apply, and acap's own (ACAP records' fields,
/// qualifiers and patterns).
pub fn lint(body: &[u8], agents: Option<&Agents>, options: &CompileOptions) -> Vec<Finding> {
    let input = crate::input::read(body);
    let sem = crate::dialect::semantics(options.dialect);
    // acap: the conventional records are read as compiling reads them
    // (a conventional line inside an ACAP record is ignored, reported so).
    let (acap, conventional) =
        crate::parse::acap::split(&input.text, sem.acap_records, options.parse.max_bytes);
    let robots = parse(&conventional, &options.effective_parse());
    let mut out = Vec::new();
    for d in &input.diagnostics {
        out.push(Finding {
            line: 0,
            severity: Severity::Error,
            code: d.code.name(),
            message: d.message.clone(),
            fix: match d.code {
                DiagCode::Utf16 => {
                    "save the file as UTF-8: most crawlers read no rules from UTF-16"
                }
                DiagCode::Html => {
                    "serve a plain-text robots.txt at /robots.txt (or a 404 if there is none)"
                }
                DiagCode::RoboccFile => "lint the robots.txt the policy was compiled from",
                _ => "serve a plain-text (UTF-8) robots.txt at /robots.txt",
            }
            .into(),
        });
    }
    // A body that is not a robots.txt at all: line findings would be noise.
    if input.diagnostics.iter().any(|d| d.code.is_not_robots_txt()) {
        return out;
    }
    keys(&robots, acap.is_some(), sem.line_grammar, &mut out);
    if let Some(file) = &acap {
        acap_findings(file, options, &mut out);
    }
    // What the parser could not read as written: a limit's cut, lost lines.
    for d in &robots.diagnostics {
        let fix = match d.code {
            DiagCode::ParseLimit => {
                "move the rules that matter to the top of the file, or shorten it"
            }
            DiagCode::LineTooLong => "shorten the line: crawlers cut it too",
            DiagCode::RulesPerGroupLimit => "merge or remove rules: crawlers may ignore the rest",
            DiagCode::NulByte => "remove the NUL byte: crawlers end the line there",
            DiagCode::NoSeparator | DiagCode::EmptyKey => {
                "write `key: value`, or make it a comment with `#`"
            }
            DiagCode::AfterBlankLine => {
                "remove the blank line, or repeat the User-agent lines above the rules"
            }
            _ => continue,
        };
        out.push(Finding {
            line: d.line,
            severity: Severity::Warning,
            code: d.code.name(),
            message: d.message.clone(),
            fix: fix.into(),
        });
    }
    for r in &robots.orphan_rules {
        out.push(Finding {
            line: r.line,
            severity: Severity::Warning,
            code: "rule-outside-group",
            message: "rule before the first user-agent line: crawlers ignore it".into(),
            fix: "add a `User-agent: *` line above it".into(),
        });
    }
    records(&robots, &mut out);
    traps::traps(
        &conventional,
        &robots,
        sem,
        &options.effective_parse(),
        &mut out,
    );
    if sem.line_grammar != LineGrammar::Google {
        draft_records(&robots, sem, &mut out);
    }
    // Google's reading against the other documented ones (rfc9309 as
    // Google groups it only: the others are already a strict reading).
    if options.dialect == crate::Dialect::Rfc9309
        && !options.parse.records_close_groups
        && !sem.acap_records
    {
        readers::readers(body, &conventional, &robots, agents, options, &mut out);
    }
    if sem.reads_signals() {
        signal_findings(&robots, &mut out);
    } else {
        signals_not_read(&robots, options.dialect, &mut out);
    }
    // The pattern analyses assume Google's glob and longest match.
    if sem.patterns == PatternRule::GoogleGlob && sem.ranking == Ranking::LongestMatch {
        patterns(&robots, &mut out);
        // A repeat is reported as one; it is not also "shadowed".
        let repeats: BTreeSet<u32> = out
            .iter()
            .filter(|f| f.code == "duplicate-rule" || f.code == "near-duplicate")
            .map(|f| f.line)
            .collect();
        shadowed(body, &robots, agents, options, &repeats, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

fn keys(robots: &RobotsTxt<'_>, acap: bool, grammar: LineGrammar, out: &mut Vec<Finding>) {
    let records = robots
        .groups
        .iter()
        .flat_map(|g| g.records.iter())
        .chain(robots.global.iter());
    for r in records.filter(|r| r.kind == KeyKind::Unknown) {
        let key = text(r.key).to_ascii_lowercase();
        if key == "content-usage" {
            // An AI-usage preference line (`signal_findings` lints it).
            continue;
        }
        if key.starts_with("acap-") {
            // The acap dialect reads (and lints) them; the others ignore
            // them, as crawlers that do not know ACAP do.
            if !acap {
                out.push(Finding {
                    line: r.line,
                    severity: Severity::Info,
                    code: "acap-field",
                    message: format!(
                        "{:?} is an ACAP 1.0 field: ignored by RFC 9309 crawlers",
                        quoted(r.key)
                    ),
                    fix: "lint and compile the file with the acap dialect to read it".into(),
                });
            }
            continue;
        }
        let near = KNOWN_KEYS
            .iter()
            .map(|k| (edit_distance(&key, k), *k))
            .min()
            .filter(|&(d, _)| d <= 2);
        let ignored_by = match grammar {
            LineGrammar::Google => "ignored by Google and RFC 9309 crawlers",
            // Google's prefixes and typos are not read there (`Disallowed`).
            LineGrammar::Draft | LineGrammar::Robots2 => {
                "an extension field, ignored by robots that read the 1996 draft's field names"
            }
        };
        out.push(Finding {
            line: r.line,
            severity: Severity::Warning,
            code: "unknown-key",
            message: format!("unknown key {:?}: {ignored_by}", quoted(r.key)),
            fix: match near {
                Some((_, k)) => format!("did you mean `{k}:`?"),
                None => "remove it, or keep it knowing most crawlers ignore it".into(),
            },
        });
    }
    for d in robots
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagCode::TypoKey)
    {
        out.push(Finding {
            line: d.line,
            severity: Severity::Warning,
            code: "misspelt-key",
            message: d.message.clone(),
            fix: "spell the key correctly: other crawlers do not accept the typo".into(),
        });
    }
}

/// acap: what the ACAP reader ignored, what compiling reports about the
/// records' fields (for every record: undefined names, qualifiers where
/// none may be, references that cannot be followed), qualifiers that are
/// not valid for their usage (ACAP 2.5), patterns that can never match or
/// have a `$` before their end (2.8), and pairs of rules of one record that
/// prohibit wherever both match (2.4.5).
fn acap_findings(
    file: &crate::parse::acap::AcapFile,
    options: &CompileOptions,
    out: &mut Vec<Finding>,
) {
    use crate::acap::{expand, field_diagnostics};
    use crate::outcome::acap::{narrower, Scope};
    let compiled = field_diagnostics(file, &options.references, options.parse.max_bytes);
    for d in file.diagnostics.iter().chain(&compiled) {
        out.push(Finding {
            line: d.line,
            severity: d.severity,
            code: d.code.name(),
            message: d.message.clone(),
            fix: match d.code {
                DiagCode::AcapDefinition => "define names once, before the first ACAP-crawler line",
                DiagCode::AcapUndefined => {
                    "define the usage or resource set before the first ACAP-crawler line"
                }
                DiagCode::AcapRecord => {
                    "give each its own record: `ACAP-crawler: *` apart from named crawlers, a \
                     permissions reference apart from other fields (ACAP 2.3)"
                }
                DiagCode::AcapReference => {
                    "supply the referenced file with --reference PATH=FILE; it may hold no \
                     permissions reference itself (ACAP 2.3.2)"
                }
                _ => "move or rewrite the field as ACAP 1.0 describes it",
            }
            .into(),
        });
    }
    for record in &file.records {
        // (line, allow, usage, scope) of every rule, resource sets expanded.
        let mut rules: Vec<(u32, bool, Vec<robocc_engine::Usage>, String)> = Vec::new();
        for f in &record.rules {
            // A dropped field (undefined name) is reported above.
            let Some(e) = expand(f, &file.definitions, &mut |_, _, _| {}) else {
                continue;
            };
            for q in &e.usages {
                qualifier_findings(f.line, q.usage, &q.qualifiers, out);
            }
            let usages = e.usages;
            for p in e.patterns {
                if let Some(d) = mid_pattern_dollar(p.as_bytes()) {
                    out.push(Finding {
                        line: f.line,
                        severity: Severity::Warning,
                        code: "dollar-mid-pattern",
                        message: format!(
                            "`$` at byte {} of {p:?} is not its last character (ACAP 2.8: it \
                             \"may only occur as the last character in the pattern\"): robocc \
                             matches it as a literal `$`, and compares it as an end anchor when \
                             ordering rules by scope (2.4.5)",
                            d + 1,
                            p = quoted(&p)
                        ),
                        fix: "put `$` only at the end of the pattern".into(),
                    });
                }
                if !(p.starts_with('/') || p.starts_with('*')) {
                    out.push(Finding {
                        line: f.line,
                        severity: Severity::Warning,
                        code: "acap-pattern",
                        message: format!(
                            "pattern {:?} does not start with `/` or `*`: it matches no path",
                            quoted(&p)
                        ),
                        fix: "start resource path patterns with `/` (or `*`)".into(),
                    });
                }
                let family: Vec<robocc_engine::Usage> = usages.iter().map(|q| q.usage).collect();
                rules.push((f.line, f.allow, family, p.to_ascii_lowercase()));
            }
        }
        let overlap = |a: &[robocc_engine::Usage], b: &[robocc_engine::Usage]| {
            let covers = |x: robocc_engine::Usage, y: robocc_engine::Usage| {
                x == y || (x == robocc_engine::Usage::Present && y.is_present())
            };
            a.iter()
                .any(|&x| b.iter().any(|&y| covers(x, y) || covers(y, x)))
        };
        for (i, a) in rules.iter().enumerate() {
            for b in &rules[i + 1..] {
                if !overlap(&a.2, &b.2) {
                    continue;
                }
                if a.1 == b.1 {
                    // The same statement twice: the later one never decides.
                    if a.2 == b.2 && a.3 == b.3 {
                        out.push(Finding {
                            line: b.0,
                            severity: Severity::Info,
                            code: "acap-duplicate",
                            message: format!(
                                "the same {} of the same usage and pattern as line {}: this \
                                 rule never decides",
                                if a.1 { "permission" } else { "prohibition" },
                                a.0
                            ),
                            fix: "remove the repeated line".into(),
                        });
                    }
                    continue;
                }
                let scope = narrower(a.3.as_bytes(), b.3.as_bytes());
                // Two patterns that differ at a plain character can both
                // match a path only if a `*` comes before it.
                let prefix =
                    a.3.bytes()
                        .zip(b.3.bytes())
                        .take_while(|(x, y)| x == y)
                        .count();
                let meet = a.3.as_bytes()[..prefix].contains(&b'*');
                let (severity, what) = match scope {
                    Scope::Equal => (Severity::Warning, "the same pattern"),
                    Scope::Undetermined if meet => (
                        Severity::Warning,
                        "patterns that cannot be ordered by scope",
                    ),
                    _ => continue,
                };
                out.push(Finding {
                    line: b.0,
                    severity,
                    code: "acap-undecidable",
                    message: format!(
                        "allow and disallow of one usage with {what} (this line and line {}): \
                         wherever both match, no single narrowest rule exists and the usage is \
                         prohibited (ACAP 2.4.5)",
                        a.0
                    ),
                    fix: "remove one of the two, or make one pattern narrower".into(),
                });
            }
        }
    }
}

/// ACAP 2.5's qualifiers: which usages take each, and its values.
fn qualifier_findings(
    line: u32,
    usage: robocc_engine::Usage,
    qs: &[String],
    out: &mut Vec<Finding>,
) {
    use robocc_engine::Usage as U;
    let mut seen: Vec<&str> = Vec::new();
    for q in qs {
        let (name, value) = q.split_once('=').unwrap_or((q.as_str(), ""));
        let name_l = name.to_ascii_lowercase();
        let value = value.to_ascii_lowercase();
        let number_then = |suffixes: &[&str]| {
            suffixes.iter().any(|s| {
                value
                    .strip_suffix(s)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        let date = |d: &str| {
            let b = d.as_bytes();
            b.len() == 10
                && b[4] == b'-'
                && b[7] == b'-'
                && b.iter()
                    .enumerate()
                    .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        };
        let copies = [
            U::Present,
            U::PresentOriginal,
            U::PresentCurrentcopy,
            U::PresentOldcopy,
        ];
        let (usages_ok, value_ok): (bool, bool) = match name_l.as_str() {
            "time-limit" => (
                matches!(usage, U::Index | U::Preserve) || usage.is_present(),
                value == "until-recrawled"
                    || value.strip_prefix("until-").is_some_and(date)
                    || number_then(&["-days"]),
            ),
            // 2.5.3.2 and 2.5.5.2.2: index and present.
            "must-use-resource" => (usage == U::Index || usage.is_present(), !value.is_empty()),
            // 2.5.5.2.5: present and its sub-types only.
            "must-include-resource" => (usage.is_present(), !value.is_empty()),
            "max-length" => (
                matches!(usage, U::PresentSnippet | U::PresentOldsnippet),
                number_then(&["-chars", "-words"]),
            ),
            "prohibited-modification" => (
                copies.contains(&usage),
                ["any", "format", "style", "translation", "annotation"].contains(&value.as_str()),
            ),
            "prohibited-context" => (copies.contains(&usage), value == "within-user-frame"),
            "required-context" => (copies.contains(&usage), value == "within-original-frame"),
            _ => {
                out.push(Finding {
                    line,
                    severity: Severity::Warning,
                    code: "acap-qualifier",
                    message: format!(
                        "{:?} is not an ACAP 1.0 qualifier type (ACAP 2.5)",
                        quoted(name)
                    ),
                    fix: "use time-limit, must-use-resource, max-length, \
                         prohibited-modification, must-include-resource, prohibited-context \
                         or required-context"
                        .into(),
                });
                continue;
            }
        };
        let problem = if !usages_ok {
            Some(format!(
                "qualifier {name} does not apply to usage {usage} (ACAP 2.5)"
            ))
        } else if !value_ok {
            Some(format!(
                "{:?} is not a valid {name} value (ACAP 2.5)",
                quoted(q)
            ))
        } else if seen.contains(&name_l.as_str()) && name_l != "prohibited-modification" {
            Some(format!(
                "qualifier {name} given twice (ACAP 2.5.5.2: at most once)"
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            out.push(Finding {
                line,
                severity: Severity::Warning,
                code: "acap-qualifier",
                message,
                fix: "write the qualifier as ACAP 1.0 section 2.5 defines it for this usage".into(),
            });
        }
        seen.push(match name_l.as_str() {
            "time-limit" => "time-limit",
            "must-use-resource" => "must-use-resource",
            "must-include-resource" => "must-include-resource",
            "max-length" => "max-length",
            "prohibited-modification" => "prohibited-modification",
            "prohibited-context" => "prohibited-context",
            _ => "required-context",
        });
    }
    // 2.5.5.2.4: prohibited-modification "may be repeated within a
    // permission, except if the prohibited modification is any".
    let modifications: Vec<String> = qs
        .iter()
        .filter_map(|q| q.split_once('='))
        .filter(|(name, _)| name.eq_ignore_ascii_case("prohibited-modification"))
        .map(|(_, value)| value.to_ascii_lowercase())
        .collect();
    if modifications.len() > 1 && modifications.iter().any(|m| m == "any") {
        out.push(Finding {
            line,
            severity: Severity::Warning,
            code: "acap-qualifier",
            message: "prohibited-modification=any with another prohibited-modification (ACAP \
                      2.5.5.2.4: it \"may be repeated within a permission, except if the \
                      prohibited modification is any\")"
                .into(),
            fix: "keep prohibited-modification=any alone: it already prohibits every \
                  modification"
                .into(),
        });
    }
}

/// Under another dialect than rfc9309 the preference lines are not read at
/// all (docs/dialects.md): said once per line, instead of advice that would
/// change nothing.
fn signals_not_read(
    robots: &RobotsTxt<'_>,
    dialect: robocc_engine::Dialect,
    out: &mut Vec<Finding>,
) {
    let records = robots
        .groups
        .iter()
        .flat_map(|g| g.records.iter())
        .chain(robots.global.iter());
    for r in records.filter(|r| r.kind == KeyKind::ContentSignal || r.is_content_usage()) {
        out.push(Finding {
            line: r.line,
            severity: Severity::Info,
            code: "signal-not-read",
            message: format!(
                "{} is an AI-usage preference line, read under the rfc9309 dialect only: this \
                 {} reading ignores it",
                text(r.key),
                dialect.name()
            ),
            fix: "lint and compile the file with --dialect rfc9309 to read it".into(),
        });
    }
}

/// AI-usage preference lines (docs/dialects.md, "AI-usage preferences"):
/// Content-Usage values that do not parse or use unknown labels or values,
/// paths that do not start with `/`; Content-Signal keys and values.
fn signal_findings(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    let records = robots
        .groups
        .iter()
        .flat_map(|g| g.records.iter())
        .chain(robots.global.iter());
    let mut finding = |line, code: &'static str, message: String, fix: &str| {
        out.push(Finding {
            line,
            severity: Severity::Warning,
            code,
            message,
            fix: fix.into(),
        })
    };
    let is_usage = |r: &&Record<'_>| r.is_content_usage();
    for r in robots.global.iter().filter(is_usage) {
        finding(
            r.line,
            "rule-outside-group",
            "Content-Usage before the first user-agent line belongs to no group: ignored \
             (aipref attach-05 §3)"
                .into(),
            "add a `User-agent: *` line above it, or move it into the group it is for",
        );
    }
    for r in records {
        if is_usage(&r) {
            let v = r.value;
            let (_, pref) = crate::signals::split_content_usage(v);
            let looks_like_path = pref
                .split(|&b| b == b' ' || b == b'\t')
                .next()
                .is_some_and(|t| t.len() > 1 && !t.contains(&b'='));
            if v.first() != Some(&b'/') && looks_like_path && pref.contains(&b' ') {
                finding(
                    r.line,
                    "content-usage-path",
                    format!(
                        "Content-Usage path {:?} does not start with `/`: the whole value is read \
                         as the preference, which does not parse",
                        quoted(pref.split(|&b| b == b' ').next().unwrap_or(b""))
                    ),
                    "start the path with `/` (attach-05 §3.2)",
                );
                continue;
            }
            match crate::signals::parse_dictionary(pref) {
                None => {
                    let upper = pref.iter().any(u8::is_ascii_uppercase);
                    finding(
                        r.line,
                        "content-usage-syntax",
                        format!(
                            "Content-Usage {:?} is not a Structured Fields dictionary{}: it states \
                             nothing",
                            quoted(pref),
                            if upper { " (keys must be lowercase)" } else { "" }
                        ),
                        "write lowercase `label=y` or `label=n` pairs separated by commas, e.g. \
                         `train-ai=n, search=y`",
                    );
                }
                Some(dict) => {
                    for (key, token) in dict {
                        if label(Syntax::ContentUsage, key.as_bytes()).is_none() {
                            let known = labels(Syntax::ContentUsage);
                            finding(
                                r.line,
                                "content-usage-label",
                                format!("Content-Usage label {:?} is not in the vocabulary ({known}): ignored", quoted(key.as_str())),
                                &format!("use one of {known} (aipref vocab-07)"),
                            );
                        } else if !matches!(token.as_deref(), Some("y" | "n")) {
                            finding(
                                r.line,
                                "content-usage-value",
                                format!("Content-Usage {key} has no `y` or `n` token: its preference is unknown"),
                                "write `=y` or `=n` (a token, not a string or a bare key)",
                            );
                        }
                    }
                }
            }
        }
        if r.kind == KeyKind::ContentSignal {
            for pair in r.value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                if pair.is_empty() {
                    continue;
                }
                let (k, v) = match pair.iter().position(|&b| b == b'=') {
                    Some(i) => (pair[..i].trim_ascii(), pair[i + 1..].trim_ascii()),
                    None => (pair, &b""[..]),
                };
                let key_ok = label(Syntax::ContentSignal, k).is_some();
                let known = labels(Syntax::ContentSignal);
                let value_ok = v.eq_ignore_ascii_case(b"yes") || v.eq_ignore_ascii_case(b"no");
                if !key_ok || !value_ok {
                    finding(
                        r.line,
                        "content-signal",
                        format!(
                            "Content-Signal {:?}: {}: it states nothing",
                            quoted(pair),
                            if key_ok {
                                "the value is not yes or no".to_string()
                            } else {
                                format!("the key is not one of {known}")
                            }
                        ),
                        &format!("write one of {known} with =yes or =no"),
                    );
                }
            }
        }
    }
}

/// The 1996 draft's dialects (draft1996, robots2): records that name robots
/// but hold no rule line, robots2's Robot-version and timing values, and
/// wildcards where the rule set has none.
fn draft_records(robots: &RobotsTxt<'_>, sem: &Semantics, out: &mut Vec<Finding>) {
    for (g, group) in robots.groups.iter().enumerate() {
        let names = || {
            let names: Vec<String> = group.agents.iter().map(|a| text(a.value)).collect();
            names.join(", ")
        };
        // `Disallow:` (empty) is a deliberate "everything"; no line at all
        // is the shape where the draft and Google part: Google's groups
        // would give these robots the next record's rules.
        if group.rules.is_empty() {
            // Google's groups end at rules only, so they would read these
            // User-agent lines with the next record's rules, if there is one.
            let next = if g + 1 < robots.groups.len() {
                "; Google's crawlers would give them the next record's rules"
            } else {
                ""
            };
            out.push(Finding {
                line: group.agents[0].line,
                severity: Severity::Warning,
                code: "record-without-rules",
                message: format!(
                    "the record naming {} has no Allow or Disallow line: under the 1996 draft \
                     those robots may fetch everything{next}",
                    names()
                ),
                fix: "add the rules under the User-agent lines, or write `Disallow:` if \
                      everything is meant"
                    .into(),
            });
        }
        let v2 = sem.patterns.reads_robot_version() && {
            let version = crate::dialect::robots2_version(robots, g);
            for (line, note) in version.notes {
                out.push(Finding {
                    line,
                    severity: Severity::Warning,
                    code: "robot-version",
                    message: note,
                    fix: "write `Robot-version: 2.0` once, right after the User-agent lines".into(),
                });
            }
            version.is_v2
        };
        // One finding per record (a file written for Google's wildcards
        // has many such lines), at the first, counting the others.
        let starred: Vec<_> = group
            .rules
            .iter()
            .filter(|r| !v2 && r.raw.contains(&b'*'))
            .collect();
        if let Some(first) = starred.first() {
            let fix = if sem.patterns.reads_robot_version() {
                "add `Robot-version: 2.0` right after the User-agent lines to read `*` as a \
                 wildcard"
            } else {
                "write the path prefix to exclude (`/private` matches every path under it)"
            };
            let matches = if first.raw.starts_with(b"/") {
                "it matches only paths that have a `*` there"
            } else {
                // Every path starts with `/`.
                "it matches no path"
            };
            let others = match starred.len() - 1 {
                0 => String::new(),
                1 => " (and 1 more rule of this record)".to_string(),
                n => format!(" (and {n} more rules of this record)"),
            };
            out.push(Finding {
                line: first.line,
                severity: Severity::Warning,
                code: "literal-wildcard",
                message: format!(
                    "`*` in {:?} is a literal character: {} has no wildcards, so {matches}{others}",
                    quoted(first.raw),
                    if sem.patterns.reads_robot_version() {
                        "a version 1.0 rule set"
                    } else {
                        "the 1996 draft"
                    }
                ),
                fix: fix.into(),
            });
        }
        for r in &group.records {
            let (bad, what, example) = match r.kind {
                KeyKind::VisitTime => (
                    parse_window(r.value).is_none(),
                    "HHMM-HHMM (UTC)",
                    "Visit-time: 0600-0845",
                ),
                KeyKind::RequestRate => (
                    parse_rate(r.value).is_none(),
                    "n/t[smhd] [HHMM-HHMM]",
                    "Request-rate: 1/10s 0600-0845",
                ),
                _ => continue,
            };
            if bad {
                out.push(Finding {
                    line: r.line,
                    severity: Severity::Warning,
                    code: "timing-value",
                    message: format!(
                        "{} {:?} is not {what}: ignored",
                        text(r.key),
                        quoted(r.value)
                    ),
                    fix: format!("write it as {what}, e.g. `{example}`"),
                });
            }
        }
    }
}

fn records(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    for r in robots.groups.iter().flat_map(|g| g.records.iter()) {
        if r.kind == KeyKind::CrawlDelay {
            match parse_delay_ms(r.value) {
                None => out.push(Finding {
                    line: r.line,
                    severity: Severity::Warning,
                    code: "crawl-delay",
                    message: format!(
                        "Crawl-delay {:?} is not a number of seconds",
                        quoted(r.value)
                    ),
                    fix: "write a number of seconds, e.g. `Crawl-delay: 5`".into(),
                }),
                Some(ms) if ms > 60_000 => out.push(Finding {
                    line: r.line,
                    severity: Severity::Warning,
                    code: "crawl-delay",
                    message: format!(
                        "Crawl-delay of {} s limits a crawler to {} pages a day",
                        ms / 1000,
                        86_400_000 / ms.max(1)
                    ),
                    fix: "use a delay of a few seconds, or disallow what must not be crawled"
                        .into(),
                }),
                _ => {}
            }
        }
    }
    for r in robots.global.iter().filter(|r| r.kind == KeyKind::Sitemap) {
        let v = text(r.value);
        if !(v.starts_with("http://") || v.starts_with("https://")) {
            out.push(Finding {
                line: r.line,
                severity: Severity::Warning,
                code: "sitemap",
                message: format!("Sitemap {:?} is not an absolute URL", quoted(&v)),
                fix: "give the full URL, e.g. `Sitemap: https://example.com/sitemap.xml`".into(),
            });
        }
    }
}

fn patterns(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    for group in &robots.groups {
        // Rules equal once encoding and case are normalised.
        let mut seen: HashMap<Vec<u8>, (u32, &[u8], bool)> = HashMap::new();
        for rule in group.rules.iter().filter(|r| !r.raw.is_empty()) {
            let allow = rule.kind == crate::parse::RuleKind::Allow;
            if let Some(d) = mid_pattern_dollar(rule.raw) {
                out.push(Finding {
                    line: rule.line,
                    severity: Severity::Warning,
                    code: "dollar-mid-pattern",
                    message: format!(
                        "`$` at byte {} of {:?} is a literal `$`, not an end anchor",
                        d + 1,
                        quoted(rule.raw)
                    ),
                    fix: "put `$` only at the end, or write `%24` for a literal dollar".into(),
                });
            }
            let exact = normalize_pattern(rule.raw);
            let folded = exact.to_ascii_lowercase();
            match seen.get(&folded) {
                Some(&(line, raw, _)) if raw != rule.raw => {
                    let (what, fix) = if normalize_pattern(raw) == exact {
                        ("differs only by percent-encoding from", "keep one spelling")
                    } else {
                        ("differs only by letter case from", "paths are case-sensitive: check which one is meant")
                    };
                    out.push(Finding {
                        line: rule.line,
                        severity: Severity::Warning,
                        code: "near-duplicate",
                        message: format!("{:?} {what} {:?} (line {line})", quoted(rule.raw), quoted(raw)),
                        fix: fix.into(),
                    });
                }
                Some(&(line, _, other_allow)) if other_allow != allow => out.push(Finding {
                    line: rule.line,
                    severity: Severity::Warning,
                    code: "allow-disallow-tie",
                    message: format!(
                        "Allow and Disallow of the same pattern {:?} (line {line}): Allow wins the tie",
                        quoted(rule.raw)
                    ),
                    fix: "remove the rule that is not meant".into(),
                }),
                Some(&(line, _, _)) => out.push(Finding {
                    line: rule.line,
                    severity: Severity::Info,
                    code: "duplicate-rule",
                    message: format!(
                        "{} {:?} is a duplicate of line {line}",
                        if allow { "Allow" } else { "Disallow" },
                        quoted(rule.raw)
                    ),
                    fix: "remove the repeat".into(),
                }),
                None => {
                    seen.insert(folded, (rule.line, rule.raw, allow));
                }
            }
        }
    }
}

/// Rules that no state of the agent's automaton names as its winner can
/// never decide any URL. Without `agent`, for every token the file names
/// and for the crawlers it does not: the file is parsed once (by the
/// caller) and each distinct set of groups lowered once, so a file naming
/// 16,000 agents costs one lowering of each group, not 16,000 compiles.
fn shadowed(
    body: &[u8],
    robots: &RobotsTxt<'_>,
    agents: Option<&Agents>,
    options: &CompileOptions,
    repeats: &BTreeSet<u32>,
    out: &mut Vec<Finding>,
) {
    // (how the finding names the agent, the groups it reads)
    let selections: Vec<(String, Selection)> = match agents {
        Some(a) => vec![(
            a.iter().collect::<Vec<_>>().join(" and "),
            crate::dialect::semantics(options.dialect)
                .selection
                .select(robots, a),
        )],
        None => crate::agent::select_every_named(robots)
            .into_iter()
            .map(|(token, sel)| (text(&token), sel))
            .chain([(
                "crawlers without a group of their own".to_string(),
                crate::agent::select(robots, &"RoboccUnlistedAgent".into()),
            )])
            .collect(),
    };
    let mut lowered: HashMap<Vec<usize>, Option<Vec<NeverDeciding>>> = HashMap::new();
    for (agent, selection) in selections {
        let never = lowered
            .entry(selection.groups.clone())
            .or_insert_with(|| never_deciding(body, robots, &selection, options));
        let Some(never) = never else {
            continue;
        };
        for (line, allow, pattern) in never.iter() {
            if repeats.contains(line) {
                continue;
            }
            out.push(Finding {
                line: *line,
                severity: Severity::Warning,
                code: "shadowed-rule",
                message: format!(
                    "{} {} never decides any URL for {agent}: a longer or equal rule always wins",
                    if *allow { "Allow" } else { "Disallow" },
                    text(pattern)
                ),
                fix: "remove it, or make it more specific than the rule that wins".into(),
            });
        }
    }
}

/// A crawl rule that never decides: its line, whether it allows, its
/// pattern.
type NeverDeciding = (u32, bool, Vec<u8>);

/// The crawl rules written on a line that no state of the automaton of
/// `selection`'s rules names as its winner.
/// `None` when the rules do not lower within the budget (no finding then).
fn never_deciding(
    body: &[u8],
    robots: &RobotsTxt<'_>,
    selection: &Selection,
    options: &CompileOptions,
) -> Option<Vec<NeverDeciding>> {
    // Crawl rules alone: AI-usage statements do not change which crawl
    // rule wins.
    let rule_set = RuleSet::build(robots, selection, options.rule_set_options());
    let lowered = crate::lower::lower(&rule_set, &options.budget, body.len()).ok()?;
    let deciding: BTreeSet<u32> = lowered
        .outcomes
        .iter()
        .map(|&o| o & robocc_engine::artifact::OUTCOME_RULE_MASK)
        .collect();
    Some(
        rule_set
            .rules
            .iter()
            .enumerate()
            .filter(|(id, r)| {
                r.origin == robocc_engine::artifact::RuleOrigin::Line
                    && !deciding.contains(&(*id as u32))
            })
            .map(|(_, r)| (r.line, r.allow, r.pattern.clone()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(body: &str) -> Vec<(u32, &'static str)> {
        lint(body.as_bytes(), None, &CompileOptions::default())
            .into_iter()
            .map(|f| (f.line, f.code))
            .collect()
    }

    fn acap_codes(body: &str) -> Vec<(u32, &'static str)> {
        let options = CompileOptions {
            dialect: robocc_engine::Dialect::Acap,
            ..CompileOptions::default()
        };
        lint(body.as_bytes(), None, &options)
            .into_iter()
            .map(|f| (f.line, f.code))
            .collect()
    }

    /// `type = value` is one valid qualifier (ACAP §3), in a field and in a
    /// qualified usage.
    #[test]
    fn draft_dialects_report_what_their_grammar_ignores() {
        let lint_in = |dialect, body: &str| -> Vec<(u32, &'static str)> {
            let options = CompileOptions {
                dialect,
                ..CompileOptions::default()
            };
            lint(body.as_bytes(), None, &options)
                .into_iter()
                .map(|f| (f.line, f.code))
                .collect()
        };
        use robocc_engine::Dialect::{Draft1996, Rfc9309, Robots2};
        let body = "User-agent: a\nDisallow: /x\n\nDisallow: /y\n\nUser-agent: c\n\n\
                    User-agent: b\nDisallowed: /\nDisallow: /*.gif\nDisallow /z\n";
        assert_eq!(
            lint_in(Draft1996, body),
            [
                (4, "after-blank-line"),
                (6, "record-without-rules"),
                (9, "unknown-key"),
                (10, "literal-wildcard"),
                (11, "no-separator"),
            ]
        );
        // Google's reading: `Disallowed` is a Disallow, `*` a wildcard.
        assert!(lint_in(Rfc9309, body).iter().all(|(_, c)| !matches!(
            *c,
            "literal-wildcard" | "record-without-rules" | "unknown-key"
        )));
        // An extension line ends the User-agent lines too; `Disallow:`
        // (empty) is no finding.
        assert_eq!(
            lint_in(
                Draft1996,
                "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow:\n"
            ),
            [(1, "record-without-rules")]
        );
        let body = "User-agent: a\nAllow: /x*\nRobot-version: 2.0\nDisallow: *\n\
                    Visit-time: 25:00-99\nRequest-rate: abc\n\n\
                    User-agent: b\nRobot-version: 2.0\nDisallow: *\n";
        assert_eq!(
            lint_in(Robots2, body),
            [
                (2, "literal-wildcard"),
                (3, "robot-version"),
                (5, "timing-value"),
                (6, "timing-value"),
            ]
        );
        let options = CompileOptions {
            dialect: Robots2,
            ..CompileOptions::default()
        };
        let found = lint(body.as_bytes(), None, &options);
        let star = found.iter().find(|f| f.code == "literal-wildcard").unwrap();
        assert!(
            star.message
                .ends_with("only paths that have a `*` there (and 1 more rule of this record)"),
            "{star:?}"
        );
        // A value that does not start with `/` matches nothing; a record at
        // the end of the file has no next record to be read with.
        let options = CompileOptions {
            dialect: Draft1996,
            ..CompileOptions::default()
        };
        let found = lint(
            b"User-agent: a\nDisallow: *.pdf\n\nUser-agent: b\n",
            None,
            &options,
        );
        assert!(
            found
                .iter()
                .any(|f| f.code == "literal-wildcard"
                    && f.message.ends_with("so it matches no path")),
            "{found:?}"
        );
        let empty = found
            .iter()
            .find(|f| f.code == "record-without-rules")
            .unwrap();
        assert!(!empty.message.contains("Google"), "{empty:?}");
    }

    #[test]
    fn acap_qualifier_with_spaces_around_the_equals_sign() {
        let c = acap_codes(
            "ACAP-qualified-usage: snip present-snippet max-length = 30-words\nACAP-crawler: *\n\
             ACAP-allow-index: /a/ time-limit = 3-days\nACAP-allow-(snip): /d/\n",
        );
        assert_eq!(c, [], "{c:?}");
    }

    /// A crawler name is matched by its leading product token: one with
    /// none addresses no crawler.
    #[test]
    fn acap_crawler_name_no_token_matches() {
        let c = acap_codes("ACAP-crawler: 2bot\nACAP-crawler: Bot/1.0\nACAP-allow-crawl: /\n");
        assert_eq!(c, [(1, "acap-ignored")], "{c:?}");
    }

    /// What `acap::rules` reports when compiling is linted too, for every
    /// record: a dropped permission is a warning (`--fail-on warning`).
    #[test]
    fn acap_compile_stage_findings() {
        let body = "ACAP-qualified-usage: q index time-limit=1-days\nACAP-crawler: *\n\
                    ACAP-allow-present: the-acap:resource-set:nosuch\nACAP-allow-(nosuch): /x\n\
                    ACAP-disallow-index: /y time-limit=3-days\nACAP-allow-(q): /z time-limit=2-days\n\
                    ACAP-disallow-(q): /w\nACAP-crawler: bot\nACAP-permissions-reference: /bot.txt\n\
                    ACAP-allow-index: /x/\n";
        let options = CompileOptions {
            dialect: robocc_engine::Dialect::Acap,
            ..CompileOptions::default()
        };
        let f = lint(body.as_bytes(), None, &options);
        let c: Vec<_> = f.iter().map(|f| (f.line, f.code)).collect();
        assert_eq!(
            c,
            [
                (3, "acap-undefined"),
                (4, "acap-undefined"),
                (5, "acap-ignored"),
                (6, "acap-ignored"),
                (7, "acap-ignored"),
                (9, "acap-reference"),
                (10, "acap-record"),
            ],
            "{f:#?}"
        );
        assert!(f.iter().all(|f| f.severity == Severity::Warning), "{f:#?}");
        assert!(f[0].fix.contains("define"), "{f:#?}");
        // A supplied file that refers on; one whose records name what is
        // undefined (reported at the reference line).
        for (text, want) in [
            (
                "ACAP-crawler: bot\nACAP-permissions-reference: /more.txt\n",
                "refers on",
            ),
            (
                "ACAP-crawler: x\nACAP-allow-(nope): /\n",
                "/bot.txt line 2: (nope)",
            ),
        ] {
            let options = CompileOptions {
                references: vec![("/bot.txt".to_string(), text.as_bytes().to_vec())],
                ..options.clone()
            };
            let f = lint(body.as_bytes(), None, &options);
            assert!(
                f.iter().any(|f| f.line == 9 && f.message.contains(want)),
                "{want}: {f:#?}"
            );
        }
    }

    /// 2.8: `$` only last; 2.5.5.2.4: `prohibited-modification` repeats
    /// except `any`; 2.5.5.2.5: `must-include-resource` only on `present`
    /// and its sub-types (`must-use-resource` on `index` too: 2.5.3.2).
    #[test]
    fn acap_patterns_and_qualifiers() {
        let c = acap_codes(
            "ACAP-crawler: *\nACAP-disallow-crawl: /a$b\nACAP-allow-crawl: /a$\n\
             ACAP-allow-present: /b/ prohibited-modification=any prohibited-modification=format\n\
             ACAP-allow-present: /c/ prohibited-modification=style prohibited-modification=format\n\
             ACAP-allow-index: /d/ must-include-resource=the-acap:resource-role:credit:id:x\n\
             ACAP-allow-present-snippet: /e/ must-include-resource=/x must-use-resource=/y\n\
             ACAP-allow-index: /f/ must-use-resource=/g\n\
             ACAP-allow-present-original: /g/ prohibited-modification=ANY prohibited-modification=any\n",
        );
        assert_eq!(
            c,
            [
                (2, "dollar-mid-pattern"),
                (4, "acap-qualifier"),
                (6, "acap-qualifier"),
                (9, "acap-qualifier"),
            ],
            "{c:?}"
        );
    }

    /// A conventional line inside an ACAP record is ignored (2.9.2), which
    /// lint says once: no advice to give it a `User-agent: *` line. A rule
    /// before any record still gets that advice.
    /// Quoted values show controls as `%XX`, as every other human-readable
    /// output does (they were Rust escapes: `"Foo\u{1b}"`).
    #[test]
    fn quoted_values_escape_controls_as_url_bytes() {
        let f = lint(
            b"User-agent: *\nFoo\x1b[2J: x\nCrawl-delay: 5\x07\n",
            None,
            &CompileOptions::default(),
        );
        let messages: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
        assert!(
            messages
                .contains(&"unknown key \"Foo%1B[2J\": ignored by Google and RFC 9309 crawlers"),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"Crawl-delay \"5%07\" is not a number of seconds"),
            "{messages:?}"
        );
    }

    #[test]
    fn acap_conventional_line_in_an_acap_record() {
        let c = acap_codes(
            "Disallow: /early\nACAP-crawler: BOT\nACAP-disallow-crawl: /a\nACAP-crawler: third\n\
             Disallow: /zz\nACAP-crawler: bot\nACAP-disallow-crawl: /b\n",
        );
        assert_eq!(c, [(1, "rule-outside-group"), (5, "acap-ignored")], "{c:?}");
    }

    /// Every named agent is checked for shadowed rules, each distinct set
    /// of groups lowered once (issue 41, item 13: one compile of the whole
    /// file per agent made 16,000 groups take 41 s): the same findings as
    /// compiling the file for each token.
    #[test]
    fn shadowed_rules_of_many_agents() {
        let mut body = String::new();
        for i in 0..300 {
            body.push_str(&format!(
                "User-agent: bot-{}\nDisallow: /a{}\nAllow: /b\nDisallow: /b\n\n",
                (b'a' + (i % 26) as u8) as char,
                i % 7
            ));
            body.push_str(&format!("User-agent: x{i}y\nAllow: /c\n\n"));
        }
        body.push_str("User-agent: *\nDisallow: /d\nDisallow: /d*\n");
        let options = CompileOptions::default();
        let findings = lint(body.as_bytes(), None, &options);
        let got: BTreeSet<(u32, String)> = findings
            .iter()
            .filter(|f| f.code == "shadowed-rule")
            .map(|f| (f.line, f.message.clone()))
            .collect();
        let robots = parse(body.as_bytes(), &options.effective_parse());
        let mut tokens: Vec<(String, String)> = crate::agent::select_every_named(&robots)
            .into_iter()
            .map(|(t, _)| (text(&t), text(&t)))
            .collect();
        tokens.push((
            "Unlisted".into(),
            "crawlers without a group of their own".into(),
        ));
        let mut want = BTreeSet::new();
        for (token, name) in tokens {
            let c = crate::compile(body.as_bytes(), &token, &options).unwrap();
            let deciding: BTreeSet<u32> = c
                .data
                .outcomes
                .iter()
                .map(|&o| o & robocc_engine::artifact::OUTCOME_RULE_MASK)
                .collect();
            for (id, r) in c.rule_set.rules.iter().enumerate() {
                if r.origin == robocc_engine::artifact::RuleOrigin::Line
                    && !deciding.contains(&(id as u32))
                {
                    let verb = if r.allow { "Allow" } else { "Disallow" };
                    want.insert((
                        r.line,
                        format!(
                            "{verb} {} never decides any URL for {name}: a longer or equal \
                             rule always wins",
                            text(&r.pattern)
                        ),
                    ));
                }
            }
        }
        assert!(want.len() > 300, "{}", want.len());
        assert_eq!(got, want);
    }

    #[test]
    fn findings() {
        let c = codes(
            "Disallow: /early\nUser-agent: *\nDisalow: /a\nDisallow: /b$c\nCrawl-delay: soon\n\
             Alow: /x\nDisallow: /p\nAllow: /p\nDisallow: /Q\nDisallow: /q\nDisallow: /%7Ex\nDisallow: /~x\n\
             Disallow: /p/deeper\nAllow: /\nDisallow: /\nSitemap: /sitemap.xml\nnot a rule at all\n",
        );
        for want in [
            (1, "rule-outside-group"),
            (3, "misspelt-key"),
            (4, "dollar-mid-pattern"),
            (5, "crawl-delay"),
            (6, "unknown-key"),
            (8, "allow-disallow-tie"),
            (10, "near-duplicate"),
            (12, "near-duplicate"),
            (16, "sitemap"),
            (17, "no-separator"),
            (7, "shadowed-rule"),
            (15, "shadowed-rule"),
        ] {
            assert!(c.contains(&want), "missing {want:?} in {c:?}");
        }
        assert!(!c.contains(&(13, "shadowed-rule")), "{c:?}");
        // A Content-Usage line outside any group is lost as a rule is.
        assert_eq!(
            codes("Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: /a search=n\n"),
            [(1, "rule-outside-group")]
        );
        // Under another dialect the preference lines are not read at all.
        let draft = CompileOptions {
            dialect: robocc_engine::Dialect::Draft1996,
            ..CompileOptions::default()
        };
        let found: Vec<(u32, &str)> = lint(
            b"Content-Usage: train-ai=n\nUser-agent: *\nContent-Signal: ai-train=no\nDisallow: /x\n",
            None,
            &draft,
        )
        .into_iter()
        .map(|f| (f.line, f.code))
        .collect();
        assert_eq!(found, [(1, "signal-not-read"), (3, "signal-not-read")]);
        assert_eq!(
            codes("<!DOCTYPE html><html><body>hi</body></html>")[0],
            (0, "html")
        );
        // An exact repeat says so, once; no placeholder agent name leaks.
        let f = lint(
            b"User-agent: *\nDisallow: /a\nDisallow: /a\n",
            None,
            &CompileOptions::default(),
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].line, f[0].code), (3, "duplicate-rule"));
        assert!(f[0].message.contains("duplicate of line 2"), "{f:?}");
        let f = lint(
            b"User-agent: *\nDisallow: /a\nDisallow: /a/b\nAllow: /a/b\n",
            None,
            &CompileOptions::default(),
        );
        assert!(f.iter().all(|f| !f.message.contains("Robocc")), "{f:?}");
        assert!(
            f.iter()
                .any(|f| f.message.contains("crawlers without a group")),
            "{f:?}"
        );
    }
}
