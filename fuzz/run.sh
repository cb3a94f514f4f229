#!/usr/bin/env bash
# Runs the fuzz targets, each for SECONDS (default 600), one after another.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      targets: parse compile check load store page manifest
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Seeds: fuzz/corpus/<target> (committed); the load and store seeds are real
# artifacts, regenerated here with the current compiler so that a format
# change never leaves the fuzzer mutating stale files. Work corpora grow in
# fuzz/work/<target> (ignored by git); crashes land in fuzz/artifacts/<target>
# — copy each into fuzz/regressions/<target>/ (replayed by `cargo test`).
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse compile check load store page manifest)

# Artifact seeds from the current compiler.
cargo build --release -q -p robocc-cli --manifest-path ../Cargo.toml
robocc=../target/release/robocc
mkdir -p corpus/load corpus/store work/seed-hosts
# Seeds stay under libFuzzer's -max_len (larger ones would be cut, and a
# cut artifact is only ever refused): small robots.txt files only.
rm -f corpus/load/*.policy work/seed-hosts/*
n=0
for f in corpus/parse/*; do
  [ "$(wc -c <"$f")" -le 4096 ] || continue
  name=$(basename "$f" .txt)
  n=$((n + 1))
  for d in rfc9309 draft1996 robots2; do
    "$robocc" compile --robots "$f" --agent Googlebot --dialect "$d" \
      -o "corpus/load/$name.$d.policy" >/dev/null 2>&1 || true
  done
  # The dense layout: programs of rows only.
  "$robocc" compile --robots "$f" --agent Googlebot --layout dense \
    -o "corpus/load/$name.dense.policy" >/dev/null 2>&1 || true
  cp "$f" "work/seed-hosts/host$n.example.txt"
done
"$robocc" store build work/seed-hosts --agent Googlebot -o corpus/store/seed.store >/dev/null 2>&1

cargo +nightly fuzz build -O >/dev/null
mkdir -p work
for t in "${targets[@]}"; do
  mkdir -p "work/$t" "artifacts/$t"
  echo "== $t: ${secs}s"
  cargo +nightly fuzz run -O "$t" "work/$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 >"work/$t.log" 2>&1 || echo "!! $t stopped early: see fuzz/work/$t.log"
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ +DONE' "work/$t.log" || tail -5 "work/$t.log"
  ls "artifacts/$t" 2>/dev/null | sed 's/^/  found: /'
done
