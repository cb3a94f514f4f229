#!/usr/bin/env bash
# Instructions per URL of a store's lookups (callgrind: repeatable whatever
# else the machine does): `Store::check` one URL at a time and
# `Store::check_batch`, over one URL per host (at most SAMPLE hosts, default
# 20000) in `lookup_times`'s shuffled order. `lookup --check-only` runs one
# untimed pass (it validates each policy it meets, lazily), then ROUNDS
# passes; the count of five passes less that of none, divided by five
# passes' URLs, is what a lookup costs. Prints a markdown row.
#   bench/scripts/store_instructions.sh STORE [SAMPLE]
set -euo pipefail
store=$1
sample=${2:-20000}
cd "$(dirname "$0")/../.."
cargo build --release --locked -q -p robocc-bench --bin lookup
bin=${CARGO_TARGET_DIR:-target}/release/lookup
run() { # MODE ROUNDS -> "INSTRUCTIONS URLS" (instructions inside run_checks)
  local out
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*run_checks*' \
    "$bin" "$store" --sample "$sample" --rounds "$2" "$1" 2>&1)
  echo "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out") $(sed -n 's/^urls \([0-9]*\)$/\1/p' <<<"$out")"
}
per() {
  local five none
  read -r five urls <<<"$(run "$1" 5)"
  read -r none _ <<<"$(run "$1" 0)"
  echo $(( (five - none) / (5 * urls) ))
}
single=$(per --check-only)
batch=$(per --batch-only)
echo "| $(basename "$store") | $single | $batch |"
