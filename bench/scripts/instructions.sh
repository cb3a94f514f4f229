#!/usr/bin/env bash
# Instructions per check (callgrind: repeatable whatever else the machine
# does), single `check` and `check_batch`, for each FILE given (default: the
# report's workloads). Prints a markdown table.
#   bench/scripts/instructions.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --locked -q -p robocc-bench --bin instructions
bin=${CARGO_TARGET_DIR:-target}/release/instructions
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(corpus/real/protego__www.mayoclinic.org.txt corpus/real/texting_robots__twitter.robots.txt
         corpus/real/protego__www.audible.com.txt corpus/real/protego__www.pinterest.com.txt
         corpus/real/protego__www.uber.com.txt corpus/real/texting_robots__zillow.robots.txt)
fi
total() { # FILE MODE ROUNDS -> instructions inside run_checks
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*run_checks*' \
    "$bin" "$1" "$2" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "| file | instructions/check, check | check_batch | ratio |"
echo "|---|---:|---:|---:|"
for f in "${files[@]}"; do
  single=$(( $(total "$f" single 10) / 10000 )); batch=$(( $(total "$f" batch 10) / 10000 ))
  echo "| $(basename "$f") | $single | $batch | $(awk "BEGIN{printf \"%.2f\", $single/$batch}") |"
done
