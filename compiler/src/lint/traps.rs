//! The traps that real files fall into and crawler projects keep getting
//! reports about (issue 46): lines that read as one thing to the owner and
//! as another to Google's parser. Each finding says what the crawler does
//! and how to write what was meant.

use super::{text, Finding};
use crate::agent::{select, select_every_named, Agents};
use crate::diag::{quoted, Severity};
use crate::dialect::{RecordSelection, Semantics};
use crate::parse::agent_value::{is_global_value, value_token, TokenRule};
use crate::parse::keys::{classify, split_line, KeyKind, LineGrammar, NoPair};
use crate::parse::lines::Lines;
use crate::parse::{Group, ParseOptions, Record, RobotsTxt};
use std::collections::BTreeSet;

/// What a physical line is to Google's line reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Whitespace only.
    Blank,
    /// A comment, or nothing readable.
    Other,
    /// `key: value` or `key value`.
    Pair,
}

/// The file's lines as Google reads them: their shapes (index: line - 1),
/// and the `key value` lines without a colon whose key means something.
struct FileLines {
    shapes: Vec<Shape>,
    no_colon: Vec<(u32, String, String)>,
}

impl FileLines {
    fn read(body: &[u8], parse: &ParseOptions) -> FileLines {
        let mut shapes = Vec::new();
        let mut no_colon = Vec::new();
        for line in Lines::with_max_len(body, parse.max_line_len) {
            let i = line.number as usize - 1;
            if shapes.len() <= i {
                shapes.resize(i + 1, Shape::Other);
            }
            shapes[i] = if line.text.iter().all(u8::is_ascii_whitespace) {
                Shape::Blank
            } else {
                match split_line(line.text) {
                    Err(NoPair::Empty | NoPair::NoSeparator | NoPair::EmptyKey) => Shape::Other,
                    Ok((key, value)) => {
                        let content = line.text.split(|&b| b == b'#' || b == 0).next();
                        let colon = content.is_some_and(|c| c.contains(&b':'));
                        if !colon && classify(key).kind != KeyKind::Unknown {
                            no_colon.push((line.number, text(key), text(value)));
                        }
                        Shape::Pair
                    }
                }
            };
        }
        FileLines { shapes, no_colon }
    }

    fn shape(&self, line: u32) -> Shape {
        let i = (line as usize).wrapping_sub(1);
        self.shapes.get(i).copied().unwrap_or(Shape::Other)
    }
}

/// The record (not a rule, not a user-agent line) written on `line`.
fn record_at<'r, 'a>(robots: &'r RobotsTxt<'a>, line: u32) -> Option<&'r Record<'a>> {
    let records = robots.groups.iter().flat_map(|g| g.records.iter());
    records.chain(robots.global.iter()).find(|r| r.line == line)
}

/// How a finding names the crawlers of some user-agent lines.
fn who(agents: &[&crate::parse::AgentLine<'_>]) -> String {
    let names: Vec<String> = agents
        .iter()
        .map(|a| {
            if is_global_value(a.value) {
                "`*` (every crawler without a group of its own)".to_string()
            } else {
                format!("{:?}", quoted(a.value))
            }
        })
        .collect();
    names.join(", ")
}

/// The name a user-agent line is matched by (`*` for the global one),
/// lower-cased.
fn matched_name(a: &crate::parse::AgentLine<'_>) -> Vec<u8> {
    if is_global_value(a.value) {
        b"*".to_vec()
    } else {
        value_token(a.value).to_ascii_lowercase()
    }
}

/// The trap findings that apply under `sem` to the file `body` (the bytes
/// `robots` was parsed from, with `parse`).
pub(super) fn traps(
    body: &[u8],
    robots: &RobotsTxt<'_>,
    sem: &Semantics,
    parse: &ParseOptions,
    out: &mut Vec<Finding>,
) {
    let lines = FileLines::read(&body[..robots.bytes_parsed.min(body.len())], parse);
    // Blank lines mean nothing to Google's grouping; acap blanks its own
    // records' lines, which are no blank lines of the owner's.
    let google_groups = sem.line_grammar == LineGrammar::Google
        && !parse.records_close_groups
        && !parse.blank_lines_end_records
        && !sem.acap_records;
    if google_groups {
        merged_groups(robots, &lines, out);
        if sem.reads_signals() {
            preference_in_named_group(robots, &lines, out);
        }
    }
    if sem.agent_token == TokenRule::Rfc9309 {
        agent_values(robots, out);
    }
    if sem.selection == RecordSelection::GoogleGroups {
        star_rules_dropped(robots, out);
    }
    rules_never_matching(robots, out);
    if sem.line_grammar == LineGrammar::Google {
        for (line, key, value) in &lines.no_colon {
            out.push(Finding {
                line: *line,
                severity: Severity::Warning,
                code: "missing-colon",
                message: format!(
                    "`{key} {value}` has no colon: Google's parser reads it as `{key}: {value}` \
                     (a key and one value apart by whitespace), but RFC 9309's grammar, \
                     Python's robotparser and the 1996 draft's readers ignore the line"
                ),
                fix: format!("write `{key}: {value}`"),
            });
        }
    }
    licenses(robots, out);
}

/// google/robotstxt issue 51: a group ends only at a user-agent line after
/// an Allow or Disallow line, so `User-agent: *` / `Crawl-delay: 10` /
/// blank / `User-agent: badbot` / `Disallow: /` is one group, and `*` gets
/// badbot's rules. Reported where a record and a blank line stand between
/// two user-agent lines of one group: the blank line says the owner meant
/// two groups (without one, a record between user-agent lines is no sign).
fn merged_groups(robots: &RobotsTxt<'_>, lines: &FileLines, out: &mut Vec<Finding>) {
    for group in &robots.groups {
        for (k, pair) in group.agents.windows(2).enumerate() {
            let between = pair[0].line + 1..pair[1].line;
            if !between.clone().any(|l| lines.shape(l) == Shape::Blank) {
                continue;
            }
            // Crawlers named below the blank line too obey these rules
            // anyway (two `*` groups): nothing changes for them.
            let later: BTreeSet<Vec<u8>> = group.agents[k + 1..].iter().map(matched_name).collect();
            let surprised: Vec<_> = group.agents[..=k]
                .iter()
                .filter(|a| !later.contains(&matched_name(a)))
                .collect();
            if surprised.is_empty() {
                continue;
            }
            let Some(record) = between
                .clone()
                .filter(|&l| lines.shape(l) == Shape::Pair)
                .find_map(|l| record_at(robots, l))
            else {
                continue;
            };
            let obeys = match group.rules.first() {
                Some(r) => format!(
                    "{} rule{} of this group, from `{}: {}` (line {})",
                    group.rules.len(),
                    if group.rules.len() == 1 { "" } else { "s" },
                    if r.kind == crate::parse::RuleKind::Allow {
                        "Allow"
                    } else {
                        "Disallow"
                    },
                    text(r.raw),
                    r.line
                ),
                None => "this group's records".to_string(),
            };
            out.push(Finding {
                line: pair[1].line,
                // Only records (a delay) shared, or only the `*` rules that
                // owners commonly expect every crawler to obey: info.
                severity: if group.rules.iter().all(|r| r.raw.is_empty())
                    || later.contains(&b"*"[..])
                {
                    Severity::Info
                } else {
                    Severity::Warning
                },
                code: "merged-groups",
                message: format!(
                    "this user-agent line joins the group of line {} despite the blank line: \
                     Google's parser ends a group only at a user-agent line after an Allow or \
                     Disallow line, not at {} (line {}), so {} also obey{} the {obeys}",
                    group.agents[0].line,
                    text(record.key),
                    record.line,
                    who(&surprised),
                    if surprised.len() == 1 { "s" } else { "" },
                ),
                fix: format!(
                    "end the group of line {} with a rule line before the blank line \
                     (`Disallow:` with no value allows everything)",
                    group.agents[0].line
                ),
            });
        }
    }
}

/// A Content-Signal or Content-Usage line set apart by a blank line, as
/// site-wide lines are, below a group of named crawlers: Google's grouping
/// (robocc's default) gives it to that group alone.
fn preference_in_named_group(robots: &RobotsTxt<'_>, lines: &FileLines, out: &mut Vec<Finding>) {
    let named = |g: &&Group<'_>| !g.agents.iter().any(|a| is_global_value(a.value));
    for group in robots.groups.iter().filter(named) {
        let preferences = group
            .records
            .iter()
            .filter(|r| r.kind == KeyKind::ContentSignal || r.is_content_usage());
        for r in preferences {
            // The nearest line above that is not a comment.
            let above = (1..r.line)
                .rev()
                .map(|l| lines.shape(l))
                .find(|&s| s != Shape::Other);
            if above != Some(Shape::Blank) {
                continue;
            }
            out.push(Finding {
                line: r.line,
                severity: Severity::Warning,
                code: "preference-in-named-group",
                message: format!(
                    "{} set apart by a blank line still belongs to the group of line {} ({}): \
                     Google's grouping ends a group only at a user-agent line after a rule, so \
                     this preference is stated for those crawlers only, not site-wide",
                    text(r.key),
                    group.agents[0].line,
                    who(&group.agents.iter().collect::<Vec<_>>())
                ),
                fix: "to state it for every crawler, write it in the `User-agent: *` group \
                      (or start one with `User-agent: *` right above it)"
                    .into(),
            });
        }
    }
}

/// User-agent values Google reads otherwise than written: a name cut at
/// its first character outside `[A-Za-z_-]` (`AI2Bot` is `AI`), and values
/// with no name at all (`*bot*`, `360Spider`), which match no crawler.
fn agent_values(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    for a in robots.groups.iter().flat_map(|g| g.agents.iter()) {
        if is_global_value(a.value) {
            continue;
        }
        let token = value_token(a.value);
        let rest = &a.value[token.len()..];
        let mut words = a.value.split(|b| b.is_ascii_whitespace() || *b == b'/');
        let name = words.next().unwrap_or(b"");
        if token.is_empty() {
            out.push(Finding {
                line: a.line,
                severity: Severity::Warning,
                code: "agent-matches-none",
                message: format!(
                    "User-agent {:?} names no crawler: Google's parser compares only the \
                     value's leading letters, `_` and `-` with a crawler's name, and there are \
                     none (`*` is a wildcard only alone), so no crawler obeys this line",
                    quoted(a.value)
                ),
                fix: if a.value.contains(&b'*') {
                    "write `User-agent: *` for every crawler, or the crawler's product token \
                     (e.g. `Googlebot`) for one"
                } else {
                    "write the crawler's product token (letters, `_` and `-`), or `*`"
                }
                .into(),
            });
        } else if let [b'0'..=b'9', ..] | [b'.', b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z', ..] = rest
        {
            out.push(Finding {
                line: a.line,
                severity: Severity::Warning,
                code: "agent-token-cut",
                message: format!(
                    "Google's parser reads the name {:?} as {:?} (a name stops at the first \
                     character that is not a letter, `_` or `-`): a crawler matching with its \
                     own token {:?} does not find this group and obeys the `*` group (if any) \
                     instead, while any crawler named {:?} obeys this one",
                    quoted(name),
                    quoted(token),
                    quoted(name),
                    quoted(token),
                ),
                fix: "keep it for crawlers that compare the whole name, and put what must \
                      bind every crawler in the `*` group too: crawlers built on Google's \
                      parser cannot be named by this value"
                    .into(),
            });
        }
    }
}

/// A crawler with a group of its own obeys only that group (RFC 9309
/// §2.2.1): the `*` group's Disallow rules do not bind it. Mostly meant
/// (info); a trap when the named group has no rule line at all, e.g. only
/// a Crawl-delay, which lets the crawler fetch everything (warning).
fn star_rules_dropped(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    let star = select(robots, &Agents::from("RoboccUnlistedAgent"));
    if star.via != crate::agent::Via::Global {
        return;
    }
    let star_rules: Vec<&crate::parse::Rule<'_>> = star
        .groups
        .iter()
        .flat_map(|&g| robots.groups[g].rules.iter())
        .filter(|r| r.kind == crate::parse::RuleKind::Disallow && !r.raw.is_empty())
        .collect();
    let Some(first) = star_rules.first() else {
        return;
    };
    let rules_of = |groups: &[usize]| {
        let groups: Vec<usize> = groups.to_vec();
        groups
            .into_iter()
            .flat_map(|g| robots.groups[g].rules.iter())
    };
    // One finding per set of groups: a list of 500 user-agent lines
    // above one rule set is one mistake, not 500.
    let mut by_groups: Vec<(Vec<usize>, u32, Vec<String>, usize)> = Vec::new();
    for (token, selection) in select_every_named(robots) {
        let own: BTreeSet<&[u8]> = rules_of(&selection.groups)
            .filter(|r| r.kind == crate::parse::RuleKind::Disallow)
            .map(|r| r.raw)
            .collect();
        // `Disallow: /` with no Allow already excludes what `*` does.
        let allows = rules_of(&selection.groups)
            .any(|r| r.kind == crate::parse::RuleKind::Allow && !r.raw.is_empty());
        if own.contains(&b"/"[..]) && !allows {
            continue;
        }
        let dropped = star_rules.iter().filter(|r| !own.contains(r.raw)).count();
        let line = selection.groups.first().and_then(|&g| {
            let agents = robots.groups[g].agents.iter();
            let mut agents = agents.filter(|a| value_token(a.value).eq_ignore_ascii_case(&token));
            agents.next().map(|a| a.line)
        });
        let (Some(line), 1..) = (line, dropped) else {
            continue;
        };
        match by_groups.iter_mut().find(|e| e.0 == selection.groups) {
            Some(e) => {
                e.1 = e.1.min(line);
                e.2.push(text(&token));
            }
            None => by_groups.push((selection.groups, line, vec![text(&token)], dropped)),
        }
    }
    for (groups, line, tokens, dropped) in by_groups {
        let no_rules = groups.iter().all(|&g| robots.groups[g].rules.is_empty());
        let names = match tokens.len() {
            1 => tokens[0].clone(),
            2 => format!("{} and {}", tokens[0], tokens[1]),
            n => format!("{}, {} and {} more", tokens[0], tokens[1], n - 2),
        };
        let many = tokens.len() > 1;
        out.push(Finding {
            line,
            severity: if no_rules {
                Severity::Warning
            } else {
                Severity::Info
            },
            code: "star-rules-dropped",
            message: format!(
                "{names} obey{} only the group{} naming {}, not the `*` group: {dropped} \
                 Disallow rule{} of `*` (from `Disallow: {}`, line {}) do{} not apply{}",
                if many { "" } else { "s" },
                if groups.len() == 1 { "" } else { "s" },
                if many { "them" } else { "it" },
                if dropped == 1 { "" } else { "s" },
                text(first.raw),
                first.line,
                if dropped == 1 { "es" } else { "" },
                if no_rules {
                    ", and that group has no Allow or Disallow line: they may fetch everything"
                } else {
                    ""
                },
            ),
            fix: if no_rules {
                "add the rules meant for these crawlers under their user-agent lines \
                 (`Disallow: /` to exclude them)"
                    .to_string()
            } else {
                "repeat the `*` rules meant for them in their own group".to_string()
            },
        });
    }
}

/// Rules whose pattern starts with neither `/` nor `*`: a URL's path always
/// starts with `/`, and Google matches patterns from the path's first
/// character, so `Disallow: private` or `Disallow: https://example.com/a`
/// matches nothing.
fn rules_never_matching(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    for (_, rule) in robots.rules() {
        let raw = rule.raw;
        if raw.is_empty() || raw.starts_with(b"/") || raw.starts_with(b"*") {
            continue;
        }
        let verb = match rule.kind {
            crate::parse::RuleKind::Allow => "Allow",
            crate::parse::RuleKind::Disallow => "Disallow",
        };
        let lower = raw.to_ascii_lowercase();
        let url = ["http://", "https://"]
            .iter()
            .find_map(|s| lower.strip_prefix(s.as_bytes()).map(|_| s.len()));
        let (message, fix) = match url {
            Some(scheme) => {
                let path = raw[scheme..]
                    .iter()
                    .position(|&b| b == b'/')
                    .map_or(&b"/"[..], |i| &raw[scheme + i..]);
                (
                    format!(
                        "`{verb}: {}` is compared with the URL's path, which starts with `/`, \
                         not with the whole URL: it matches nothing",
                        text(raw)
                    ),
                    format!("write the path only: `{verb}: {}`", text(path)),
                )
            }
            None => (
                format!(
                    "`{verb}: {}` does not start with `/`: every URL path does and crawlers \
                     match from its first character, so it matches nothing",
                    text(raw)
                ),
                format!(
                    "write `{verb}: /{}` (or start it with `*` to match anywhere)",
                    text(raw)
                ),
            ),
        };
        out.push(Finding {
            line: rule.line,
            severity: Severity::Warning,
            code: "rule-never-matches",
            message,
            fix,
        });
    }
}

/// RSL 1.0 (rslstandard.org): `License: <absolute URL>` names the site's
/// license, for every crawler wherever the line stands.
fn licenses(robots: &RobotsTxt<'_>, out: &mut Vec<Finding>) {
    for r in robots.global_values(KeyKind::License) {
        let v = r.value.to_ascii_lowercase();
        if !(v.starts_with(b"http://") || v.starts_with(b"https://")) {
            out.push(Finding {
                line: r.line,
                severity: Severity::Warning,
                code: "license",
                message: format!(
                    "License {:?} is not an absolute URL: RSL 1.0 requires the license file's \
                     full URL",
                    quoted(r.value)
                ),
                fix: "give the full URL, e.g. `License: https://example.com/license.xml`".into(),
            });
        }
    }
}
