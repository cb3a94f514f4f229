//! The fetch cache: no sequence of outcomes makes a decision outlive its
//! hold, one fetch in flight per host, the bounds kept; and checks on a
//! held host allocate nothing (this binary's allocator counts per thread).

use proptest::prelude::*;
use robocc_compiler::fetch::{
    Ask, Cache, CacheLimits, Decision, Fetch, FetchOptions, Fetched, Headers, Response, Step,
    Transport,
};
use robocc_compiler::CompileOptions;
use robocc_testkit::heap::allocations_during;
use std::collections::HashMap;

const HOSTS: [&str; 4] = [
    "https://a.example",
    "https://b.example",
    "http://c.example:8080",
    "https://d.example",
];

/// Responses a robots.txt request may get, each with what it answers.
fn response(i: usize) -> Response<'static> {
    let h = Headers::default;
    let http = |status, headers, body| Response::Http {
        status,
        headers,
        body,
    };
    let rules: &'static [u8] = b"User-agent: *\nDisallow: /private\n";
    match i % 13 {
        0 => http(200, h(), Some(rules)),
        1 => http(
            200,
            Headers {
                cache_control: Some("max-age=120"),
                ..h()
            },
            Some(rules),
        ),
        2 => http(
            200,
            Headers {
                cache_control: Some("no-store"),
                ..h()
            },
            Some(rules),
        ),
        3 => http(
            200,
            Headers {
                expires: Some("Thu, 01 Jan 1970 01:00:00 GMT"),
                date: Some("Thu, 01 Jan 1970 00:00:00 GMT"),
                ..h()
            },
            Some(rules),
        ),
        4 => http(404, h(), None),
        5 => http(
            429,
            Headers {
                retry_after: Some("7200"),
                ..h()
            },
            None,
        ),
        6 => http(503, h(), None),
        7 => http(
            503,
            Headers {
                retry_after: Some("999999999"),
                ..h()
            },
            None,
        ),
        8 => Response::Failed(Transport::Timeout),
        9 => http(
            304,
            Headers {
                cache_control: Some("max-age=30"),
                ..h()
            },
            None,
        ),
        10 => http(200, h(), Some(b"<html><body>wait</body></html>")),
        11 => http(
            301,
            Headers {
                location: Some("https://elsewhere.example/robots.txt"),
                ..h()
            },
            None,
        ),
        _ => http(500, h(), None),
    }
}

fn fetched(host: &str, options: &FetchOptions, i: usize, now: u64) -> Fetched {
    let robots = format!("{host}/robots.txt");
    match Fetch::new(&robots, options)
        .unwrap()
        .answer(response(i), now)
    {
        Step::Done(f) => f,
        Step::Follow(u) => panic!("followed to {u}"),
    }
}

/// A cache for `agent` with the default rules.
fn cache(agent: &str, limits: CacheLimits) -> Cache {
    Cache::new(
        agent,
        CompileOptions::default(),
        FetchOptions::default(),
        limits,
    )
    .unwrap()
}

#[derive(Clone, Debug)]
enum Op {
    Ask(usize),
    Report(usize, usize),
}

fn ops() -> impl Strategy<Value = Vec<(u64, Op)>> {
    let op = prop_oneof![
        (0..HOSTS.len()).prop_map(Op::Ask),
        (0..HOSTS.len(), 0..13usize).prop_map(|(h, r)| Op::Report(h, r)),
    ];
    // Steps from nothing to past a month: holds, retries and outages.
    let dt = prop_oneof![0..200u64, 0..90_000u64, 0..3_000_000u64];
    proptest::collection::vec((dt, op), 1..120)
}

/// Runs `ops` on a cache with `limits`; `exact`: no eviction can happen,
/// so fetch-now and wait are checked exactly too.
fn run(ops: &[(u64, Op)], limits: CacheLimits, exact: bool) -> Result<(), TestCaseError> {
    let options = FetchOptions::default();
    let mut cache = cache("ExampleBot", limits);
    // host → (reported at, the fetch's hold); host → fetch began at.
    let mut reported: HashMap<usize, (u64, u64)> = HashMap::new();
    let mut inflight: HashMap<usize, u64> = HashMap::new();
    let mut now = 1_000_000;
    for (dt, op) in ops {
        now += dt;
        match *op {
            Op::Report(h, r) => {
                let f = fetched(HOSTS[h], &options, r, now);
                prop_assert!(f.hold <= options.max_hold);
                let k = cache.report(HOSTS[h], &f, now);
                prop_assert!(
                    k.until <= now + f.hold,
                    "{:?} after {f:?}",
                    (k.decision, k.until)
                );
                reported.insert(h, (now, f.hold));
                inflight.remove(&h);
            }
            Op::Ask(h) => {
                let fresh = reported.get(&h).is_some_and(|&(at, hold)| now < at + hold);
                let busy = inflight
                    .get(&h)
                    .is_some_and(|&t| now < t + limits.fetch_timeout);
                match cache.ask(HOSTS[h], now) {
                    Ask::Use(k) => {
                        // The one property that holds whatever was evicted.
                        let (at, hold) = reported[&h];
                        prop_assert!(
                            now < k.until && k.until <= at + hold,
                            "{:?}",
                            (k.decision, k.until)
                        );
                        prop_assert!(k.until <= at + options.max_hold);
                        prop_assert!(fresh);
                    }
                    Ask::FetchNow => {
                        if exact {
                            prop_assert!(!fresh && !busy, "fetch now at {now}");
                        }
                        inflight.insert(h, now);
                    }
                    Ask::Wait => {
                        // (An evicted host's decision is gone: it waits.)
                        prop_assert!(busy && (!fresh || !exact), "wait at {now}");
                    }
                }
            }
        }
        prop_assert!(cache.len() <= limits.max_hosts.max(1));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        if std::env::var_os("ROBOCC_FULL").is_some() { 4096 } else { 256 }
    ))]

    #[test]
    fn no_decision_outlives_its_hold(ops in ops()) {
        run(&ops, CacheLimits::default(), true)?;
    }

    #[test]
    fn eviction_keeps_the_bounds_and_the_holds(ops in ops()) {
        let limits = CacheLimits { max_hosts: 2, max_bytes: 2_000, fetch_timeout: 60 };
        run(&ops, limits, false)?;
    }
}

#[test]
fn a_byte_bound_drops_the_least_recently_asked() {
    let options = FetchOptions::default();
    let limits = CacheLimits {
        max_hosts: 1000,
        max_bytes: 64 << 10,
        fetch_timeout: 60,
    };
    let mut cache = cache("ExampleBot", limits);
    let body: Vec<u8> = b"User-agent: *\nDisallow: /x\n"
        .iter()
        .copied()
        .cycle()
        .take(8 << 10)
        .collect();
    for i in 0..40u64 {
        let host = format!("https://h{i}.example");
        let mut fetch = Fetch::new(&format!("{host}/robots.txt"), &options).unwrap();
        let ok = Response::Http {
            status: 200,
            headers: Headers::default(),
            body: Some(&body),
        };
        let Step::Done(f) = fetch.answer(ok, i) else {
            unreachable!()
        };
        cache.report(&host, &f, i);
        assert!(cache.bytes() <= limits.max_bytes, "{}", cache.bytes());
    }
    assert!(cache.len() < 40);
    // The latest host is held, the first is gone.
    assert!(matches!(cache.ask("https://h39.example", 40), Ask::Use(_)));
    assert_eq!(
        cache.check("https://h0.example", b"https://h0.example/", 40),
        Ask::FetchNow
    );
}

#[test]
fn checks_on_held_hosts_allocate_nothing() {
    let options = FetchOptions::default();
    let mut cache = cache("Googlebot", CacheLimits::default());
    let real = std::fs::read(
        robocc_testkit::paths::root().join("corpus/real/texting_robots__twitter.robots.txt"),
    )
    .unwrap();
    let now = 1_000;
    let mut report = |host: &str, response: Response<'_>, now: u64| {
        let mut fetch = Fetch::new(&format!("{host}/robots.txt"), &options).unwrap();
        let Step::Done(f) = fetch.answer(response, now) else {
            unreachable!()
        };
        cache.report(host, &f, now).decision
    };
    let ok = Response::Http {
        status: 200,
        headers: Headers::default(),
        body: Some(&real),
    };
    let gone = Response::Http {
        status: 404,
        headers: Headers::default(),
        body: None,
    };
    let down = Response::Failed(Transport::Dns);
    assert_eq!(report(HOSTS[0], ok, now), Decision::Rules);
    assert_eq!(report(HOSTS[1], gone, now), Decision::AllowAll);
    assert_eq!(report(HOSTS[2], down, now), Decision::DisallowAll);
    // Kept through an outage: the last good rules.
    assert_eq!(report(HOSTS[3], ok, now), Decision::Rules);
    assert_eq!(report(HOSTS[3], down, now + 1), Decision::Rules);
    // The compiled policy, built once (its one allocation burst).
    for host in [HOSTS[0], HOSTS[3]] {
        let Ask::Use(k) = cache.ask(host, now + 2) else {
            panic!("{host} not held")
        };
        assert!(k.rules.as_ref().unwrap().promote());
    }
    let urls: Vec<String> = ["/", "/search", "/i/api/x", "/settings?x=1", "/a/b/c"]
        .iter()
        .flat_map(|p| HOSTS.iter().map(move |h| format!("{h}{p}")))
        .collect();
    let ask_all = |cache: &mut Cache| {
        let mut allowed = [0usize; 2];
        for (i, url) in urls.iter().enumerate() {
            let host = HOSTS[i % HOSTS.len()];
            match cache.check(host, url.as_bytes(), now + 3) {
                Ask::Use(v) => allowed[usize::from(v.allowed)] += 1,
                other => panic!("{host}: {other:?}"),
            }
        }
        allowed
    };
    let warm = ask_all(&mut cache);
    assert!(warm[0] > 0 && warm[1] > 0, "{warm:?}");
    let mut again = [0; 2];
    let n = allocations_during(|| {
        for _ in 0..50 {
            again = ask_all(&mut cache);
        }
    });
    assert_eq!((n, again), (0, warm));
}
