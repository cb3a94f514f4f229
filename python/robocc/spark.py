"""Store sets at Common Crawl scale on Spark (issue 19).

::

    python -m robocc.spark build --agent Googlebot --shards 16 --out hosts.set \\
        (--manifest fetched.jsonl | --warc CC-robots-*.warc.gz) [--master local[2]] \\
        [--dialect D] [--url-mode google|rfc] [--robots-txt allow|rules] [--on-failure disallow|allow] \\
        [--max-bytes N] [--max-rules N] [--compile-timeout SECS] [--max-store-bytes BYTES] [...]

writes the same directory, byte for byte, as ``robocc store build --agent
Googlebot --shards 16 -o hosts.set (--manifest … | --warc …)``, and a summary
``hosts.set.summary.json`` beside it; ``robocc.Store.open("hosts.set")``
reads it. Every compile and store flag of ``robocc store build`` is taken,
with its default and its meaning of 0 (no limit): ``--max-bytes``,
``--max-line-len``, ``--max-rules``, ``--max-states``, ``--max-table-bytes``,
``--max-automata``, ``--compile-timeout`` (fractions allowed; ``0`` for the
reproducible builds a wall-clock limit cannot give), ``--layout``,
``--data-txt``, ``--records-close-groups``, ``--training-agent``,
``--preference-grouping``, ``--purpose``, ``--reference PATH=FILE`` and ``--max-store-bytes`` (per
shard); not ``--base`` (which ``--shards`` refuses too) nor ``--registers``
(the binding keeps the default, auto). Each step is the Rust builder's own
code, called through the binding, so the two cannot drift:

1. **read** — WARC files are read one task per file by the Rust reader
   (:func:`robocc._native.iter_warc`: records in file order); a manifest is
   read in byte ranges, one task each, by the Rust line reader
   (:func:`robocc._native.read_manifest_range`: the bytes as they are in
   the file, so invalid UTF-8 or a byte-order mark is refused or read
   exactly as ``robocc store build --manifest`` does). Each record carries
   its order (file, record) or (byte offset).
2. **duplicates** — captures of one host are reduced as a build does: the
   last one in input order (files in the order given) wins, except that a
   redirect to the host itself (http → https) never replaces another
   capture.
3. **redirects** — the small table host → (status, location), no bodies, of
   the redirecting hosts and the hosts they point to is collected on the
   driver; :func:`robocc._native.redirect_dependencies`
   says which other hosts each redirect's resolution reads, and those
   records are sent to the redirecting host's partition too.
4. **compile** — records are partitioned by the store-set hash (FNV-1a 64 of
   the host key mod N, :func:`robocc._native.shard_of`); partition *i*
   builds shard *i* with :func:`robocc._native.build_store_shard` (identical
   bodies compiled once per partition) and writes ``shard-%05d.store``.
5. **index** — the driver writes ``index.txt``
   (:func:`robocc._native.store_set_index`) once every shard is written,
   and the summary.

On a cluster, ``--out``, the WARC files and a manifest's bodies must be on a
filesystem every executor and the driver see (NFS, a mounted bucket), and
the executors need the robocc wheel (``pip wheel ./python``, installed in their Python,
or ``--archives`` of a virtual environment with it)::

    spark-submit --master yarn \\
        --conf spark.pyspark.python=/opt/robocc-venv/bin/python \\
        "$(python -c 'import robocc.spark as m; print(m.__file__)')" \\
        build --agent Googlebot --shards 256 \\
        --out /mnt/shared/hosts.set --warc /mnt/shared/robotstxt/*.warc.gz

(``spark-submit`` runs a file: the module's own path, then the arguments of
``python -m robocc.spark``; the master is spark-submit's unless ``--master``
is given.)

A bad argument or input (a manifest line that is not JSON, a file that is
not WARC, a body file that cannot be read) is one line on stderr,
``robocc.spark: error: …`` with the command line's message, and exit
status 2, as ``robocc store build`` does. Spark's own log shows fatal
errors only (``--spark-log-level WARN`` shows more; a job started by
``spark-submit`` keeps its log configuration until the context starts).
Other failures (Spark's) exit 1 with Spark's exception.

The summary (``SET.summary.json``): ``hosts``, ``records`` and
``duplicates`` (captures of a host beyond its first); ``by_status``: hosts
per HTTP status as the reader returned it (``0``: no response); ``by_source``
(fetched, redirected, unavailable, unreachable, failed) and ``failures``
(host, reason), as the command line's summary counts them;
``not_read_whole`` and ``split_path`` (hosts); ``not_modified_lost``:
(host, why) of hosts that answered 304 Not Modified, which without a base
store are unreachable (disallow all), as the command line warns;
``bodies_compiled``: the
compiles run, summed over the partitions — each partition compiles its own
shard's distinct bodies, so a body shared by hosts of several shards counts
once per shard, and this is at least the command line's "policies compiled"
(distinct bodies over the whole set); ``bytes`` (shards and index),
``shard_hosts``, ``seconds``, ``hosts_per_second``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

INDEX = "index.txt"

# `robocc survey --max-reach-states`'s default (the Rust constant).
from robocc._native import DEFAULT_MAX_REACH_STATES  # noqa: E402

# A manifest is read in ranges of this many bytes, one task each.
MANIFEST_SPLIT_BYTES = 64 << 20

# `--max-store-bytes`'s default, the format's limit (robocc_engine::MAX_FRAMED_LEN).
MAX_STORE_BYTES = (1 << 32) - 1


def _file_type(mode: int) -> str:
    """"a FIFO", "a socket", … as the engine names a file that is not regular."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


# What a dialect whose URL reading is fixed does (its policies' url_mode).
_URL_READINGS = {
    "decode": "always decodes %xx except %2F",
    "google": "matches URLs as given, without decoding",
}


class BuildError(Exception):
    """A build refused or failed because of its arguments or inputs: the
    message is one line, the command line's (``main`` prints it as
    ``robocc.spark: error: …`` and exits 2)."""


def _shard_name(i: int) -> str:
    return "shard-%05d.store" % i


def _is_set_file(name: str) -> bool:
    return name == INDEX or (
        name.startswith("shard-") and name.endswith(".store") and name[6:-6].isdigit()
    )


def summary_path(out: str) -> Path:
    """Where the summary of a set written to ``out`` goes: beside it."""
    p = Path(out)
    return p.with_name(p.name.rstrip("/") + ".summary.json")


def _check_out(out: Path) -> int:
    """An output directory a set may be written to: new, empty, or a store
    set (its files are replaced). Returns the old set's shard count (0)."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise BuildError(f"{out}: exists and is not a directory: give a new or empty directory")
    if not out.exists():
        return 0
    names = os.listdir(out)
    others = [n for n in names if not _is_set_file(n)]
    if others:
        raise BuildError(
            f"{out}: holds files that are not a store set's ({others[0]}): give a new or empty directory"
        )
    return sum(1 for n in names if n.startswith("shard-"))


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# --- executors ------------------------------------------------------------


def _value(row: tuple, order: Tuple[int, int]):
    """A record as the duplicate reduction sees it: (rank, row, captures).
    The highest rank wins: not a redirect to the host itself first, then the
    last in input order — what a build's "last one wins, unless it is a
    redirect to itself" comes to."""
    from robocc import _native

    return ((not _native.is_self_redirect(row[0], row[1], row[3]), order), row, 1)


def _read_warc(item: Tuple[int, str]):
    from robocc import _native

    fi, path = item
    for ri, row in enumerate(_native.iter_warc(path)):
        yield row[0], _value(row, (fi, ri))


def _read_manifest_range(path: str, name: str):
    def read(item: Tuple[int, int]):
        from robocc import _native

        start, end = item
        for offset, row in _native.read_manifest_range(path, start, end, name):
            yield row[0], _value(row, (0, offset))

    return read


def _ranges(size: int, split: int) -> List[Tuple[int, int]]:
    """Byte ranges that tile a file of ``size`` bytes (one when empty)."""
    split = max(1, split)
    return [(start, min(start + split, size)) for start in range(0, max(size, 1), split)]


def _pick(a, b):
    """Two captures of one host → the one a build keeps, and the count."""
    best = a if a[0] > b[0] else b
    return (best[0], best[1], a[2] + b[2])


def _slim(kv):
    key, (_, row, _) = kv
    return (key, row[1], row[3])


def _temp_shard(out: str, index: int, token: str) -> Path:
    """Where partition ``index`` writes its shard until the driver, once
    every shard is built and within --max-store-bytes, renames it."""
    return Path(out) / f".{_shard_name(index)}.{token}"


def _builder(agent: str, shards: int, out: str, options: Dict[str, Any], token: str):
    def build(index: int, rows: Iterator[Tuple[int, tuple]]):
        from robocc import _native

        inputs = [row for _, row in rows]
        data, info, report = _native.build_store_shard(inputs, agent, shards, index, **options)
        with open(_temp_shard(out, index, token), "wb") as f:
            f.write(data)
        yield index, info, report

    return build


def _drop_temps(out_dir: Path, shards: int, token: str) -> None:
    for i in range(shards):
        try:
            _temp_shard(str(out_dir), i, token).unlink()
        except FileNotFoundError:
            pass

    return build


# --- driver ---------------------------------------------------------------


def _check_inputs(manifest: Optional[str], warc: Sequence[str]) -> None:
    """Inputs that cannot be read fail here, not as an executor's stack
    trace, with the command line's words. A FIFO or device is refused (the
    job reads a manifest in byte ranges, and each task opens its file
    again)."""
    if (manifest is None) == (not warc):
        raise BuildError("give --manifest FILE or --warc FILE…, one of them")
    for what, path in [("manifest", manifest)] + [("WARC file", w) for w in warc]:
        if path is None:
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as e:
            raise BuildError(f"{path}: cannot read {what}: {e.strerror} (os error {e.errno})") from None
        if stat.S_ISDIR(mode):
            raise BuildError(f"{path}: cannot read {what}: Is a directory (os error 21)")
        if not stat.S_ISREG(mode):
            raise BuildError(f"{path}: cannot read {what}: it is {_file_type(mode)}, not a regular file")


def _check_reading(dialect: str, url_mode: Optional[str], compile_options: Dict[str, Any]) -> None:
    """Bad options fail before Spark starts, with the command line's words:
    the flags of one dialect given with another (the binding's errors name
    the keywords), and url_mode with a dialect that reads URLs its own way."""
    from robocc import _native

    for key, flag, wants in (("purposes", "--purpose", "acap"), ("references", "--reference", "acap"),
                             ("training_agents", "--training-agent", "rfc9309"),
                             ("preference_grouping", "--preference-grouping", "rfc9309")):
        if compile_options.get(key) and dialect != wants:
            raise BuildError(
                f"{flag} applies to --dialect {wants}, and the file is read as {dialect}: "
                f"add --dialect {wants}, or drop {flag}"
            )
    if url_mode is not None and dialect != "rfc9309":
        own = _native.compile(b"", "robocc", dialect=dialect).url_mode
        raise BuildError(
            f"--url-mode applies to --dialect rfc9309 only; {dialect} "
            f"{_URL_READINGS.get(own, 'reads URLs its own way')}: drop --url-mode"
        )


def _hosts(sc, manifest: Optional[str], warc: Sequence[str]):
    """Steps 1 and 2: the inputs' records, one per host (the capture a
    build keeps), persisted; and what was read, for the summary."""
    from pyspark import StorageLevel

    if warc:
        files = [str(Path(w).absolute()) for w in warc]
        records = sc.parallelize(list(enumerate(files)), len(files)).flatMap(_read_warc)
        inputs: Dict[str, Any] = {"warc": files}
    else:
        # Byte ranges read by the Rust line reader: the same bytes, line
        # breaks, limits and errors as the command line's (textFile would
        # drop a byte-order mark and replace invalid UTF-8).
        path = Path(manifest).absolute()
        ranges = _ranges(path.stat().st_size, MANIFEST_SPLIT_BYTES)
        records = sc.parallelize(ranges, len(ranges)).flatMap(_read_manifest_range(str(path), str(manifest)))
        inputs = {"manifest": str(path)}
    return records.reduceByKey(_pick).persist(StorageLevel.MEMORY_AND_DISK), inputs


def _routed(sc, hosts, shards: int):
    """Step 3: ``(shard, row)`` pairs in ``shards`` partitions, partition
    *i* holding shard *i*'s hosts and the hosts their redirects read; and
    the redirect table's size."""
    from robocc import _native

    # The driver holds the redirecting hosts and the hosts they point to
    # (key, status, location; no bodies), not every host.
    redirects = hosts.filter(lambda kv: 300 <= kv[1][1][1] <= 399).map(_slim).collect()
    targets = {t for t in (_native.url_host_key(r[2]) for r in redirects if r[2]) if t}
    targets_b = sc.broadcast(targets)
    table = redirects + hosts.filter(lambda kv: kv[0] in targets_b.value).map(_slim).collect()
    deps = _native.redirect_dependencies(table)
    need: Dict[str, set] = {}
    for host, reads in deps.items():
        mine = _native.shard_of(host, shards)
        for dep in reads:
            if _native.shard_of(dep, shards) != mine:
                need.setdefault(dep, set()).add(mine)
    need_b = sc.broadcast({k: sorted(v) for k, v in need.items()})
    n = shards

    def route(kv):
        from robocc import _native as nat

        key, (_, row, _) = kv
        yield nat.shard_of(key, n), row
        for s in need_b.value.get(key, ()):
            yield s, row

    return hosts.flatMap(route).partitionBy(shards, lambda s: s), len(table)


# Spark's log4j2 configuration for a job started here (not by
# spark-submit): LEVEL from --spark-log-level, on stderr. The two named
# loggers are those whose level Spark prints as "Setting default log level"
# when they have none of their own.
_LOG4J2 = """\
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = {level}
logger.submit.name = org.apache.spark.deploy.SparkSubmit
logger.submit.level = {level}
"""


def _spark(master: Optional[str], log_level: str, scratch: Path):
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise BuildError(
            "PySpark is not installed: pip install pyspark (the job also needs a Java "
            "runtime, JDK 17+, e.g. apt-get install openjdk-17-jre-headless)"
        ) from None
    # Local workers run this interpreter (where robocc is installed), not
    # whatever `python3` is first on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.appName("robocc store set")
        # The stage progress bar on a terminal only.
        .config("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower())
    )
    if not os.environ.get("PYSPARK_GATEWAY_PORT"):
        # A JVM started here logs at log_level from its start: a failed
        # task's stack trace is not printed (robocc's error is, as one
        # line), nor Spark's start-up notes.
        config = scratch / "log4j2.properties"
        config.write_text(_LOG4J2.format(level=log_level.lower()))
        builder = builder.config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={config.as_uri()}"
        )
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    return spark


@contextmanager
def _job(master: Optional[str], log_level: str):
    """A Spark session on ``master`` (else $ROBOCC_SPARK_MASTER, else
    spark-submit's or local[*]), stopped at the end; robocc's error that
    failed a task becomes a :class:`BuildError` (one line)."""
    scratch = tempfile.TemporaryDirectory(prefix="robocc-spark-")
    try:
        spark = _spark(
            master or os.environ.get("ROBOCC_SPARK_MASTER") or _default_master(),
            log_level,
            Path(scratch.name),
        )
    except BaseException:
        scratch.cleanup()
        raise
    try:
        yield spark
    except Exception as e:
        message = _task_error(e)
        if message is None:
            raise
        raise BuildError(message) from None
    finally:
        spark.stop()
        scratch.cleanup()


# robocc's exceptions as a Python worker's traceback names them, inside the
# JVM's error (Py4JJavaError) that a failed task becomes on the driver.
_ROBOCC_ERROR = re.compile(
    r"^(?:robocc\.(?:_native\.)?)?(?:StoreBuildError|LoadError|CompileError|AgentError|RoboccError"
    r"|FileNotFoundError|PermissionError|IsADirectoryError|NotADirectoryError|OSError): (.*)$",
    re.M,
)


def _task_error(e: BaseException) -> Optional[str]:
    """The message of robocc's error that failed a Spark task, if that is
    what ``e`` (the driver's exception) wraps; ``None`` otherwise."""
    from robocc import RoboccError

    if isinstance(e, (RoboccError, OSError)):
        return str(e)
    text = str(getattr(e, "java_exception", "") or "") + "\n" + str(e)
    found = _ROBOCC_ERROR.findall(text)
    return found[-1].strip() if found else None


def build(
    agent: str,
    shards: int,
    out: str,
    manifest: Optional[str] = None,
    warc: Sequence[str] = (),
    master: Optional[str] = None,
    dialect: str = "rfc9309",
    on_failure: str = "disallow",
    url_mode: Optional[str] = None,
    robots_txt: str = "allow",
    spark_log_level: str = "FATAL",
    max_store_bytes: int = MAX_STORE_BYTES,
    **compile_options: Any,
) -> Dict[str, Any]:
    """Builds the store set and its summary; returns the summary. Raises
    :class:`BuildError` (one line: what is wrong) for bad arguments and
    inputs, including those an executor finds. ``url_mode``: rfc9309 only,
    as ``--url-mode``; ``None`` is the dialect's own reading.
    ``compile_options`` are :func:`robocc.compile`'s other keyword
    arguments (``max_rules=0``, ``compile_timeout=0``, ``references={path:
    contents}``, …), with its defaults; ``max_store_bytes`` refuses a
    larger shard (0: the format's limit), as ``--max-store-bytes``."""
    from robocc import RoboccError, _native

    if not 1 <= shards <= 65536:
        raise BuildError(f"--shards {shards}: a store set has 1 to 65536 shards")
    if on_failure not in ("disallow", "allow"):
        raise BuildError(f"--on-failure {on_failure}: disallow or allow")
    _check_inputs(manifest, warc)
    if max_store_bytes < 0:
        raise BuildError(f"--max-store-bytes {max_store_bytes}: expected a number of bytes ≥ 0 (0: the format's limit)")
    index_options = dict(compile_options, dialect=dialect, url_mode=url_mode, robots_txt=robots_txt)
    options = dict(index_options, on_failure=on_failure)
    try:
        _check_reading(dialect, url_mode, compile_options)
        _native.store_set_index(agent, [(0, 0, 0)], **index_options)
        # The URL reading in force, for the summary.
        effective_url_mode = _native.compile(
            b"", "robocc", dialect=dialect, url_mode=url_mode, robots_txt=robots_txt
        ).url_mode
    except (RoboccError, ValueError, TypeError) as e:
        raise BuildError(str(e)) from None
    out_dir = Path(out).absolute()
    old = _check_out(out_dir)
    started = time.monotonic()
    with _job(master, spark_log_level) as spark:
        sc = spark.sparkContext
        hosts, inputs = _hosts(sc, manifest, warc)
        # Counts, on the executors.
        by_status = hosts.map(lambda kv: kv[1][1][1]).countByValue()
        host_count = sum(by_status.values())
        duplicates = hosts.map(lambda kv: kv[1][2] - 1).sum()
        routed, table = _routed(sc, hosts, shards)
        created = not out_dir.exists()
        out_dir.mkdir(parents=True, exist_ok=True)
        token = f"tmp{os.getpid()}-{time.time_ns()}"
        try:
            results = (
                routed
                .mapPartitionsWithIndex(_builder(agent, shards, str(out_dir), options, token))
                .collect()
            )
        except BaseException:
            _drop_temps(out_dir, shards, token)
            raise
    results.sort(key=lambda r: r[0])
    if [r[0] for r in results] != list(range(shards)):
        _drop_temps(out_dir, shards, token)
        raise RuntimeError(f"internal error: shards built {[r[0] for r in results]}")
    # As the command line: no shard is written unless every one fits (the
    # first over the limit is named).
    over = [r for r in results if max_store_bytes and r[1][0] > max_store_bytes]
    if over:
        _drop_temps(out_dir, shards, token)
        if created:
            out_dir.rmdir()
        i, info = over[0][0], over[0][1]
        raise BuildError(
            f"{out}: not written: shard {i} would be {info[0]} bytes, over --max-store-bytes "
            f"{max_store_bytes}; use more shards or raise the limit"
        )
    for i in range(shards):
        os.replace(_temp_shard(str(out_dir), i, token), out_dir / _shard_name(i))
    index = _native.store_set_index(agent, [tuple(r[1]) for r in results], **index_options)
    _replace(out_dir / INDEX, index.encode("ascii"))
    for i in range(shards, old):
        stale = out_dir / _shard_name(i)
        if stale.is_file():
            stale.unlink()
    seconds = time.monotonic() - started
    by_source: Counter = Counter()
    failures: List[Tuple[str, str]] = []
    unread = split = compiled = 0
    # A host is in its own shard's report, and in others' when their
    # redirects read it: once each.
    not_modified_lost = set()
    for _, _, rep in results:
        not_modified_lost.update(tuple(n) for n in rep["not_modified_lost"])
        by_source.update(rep["by_source"])
        failures.extend(rep["failures"])
        unread += len(rep["unread"])
        split += len(rep["split"])
        compiled += rep["compiled"]
    summary = {
        "store_set": str(out_dir),
        "agent": agent,
        "dialect": dialect,
        "url_mode": effective_url_mode,
        "robots_txt": robots_txt,
        "on_failure": on_failure,
        # The limits and other compile options given (the rest are the
        # defaults); references by path only.
        "options": {k: (sorted(v) if k == "references" else v) for k, v in sorted(compile_options.items())},
        "max_store_bytes": max_store_bytes,
        "shards": shards,
        "input": inputs,
        "records": host_count + duplicates,
        "hosts": host_count,
        "duplicates": duplicates,
        "by_status": {str(k): v for k, v in sorted(by_status.items())},
        "redirect_table": table,
        "by_source": {k: by_source.get(k, 0) for k in ("fetched", "redirected", "unavailable", "unreachable", "failed")},
        "failures": sorted([list(f) for f in failures]),
        "not_read_whole": unread,
        "split_path": split,
        "not_modified_lost": sorted([list(n) for n in not_modified_lost]),
        "bodies_compiled": compiled,
        "bytes": sum(r[1][0] for r in results) + len(index),
        "shard_hosts": [r[1][1] for r in results],
        "seconds": round(seconds, 3),
        "hosts_per_second": round(host_count / seconds, 1) if seconds > 0 else None,
    }
    summary_path(str(out_dir)).write_text(json.dumps(summary, indent=1) + "\n")
    return summary


# Characters Spark's Parquet writer refuses in a column name.
_PARQUET_REFUSED = set(" ,;{}()\n\t=")


def _surveyor(agents: List[str], paths: List[str], shards: int, max_reach_states: int, options: Dict[str, Any]):
    def survey_partition(index: int, rows: Iterator[Tuple[int, tuple]]):
        from robocc import _native
        from robocc._survey import cells

        inputs = [row for _, row in rows]
        _, facts, hosts = _native.survey_shard(inputs, agents, shards, index, paths, max_reach_states, **options)
        return cells(facts, hosts)

    return survey_partition


def _schema(columns: List[str], agents: List[str], paths: List[str]):
    """The Parquet columns: ``robocc survey``'s CSV columns, typed (status
    and sitemaps integers, read_whole a boolean, an unstated preference or
    fetched_at null)."""
    from pyspark.sql.types import BooleanType, IntegerType, LongType, StringType, StructField, StructType

    types = {"status": IntegerType(), "read_whole": BooleanType(), "sitemaps": LongType()}
    # Per agent: two classes, then per path crawl (never null) and three preferences.
    per_agent = [False, False] + [False, True, True, True] * len(paths)
    nullable = [False, False, False, False, True, False, False, False] + per_agent * len(agents)
    return StructType(
        [StructField(c, types.get(c, StringType()), n) for c, n in zip(columns, nullable)]
    )


def survey(
    agents: Sequence[str],
    out: str,
    manifest: Optional[str] = None,
    warc: Sequence[str] = (),
    paths: Sequence[str] = ("/",),
    partition_by: Sequence[str] = (),
    partitions: Optional[int] = None,
    max_reach_states: int = DEFAULT_MAX_REACH_STATES,
    master: Optional[str] = None,
    dialect: str = "rfc9309",
    url_mode: Optional[str] = None,
    robots_txt: str = "allow",
    spark_log_level: str = "FATAL",
    **compile_options: Any,
) -> Dict[str, Any]:
    """``robocc survey --warc … | --manifest M`` on Spark: a row per host,
    written as Parquet to ``out`` by Spark's writer (partitioned by the
    columns ``partition_by``). The hosts are read, reduced and routed as
    :func:`build` does; each partition builds its store-set shard
    each-agent for ``agents`` and surveys it with the store crate's survey
    (:func:`robocc._native.survey_shard`), so the rows are the command
    line's. Returns ``{"output", "hosts", "seconds", "hosts_per_second"}``;
    raises :class:`BuildError` as :func:`build` does."""
    from robocc import RoboccError, _native

    agents, paths = list(agents), list(paths)
    _check_inputs(manifest, warc)
    if partitions is not None and not 1 <= partitions <= 65536:
        raise BuildError(f"--partitions {partitions}: 1 to 65536")
    options = dict(compile_options, dialect=dialect, url_mode=url_mode, robots_txt=robots_txt)
    try:
        _check_reading(dialect, url_mode, compile_options)
        # The agents, paths and options as the survey takes them, and its
        # columns: an empty shard's survey.
        columns = _native.survey_shard([], agents, 1, 0, paths, max_reach_states, **options)[0]
    except (RoboccError, ValueError, TypeError) as e:
        raise BuildError(str(e)) from None
    for p in paths:
        if _PARQUET_REFUSED & set(p):
            raise BuildError(
                f"--path {p!r}: Parquet column names cannot hold spaces or any of ,;{{}}()= "
                "(the columns are AGENT:USAGE:PATH)"
            )
    for c in partition_by:
        if c not in columns:
            raise BuildError(f"--partition-by {c}: not a column (host, status, outcome, source, …)")
    out_path = Path(out).absolute()
    if out_path.exists() or out_path.is_symlink():
        raise BuildError(f"{out}: exists: give a new path for the Parquet output")
    started = time.monotonic()
    with _job(master, spark_log_level) as spark:
        sc = spark.sparkContext
        hosts, _ = _hosts(sc, manifest, warc)
        host_count = hosts.count()
        shards = partitions or max(1, sc.defaultParallelism)
        routed, _ = _routed(sc, hosts, shards)
        rows = routed.mapPartitionsWithIndex(_surveyor(agents, paths, shards, max_reach_states, options))
        frame = spark.createDataFrame(rows, _schema(columns, agents, paths))
        writer = frame.write
        if partition_by:
            writer = writer.partitionBy(*partition_by)
        writer.parquet(out_path.as_uri())
    seconds = time.monotonic() - started
    return {
        "output": str(out_path),
        "hosts": host_count,
        "seconds": round(seconds, 3),
        "hosts_per_second": round(host_count / seconds, 1) if seconds > 0 else None,
    }


def _default_master() -> Optional[str]:
    # Under spark-submit (which launches this Python with a gateway to its
    # JVM) the master is spark-submit's; `python -m robocc.spark` alone runs
    # on this machine.
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        return None
    return "local[*]"


def _count(text: str) -> int:
    """A limit: a whole number ≥ 0 (0: no limit), as the command line's."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number ≥ 0 (0: no limit)")
    return int(text)


def _seconds(text: str) -> float:
    """``--compile-timeout``: seconds ≥ 0, fractions allowed, as the command
    line reads it (the binding refuses what it refuses)."""
    try:
        secs = float(text)
    except ValueError:
        secs = float("nan")
    if not secs >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds ≥ 0 (0 or inf: no limit)")
    return secs


def _references(given: Sequence[str]) -> Dict[str, bytes]:
    """``--reference PATH=FILE`` → {PATH: the file's bytes}, with the command
    line's messages."""
    out: Dict[str, bytes] = {}
    for r in given:
        path, sep, file = r.partition("=")
        if not sep:
            raise BuildError(f"--reference {json.dumps(r)} is not PATH=FILE (e.g. --reference /searchbot.txt=searchbot.txt)")
        if os.path.isdir(file):
            raise BuildError(f"{file} is a directory, not a robots.txt file")
        try:
            with open(file, "rb") as f:
                out[path] = f.read()
        except OSError as e:
            raise BuildError(f"cannot read robots.txt {file}: {e.strerror} (os error {e.errno})") from None
    return out


def _reading_flags(p: argparse.ArgumentParser) -> None:
    """The compile flags ``store build`` and ``survey`` share, with the
    command line's defaults."""
    p.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    p.add_argument("--dialect", default="rfc9309", choices=["rfc9309", "draft1996", "robots2", "acap"])
    p.add_argument(
        "--url-mode",
        choices=["google", "rfc"],
        help="rfc9309 only: google (the default: URLs as given) or rfc (normalised per RFC 9309)",
    )
    p.add_argument("--robots-txt", default="allow", choices=["allow", "rules"])
    p.add_argument("--data-txt", action="store_true", help="the files are /data.txt files (draft1996)")
    p.add_argument("--records-close-groups", action="store_true",
                   help="any non-rule record ends a group (a strict reading of RFC 9309's grammar)")
    p.add_argument("--training-agent", action="append", default=[], metavar="TOKEN",
                   help="rfc9309: a product token AI operators use for training only (repeatable)")
    p.add_argument("--preference-grouping", choices=["spec", "crawl"],
                   help="rfc9309: preference lines grouped as their spec reads (spec, the default) "
                        "or in the crawl's groups (crawl)")
    p.add_argument("--purpose", action="append", default=[], metavar="PURPOSE",
                   help="acap: a usage purpose the crawler serves (repeatable)")
    p.add_argument("--reference", action="append", default=[], metavar="PATH=FILE",
                   help="acap: the file an ACAP-permissions-reference names (repeatable)")
    limits = p.add_argument_group("limits (0: no limit; the defaults are robocc store build's)")
    for flag, what in [
        ("--max-bytes", "parse at most N bytes of each robots.txt"),
        ("--max-line-len", "keep at most N bytes of one line"),
        ("--max-rules", "keep at most N rules per group"),
        ("--max-states", "states of one automaton"),
        ("--max-table-bytes", "transition-table bytes over all automata of a policy"),
        ("--max-automata", "automata of one policy"),
    ]:
        limits.add_argument(flag, type=_count, metavar="N", help=what)
    limits.add_argument(
        "--compile-timeout", type=_seconds, metavar="SECS",
        help="seconds one file may spend in the lowering (fractions allowed; a wall-clock limit: "
        "0 for builds that must be reproducible)",
    )
    limits.add_argument("--layout", choices=["auto", "compact", "dense"], help="state layout (default auto)")
    p.add_argument(
        "--spark-log-level",
        default="FATAL",
        choices=["ALL", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"],
        help="Spark's log level (default FATAL: a failed task's stack trace is not shown; "
        "robocc's own errors are one line whatever it is)",
    )


def _compile_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The compile options given (the rest are robocc.compile's
    defaults); ``--reference`` files are read (:class:`BuildError`)."""
    compile_options: Dict[str, Any] = {
        k: getattr(args, k)
        for k in ("max_bytes", "max_line_len", "max_rules", "max_states", "max_table_bytes",
                  "max_automata", "compile_timeout", "layout", "preference_grouping")
        if getattr(args, k) is not None
    }
    for flag, key in (("data_txt", "data_txt"), ("records_close_groups", "records_close_groups"),
                      ("training_agent", "training_agents"), ("purpose", "purposes")):
        if getattr(args, flag):
            compile_options[key] = getattr(args, flag)
    if args.reference:
        compile_options["references"] = _references(args.reference)
    return compile_options


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m robocc.spark",
        description="Build a robocc store set on Spark (the same bytes as `robocc store build --shards N`), "
        "or survey WARC files (the rows of `robocc survey`) into Parquet. @FILE reads arguments "
        "from FILE, one a line (a dump's tens of thousands of WARC paths: --warc @paths.txt).",
        # A dump's WARC paths do not fit on a command line.
        fromfile_prefix_chars="@",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build a store set from a JSONL manifest or WARC files")
    b.add_argument("--agent", required=True, help="product token the policies are compiled for")
    b.add_argument("--shards", type=int, required=True, help="number of shards, 1 to 65536")
    b.add_argument("--out", required=True, help="output directory (new, empty, or a store set)")
    src = b.add_mutually_exclusive_group(required=True)
    src.add_argument("--manifest", help="JSONL manifest (robocc store build --manifest format)")
    src.add_argument("--warc", nargs="+", help="Common Crawl robots.txt WARC files (.warc, .warc.gz)")
    b.add_argument("--on-failure", default="disallow", choices=["disallow", "allow"])
    _reading_flags(b)
    b.add_argument("--max-store-bytes", type=_count, default=MAX_STORE_BYTES, metavar="BYTES",
                   help="refuse a shard larger than this (0: the format's limit, 4 GiB)")
    v = sub.add_parser("survey", help="survey WARC files or a manifest into Parquet (robocc survey's rows)")
    v.add_argument("--each-agent", action="append", required=True, metavar="AGENT",
                   help="an agent surveyed (repeatable: its columns in this order)")
    v.add_argument("--path", action="append", default=[], metavar="PATH",
                   help="a probe path, answered per agent (repeatable; default /)")
    v.add_argument("-o", "--output", required=True, help="the Parquet output directory (must not exist)")
    v.add_argument("--partition-by", action="append", default=[], metavar="COLUMN",
                   help="a column the Parquet output is partitioned by (repeatable; e.g. outcome)")
    v.add_argument("--partitions", type=int, help="Spark partitions the hosts are surveyed in "
                   "(default: Spark's default parallelism)")
    v.add_argument("--max-reach-states", type=_count, default=DEFAULT_MAX_REACH_STATES, metavar="N",
                   help="most states explored per policy for the classes (0: no limit)")
    src = v.add_mutually_exclusive_group(required=True)
    src.add_argument("--manifest", help="JSONL manifest (robocc store build --manifest format)")
    src.add_argument("--warc", nargs="+", help="Common Crawl robots.txt WARC files (.warc, .warc.gz)")
    _reading_flags(v)
    args = parser.parse_args(argv)
    try:
        # What both commands read, and how.
        reading = dict(
            manifest=args.manifest,
            warc=args.warc or (),
            master=args.master,
            dialect=args.dialect,
            url_mode=args.url_mode,
            robots_txt=args.robots_txt,
            spark_log_level=args.spark_log_level,
            **_compile_options(args),
        )
        if args.command == "survey":
            done = survey(
                agents=args.each_agent,
                out=args.output,
                paths=args.path or ["/"],
                partition_by=args.partition_by,
                partitions=args.partitions,
                max_reach_states=args.max_reach_states,
                **reading,
            )
            print(
                f"{done['output']}: {done['hosts']} hosts in {done['seconds']} s "
                f"({done['hosts_per_second']} hosts/s)",
                file=sys.stderr,
            )
            return 0
        summary = build(
            agent=args.agent,
            shards=args.shards,
            out=args.out,
            on_failure=args.on_failure,
            max_store_bytes=args.max_store_bytes,
            **reading,
        )
    except BuildError as e:
        print(f"robocc.spark: error: {e}", file=sys.stderr)
        return 2
    s = summary
    print(
        f"{s['store_set']}: {s['hosts']} hosts ({s['duplicates']} duplicate captures) in "
        f"{s['shards']} shards, {s['bytes']} bytes, {s['seconds']} s "
        f"({s['hosts_per_second']} hosts/s); failures {len(s['failures'])}; "
        f"summary {summary_path(s['store_set'])}",
        file=sys.stderr,
    )
    lost = s["not_modified_lost"]
    if lost:
        # Disallow all where the crawler expected its kept file: said, as
        # `robocc store build` says it.
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        print(
            f"robocc.spark: warning: {len(lost)} hosts answered 304 Not Modified with no "
            f"policy to keep (the job takes no base store): unreachable (disallow all): "
            f"{', '.join(host for host, _ in lost[:5])}{more}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
