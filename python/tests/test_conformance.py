"""corpus/conformance/*.json through the Python binding: every case's
expected verdicts come from the specifications (RFC 9309 and its tables,
Google's test suite, the 1996 draft, robots 2.0), so this checks the
binding end to end against an oracle that shares no code with it."""

from __future__ import annotations

import json

import pytest

import robocc

from conftest import CORPUS

FILES = sorted((CORPUS / "conformance").glob("*.json"))
OPTIONS = {"url_mode", "robots_txt", "max_bytes", "records_close_groups", "data_txt"}


# The binding answers crawl: the page and signals files (other check
# forms) are the Rust tests' alone; acap cases give their crawl checks
# (undecidable is a prohibition), except those that need purposes or
# permissions references, which the binding does not take.
DIALECTS = {"rfc9309", "draft1996", "robots2", "acap"}


def crawl_checks(dialect, case):
    if dialect != "acap":
        return case["checks"]
    out = []
    for check in case["checks"]:
        url, usage, verdict = check if len(check) == 3 else (check[0], "crawl", check[1])
        if usage == "crawl":
            out.append([url, "disallow" if verdict == "undecidable" else verdict])
    return out


def cases():
    for path in FILES:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc["dialect"] not in DIALECTS:
            continue
        for case in doc["cases"]:
            opts = case.get("options", {})
            if doc["dialect"] == "acap" and ("purposes" in opts or "references" in opts):
                continue
            checks = crawl_checks(doc["dialect"], case)
            if not checks:
                continue
            case = dict(case, checks=checks)
            yield pytest.param(doc["dialect"], case, id=f"{path.stem}:{case['name']}")


def test_the_conformance_files_are_there():
    assert {p.stem for p in FILES} >= {"rfc9309", "draft1996", "robots2"}
    assert sum(1 for _ in cases()) > 150


@pytest.mark.parametrize("dialect,case", list(cases()))
def test_case(dialect, case):
    body = bytes.fromhex(case["robots_hex"]) if "robots_hex" in case else case["robots"].encode()
    options = dict(case.get("options", {}))
    assert set(options) <= OPTIONS, f"unknown option in {case['name']}: {options}"
    if dialect != "rfc9309":
        options.pop("url_mode", None)  # the draft's dialects always decode
    policy = robocc.compile(body, case["agent"], dialect=dialect, **options)
    urls = [url for url, _ in case["checks"]]
    expected = [verdict == "allow" for _, verdict in case["checks"]]
    assert [verdict in ("allow", "disallow") for _, verdict in case["checks"]] == [True] * len(urls)
    assert [policy.allowed(u) for u in urls] == expected
    assert policy.allowed_many(urls) == expected
    assert [policy.allowed(u.encode()) for u in urls] == expected
    assert [policy.check(u).allowed for u in urls] == expected
