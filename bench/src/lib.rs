//! Shared pieces of robocc's benchmarks: workloads and timing helpers.
//!
//! The criterion suite and the report (issue 5) build on these; the
//! `measure` binary is the quick figure for a handful of files.

pub mod args;
pub mod million;

// The report's smoke run is a unit test here (`report_smoke` below), not a
// test of the `report` bench target: a tested bench (or integration test)
// makes `cargo test` build all sixteen bins of this package, which no test
// runs (clippy --all-targets still checks them).
#[cfg(test)]
extern crate self as robocc_bench;
#[cfg(test)]
#[path = "../benches/report.rs"]
mod report;

use robocc_compiler::{compile, CompileOptions, Compiled};
use robocc_testkit::urlgen;
use std::time::{Duration, Instant};

/// URLs a timed workload checks, at least. Timings repeat a workload many
/// times in the same order, and this machine's branch predictor learns a
/// sequence of up to ~10,000 checks: with 1,000 URLs, twitter's checks ran
/// at 45.0 M/s in order and 29.6 M/s when each pass was shuffled (`bench
/// --bin batch FILE --urls 1000 [--shuffle]`); at 20,000 in order, 27.8
/// (docs/performance-log.md, "the branch predictor learns a short
/// workload"). A crawler never sees its URLs twice in one order.
pub const URLS: usize = 20_000;

/// A compiled file with its URL workload.
pub struct Workload {
    /// File name.
    pub name: String,
    /// robots.txt bytes.
    pub body: Vec<u8>,
    /// The compiled policy (and its rule set, for the reference matcher).
    pub compiled: Compiled,
    /// URLs derived from the file's own patterns (seeded).
    pub urls: Vec<Vec<u8>>,
}

impl Workload {
    /// Compiles `body` for `agent` and generates `count` URLs.
    pub fn new(name: &str, body: Vec<u8>, agent: &str, count: usize) -> Workload {
        Workload::with_options(name, body, agent, count, &CompileOptions::default())
    }

    /// As [`Workload::new`], with compile options (e.g. another dialect).
    pub fn with_options(
        name: &str,
        body: Vec<u8>,
        agent: &str,
        count: usize,
        options: &CompileOptions,
    ) -> Workload {
        let compiled = compile(&body, agent, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let seed = robocc_engine::artifact::fnv1a64(name.as_bytes());
        let urls = urlgen::workload(seed, compiled.rule_set.patterns(), count);
        Workload {
            name: name.to_string(),
            body,
            compiled,
            urls,
        }
    }

    /// Total URL bytes.
    pub fn url_bytes(&self) -> usize {
        self.urls.iter().map(Vec::len).sum()
    }

    /// The URLs as absolute `https://example.com/…` strings, the form every
    /// compared implementation accepts.
    pub fn absolute_urls(&self) -> Vec<String> {
        self.urls
            .iter()
            .map(|u| {
                let u = String::from_utf8_lossy(u).into_owned();
                if u.starts_with('/') {
                    format!("https://example.com{u}")
                } else {
                    u
                }
            })
            .collect()
    }
}

/// The process's peak resident set as Linux says it (`VmHWM` in
/// /proc/self/status, e.g. "10240 kB"); `None` elsewhere.
pub fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line["VmHWM:".len()..].trim().to_string())
}

/// The workspace's corpus/real directory.
pub fn corpus_real() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real")
}

/// `struct timespec` on 64-bit Linux.
#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

/// CPU time (user + system) of the calling thread (`thread: true`) or of
/// the whole process, all threads: what a measurement on a machine shared
/// with other work compares, where wall time counts the others' too.
pub fn cpu_time(thread: bool) -> Duration {
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let clock = if thread {
        CLOCK_THREAD_CPUTIME_ID
    } else {
        CLOCK_PROCESS_CPUTIME_ID
    };
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock ids are Linux's.
    let rc = unsafe { clock_gettime(clock, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Median of `runs` timings of `f`.
pub fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Medians of `runs` timings of `f` and of `g`, taken in turn (f, g, f,
/// g, …) so that a machine that gets busier during the measurement slows
/// both alike: for ratios between two ways of doing the same work.
pub fn median_times_paired(
    runs: usize,
    mut f: impl FnMut(),
    mut g: impl FnMut(),
) -> (Duration, Duration) {
    let mut a = Vec::with_capacity(runs);
    let mut b = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f();
        a.push(t.elapsed());
        let t = Instant::now();
        g();
        b.push(t.elapsed());
    }
    a.sort();
    b.sort();
    (a[a.len() / 2], b[b.len() / 2])
}

/// Median nanoseconds per URL of a store's lookups, stage by stage (see
/// [`lookup_times`]).
#[derive(Clone, Copy, Debug)]
pub struct LookupTimes {
    /// URLs timed (one per host).
    pub urls: usize,
    /// `HostKey::of_url` and its hash.
    pub key_hash: f64,
    /// `Store::host`: the index search (and the record's fields).
    pub host: f64,
    /// `Store::check`, one URL at a time.
    pub check: f64,
    /// `Store::check_batch`, 1,000 URLs a call.
    pub batch: f64,
    /// The baseline, timed right after the lookups, in as many passes: one
    /// read of a random cache line in a buffer as large as the store, each
    /// read's address taken from the one before ([`LineChase`]), so that no
    /// two overlap.
    pub line_read: f64,
}

/// A pointer chase over the cache lines of a plain heap buffer: every line
/// holds the index of the next, in one random cycle through all of them.
/// Each read waits for the one before, so a step costs one trip to wherever
/// the line is: the machine's memory latency at that size, measured beside
/// the lookups it bounds. Only a buffer well past the last-level cache
/// (tens of MB here) measures memory rather than cache. Its pages are the
/// allocator's: small ones unless the kernel puts huge pages under large
/// allocations (transparent huge pages "always"; this machine has
/// "madvise"), while a store's may be either (a mapped store read in cold
/// can get 2 MiB pages, and `Store::from_slice` copies onto huge pages), so
/// the ratio carries the page walks' difference too. It holds a second
/// buffer as large as the store.
pub struct LineChase {
    next: Vec<u64>,
    /// Where the last [`LineChase::time`] stopped: the next one goes on
    /// from there, so that short chases do not reread (cached) lines.
    at: usize,
}

/// `u64`s in a 64-byte cache line.
const LINE_WORDS: usize = 8;

impl LineChase {
    /// A chase over `bytes` bytes (at least two lines).
    pub fn new(bytes: usize) -> LineChase {
        let lines = (bytes / (LINE_WORDS * 8)).max(2);
        let mut next = vec![0u64; lines * LINE_WORDS];
        // Sattolo's algorithm: a random permutation that is one cycle, so
        // the chase visits every line before it repeats.
        let mut order: Vec<u64> = (0..lines as u64).collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for i in (1..lines).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % i as u64) as usize);
        }
        for (i, &o) in order.iter().enumerate() {
            next[i * LINE_WORDS] = o;
        }
        LineChase { next, at: 0 }
    }

    /// Nanoseconds per step of `steps` dependent line reads, going on
    /// where the last call stopped.
    pub fn time(&mut self, steps: usize) -> f64 {
        let mut at = self.at;
        let t = Instant::now();
        for _ in 0..steps {
            at = std::hint::black_box(self.next[at * LINE_WORDS]) as usize;
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / steps.max(1) as f64;
        self.at = at;
        ns
    }
}

/// Shuffles `items` (Fisher-Yates with a fixed xorshift): the same order
/// every run, so that every store bench looks hosts up in one order.
pub fn shuffle<T>(items: &mut [T]) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..items.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        items.swap(i, (x % (i as u64 + 1)) as usize);
    }
}

/// One URL per host of `store` (at most `sample`), `https://HOST/some/path?x=1`,
/// the hosts in [`shuffle`]'s order, made in that order (so that reading
/// them streams through memory): what every store bench looks up.
///
/// # Errors
///
/// A host record of `store` is corrupted.
pub fn lookup_urls(
    store: &robocc_engine::Store,
    sample: usize,
) -> Result<Vec<String>, robocc_engine::LoadError> {
    let mut keys = Vec::new();
    for h in store.hosts() {
        keys.push(h?.key);
    }
    shuffle(&mut keys);
    keys.truncate(sample);
    Ok(keys
        .iter()
        .map(|k| format!("https://{k}/some/path?x=1"))
        .collect())
}

/// Times a store's lookups on one URL per host (at most `sample` hosts),
/// the hosts in a fixed shuffled order so consecutive lookups do not share
/// cache lines by construction. The URLs are made in the order they are
/// checked, so reading them streams through memory as a crawler's freshly
/// made URLs would be in cache: the misses timed are the store's. Every
/// policy is used once before timing (lazy validation is not timed); the
/// stages are timed in turn, `rounds` times, and the medians returned.
/// Then [`LineChase`] over a buffer as large as the store is timed as many
/// times, one step per URL: the memory latency of the same minute, which
/// divides out how fast this machine's memory is answering right now. (Not
/// between the lookups' passes: there its reads evicted what a small
/// store's passes share, and the report's 4,259-host `Store::check` went
/// from 161 to 346–375 ns.)
///
/// # Errors
///
/// A host record or a policy of `store` is corrupted.
pub fn lookup_times(
    store: &robocc_engine::Store,
    sample: usize,
    rounds: usize,
) -> Result<LookupTimes, robocc_engine::LoadError> {
    use robocc_engine::HostKey;
    use std::hint::black_box;
    let urls = lookup_urls(store, sample)?;
    let refs: Vec<&[u8]> = urls.iter().map(|u| u.as_bytes()).collect();
    let mut found = 0;
    for u in &refs {
        found += usize::from(store.check(u)?.is_some());
    }
    assert_eq!(found, refs.len(), "every host of the store is found");
    let mut out = vec![None; refs.len()];
    let mut times: [Vec<Duration>; 4] = Default::default();
    // Made (its lines written) before the passes, so that they are not
    // still in cache when it is timed after them.
    let mut chase = LineChase::new(store.len_bytes());
    for _ in 0..rounds {
        let t = Instant::now();
        for u in &refs {
            black_box(HostKey::of_url(black_box(u)).map(|k| k.slot_hash(0)));
        }
        times[0].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            let _ = black_box(store.host(black_box(u)));
        }
        times[1].push(t.elapsed());
        let t = Instant::now();
        for u in &refs {
            let _ = black_box(store.check(black_box(u)));
        }
        times[2].push(t.elapsed());
        let t = Instant::now();
        for (u, o) in refs.chunks(1000).zip(out.chunks_mut(1000)) {
            store.check_batch(black_box(u), o).map_err(|e| e.error)?;
        }
        times[3].push(t.elapsed());
    }
    black_box(&out);
    let mut line_read: Vec<f64> = (0..rounds).map(|_| chase.time(refs.len())).collect();
    let mut ns = |i: usize| {
        let t = &mut times[i];
        t.sort();
        t[t.len() / 2].as_secs_f64() * 1e9 / refs.len().max(1) as f64
    };
    Ok(LookupTimes {
        urls: refs.len(),
        key_hash: ns(0),
        host: ns(1),
        check: ns(2),
        batch: ns(3),
        line_read: {
            line_read.sort_by(f64::total_cmp);
            line_read.get(line_read.len() / 2).copied().unwrap_or(0.0)
        },
    })
}

#[cfg(test)]
mod tests {
    use super::{LineChase, LINE_WORDS};

    /// `cargo bench --bench report` in smoke mode: a tiny workload, every
    /// measurement taken and sane (see the report's `main`).
    #[test]
    fn report_smoke() {
        super::report::main();
    }

    /// The chase is one cycle through every line: a shorter cycle would stay
    /// in cache and make the baseline look faster than memory.
    #[test]
    fn line_chase_visits_every_line_once_per_cycle() {
        for lines in [2, 3, 64, 1000] {
            let chase = LineChase::new(lines * LINE_WORDS * 8);
            let mut seen = vec![false; lines];
            let mut at = 0;
            for _ in 0..lines {
                assert!(!seen[at], "{lines} lines: line {at} visited twice");
                seen[at] = true;
                at = chase.next[at * LINE_WORDS] as usize;
            }
            assert_eq!(at, 0, "{lines} lines: the cycle closes");
            assert!(seen.iter().all(|&s| s));
        }
    }
}
