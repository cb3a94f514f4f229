//! Stage 2 (ACAP): the `content` of an ACAP META tag (ACAP 1.1 Part 2,
//! 2.2.1–2.2.4, 2.2.7, 2.2.9.1, §3) and the `the-acap:` values of `class`
//! attributes (2.2.5).

use robocc_engine::Usage;

/// What an ACAP content says, in reading order: `parse` hands each over as
/// it is read, so that a content of many tokens is never held as a list.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Item<'a> {
    /// `ACAP version N.M` (2.2.7), first when the content is a version tag:
    /// `Some((n, m))`, or `None` when the number is not integers separated
    /// by dots (or missing: the token after `version` is a permission); the
    /// number as written. What follows the number comes after it as
    /// purpose, rules and notes (§3 allows none, so each rule has a note; a
    /// prohibition is never dropped).
    Version(Option<(u32, u32)>, &'a str),
    /// The purpose pattern (2.2.2), before the rules it applies to.
    Purpose(&'a str),
    /// A permission or prohibition (§3 allows one per tag; more are read,
    /// with a note).
    Rule(AcapRule),
    /// A finding about the content.
    Note(String),
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) struct AcapRule {
    pub usage: Usage,
    pub allowed: bool,
    /// As written (`allow-index`), clipped as sources are.
    pub written: String,
    /// Qualifiers as written (`max-length=100-chars`), each clipped as
    /// sources are, separated by single spaces, in order; the used resource
    /// type (`allow-index-TYPE`) comes first as `resource-type=TYPE`. At most
    /// `MAX_QUALIFIERS + 1` (the reader reports no more).
    pub qualifiers: String,
    /// The `location=` qualifier's URI.
    pub location: Option<String>,
}

impl AcapRule {
    fn qualify(&mut self, q: &str, count: &mut usize) {
        if *count > super::MAX_QUALIFIERS {
            return;
        }
        *count += 1;
        if !self.qualifiers.is_empty() {
            self.qualifiers.push(' ');
        }
        self.qualifiers.push_str(&super::clip(q));
    }
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
/// resource type, lower-case and clipped); the longest usage name wins
/// (`present-snippet`, not `present` + type `snippet`). ASCII case is
/// ignored without a lower-case copy of the token.
pub(crate) fn permission(token: &str) -> Option<Result<Permission, String>> {
    fn strip<'t>(s: &'t str, head: &str) -> Option<&'t str> {
        s.get(..head.len())
            .filter(|h| h.eq_ignore_ascii_case(head))
            .map(|_| &s[head.len()..])
    }
    let (allowed, rest) = if let Some(r) = strip(token, "allow-") {
        (true, r)
    } else if let Some(r) = strip(token, "disallow-") {
        (false, r)
    } else {
        return None;
    };
    let mut best: Option<(Usage, Option<&str>)> = None;
    for &u in Usage::ACAP {
        let name = u.name();
        let Some(after) = strip(rest, name) else {
            continue;
        };
        if after.is_empty() {
            best = Some((u, None));
        } else if let Some(t) = after.strip_prefix('-') {
            if best
                .as_ref()
                .is_none_or(|(b, _)| b.name().len() < name.len())
                && !t.is_empty()
            {
                best = Some((u, Some(t)));
            }
        }
    }
    Some(
        best.map(|(u, t)| (allowed, u, t.map(|t| super::clip(t).to_ascii_lowercase())))
            .ok_or_else(|| {
                format!(
                    "{:?}: {:?} is not an ACAP usage type (crawl, follow, index, preserve, present, present-…, other)",
                    super::clip(token),
                    super::clip(rest).to_ascii_lowercase()
                )
            }),
    )
}

/// Reads an ACAP META content (`is_acap` holds), handing `emit` its version
/// number, purpose pattern, rules and notes as they are read.
pub(crate) fn parse<'a>(content: &'a str, mut emit: impl FnMut(Item<'a>)) {
    let mut toks = content.split_ascii_whitespace().skip(1).peekable();
    let after_version = toks
        .peek()
        .is_some_and(|t| t.eq_ignore_ascii_case("version"));
    if after_version {
        toks.next();
        // The number, unless a permission comes right after `version`: then
        // the number is missing and the permission is read as one.
        let v = match toks.peek() {
            Some(t) if permission(t).is_none() => toks.next().unwrap_or(""),
            _ => "",
        };
        emit(Item::Version(version(v), v));
        if toks.peek().is_none() {
            return;
        }
    }
    // The first token (after the version number, for the finding when
    // nothing in it is a rule); the rule being read (none after a token
    // that is no rule: what follows it is not another rule's), its
    // qualifiers' count; whether a rule token was read, a rule or a note
    // handed over.
    let first = toks.peek().copied();
    let mut current: Option<AcapRule> = None;
    let mut qualifiers = 0;
    let (mut started, mut ruled, mut noted) = (false, false, false);
    let mut note = |emit: &mut dyn FnMut(Item<'a>), n: String| {
        noted = true;
        emit(Item::Note(n));
    };
    for (i, tok) in toks.enumerate() {
        match permission(tok) {
            Some(Ok((allowed, usage, rtype))) => {
                if let Some(r) = current.take() {
                    emit(Item::Rule(r));
                }
                if started {
                    note(
                        &mut emit,
                        format!(
                            "{:?}: one permission or prohibition per META tag (§3); read as another one",
                            super::clip(tok)
                        ),
                    );
                } else if after_version {
                    note(
                        &mut emit,
                        format!(
                            "{:?}: a version tag holds the version alone (§3: one version, \
                             permission or prohibition per META tag); read as a permission or \
                             prohibition of its own",
                            super::clip(tok)
                        ),
                    );
                }
                started = true;
                ruled = true;
                qualifiers = 0;
                let mut r = AcapRule {
                    usage,
                    allowed,
                    written: super::clip(tok),
                    qualifiers: String::new(),
                    location: None,
                };
                if let Some(t) = rtype {
                    r.qualify(&format!("resource-type={t}"), &mut qualifiers);
                }
                current = Some(r);
            }
            Some(Err(e)) => {
                if let Some(r) = current.take() {
                    emit(Item::Rule(r));
                }
                started = true;
                note(
                    &mut emit,
                    format!("{e}: ignored (a feature ACAP 1.1 does not define)"),
                );
            }
            None if !started && i == 0 => emit(Item::Purpose(tok)),
            None if !started => note(
                &mut emit,
                format!(
                    "{:?}: expected allow-USAGE or disallow-USAGE after the purpose pattern",
                    super::clip(tok)
                ),
            ),
            None => {
                // After a token that is no rule: its qualifiers are no
                // other rule's.
                let Some(r) = current.as_mut() else {
                    continue;
                };
                if !r.allowed {
                    note(
                        &mut emit,
                        format!(
                            "{:?}: a prohibition takes no qualifiers (2.2.4); ignored",
                            super::clip(tok)
                        ),
                    );
                    continue;
                }
                if let Some((k, v)) = tok.split_once('=') {
                    if k.eq_ignore_ascii_case("location") {
                        r.location = Some(v.to_string());
                    }
                } else {
                    note(
                        &mut emit,
                        format!(
                            "{:?}: a qualifier is name=value (Part 1); kept as written",
                            super::clip(tok)
                        ),
                    );
                }
                r.qualify(tok, &mut qualifiers);
            }
        }
    }
    if let Some(r) = current.take() {
        emit(Item::Rule(r));
    }
    if !ruled && !noted {
        emit(Item::Note(match first {
            Some(t) if after_version => format!(
                "{:?} after the version number: not a permission or prohibition; ignored",
                super::clip(t)
            ),
            _ => "ACAP META tag with no permission or prohibition".to_string(),
        }));
    }
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
        let items = |content| {
            let mut items = Vec::new();
            parse(content, |i| items.push(i));
            items
        };
        assert_eq!(
            items("ACAP version 1.1"),
            [Item::Version(Some((1, 1)), "1.1")]
        );
        // The tokens after the version are read, with a note (§3: one
        // version, permission or prohibition per tag).
        let [Item::Version(Some((1, 1)), "1.1"), Item::Note(_), Item::Rule(r)] =
            &items("ACAP version 1.1 disallow-index")[..]
        else {
            panic!("the tokens after the version are read")
        };
        assert_eq!((r.usage, r.allowed), (Usage::Index, false));
        // A permission right after `version`: the number is missing.
        let [Item::Version(None, ""), Item::Note(_), Item::Rule(r)] =
            &items("ACAP version allow-follow")[..]
        else {
            panic!()
        };
        assert_eq!((r.usage, r.allowed), (Usage::Follow, true));
        let [Item::Version(Some((1, 1)), _), Item::Purpose("x"), Item::Note(n)] =
            &items("ACAP version 1.1 x")[..]
        else {
            panic!()
        };
        assert!(n.contains("after the version number"), "{n}");
        let mut items = Vec::new();
        parse(
            "acap news.search.com ALLOW-present-snippet max-length=100-chars",
            |i| items.push(i),
        );
        let [Item::Purpose("news.search.com"), Item::Rule(r)] = &items[..] else {
            panic!("{items:?}")
        };
        assert_eq!(r.usage, Usage::PresentSnippet);
        assert_eq!(r.qualifiers, "max-length=100-chars");
        // A content of many rules is handed over rule by rule, with a note
        // for each one after the first (§3: one per tag).
        let mut items = Vec::new();
        parse("ACAP disallow-index allow-follow-text q=1 x", |i| {
            items.push(i)
        });
        let rules: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                Item::Rule(r) => Some((r.usage, r.allowed, r.qualifiers.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            rules,
            [
                (Usage::Index, false, ""),
                (Usage::Follow, true, "resource-type=text q=1 x")
            ]
        );
        assert_eq!(
            items.iter().filter(|i| matches!(i, Item::Note(_))).count(),
            2
        );
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
