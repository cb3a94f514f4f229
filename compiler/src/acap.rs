//! acap: the crawler's ACAP records (and conventional records) → rules on
//! usages, and ACAP's conflict resolution (2.4.5), evaluated once per
//! automaton state over the set of rules the state has matched.
//!
//! Narrowest scope is not a total order — two rules may be incomparable,
//! and then the usage is prohibited — so acap rules carry no rank: the
//! lowering keeps, per state, the *set* of rules matched so far (see
//! `lower.rs`, "sets"), and [`outcome`] resolves every usage from it.
//! docs/dialects.md ("acap") states each choice made here with the spec
//! sentence it rests on.

use crate::agent::{Selection, Via};
use crate::diag::{DiagCode, Diagnostic};
use crate::glob::Glob;
use crate::parse::acap::{
    AcapFile, Definitions, QualifiedUsage, Record, RequestField, RuleField, UsageName,
};
use crate::parse::escape::google_escape;
use crate::parse::{RobotsTxt, RuleKind};
use crate::ruleset::SetRule;
use robocc_engine::artifact::{outcome_word, PatternSyntax, RuleOrigin, NO_RULE};
use robocc_engine::{RankClass, Usage, UsageSet};

/// What an acap rule is about besides its pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcapRule {
    /// The usage it is on.
    pub usage: Usage,
    /// From a record naming the crawler (the named tier), else a `*`
    /// record.
    pub named: bool,
    /// A conventional Allow/Disallow, read as a rule on `crawl`.
    pub conventional: bool,
    /// Purpose patterns of its sub-record (empty: a general rule).
    pub purposes: Vec<String>,
    /// Qualifiers as the reader keeps them (`type=value`).
    pub qualifiers: Vec<String>,
    /// How it was written when not plainly (`(name)`, a resource set, a
    /// permissions reference).
    pub via: String,
    /// The pattern as written, ASCII lower-cased: what 2.4.5 compares.
    pub scope: Vec<u8>,
}

/// The acap side of a rule set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AcapRules {
    /// One per rule of the rule set, in rule order.
    pub rules: Vec<AcapRule>,
    /// `##ACAP version=` as written.
    pub version: Option<String>,
    /// The file says `ACAP-ignore-conventional-records`.
    pub ignore_conventional: bool,
    /// The purposes compiled for.
    pub purposes: Vec<String>,
    /// Action requests of the records that apply.
    pub requests: Vec<RequestField>,
}

/// What the caller supplies besides the file.
#[derive(Clone, Copy, Debug)]
pub struct AcapInput<'o> {
    /// The crawler's product token.
    pub agent: &'o str,
    /// Declared usage purposes (2.3.3).
    pub purposes: &'o [String],
    /// Files named by `ACAP-permissions-reference` (path as written, body).
    pub references: &'o [(String, Vec<u8>)],
    /// Parse limit, for referenced files too (0: none).
    pub max_bytes: usize,
}

/// A rule before ordering: its sort key is its source line (references:
/// the line of the reference field), then the order it was made in.
struct Pending {
    key: u32,
    rule: SetRule,
    acap: AcapRule,
}

/// The usages a record whose permissions reference was not supplied gets
/// a prohibition of `/` for: each usage type family once.
const ALL_FAMILIES: [Usage; 6] = [
    Usage::Crawl,
    Usage::Follow,
    Usage::Index,
    Usage::Preserve,
    Usage::Present,
    Usage::Other,
];

/// Builds the rules of an acap policy: the applicable ACAP records' rules
/// (definitions expanded), then, unless ignored, the conventional rules
/// the rfc9309 selection chose, as rules on `crawl`. Rule ids follow file
/// order.
pub fn rules(
    file: &AcapFile,
    conventional: &RobotsTxt<'_>,
    selection: &Selection,
    input: AcapInput<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<SetRule>, AcapRules) {
    let mut pending = Vec::new();
    let mut requests = Vec::new();
    for (index, record) in file.records.iter().enumerate() {
        let named = record.names(input.agent);
        if !named && !record.is_any() {
            continue;
        }
        requests.extend(record.requests.iter().cloned());
        read_record(
            record,
            index,
            named,
            &file.definitions,
            input,
            None,
            &mut pending,
            diagnostics,
        );
        for (path, line) in &record.references {
            reference(
                path,
                *line,
                index,
                named,
                &file.definitions,
                input,
                &mut pending,
                diagnostics,
            );
        }
    }
    if file.ignore_conventional.is_none() {
        let named = selection.via == Via::Named;
        for &g in &selection.groups {
            for r in conventional.groups[g]
                .rules
                .iter()
                .filter(|r| !r.raw.is_empty())
            {
                let allow = r.kind == RuleKind::Allow;
                let scope = r.raw.to_ascii_lowercase();
                // 2.9.2: an ACAP rule on crawl with the same pattern and the
                // opposite verdict wins; the conventional one is ignored.
                let overridden = pending.iter().any(|p: &Pending| {
                    !p.acap.conventional
                        && p.acap.usage == Usage::Crawl
                        && p.acap.scope == scope
                        && p.rule.allow != allow
                });
                if overridden {
                    continue;
                }
                pending.push(Pending {
                    key: r.line,
                    rule: written_rule(allow, r.raw, true, r.line, g),
                    acap: AcapRule {
                        usage: Usage::Crawl,
                        named,
                        conventional: true,
                        purposes: Vec::new(),
                        qualifiers: Vec::new(),
                        via: String::new(),
                        scope,
                    },
                });
            }
        }
    }
    // Stable: rules of one line keep the order they were expanded in.
    pending.sort_by_key(|p| p.key);
    let (rules, acap): (Vec<SetRule>, Vec<AcapRule>) =
        pending.into_iter().map(|p| (p.rule, p.acap)).unzip();
    let info = AcapRules {
        rules: acap,
        version: file.version.as_ref().map(|(v, _)| v.clone()),
        ignore_conventional: file.ignore_conventional.is_some(),
        purposes: input.purposes.to_vec(),
        requests,
    };
    (rules, info)
}

/// The pattern an acap rule written `written` matches: Google's encoding
/// of non-ASCII bytes, `*` and a final `$`; ASCII case ignored except in
/// conventional rules (which keep rfc9309's matching).
fn rule_glob(written: &[u8], conventional: bool) -> Glob {
    let glob = Glob::parse(
        &google_escape(written),
        PatternSyntax::Glob,
        robocc_engine::UrlMode::Google,
    );
    if conventional {
        glob
    } else {
        glob.case_insensitive()
    }
}

/// The rules of a compiled acap policy, rebuilt from its rule table (what
/// `explain` resolves again to show how each usage was decided). `None`
/// for other dialects.
pub fn from_policy(p: &robocc_engine::Policy<'_>) -> Option<(Vec<SetRule>, AcapRules)> {
    if p.header().dialect != robocc_engine::Dialect::Acap {
        return None;
    }
    let mut rules = Vec::new();
    let mut info = Vec::new();
    for (id, r) in p.rules().enumerate() {
        let a = p.acap_rule(id as u32)?;
        rules.push(written_rule(
            r.allow,
            r.pattern,
            a.conventional,
            r.line,
            r.group as usize,
        ));
        info.push(AcapRule {
            usage: a.usage,
            named: a.named,
            conventional: a.conventional,
            purposes: a.purposes.split_whitespace().map(str::to_string).collect(),
            qualifiers: a
                .qualifiers
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            via: a.via.to_string(),
            scope: r.pattern.to_ascii_lowercase(),
        });
    }
    let m = p.meta();
    Some((
        rules,
        AcapRules {
            rules: info,
            version: m.acap_version().map(str::to_string),
            ignore_conventional: m.acap_ignores_conventional(),
            purposes: m.acap_purposes().map(str::to_string).collect(),
            requests: Vec::new(),
        },
    ))
}

/// The rule of a pattern as written: ACAP's (ASCII case ignored), or a
/// conventional line's (rfc9309's matching, and its encoded length as the
/// priority that settles conventional conflicts "as normal").
fn written_rule(
    allow: bool,
    written: &[u8],
    conventional: bool,
    line: u32,
    group: usize,
) -> SetRule {
    let glob = rule_glob(written, conventional);
    let mut rule = set_rule(allow, written.to_vec(), glob, line, group);
    if conventional {
        rule.priority = crate::ruleset::len_u32(google_escape(written).len());
    }
    rule
}

fn set_rule(allow: bool, pattern: Vec<u8>, glob: Glob, line: u32, group: usize) -> SetRule {
    SetRule {
        allow,
        priority: u32::try_from(pattern.len()).unwrap_or(u32::MAX / 4),
        pattern,
        syntax: PatternSyntax::Glob,
        glob,
        rank: 1,
        class: RankClass::NarrowestScope,
        line,
        group: group as u32,
        origin: RuleOrigin::Line,
    }
}

/// Does one of `patterns` match one of the declared `purposes` (2.3.3,
/// matched as resource patterns are: 2.8)?
pub fn purpose_applies(patterns: &[String], purposes: &[String]) -> bool {
    // No purpose declared: no pattern applies, and none is built.
    if purposes.is_empty() {
        return false;
    }
    patterns.iter().any(|p| {
        let glob = Glob::parse(
            p.as_bytes(),
            PatternSyntax::Glob,
            robocc_engine::UrlMode::Google,
        )
        .case_insensitive();
        purposes.iter().any(|d| glob.matches(d.as_bytes()))
    })
}

/// What one permission or prohibition field stands for.
pub(crate) struct Expansion {
    /// Its usages, with the qualifiers a permission carries (a
    /// prohibition's are dropped: 2.4.2).
    pub usages: Vec<QualifiedUsage>,
    /// Its resource patterns, as written.
    pub patterns: Vec<String>,
    /// How it was written when not plainly (`(name)`, a resource set).
    pub via: String,
}

/// Field `f` expanded with the definitions `defs`; `warn` (line, code,
/// message) hears what is wrong with it: qualifiers where none may be, a
/// prohibition of a local usage, and (then `None`: the field is dropped)
/// an undefined usage or resource set.
pub(crate) fn expand(
    f: &RuleField,
    defs: &Definitions,
    warn: &mut impl FnMut(u32, DiagCode, String),
) -> Option<Expansion> {
    // The usages the field stands for, with their qualifiers.
    let (mut usages, mut via): (Vec<QualifiedUsage>, String) = match &f.usage {
        UsageName::Standard(u) => (
            vec![QualifiedUsage {
                usage: *u,
                qualifiers: f.qualifiers.clone(),
            }],
            String::new(),
        ),
        UsageName::Local(name) => match defs.local(name) {
            Some(parts) => {
                if !f.qualifiers.is_empty() {
                    warn(
                        f.line,
                        DiagCode::AcapIgnored,
                        format!(
                            "qualifiers after a ({name}) usage are ignored (ACAP 2.4.1.3: \
                             \"No explicit qualifiers may be included\"); its definition's \
                             apply"
                        ),
                    );
                }
                if !f.allow {
                    warn(
                        f.line,
                        DiagCode::AcapIgnored,
                        format!(
                            "a prohibition of the local usage ({name}) (ACAP 2.4.2: \"may \
                             not refer to locally-defined qualified or composite usages\"): \
                             read as a prohibition of each usage it stands for"
                        ),
                    );
                }
                (parts, format!("({name})"))
            }
            None => {
                warn(
                    f.line,
                    DiagCode::AcapUndefined,
                    format!(
                        "({name}) is not a qualified or composite usage defined before the \
                         records: rule dropped"
                    ),
                );
                return None;
            }
        },
    };
    if !f.allow && matches!(f.usage, UsageName::Standard(_)) && !f.qualifiers.is_empty() {
        warn(
            f.line,
            DiagCode::AcapIgnored,
            "qualifiers on a prohibition are ignored (ACAP 2.4.2: \"may not contain any \
             qualifiers\")"
                .to_string(),
        );
    }
    if !f.allow {
        for q in &mut usages {
            q.qualifiers.clear();
        }
    }
    // The resource patterns the field stands for.
    const SET: &str = "the-acap:resource-set:";
    let patterns = match f
        .spec
        .get(..SET.len())
        .filter(|p| p.eq_ignore_ascii_case(SET))
    {
        Some(_) => {
            let name = &f.spec[SET.len()..];
            match defs.resource_set(name) {
                Some(p) => {
                    if !via.is_empty() {
                        via.push(' ');
                    }
                    via.push_str(&f.spec);
                    p.to_vec()
                }
                None => {
                    warn(
                        f.line,
                        DiagCode::AcapUndefined,
                        format!("resource set {name:?} is not defined: rule dropped"),
                    );
                    return None;
                }
            }
        }
        None => vec![f.spec.clone()],
    };
    Some(Expansion {
        usages,
        patterns,
        via,
    })
}

/// A `warn` for [`expand`] that adds to `diagnostics`; `from`: the
/// reference (path, line) when the field is in a referenced file, whose
/// findings are reported at the reference line.
fn warner<'d>(
    from: Option<(&'d str, u32)>,
    diagnostics: &'d mut Vec<Diagnostic>,
) -> impl FnMut(u32, DiagCode, String) + 'd {
    move |line, code, message| {
        let (line, message) = match from {
            Some((path, at)) => (at, format!("{path} line {line}: {message}")),
            None => (line, message),
        };
        diagnostics.push(Diagnostic::new(line, code, message));
    }
}

/// The rules of one applicable record. `from`: the reference path when the
/// record was read from a referenced file (its rules sort at `key_line`).
#[allow(clippy::too_many_arguments)]
fn read_record(
    record: &Record,
    index: usize,
    named: bool,
    defs: &Definitions,
    input: AcapInput<'_>,
    from: Option<(&str, u32)>,
    out: &mut Vec<Pending>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut warn = warner(from, diagnostics);
    for f in &record.rules {
        if f.in_sub_record && !purpose_applies(&f.purposes, input.purposes) {
            continue;
        }
        let Some(Expansion {
            usages,
            patterns,
            mut via,
        }) = expand(f, defs, &mut warn)
        else {
            continue;
        };
        if let Some((path, _)) = from {
            if !via.is_empty() {
                via.push(' ');
            }
            via.push_str(&format!("reference {path} line {}", f.line));
        }
        for q in &usages {
            for p in &patterns {
                let glob = rule_glob(p.as_bytes(), false);
                out.push(Pending {
                    key: from.map_or(f.line, |(_, at)| at),
                    // Rules of a referenced file carry the reference
                    // field's line (their own lines are in another file).
                    rule: set_rule(
                        f.allow,
                        p.as_bytes().to_vec(),
                        glob,
                        from.map_or(f.line, |(_, at)| at),
                        index,
                    ),
                    acap: AcapRule {
                        usage: q.usage,
                        named,
                        conventional: false,
                        purposes: f.purposes.clone(),
                        qualifiers: q.qualifiers.clone(),
                        via: via.clone(),
                        scope: p.as_bytes().to_ascii_lowercase(),
                    },
                });
            }
        }
    }
}

/// The file an `ACAP-permissions-reference: path` names, read; or why it
/// cannot be followed (not supplied; it refers on, which 2.3.2 forbids).
fn referenced(path: &str, input: AcapInput<'_>) -> Result<AcapFile, &'static str> {
    let Some((_, body)) = input.references.iter().find(|(p, _)| p == path) else {
        return Err("was not supplied");
    };
    let file = crate::parse::acap::read(&crate::input::read(body).text, input.max_bytes);
    if file.records.iter().all(|r| r.references.is_empty()) {
        Ok(file)
    } else {
        Err("refers on to another file (ACAP 2.3.2 forbids chains)")
    }
}

/// The definitions a referenced file's records see: the referring file's,
/// then its own (2.4.1.3: a local usage may be defined "within a robots.txt
/// file that contains a permission reference to this robots.txt file"); on
/// a clash the referring file's win.
fn merged(defs: &Definitions, own: &Definitions) -> Definitions {
    let mut merged = defs.clone();
    merged
        .resource_sets
        .extend(own.resource_sets.iter().cloned());
    merged.qualified.extend(own.qualified.iter().cloned());
    merged.composite.extend(own.composite.iter().cloned());
    merged
}

/// An `ACAP-permissions-reference` of an applicable record (2.3.2): the
/// supplied file's records for the crawler, in the referring record's tier;
/// or, when the file was not supplied (or refers on), a prohibition of `/`
/// for every usage, in that tier: rules like any other, which narrower
/// permissions override (2.4.5).
#[allow(clippy::too_many_arguments)]
fn reference(
    path: &str,
    line: u32,
    index: usize,
    named: bool,
    defs: &Definitions,
    input: AcapInput<'_>,
    out: &mut Vec<Pending>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match referenced(path, input) {
        Ok(file) => {
            let merged = merged(defs, &file.definitions);
            for r in file
                .records
                .iter()
                .filter(|r| r.names(input.agent) || r.is_any())
            {
                read_record(
                    r,
                    index,
                    named,
                    &merged,
                    input,
                    Some((path, line)),
                    out,
                    diagnostics,
                );
            }
        }
        Err(why) => {
            diagnostics.push(unread_reference(path, line, why));
            for usage in ALL_FAMILIES {
                let glob = rule_glob(b"/", false);
                out.push(Pending {
                    key: line,
                    rule: set_rule(false, b"/".to_vec(), glob, line, index),
                    acap: AcapRule {
                        usage,
                        named,
                        conventional: false,
                        purposes: Vec::new(),
                        qualifiers: Vec::new(),
                        via: format!("missing reference {path}"),
                        scope: b"/".to_vec(),
                    },
                });
            }
        }
    }
}

/// The diagnostic of a reference that could not be followed (`why`).
fn unread_reference(path: &str, line: u32, why: &str) -> Diagnostic {
    Diagnostic::new(
        line,
        DiagCode::AcapReference,
        format!(
            "permissions reference {path:?} {why}: its record gets a prohibition of `/` for \
             every usage, which narrower permissions still override (ACAP 2.4.5: narrowest \
             scope)"
        ),
    )
}

/// What [`rules`] reports about the fields of `file`'s ACAP records, for
/// every record whatever crawler it addresses and every sub-record whatever
/// its purposes (what `lint` reports; compiling reports it for the records
/// that apply): undefined usages and resource sets (the rule is dropped),
/// qualifiers where none may be, prohibitions of local usages, references
/// that cannot be followed; and the same about the records of the supplied
/// referenced files, at the reference line.
pub fn field_diagnostics(
    file: &AcapFile,
    references: &[(String, Vec<u8>)],
    max_bytes: usize,
) -> Vec<Diagnostic> {
    let input = AcapInput {
        agent: "",
        purposes: &[],
        references,
        max_bytes,
    };
    fn check(
        record: &Record,
        defs: &Definitions,
        from: Option<(&str, u32)>,
        out: &mut Vec<Diagnostic>,
    ) {
        let mut warn = warner(from, out);
        for f in &record.rules {
            let _ = expand(f, defs, &mut warn);
        }
    }
    let mut out = Vec::new();
    for record in &file.records {
        check(record, &file.definitions, None, &mut out);
        for (path, line) in &record.references {
            match referenced(path, input) {
                Ok(nested) => {
                    let defs = merged(&file.definitions, &nested.definitions);
                    for r in &nested.records {
                        check(r, &defs, Some((path.as_str(), *line)), &mut out);
                    }
                }
                Err(why) => out.push(unread_reference(path, *line, why)),
            }
        }
    }
    out
}

/// How two patterns compare in scope (2.4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The first pattern is narrower.
    First,
    /// The second pattern is narrower.
    Second,
    /// The same pattern.
    Equal,
    /// They differ at a position where neither is a wildcard.
    Undetermined,
}

/// 2.4.5's character-by-character comparison of two patterns (ASCII case
/// already folded).
pub fn narrower(a: &[u8], b: &[u8]) -> Scope {
    let mut i = 0;
    loop {
        match (a.get(i), b.get(i)) {
            (None, None) => return Scope::Equal,
            // "If one pattern has run out of characters, the other pattern
            // has the narrower scope."
            (None, Some(_)) => return Scope::Second,
            (Some(_), None) => return Scope::First,
            (Some(x), Some(y)) if x == y => i += 1,
            // "$ where the other pattern contains any other character
            // (including the asterisk *), the other pattern has the
            // narrower scope."
            (Some(b'$'), _) => return Scope::Second,
            (_, Some(b'$')) => return Scope::First,
            // "* where the other pattern contains any other character
            // except the dollar sign $, the other pattern has the narrower
            // scope."
            (Some(b'*'), _) => return Scope::Second,
            (_, Some(b'*')) => return Scope::First,
            _ => return Scope::Undetermined,
        }
    }
}

/// How a usage's verdict was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No rule concerns the usage at this URL: allowed.
    Default,
    /// The rules agree; this one (the narrowest, else the first) is named.
    Agreed(usize),
    /// The rules conflict and this one is narrower than every other.
    Narrowest(usize),
    /// The rules conflict and no single narrowest one exists: prohibited.
    /// The pair: the best candidate and a rule it is not narrower than.
    Undecidable(usize, usize),
}

/// The resolution of one usage at one URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// The verdict.
    pub allowed: bool,
    /// How.
    pub decision: Decision,
    /// The tier that spoke: rules of records naming the crawler (true) or
    /// of `*` records.
    pub named: bool,
    /// The rules that competed (ids), `other` rules included when they
    /// applied.
    pub competing: Vec<usize>,
    /// Conventional lines that matched and lost to another conventional
    /// line as rfc9309 settles them (2.9.2), before the competition.
    pub settled: Vec<usize>,
}

/// Does rule `a` concern usage `u` explicitly (its own usage, or `present`
/// for a sub-type)?
fn explicit(a: &AcapRule, u: Usage) -> bool {
    a.usage == u || (a.usage == Usage::Present && u.is_present() && u != Usage::Present)
}

/// Resolves usage `u` over the matched rules `matched` (ids).
pub fn resolve(rules: &[SetRule], acap: &AcapRules, matched: &[usize], u: Usage) -> Resolution {
    let info = |i: usize| &acap.rules[i];
    let concerns = |i: usize| {
        let a = info(i);
        if u == Usage::Other {
            a.usage == Usage::Other
        } else {
            explicit(a, u) || a.usage == Usage::Other
        }
    };
    // Named over any (2.2).
    let named = matched.iter().any(|&i| info(i).named && concerns(i));
    let tier = |i: &usize| info(*i).named == named;
    let mut competing: Vec<usize> = matched
        .iter()
        .copied()
        .filter(tier)
        .filter(|&i| {
            if u == Usage::Other {
                info(i).usage == Usage::Other
            } else {
                explicit(info(i), u)
            }
        })
        .collect();
    let settled = conventional_as_normal(rules, acap, &mut competing);
    // `other` (2.5.6) speaks where no permission of the tier does.
    if u != Usage::Other && !competing.iter().any(|&i| rules[i].allow) {
        competing.extend(
            matched
                .iter()
                .copied()
                .filter(tier)
                .filter(|&i| info(i).usage == Usage::Other),
        );
        competing.sort_unstable();
    }
    let (allowed, decision) = decide(rules, acap, &competing);
    Resolution {
        allowed,
        decision,
        named,
        competing,
        settled,
    }
}

/// Conventional Allow/Disallow lines that disagree are settled "as normal"
/// (2.9.2): of them only rfc9309's winner competes further, the longest
/// encoded pattern, Allow on a tie, the first in file order among equals.
/// 2.4.5 speaks of ACAP permission and prohibition fields; adding an ACAP
/// record to a file must not change what its conventional lines decide
/// between themselves. Conventional lines that agree are left as they are
/// (no conflict among them; a state keeps only the first of a one-verdict
/// slot, [`Canon`]). Returns the lines that lost.
fn conventional_as_normal(
    rules: &[SetRule],
    acap: &AcapRules,
    competing: &mut Vec<usize>,
) -> Vec<usize> {
    let conventional = || {
        competing
            .iter()
            .copied()
            .filter(|&i| acap.rules[i].conventional)
    };
    let mut verdicts = conventional().map(|i| rules[i].allow);
    let Some(first) = verdicts.next() else {
        return Vec::new();
    };
    if verdicts.all(|v| v == first) {
        return Vec::new();
    }
    // Ids are in file order, so `max_by_key` must not pick a later equal.
    let winner = conventional()
        .rev()
        .max_by_key(|&i| (rules[i].priority, rules[i].allow))
        .expect("a conventional rule");
    let lost = conventional().filter(|&i| i != winner).collect();
    competing.retain(|&i| !acap.rules[i].conventional || i == winner);
    lost
}

/// 2.4.5 over the competing rules `r` (sorted ids, so the first is the
/// first in file order).
fn decide(rules: &[SetRule], acap: &AcapRules, r: &[usize]) -> (bool, Decision) {
    let Some(&first) = r.first() else {
        return (true, Decision::Default);
    };
    let scope = |i: usize| acap.rules[i].scope.as_slice();
    let agree = r.iter().all(|&i| rules[i].allow == rules[first].allow);
    // Tournament: a rule narrower than every other wins every comparison,
    // so it is the last candidate standing; then verify it.
    let mut best = first;
    for &i in &r[1..] {
        if narrower(scope(i), scope(best)) == Scope::First {
            best = i;
        }
    }
    let ok = |i: usize, s: usize| match narrower(scope(i), scope(s)) {
        Scope::First => true,
        Scope::Equal => agree || rules[i].allow == rules[s].allow,
        _ => false,
    };
    let failed = r.iter().copied().find(|&s| s != best && !ok(best, s));
    // The first in file order of the winner's twins (equal pattern and
    // verdict): they are interchangeable, and the first is named.
    let twin = |w: usize| {
        r.iter()
            .copied()
            .find(|&i| scope(i) == scope(w) && rules[i].allow == rules[w].allow)
            .unwrap_or(w)
    };
    // Permissions that agree, one with qualifiers: the narrowest names the
    // verdict, so that its qualifiers (or its lack of them) are the ones
    // reported (2.4.1.2: qualifiers restrict a permission; the narrowest
    // is the one that applies, as 2.4.5 picks it in a conflict).
    let qualified = rules[first].allow && r.iter().any(|&i| !acap.rules[i].qualifiers.is_empty());
    match (agree, failed) {
        (true, None) if qualified => (true, Decision::Agreed(twin(best))),
        // No conflict: the first in file order names it.
        (true, _) => (rules[first].allow, Decision::Agreed(first)),
        (false, None) => (rules[best].allow, Decision::Narrowest(twin(best))),
        (false, Some(s)) => (false, Decision::Undecidable(best, s)),
    }
}

/// What a set-mode state must remember of the rules it matched for good.
///
/// For a usage and a tier whose rules (explicit, and `other`) all have the
/// same verdict and carry no qualifiers, no conflict can arise: the
/// outcome depends only on whether a rule matched and on the first one in
/// file order. So of those rules a
/// state keeps the first explicit one and the first `other` one, and a rule
/// that comes after them in file order can no longer change anything (its
/// thread is dropped). Where verdicts are mixed, every matched rule is kept.
/// This is what keeps real files whose ACAP prohibitions are many `/*word`
/// patterns from multiplying their states.
pub struct Canon {
    /// Per rule, the (usage, tier, other?) slots it concerns.
    slots: Vec<Vec<usize>>,
    /// Per slot: all rules of it have one verdict.
    single: Vec<bool>,
}

/// Slot of (usage, tier, via `other`).
fn slot(u: Usage, named: bool, other: bool) -> usize {
    (u as usize * 2 + usize::from(named)) * 2 + usize::from(other)
}

fn slot_named(k: usize) -> bool {
    (k / 2) % 2 == 1
}

fn slot_usage(k: usize) -> usize {
    k / 4
}

impl Canon {
    /// The slots of the rules of `acap`.
    pub fn new(rules: &[SetRule], acap: &AcapRules) -> Canon {
        let n_slots = Usage::ACAP_COUNT * 4;
        let mut slots = Vec::with_capacity(rules.len());
        let mut verdicts = vec![[false; 2]; n_slots / 2];
        let mut qualified = vec![false; n_slots / 2];
        for (r, a) in rules.iter().zip(&acap.rules) {
            let mut s = Vec::new();
            for &u in Usage::ACAP {
                let (e, o) = (explicit(a, u), a.usage == Usage::Other);
                if e || o {
                    let k = slot(u, a.named, o && !e);
                    s.push(k);
                    verdicts[k / 2][usize::from(r.allow)] = true;
                    qualified[k / 2] |= r.allow && !a.qualifiers.is_empty();
                }
            }
            slots.push(s);
        }
        // Where a permission carries qualifiers, agreeing rules still name
        // the narrowest (`decide`), so every matched rule is kept; so are
        // rules that disagree.
        let single = (0..n_slots)
            .map(|k| {
                let [no, yes] = verdicts[k / 2];
                !(qualified[k / 2] || (no && yes))
            })
            .collect();
        Canon { slots, single }
    }
}

impl crate::lower::Canonical for Canon {
    fn matters(&self, r: usize, matched: &[usize]) -> bool {
        self.slots[r].iter().any(|&k| {
            // A `*` record's rule on a usage the named tier already speaks
            // of (a matched rule is matched for good) can never count.
            let named_speaks = !slot_named(k)
                && matched.iter().any(|&m| {
                    self.slots[m]
                        .iter()
                        .any(|&j| slot_named(j) && slot_usage(j) == slot_usage(k))
                });
            let shadowed =
                self.single[k] && matched.iter().any(|&m| m < r && self.slots[m].contains(&k));
            !named_speaks && !shadowed
        })
    }

    fn reduce(&self, matched: &mut Vec<usize>) {
        let mut kept: Vec<usize> = Vec::with_capacity(matched.len());
        for &r in matched.iter() {
            if self.matters(r, &kept) {
                kept.push(r);
            }
        }
        *matched = kept;
    }
}

/// The outcome words of a state that matched `matched` (sorted ids): one
/// per usage, in channel order.
pub fn outcome(rules: &[SetRule], acap: &AcapRules, matched: &[usize]) -> Vec<u32> {
    Usage::ACAP
        .iter()
        .map(|&u| {
            let r = resolve(rules, acap, matched, u);
            let rule = match r.decision {
                Decision::Agreed(i) | Decision::Narrowest(i) => i as u32,
                Decision::Default | Decision::Undecidable(..) => NO_RULE,
            };
            outcome_word(r.allowed, rule)
        })
        .collect()
}

/// The usages allowed at a URL, from [`outcome`] words.
pub fn allowed_set(words: &[u32]) -> UsageSet {
    Usage::ACAP
        .iter()
        .zip(words)
        .filter(|(_, &w)| w & robocc_engine::artifact::OUTCOME_ALLOWED != 0)
        .map(|(&u, _)| u)
        .collect()
}

/// `--dialect auto`: the dialect a file is written in — acap when a line's
/// key starts with `ACAP-`, robots2 when one is `Robot-version`, else
/// rfc9309.
pub fn detect_dialect(body: &[u8]) -> robocc_engine::Dialect {
    use crate::parse::keys::{classify, split_line, KeyKind};
    let mut robots2 = false;
    for line in crate::parse::lines::Lines::new(body) {
        let t = line.text.trim_ascii();
        if t.len() >= 5 && t[..5].eq_ignore_ascii_case(b"acap-") {
            return robocc_engine::Dialect::Acap;
        }
        if let Ok((key, _)) = split_line(line.text) {
            robots2 |= classify(key).kind == KeyKind::RobotVersion;
        }
    }
    if robots2 {
        robocc_engine::Dialect::Robots2
    } else {
        robocc_engine::Dialect::Rfc9309
    }
}

#[cfg(test)]
mod tests {
    use super::{narrower, Scope};
    use crate::diag::DiagCode;
    use crate::{compile, CompileOptions};
    use robocc_engine::{Dialect, Policy, Usage};

    /// A missing reference adds prohibitions of `/` that compete by
    /// narrowest scope: its diagnostic says so, not "every usage on every
    /// path" (a narrower permission of the same crawler still wins).
    #[test]
    fn missing_reference_adds_prohibitions_of_the_root() {
        let body = b"ACAP-crawler: bot\nACAP-permissions-reference: /bot.txt\n\n\
                     ACAP-crawler: bot\nACAP-allow-index: /public/\n";
        let options = CompileOptions {
            dialect: Dialect::Acap,
            ..CompileOptions::default()
        };
        let c = compile(body, "bot", &options).unwrap();
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == DiagCode::AcapReference)
            .expect("a reference diagnostic");
        assert_eq!(d.line, 2);
        assert!(
            d.message.contains("prohibition of `/` for every usage")
                && d.message.contains("narrower permissions still override")
                && !d.message.contains("every path"),
            "{}",
            d.message
        );
        let bytes = c.to_bytes();
        let p = Policy::from_bytes(&bytes).unwrap();
        assert!(p.check_usage(b"/public/a", Usage::Index).allowed);
        assert!(!p.check_usage(b"/other", Usage::Index).allowed);
    }

    #[test]
    fn narrowest_scope_comparison_2_4_5() {
        assert_eq!(narrower(b"/a", b"/a/b"), Scope::Second, "ran out");
        assert_eq!(narrower(b"/a$", b"/a"), Scope::First, "ran out");
        assert_eq!(narrower(b"/a$", b"/a*"), Scope::Second, "$ against *");
        assert_eq!(narrower(b"/a*", b"/ab"), Scope::Second, "* against a");
        assert_eq!(narrower(b"/a*x", b"/a*y"), Scope::Undetermined);
        assert_eq!(narrower(b"/news/", b"/news/"), Scope::Equal);
        assert_eq!(narrower(b"*.gif", b"/a"), Scope::Second);
    }
}
