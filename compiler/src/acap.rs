//! acap: the crawler's ACAP records (and conventional records) → rules on
//! usages, with their acap side ([`AcapRules`]: usage, tier, scope). Their
//! conflicts are resolved per automaton state by [`crate::outcome::acap`]
//! (ACAP 2.4.5), whose [`resolve`] and [`Decision`] are re-exported here.
//! docs/dialects.md ("acap") states each choice made here with the spec
//! sentence it rests on.

use crate::agent::{Selection, Via};
use crate::diag::{DiagCode, Diagnostic};
use crate::glob::Glob;
pub use crate::outcome::acap::{resolve, AcapRule, AcapRules, Decision};
use crate::parse::acap::{AcapFile, Definitions, QualifiedUsage, Record, RuleField, UsageName};
use crate::parse::escape::google_escape;
use crate::parse::{RobotsTxt, RuleKind};
use crate::ruleset::SetRule;
use robocc_engine::artifact::{PatternSyntax, RuleOrigin};
use robocc_engine::{RankClass, Usage};

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
    if !crate::dialect::semantics(p.header().dialect).acap_records {
        return None;
    }
    let mut rules = Vec::new();
    let mut info = Vec::new();
    for id in p.rule_ids() {
        let (r, a) = (p.rule(id)?, p.acap_rule(id)?);
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

#[cfg(test)]
mod tests {
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
}
