"""robocc.survey and `python -m robocc.spark survey` against `robocc
survey` (docs/survey.md): the text is the CLI's byte for byte, the typed
rows read the CLI's CSV and JSON lines (parsed here by Python's csv and
json modules), and the Spark survey's Parquet, turned into CSV here, is
the CLI's CSV of the same WARC files."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

import robocc
from conftest import CORPUS, SHARED_REAL
from test_spark import HOSTS, _java, write_warcs

AGENTS = ["GPTBot", "CCBot", "Googlebot"]
# A comma: the CSV header quotes the column; a query: part of the path.
PATHS = ["/", "/search?q=1", "/a,b"]


def _bodies(n: int) -> List[bytes]:
    src = SHARED_REAL if SHARED_REAL.is_dir() else CORPUS / "real"
    files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix != ".md" and p.stat().st_size < 4096)
    return [p.read_bytes() for p in files[:n]]


# Beside the corpus files: what the columns report (sitemaps, RSL License,
# AI-usage preferences), a file with a "," in a License URL, every class.
EXTRA = [
    b"User-agent: *\nDisallow: /\n",
    b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\nDisallow: /search\n",
    b"User-agent: *\nDisallow: /private\nSitemap: https://x.example/s1.xml\nSitemap: https://x.example/s2.xml\n"
    b"License: https://x.example/license.xml\nLicense: https://x.example/a,b.xml\n",
    b"User-agent: *\nContent-Usage: train-ai=n, search=y\nContent-Signal: ai-input=no\nAllow: /\n",
    b"User-agent: CCBot\nDisallow: /*\nAllow: /$\n",
]


# The manifest's hosts: EXTRA, 60 corpus files, 6 without a file.
HOSTS_IN_MANIFEST = len(EXTRA) + 60 + 6


def _manifest(dir: Path) -> Path:
    bodies = EXTRA + _bodies(60)
    lines = []
    for i, body in enumerate(bodies):
        host = f"s{i}.example" if i % 9 else f"s{i}.example:8080"
        line = {"host": host, "status": 200, "body": body.decode("utf-8", "replace")}
        if i % 4 == 0:
            line["fetched_at"] = f"2026-11-0{1 + i % 9}T00:00:00Z"
        lines.append(line)
    lines += [
        {"host": "gone.example", "status": 404},
        {"host": "down.example", "status": 503},
        {"host": "busy.example", "status": 429},
        {"host": "nothing.example", "status": 0},
        {"host": "moved.example", "status": 301, "location": "https://s1.example/robots.txt"},
        {"host": "away.example", "status": 302, "location": "https://elsewhere.invalid/robots.txt"},
    ]
    m = dir / "fetched.jsonl"
    m.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return m


def _flags(flag: str, values: List[str]) -> List[str]:
    return [a for v in values for a in (flag, v)]


@pytest.fixture(scope="module")
def built(tmp_path_factory, cli: Path):
    """An each-agent store and set of the manifest, and the CLI's survey
    of the store in both formats."""
    d = tmp_path_factory.mktemp("survey")
    m = _manifest(d)
    store, store_set = d / "hosts.store", d / "hosts.set"
    each = _flags("--each-agent", AGENTS)
    subprocess.run([str(cli), "store", "build", *each, "--manifest", str(m), "-o", str(store), "-q"], check=True)
    subprocess.run(
        [str(cli), "store", "build", *each, "--shards", "3", "--manifest", str(m), "-o", str(store_set), "-q"],
        check=True,
    )
    out = {}
    for fmt in ("csv", "jsonl"):
        run = subprocess.run(
            [str(cli), "survey", "--store", str(store), *each, *_flags("--path", PATHS), "--format", fmt,
             "-o", "-", "-q"],
            check=True, capture_output=True,
        )
        out[fmt] = run.stdout.decode("utf-8")
    return store, store_set, out


def _verdict(allowed) -> str:
    return "" if allowed is None else ("allow" if allowed else "disallow")


def test_text_is_the_clis(built):
    store, _, out = built
    for fmt in ("csv", "jsonl"):
        assert robocc.survey_text(store, AGENTS, PATHS, format=fmt) == out[fmt]
    with robocc.Store.open(store) as s:
        assert robocc.survey_text(s, AGENTS, PATHS) == out["csv"]


def test_rows_are_the_clis_rows(built):
    store, _, out = built
    rows = list(robocc.survey(store, AGENTS, PATHS))
    table = list(csv.reader(io.StringIO(out["csv"])))
    header, lines = table[0], table[1:]
    assert len(rows) == len(lines) == HOSTS_IN_MANIFEST
    assert header[:8] == ["host", "status", "outcome", "source", "fetched_at", "read_whole", "sitemaps", "licenses"]
    assert "GPTBot:crawl:/a,b" in header
    jsonl = [json.loads(l) for l in out["jsonl"].splitlines()]
    for row, line, obj in zip(rows, lines, jsonl):
        cells = [row.host, str(row.status), row.outcome, row.source, row.fetched_at or "",
                 "true" if row.read_whole else "false", str(row.sitemaps), " ".join(row.licenses)]
        for a in row.agents:
            cells += [str(a.crawl_class), str(a.train_ai_class)]
            for p in a.paths:
                cells += [_verdict(p.crawl), _verdict(p.train_ai), _verdict(p.search), _verdict(p.ai_input)]
        assert cells == line
        assert (obj["host"], obj["status"], obj["fetched_at"], obj["licenses"]) == (
            row.host, row.status, row.fetched_at, list(row.licenses))
        for a, o in zip(row.agents, obj["agents"]):
            assert (o["agent"], o["crawl-class"], o["train-ai-class"]) == (
                a.agent, a.crawl_class.value, a.train_ai_class.value)
            for p, op in zip(a.paths, o["paths"]):
                assert op == {"path": p.path, "crawl": _verdict(p.crawl),
                              "train-ai": _verdict(p.train_ai) or None, "search": _verdict(p.search) or None,
                              "ai-input": _verdict(p.ai_input) or None}
    # Every class and the columns beside the rules occur.
    classes = {a.crawl_class for r in rows for a in r.agents}
    assert classes == {robocc.SurveyClass.ALL_DISALLOWED, robocc.SurveyClass.PARTLY, robocc.SurveyClass.ALL_ALLOWED}
    by_host = {r.host: r for r in rows}
    assert by_host["s2.example"].sitemaps == 2
    assert by_host["s2.example"].licenses == ("https://x.example/license.xml", "https://x.example/a,b.xml")
    # Content-Usage: train-ai=n, search=y; Content-Signal: ai-input=no.
    gpt = by_host["s3.example"].agents[0]
    assert (gpt.crawl_class, gpt.train_ai_class) == (robocc.SurveyClass.ALL_ALLOWED, robocc.SurveyClass.ALL_DISALLOWED)
    assert {(p.crawl, p.train_ai, p.search, p.ai_input) for p in gpt.paths} == {(True, False, True, False)}
    assert {r.source for r in rows} == {"fetched", "unavailable", "unreachable", "redirected"}
    assert by_host["s0.example:8080"].fetched_at == "2026-11-01T00:00:00Z"


def test_rows_agree_with_the_stores_checks(built):
    """Each probe answer is the store's own check of that URL (the
    engine's lookup and walk, not the survey's)."""
    store, _, _ = built
    with robocc.Store.open(store) as s:
        for row in robocc.survey(s, AGENTS, PATHS):
            for p in range(len(PATHS)):
                url = f"https://{row.host}{PATHS[p]}"
                each = s.check_each(url)
                for a in row.agents:
                    assert each[a.agent].allowed == a.paths[p].crawl, (url, a.agent)


def test_a_store_set_surveys_as_its_store(built):
    store, store_set, _ = built
    one = sorted(robocc.survey(store, AGENTS[::-1], ["/"]))
    shards = sorted(robocc.survey(store_set, AGENTS[::-1], ["/"]))
    assert one == shards and len(one) == HOSTS_IN_MANIFEST
    assert [a.agent for a in one[0].agents] == AGENTS[::-1]


def test_no_truth_values(built):
    store, _, _ = built
    row = next(robocc.survey(store, "GPTBot"))
    for value in (row, row.agents[0], row.agents[0].paths[0], row.agents[0].crawl_class):
        with pytest.raises(TypeError, match="not a truth value"):
            bool(value)
    assert str(robocc.SurveyClass.PARTLY) == "partly"


def test_refuses_what_the_cli_refuses(built, cli: Path):
    """An agent the store was not built for, as the CLI refuses it (the
    same message); no agent; a path without '/'."""
    store, _, _ = built
    with pytest.raises(ValueError) as e:
        robocc.survey(store, ["GPTBot", "Bingbot"])
    run = subprocess.run(
        [str(cli), "survey", "--store", str(store), "--each-agent", "GPTBot", "--each-agent", "Bingbot", "-o", "-"],
        capture_output=True, text=True,
    )
    assert run.returncode != 0 and run.stdout == ""
    assert f"robocc: error: {e.value}" in run.stderr
    assert 'do not answer agent "Bingbot"' in str(e.value)
    with pytest.raises(ValueError, match="do not answer agent"):
        robocc.survey_text(store, "Bingbot")
    with pytest.raises(ValueError, match="no agent"):
        robocc.survey(store, [])
    with pytest.raises(ValueError, match="does not start with '/'"):
        robocc.survey(store, "GPTBot", ["search"])
    with pytest.raises(ValueError, match="csv"):
        robocc.survey_text(store, "GPTBot", format="tsv")
    closed = robocc.Store.open(store)
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        robocc.survey(closed, "GPTBot")


# --- Spark -----------------------------------------------------------------

# The WARC test_spark.py writes: 20,000 hosts sharing 400 bodies
# (ROBOCC_SPARK_HOSTS=N changes the hosts); about 27 s on 2 cores, most of
# it Spark's start.
SURVEY_HOSTS, SURVEY_BODIES = HOSTS, 400

_READ_BACK = """
import json, sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.showConsoleProgress", "false").getOrCreate()
spark.sparkContext.setLogLevel("FATAL")
for r in spark.read.parquet(sys.argv[1]).collect():
    print(json.dumps(r.asDict()))
spark.stop()
"""


def _csv_text(columns: List[str], rows: List[dict]) -> str:
    """Parquet rows as CSV, by Python's csv module: booleans as the CLI
    writes them, null as empty."""
    def cell(v) -> str:
        if v is None:
            return ""
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    for r in sorted(rows, key=lambda r: r["host"]):
        w.writerow([cell(r[c]) for c in columns])
    return out.getvalue()


def _sorted_csv(text: str) -> str:
    header, *lines = text.splitlines(keepends=True)
    return header + "".join(sorted(lines, key=lambda l: l.split(",", 1)[0]))


def test_spark_survey_equals_cli_survey(tmp_path: Path, cli: Path):
    _java()
    started = time.monotonic()
    warcs, _ = write_warcs(tmp_path, SURVEY_HOSTS, SURVEY_BODIES)
    warc_args = [str(w) for w in warcs]
    agents, paths = ["GPTBot", "Googlebot"], ["/", "/search"]
    each = _flags("--each-agent", agents) + _flags("--path", paths)
    cli_csv = tmp_path / "cli.csv"
    t = time.monotonic()
    subprocess.run([str(cli), "survey", "--warc", *warc_args, *each, "-o", str(cli_csv), "-q"], check=True)
    cli_s = time.monotonic() - t
    out = tmp_path / "survey.parquet"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    t = time.monotonic()
    # The files from a list (@FILE: one argument a line).
    listing = tmp_path / "paths.txt"
    listing.write_text("".join(w + "\n" for w in warc_args))
    run = subprocess.run(
        [sys.executable, "-m", "robocc.spark", "survey", "--warc", f"@{listing}", *each, "-o", str(out),
         "--master", "local[2]", "--partitions", "2", "--partition-by", "outcome"],
        capture_output=True, text=True, env=env,
    )
    spark_s = time.monotonic() - t
    assert run.returncode == 0, run.stderr[-4000:]
    # Partitioned as asked: a directory per outcome.
    assert {p.name for p in out.iterdir() if p.is_dir()} >= {"outcome=2xx", "outcome=4xx", "outcome=5xx"}
    back = subprocess.run([sys.executable, "-c", _READ_BACK, str(out)], capture_output=True, text=True,
                          env=env, check=True)
    rows = [json.loads(l) for l in back.stdout.splitlines()]
    expected = cli_csv.read_text(encoding="utf-8")
    columns = next(csv.reader(io.StringIO(expected)))
    assert len(rows) == len(expected.splitlines()) - 1 > SURVEY_HOSTS // 2
    assert _csv_text(columns, rows) == _sorted_csv(expected)
    print(
        f"\n{len(rows)} hosts, 2 agents x 2 paths: robocc survey --warc {cli_s:.1f} s; "
        f"Spark local[2] {spark_s:.1f} s; test {time.monotonic() - started:.1f} s"
    )


def test_spark_survey_refuses_before_spark_starts(tmp_path: Path):
    m = tmp_path / "m.jsonl"
    m.write_text('{"host": "a.example", "status": 404}\n')
    (tmp_path / "exists.parquet").mkdir()
    cases = [
        (["--each-agent", "Google bot"], 'invalid agent product token "Google bot"'),
        (["--each-agent", "A", "--path", "x"], "does not start with '/'"),
        (["--each-agent", "A", "--path", "/a b"], "Parquet column names cannot hold"),
        (["--each-agent", "A", "--partition-by", "nope"], "--partition-by nope: not a column"),
        (["--each-agent", "A", "-o", str(tmp_path / "exists.parquet")], "exists: give a new path"),
    ]
    for args, message in cases:
        out = [] if "-o" in args else ["-o", str(tmp_path / "o.parquet")]
        run = subprocess.run(
            [sys.executable, "-m", "robocc.spark", "survey", "--manifest", str(m), *args, *out],
            capture_output=True, text=True,
        )
        assert run.returncode == 2, run.stderr
        assert f"robocc.spark: error: " in run.stderr and message in run.stderr, run.stderr
        assert "Traceback" not in run.stderr
