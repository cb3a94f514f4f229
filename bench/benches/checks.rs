//! criterion benchmarks: check throughput per implementation, compile time,
//! loading. `cargo bench -p robocc-bench --bench checks`.
//! (The one-page summary with ratios is `--bench report`.)

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use robocc_bench::Workload;
use robocc_engine::{Policy, UrlMode};
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
        let w = Workload::new(name, body.clone(), "Googlebot", 2_000);
        let urls: Vec<String> = w
            .urls
            .iter()
            .map(|u| {
                let u = String::from_utf8_lossy(u).into_owned();
                if u.starts_with('/') {
                    format!("https://example.com{u}")
                } else {
                    u
                }
            })
            .collect();
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
                    black_box(robocc_compiler::reference::check_url(
                        &w.compiled.rule_set,
                        UrlMode::Google,
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = checks
}
criterion_main!(benches);
