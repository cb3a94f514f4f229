//! criterion benchmarks: check throughput per implementation, compile time,
//! loading. `cargo bench -p robocc-bench --bench checks`.
//! (The one-page summary with ratios is `--bench report`.)

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use robocc_bench::Workload;
use robocc_engine::Policy;
use std::hint::black_box;

const FILES: &[&str] = &[
    "protego__www.mayoclinic.org.txt",
    "texting_robots__twitter.robots.txt",
    "protego__www.audible.com.txt",
    "protego__www.pinterest.com.txt",
    "protego__www.uber.com.txt",
    "texting_robots__zillow.robots.txt",
];

fn load(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/real")
            .join(name),
    )
    .unwrap()
}

fn checks(c: &mut Criterion) {
    for name in FILES {
        let body = load(name);
        let w = Workload::new(name, body.clone(), "Googlebot", robocc_bench::URLS);
        let urls = w.absolute_urls();
        let bytes = w.compiled.to_bytes();
        let policy = Policy::from_bytes(&bytes).unwrap();
        let robot = texting_robots::Robot::new("Googlebot", &body).unwrap();
        let mut g = c.benchmark_group(format!("check/{name}"));
        g.throughput(Throughput::Elements(urls.len() as u64));
        g.bench_function("robocc", |b| {
            b.iter(|| {
                urls.iter().for_each(|u| {
                    black_box(policy.check(u.as_bytes()));
                })
            })
        });
        g.bench_function("reference", |b| {
            b.iter(|| {
                urls.iter().for_each(|u| {
                    black_box(robocc_reference::check_url(
                        &w.compiled.rule_set,
                        u.as_bytes(),
                    ));
                })
            })
        });
        g.bench_function("texting_robots", |b| {
            b.iter(|| {
                urls.iter().for_each(|u| {
                    black_box(robot.allowed(u));
                })
            })
        });
        g.finish();
        let mut g = c.benchmark_group(format!("compile/{name}"));
        g.bench_function(BenchmarkId::from_parameter(body.len()), |b| {
            b.iter(|| {
                black_box(
                    robocc_compiler::compile(&body, "Googlebot", &Default::default()).unwrap(),
                )
            })
        });
        g.bench_function("from_bytes", |b| {
            b.iter(|| black_box(Policy::from_bytes(&bytes).unwrap()))
        });
        g.finish();
    }
}

/// Loading from a file (mmap + validation), a store of every corpus/real
/// host (open, lookup), and all cores checking against one shared mmap.
fn loading(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("robocc-criterion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = load("texting_robots__twitter.robots.txt");
    let w = Workload::new("twitter", body, "Googlebot", robocc_bench::URLS);
    let path = dir.join("twitter.policy");
    std::fs::write(&path, &w.compiled.to_bytes()[..]).unwrap();
    c.bench_function("load/policy_open_mmap", |b| {
        b.iter(|| black_box(robocc_engine::PolicyFile::open(&path).unwrap()))
    });

    let inputs = robocc_testkit::corpus::inputs(&robocc_bench::corpus_real());
    let (bytes, _) = robocc_store::StoreBuilder::new("Googlebot")
        .build(inputs.iter().cloned().map(Ok))
        .unwrap();
    let store_path = dir.join("corpus.store");
    std::fs::write(&store_path, &bytes[..]).unwrap();
    c.bench_function("store/open_mmap", |b| {
        b.iter(|| black_box(robocc_engine::Store::open(&store_path).unwrap()))
    });
    let store = robocc_engine::Store::open(&store_path).unwrap();
    let lookups: Vec<String> = inputs
        .iter()
        .map(|i| format!("https://{}/a/b?c=d", i.host))
        .collect();
    let mut g = c.benchmark_group("store/lookup_and_check");
    g.throughput(Throughput::Elements(lookups.len() as u64));
    g.bench_function("all_hosts", |b| {
        b.iter(|| {
            lookups.iter().for_each(|u| {
                black_box(store.check(u.as_bytes()).unwrap());
            })
        })
    });
    g.finish();

    let file = robocc_engine::PolicyFile::open(&path).unwrap();
    let policy = file.policy();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = c.benchmark_group("threads/shared_mmap");
    g.throughput(Throughput::Elements((threads * w.urls.len()) as u64));
    g.bench_function(BenchmarkId::from_parameter(threads), |b| {
        b.iter(|| {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        w.urls.iter().for_each(|u| {
                            black_box(policy.check(u));
                        })
                    });
                }
            })
        })
    });
    g.finish();
    std::fs::remove_dir_all(&dir).ok();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = checks, loading
}
criterion_main!(benches);
