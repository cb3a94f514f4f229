"""corpus/conformance/*.json through the Python binding: every case's
expected verdicts come from the specifications (RFC 9309 and its tables,
Google's test suite, the 1996 draft, robots 2.0, ACAP 1.0, the AI-usage
preference drafts), so this checks the binding end to end against an
oracle that shares no code with it.

* rfc9309, draft1996, robots2: the crawl checks, through every crawl API.
* acap: every check, crawl or another usage type, through ``usage()`` and
  ``usage_states()`` (and the crawl ones through the crawl APIs too).
* signals: every check, through ``preference()`` (the search, train-ai and
  ai-input channels, tri-state) or ``usage("crawl")``, and
  ``usage_states()``. A check's deciding ``line`` is not compared: the
  binding's preference answer does not name its rule.

A case the binding cannot run is skipped by name with its reason (see
``skip_reason``), never dropped: ``test_every_case_is_run_or_skipped``
counts them. page.json (page-level permissions of HTML pages) is another
format, which the binding does not answer.
"""

from __future__ import annotations

import json
from typing import Dict, Iterator, List, Optional, Tuple

import pytest

import robocc

from conftest import CORPUS

FILES = sorted((CORPUS / "conformance").glob("*.json"))
OPTIONS = {"url_mode", "robots_txt", "max_bytes", "records_close_groups", "data_txt", "purposes", "references"}
CRAWL_DIALECTS = {"rfc9309", "draft1996", "robots2", "acap"}
# File kinds the binding does not answer at all, with the reason.
NOT_ANSWERED = {"page": "page-level permissions (HTML pages): robocc page, not the binding"}
PREFERENCE = {"allow": True, "disallow": False, "unknown": None}


def load() -> Iterator[Tuple[str, str, dict]]:
    """(file stem, dialect, case) for every case of every file."""
    for path in FILES:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for case in doc["cases"]:
            yield path.stem, doc["dialect"], case


def skip_reason(dialect: str, case: dict) -> Optional[str]:
    """Why the binding cannot run this case, or None."""
    if dialect in NOT_ANSWERED:
        return NOT_ANSWERED[dialect]
    return None


def body_of(case: dict) -> bytes:
    return bytes.fromhex(case["robots_hex"]) if "robots_hex" in case else case["robots"].encode()


def acap_checks(case: dict) -> List[Tuple[str, str, str]]:
    """(url, usage, verdict) for every check; a two-element check is crawl."""
    return [tuple(c) if len(c) == 3 else (c[0], "crawl", c[1]) for c in case["checks"]]


def crawl_checks(dialect: str, case: dict) -> List[Tuple[str, str]]:
    if dialect != "acap":
        return case["checks"]
    # undecidable is a prohibition
    return [
        (url, "disallow" if verdict == "undecidable" else verdict)
        for url, usage, verdict in acap_checks(case)
        if usage.lower() == "crawl"
    ]


def params(kinds) -> list:
    out = []
    for stem, dialect, case in load():
        if dialect not in kinds:
            continue
        reason = skip_reason(dialect, case)
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        out.append(pytest.param(dialect, case, id=f"{stem}:{case['name']}", marks=marks))
    return out


def compile_case(dialect: str, case: dict) -> robocc.Policy:
    options = dict(case.get("options", {}))
    if dialect == "signals":
        # rfc9309 with its defaults, the training tokens and the grouping
        known = {"training_agents", "preference_grouping"}
        assert set(options) <= known, f"unknown option in {case['name']}: {options}"
        return robocc.compile(body_of(case), case["agent"], **options)
    assert set(options) <= OPTIONS, f"unknown option in {case['name']}: {options}"
    if dialect != "rfc9309":
        options.pop("url_mode", None)  # the draft's dialects always decode
    if "references" in options:  # --reference PATH=FILE: the file's bytes
        options["references"] = {p: text.encode() for p, text in options["references"].items()}
    return robocc.compile(body_of(case), case["agent"], dialect=dialect, **options)


def run_crawl(dialect: str, case: dict) -> int:
    checks = crawl_checks(dialect, case)
    if not checks:
        return 0
    policy = compile_case(dialect, case)
    urls = [url for url, _ in checks]
    assert all(verdict in ("allow", "disallow") for _, verdict in checks), case["name"]
    expected = [verdict == "allow" for _, verdict in checks]
    assert [policy.allowed(u) for u in urls] == expected
    assert policy.allowed_many(urls) == expected
    assert [policy.allowed(u.encode()) for u in urls] == expected
    assert [policy.check(u).allowed for u in urls] == expected
    assert [policy.usage(u, "crawl") for u in urls] == expected
    return len(checks)


def run_acap(case: dict) -> int:
    policy = compile_case("acap", case)
    assert len(policy.usages) == 14
    for url, usage, verdict in acap_checks(case):
        want = verdict == "allow"  # undecidable is a prohibition
        where = f"{case['name']}: {url!r} {usage}"
        assert policy.usage(url, usage) is want, where
        states = policy.usage_states(url)
        assert tuple(states) == policy.usages, where
        assert states[usage.lower()] is want, where
    return len(case["checks"])


def run_signals(case: dict) -> int:
    policy = compile_case("signals", case)
    for check in case["checks"]:
        url, channel, verdict = check[:3]
        where = f"{case['name']}: {url!r} {channel}"
        states = policy.usage_states(url)
        assert tuple(states) == policy.usages, where
        assert set(states) in ({"crawl"}, {"crawl", "search", "train-ai", "ai-input"}), where
        if channel == "crawl":
            want = verdict == "allow"
            assert policy.usage(url, "crawl") is want, where
            assert policy.allowed(url) is want, where
            assert states["crawl"] is want, where
            continue
        want = PREFERENCE[verdict]
        assert policy.preference(url, channel) is want, where
        assert policy.preference(url.encode(), channel.upper()) is want, where
        # A policy whose file states no preference has no such channel:
        # usage_states() leaves it out, and it is unknown.
        assert states.get(channel) is want, where
        if channel not in states:
            assert want is None, where
    return len(case["checks"])


def run(dialect: str, case: dict) -> int:
    """Runs one case; the number of checks made."""
    if dialect == "signals":
        return run_signals(case)
    if dialect == "acap":
        return run_acap(case) + run_crawl(dialect, case)
    return run_crawl(dialect, case)


def test_the_conformance_files_are_there():
    assert {p.stem for p in FILES} >= {"rfc9309", "draft1996", "robots2", "acap", "signals"}
    kinds = {dialect for _, dialect, _ in load()}
    assert kinds <= CRAWL_DIALECTS | {"signals"} | set(NOT_ANSWERED), kinds


def test_every_case_is_run_or_skipped():
    """Every case of every file is run here, or skipped with its reason."""
    run_cases: Dict[str, int] = {}
    skipped: Dict[str, List[str]] = {}
    checks = 0
    total: Dict[str, int] = {}
    for _, dialect, case in load():
        total[dialect] = total.get(dialect, 0) + 1
        reason = skip_reason(dialect, case)
        if reason:
            skipped.setdefault(reason, []).append(case["name"])
            continue
        checks += run(dialect, case)
        run_cases[dialect] = run_cases.get(dialect, 0) + 1
    # Applicable: every case but page.json's, counted from the files alone
    # (the acap cases with permission references included).
    for dialect, n in total.items():
        if dialect in NOT_ANSWERED:
            assert dialect not in run_cases
            continue
        assert run_cases.get(dialect, 0) == n > 0, (dialect, run_cases, n)
    assert run_cases["signals"] == total["signals"] > 100
    assert sum(1 for _, d, c in load() if d == "acap" and "references" in c.get("options", {})) == 4
    assert sum(run_cases.values()) + sum(map(len, skipped.values())) == sum(total.values())
    assert checks > 1500, checks


@pytest.mark.parametrize("dialect,case", params({"rfc9309", "draft1996", "robots2"}))
def test_case(dialect, case):
    assert run_crawl(dialect, case) > 0


@pytest.mark.parametrize("dialect,case", params({"acap"}))
def test_acap_case(dialect, case):
    assert run(dialect, case) == len(case["checks"]) + len(crawl_checks(dialect, case))


@pytest.mark.parametrize("dialect,case", params({"signals"}))
def test_signals_case(dialect, case):
    assert run(dialect, case) == len(case["checks"])
