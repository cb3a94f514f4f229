//! Stage 2 (ACAP): the `content` of an ACAP META tag (ACAP 1.1 Part 2,
//! 2.2.1–2.2.4, 2.2.7, 2.2.9.1, §3) and the `the-acap:` values of `class`
//! attributes (2.2.5).

use robocc_engine::Usage;

/// One ACAP META tag's content, read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AcapContent {
    /// `ACAP version N.M` (2.2.7): `Some((n, m))`, or `None` when the
    /// number is not integers separated by dots (or missing: the token
    /// after `version` is a permission); then what follows the number,
    /// read as permissions and prohibitions (always `Rules`; §3 allows
    /// none, so each has a note, a prohibition never dropped).
    Version(Option<(u32, u32)>, String, Option<Box<AcapContent>>),
    /// Permissions and prohibitions (§3 allows one per tag; more are read,
    /// with a note in `notes`).
    Rules {
        rules: Vec<AcapRule>,
        notes: Vec<String>,
    },
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) struct AcapRule {
    pub purpose: Option<String>,
    pub usage: Usage,
    pub allowed: bool,
    /// As written (`allow-index`).
    pub written: String,
    /// Qualifiers as written (`max-length=100-chars`), in order; the used
    /// resource type (`allow-index-TYPE`) comes first as `resource-type=TYPE`.
    pub qualifiers: Vec<String>,
    /// The `location=` qualifier's URI.
    pub location: Option<String>,
}

/// Does `content` start with the `ACAP` token (§3; ABNF strings are
/// case-insensitive)?
pub(crate) fn is_acap(content: &str) -> bool {
    let mut t = content.split_ascii_whitespace();
    t.next().is_some_and(|w| w.eq_ignore_ascii_case("acap"))
}

/// (allowed, usage, used-resource type) of a permission token.
pub(crate) type Permission = (bool, Usage, Option<String>);

/// `allow-USAGE[-TYPE]` / `disallow-USAGE[-TYPE]` → (allowed, usage,
/// resource type); the longest usage name wins (`present-snippet`, not
/// `present` + type `snippet`).
pub(crate) fn permission(token: &str) -> Option<Result<Permission, String>> {
    let lower = token.to_ascii_lowercase();
    let (allowed, rest) = if let Some(r) = lower.strip_prefix("allow-") {
        (true, r)
    } else if let Some(r) = lower.strip_prefix("disallow-") {
        (false, r)
    } else {
        return None;
    };
    let mut best: Option<(Usage, Option<String>)> = None;
    for &u in Usage::ACAP {
        let name = u.name();
        if rest == name {
            best = Some((u, None));
        } else if let Some(t) = rest.strip_prefix(name).and_then(|r| r.strip_prefix('-')) {
            if best
                .as_ref()
                .is_none_or(|(b, _)| b.name().len() < name.len())
                && !t.is_empty()
            {
                best = Some((u, Some(t.to_string())));
            }
        }
    }
    Some(best.map(|(u, t)| (allowed, u, t)).ok_or_else(|| {
        format!("{token:?}: {rest:?} is not an ACAP usage type (crawl, follow, index, preserve, present, present-…, other)")
    }))
}

/// Reads an ACAP META content (`is_acap` holds).
pub(crate) fn parse(content: &str) -> AcapContent {
    let toks: Vec<&str> = content.split_ascii_whitespace().skip(1).collect();
    if toks
        .first()
        .is_some_and(|t| t.eq_ignore_ascii_case("version"))
    {
        let (v, rest) = match toks.get(1) {
            Some(t) if permission(t).is_none() => (*t, &toks[2..]),
            _ => ("", &toks[1..]),
        };
        let rest = (!rest.is_empty()).then(|| Box::new(rules(rest, true)));
        return AcapContent::Version(version(v), v.to_string(), rest);
    }
    rules(&toks, false)
}

/// Permissions and prohibitions (the tokens after `ACAP`, or after an
/// `ACAP version N.M`: then the first is noted too).
fn rules(toks: &[&str], after_version: bool) -> AcapContent {
    let mut notes = Vec::new();
    let mut rules: Vec<AcapRule> = Vec::new();
    let mut purpose = None;
    for (i, tok) in toks.iter().enumerate() {
        match permission(tok) {
            Some(Ok((allowed, usage, rtype))) => {
                if !rules.is_empty() {
                    notes.push(format!(
                        "{tok:?}: one permission or prohibition per META tag (§3); read as another one"
                    ));
                } else if after_version {
                    notes.push(format!(
                        "{tok:?}: a version tag holds the version alone (§3: one version, \
                         permission or prohibition per META tag); read as a permission or \
                         prohibition of its own"
                    ));
                }
                let mut qualifiers = Vec::new();
                if let Some(t) = rtype {
                    qualifiers.push(format!("resource-type={t}"));
                }
                rules.push(AcapRule {
                    purpose: purpose.clone(),
                    usage,
                    allowed,
                    written: tok.to_string(),
                    qualifiers,
                    location: None,
                });
            }
            Some(Err(e)) => {
                notes.push(format!("{e}: ignored (a feature ACAP 1.1 does not define)"));
                // Its qualifiers are not another rule's.
                rules.push(AcapRule {
                    purpose: None,
                    usage: Usage::Other,
                    allowed: true,
                    written: String::new(),
                    qualifiers: Vec::new(),
                    location: None,
                });
            }
            None if rules.is_empty() && i == 0 => purpose = Some(tok.to_string()),
            None if rules.is_empty() => {
                notes.push(format!(
                    "{tok:?}: expected allow-USAGE or disallow-USAGE after the purpose pattern"
                ));
            }
            None => {
                let r = rules.last_mut().expect("not empty");
                if r.written.is_empty() {
                    continue;
                }
                if !r.allowed {
                    notes.push(format!(
                        "{tok:?}: a prohibition takes no qualifiers (2.2.4); ignored"
                    ));
                    continue;
                }
                if let Some((k, v)) = tok.split_once('=') {
                    if k.eq_ignore_ascii_case("location") {
                        r.location = Some(v.to_string());
                    }
                } else {
                    notes.push(format!(
                        "{tok:?}: a qualifier is name=value (Part 1); kept as written"
                    ));
                }
                r.qualifiers.push(tok.to_string());
            }
        }
    }
    rules.retain(|r| !r.written.is_empty());
    if rules.is_empty() && notes.is_empty() {
        notes.push(match toks.first() {
            Some(t) if after_version => format!(
                "{:?} after the version number: not a permission or prohibition; ignored",
                super::clip(t)
            ),
            _ => "ACAP META tag with no permission or prohibition".to_string(),
        });
    }
    AcapContent::Rules { rules, notes }
}

/// `N.M` (2.2.7: "integers separated by dots"): the first two; `N` alone
/// is `N.0`.
fn version(v: &str) -> Option<(u32, u32)> {
    let mut parts = v.split('.');
    let n = parts.next()?.parse().ok()?;
    let m = match parts.next() {
        Some(p) => p.parse().ok()?,
        None => 0,
    };
    for p in parts {
        p.parse::<u32>().ok()?;
    }
    Some((n, m))
}

/// A class token `the-acap:allow-USAGE` / `the-acap:disallow-USAGE`
/// (2.2.5; case-insensitive): `None` when the token is not one,
/// `Some(Err)` when the usage is unknown. A used-resource type
/// (`-TYPE`), which §3's class grammar does not allow, comes back for the
/// caller to deal with.
pub(crate) fn class_token(token: &str) -> Option<Result<Permission, String>> {
    let rest = token.get(..9)?;
    if !rest.eq_ignore_ascii_case("the-acap:") {
        return None;
    }
    Some(permission(&token[9..])?.map_err(|e| format!("class {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents() {
        assert_eq!(
            parse("ACAP version 1.1"),
            AcapContent::Version(Some((1, 1)), "1.1".into(), None)
        );
        let AcapContent::Version(Some((1, 1)), _, Some(rest)) =
            parse("ACAP version 1.1 disallow-index")
        else {
            panic!("the tokens after the version are read")
        };
        let AcapContent::Rules { rules, notes } = *rest else {
            panic!()
        };
        assert_eq!((rules[0].usage, rules[0].allowed), (Usage::Index, false));
        assert_eq!(notes.len(), 1, "{notes:?}");
        let AcapContent::Rules { rules, notes } =
            parse("acap news.search.com ALLOW-present-snippet max-length=100-chars")
        else {
            panic!()
        };
        assert!(notes.is_empty());
        assert_eq!(rules[0].usage, Usage::PresentSnippet);
        assert_eq!(rules[0].purpose.as_deref(), Some("news.search.com"));
        assert_eq!(rules[0].qualifiers, ["max-length=100-chars"]);
        assert_eq!(
            class_token("The-ACAP:disallow-index"),
            Some(Ok((false, Usage::Index, None)))
        );
        assert_eq!(
            class_token("the-acap:allow-index-text"),
            Some(Ok((true, Usage::Index, Some("text".into()))))
        );
        assert!(matches!(
            class_token("the-acap:allow-indexing"),
            Some(Err(_))
        ));
        assert_eq!(class_token("abstract"), None);
    }
}
