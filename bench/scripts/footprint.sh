#!/usr/bin/env bash
# Artifact/source ratios over every 5th file of ../shared/corpus/real
# (Googlebot; a source counts as at least 1 KiB), as in docs/performance-log.md.
# usage: bench/scripts/footprint.sh [ROBOCC_BIN] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-target/release/robocc}
OUT=${2:-$(mktemp -d)}
C=../shared/corpus/real
i=0
: > "$OUT/sizes.tsv"
for f in $(ls "$C" | grep -v SOURCES.md | sort); do
  i=$((i + 1))
  [ $((i % 5)) -eq 1 ] || continue
  if "$BIN" compile --robots "$C/$f" --agent Googlebot -o "$OUT/p.policy" >/dev/null 2>&1; then
    printf '%s\t%s\t%s\n' "$f" "$(stat -c %s "$C/$f")" "$(stat -c %s "$OUT/p.policy")" >> "$OUT/sizes.tsv"
  else
    echo "failed: $f" >&2
  fi
done
python3 - "$OUT/sizes.tsv" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
r = sorted(int(a) / max(int(s), 1024) for _, s, a in rows)
q = lambda p: r[min(len(r) - 1, int(p * len(r)))]
total = sum(int(a) for *_, a in rows) / sum(int(s) for _, s, _ in rows)
print(f"files {len(r)} median {q(.5):.2f} p90 {q(.9):.2f} p99 {q(.99):.2f} max {r[-1]:.1f} all {total:.2f}")
PY
