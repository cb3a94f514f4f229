#!/usr/bin/env bash
# Issue 12's "check throughput not lower than before the change", against
# the engine before it: format 2 (683dd38, dense u32 tables, the last commit
# before the compact programs) and this checkout, both through
# bench/src/bin/engines.rs, over the same URL files (the report's six
# workloads and its 48 files across sizes: 20,000 absolute URLs each),
# PAIRS times in turn (old, new, old, new, ...), each run the median of 7
# rounds per file. Prints per-file medians over the runs, the new ÷ old
# ratio, and whether both engines gave every URL the same verdict.
#   bench/scripts/format2.sh [PAIRS]     (default 3; about 2 min a pair)
# Needs git history and ../shared/corpus/real. The old tree is a worktree
# in target/format2 (its own target directory, kept between runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-3}
old_commit=683dd38
wt=target/format2
out=target/format2-runs
if [ ! -d "$wt" ]; then
  git worktree add --detach "$wt" "$old_commit" >/dev/null
fi
cp bench/src/bin/engines.rs "$wt/bench/src/bin/engines.rs"
(cd "$wt" && CARGO_TARGET_DIR=target cargo build --release --locked -q -p robocc-bench --bin engines)
cargo build --release --locked -q -p robocc-bench --bin engines
new=${CARGO_TARGET_DIR:-target}/release/engines
old=$wt/target/release/engines

six=(corpus/real/protego__www.mayoclinic.org.txt corpus/real/texting_robots__twitter.robots.txt
     corpus/real/protego__www.audible.com.txt corpus/real/protego__www.pinterest.com.txt
     corpus/real/protego__www.uber.com.txt corpus/real/texting_robots__zillow.robots.txt)
# The report's spread: every (count / 48)-th file of the shared corpus by size.
mapfile -t spread < <(python3 - <<'EOF'
import os
d = '../shared/corpus/real'
fs = sorted((os.path.getsize(os.path.join(d, f)), os.path.join(d, f))
            for f in os.listdir(d) if f.endswith('.txt'))
step = max(1, len(fs) // 48)
for _, p in fs[::step][:48]:
    print(p)
EOF
)
files=("${six[@]}" "${spread[@]}")
rm -rf "$out" && mkdir -p "$out/urls"
"$new" write "$out/urls" "${files[@]}"
for i in $(seq "$pairs"); do
  "$old" time "$out/urls" 7 "${files[@]}" > "$out/old.$i"
  "$new" time "$out/urls" 7 "${files[@]}" > "$out/new.$i"
done
python3 - "$out" "$pairs" "${#six[@]}" <<'EOF'
import statistics, sys
out, pairs, six = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def runs(side):
    rows = {}
    order = []
    for i in range(1, pairs + 1):
        for line in open(f"{out}/{side}.{i}"):
            name, rate, allowed, size, verdicts = line.split("\t")
            if name not in rows:
                order.append(name)
            rows.setdefault(name, []).append((float(rate), int(allowed), int(size), verdicts.strip()))
    return order, rows
order, old = runs("old")
_, new = runs("new")
print("| file | format 2 bytes | now bytes | format 2 checks/s | now checks/s | now ÷ format 2 | same verdicts |")
print("|---|---:|---:|---:|---:|---:|---|")
ratios = []
for k, name in enumerate(order):
    o = statistics.median(r[0] for r in old[name])
    n = statistics.median(r[0] for r in new[name])
    # Every run of both engines gave each URL the same verdict.
    hashes = {r[3] for r in old[name] + new[name]}
    same = "yes" if len(hashes) == 1 else f"no ({old[name][0][1]} / {new[name][0][1]} allowed)"
    ratios.append((k < six, n / o))
    print(f"| {name} | {old[name][0][2]} | {new[name][0][2]} | {o/1e6:.2f} M | {n/1e6:.2f} M | {n/o:.2f} | {same} |")
def summary(label, rs):
    rs = sorted(rs)
    print(f"{label}: median {statistics.median(rs):.2f}, min {rs[0]:.2f}, max {rs[-1]:.2f}, below 1: {sum(r < 1 for r in rs)} of {len(rs)}")
print()
summary("six workloads", [r for s, r in ratios if s])
summary("48 files", [r for s, r in ratios if not s])
EOF
