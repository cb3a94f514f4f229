//! The performance report: robocc against the reference matcher and the
//! parsers people use, on a fixed workload, without criterion's long
//! sampling. Prints markdown and writes docs/PERFORMANCE.md.
//!
//! `cargo bench -p robocc-bench --bench report` — the full report.
//! Under `cargo test` (no `--bench` argument; the lib's unit test
//! `report_smoke` runs this file's `main`) it runs a tiny workload and only
//! checks that every measurement can be taken.

use robocc_bench::{median_time, Workload};
use robocc_engine::{Policy, Store};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The workloads: (role, file in corpus/real).
const FILES: &[(&str, &str)] = &[
    ("tiny", "protego__www.mayoclinic.org.txt"),
    ("typical", "texting_robots__twitter.robots.txt"),
    ("typical, 116 rules", "protego__www.audible.com.txt"),
    ("wildcards and $", "protego__www.pinterest.com.txt"),
    ("large (3,000+ rules)", "protego__www.uber.com.txt"),
    ("blow-up fallback", "texting_robots__zillow.robots.txt"),
];

struct Config {
    full: bool,
    urls: usize,
    runs: usize,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Checks per second of `f` over `n` items, median of `runs`.
fn rate(n: usize, runs: usize, f: impl FnMut()) -> f64 {
    n as f64 / median_time(runs, f).as_secs_f64()
}

struct Row {
    role: &'static str,
    name: String,
    rules: usize,
    automata: usize,
    artifact: usize,
    compile_us: f64,
    engine: f64,
    batch: f64,
    /// The same file compiled with `Layout::Dense`: artifact bytes, checks/s.
    dense_artifact: usize,
    dense: f64,
    reference: f64,
    texting: f64,
    google: f64,
    floor: f64,
    url_bytes: f64,
    read_bytes: f64,
}

fn measure(role: &'static str, file: &str, cfg: &Config) -> Row {
    let body = std::fs::read(root().join("corpus/real").join(file)).unwrap();
    let w = Workload::new(file, body.clone(), "Googlebot", cfg.urls);
    // Every implementation gets the same absolute URLs.
    let urls = w.absolute_urls();
    let n = urls.len();
    let bytes = w.compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap();
    let compile = median_time(cfg.runs, || {
        black_box(robocc_compiler::compile(&body, "Googlebot", &Default::default()).unwrap());
    });
    let (engine, batch) = single_and_batch(&policy, &urls, cfg.runs);
    let dense_options = robocc_compiler::CompileOptions {
        budget: robocc_compiler::Budget {
            layout: robocc_compiler::Layout::Dense,
            ..Default::default()
        },
        ..Default::default()
    };
    let dense_bytes = robocc_compiler::compile(&body, "Googlebot", &dense_options)
        .unwrap()
        .to_bytes();
    let dense_policy = Policy::from_bytes(&dense_bytes).unwrap();
    let dense = rate(n, cfg.runs, || {
        for u in &urls {
            black_box(dense_policy.check(black_box(u.as_bytes())));
        }
    });
    for u in &urls {
        assert_eq!(
            dense_policy.check(u.as_bytes()),
            policy.check(u.as_bytes()),
            "{u}"
        );
    }
    let set = &w.compiled.rule_set;
    let reference = rate(n, cfg.runs.min(3), || {
        for u in &urls {
            black_box(robocc_reference::check_url(set, u.as_bytes()));
        }
    });
    let robot = texting_robots::Robot::new("Googlebot", &body).unwrap();
    let texting = rate(n, cfg.runs.min(3), || {
        for u in &urls {
            black_box(robot.allowed(black_box(u)));
        }
    });
    // The Google port re-parses the file for every query: that is its API.
    let text = String::from_utf8_lossy(&body).into_owned();
    let sample: Vec<&String> = urls.iter().step_by(20).collect();
    let google = rate(sample.len(), cfg.runs.min(3), || {
        for u in &sample {
            let mut m = robotstxt::DefaultMatcher::default();
            black_box(m.one_agent_allowed_by_robots(&text, "Googlebot", u));
        }
    });
    // The floor: reading the same URL bytes once, nothing else.
    let floor = rate(n, cfg.runs, || {
        for u in &urls {
            black_box(memchr::memchr(0, black_box(u.as_bytes())));
        }
    });
    let read: usize = urls
        .iter()
        .map(|u| policy.check_traced(u.as_bytes()).bytes_read)
        .sum();
    Row {
        role,
        name: file.to_string(),
        rules: w.compiled.data.rules.len(),
        automata: w.compiled.data.automata.len(),
        artifact: bytes.len(),
        compile_us: compile.as_secs_f64() * 1e6,
        engine,
        batch,
        dense_artifact: dense_bytes.len(),
        dense,
        reference,
        texting,
        google,
        floor,
        url_bytes: urls.iter().map(String::len).sum::<usize>() as f64 / n as f64,
        read_bytes: read as f64 / n as f64,
    }
}

/// Checks per second through `Policy::check` and through
/// `Policy::check_batch` in batches of 1,000 URLs (a crawler's frontier
/// batch), timed in turn; the batch answers are checked against `check`.
fn single_and_batch(policy: &Policy<'_>, urls: &[String], runs: usize) -> (f64, f64) {
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let none = robocc_engine::Verdict {
        allowed: false,
        rule: None,
    };
    let mut out = vec![none; refs.len()];
    policy.check_batch(&refs, &mut out);
    for (u, v) in refs.iter().zip(&out) {
        assert_eq!(policy.check(u), *v);
    }
    let (single, batch) = robocc_bench::median_times_paired(
        runs,
        || {
            for u in &refs {
                black_box(policy.check(black_box(u)));
            }
        },
        || {
            for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
                policy.check_batch(black_box(u), o);
            }
            black_box(&out);
        },
    );
    let n = refs.len() as f64;
    (n / single.as_secs_f64(), n / batch.as_secs_f64())
}

/// Issue 13's workload: files of the shared corpus spread over all sizes
/// (every `len / count`-th by size), as many URLs each as the workloads
/// above (`robocc_bench::URLS` in the full run) from the file's own
/// patterns, absolute; robocc single and batch against texting_robots, the
/// reference's plain longest-match scan and the memchr floor, per file.
fn spread(cfg: &Config, out: &mut String) {
    let dir = root().join("../shared/corpus/real");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        let _ = writeln!(
            out,
            "\n(../shared/corpus/real absent: spread workload skipped)"
        );
        return;
    };
    let mut files: Vec<(u64, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .collect();
    files.sort();
    let count = if cfg.full { 48 } else { 2 };
    let step = (files.len() / count).max(1);
    struct S {
        engine: f64,
        batch: f64,
        texting: f64,
        scan: f64,
        floor: f64,
        states_large: bool,
    }
    let mut rows = Vec::new();
    for (_, path) in files.iter().step_by(step).take(count) {
        let body = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(robot) = texting_robots::Robot::new("Googlebot", &body) else {
            continue;
        };
        let w = Workload::new(&name, body.clone(), "Googlebot", cfg.urls);
        let urls = w.absolute_urls();
        let n = urls.len();
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let runs = cfg.runs;
        let (engine, batch) = single_and_batch(&policy, &urls, runs);
        let texting = rate(n, runs.min(5), || {
            for u in &urls {
                black_box(robot.allowed(black_box(u)));
            }
        });
        let set = &w.compiled.rule_set;
        let scan = rate(n, runs.min(5), || {
            for u in &urls {
                black_box(robocc_reference::check_url(set, u.as_bytes()));
            }
        });
        let floor = rate(n, runs, || {
            for u in &urls {
                black_box(memchr::memchr(0, black_box(u.as_bytes())));
            }
        });
        let program: usize = policy.sizes().program_bytes;
        rows.push(S {
            engine,
            batch,
            texting,
            scan,
            floor,
            states_large: program >= 64 * 1024,
        });
    }
    if rows.is_empty() {
        return;
    }
    let med = |f: &dyn Fn(&S) -> f64| median(rows.iter().map(f).collect());
    let _ = writeln!(
        out,
        "\n## {} files across sizes (issue 13's workload)\n\n\
         Every {step}th file of ../shared/corpus/real by size (those texting_robots parses), \
         {} absolute URLs each from the file's own patterns (as many as the workloads above: \
         this machine's branch predictor learns a sequence of up to ~10,000 checks repeated in \
         order, which ran twitter's 1.5× as fast as the same URLs shuffled; \
         docs/performance-log.md); medians \
         over files of each file's median rate ({} runs).\n",
        rows.len(),
        cfg.urls,
        cfg.runs
    );
    let _ = writeln!(out, "| measure | median |\n|---|---:|");
    // Issue 13 asks for 50× texting_robots and for 2× of the floor on the
    // same files: the last row shows how far apart the two targets are.
    let above = rows.iter().filter(|r| 50.0 * r.texting > r.floor).count();
    let single_batch = |digits: usize, f: &dyn Fn(&S) -> f64, g: &dyn Fn(&S) -> f64| {
        format!("{:.digits$}× / {:.digits$}×", med(f), med(g))
    };
    let measures = [
        (
            "robocc check",
            format!("{:.1} M/s", med(&|r| r.engine) / 1e6),
        ),
        (
            "robocc check_batch",
            format!("{:.1} M/s", med(&|r| r.batch) / 1e6),
        ),
        (
            "batch ÷ single (per file)",
            format!("{:.2}×", med(&|r| r.batch / r.engine)),
        ),
        (
            "robocc ÷ texting_robots (single / batch)",
            single_batch(0, &|r| r.engine / r.texting, &|r| r.batch / r.texting),
        ),
        (
            "robocc ÷ plain longest-match scan (single / batch)",
            single_batch(0, &|r| r.engine / r.scan, &|r| r.batch / r.scan),
        ),
        (
            "floor ÷ robocc (single / batch)",
            single_batch(1, &|r| r.floor / r.engine, &|r| r.floor / r.batch),
        ),
        (
            "50× texting_robots as a rate ÷ the floor's rate (files where it is above 1)",
            format!(
                "{:.2}× ({above} of {})",
                med(&|r| 50.0 * r.texting / r.floor),
                rows.len()
            ),
        ),
    ];
    table_rows(out, &measures);
    let large: Vec<&S> = rows.iter().filter(|r| r.states_large).collect();
    if !large.is_empty() {
        let _ = writeln!(
            out,
            "| files with ≥ 64 KiB of program ({}): slowest single / batch | {:.1} / {:.1} M/s |",
            large.len(),
            large.iter().map(|r| r.engine).fold(f64::MAX, f64::min) / 1e6,
            large.iter().map(|r| r.batch).fold(f64::MAX, f64::min) / 1e6,
        );
    }
}

/// Two-column rows: `| what | value |`.
fn table_rows(out: &mut String, rows: &[(&str, String)]) {
    for (what, value) in rows {
        let _ = writeln!(out, "| {what} | {value} |");
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or("unknown".into(), |o| {
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        });
    format!("{cores} cores, {cpu}; commit {commit}")
}

/// Loading: validation from bytes, mmap open, store open and lookup, threads.
fn loading(cfg: &Config, out: &mut String) {
    let body =
        std::fs::read(root().join("corpus/real/texting_robots__twitter.robots.txt")).unwrap();
    let c = robocc_compiler::compile(&body, "Googlebot", &Default::default()).unwrap();
    let bytes = c.to_bytes();
    let from_bytes = median_time(cfg.runs * 20, || {
        black_box(Policy::from_bytes(black_box(&bytes)).unwrap());
    });
    let dir = std::env::temp_dir().join(format!("robocc-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("twitter.policy");
    std::fs::write(&path, &bytes[..]).unwrap();
    let open = median_time(cfg.runs * 20, || {
        black_box(robocc_engine::PolicyFile::open(&path).unwrap());
    });
    // A store of every corpus/real host.
    let mut inputs = robocc_testkit::corpus::inputs(&root().join("corpus/real"));
    if !cfg.full {
        inputs.truncate(5);
    }
    let t = Instant::now();
    let (store_bytes, report) = robocc_store::StoreBuilder::new("Googlebot")
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    let build = t.elapsed();
    let store_path = dir.join("corpus.store");
    std::fs::write(&store_path, &store_bytes[..]).unwrap();
    let store_open = median_time(cfg.runs, || {
        black_box(Store::open(&store_path).unwrap());
    });
    let store = Store::open(&store_path).unwrap();
    let lookups: Vec<String> = inputs
        .iter()
        .map(|i| format!("https://{}/some/path?x=1", i.host))
        .collect();
    let rounds = (cfg.urls / lookups.len()).max(1);
    let store_rate = rate(rounds * lookups.len(), cfg.runs, || {
        for _ in 0..rounds {
            for u in &lookups {
                black_box(store.check(black_box(u.as_bytes())).unwrap());
            }
        }
    });
    // All cores checking against one shared mmap.
    let file = robocc_engine::PolicyFile::open(&path).unwrap();
    let policy = file.policy();
    let w = Workload::new("twitter", body, "Googlebot", cfg.urls);
    // `n` threads each check the URLs `passes` times; the median of the
    // runs' wall times. Both sides start their threads alike, and a run is
    // long enough (tens of ms) that starting them does not count.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let passes = 20;
    let on_threads = |n: usize| {
        let run = || {
            std::thread::scope(|s| {
                for _ in 0..n {
                    s.spawn(|| {
                        for _ in 0..passes {
                            for u in &w.urls {
                                black_box(policy.check(u));
                            }
                        }
                    });
                }
            });
        };
        rate(n * passes * w.urls.len(), cfg.runs, run)
    };
    let single = on_threads(1);
    let multi = on_threads(threads);
    let _ = writeln!(out, "\n## Loading, stores and threads\n");
    let _ = writeln!(out, "| measurement | value |\n|---|---:|");
    let policy_load = format!(
        "`Policy::from_bytes` (full validation), twitter, {} bytes",
        bytes.len()
    );
    let store_build = format!(
        "store build: {} hosts, {} unique policies, {} bytes",
        report.hosts, report.unique_policies, report.bytes
    );
    let threaded = format!("{threads} threads, one shared mmap, all together");
    let measurements = [
        (
            policy_load.as_str(),
            format!("{:.1} µs", from_bytes.as_secs_f64() * 1e6),
        ),
        (
            "`Policy::open` (mmap + validation), same file",
            format!("{:.1} µs", open.as_secs_f64() * 1e6),
        ),
        (
            store_build.as_str(),
            format!("{:.2} s", build.as_secs_f64()),
        ),
        (
            "`Store::open` (mmap; frame, header and index validated, each policy on its first use)",
            format!("{:.2} ms", store_open.as_secs_f64() * 1e3),
        ),
        (
            "store lookup + check",
            format!("{:.2} M/s", store_rate / 1e6),
        ),
        (
            "one thread, one shared mmap (twitter)",
            format!("{:.2} M checks/s", single / 1e6),
        ),
        (
            threaded.as_str(),
            format!("{:.2} M checks/s ({:.2}x)", multi / 1e6, multi / single),
        ),
    ];
    table_rows(out, &measurements);
    std::fs::remove_dir_all(&dir).ok();
}

/// Compile time over every shared-corpus file (full mode, when present).
fn corpus_compile(out: &mut String) {
    let dir = root().join("../shared/corpus/real");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut times = Vec::new();
    // Per file: source bytes, artifact bytes.
    let mut sizes: Vec<(usize, usize)> = Vec::new();
    let t = Instant::now();
    for e in entries {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let body = std::fs::read(&p).unwrap();
        let s = Instant::now();
        let c = robocc_compiler::compile(&body, "Googlebot", &Default::default()).unwrap();
        times.push(s.elapsed().as_secs_f64() * 1e6);
        sizes.push((body.len(), black_box(c.to_bytes()).len()));
    }
    let total = t.elapsed();
    let n = times.len();
    times.sort_by(f64::total_cmp);
    let _ = writeln!(out, "\n## Compiling the whole shared corpus\n");
    let _ = writeln!(
        out,
        "{n} files for Googlebot in {:.1} s: median {:.0} µs, p90 {:.0} µs, p99 {:.0} µs, max {:.0} µs per file.",
        total.as_secs_f64(),
        times[n / 2],
        times[n * 9 / 10],
        times[n * 99 / 100],
        times[n - 1]
    );
    footprint(&dir, &sizes, out);
}

/// Artifact/source ratios over the whole shared corpus, then a store of all
/// of it: size, build time, the process's peak memory, open time, and host
/// lookup + check time.
fn footprint(dir: &Path, sizes: &[(usize, usize)], out: &mut String) {
    let mut ratio: Vec<f64> = sizes
        .iter()
        .map(|&(src, art)| art as f64 / src.max(1024) as f64)
        .collect();
    ratio.sort_by(f64::total_cmp);
    let n = ratio.len();
    let (src, art): (usize, usize) = sizes.iter().fold((0, 0), |(s, a), &(x, y)| (s + x, a + y));
    let _ = writeln!(out, "\n## Footprint\n");
    let _ = writeln!(
        out,
        "Artifact / source (a source counted as at least 1 KiB), {n} files: median {:.2}×, p90 {:.2}×, p99 {:.2}×, max {:.1}×; all artifacts / all sources {:.2}×.",
        ratio[n / 2],
        ratio[n * 9 / 10],
        ratio[n * 99 / 100],
        ratio[n - 1],
        art as f64 / src as f64
    );
    let inputs = robocc_testkit::corpus::inputs(dir);
    let t = Instant::now();
    let (bytes, report) = robocc_store::StoreBuilder::new("Googlebot")
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    let build = t.elapsed();
    let (open, small) = open_and_look_up(&bytes, "footprint");
    let _ = writeln!(
        out,
        "\nStore of all {} files ({:.1} MB of robots.txt, {} distinct policies): {:.1} MB ({:.2}× the sources), built in {:.1} s in this process (peak resident memory of the whole report so far: {}); opened in {:.1} µs (median).",
        inputs.len(),
        src as f64 / 1e6,
        report.unique_policies,
        bytes.len() as f64 / 1e6,
        bytes.len() as f64 / src as f64,
        build.as_secs_f64(),
        peak_memory(),
        open.as_secs_f64() * 1e6,
    );
    drop(bytes);
    let big = million_hosts(&inputs, out);
    let _ = writeln!(
        out,
        "\n**Host lookup + check**, ns per URL (`robocc_bench::lookup_times`: one URL per host, `https://HOST/some/path?x=1`, hosts in a fixed shuffled order, medians of 9 passes; `cargo run --release -p robocc-bench --bin lookup -- STORE` prints the same for any store). *Line read* is the baseline, timed right after them in as many passes: one read of a random cache line in a buffer as large as the store, each address taken from the line before (`robocc_bench::LineChase`), which is what one trip to memory costs at that size on this machine, that minute (the 4,259-host store's buffer is near the last-level cache's size, so its line read is the least steady):\n\n| store | hosts | key + hash | + index search (`Store::host`) | `Store::check` | `Store::check_batch` (1,000 a call) | line read | `Store::check` ÷ line read |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (name, t) in [("all shared files", small), ("1,000,000 hosts", big)] {
        let _ = writeln!(
            out,
            "| {name} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
            t.urls,
            t.key_hash,
            t.host,
            t.check,
            t.batch,
            t.line_read,
            t.check / t.line_read
        );
    }
}

/// Writes a store to a temporary file, then times opening it (median of
/// 21) and its lookups ([`robocc_bench::lookup_times`]).
fn open_and_look_up(bytes: &[u8], name: &str) -> (Duration, robocc_bench::LookupTimes) {
    let path = std::env::temp_dir().join(format!("robocc-{name}-{}.store", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let open = median_time(21, || {
        black_box(Store::open(&path).unwrap());
    });
    let store = Store::open(&path).unwrap();
    // The report built this store: an error here is a bug.
    let times = robocc_bench::lookup_times(&store, usize::MAX, 9).expect("lookups");
    drop(store);
    let _ = std::fs::remove_file(&path);
    (open, times)
}

/// A store of a million hosts built in this process from the corpus bodies
/// reused round robin, with mixed statuses (`robocc_bench::million`); its
/// size, build time and open time go to `out`, its lookup times are
/// returned.
fn million_hosts(
    inputs: &[robocc_store::HostInput],
    out: &mut String,
) -> robocc_bench::LookupTimes {
    use robocc_bench::million::{host, input, roll, MILLION};
    use robocc_store::StoreBuilder;
    let hosts = robocc_bench::million::hosts(inputs).map(Ok);
    let t = Instant::now();
    let (bytes, report) = StoreBuilder::new("Googlebot").build(hosts).unwrap();
    let build = t.elapsed();
    let size = bytes.len();
    let (open, times) = open_and_look_up(&bytes, "million");
    // A daily rebuild on this store: 1% of the distinct bodies changed (a
    // line added), every other 200 line naming its body file by SHA-256 as
    // a manifest would, so that the build need not read it (the file does
    // not exist: reading it would fail the build). The digests are the
    // sources' as the store recorded them.
    let base = Store::from_slice(&bytes).unwrap();
    let digest = |b: usize| {
        let i = (b..MILLION)
            .step_by(inputs.len())
            .find(|&i| roll(i) < 870)?;
        let url = format!("https://{}/", host(i));
        let info = base.host(url.as_bytes()).unwrap()?;
        Some(base.policy(info.policy).unwrap().header().source_sha256)
    };
    let digests: Vec<Option<[u8; 32]>> = (0..inputs.len()).map(digest).collect();
    let changed = |b: usize| b % 100 == 0;
    let hosts = (0..MILLION).map(|i| {
        let mut h = input(i);
        let b = i % inputs.len();
        if h.status == 200 {
            if changed(b) {
                let mut body = inputs[b].body.clone().unwrap_or_default();
                body.extend_from_slice(b"\n# changed\n");
                h.body = Some(body);
            } else {
                h.body_path = Some(PathBuf::from("not-read.txt"));
                h.sha256 = digests[b];
            }
        }
        Ok(h)
    });
    drop(bytes);
    let t = Instant::now();
    let (rebuilt, rebuild_report) = StoreBuilder::new("Googlebot")
        .base(Some(&base))
        .build(hosts)
        .unwrap();
    let rebuild = t.elapsed();
    let changed_bodies = (0..inputs.len()).filter(|&b| changed(b)).count();
    assert_eq!(
        rebuild_report.compiled, changed_bodies,
        "{rebuild_report:?}"
    );
    assert!(rebuild_report.bodies_skipped > MILLION / 2);
    drop(rebuilt);
    let _ = writeln!(
        out,
        "\nStore of {MILLION} hosts (the corpus bodies round robin; 85% 200, 8% 404, 4% 503, 3% redirects; {} distinct policies): {:.1} MB ({:.0} bytes per host), built in {:.1} s in this process (peak resident memory of the whole report so far: {}); opened in {:.1} µs (median). Rebuilt with this store as its base, 1% of the distinct bodies changed ({changed_bodies}) and every other 200 line naming its body by SHA-256, as a manifest would: {:.2} s ({:.0}% of the build; {} policies compiled, {} reused, {} body files not read).",
        report.unique_policies,
        size as f64 / 1e6,
        size as f64 / MILLION as f64,
        build.as_secs_f64(),
        peak_memory(),
        open.as_secs_f64() * 1e6,
        rebuild.as_secs_f64(),
        100.0 * rebuild.as_secs_f64() / build.as_secs_f64(),
        rebuild_report.compiled,
        rebuild_report.reused,
        rebuild_report.bodies_skipped,
    );
    times
}

/// The process's peak resident set (Linux), or "unknown".
fn peak_memory() -> String {
    robocc_bench::peak_rss().unwrap_or_else(|| "unknown".into())
}

#[path = "shared/first_answers.rs"]
mod first_answers;

pub(crate) fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let cfg = if full {
        Config {
            full,
            urls: robocc_bench::URLS,
            runs: 7,
        }
    } else {
        Config {
            full,
            urls: 200,
            runs: 1,
        }
    };
    let command = "cargo bench -p robocc-bench --bench report";
    let mut out = String::new();
    let _ = writeln!(out, "# robocc performance report\n");
    let _ = writeln!(out, "Machine: {}. Command: `{command}`.\n", machine());
    let _ = writeln!(
        out,
        "Each workload: {} URLs generated (seeded) from the file's own patterns — hits, near misses, \
         query strings, encodings, non-ASCII, random paths — the same absolute URLs for every \
         implementation; agent Googlebot. Rates are medians of {} runs in one process. \
         *reference* is robocc's plain rule-walking matcher; *texting_robots* parses once and \
         checks many; *robotstxt* (Google's matcher ported to Rust) re-parses the file for every \
         query, because that is its API (measured on every 20th URL). *floor* only reads the URL \
         bytes once (memchr). *dense layout* is the same file compiled with `--layout dense` \
         (`Layout::Dense`: a table row for every state; ratio against the default layout).\n",
        cfg.urls, cfg.runs
    );
    let _ = writeln!(out, "| workload | file | rules | automata | artifact bytes | compile µs | robocc checks/s | robocc check_batch | dense layout: bytes, checks/s | reference | texting_robots | robotstxt (per-query parse) | floor | ns/check | ns/URL byte | bytes read / URL bytes |");
    let _ = writeln!(
        out,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let files = if full { FILES } else { &FILES[..2] };
    let rows: Vec<Row> = files
        .iter()
        .map(|(role, f)| measure(role, f, &cfg))
        .collect();
    for r in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.0} | {:.2} M | {:.2} M ({:.2}x) | {}, {:.2} M ({:.2}x) | {:.3} M ({:.0}x) | {:.3} M ({:.0}x) | {:.4} M ({:.0}x) | {:.1} M ({:.1}x of engine) | {:.1} | {:.2} | {:.1} / {:.1} |",
            r.role, r.name, r.rules, r.automata, r.artifact, r.compile_us,
            r.engine / 1e6,
            r.batch / 1e6, r.batch / r.engine,
            r.dense_artifact, r.dense / 1e6, r.dense / r.engine,
            r.reference / 1e6, r.engine / r.reference,
            r.texting / 1e6, r.engine / r.texting,
            r.google / 1e6, r.engine / r.google,
            r.floor / 1e6, r.floor / r.engine,
            1e9 / r.engine,
            1e9 / r.engine / r.url_bytes,
            r.read_bytes, r.url_bytes,
        );
    }
    let med = |f: &dyn Fn(&Row) -> f64| median(rows.iter().map(f).collect());
    let _ = writeln!(out, "\n## Against the targets (median over workloads)\n");
    let _ = writeln!(out, "| target | reached |\n|---|---|");
    let typical = &rows[1];
    let targets = [
        (
            "≥ 50× texting_robots",
            format!("{:.0}×", med(&|r| r.engine / r.texting)),
        ),
        // What the 50× target asks, against what reading the URL once
        // costs: above 1, no check that reads its URL can reach it.
        (
            "(50× texting_robots as a rate ÷ the floor's rate)",
            format!("{:.2}×", med(&|r| 50.0 * r.texting / r.floor)),
        ),
        (
            "≥ 30× the reference matcher",
            format!("{:.0}×", med(&|r| r.engine / r.reference)),
        ),
        (
            "≥ 500× the per-query Google port",
            format!("{:.0}×", med(&|r| r.engine / r.google)),
        ),
        (
            "≥ 40 M checks/s on the typical workload, one core (single / batch)",
            format!(
                "{:.1} / {:.1} M/s",
                typical.engine / 1e6,
                typical.batch / 1e6
            ),
        ),
        (
            "within 2× of the floor (typical; single / batch)",
            format!(
                "{:.1}× / {:.1}×",
                typical.floor / typical.engine,
                typical.floor / typical.batch
            ),
        ),
        ("median real file compiles in < 1 ms", "see below".into()),
    ];
    table_rows(&mut out, &targets);
    spread(&cfg, &mut out);
    loading(&cfg, &mut out);
    // First answers: every 8th corpus file (≥ 500), or five in smoke mode.
    let shared = root().join("../shared/corpus/real");
    if shared.is_dir() {
        let (step, urls) = if full { (8, 1_000) } else { (1_000, 50) };
        first_answers::first_answers(&shared, step, urls, &mut out);
    }
    if full {
        corpus_compile(&mut out);
    }
    print!("{out}");
    if full {
        let notes = root().join("docs/PERFORMANCE-notes.md");
        if let Ok(n) = std::fs::read_to_string(&notes) {
            out.push('\n');
            out.push_str(&n);
        }
        std::fs::write(root().join("docs/PERFORMANCE.md"), &out).unwrap();
        eprintln!("wrote docs/PERFORMANCE.md");
    } else {
        // Smoke mode: every measurement was taken and is sane.
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert!(
                r.engine > 0.0
                    && r.batch > 0.0
                    && r.reference > 0.0
                    && r.texting > 0.0
                    && r.google > 0.0
                    && r.floor > 0.0
            );
            assert!(r.read_bytes <= r.url_bytes + 1.0);
        }
        assert!(out.contains("## Loading, stores and threads"));
        assert!(!shared.is_dir() || out.contains("## First answers"));
        let _ = Duration::ZERO;
        println!("report smoke test: 1 passed, 0 failed");
    }
}
