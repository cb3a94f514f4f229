"""The Spark job (robocc.spark) against `robocc store build --shards --warc`:
a WARC of real robots.txt responses (mixed statuses, redirects, HTML error
pages, gzip and chunked payloads, truncated records, duplicate captures),
built both ways; the directories must be byte-identical and every host must
answer as a single-machine store of the same inputs does.

Needs Java and PySpark (.ci/run installs PySpark; a JDK 17 must be on the
machine); skipped, saying which, only when one is absent. ROBOCC_SPARK_HOSTS
changes the number of hosts (default 20,000)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Tuple

import pytest

import robocc
from robocc import _native
from conftest import CORPUS, SHARED_REAL, urls_for

HOSTS = int(os.environ.get("ROBOCC_SPARK_HOSTS", "20000"))
AGENT = "Googlebot"


def _bodies(limit: int = 400) -> List[bytes]:
    """Real robots.txt bodies that compile fast: files under 8 KB."""
    src = SHARED_REAL if SHARED_REAL.is_dir() else CORPUS / "real"
    files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix != ".md" and p.stat().st_size < 8192)
    return [p.read_bytes() for p in files[:limit]]


def _record(uri: str, http: bytes, extra: str = "") -> bytes:
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {uri}\r\nWARC-Date: 2026-11-01T00:00:00Z\r\n{extra}"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + http + b"\r\n\r\n", compresslevel=1)


def _request(uri: str) -> bytes:
    block = b"GET /robots.txt HTTP/1.1\r\n\r\n"
    head = (
        f"WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: {uri}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + block + b"\r\n\r\n", compresslevel=1)


HTML = b"<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>Oops</h1></body></html>\n"


def _chunked(body: bytes) -> bytes:
    out = b""
    for i in range(0, len(body), 1000):
        part = body[i : i + 1000]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def write_warcs(dir: Path, n: int, distinct: int = 400) -> Tuple[List[Path], List[Tuple[str, bytes]]]:
    """Two WARC files (the second ends in a record cut short) whose hosts
    share ``distinct`` corpus bodies round robin; returns them and (host,
    body the URLs are generated from) per host."""
    bodies = _bodies(distinct)
    hosts: List[Tuple[str, bytes]] = []
    main: List[bytes] = []
    for i in range(n):
        host = f"h{i}.example" if i % 50 else f"h{i}.example:8080"
        scheme = "https" if i % 3 else "http"
        uri = f"{scheme}://{host}/robots.txt"
        body = bodies[i % len(bodies)]
        kind = i % 20
        if i % 10 == 1:
            main.append(_request(uri))
        if kind <= 11:
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body
        elif kind == 12:
            http = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gzip.compress(body)
        elif kind == 13:
            http = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + _chunked(body)
        elif kind == 14:
            http = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n" + HTML
        elif kind == 15:
            http = b"HTTP/1.1 503 Service Unavailable\r\n\r\n"
        elif kind == 16:
            # Targets of every kind: bodies, errors, other redirects (chains).
            j = (i * 7 + 3 + i // 20) % n
            target = f"h{j}.example"
            if j % 50 == 0:
                target += ":8080"
            http = f"HTTP/1.1 301 Moved Permanently\r\nLocation: https://{target}/robots.txt\r\n\r\n".encode()
        elif kind == 17:
            # A soft 404: an HTML page served as 200.
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + HTML
        elif kind == 18:
            http = b"HTTP/1.1 302 Found\r\nLocation: https://elsewhere.invalid/robots.txt\r\n\r\n"
        else:
            http = b"HTTP/1.1 500 Internal Server Error\r\n\r\n"
        if i % 97 == 5:
            # Common Crawl's http → https redirect beside the capture.
            main.append(
                _record(
                    f"http://{host}/robots.txt",
                    f"HTTP/1.1 301 Moved\r\nLocation: https://{host}/robots.txt\r\n\r\n".encode(),
                )
            )
        if i % 500 == 7:
            main.append(_record(uri, b"HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDis", "WARC-Truncated: length\r\n"))
        else:
            main.append(_record(uri, http))
        hosts.append((host, body))
    a = dir / "robots-a.warc.gz"
    a.write_bytes(b"".join(main))
    # The second file: later captures of hosts of the first (they win), then
    # a record cut inside its gzip member (the end of a partial download).
    second = [
        _record("https://h2.example/robots.txt", b"HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /second\n"),
        _record("https://h4.example/robots.txt", b"HTTP/1.1 404 Not Found\r\n\r\n"),
    ]
    cut = _record("https://last.example/robots.txt", b"HTTP/1.1 200 OK\r\n\r\n" + bodies[0])
    b = dir / "robots-b.warc.gz"
    b.write_bytes(b"".join(second) + cut[: len(cut) // 2])
    hosts.append(("last.example", bodies[0]))
    return [a, b], hosts


def _absent(why: str) -> None:
    # .ci/run sets ROBOCC_REQUIRE_SPARK: there, a missing piece is a failure.
    if os.environ.get("ROBOCC_REQUIRE_SPARK"):
        pytest.fail(f"ROBOCC_REQUIRE_SPARK is set but {why}")
    pytest.skip(why)


def _java() -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _absent("no Java runtime (java not on PATH, JAVA_HOME unset): the Spark job needs a JDK 17+")
    try:
        import pyspark  # noqa: F401
    except ImportError:
        _absent("PySpark is not installed (pip install pyspark): .ci/run installs it")


def test_warc_files_that_cannot_be_opened_are_os_errors(tmp_path: Path):
    for read in (_native.read_warc, _native.iter_warc):
        with pytest.raises(FileNotFoundError) as e:
            read(tmp_path / "missing.warc")
        assert e.value.filename == str(tmp_path / "missing.warc")
        with pytest.raises(IsADirectoryError):
            read(tmp_path)


def test_rust_reader_agrees_with_warcio(tmp_path: Path):
    """robocc's WARC reader and warcio (a well-kept independent reader) see
    the same records: host, status, Location, decoded payload."""
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError:
        _absent("warcio is not installed (pip install warcio): .ci/run installs it")
    (a, _), _ = write_warcs(tmp_path, 600)
    ours = _native.read_warc(a)
    theirs = []
    with open(a, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response":
                continue
            uri = rec.rec_headers.get_header("WARC-Target-URI")
            status = int(rec.http_headers.get_statuscode())
            payload = rec.content_stream().read()
            theirs.append((uri, status, rec.http_headers.get_header("Location"), payload,
                           rec.rec_headers.get_header("WARC-Truncated")))
    assert len(ours) == len(theirs)
    for row, (uri, status, location, payload, truncated) in zip(ours, theirs):
        host, st, body, loc, fetched_at, failure = row
        assert host == robocc.host_key(uri.split("://", 1)[1].split("/", 1)[0])
        assert fetched_at == "2026-11-01T00:00:00Z"
        if truncated:
            assert failure and "WARC-Truncated" in failure
            continue
        assert failure is None and st == status and loc == location
        assert body == (payload if 200 <= status < 300 else None)


def _check(cli: Path, store: Path, urls: Path, fmt: str) -> bytes:
    out = subprocess.run(
        [str(cli), "check", "--store", str(store), "--missing", "unknown", "--format", fmt, "--urls", str(urls)],
        check=True,
        capture_output=True,
    )
    return out.stdout


def _files(d: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_shard_hash_is_the_documented_one():
    def fnv(key: bytes, n: int) -> int:
        h = 0xCBF29CE484222325
        for b in key:
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return h % n

    for host in ["Example.COM", "a.example:8080", "b.example:443", "xn--bcher-kva.example"]:
        key = robocc.host_key(host)
        assert _native.shard_of(key, 7) == fnv(key.encode(), 7)


def test_spark_job_equals_store_build_shards(tmp_path: Path, cli: Path):
    _java()
    started = time.monotonic()
    warcs, hosts = write_warcs(tmp_path, HOSTS)
    size_in = sum(w.stat().st_size for w in warcs)
    warc_args = [str(w) for w in warcs]

    # Single machine: the set and a single store of the same inputs.
    rust_set = tmp_path / "rust.set"
    t = time.monotonic()
    subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "--shards", "4", "-o", str(rust_set), "-q", "--warc", *warc_args],
        check=True,
    )
    rust_s = time.monotonic() - t
    single = tmp_path / "single.store"
    subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "-o", str(single), "-q", "--warc", *warc_args], check=True
    )

    # The binding's whole-set build from the Rust reader's rows: the same.
    rows = [r for w in warcs for r in _native.read_warc(w)]
    shards, index, report = _native.build_store_set(rows, AGENT, 4)
    assert index.encode() == (rust_set / "index.txt").read_bytes()
    for i, s in enumerate(shards):
        assert s == (rust_set / ("shard-%05d.store" % i)).read_bytes()

    # Spark, on two local cores.
    spark_set = tmp_path / "spark.set"
    t = time.monotonic()
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    run = subprocess.run(
        [
            sys.executable, "-m", "robocc.spark", "build", "--agent", AGENT, "--shards", "4",
            "--out", str(spark_set), "--master", "local[2]", "--warc", *warc_args,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    spark_s = time.monotonic() - t
    assert run.returncode == 0, run.stderr[-4000:]

    # Byte-identical directories.
    assert sorted(p.name for p in spark_set.iterdir()) == ["index.txt"] + ["shard-%05d.store" % i for i in range(4)]
    assert _files(spark_set) == _files(rust_set)

    # Every host answers as the single store does (JSON: verdict, source, status).
    urls = tmp_path / "urls.txt"
    lines = []
    for i, (host, body) in enumerate(hosts):
        for u in urls_for(body, 3, i):
            path = u.split("://", 1)[1]
            path = path[path.find("/") :] if "/" in path else "/"
            lines.append(f"{'http' if i % 2 else 'https'}://{host}{path}")
    lines += ["https://not-in-the-set.example/x", "https://elsewhere.invalid/"]
    urls.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for fmt in ("text", "json"):
        assert _check(cli, spark_set, urls, fmt) == _check(cli, single, urls, fmt)

    # The summary, beside the set.
    summary = json.loads((tmp_path / "spark.set.summary.json").read_text())
    assert summary["hosts"] == len(hosts) == report["hosts"]
    assert summary["by_source"] == report["by_source"]
    assert summary["by_source"]["failed"] >= 2
    assert summary["by_source"]["redirected"] > len(hosts) // 100
    # The job counts every extra capture; a build's report does not count a
    # redirect to the host itself beside the capture it leads to.
    assert summary["duplicates"] == len(report["duplicates"]) + report["self_redirects"]
    assert report["self_redirects"] > 0
    reasons = dict(map(tuple, summary["failures"]))
    assert "truncated" in reasons["last.example"]
    assert "WARC-Truncated" in reasons["h7.example"]
    assert {"200", "301", "302", "404", "500", "503"} <= set(summary["by_status"])
    # The later file's capture won.
    single_store = robocc.Store.open(single)
    assert single_store.allowed("https://h2.example/second") is False
    assert single_store.allowed("https://h4.example/anything") is True

    size_out = sum(p.stat().st_size for p in rust_set.iterdir())
    print(
        f"\n{len(hosts)} hosts, WARC {size_in} bytes, store set {size_out} bytes; "
        f"store build --shards 4: {rust_s:.1f} s ({len(hosts) / rust_s:.0f} hosts/s); "
        f"Spark local[2]: {spark_s:.1f} s ({len(hosts) / spark_s:.0f} hosts/s); "
        f"test {time.monotonic() - started:.1f} s"
    )


def test_spark_job_from_a_manifest(tmp_path: Path, cli: Path):
    _java()
    bodies = _bodies(40)
    (tmp_path / "bodies").mkdir()
    lines = []
    for i in range(300):
        host = f"m{i}.example"
        if i % 5 == 0:
            lines.append({"host": host, "status": 301, "location": f"https://m{(i + 1) % 300}.example/robots.txt"})
        elif i % 7 == 0:
            lines.append({"host": host, "status": 404})
        else:
            (tmp_path / "bodies" / f"{host}.txt").write_bytes(bodies[i % len(bodies)])
            lines.append({"host": host, "status": 200, "body_path": f"bodies/{host}.txt"})
    lines.append({"host": "m3.example", "status": 503})
    manifest = tmp_path / "fetched.jsonl"
    manifest.write_text("".join(json.dumps(l) + "\n" for l in lines))
    rust_set = tmp_path / "rust.set"
    subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "--shards", "3", "-o", str(rust_set), "-q", "--manifest", str(manifest)],
        check=True,
    )
    spark_set = tmp_path / "spark.set"
    run = subprocess.run(
        [sys.executable, "-m", "robocc.spark", "build", "--agent", AGENT, "--shards", "3", "--out", str(spark_set),
         "--master", "local[2]", "--manifest", str(manifest)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert _files(spark_set) == _files(rust_set)
    summary = json.loads((tmp_path / "spark.set.summary.json").read_text())
    assert summary["duplicates"] == 1 and summary["hosts"] == 300
    # The reading flags reach every shard and the index, as the CLI's do.
    flags = ["--url-mode", "rfc", "--robots-txt", "rules", "--on-failure", "allow"]
    subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "--shards", "3", "-o", str(tmp_path / "rust2.set"), "-q",
         "--manifest", str(manifest), *flags],
        check=True,
    )
    run = subprocess.run(
        [sys.executable, "-m", "robocc.spark", "build", "--agent", AGENT, "--shards", "3",
         "--out", str(tmp_path / "spark2.set"), "--master", "local[2]", "--manifest", str(manifest), *flags],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert _files(tmp_path / "spark2.set") == _files(tmp_path / "rust2.set")
    assert _files(tmp_path / "spark2.set") != _files(spark_set)
    # So do the limits and the other compile flags of `store build` (issue
    # 41: the job had none of them, not even --compile-timeout 0), and
    # --max-store-bytes refuses with the CLI's message, writing nothing.
    flags = ["--max-rules", "1", "--max-bytes", "60", "--max-line-len", "20", "--compile-timeout", "0",
             "--layout", "dense", "--training-agent", "Google-Extended", "--records-close-groups"]
    subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "--shards", "3", "-o", str(tmp_path / "rust3.set"), "-q",
         "--manifest", str(manifest), *flags],
        check=True,
    )
    too_small = ["--max-store-bytes", "2000"]
    rust = subprocess.run(
        [str(cli), "store", "build", "--agent", AGENT, "--shards", "3", "-o", str(tmp_path / "rust4.set"), "-q",
         "--manifest", str(manifest), *flags, *too_small],
        capture_output=True, text=True,
    )
    assert rust.returncode == 2 and "over --max-store-bytes 2000" in rust.stderr, rust.stderr
    for out, extra in (("spark3.set", []), ("rust4.set", too_small)):
        run = subprocess.run(
            [sys.executable, "-m", "robocc.spark", "build", "--agent", AGENT, "--shards", "3",
             "--out", str(tmp_path / out), "--master", "local[2]", "--manifest", str(manifest), *flags, *extra],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        )
        if extra:
            assert run.returncode == 2, run.stderr[-4000:]
            cli_error = rust.stderr.strip().splitlines()[-1].split("robocc: error: ", 1)[1]
            assert [l for l in run.stderr.splitlines() if "error" in l] == [f"robocc.spark: error: {cli_error}"]
            assert not (tmp_path / out).exists()
            continue
        assert run.returncode == 0, run.stderr[-4000:]
    assert _files(tmp_path / "spark3.set") == _files(tmp_path / "rust3.set")
    assert _files(tmp_path / "spark3.set") != _files(tmp_path / "spark2.set")
    summary = json.loads((tmp_path / "spark3.set.summary.json").read_text())
    assert summary["options"]["max_rules"] == 1 and summary["options"]["compile_timeout"] == 0


def test_missing_pyspark_is_a_clear_error(tmp_path: Path):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"host": "a.example", "status": 404}\n')
    code = (
        "import sys, builtins\n"
        "real = builtins.__import__\n"
        "def imp(name, *a, **k):\n"
        "    if name.startswith('pyspark'): raise ImportError(name)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = imp\n"
        "from robocc import spark\n"
        f"sys.exit(spark.main(['build', '--agent', 'A', '--shards', '2', '--out', {str(tmp_path / 'o')!r}, "
        f"'--manifest', {str(manifest)!r}]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 2
    assert "robocc.spark: error: PySpark is not installed: pip install pyspark" in run.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agent", "Google bot"], 'robocc.spark: error: invalid agent product token "Google bot"'),
        (["--agent", "A", "--url-mode", "bogus"], "invalid choice: 'bogus'"),
        # The command line's words (issue 41).
        (["--agent", "A", "--warc", "missing.warc.gz"],
         "robocc.spark: error: missing.warc.gz: cannot read WARC file: No such file or directory (os error 2)"),
        (["--agent", "A", "--compile-timeout", "-1"], "'-1' is not a number of seconds ≥ 0 (0 or inf: no limit)"),
        (["--agent", "A", "--max-rules", "x"], "'x' is not a number ≥ 0 (0: no limit)"),
        (["--agent", "A", "--dialect", "acap", "--reference", "nofile"],
         'robocc.spark: error: --reference "nofile" is not PATH=FILE (e.g. --reference /searchbot.txt=searchbot.txt)'),
        (["--agent", "A", "--purpose", "news"],
         "robocc.spark: error: --purpose applies to --dialect acap, and the file is read as rfc9309: "
         "add --dialect acap, or drop --purpose"),
        (["--agent", "A", "--shards", "0"], "robocc.spark: error: --shards 0: a store set has 1 to 65536 shards"),
        # As the command line refuses it (python audit F2).
        (["--agent", "A", "--dialect", "draft1996", "--url-mode", "rfc"],
         "robocc.spark: error: --url-mode applies to --dialect rfc9309 only; draft1996 always decodes %xx except %2F: drop --url-mode"),
        (["--agent", "A", "--dialect", "acap", "--url-mode", "google"],
         "robocc.spark: error: --url-mode applies to --dialect rfc9309 only; acap matches URLs as given"),
    ],
)
def test_bad_arguments_fail_before_spark_starts(tmp_path: Path, args, message):
    """One line that says what is wrong, not a traceback (PySpark is not
    imported: these fail first)."""
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"host": "a.example", "status": 404}\n')
    source = [] if "--warc" in args else ["--manifest", str(manifest)]
    shards = [] if "--shards" in args else ["--shards", "2"]
    run = subprocess.run(
        [sys.executable, "-m", "robocc.spark", "build", *shards, "--out", str(tmp_path / "o"), *args, *source],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    # 2, as the command line's usage and input errors.
    assert run.returncode == 2, run.stderr
    assert message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "o").exists()


def _manifest_lines() -> bytes:
    lines = [
        b'{"host": "a.example", "status": 200, "body": "User-agent: *\\nDisallow: /a\\n"}\n',
        b"\n",
        b'{"host": "b.example", "status": 404}\r\n',
        b"   \t \n",
        b'{"host": "c.example", "status": 301, "location": "https://a.example/robots.txt"}\n',
        b'  {"host": "d.example", "status": 200, "body": "User-agent: *\\nDisallow: /\\u00e9\\n"}  \n',
        b'{"host": "a.example", "status": 503}\n',
        b'{"host": "e.example", "status": 0}',  # no final line break
    ]
    return b"".join(lines)


def test_manifest_ranges_read_each_line_once(tmp_path: Path):
    """read_manifest_range, over ranges that tile the file, reads what the
    whole file's one range reads (the Spark job reads a manifest so, python
    audit F3): each line once, from the range it starts in."""
    from robocc import spark

    m = tmp_path / "m.jsonl"
    data = _manifest_lines()
    m.write_bytes(data)
    whole = list(_native.read_manifest_range(m, 0, len(data)))
    assert [row[0] for _, row in whole] == ["a.example", "b.example", "c.example", "d.example", "a.example", "e.example"]
    starts, pos = [], 0
    for line in data.split(b"\n"):
        if line.strip():
            starts.append(pos)
        pos += len(line) + 1
    assert [o for o, _ in whole] == starts
    for split in (1, 2, 3, 5, 17, 64, len(data) - 1, len(data), 1 << 20):
        ranges = spark._ranges(len(data), split)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        got = [r for start, end in ranges for r in _native.read_manifest_range(m, start, end)]
        assert got == whole, split
    # An error names the line counted from the file's start, as the CLI's.
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(data.replace(b'{"host": "c.example"', b'not json {"host": "c.example"'))
    with pytest.raises(robocc.StoreBuildError, match=r"^bad\.jsonl:5: not a JSON object"):
        for start, end in spark._ranges(bad.stat().st_size, 7):
            list(_native.read_manifest_range(bad, start, end, "bad.jsonl"))
    assert spark._ranges(0, 64) == [(0, 0)]
    assert list(_native.read_manifest_range(m, len(data), len(data))) == []


def test_spark_job_refuses_what_the_cli_refuses_in_one_line(tmp_path: Path, cli: Path):
    """A manifest's raw bytes reach the Rust reader (a BOM, invalid UTF-8:
    the CLI's answer, not Hadoop's decoding, python audit F3), and an input
    error an executor finds is the CLI's one line with exit 2, not a JVM
    stack trace (F4)."""
    _java()
    cases = {
        "bom.jsonl": b'\xef\xbb\xbf{"host": "a.com", "status": 200, "body": "User-agent: *\\nDisallow: /x\\n"}\r\n'
                     b'{"host": "b.com", "status": 404}\r\n',
        "badutf8.jsonl": b'{"host": "a.com", "status": 404}\n{"host": "b.com", "status": 200, "body": "x\xff"}\n',
        "badline.jsonl": b'{"host": "a.com", "status": 200, "body": "x"}\nthis is not json\n',
        "nobody.jsonl": b'{"host": "a.com", "status": 200, "body_path": "bodies/none.txt"}\n',
        "notwarc.warc": b"hello, not a warc\n",
    }
    for name, data in cases.items():
        src = tmp_path / name
        src.write_bytes(data)
        flag = "--warc" if name.endswith(".warc") else "--manifest"
        rust = subprocess.run(
            [str(cli), "store", "build", "--agent", AGENT, "--shards", "2", "-o", str(tmp_path / (name + ".cli")),
             "-q", flag, str(src)],
            capture_output=True, text=True,
        )
        run = subprocess.run(
            [sys.executable, "-m", "robocc.spark", "build", "--agent", AGENT, "--shards", "2",
             "--out", str(tmp_path / (name + ".spark")), "--master", "local[2]", flag, str(src)],
            capture_output=True, text=True, env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        )
        if rust.returncode == 0:
            assert run.returncode == 0, (name, run.stderr[-4000:])
            assert _files(tmp_path / (name + ".spark")) == _files(tmp_path / (name + ".cli")), name
            continue
        assert rust.returncode == 2, (name, rust.stderr)
        cli_error = rust.stderr.strip().splitlines()[-1].split("robocc: error: ", 1)[1]
        assert run.returncode == 2, (name, run.stderr[-4000:])
        errors = [l for l in run.stderr.splitlines() if l.startswith("robocc.spark: error: ")]
        assert errors == [f"robocc.spark: error: {cli_error}"], (name, run.stderr[-4000:])
        assert "Traceback" not in run.stderr and "at org.apache" not in run.stderr, (name, run.stderr[-4000:])
        assert len(run.stderr.strip().splitlines()) <= 5, (name, run.stderr)
    # The two that only Spark used to accept (a BOM, and \xff turned into
    # U+FFFD) are the CLI's errors, whatever those are.
