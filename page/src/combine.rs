//! Stage 3: the page over the site policy (ACAP 1.1 Part 2, 2.2.8 and its
//! note): where the page speaks of a usage, its verdict overrides the
//! robots.txt's; where it says nothing, the robots.txt's verdict stands. A
//! page that robots.txt forbids to crawl is answered, but crawl stays
//! prohibited and [`Combined::crawl_prohibited_by_site`] says so.
//!
//! The page's `disallow-other` speaks of the usages not explicitly
//! permitted (Part 1 2.5.6), and its statements are equivalent to
//! robots.txt fields for this one URL (2.2.8's NOTE): a usage that an acap
//! site policy permits for the URL by a rule is explicitly permitted, so
//! the page's `other` statements do not concern it ([`Final::other_set_aside`]),
//! as `robocc check` answers the robots.txt with the page's `other` added.
//!
//! The AI-usage preference channels (`search`, `train-ai`, `ai-input`)
//! combine otherwise (vocab-07 §5.1, issue 18): robots.txt's preference and
//! the page's are two statements; any disallow wins, else any allow, else
//! nothing is known.

use super::{PageRules, PageVerdict, Reason};
use robocc_engine::{Dialect, Policy, Usage, UsageSet, Verdict};

/// Where a final verdict comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalSource {
    /// The page (see its [`super::Decision`]).
    Page,
    /// The site policy (`verdict.rule`: the deciding rule, if any).
    Site(Verdict),
    /// Neither says anything: allowed by default (a preference channel:
    /// unknown, [`Final::known`] false).
    Default,
}

/// The final verdict for one usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Final {
    /// The usage.
    pub usage: Usage,
    /// The final verdict (false when not [`Final::known`]).
    pub allowed: bool,
    /// False only for a preference channel on which nothing spoke: the
    /// caller chooses its own default (vocab-07 §5).
    pub known: bool,
    /// Who decided.
    pub source: FinalSource,
    /// The site policy's own verdict, when a policy was given (a
    /// preference channel: when robots.txt states one).
    pub site: Option<Verdict>,
    /// The page spoke of the usage through `disallow-other` / `allow-other`
    /// alone ([`super::Decision::by_other`]) and the acap site policy
    /// permits it for the URL by a rule: explicitly permitted, so the
    /// page's `other` does not concern it (Part 1 2.5.6, Part 2 2.2.8's
    /// NOTE) and the site's verdict stands (unless 2.2.6's element fallback
    /// prohibits it page-wide).
    pub other_set_aside: bool,
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
    // The ACAP usages (the first of `Usage`'s order); the preference
    // channels are asked with `preference` below, once each.
    let site_verdicts: Option<Vec<Verdict>> =
        site.map(|p| Usage::ACAP.iter().map(|&u| p.check_usage(url, u)).collect());
    let preference = |u: Usage| site.and_then(|p| p.preference(url, u));
    let crawl_prohibited_by_site = site_verdicts
        .as_ref()
        .is_some_and(|v| !v[Usage::Crawl as usize].allowed);
    // A permission of the usage itself decided (not a default, and not an
    // `ACAP-allow-other`, which permits no usage by name): the usage is
    // explicitly permitted for the URL (Part 1 2.5.6).
    let explicitly_permitted = |v: Verdict| {
        site.filter(|p| p.header().dialect == Dialect::Acap)
            .zip(v.rule.filter(|_| v.allowed))
            .and_then(|(p, r)| p.acap_rule(r))
            .is_some_and(|a| a.usage != Usage::Other)
    };
    // Every usage, in `Usage` order, so that `Combined::get` is total.
    let finals = Usage::ALL
        .iter()
        .map(|&u| {
            if u.is_signal() {
                return preference_final(u, page.verdict(u), preference(u));
            }
            let site = site_verdicts.as_ref().map(|v| v[u as usize]);
            let d = page.decision(u);
            let other_set_aside = d.by_other && site.is_some_and(explicitly_permitted);
            let page_verdict = match (other_set_aside, d.reason) {
                (false, _) => d.verdict,
                (true, Reason::ElementFallback) => PageVerdict::Disallow,
                (true, _) => PageVerdict::Unspecified,
            };
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
                known: true,
                source,
                site,
                other_set_aside,
            }
        })
        .collect();
    Combined {
        finals,
        crawl_prohibited_by_site,
    }
}

/// A preference channel: the page's statement and robots.txt's, any
/// disallow first (the page named when both disallow), then any allow.
fn preference_final(usage: Usage, page: PageVerdict, site: Option<Verdict>) -> Final {
    let (allowed, known, source) = match (page, site) {
        (PageVerdict::Disallow, _) => (false, true, FinalSource::Page),
        (_, Some(v)) if !v.allowed => (false, true, FinalSource::Site(v)),
        (PageVerdict::Allow, _) => (true, true, FinalSource::Page),
        (_, Some(v)) => (true, true, FinalSource::Site(v)),
        (PageVerdict::Unspecified, None) => (false, false, FinalSource::Default),
    };
    Final {
        usage,
        allowed,
        known,
        source,
        site,
        other_set_aside: false,
    }
}
