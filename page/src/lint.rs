//! `robocc lint --html`: findings about a page's permissions, each with its
//! place and a fix.

use super::{PageDiagKind, PageOptions, PageRules, Source};
use robocc_compiler::diag::Severity;
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
        PageDiagKind::Encoding => (
            Severity::Info,
            "serve the page as UTF-8: a crawler that does not decode UTF-16 reads no META in it",
        ),
    }
}

/// Crawler names a page is read as, at most, when `lint` is given no agent:
/// all are read in one more scan of the page, but each is one more reader
/// of every tag in it.
const MAX_NAMED_READS: usize = 32;

/// Lints `html`. With `agent`, as that crawler reads it (tags for other
/// crawlers are info findings); without, as any crawler reads it and as each
/// crawler a META tag names reads it (the first 32 names in
/// sorted order; a finding says how many more there are).
pub fn lint(html: &[u8], agent: Option<&str>) -> Vec<PageFinding> {
    lint_by(html, agent, |agents| {
        PageRules::read_many(html, &[], &options(agents))
    })
}

fn options<'a>(agents: &[&'a str]) -> Vec<PageOptions<'a>> {
    agents
        .iter()
        .map(|&agent| PageOptions {
            agent,
            url: "",
            purposes: &[],
            now: None,
            head_only: false,
            tdmrep: None,
        })
        .collect()
}

/// [`lint`], the page read as `agents` by `read` (one scan for all).
fn lint_by(
    html: &[u8],
    agent: Option<&str>,
    read: impl Fn(&[&str]) -> Vec<PageRules>,
) -> Vec<PageFinding> {
    let mut runs = Vec::new();
    let mut skipped = 0;
    match agent {
        Some(a) => runs.extend(read(&[a])),
        None => {
            // No crawler's token is empty: only `robots` tags are read.
            runs.extend(read(&[""]));
            let names: BTreeSet<String> = runs[0]
                .diagnostics
                .iter()
                .filter(|d| d.kind == PageDiagKind::OtherCrawler)
                .filter_map(|d| match &d.source {
                    Some(Source::Meta { name, .. }) => Some(name.to_ascii_lowercase()),
                    _ => None,
                })
                .collect();
            // Every named crawler's reading from one more scan of the page
            // (a scan per crawler made a 4 MB page take half a minute).
            let named: Vec<&str> = names
                .iter()
                .take(MAX_NAMED_READS)
                .map(String::as_str)
                .collect();
            if !named.is_empty() {
                runs.extend(read(&named));
            }
            if names.len() > MAX_NAMED_READS {
                skipped = names.len() - MAX_NAMED_READS;
            }
        }
    }
    // Line numbers from one pass over the text read (offsets are its own
    // when the page is UTF-16), not one per finding.
    let (text, _) = super::page_text(html);
    let newlines: Vec<usize> = text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    if skipped > 0 {
        out.push(PageFinding {
            offset: 0,
            line: 1,
            severity: Severity::Info,
            code: PageDiagKind::Limit.name(),
            message: format!(
                "META tags name more than {MAX_NAMED_READS} crawlers: the page was linted as \
                 read by the first {MAX_NAMED_READS} (in sorted order), not by {skipped} more"
            ),
            fix: "lint with --agent NAME to read the page as one crawler",
        });
    }
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
            let line = 1 + newlines.partition_point(|&n| n < offset);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One scan for every named crawler finds what a scan per crawler
    /// found.
    #[test]
    fn one_scan_finds_what_a_scan_per_crawler_found() {
        let html = br#"<html><head>
<meta name="robots" content="noindex, max-snippet:x">
<meta name="alphabot" content="index">
<meta name="alphabot" content="max-snippet:y, unavailable_after: 32 Jun 2010">
<meta name="BetaBot" content="nosnippet">
<meta name="betabot" content="ACAP version 1.1">
<meta name="betabot" content="ACAP allow-index: /, ACAP disallow-index: /">
<meta name="gammabot" content="noarchive, noarchive">
<meta name="google bot" content="noindex">
<meta name="deltabot" content="unknown-thing">
</head><body>
<meta name="gammabot" content="noindex">
<div class="the-acap:disallow-present">x</div>
<p class="the-acap:allow-index:image">y</p>
</body></html>"#;
        let per_crawler = |agents: &[&str]| {
            options(agents)
                .iter()
                .map(|o| PageRules::read(html, [], o))
                .collect()
        };
        for agent in [None, Some("alphabot"), Some("betabot"), Some("nobot")] {
            let one = lint(html, agent);
            assert_eq!(one, lint_by(html, agent, per_crawler), "{agent:?}");
            assert!(one.len() >= 3, "{one:?}");
        }
        // The named readings are in it (alphabot's unreadable snippet).
        assert!(lint(html, None)
            .iter()
            .any(|f| f.line == 4 && f.code == "page-malformed"));
    }

    #[test]
    fn named_reads_are_bounded_and_said() {
        let page = |names: usize| {
            let mut html = String::from("<html><head>\n");
            for i in 0..names {
                let name: String = (0..4)
                    .map(|k| char::from(b'a' + ((i >> (k * 2)) & 3) as u8 + 4 * k as u8))
                    .collect();
                html.push_str(&format!("<meta name={name}bot content=\"noindex\">\n"));
                html.push_str(&format!(
                    "<meta name={name}bot content=\"max-snippet:x\">\n"
                ));
            }
            lint(html.as_bytes(), None)
        };
        // Each crawler read finds its unreadable max-snippet, on its line.
        let found = page(MAX_NAMED_READS);
        let per_name: Vec<usize> = found
            .iter()
            .filter(|f| f.code == "page-malformed")
            .map(|f| f.line)
            .collect();
        assert_eq!(per_name.len(), MAX_NAMED_READS, "{found:?}");
        assert_eq!(per_name[0], 3, "{found:?}");
        assert!(!found.iter().any(|f| f.code == "page-limit"), "{found:?}");
        // Past the bound: read as the first ones, and said.
        let found = page(MAX_NAMED_READS + 3);
        let limit: Vec<_> = found.iter().filter(|f| f.code == "page-limit").collect();
        assert_eq!(limit.len(), 1, "{found:?}");
        assert!(
            limit[0].message.contains("not by 3 more"),
            "{}",
            limit[0].message
        );
        let per_name = found.iter().filter(|f| f.code == "page-malformed").count();
        assert_eq!(per_name, MAX_NAMED_READS, "{found:?}");
    }
}
