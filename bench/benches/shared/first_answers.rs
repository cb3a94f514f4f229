//! First answers: what it costs to answer N URLs from a freshly fetched
//! robots.txt (issue 43), per file, in one process, against texting_robots
//! (parses once, checks many) and Google's matcher ported to Rust
//! (`robotstxt`, which parses per query). Included by the `report` and
//! `first` benches.

use robocc_compiler::{compile, Checker, CompileOptions, Promotion};
use robocc_engine::PolicyFile;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// The URL counts of the total-cost table.
const COUNTS: [usize; 4] = [1, 10, 100, 1_000];
/// The large count, measured on every `BIG_STEP`th file of the sample.
const BIG: usize = 100_000;
const BIG_STEP: usize = 8;
/// URLs of the steady-state comparison.
const STEADY_URLS: usize = 20_000;

/// Nanoseconds one call of `f` takes: the median of a few batches, each
/// long enough for the clock (≥ ~200 µs), after one warm-up call.
fn per_call_ns(mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    f();
    let first = t.elapsed();
    let per_batch = (Duration::from_micros(200).as_nanos() / first.as_nanos().max(1)).max(1) as u32;
    let batches = if first > Duration::from_millis(20) {
        3
    } else {
        5
    };
    let mut times: Vec<f64> = (0..batches)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            t.elapsed().as_nanos() as f64 / f64::from(per_batch)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The implementations compared, each answering the first `n` URLs of a
/// list (cycling) from the body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// texting_robots: `Robot::new`, then `allowed`.
    Texting,
    /// robotstxt: parses the body for every query (its API).
    Google,
    /// `Checker::new`, then `check` (promotes by itself).
    Checker,
    /// `Checker` that never promotes: interprets every check.
    Interpret,
    /// compile → to_bytes → `PolicyFile::from_aligned` → `check`.
    Compiled,
}

fn answer(way: Way, body: &[u8], text: &str, urls: &[String], n: usize) {
    let agent = "Googlebot";
    let each = urls.iter().cycle().take(n);
    match way {
        Way::Texting => {
            let r = texting_robots::Robot::new(agent, body).unwrap();
            for u in each {
                black_box(r.allowed(u));
            }
        }
        Way::Google => {
            for u in each {
                let mut m = robotstxt::DefaultMatcher::default();
                black_box(m.one_agent_allowed_by_robots(text, agent, u));
            }
        }
        Way::Checker | Way::Interpret => {
            let promotion = if way == Way::Checker {
                Promotion::Auto
            } else {
                Promotion::Never
            };
            let c = Checker::with_promotion(body, agent, &CompileOptions::default(), promotion)
                .unwrap();
            for u in each {
                black_box(c.check(u.as_bytes()));
            }
        }
        Way::Compiled => {
            let c = compile(body, agent, &CompileOptions::default()).unwrap();
            let f = PolicyFile::from_aligned(c.to_bytes()).unwrap();
            let p = f.policy();
            for u in each {
                black_box(p.check(u.as_bytes()));
            }
        }
    }
}

/// Quantile `q` of sorted values.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// Measures every `step`th file of `dir` (those texting_robots parses and
/// robocc compiles), `urls` URLs each, and writes the tables to `out`.
pub fn first_answers(dir: &Path, step: usize, urls_per_file: usize, out: &mut String) {
    let files = robocc_testkit::corpus::txt_files(dir);
    let ways = [
        Way::Texting,
        Way::Google,
        Way::Checker,
        Way::Interpret,
        Way::Compiled,
    ];
    // Per count: per way, per file, nanoseconds.
    let mut cost: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); ways.len()]; COUNTS.len() + 1];
    let mut first_verdict: Vec<(f64, f64)> = Vec::new();
    let mut compile_us: Vec<f64> = Vec::new();
    // Promoted checker ÷ precompiled policy, per file.
    let mut steady: Vec<f64> = Vec::new();
    let mut measured = 0usize;
    for path in files.iter().step_by(step) {
        let body = std::fs::read(path).unwrap();
        if texting_robots::Robot::new("Googlebot", &body).is_err() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(compiled) = compile(&body, "Googlebot", &CompileOptions::default()) else {
            continue;
        };
        let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
        let mut paths =
            robocc_testkit::urlgen::workload(seed, compiled.rule_set.patterns(), urls_per_file);
        robocc_bench::shuffle(&mut paths);
        let urls: Vec<String> = paths
            .iter()
            .map(|u| format!("https://example.com{}", String::from_utf8_lossy(u)))
            .collect();
        let text = String::from_utf8_lossy(&body).into_owned();
        compile_us.push(
            per_call_ns(|| {
                let c = compile(&body, "Googlebot", &CompileOptions::default()).unwrap();
                black_box(c.to_bytes());
            }) / 1e3,
        );
        for (ci, &n) in COUNTS.iter().enumerate() {
            for (wi, &way) in ways.iter().enumerate() {
                // The Google port parses per query: 1,000 parses of a large
                // file say nothing new.
                if way == Way::Google && n > 100 {
                    continue;
                }
                cost[ci][wi].push(per_call_ns(|| answer(way, &body, &text, &urls, n)));
            }
        }
        first_verdict.push((
            cost[0][2][cost[0][2].len() - 1],
            cost[0][0][cost[0][0].len() - 1],
        ));
        if measured % BIG_STEP == 0 {
            // Steady state: a promoted checker against the policy it holds,
            // on the same URLs, timed in turn.
            let checker = Checker::with_promotion(
                &body,
                "Googlebot",
                &CompileOptions::default(),
                Promotion::Now,
            )
            .unwrap();
            let file = PolicyFile::from_aligned(compiled.to_bytes()).unwrap();
            let policy = file.policy();
            // 20,000 shuffled URLs: more than a branch predictor learns.
            let mut many = robocc_testkit::urlgen::workload(
                seed ^ 1,
                compiled.rule_set.patterns(),
                STEADY_URLS,
            );
            robocc_bench::shuffle(&mut many);
            let (c, p) = robocc_bench::median_times_paired(
                5,
                || {
                    for u in &many {
                        black_box(checker.check(black_box(u)));
                    }
                },
                || {
                    for u in &many {
                        black_box(policy.check(black_box(u)));
                    }
                },
            );
            steady.push(c.as_secs_f64() / p.as_secs_f64());
            for (wi, &way) in ways.iter().enumerate() {
                if matches!(way, Way::Google | Way::Interpret) {
                    continue;
                }
                let t = Instant::now();
                answer(way, &body, &text, &urls, BIG);
                cost[COUNTS.len()][wi].push(t.elapsed().as_nanos() as f64);
            }
        }
        measured += 1;
    }
    let _ = writeln!(
        out,
        "\n## First answers: the cost of N URLs from a fetched body\n\n\
         Every {step}th file of ../shared/corpus/real ({measured} files that texting_robots \
         parses), agent Googlebot, {urls_per_file} URLs per file generated from its own patterns \
         (shuffled, cycled past {urls_per_file}). Each cost is the whole job from the body's \
         bytes: robocc `Checker::new` + N `check` (it interprets, then promotes itself); \
         *interpret* the same checker never promoting; *compile first* `compile` + `to_bytes` + \
         `PolicyFile::from_aligned` + N `check`; texting_robots `Robot::new` + N `allowed`; \
         robotstxt parses per query (N ≤ 100). Per file, the ratio to texting_robots; then the \
         median, p90 and p99 of the ratios over files. N = {BIG} on every {BIG_STEP}th of \
         those files, once each.\n"
    );
    let _ = writeln!(
        out,
        "| N | Checker ÷ texting (median / p90 / p99) | interpret ÷ texting | compile first ÷ texting | robotstxt ÷ texting | texting_robots median µs | Checker median µs |"
    );
    let _ = writeln!(out, "|---:|---|---|---|---|---:|---:|");
    for (ci, n) in COUNTS.iter().chain([BIG].iter()).enumerate() {
        let ratios = |wi: usize| -> String {
            let t = &cost[ci][0];
            let w = &cost[ci][wi];
            if w.is_empty() || w.len() != t.len() {
                return "—".into();
            }
            let r = sorted(w.iter().zip(t).map(|(a, b)| a / b).collect());
            format!(
                "{:.2}× / {:.2}× / {:.2}×",
                quantile(&r, 0.5),
                quantile(&r, 0.9),
                quantile(&r, 0.99)
            )
        };
        let med = |wi: usize| {
            let v = sorted(cost[ci][wi].clone());
            if v.is_empty() {
                0.0
            } else {
                quantile(&v, 0.5) / 1e3
            }
        };
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {} | {:.1} | {:.1} |",
            ratios(2),
            ratios(3),
            ratios(4),
            ratios(1),
            med(0),
            med(2)
        );
    }
    // The ski-rental promise: never much worse than the better of the two
    // pure strategies, chosen in hindsight.
    let mut regret: Vec<f64> = Vec::new();
    for per_way in &cost[..COUNTS.len()] {
        for (f, &c) in per_way[2].iter().enumerate() {
            regret.push(c / per_way[3][f].min(per_way[4][f]));
        }
    }
    let regret = sorted(regret);
    let fv = sorted(first_verdict.iter().map(|(c, t)| c / t).collect());
    let steady = sorted(steady);
    let _ = writeln!(
        out,
        "\nSteady state (a promoted `Checker` ÷ the precompiled `Policy`, {STEADY_URLS} shuffled \
         URLs each, paired runs, {} files): median {:.2}×, p90 {:.2}×, max {:.2}×.",
        steady.len(),
        quantile(&steady, 0.5),
        quantile(&steady, 0.9),
        steady[steady.len() - 1]
    );
    let cu = sorted(compile_us);
    let mean = cu.iter().sum::<f64>() / cu.len().max(1) as f64;
    let _ = writeln!(
        out,
        "\nFirst verdict (`Checker::new` + one `check` ÷ `Robot::new` + one `allowed`): median \
         {:.2}×, p99 {:.2}×. Checker ÷ the better of interpret-only and compile-first, per file \
         and N (hindsight): median {:.2}×, p99 {:.2}×, max {:.2}×. Compile (+ `to_bytes`) of \
         these files: mean {mean:.0} µs, median {:.0} µs, p90 {:.0} µs, p99 {:.0} µs, max {:.0} µs.",
        quantile(&fv, 0.5),
        quantile(&fv, 0.99),
        quantile(&regret, 0.5),
        quantile(&regret, 0.99),
        regret[regret.len() - 1],
        quantile(&cu, 0.5),
        quantile(&cu, 0.9),
        quantile(&cu, 0.99),
        cu[cu.len() - 1],
    );
}
