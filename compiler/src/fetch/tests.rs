//! docs/fetch.md's table, row by row: each expectation is the row's text
//! (RFC 9309, Google's documentation or robocc's choice), not the code's.

use super::*;
use crate::diag::DiagCode;

const ROBOTS: &str = "https://a.example/robots.txt";
const NOW: u64 = 1_000_000_000;

fn http<'a>(status: u16, headers: Headers<'a>, body: Option<&'a [u8]>) -> Response<'a> {
    Response::Http {
        status,
        headers,
        body,
    }
}

fn status(status: u16) -> Response<'static> {
    http(status, Headers::default(), None)
}

/// The decision of one response to `ROBOTS` under `options`.
fn decide_with(options: &FetchOptions, response: Response<'_>) -> Fetched {
    match Fetch::new(ROBOTS, options).unwrap().answer(response, NOW) {
        Step::Done(f) => f,
        Step::Follow(u) => panic!("followed to {u}"),
    }
}

fn decide(response: Response<'_>) -> Fetched {
    decide_with(&FetchOptions::default(), response)
}

fn said(f: &Fetched) -> (Decision, Reason, u64) {
    (f.decision, f.reason, f.hold)
}

#[test]
fn classes_of_every_status() {
    for s in 0..=u16::MAX {
        let want = if (200..300).contains(&s) {
            Class::Success
        } else if s == 304 {
            Class::NotModified
        } else if (300..400).contains(&s) {
            Class::Redirect
        } else if (400..500).contains(&s) && s != 429 {
            Class::Unavailable
        } else {
            Class::Unreachable
        };
        assert_eq!(classify(s), want, "{s}");
    }
}

#[test]
fn success_holds_a_day_or_what_cache_headers_say() {
    let body: &[u8] = b"User-agent: *\nDisallow: /\n";
    let with = |h: Headers<'static>| said(&decide(http(200, h, Some(body))));
    let day = (Decision::Rules, Reason::Success, DAY);
    assert_eq!(with(Headers::default()), day);
    let cc = |v| Headers {
        cache_control: Some(v),
        ..Headers::default()
    };
    assert_eq!(with(cc("public, max-age=3600")).2, 3600);
    assert_eq!(with(cc("max-age=\"7200\"")).2, 7200);
    assert_eq!(with(cc("max-age=99999999999999999999999")).2, DAY);
    assert_eq!(with(cc("max-age=5")).2, 60);
    assert_eq!(with(cc("no-cache")).2, 60);
    assert_eq!(with(cc("max-age=3600, no-store")).2, 60);
    // A malformed max-age is as if absent.
    assert_eq!(with(cc("max-age=soon")).2, DAY);
    let dated = |expires| Headers {
        expires: Some(expires),
        date: Some("Sun, 06 Nov 1994 08:49:37 GMT"),
        ..Headers::default()
    };
    assert_eq!(with(dated("Sun, 06 Nov 1994 10:49:37 GMT")).2, 7200);
    assert_eq!(with(dated("Sunday, 06-Nov-94 09:49:37 GMT")).2, 3600);
    assert_eq!(with(dated("Sun Nov  6 08:59:37 1994")).2, 600);
    // An invalid Expires means already expired (RFC 9111 §5.3).
    assert_eq!(with(dated("0")).2, 60);
    // Cache-Control wins over Expires (RFC 9111 §5.3).
    let both = Headers {
        cache_control: Some("max-age=900"),
        ..dated("Sun, 06 Nov 1994 10:49:37 GMT")
    };
    assert_eq!(with(both).2, 900);
    let f = decide(http(
        200,
        Headers {
            etag: Some("\"v1\""),
            last_modified: Some("Sun, 06 Nov 1994 08:49:37 GMT"),
            ..Headers::default()
        },
        Some(body),
    ));
    assert_eq!(f.body.as_deref(), Some(body));
    assert_eq!(
        f.validators,
        (
            Some("Sun, 06 Nov 1994 08:49:37 GMT".into()),
            Some("\"v1\"".into())
        )
    );
}

#[test]
fn empty_success_allows_all() {
    for body in [None, Some(&b""[..])] {
        let f = decide(http(204, Headers::default(), body));
        assert_eq!(said(&f), (Decision::AllowAll, Reason::EmptySuccess, DAY));
    }
}

#[test]
fn html_pages_are_said_and_optionally_unreachable() {
    let page: &[u8] = b"<!DOCTYPE html><html><body>Checking your browser</body></html>";
    let f = decide(http(200, Headers::default(), Some(page)));
    assert_eq!(said(&f), (Decision::Rules, Reason::Success, DAY));
    assert_eq!(f.diagnostics[0].code, DiagCode::Html);
    let strict = FetchOptions {
        html_is_unreachable: true,
        ..FetchOptions::default()
    };
    let f = decide_with(&strict, http(200, Headers::default(), Some(page)));
    assert_eq!(said(&f), (Decision::DisallowAll, Reason::HtmlPage, 300));
    assert_eq!(f.diagnostics[0].code, DiagCode::Html);
    assert!(f.body.is_none());
}

#[test]
fn oversized_bodies_are_cut_at_the_parse_limit() {
    let line = b"Disallow: /some/path/here\n";
    let body: Vec<u8> = line.iter().copied().cycle().take(2 << 20).collect();
    let f = decide(http(200, Headers::default(), Some(&body)));
    let kept = f.body.as_ref().unwrap();
    // Whole lines only, within the 500 KiB limit, as the parser reads.
    let limit = crate::DEFAULT_MAX_BYTES;
    assert!(kept.len() <= limit && kept.len() > limit - line.len());
    assert!(kept.ends_with(b"\n") && body.starts_with(kept));
    assert_eq!(f.diagnostics.len(), 1);
    assert_eq!(f.diagnostics[0].code, DiagCode::ParseLimit);
    let unlimited = FetchOptions {
        max_bytes: 0,
        ..FetchOptions::default()
    };
    let f = decide_with(&unlimited, http(200, Headers::default(), Some(&body)));
    assert_eq!(f.body.as_ref().unwrap().len(), body.len());
    // UTF-16 is cut by the parser, after decoding: kept up to twice the
    // limit, all the parser can read, and read the same.
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(body.iter().flat_map(|&b| [b, 0]))
        .collect();
    let f = decide(http(200, Headers::default(), Some(&utf16)));
    let kept = f.body.unwrap();
    assert_eq!(kept.len(), 2 * limit + 2);
    assert_eq!(f.diagnostics[0].code, DiagCode::Utf16);
    let opts = crate::CompileOptions::default();
    let rules = |b: &[u8]| crate::Checker::new(b, "bot", &opts).unwrap().rule_count();
    assert_eq!(rules(&kept), rules(&utf16));
}

#[test]
fn unavailable_statuses_allow_all() {
    for s in (400..=499).filter(|&s| s != 429) {
        assert_eq!(
            said(&decide(status(s))),
            (Decision::AllowAll, Reason::Unavailable(s), DAY)
        );
    }
}

#[test]
fn unreachable_statuses_disallow_all_for_the_failure_hold() {
    for s in 500..=599 {
        assert_eq!(
            said(&decide(status(s))),
            (Decision::DisallowAll, Reason::ServerError(s), 300)
        );
    }
    assert_eq!(
        said(&decide(status(429))),
        (Decision::DisallowAll, Reason::RateLimited, 300)
    );
    for s in [0, 1, 100, 101, 199, 600, 999, u16::MAX] {
        assert_eq!(
            said(&decide(status(s))),
            (Decision::DisallowAll, Reason::OtherStatus(s), 300)
        );
    }
    for t in [
        Transport::Timeout,
        Transport::Dns,
        Transport::Connection,
        Transport::Tls,
    ] {
        assert_eq!(
            said(&decide(Response::Failed(t))),
            (Decision::DisallowAll, Reason::Transport(t), 300)
        );
    }
}

#[test]
fn retry_after_sets_a_failures_hold_within_bounds() {
    let retry = |s, v| {
        decide(http(
            s,
            Headers {
                retry_after: Some(v),
                date: Some("Sun, 06 Nov 1994 08:49:37 GMT"),
                ..Headers::default()
            },
            None,
        ))
        .hold
    };
    assert_eq!(retry(503, "120"), 120);
    assert_eq!(retry(429, "3600"), 3600);
    assert_eq!(retry(503, "1"), 60);
    assert_eq!(retry(503, "99999999"), DAY);
    assert_eq!(retry(503, "Sun, 06 Nov 1994 09:49:37 GMT"), 3600);
    assert_eq!(retry(503, "Sun, 06 Nov 1994 07:49:37 GMT"), 60);
    assert_eq!(retry(503, "later"), 300);
    // A 4xx's Retry-After changes nothing: the answer is definite.
    assert_eq!(retry(404, "120"), DAY);
}

/// Answers a fetch of `ROBOTS` with redirects to `targets`, in turn, then
/// a 200.
fn chain(options: &FetchOptions, targets: &[&str]) -> (Vec<String>, Fetched) {
    let mut fetch = Fetch::new(ROBOTS, options).unwrap();
    let mut followed = Vec::new();
    let mut targets = targets.iter();
    loop {
        let response = match targets.next() {
            Some(t) => http(
                301,
                Headers {
                    location: Some(t),
                    ..Headers::default()
                },
                None,
            ),
            None => http(
                200,
                Headers::default(),
                Some(b"User-agent: *\nDisallow: /\n"),
            ),
        };
        match fetch.answer(response, NOW) {
            Step::Follow(u) => {
                assert_eq!(fetch.url(), u);
                followed.push(u);
            }
            Step::Done(f) => return (followed, f),
        }
    }
}

#[test]
fn redirects_within_the_origin_are_followed_five_times() {
    let o = FetchOptions::default();
    let (followed, f) = chain(&o, &["/a/robots.txt", "b.txt", "../c.txt", "?v=1"]);
    assert_eq!(
        followed,
        [
            "https://a.example/a/robots.txt",
            "https://a.example/a/b.txt",
            "https://a.example/c.txt",
            "https://a.example/c.txt?v=1",
        ]
    );
    assert_eq!(said(&f), (Decision::Rules, Reason::Success, DAY));
    assert_eq!(f.url, "https://a.example/c.txt?v=1");
    let five = ["/1", "/2", "/3", "/4", "/5"];
    assert_eq!(chain(&o, &five).1.reason, Reason::Success);
    let six = ["/1", "/2", "/3", "/4", "/5", "/6"];
    let (followed, f) = chain(&o, &six);
    assert_eq!(followed.len(), 5);
    assert_eq!(
        said(&f),
        (Decision::AllowAll, Reason::TooManyRedirects, DAY)
    );
}

#[test]
fn redirects_across_origins_are_refused_unless_asked_for() {
    let same = FetchOptions::default();
    let any = FetchOptions {
        redirects: Redirects::AnyHost,
        ..FetchOptions::default()
    };
    for target in [
        "https://b.example/robots.txt",
        "https://a.example:8443/robots.txt",
        "http://a.example/robots.txt",
        "//b.example/robots.txt",
    ] {
        let (followed, f) = chain(&same, &[target]);
        assert!(followed.is_empty(), "{target}");
        assert_eq!(
            said(&f),
            (Decision::DisallowAll, Reason::RedirectRefused, 300),
            "{target}"
        );
        let (followed, f) = chain(&any, &[target]);
        assert_eq!(followed.len(), 1, "{target}");
        assert_eq!(f.reason, Reason::Success);
    }
    // http → https on the same host is followed either way.
    let mut fetch = Fetch::new("http://a.example/robots.txt", &same).unwrap();
    let up = http(
        301,
        Headers {
            location: Some("https://A.example/robots.txt"),
            ..Headers::default()
        },
        None,
    );
    assert_eq!(
        fetch.answer(up, NOW),
        Step::Follow("https://A.example/robots.txt".into())
    );
}

#[test]
fn redirects_without_a_usable_location_disallow_for_now() {
    for location in [
        None,
        Some(""),
        Some("  "),
        Some("ftp://a.example/robots.txt"),
    ] {
        let f = decide(http(
            302,
            Headers {
                location,
                ..Headers::default()
            },
            None,
        ));
        assert_eq!(
            said(&f),
            (Decision::DisallowAll, Reason::RedirectWithoutLocation, 300),
            "{location:?}"
        );
    }
}

/// A host's state after `fetched` arrive at the given times.
fn run(options: &FetchOptions, steps: &[(u64, Fetched)]) -> Kept<&'static str> {
    let mut kept: Option<Kept<&'static str>> = None;
    for (at, f) in steps {
        let rules = (f.decision == Decision::Rules && f.body.is_some()).then_some("rules");
        kept = Some(Kept::next(kept.as_ref(), f, rules, options, *at));
    }
    kept.unwrap()
}

fn ok() -> Fetched {
    decide(http(
        200,
        Headers::default(),
        Some(b"User-agent: *\nDisallow: /x\n"),
    ))
}

#[test]
fn last_good_rules_are_kept_through_an_outage_of_thirty_days() {
    let o = FetchOptions::default();
    let down = decide(status(503));
    let k = run(&o, &[(0, ok()), (DAY, down.clone())]);
    assert_eq!(
        (
            k.decision,
            k.rules,
            k.reason,
            k.until,
            k.kept_through_outage
        ),
        (
            Decision::Rules,
            Some("rules"),
            Reason::ServerError(503),
            DAY + 300,
            true
        )
    );
    // The outage counts from its first failure.
    let month = 30 * DAY;
    let k = run(
        &o,
        &[
            (0, ok()),
            (DAY, down.clone()),
            (DAY + month - 1, down.clone()),
        ],
    );
    assert_eq!(k.decision, Decision::Rules);
    let steps = [(0, ok()), (DAY, down.clone()), (DAY + month, down.clone())];
    let k = run(&o, &steps);
    assert_eq!(
        (k.decision, k.kept_through_outage),
        (Decision::AllowAll, false)
    );
    let disallow = FetchOptions {
        after_outage: AfterOutage::Disallow,
        ..FetchOptions::default()
    };
    assert_eq!(run(&disallow, &steps).decision, Decision::DisallowAll);
    let keep = FetchOptions {
        after_outage: AfterOutage::KeepLast,
        ..FetchOptions::default()
    };
    assert_eq!(run(&keep, &steps).rules, Some("rules"));
    // A success ends the outage: the next one counts afresh.
    let k = run(
        &o,
        &[
            (0, ok()),
            (DAY, down.clone()),
            (20 * DAY, ok()),
            (40 * DAY, down.clone()),
        ],
    );
    assert_eq!(
        (k.decision, k.down_since),
        (Decision::Rules, Some(40 * DAY))
    );
}

#[test]
fn an_outage_without_good_rules_disallows_then_follows_the_option() {
    let o = FetchOptions::default();
    let down = decide(Response::Failed(Transport::Timeout));
    let k = run(&o, &[(0, down.clone()), (29 * DAY, down.clone())]);
    assert_eq!((k.decision, k.down_since), (Decision::DisallowAll, Some(0)));
    let k = run(&o, &[(0, down.clone()), (30 * DAY, down.clone())]);
    assert_eq!(k.decision, Decision::AllowAll);
    let keep = FetchOptions {
        after_outage: AfterOutage::KeepLast,
        ..FetchOptions::default()
    };
    let k = run(&keep, &[(0, down.clone()), (30 * DAY, down.clone())]);
    assert_eq!(k.decision, Decision::AllowAll);
    // A 404 before the outage is a good answer too: allow all, kept.
    let k = run(&o, &[(0, decide(status(404))), (DAY, down)]);
    assert_eq!(
        (k.decision, k.kept_through_outage),
        (Decision::AllowAll, true)
    );
}

#[test]
fn not_modified_revalidates_kept_rules_only() {
    let o = FetchOptions::default();
    let not_modified = decide(http(
        304,
        Headers {
            cache_control: Some("max-age=600"),
            ..Headers::default()
        },
        None,
    ));
    assert_eq!(
        said(&not_modified),
        (Decision::Rules, Reason::NotModified, 600)
    );
    let k = run(&o, &[(0, ok()), (DAY, not_modified.clone())]);
    assert_eq!(
        (k.decision, k.rules, k.until),
        (Decision::Rules, Some("rules"), DAY + 600)
    );
    let k = run(&o, &[(0, not_modified)]);
    assert_eq!(
        (k.decision, k.reason, k.until),
        (Decision::DisallowAll, Reason::NotModifiedUnknown, 300)
    );
}

#[test]
fn holds_never_exceed_the_longest_whatever_the_options() {
    // Options with min_hold above max_hold are clamped, never panic.
    let odd = FetchOptions {
        min_hold: 10 * DAY,
        failure_hold: 100 * DAY,
        max_hold: DAY,
        ..FetchOptions::default()
    };
    for r in [
        status(503),
        status(404),
        status(304),
        http(
            503,
            Headers {
                retry_after: Some("5"),
                ..Headers::default()
            },
            None,
        ),
        http(200, Headers::default(), Some(b"x")),
    ] {
        assert_eq!(decide_with(&odd, r).hold, DAY);
    }
}

/// Days since 1970 counted one month at a time: the oracle of the date
/// parser's arithmetic.
fn days_counted(year: u64, month: u64, day: u64) -> u64 {
    let leap = |y: u64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let mut days = 0;
    for y in 1970..year {
        days += if leap(y) { 366 } else { 365 };
    }
    let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    for m in 1..month {
        days += lengths[(m - 1) as usize] + u64::from(m == 2 && leap(year));
    }
    days + day - 1
}

#[test]
fn http_dates_in_all_three_forms() {
    // RFC 9110 §5.6.7's example, in its three forms.
    for form in [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ] {
        assert_eq!(parse_http_date(form), Some(784_111_777), "{form}");
    }
    for (y, m, d) in [(1970, 1, 1), (2000, 2, 29), (2026, 12, 7), (2100, 3, 1)] {
        let name = MONTH_NAMES[(m - 1) as usize];
        let text = format!("Mon, {d:02} {name} {y} 00:00:00 GMT");
        assert_eq!(
            parse_http_date(&text),
            Some(days_counted(y, m, d) * 86_400),
            "{text}"
        );
    }
    for bad in [
        "",
        "0",
        "-1",
        "yesterday",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:49:37 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1969 08:49:37 GMT",
        "06 1994 08:49:37",
    ] {
        assert_eq!(parse_http_date(bad), None, "{bad:?}");
    }
}

const MONTH_NAMES: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

#[test]
fn origins_and_resolved_locations() {
    let o = Origin::of("HTTPS://User@A.Example/robots.txt").unwrap();
    assert_eq!(
        (o.scheme.as_str(), o.host.as_str(), o.port),
        ("https", "a.example", Some(443))
    );
    assert_eq!(Origin::of("http://[::1]:8080/x").unwrap().port, Some(8080));
    assert_eq!(Origin::of("http://[::1]/x").unwrap().host, "[::1]");
    assert!(Origin::of("http://a:99999/").is_none());
    assert!(Origin::of("/robots.txt").is_none());
    assert!(Origin::of("http:///robots.txt").is_none());
    let base = "https://a.example/robots.txt";
    for (location, want) in [
        ("/x/robots.txt", "https://a.example/x/robots.txt"),
        ("x.txt", "https://a.example/x.txt"),
        ("./x/../y.txt", "https://a.example/y.txt"),
        ("//b.example/robots.txt", "https://b.example/robots.txt"),
        ("http://b.example/robots.txt", "http://b.example/robots.txt"),
        ("?v=2", "https://a.example/robots.txt?v=2"),
    ] {
        assert_eq!(resolve(location, base), want, "{location}");
    }
    assert_eq!(
        resolve("c.txt", "https://a.example/a/b.txt"),
        "https://a.example/a/c.txt"
    );
}
