//! `robocc lint --html`: findings about a page's permissions, each with its
//! place and a fix.

use super::{PageDiagKind, PageOptions, PageRules, Source};
use crate::diag::Severity;
use std::collections::BTreeSet;

/// One finding about a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageFinding {
    /// Byte offset of the tag it is about (0 for the page as a whole).
    pub offset: usize,
    /// 1-based line of that offset.
    pub line: usize,
    /// How much it matters.
    pub severity: Severity,
    /// The finding's code (`page-conflict`, …).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub fix: &'static str,
}

fn fix(kind: PageDiagKind) -> (Severity, &'static str) {
    match kind {
        PageDiagKind::Conflict => (
            Severity::Warning,
            "keep one of the tags: a permission and a prohibition of one usage to one addressee prohibit it",
        ),
        PageDiagKind::NeverMatches => (
            Severity::Warning,
            "name the crawler by its product token alone (e.g. name=\"googlebot\"), or use name=\"robots\"",
        ),
        PageDiagKind::OtherCrawler => (Severity::Info, "none if meant for that crawler only"),
        PageDiagKind::BeyondVersion => (
            Severity::Warning,
            "write the page's ACAP tags for ACAP 1.x and declare it: <meta name=\"robots\" content=\"ACAP version 1.1\">",
        ),
        PageDiagKind::ElementFallback => (
            Severity::Info,
            "none if intended; otherwise state the page-wide permission in a META tag and drop the class value",
        ),
        PageDiagKind::Malformed => (Severity::Warning, "correct or remove the directive"),
        PageDiagKind::Limit => (Severity::Warning, "split the page or simplify its markup"),
    }
}

/// Lints `html`. With `agent`, as that crawler reads it (tags for other
/// crawlers are info findings); without, as any crawler reads it and as each
/// crawler a META tag names reads it.
pub fn lint(html: &[u8], agent: Option<&str>) -> Vec<PageFinding> {
    let read = |agent: &str| {
        PageRules::read(
            html,
            [],
            &PageOptions {
                agent,
                url: "",
                purposes: &[],
                now: None,
                head_only: false,
                tdmrep: None,
            },
        )
    };
    let mut runs = Vec::new();
    match agent {
        Some(a) => runs.push(read(a)),
        None => {
            // No crawler's token is empty: only `robots` tags are read.
            let general = read("");
            let names: BTreeSet<String> = general
                .diagnostics
                .iter()
                .filter(|d| d.kind == PageDiagKind::OtherCrawler)
                .filter_map(|d| match &d.source {
                    Some(Source::Meta { name, .. }) => Some(name.to_ascii_lowercase()),
                    _ => None,
                })
                .collect();
            runs.push(general);
            for n in names {
                runs.push(read(&n));
            }
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for page in &runs {
        for d in &page.diagnostics {
            if agent.is_none() && d.kind == PageDiagKind::OtherCrawler {
                continue;
            }
            let offset = match &d.source {
                Some(Source::Meta { offset, .. } | Source::Class { offset, .. }) => *offset,
                _ => 0,
            };
            if !seen.insert((offset, d.kind.name(), d.message.clone())) {
                continue;
            }
            let (severity, fix) = fix(d.kind);
            let line = 1 + html[..offset.min(html.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            out.push(PageFinding {
                offset,
                line,
                severity,
                code: d.kind.name(),
                message: d.message.clone(),
                fix,
            });
        }
    }
    out.sort_by_key(|f| f.offset);
    out
}
