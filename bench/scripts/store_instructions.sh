#!/usr/bin/env bash
# Instructions per URL of a store's lookups (callgrind: repeatable whatever
# else the machine does): `Store::check` one URL at a time and
# `Store::check_batch`, over one URL per host (at most SAMPLE hosts, default
# 20000) in `lookup_times`'s shuffled order, five passes after an untimed
# one. Prints a markdown row.
#   bench/scripts/store_instructions.sh STORE [SAMPLE]
set -euo pipefail
store=$1
sample=${2:-20000}
cd "$(dirname "$0")/../.."
cargo build --release --locked -q -p robocc-bench --bin lookup
total() { # MODE ROUNDS -> instructions inside run_checks (1 + ROUNDS passes)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*run_checks*' \
    target/release/lookup "$store" --sample "$sample" --rounds "$2" "$1" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per() { echo $(( ($(total "$1" 5) - $(total "$1" 0)) / (5 * sample) )); }
single=$(per --check-only)
batch=$(per --batch-only)
echo "| $(basename "$store") | $single | $batch |"
