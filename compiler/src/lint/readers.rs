//! Readers that disagree (issue 46): where Google's reading of a file and
//! another documented reading give different answers for some URL, the
//! finding names the line, a URL and both answers. Each reading is
//! computed, never guessed from the file's shape:
//!
//! * `readers-grouping` — RFC 9309's grammar read strictly (any record
//!   ends a group's user-agent lines, `--records-close-groups`): both
//!   readings compiled for each crawler whose rules differ between them,
//!   and [`crate::diff`] gives a shortest URL whose verdict differs.
//! * `readers-content-usage` — attach-05's grouping of Content-Usage lines
//!   (the default) against the crawl's grouping (`--preference-grouping
//!   crawl`): each line one reading gives a crawler and the other does not
//!   is tried at its own path, and reported where the two checkers answer
//!   differently.
//! * `readers-first-match` — a reader that takes the first matching rule in
//!   file order, as the 1996 draft's robots do (§3.2.2), against Google's
//!   longest match: tried at a path of each rule's pattern, and at each
//!   later rule's path followed by the tail of an earlier `*` rule of the
//!   other verdict. A disagreement only other paths show is not found.
//!
//! Bounded: at most [`MAX_AGENTS`] crawlers per reading, a compile budget
//! of [`TIME`] and a diff of [`MAX_PAIRS`] product states each, and no
//! crawler started after [`TOTAL`]; the first-match check tries at most
//! [`MAX_PATHS`] paths per rule set of at most [`MAX_RULES`] rules. A
//! reading that does not fit says nothing.

use super::{text, Finding};
use crate::agent::{is_global_value, select, select_every_named, value_token, Agents, Selection};
use crate::clock::Instant;
use crate::diag::Severity;
use crate::diff::{diff, Decision, DiffOptions};
use crate::parse::{parse, parse_grouped, RobotsTxt};
use crate::ruleset::RuleSet;
use crate::signals::PreferenceGrouping;
use crate::{compile, Checker, CompileOptions, Promotion};
use robocc_engine::artifact::RuleOrigin;
use robocc_engine::{Policy, Usage};
use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

/// Crawlers compared per reading.
const MAX_AGENTS: usize = 16;
/// The diff's budget of product states.
const MAX_PAIRS: usize = 100_000;
/// Each compile's deadline.
const TIME: Duration = Duration::from_millis(250);
/// All the readings of one file: past it, no further crawler is compared.
const TOTAL: Duration = Duration::from_secs(1);
/// Rules of a set the first-match check reads at most.
const MAX_RULES: usize = 2_000;
/// Paths the first-match check tries per rule set.
const MAX_PATHS: usize = 512;

/// A crawler to compare the readings for: how the finding names it, its
/// tokens, and the user-agent line the finding stands on.
struct Crawler {
    name: String,
    agents: Agents,
    line: u32,
}

/// What every reading compares: the file, as given (`body`, what is
/// compiled) and as parsed (`source`, what `robots` was parsed from), the
/// crawlers, the options, and whether time is left.
struct Readings<'r, 'a> {
    body: &'r [u8],
    source: &'r [u8],
    robots: &'r RobotsTxt<'a>,
    crawlers: &'r [Crawler],
    options: &'r CompileOptions,
    /// `None` where there is no clock (wasm32-unknown-unknown): the other
    /// bounds alone hold.
    deadline: Option<Instant>,
}

impl Readings<'_, '_> {
    /// The crawlers to compare while time is left ([`TOTAL`]).
    fn crawlers(&self) -> impl Iterator<Item = &Crawler> + '_ {
        self.crawlers
            .iter()
            .take_while(|_| self.deadline.is_none_or(|d| Instant::now() < d))
    }
}

/// The findings of every reading, for `agents` or (`None`) each crawler
/// the file names and one it does not. `body` is the file as given (what
/// is compiled), `text` what `robots` was parsed from (Google's grouping,
/// rfc9309).
pub(super) fn readers(
    body: &[u8],
    text: &[u8],
    robots: &RobotsTxt<'_>,
    agents: Option<&Agents>,
    options: &CompileOptions,
    out: &mut Vec<Finding>,
) {
    let crawlers = crawlers(robots, agents);
    // Lines `merged-groups` already reports: the same cause, said once.
    let merged: BTreeSet<u32> = out
        .iter()
        .filter(|f| f.code == "merged-groups")
        .map(|f| f.line)
        .collect();
    let deadline = Instant::now().checked_add(TOTAL);
    let mut seen: HashSet<(u32, &'static str)> = HashSet::new();
    let mut push = |f: Finding| {
        if seen.insert((f.line, f.code)) {
            out.push(f);
        }
    };
    let r = Readings {
        body,
        source: text,
        robots,
        crawlers: &crawlers,
        options,
        deadline,
    };
    grouping(&r, &merged, &mut push);
    content_usage(&r, &mut push);
    first_match(&r, &mut push);
}

/// The crawlers to compare: those given, else each token the file names
/// (the first [`MAX_AGENTS`]) and a crawler it does not name.
fn crawlers(robots: &RobotsTxt<'_>, agents: Option<&Agents>) -> Vec<Crawler> {
    // The first user-agent line of the selected groups that names one of
    // `agents` (`*` for a crawler no group names).
    let line_of = |sel: &Selection, agents: &Agents| {
        let lines = || sel.groups.iter().flat_map(|&g| &robots.groups[g].agents);
        lines()
            .find(|a| {
                let token = value_token(a.value);
                !token.is_empty()
                    && agents
                        .iter()
                        .any(|t| token.eq_ignore_ascii_case(t.as_bytes()))
            })
            .or_else(|| lines().find(|a| is_global_value(a.value)))
            .or_else(|| lines().next())
            .map_or(0, |a| a.line)
    };
    let crawler = |name: String, agents: Agents| {
        let line = line_of(&select(robots, &agents), &agents);
        Crawler { name, agents, line }
    };
    if let Some(a) = agents {
        let name = a.iter().collect::<Vec<_>>().join(" and ");
        return vec![crawler(name, a.clone())];
    }
    let mut out: Vec<Crawler> = select_every_named(robots)
        .into_iter()
        .take(MAX_AGENTS)
        .map(|(token, _)| {
            let name = text(&token);
            crawler(name.clone(), Agents::from(name.as_str()))
        })
        .collect();
    let unlisted: Agents = "RoboccUnlistedAgent".into();
    if !select(robots, &unlisted).groups.is_empty() {
        out.push(crawler(
            "crawlers without a group of their own".into(),
            unlisted,
        ));
    }
    out
}

/// The options of one compile of the comparison: bounded in time.
fn bounded(options: &CompileOptions) -> CompileOptions {
    let mut o = options.clone();
    o.budget.time = o.budget.time.min(TIME);
    o
}

/// What decides a URL, in words: `Disallow: /x (line 5)` or "no rule".
fn decides(d: &Decision) -> String {
    match (&d.text, d.line) {
        (Some(t), Some(l)) => format!("`{t}`, line {l}"),
        (Some(t), None) => format!("`{t}`"),
        _ => "no rule applies".into(),
    }
}

/// The line numbers of the rules of `selection`'s groups.
fn rule_lines(robots: &RobotsTxt<'_>, selection: &Selection) -> BTreeSet<u32> {
    selection
        .groups
        .iter()
        .flat_map(|&g| robots.groups[g].rules.iter().map(|r| r.line))
        .collect()
}

/// Google's grouping against RFC 9309's grammar read strictly.
fn grouping(r: &Readings<'_, '_>, merged: &BTreeSet<u32>, push: &mut impl FnMut(Finding)) {
    let (body, source, robots, options) = (r.body, r.source, r.robots, r.options);
    let mut strict_parse = options.effective_parse();
    strict_parse.records_close_groups = true;
    let strict = parse(source, &strict_parse);
    let google_opts = bounded(options);
    let mut strict_opts = bounded(options);
    strict_opts.parse.records_close_groups = true;
    let diff_opts = DiffOptions {
        usage: Usage::Crawl,
        max_pairs: MAX_PAIRS,
    };
    for c in r.crawlers() {
        // The same rules give the same verdicts: nothing to compile.
        let google = select(robots, &c.agents);
        if rule_lines(robots, &google) == rule_lines(&strict, &select(&strict, &c.agents)) {
            continue;
        }
        // Info where Google's reading joins the crawler to a `*` group
        // (owners commonly expect the `*` rules to bind every crawler) or
        // `merged-groups` already says what happens; else a warning.
        let agent_lines = || google.groups.iter().flat_map(|&g| &robots.groups[g].agents);
        let severity = if agent_lines()
            .any(|a| crate::agent::is_global_value(a.value) || merged.contains(&a.line))
        {
            Severity::Info
        } else {
            Severity::Warning
        };
        let (Ok(g), Ok(s)) = (
            compile(body, c.agents.clone(), &google_opts),
            compile(body, c.agents.clone(), &strict_opts),
        ) else {
            continue;
        };
        let (g, s) = (g.to_bytes(), s.to_bytes());
        let (Ok(gp), Ok(sp)) = (Policy::from_bytes(&g), Policy::from_bytes(&s)) else {
            continue;
        };
        let Ok(d) = diff(&gp, &sp, &diff_opts) else {
            continue;
        };
        let Some(change) = d.changes.first() else {
            continue;
        };
        push(Finding {
            line: c.line,
            severity,
            code: "readers-grouping",
            message: format!(
                "readers disagree for {}: `{}` is {}ed in Google's reading (a group's \
                 user-agent lines end only at an Allow or Disallow line; {}) and {}ed in RFC \
                 9309's grammar read strictly, where any record ends them ({})",
                c.name,
                change.witness_text(),
                change.old.word(),
                decides(&change.old),
                change.new.word(),
                decides(&change.new),
            ),
            fix: "give each group its Allow/Disallow lines before any other record (an empty \
                  `Disallow:` allows everything), so that every reader groups the lines alike"
                .into(),
        });
    }
}

/// A path a pattern matches: its bytes without `*` and a final `$`
/// (`*` matches the empty run), starting with `/`.
fn path_of(pattern: &[u8]) -> Option<Vec<u8>> {
    let p = pattern.strip_suffix(b"$").unwrap_or(pattern);
    let path: Vec<u8> = p.iter().copied().filter(|&b| b != b'*').collect();
    path.starts_with(b"/").then_some(path)
}

/// attach-05's grouping of Content-Usage lines against the crawl's.
fn content_usage(r: &Readings<'_, '_>, push: &mut impl FnMut(Finding)) {
    let (body, source, robots, options) = (r.body, r.source, r.robots, r.options);
    let in_group = robots
        .groups
        .iter()
        .any(|g| g.records.iter().any(|r| r.is_content_usage()));
    if !in_group {
        return;
    }
    let spec = parse_grouped(source, &options.effective_parse(), true);
    let usage_lines = |robots: &RobotsTxt<'_>, sel: &Selection| -> BTreeSet<(u32, Vec<u8>)> {
        sel.groups
            .iter()
            .flat_map(|&g| robots.groups[g].records.iter())
            .filter(|r| r.is_content_usage())
            .map(|r| (r.line, r.value.to_vec()))
            .collect()
    };
    let with = |grouping| {
        let mut o = bounded(options);
        o.preference_grouping = grouping;
        o
    };
    let (spec_opts, crawl_opts) = (
        with(PreferenceGrouping::Spec),
        with(PreferenceGrouping::Crawl),
    );
    for c in r.crawlers() {
        let a = usage_lines(&spec, &select(&spec, &c.agents));
        let b = usage_lines(robots, &select(robots, &c.agents));
        let moved: Vec<&(u32, Vec<u8>)> = a.symmetric_difference(&b).collect();
        if moved.is_empty() {
            continue;
        }
        let never = Promotion::Never;
        let (Ok(s), Ok(k)) = (
            Checker::with_promotion(body, c.agents.clone(), &spec_opts, never),
            Checker::with_promotion(body, c.agents.clone(), &crawl_opts, never),
        ) else {
            continue;
        };
        let word = |v: Option<robocc_engine::Verdict>| match v {
            None => "unknown",
            Some(v) if v.allowed => "allow",
            Some(_) => "disallow",
        };
        'lines: for (line, value) in moved {
            let (path, _) = crate::signals::split_content_usage(value);
            let Some(url) = path_of(path).or_else(|| path.is_empty().then(|| b"/".to_vec())) else {
                continue;
            };
            for usage in [Usage::TrainAi, Usage::Search] {
                let (x, y) = (s.preference(&url, usage), k.preference(&url, usage));
                if x == y {
                    continue;
                }
                push(Finding {
                    line: *line,
                    severity: Severity::Warning,
                    code: "readers-content-usage",
                    message: format!(
                        "readers disagree for {}: {usage} of `{}` is {} in attach-05's reading \
                         (a Content-Usage line is a rule, so a user-agent line after it starts \
                         a new group) and {} in Google's grouping (it belongs to the group \
                         the crawl reads)",
                        c.name,
                        text(&url),
                        word(x),
                        word(y)
                    ),
                    fix: "write Content-Usage lines after the group's Allow/Disallow lines, \
                          with no user-agent line right after them"
                        .into(),
                });
                continue 'lines;
            }
        }
    }
}

/// Google's longest match against a first-match reader.
fn first_match(r: &Readings<'_, '_>, push: &mut impl FnMut(Finding)) {
    let (body, robots, options) = (r.body, r.robots, r.options);
    let mut done: HashSet<Vec<usize>> = HashSet::new();
    for c in r.crawlers() {
        let selection = select(robots, &c.agents);
        if !done.insert(selection.groups.clone()) {
            continue;
        }
        let set = RuleSet::build(robots, &selection, options.rule_set_options());
        let mut written: Vec<_> = set
            .rules
            .iter()
            .filter(|r| r.origin == RuleOrigin::Line && !r.pattern.is_empty())
            .collect();
        if written.len() < 2 || written.len() > MAX_RULES {
            continue;
        }
        written.sort_by_key(|r| r.line);
        // Google's verdict from the interpreting checker (the engine's
        // longest match over the same rules).
        let Ok(google) =
            Checker::with_promotion(body, c.agents.clone(), &bounded(options), Promotion::Never)
        else {
            continue;
        };
        // Paths of each rule, then of each later rule of the other verdict
        // followed by the tail an earlier `*` rule wants (`/*.js`, then
        // `Disallow: /static/` gives `/static/.js`): where a first-match
        // reader and the longest match can part.
        let mut paths: Vec<Vec<u8>> = written.iter().filter_map(|r| path_of(&r.pattern)).collect();
        'pairs: for (i, a) in written.iter().enumerate() {
            let Some(star) = a.pattern.iter().rposition(|&b| b == b'*') else {
                continue;
            };
            let tail = &a.pattern[star + 1..];
            let tail = tail.strip_suffix(b"$").unwrap_or(tail);
            for b in written[i + 1..].iter().filter(|b| b.allow != a.allow) {
                if paths.len() >= MAX_PATHS {
                    break 'pairs;
                }
                if let Some(mut p) = path_of(&b.pattern) {
                    p.extend_from_slice(tail);
                    paths.push(p);
                }
            }
        }
        paths.truncate(MAX_PATHS);
        for path in paths {
            if path == b"/robots.txt" {
                continue;
            }
            let Some(first) = written.iter().find(|r| r.glob.matches(&path)) else {
                continue;
            };
            let verdict = google.check(&path);
            if verdict.allowed == first.allow {
                continue;
            }
            let Some(best) = verdict.rule.and_then(|id| google.rule(id)) else {
                continue;
            };
            let rule = |allow: bool, pattern: &[u8], line: u32| {
                format!(
                    "`{}: {}`, line {line}",
                    if allow { "Allow" } else { "Disallow" },
                    text(pattern),
                )
            };
            let word = |allow: bool| if allow { "allowed" } else { "disallowed" };
            push(Finding {
                line: first.line,
                severity: Severity::Info,
                code: "readers-first-match",
                message: format!(
                    "readers disagree for {}: `{}` is {} by Google's longest match ({}) and {} \
                     by a reader that obeys the first matching rule, as the 1996 draft's \
                     robots do ({})",
                    c.name,
                    text(&path),
                    word(verdict.allowed),
                    rule(best.allow, best.pattern, best.line),
                    word(first.allow),
                    rule(first.allow, &first.pattern, first.line)
                ),
                fix: "put the longer, more specific rules first: then both readings agree".into(),
            });
        }
    }
}
