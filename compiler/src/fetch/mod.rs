//! Fetch: what a crawler does with the answer to its robots.txt request
//! (RFC 9309 §2.3.1 and §2.4), the one home of these rules (`store build`
//! reads statuses through [`classify`]).
//!
//! A crawler fetches; robocc decides. [`Fetch`] follows one request from
//! `/robots.txt` through its redirects to a [`Fetched`]: a [`Decision`]
//! (the body's rules, allow all, or disallow all for now), why
//! ([`Reason`]), and until when it holds. [`Kept`] carries a host's
//! decisions from one fetch to the next (the last good rules are kept
//! through an outage of up to 30 days), and [`Cache`] holds many hosts for
//! a crawler. Time is always the caller's: Unix seconds passed in, never
//! read from a clock here. docs/fetch.md has the whole table.

mod cache;
mod http;

pub use cache::{Ask, Cache, CacheLimits};
pub use http::{
    cache_control, expires, is_robots_txt_url, parse_http_date, resolve, retry_after, CacheControl,
    Origin,
};

use crate::diag::{DiagCode, Diagnostic};
use crate::input::{self, InputKind};

/// Redirect hops followed by default (RFC 9309 §2.3.1.2: at least five).
pub const MAX_REDIRECTS: u8 = 5;

/// Seconds in a day: RFC 9309 §2.4's longest hold for a fetched file.
pub const DAY: u64 = 86_400;

/// A fetch that got no HTTP response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// No answer within the crawler's time limit.
    Timeout,
    /// The host name did not resolve.
    Dns,
    /// The connection was refused or reset.
    Connection,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
}

/// The response headers the rules read, as sent (`None` when absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Headers<'a> {
    /// `Location`: a redirect's target, absolute or relative.
    pub location: Option<&'a str>,
    /// `Retry-After`: seconds or an HTTP-date.
    pub retry_after: Option<&'a str>,
    /// `Content-Type` (informative: RFC 9309 §2.3 fixes the type as text;
    /// robocc reads what the body is, see [`crate::input`]).
    pub content_type: Option<&'a str>,
    /// `Cache-Control`.
    pub cache_control: Option<&'a str>,
    /// `Expires`.
    pub expires: Option<&'a str>,
    /// `Date`: the server's clock, which `Expires` and a `Retry-After`
    /// date are measured against.
    pub date: Option<&'a str>,
    /// `Last-Modified`, kept to revalidate (`If-Modified-Since`).
    pub last_modified: Option<&'a str>,
    /// `ETag`, kept to revalidate (`If-None-Match`).
    pub etag: Option<&'a str>,
}

/// What one request for a robots.txt got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response<'a> {
    /// An HTTP response: its status, headers and body (`None`: no body
    /// was read, as for a `HEAD` or a response without content).
    Http {
        /// The status code.
        status: u16,
        /// The headers the rules read.
        headers: Headers<'a>,
        /// The body (the crawler may stop reading past
        /// [`FetchOptions::max_bytes`]: the rest is never read).
        body: Option<&'a [u8]>,
    },
    /// No response.
    Failed(Transport),
}

/// What a status says, before redirects are followed (RFC 9309 §2.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// 2xx: the body is the file (§2.3.1.1).
    Success,
    /// 304: the copy revalidated is still the file (RFC 9111 §4.3.4).
    NotModified,
    /// Any other 3xx: follow `Location` (§2.3.1.2).
    Redirect,
    /// 4xx but 429: no file, everything allowed (§2.3.1.3).
    Unavailable,
    /// 429, 5xx, no response, and any status outside 2xx-5xx: the file
    /// exists and is unknown, everything disallowed for now (§2.3.1.4;
    /// 429 as Google's documentation reads it).
    Unreachable,
}

/// The class of an HTTP status (0: no response): the one home of the
/// status rules, which `store build` uses too.
pub const fn classify(status: u16) -> Class {
    match status {
        200..=299 => Class::Success,
        304 => Class::NotModified,
        300..=399 => Class::Redirect,
        // 429 Too Many Requests refuses this client for now: not an absent
        // file (docs/fetch.md).
        429 => Class::Unreachable,
        400..=499 => Class::Unavailable,
        _ => Class::Unreachable,
    }
}

/// Which redirects are followed (RFC 9309 §2.3.1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Redirects {
    /// To the same origin (scheme, host, port) or its `https` upgrade:
    /// StormCrawler's default since PR 2077. A redirect elsewhere is
    /// refused: disallow all for now, as a failed fetch.
    #[default]
    SameOrigin,
    /// To any `http`/`https` URL, as RFC 9309 §2.3.1.2 asks ("even across
    /// authorities"); the rules found apply to the first host.
    AnyHost,
}

/// What applies once a host has been unreachable for
/// [`FetchOptions::keep_last_good`] (RFC 9309 §2.3.1.4's "reasonably long
/// period").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AfterOutage {
    /// The file is taken as unavailable: allow all (the RFC's "MAY assume
    /// unavailable").
    #[default]
    Unavailable,
    /// Everything stays disallowed until a fetch succeeds.
    Disallow,
    /// The last good rules go on applying (the RFC's "or continue to use a
    /// cached copy", and Google's documented choice); without any, allow
    /// all, as Google does.
    KeepLast,
}

/// The fetch rules' settings; [`FetchOptions::default`] is docs/fetch.md's
/// table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FetchOptions {
    /// Which redirects are followed.
    pub redirects: Redirects,
    /// Redirect hops followed (RFC 9309 §2.3.1.2: at least five); one more
    /// is "unavailable", allow all.
    pub max_redirects: u8,
    /// The longest any decision holds (§2.4: 24 hours) but one kept
    /// through an outage.
    pub max_hold: u64,
    /// The shortest (`Cache-Control: no-cache`, `max-age=0`, a past
    /// `Retry-After`): robots.txt is not fetched before every request.
    pub min_hold: u64,
    /// How long a failure (unreachable, a refused redirect) holds when the
    /// server gives no `Retry-After`: the retry interval.
    pub failure_hold: u64,
    /// How long the last good rules are kept through an outage.
    pub keep_last_good: u64,
    /// What applies after that.
    pub after_outage: AfterOutage,
    /// The parse limit: longer bodies are cut at the last line end within
    /// it (0: no limit). Keep it equal to the compile options'.
    pub max_bytes: usize,
    /// A 2xx body that is an HTML page (a bot wall, an error page served
    /// as 200) is unreachable, disallow all for now; by default it is
    /// parsed as it is, as RFC 9309 and Google's library read it (its lines
    /// are no rules: allow all), with the input stage's finding.
    pub html_is_unreachable: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            redirects: Redirects::SameOrigin,
            max_redirects: MAX_REDIRECTS,
            max_hold: DAY,
            min_hold: 60,
            failure_hold: 300,
            keep_last_good: 30 * DAY,
            after_outage: AfterOutage::Unavailable,
            max_bytes: crate::DEFAULT_MAX_BYTES,
            html_is_unreachable: false,
        }
    }
}

/// What a crawler does with a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Follow the rules of [`Fetched::body`] (or the last good rules).
    Rules,
    /// Everything allowed.
    AllowAll,
    /// Nothing allowed, for now.
    DisallowAll,
}

/// Why, a row of docs/fetch.md's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// 2xx: the body's rules (§2.3.1.1).
    Success,
    /// 2xx without a body: an empty file, allow all.
    EmptySuccess,
    /// 2xx with an HTML page, read as unreachable
    /// ([`FetchOptions::html_is_unreachable`]).
    HtmlPage,
    /// 304: the kept rules revalidated.
    NotModified,
    /// 304 with no rules kept to revalidate.
    NotModifiedUnknown,
    /// 4xx but 429 (§2.3.1.3).
    Unavailable(u16),
    /// More redirects than [`FetchOptions::max_redirects`] (§2.3.1.2).
    TooManyRedirects,
    /// A redirect without a usable `Location`.
    RedirectWithoutLocation,
    /// A redirect to another origin under [`Redirects::SameOrigin`].
    RedirectRefused,
    /// 429 (Google's documentation).
    RateLimited,
    /// 5xx (§2.3.1.4).
    ServerError(u16),
    /// 1xx or a status outside 100-599.
    OtherStatus(u16),
    /// No response (§2.3.1.4).
    Transport(Transport),
}

impl Reason {
    /// The failure a crawler retries after a short hold (§2.3.1.4), as
    /// opposed to a definite answer about the file.
    pub const fn is_failure(self) -> bool {
        matches!(
            self,
            Reason::HtmlPage
                | Reason::NotModifiedUnknown
                | Reason::RedirectWithoutLocation
                | Reason::RedirectRefused
                | Reason::RateLimited
                | Reason::ServerError(_)
                | Reason::OtherStatus(_)
                | Reason::Transport(_)
        )
    }
}

/// The end of one fetch: what it decided, why, and for how long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// What a crawler does.
    pub decision: Decision,
    /// Why.
    pub reason: Reason,
    /// Seconds the decision holds from the fetch (≤
    /// [`FetchOptions::max_hold`]).
    pub hold: u64,
    /// For [`Decision::Rules`] from a 2xx: the body, cut at the parse
    /// limit.
    pub body: Option<Vec<u8>>,
    /// The URL the body came from (after redirects).
    pub url: String,
    /// `Last-Modified` and `ETag` of a 2xx, to revalidate with.
    pub validators: (Option<String>, Option<String>),
    /// What was said about the body: the input stage's finding (HTML,
    /// binary, UTF-16) and the parse limit's.
    pub diagnostics: Vec<Diagnostic>,
}

/// The next step of a [`Fetch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Fetch this URL next (a redirect followed).
    Follow(String),
    /// Done.
    Done(Fetched),
}

/// One robots.txt request followed to its decision.
///
/// ```
/// use robocc_compiler::fetch::{Decision, Fetch, FetchOptions, Headers, Response, Step};
/// let options = FetchOptions::default();
/// let mut fetch = Fetch::new("https://example.com/robots.txt", &options).unwrap();
/// let busy = Response::Http { status: 503, headers: Headers { retry_after: Some("120"), ..Headers::default() }, body: None };
/// let Step::Done(done) = fetch.answer(busy, 0) else { unreachable!() };
/// assert_eq!((done.decision, done.hold), (Decision::DisallowAll, 120));
/// ```
#[derive(Clone, Debug)]
pub struct Fetch {
    options: FetchOptions,
    origin: Origin,
    url: String,
    hops: u8,
}

impl Fetch {
    /// A fetch of `robots_url` (an absolute URL; its origin is the host
    /// the decision is for). `None` when it has no scheme and host.
    pub fn new(robots_url: &str, options: &FetchOptions) -> Option<Fetch> {
        Some(Fetch {
            options: *options,
            origin: Origin::of(robots_url)?,
            url: robots_url.to_string(),
            hops: 0,
        })
    }

    /// The URL to fetch now.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Redirects followed so far.
    pub fn hops(&self) -> u8 {
        self.hops
    }

    /// Reads the response to [`Fetch::url`], fetched at `now` (Unix
    /// seconds): the next URL to fetch, or the decision.
    pub fn answer(&mut self, response: Response<'_>, now: u64) -> Step {
        let o = &self.options;
        let (status, headers, body) = match response {
            Response::Failed(t) => return Step::Done(self.failed(Reason::Transport(t), None, now)),
            Response::Http {
                status,
                headers,
                body,
            } => (status, headers, body),
        };
        match classify(status) {
            Class::Success => Step::Done(self.success(&headers, body, now)),
            Class::NotModified => Step::Done(self.done(
                Decision::Rules,
                Reason::NotModified,
                fresh_hold(o, &headers, now),
                None,
                &headers,
            )),
            Class::Unavailable => Step::Done(self.done(
                Decision::AllowAll,
                Reason::Unavailable(status),
                fresh_hold(o, &headers, now),
                None,
                &headers,
            )),
            Class::Unreachable => {
                let reason = match status {
                    429 => Reason::RateLimited,
                    500..=599 => Reason::ServerError(status),
                    _ => Reason::OtherStatus(status),
                };
                Step::Done(self.failed(reason, Some(&headers), now))
            }
            Class::Redirect => {
                let Some(target) = headers
                    .location
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| resolve(l, &self.url))
                    .filter(|t| Origin::of(t).is_some_and(|t| is_web(&t.scheme)))
                else {
                    return Step::Done(self.failed(
                        Reason::RedirectWithoutLocation,
                        Some(&headers),
                        now,
                    ));
                };
                if self.hops >= o.max_redirects {
                    // §2.3.1.2: "MAY assume that the robots.txt file is
                    // unavailable"; Google: treated as a 404.
                    return Step::Done(self.done(
                        Decision::AllowAll,
                        Reason::TooManyRedirects,
                        o.max_hold,
                        None,
                        &Headers::default(),
                    ));
                }
                let allowed = match o.redirects {
                    Redirects::AnyHost => true,
                    Redirects::SameOrigin => {
                        let from = Origin::of(&self.url);
                        Origin::of(&target)
                            .zip(from)
                            .is_some_and(|(t, f)| f.same_or_upgrade(&t))
                    }
                };
                if !allowed {
                    return Step::Done(self.failed(Reason::RedirectRefused, Some(&headers), now));
                }
                self.hops += 1;
                self.url = target.clone();
                Step::Follow(target)
            }
        }
    }

    /// The origin the decision is for.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    fn success(&self, headers: &Headers<'_>, body: Option<&[u8]>, now: u64) -> Fetched {
        let o = &self.options;
        let hold = fresh_hold(o, headers, now);
        let Some(body) = body.filter(|b| !b.is_empty()) else {
            return self.done(
                Decision::AllowAll,
                Reason::EmptySuccess,
                hold,
                None,
                headers,
            );
        };
        let read = input::read(&body[..body.len().min(input::SAMPLE)]);
        let mut diagnostics = read.diagnostics;
        if read.kind == InputKind::Html && o.html_is_unreachable {
            let mut f = self.failed(Reason::HtmlPage, Some(headers), now);
            f.diagnostics = diagnostics;
            return f;
        }
        // UTF-16 bodies are cut by the parser after decoding (its limit is
        // on the decoded text): kept up to what that can read, a unit of
        // two bytes giving at least one byte of text, and the mark.
        let kept = if input::is_utf16(body) {
            match o.max_bytes {
                0 => body.len(),
                max => body.len().min(max.saturating_mul(2).saturating_add(2)),
            }
        } else {
            crate::parse::kept_len(body, o.max_bytes)
        };
        if kept < body.len() {
            diagnostics.push(Diagnostic::new(
                0,
                DiagCode::ParseLimit,
                crate::parse::parse_limit_message(body.len(), o.max_bytes, body.len() - kept),
            ));
        }
        let mut f = self.done(
            Decision::Rules,
            Reason::Success,
            hold,
            Some(body[..kept].to_vec()),
            headers,
        );
        f.diagnostics = diagnostics;
        f
    }

    /// A failure: disallow all for `Retry-After` (within the holds) or the
    /// failure hold.
    fn failed(&self, reason: Reason, headers: Option<&Headers<'_>>, now: u64) -> Fetched {
        let o = &self.options;
        let hold = headers
            .and_then(|h| retry_after(h.retry_after?, h.date, now))
            .map_or(o.failure_hold, |s| s.max(o.min_hold));
        self.done(
            Decision::DisallowAll,
            reason,
            hold.min(o.max_hold),
            None,
            &Headers::default(),
        )
    }

    fn done(
        &self,
        decision: Decision,
        reason: Reason,
        hold: u64,
        body: Option<Vec<u8>>,
        headers: &Headers<'_>,
    ) -> Fetched {
        let validators = if body.is_some() {
            (
                headers.last_modified.map(str::to_string),
                headers.etag.map(str::to_string),
            )
        } else {
            (None, None)
        };
        Fetched {
            decision,
            reason,
            hold,
            body,
            url: self.url.clone(),
            validators,
            diagnostics: Vec::new(),
        }
    }
}

fn is_web(scheme: &str) -> bool {
    scheme == "http" || scheme == "https"
}

/// How long a definite answer holds: `Cache-Control` (`max-age`, or
/// `no-store`/`no-cache` for the shortest hold), else `Expires`, else the
/// longest (§2.4), within [`FetchOptions::min_hold`] and
/// [`FetchOptions::max_hold`].
fn fresh_hold(o: &FetchOptions, h: &Headers<'_>, now: u64) -> u64 {
    let said = match h.cache_control.and_then(cache_control) {
        Some(CacheControl::DoNotReuse) => Some(0),
        Some(CacheControl::MaxAge(s)) => Some(s),
        None => h.expires.map(|e| expires(e, h.date, now)),
    };
    said.unwrap_or(o.max_hold)
        .clamp(o.min_hold.min(o.max_hold), o.max_hold)
}

/// A host's state from one fetch to the next: the decision in force, until
/// when, and the last good rules with the outage they are kept through.
/// `P` is what the crawler answers from (a [`crate::Checker`] in
/// [`Cache`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept<P> {
    /// The decision in force.
    pub decision: Decision,
    /// The rules, for [`Decision::Rules`].
    pub rules: Option<P>,
    /// Why (for a decision kept through an outage: the failure).
    pub reason: Reason,
    /// Unix seconds until which it holds: fetch again then.
    pub until: u64,
    /// The last definite answer's rules (`None` for allow all).
    pub last_good: Option<P>,
    /// Whether any definite answer was had.
    pub had_good: bool,
    /// When the current outage began (`None`: not in one).
    pub down_since: Option<u64>,
    /// Whether [`Kept::decision`] is the last good one, kept through an
    /// outage.
    pub kept_through_outage: bool,
}

impl<P: Clone> Kept<P> {
    /// The state after `fetched` arrived at `now`, given the previous one
    /// (`None` for a host never fetched). `rules` is what `fetched`'s body
    /// reads as, for [`Decision::Rules`] from a 2xx.
    pub fn next(
        previous: Option<&Kept<P>>,
        fetched: &Fetched,
        rules: Option<P>,
        options: &FetchOptions,
        now: u64,
    ) -> Kept<P> {
        let until = now.saturating_add(fetched.hold);
        let (last_good, had_good, down_since) = previous.map_or((None, false, None), |p| {
            (p.last_good.clone(), p.had_good, p.down_since)
        });
        let fresh = |decision, rules: Option<P>| Kept {
            decision,
            last_good: rules.clone(),
            rules,
            reason: fetched.reason,
            until,
            had_good: true,
            down_since: None,
            kept_through_outage: false,
        };
        match (fetched.decision, fetched.reason) {
            (Decision::Rules, Reason::NotModified) => {
                if had_good {
                    let decision = if last_good.is_some() {
                        Decision::Rules
                    } else {
                        Decision::AllowAll
                    };
                    fresh(decision, last_good)
                } else {
                    // Nothing to revalidate: a failure (the crawler sent a
                    // conditional request robocc knows nothing of).
                    let failed = Fetched {
                        decision: Decision::DisallowAll,
                        reason: Reason::NotModifiedUnknown,
                        // Never longer than the response said.
                        hold: fetched.hold.min(options.failure_hold),
                        ..fetched.clone()
                    };
                    Kept::next(previous, &failed, None, options, now)
                }
            }
            (Decision::Rules, _) => fresh(Decision::Rules, rules),
            (Decision::AllowAll, _) => fresh(Decision::AllowAll, None),
            (Decision::DisallowAll, reason) => {
                let since = down_since.unwrap_or(now);
                let long = now.saturating_sub(since) >= options.keep_last_good;
                let (decision, rules, kept) = if !long {
                    match (had_good, last_good.clone()) {
                        (true, Some(r)) => (Decision::Rules, Some(r), true),
                        (true, None) => (Decision::AllowAll, None, true),
                        (false, _) => (Decision::DisallowAll, None, false),
                    }
                } else {
                    match (options.after_outage, last_good.clone()) {
                        (AfterOutage::Unavailable, _) => (Decision::AllowAll, None, false),
                        (AfterOutage::Disallow, _) => (Decision::DisallowAll, None, false),
                        (AfterOutage::KeepLast, Some(r)) => (Decision::Rules, Some(r), true),
                        (AfterOutage::KeepLast, None) => (Decision::AllowAll, None, had_good),
                    }
                };
                Kept {
                    decision,
                    rules,
                    reason,
                    until,
                    last_good,
                    had_good,
                    down_since: Some(since),
                    kept_through_outage: kept,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
