"""Per-check cost from Python: robocc (`allowed` per call, `allowed_many`
per batch) against Protego, urllib.robotparser, robotexclusionrulesparser
and fast-robotstxt (a binding of Google's C++ robotstxt matcher that
normalises URLs and patterns with the ada URL parser first, so its verdicts
are not Google-exact: `Disallow: /%7e` disallows `/~`), on the same files
and URLs as the Rust report (docs/PERFORMANCE.md).

Not a test: a measurement. Run it with the package installed (pip install
./python) and, for the other parsers, `pip install protego
robotexclusionrulesparser fast-robotstxt`; those not installed are left out.

    python python/bench.py [--urls 20000] [--repeat 5] [--markdown]
    python python/bench.py --first [--corpus DIR] [--every 8]

`--first` measures the first answer instead, per file of a corpus (the
shared corpus, ../shared/corpus/real, when there is one; every 8th file):
`robocc.compile(body, agent).allowed(url)` against
`Protego.parse(text).can_fetch(url, agent)`, both from the bytes, and the
same with `compile(..., eager=True)` (the automaton compiled before the
first answer, as compile did before it answered from the rules); it prints
the median, p90 and p99 of the per-file ratios.

Every parser is given the same robots.txt and the same absolute URLs, agent
"Googlebot". Parse time is one parse (robocc: compile); check rates are the
best of --repeat runs (CPU time of the calling thread) over all URLs, including the Python loop a caller
writes (`for url in urls: parser.check(url)`). fast-robotstxt re-parses
the file for every query (Google's API), so it is measured on every 20th
URL. The "same verdict as robocc" line compares answers; it is not a
conformance check (none of these parsers is Google-exact).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
import urllib.robotparser
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import robocc

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "corpus" / "real"
SHARED_REAL = ROOT.parent / "shared" / "corpus" / "real"
AGENT = "Googlebot"

WORKLOADS = [
    ("tiny", "protego__www.mayoclinic.org.txt"),
    ("typical", "texting_robots__twitter.robots.txt"),
    ("typical, 116 rules", "protego__www.audible.com.txt"),
    ("wildcards and $", "protego__www.pinterest.com.txt"),
    ("large (3,000+ rules)", "protego__www.uber.com.txt"),
]

_RULE = re.compile(rb"(?im)^[ \t]*(?:allow|disallow)[ \t]*:?[ \t]*([^\s#]*)")


def make_urls(body: bytes, n: int, seed: int = 7) -> List[str]:
    """URLs from the file's own patterns (hits, near misses, queries,
    encodings) and random paths, all absolute."""
    rng = random.Random(seed)
    patterns = [m.group(1).decode("utf-8", "replace") for m in _RULE.finditer(body)] or ["/"]
    words = ["a", "index.html", "search", "img", "%C3%A9t%C3%A9", "p.php", "x"]
    out = []
    for _ in range(n):
        if rng.random() < 0.8:
            p = rng.choice(patterns)
            p = "".join(rng.choice(["", "x", "a/b"]) if c == "*" else c for c in p).rstrip("$")
            p += rng.choice(["", "x", "/", "?q=1", ".html", "/" + rng.choice(words)])
        else:
            p = "/" + "/".join(rng.choice(words) for _ in range(rng.randrange(1, 5)))
        if not p.startswith("/"):
            p = "/" + p
        out.append("https://www.example.com" + p)
    return out


def best_ns(fn: Callable[[], object], repeat: int) -> float:
    """Best of `repeat` runs in CPU time of this thread (steadier than wall
    time on a shared machine; allowed_many stays on this thread); runs
    longer than 2 s are not repeated."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.thread_time_ns()
        fn()
        times.append(time.thread_time_ns() - t)
        if times[-1] > 2e9:
            break
    return min(times)


class Row:
    def __init__(self, name: str):
        self.name = name
        self.parse_us: Dict[str, float] = {}
        self.check_ns: Dict[str, float] = {}


def measure(label: str, body: bytes, urls: List[str], repeat: int) -> Tuple[Row, Dict[str, List[bool]]]:
    row = Row(label)
    text = body.decode("utf-8", errors="ignore")
    verdicts: Dict[str, List[bool]] = {}

    t = time.thread_time_ns()
    policy = robocc.compile(body, AGENT)
    row.parse_us["robocc"] = (time.thread_time_ns() - t) / 1e3

    def per_call():
        allowed = policy.allowed
        return [allowed(u) for u in urls]

    row.check_ns["robocc allowed"] = best_ns(per_call, repeat) / len(urls)
    row.check_ns["robocc allowed_many"] = best_ns(lambda: policy.allowed_many(urls), repeat) / len(urls)
    encoded = [u.encode() for u in urls]
    row.check_ns["robocc allowed_many (bytes)"] = best_ns(lambda: policy.allowed_many(encoded), repeat) / len(urls)
    verdicts["robocc"] = policy.allowed_many(urls)

    try:
        import protego
    except ImportError:
        protego = None
    if protego is not None:
        t = time.thread_time_ns()
        rp = protego.Protego.parse(text)
        row.parse_us["protego"] = (time.thread_time_ns() - t) / 1e3
        row.check_ns["protego"] = best_ns(lambda: [rp.can_fetch(u, AGENT) for u in urls], repeat) / len(urls)
        verdicts["protego"] = [rp.can_fetch(u, AGENT) for u in urls]

    t = time.thread_time_ns()
    std = urllib.robotparser.RobotFileParser()
    std.parse(text.splitlines())
    row.parse_us["urllib.robotparser"] = (time.thread_time_ns() - t) / 1e3
    row.check_ns["urllib.robotparser"] = best_ns(lambda: [std.can_fetch(AGENT, u) for u in urls], repeat) / len(urls)
    verdicts["urllib.robotparser"] = [std.can_fetch(AGENT, u) for u in urls]

    try:
        import robotexclusionrulesparser as rerp
    except ImportError:
        rerp = None
    if rerp is not None:
        t = time.thread_time_ns()
        rr = rerp.RobotExclusionRulesParser()
        rr.parse(text)
        row.parse_us["robotexclusionrulesparser"] = (time.thread_time_ns() - t) / 1e3
        row.check_ns["robotexclusionrulesparser"] = best_ns(lambda: [rr.is_allowed(AGENT, u) for u in urls], repeat) / len(urls)
        verdicts["robotexclusionrulesparser"] = [rr.is_allowed(AGENT, u) for u in urls]

    google = google_matcher()
    if google is not None:
        sample = urls[::20]
        matcher = google()
        row.check_ns["fast-robotstxt (parse per query)"] = best_ns(
            lambda: [matcher.is_allowed(text, AGENT, u) for u in sample], max(1, repeat // 2)) / len(sample)
    return row, verdicts


def google_matcher() -> Optional[Callable]:
    """Google's C++ matcher through the fast-robotstxt bindings (module
    `robotstxt`, which another PyPI package also uses: check its API),
    which normalise URLs with ada first: not Google-exact."""
    try:
        from robotstxt import RobotsMatcher  # type: ignore[import-not-found]
    except ImportError:
        return None
    return RobotsMatcher if hasattr(RobotsMatcher, "is_allowed") else None


def first_answer_ns(fn: Callable[[], object], reps: int = 3, runs: int = 3) -> float:
    """Median over `runs` of the mean CPU time of `reps` calls (each call
    starts from the bytes)."""
    times = []
    for _ in range(runs):
        t = time.thread_time_ns()
        for _ in range(reps):
            fn()
        times.append((time.thread_time_ns() - t) / reps)
    return sorted(times)[len(times) // 2]


def percentile(xs: List[float], p: int) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, len(xs) * p // 100)]


def first(corpus: Path, every: int) -> int:
    """First answers: robocc.compile + allowed against Protego.parse +
    can_fetch, per file (see the module documentation)."""
    try:
        from protego import Protego
    except ImportError:
        print("--first compares with Protego: pip install protego", file=sys.stderr)
        return 2
    files = sorted(p for p in corpus.iterdir() if p.suffix == ".txt")[::every]
    url = "https://example.com/some/path?x=1"
    lazy: List[float] = []
    eager: List[float] = []
    skipped = 0
    for path in files:
        body = path.read_bytes()
        try:
            robocc.compile(body, AGENT, eager=True)
        except robocc.CompileError:
            skipped += 1  # over the budget: no eager figure to compare
            continue
        protego = first_answer_ns(lambda: Protego.parse(body.decode("utf-8", "replace")).can_fetch(url, AGENT))
        lazy.append(first_answer_ns(lambda: robocc.compile(body, AGENT).allowed(url)) / protego)
        eager.append(first_answer_ns(lambda: robocc.compile(body, AGENT, eager=True).allowed(url)) / protego)
    print(f"First answer per file, {len(lazy)} files of {corpus} (every {every}th; {skipped} over the "
          f"budget left out), ratio to Protego.parse + can_fetch (lower is better; CPU time, median of 3):")
    for name, ratios in (("robocc.compile + allowed", lazy), ("robocc.compile(eager=True) + allowed", eager)):
        print(f"  {name}: median {percentile(ratios, 50):.2f}, p90 {percentile(ratios, 90):.2f}, "
              f"p99 {percentile(ratios, 99):.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--urls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    ap.add_argument("--first", action="store_true", help="measure first answers over a corpus instead")
    ap.add_argument("--corpus", type=Path, default=SHARED_REAL if SHARED_REAL.is_dir() else REAL)
    ap.add_argument("--every", type=int, default=8, help="--first: every Nth file of the corpus")
    args = ap.parse_args()
    if args.first:
        return first(args.corpus, args.every)

    rows = []
    agreement: Dict[str, Tuple[int, int]] = {}
    for label, name in WORKLOADS:
        body = (REAL / name).read_bytes()
        urls = make_urls(body, args.urls)
        row, verdicts = measure(f"{label} ({name})", body, urls, args.repeat)
        rows.append(row)
        for other, v in verdicts.items():
            if other != "robocc":
                same = sum(a == b for a, b in zip(v, verdicts["robocc"]))
                a, b = agreement.get(other, (0, 0))
                agreement[other] = (a + same, b + len(v))
        print(f"measured {label}", file=sys.stderr)

    check_cols = list(dict.fromkeys(k for r in rows for k in r.check_ns))
    parse_cols = list(dict.fromkeys(k for r in rows for k in r.parse_us))
    print(f"Python {sys.version.split()[0]}, robocc {robocc.__version__}; {args.urls} URLs per workload, "
          f"best of {args.repeat}; ns per check (lower is better)\n")
    print("| workload | " + " | ".join(check_cols) + " |")
    print("|---|" + "---:|" * len(check_cols))
    for r in rows:
        print(f"| {r.name} | " + " | ".join(f"{r.check_ns[c]:,.0f}" if c in r.check_ns else "–" for c in check_cols) + " |")
    print("\nParse (robocc: compile) time, µs\n")
    print("| workload | " + " | ".join(parse_cols) + " |")
    print("|---|" + "---:|" * len(parse_cols))
    for r in rows:
        print(f"| {r.name} | " + " | ".join(f"{r.parse_us[c]:,.0f}" if c in r.parse_us else "–" for c in parse_cols) + " |")
    print("\nSame verdict as robocc on these URLs: " + ", ".join(
        f"{k} {a / b:.1%}" for k, (a, b) in agreement.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
