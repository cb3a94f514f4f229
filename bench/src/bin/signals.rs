//! AI-usage preference channels (issue 18): checks per second with all
//! channels. Real robots.txt files with Content-Usage and Content-Signal
//! lines synthesised into them (`robocc_testkit::signals::synthesize`, as
//! the differential test does), compiled for `signalbot` with the training
//! token `Google-Extended`; on the same absolute URLs in one process, timed
//! in turn each round (medians):
//!
//! * `check`: crawl only;
//! * `preference(url, TrainAi)`: one preference channel;
//! * `usage_states`: crawl and the three channels from one walk;
//! * four calls: `check` and `preference` on each of the three channels;
//! * the independent oracle (`reference::signals`): one channel, and crawl
//!   plus the three channels (it gets a tenth of the URLs, scaled up).
//!
//! `cargo run --release -p robocc-bench --bin signals -- [FILE…] [--files N] [--urls N] [--rounds R]`
//!
//! Default: a fixed sample of `../shared/corpus/real` (every k-th file by
//! name, `--files` of them, 40 by default), 20,000 URLs per file (`robocc_bench::URLS`). Files whose
//! statements were dropped (they did not fit the automaton budget with the
//! rules: one crawl channel, every preference unknown) or where none was
//! synthesised for the agent are left out and counted.

use robocc_bench::Workload;
use robocc_compiler::{CompileOptions, DiagCode};
use robocc_engine::{Policy, Usage};
use robocc_reference::{Channel, SignalsOracle};
use robocc_testkit::signals::{synthesize, AGENT, TRAINING_AGENT};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One compiled file of the sample.
struct Case {
    body: Vec<u8>,
    bytes: robocc_engine::AlignedBytes,
    urls: Vec<String>,
}

fn main() {
    let mut count = robocc_bench::URLS;
    let mut rounds = 31;
    let mut sample = 40;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args =
        robocc_bench::args::Args::new("signals [FILE...] [--urls N] [--files N] [--rounds R]");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--urls" => count = args.urls(),
            "--files" => sample = args.number("--files", 1..=100_000),
            "--rounds" => rounds = args.rounds(),
            _ => files.push(PathBuf::from(args.operand(a))),
        }
    }
    if files.is_empty() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/real");
        let all = robocc_testkit::corpus::txt_files(&dir);
        let step = (all.len() / sample.max(1)).max(1);
        files = all.into_iter().step_by(step).take(sample).collect();
    }
    let training = vec![TRAINING_AGENT.to_string()];
    let options = CompileOptions {
        training_agents: training.clone(),
        ..CompileOptions::default()
    };
    let mut cases = Vec::new();
    let (mut dropped, mut silent) = (0, 0);
    for (i, path) in files.iter().enumerate() {
        let body = robocc_bench::args::read(path);
        let synth = synthesize(&body, i as u64);
        let name = path.display().to_string();
        let w = Workload::with_options(&name, synth, AGENT, count, &options);
        let cut = w
            .compiled
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::SignalsDropped);
        if cut {
            dropped += 1;
            continue;
        }
        if w.compiled.rule_set.signals().is_none() {
            silent += 1;
            continue;
        }
        cases.push(Case {
            bytes: w.compiled.to_bytes(),
            urls: w.absolute_urls(),
            body: w.body,
        });
    }
    let policies: Vec<Policy<'_>> = cases
        .iter()
        .map(|c| Policy::from_bytes(&c.bytes).unwrap())
        .collect();
    let oracles: Vec<SignalsOracle> = cases
        .iter()
        .map(|c| SignalsOracle::new(&c.body, AGENT, &training))
        .collect();
    let urls: Vec<Vec<&[u8]>> = cases
        .iter()
        .map(|c| c.urls.iter().map(|u| u.as_bytes()).collect())
        .collect();
    // The oracle is slow: it gets a tenth of each file's URLs.
    let few: Vec<&[&[u8]]> = urls.iter().map(|u| &u[..u.len().div_ceil(10)]).collect();
    let total: usize = urls.iter().map(Vec::len).sum();
    let few_total: usize = few.iter().map(|u| u.len()).sum();
    let channels = [Channel::Search, Channel::TrainAi, Channel::AiInput];
    // The six measurements; each round starts at the next one, so that a
    // busy moment of a shared machine does not always hit the same one.
    let ops: [&dyn Fn(); 6] = [
        &|| {
            each_url(&policies, &urls, |p, u| {
                black_box(p.check(black_box(u)));
            })
        },
        &|| {
            each_url(&policies, &urls, |p, u| {
                black_box(p.preference(black_box(u), black_box(Usage::TrainAi)));
            })
        },
        &|| {
            each_url(&policies, &urls, |p, u| {
                black_box(p.usage_states(black_box(u)));
            })
        },
        &|| {
            each_url(&policies, &urls, |p, u| {
                black_box(p.check(black_box(u)));
                for &s in Usage::SIGNALS {
                    black_box(p.preference(black_box(u), black_box(s)));
                }
            })
        },
        &|| {
            each_url(&oracles, &few, |o, u| {
                black_box(o.check(black_box(u), Channel::TrainAi));
            })
        },
        &|| {
            each_url(&oracles, &few, |o, u| {
                black_box(o.crawl_allowed(black_box(u)));
                for &c in &channels {
                    black_box(o.check(black_box(u), c));
                }
            })
        },
    ];
    let mut times: [Vec<Duration>; 6] = Default::default();
    for round in 0..rounds {
        for k in 0..ops.len() {
            let i = (round + k) % ops.len();
            let t = Instant::now();
            ops[i]();
            times[i].push(t.elapsed());
        }
    }
    // Checks (URLs answered) per second, from the median round.
    let rate = |mut v: Vec<Duration>, n: usize| {
        v.sort();
        n as f64 / v[v.len() / 2].as_secs_f64()
    };
    let [check, one, states, four, oracle_one, oracle_all] = times;
    let (check, one, states, four) = (
        rate(check, total),
        rate(one, total),
        rate(states, total),
        rate(four, total),
    );
    let (oracle_one, oracle_all) = (rate(oracle_one, few_total), rate(oracle_all, few_total));
    let rules: usize = policies.iter().map(|p| p.rule_count()).sum();
    println!(
        "{} files with synthesised statements (left out: {dropped} whose statements were \
         dropped, {silent} with none for the agent), \
         agent {AGENT}, training token {TRAINING_AGENT}, {rules} rules, {total} URLs \
         ({few_total} for the oracle), {rounds} rounds (medians)",
        cases.len()
    );
    println!("| API | checks/s | ns/check | vs check | vs oracle |");
    println!("|---|---:|---:|---:|---:|");
    let row = |name: &str, r: f64, oracle: Option<f64>| {
        println!(
            "| {name} | {} | {:.0} | {} | {} |",
            group(r),
            1e9 / r,
            if r / check < 0.1 {
                format!("{:.3}×", r / check)
            } else {
                format!("{:.2}×", r / check)
            },
            oracle.map_or("".to_string(), |o| format!("{:.0}×", r / o))
        );
    };
    row("check (crawl only)", check, None);
    row("preference(url, TrainAi)", one, Some(oracle_one));
    row(
        "usage_states (crawl + 3 channels, one walk)",
        states,
        Some(oracle_all),
    );
    row("four calls (check + 3 preference)", four, Some(oracle_all));
    row("oracle, train-ai", oracle_one, Some(oracle_one));
    row("oracle, crawl + 3 channels", oracle_all, Some(oracle_all));
}

/// `f` on each file's checker (a policy, an oracle) and each of its URLs.
#[inline(always)]
fn each_url<'a, C, U: AsRef<[&'a [u8]]>>(checkers: &[C], urls: &[U], f: impl Fn(&C, &[u8])) {
    for (c, us) in checkers.iter().zip(urls) {
        for u in us.as_ref() {
            f(c, u);
        }
    }
}

/// `n` with thousands separators.
fn group(n: f64) -> String {
    let s = format!("{:.0}", n);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
