//! Stage 3: the page over the site policy (ACAP 1.1 Part 2, 2.2.8 and its
//! note): where the page speaks of a usage, its verdict overrides the
//! robots.txt's; where it says nothing, the robots.txt's verdict stands. A
//! page that robots.txt forbids to crawl is answered, but crawl stays
//! prohibited and [`Combined::crawl_prohibited_by_site`] says so.

use super::{PageRules, PageVerdict};
use robocc_engine::{Policy, Usage, UsageSet, Verdict};

/// Where a final verdict comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalSource {
    /// The page (see its [`super::Decision`]).
    Page,
    /// The site policy (`verdict.rule`: the deciding rule, if any).
    Site(Verdict),
    /// Neither says anything: allowed by default.
    Default,
}

/// The final verdict for one usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Final {
    /// The usage.
    pub usage: Usage,
    /// The final verdict.
    pub allowed: bool,
    /// Who decided.
    pub source: FinalSource,
    /// The site policy's own verdict, when a policy was given.
    pub site: Option<Verdict>,
}

/// Per-usage final verdicts.
#[derive(Clone, Debug)]
pub struct Combined {
    /// One per usage, in usage order.
    pub finals: Vec<Final>,
    /// robots.txt prohibits crawling the URL: the page should not have
    /// been fetched; crawl is prohibited whatever the page says.
    pub crawl_prohibited_by_site: bool,
}

impl Combined {
    /// The final verdict for `usage`.
    pub fn get(&self, usage: Usage) -> &Final {
        &self.finals[usage as usize]
    }

    /// The usages allowed in the end.
    pub fn allowed(&self) -> UsageSet {
        self.finals
            .iter()
            .filter(|f| f.allowed)
            .fold(UsageSet::EMPTY, |s, f| s.with(f.usage))
    }
}

/// Combines what the page says with `site`'s verdicts for `url` (`None`:
/// no site policy; a usage the page does not speak of is then allowed).
pub fn combine(page: &PageRules, site: Option<&Policy<'_>>, url: &[u8]) -> Combined {
    let site_verdicts: Option<Vec<Verdict>> =
        site.map(|p| Usage::ALL.iter().map(|&u| p.check_usage(url, u)).collect());
    let crawl_prohibited_by_site = site_verdicts
        .as_ref()
        .is_some_and(|v| !v[Usage::Crawl as usize].allowed);
    // Every usage, in `Usage` order, so that `Combined::get` is total.
    let finals = Usage::ALL
        .iter()
        .map(|&u| {
            let site = site_verdicts.as_ref().map(|v| v[u as usize]);
            let page_verdict = page.verdict(u);
            let (allowed, source) = match (u, page_verdict, site) {
                (Usage::Crawl, _, Some(v)) if !v.allowed => (false, FinalSource::Site(v)),
                (_, PageVerdict::Allow, _) => (true, FinalSource::Page),
                (_, PageVerdict::Disallow, _) => (false, FinalSource::Page),
                (_, PageVerdict::Unspecified, Some(v)) => (v.allowed, FinalSource::Site(v)),
                (_, PageVerdict::Unspecified, None) => (true, FinalSource::Default),
            };
            Final {
                usage: u,
                allowed,
                source,
                site,
            }
        })
        .collect();
    Combined {
        finals,
        crawl_prohibited_by_site,
    }
}
