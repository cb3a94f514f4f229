"""robocc.Fetch and robocc.RobotsCache: the fetch rules (docs/fetch.md) from
Python, each expectation the table's row, and a cache whose decisions
expire and are fetched again."""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

import robocc

ROBOTS = "https://a.example/robots.txt"
HOST = "https://a.example"
RULES = b"User-agent: *\nDisallow: /private\n"
DAY = 86400


def answer(status, headers=None, body=None, **rules):
    return robocc.Fetch(ROBOTS, robocc.FetchRules(**rules)).answer(status, headers, body, now=1000)


@pytest.mark.parametrize("status,decision,reason,hold", [
    (200, "rules", "success", DAY),
    (404, "allow_all", "unavailable 404", DAY),
    (410, "allow_all", "unavailable 410", DAY),
    (429, "disallow_all", "rate_limited", 300),
    (500, "disallow_all", "server_error 500", 300),
    (503, "disallow_all", "server_error 503", 300),
    (100, "disallow_all", "other_status 100", 300),
])
def test_status_rows(status, decision, reason, hold):
    d = answer(status, body=RULES if status == 200 else None)
    assert (d.decision, d.reason, d.hold) == (decision, reason, hold)
    assert d.failure == (decision == "disallow_all")


def test_headers_set_holds():
    assert answer(200, {"cache-control": "max-age=600"}, RULES).hold == 600
    assert answer(200, {"Cache-Control": "no-store"}, RULES).hold == 60
    assert answer(503, {"Retry-After": "120"}).hold == 120
    assert answer(429, {"RETRY-AFTER": "9999999"}).hold == DAY
    d = answer(200, {"ETag": '"x"', "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"}, RULES)
    assert d.validators == ("Sun, 06 Nov 1994 08:49:37 GMT", '"x"')
    assert d.body == RULES


def test_redirects_and_failures():
    f = robocc.Fetch(ROBOTS)
    assert f.answer(301, {"Location": "/b/robots.txt"}, now=0) == "https://a.example/b/robots.txt"
    assert (f.url, f.hops) == ("https://a.example/b/robots.txt", 1)
    refused = f.answer(302, {"Location": "https://b.example/robots.txt"}, now=0)
    assert (refused.decision, refused.reason) == ("disallow_all", "redirect_refused")
    f = robocc.Fetch(ROBOTS, robocc.FetchRules(redirects="any-host"))
    assert f.answer(302, {"Location": "https://b.example/robots.txt"}, now=0) == "https://b.example/robots.txt"
    assert robocc.Fetch(ROBOTS).fail("timeout", now=0).reason == "transport timeout"
    html = answer(200, body=b"<!DOCTYPE html><html><body>hi</body></html>")
    assert html.decision == "rules" and "HTML" in html.diagnostics[0]
    assert answer(200, body=b"<html><body>x</body></html>", html_is_unreachable=True).decision == "disallow_all"
    big = answer(200, body=RULES + b"# pad\n" * 200_000)
    assert len(big.body) <= 512_000 and "parse limit" in big.diagnostics[0]
    with pytest.raises(ValueError):
        robocc.Fetch("robots.txt")
    with pytest.raises(ValueError):
        robocc.FetchRules(redirects="anywhere")
    with pytest.raises(ValueError):
        robocc.Fetch(ROBOTS).fail("gremlins")


def test_cache_expires_and_fetches_again():
    cache = robocc.RobotsCache("ExampleBot", robocc.FetchRules(failure_hold=30))
    url = HOST + "/private/x"
    assert cache.check(HOST, url, now=0) == robocc.CacheAnswer.FETCH
    assert cache.check(HOST, url, now=1) == robocc.CacheAnswer.WAIT
    d = robocc.Fetch(ROBOTS).answer(200, {"Cache-Control": "max-age=100"}, RULES, now=2)
    assert cache.report(HOST, d, now=2) == "rules"
    assert cache.check(HOST, url, now=3) == robocc.CacheAnswer.DISALLOW
    assert cache.check(HOST, HOST + "/", now=101) == robocc.CacheAnswer.ALLOW
    assert cache.held(HOST) == ("rules", "success", 102, False)
    # Expired: fetched again; a 503 keeps the last good rules.
    assert cache.check(HOST, url, now=102) == robocc.CacheAnswer.FETCH
    down = cache.fetch(ROBOTS).fail("connection", now=103)
    assert cache.report(HOST, down, now=103) == "rules"
    assert cache.check(HOST, url, now=104) == robocc.CacheAnswer.DISALLOW
    assert cache.held(HOST) == ("rules", "transport connection", 133, True)
    assert cache.ask(HOST, now=133) == "fetch"
    # A host never fetched well and down: disallowed until its hold ends.
    other = "https://b.example"
    cache.ask(other, now=0)
    cache.report(other, cache.fetch(other + "/robots.txt").answer(500, now=0), now=0)
    assert cache.check(other, other + "/", now=10) == robocc.CacheAnswer.DISALLOW
    assert cache.check(other, other + "/", now=30) == robocc.CacheAnswer.FETCH
    assert len(cache) == 2
    # No truth value: `if cache.check(...)` would read "fetch first" as allowed.
    with pytest.raises(TypeError):
        bool(cache.check(other, other + "/", now=30))
    assert str(robocc.CacheAnswer.DISALLOW) == "disallow"
    with pytest.raises(robocc.AgentError):
        robocc.RobotsCache("not a token")


@pytest.mark.parametrize("name", ["FetchRules", "RobotsCache"])
def test_signatures_show_the_real_defaults(name):
    """help() shows the defaults, and the stubs say the same (as for
    compile: python audit F12)."""
    params = inspect.signature(getattr(robocc, name)).parameters
    shown = {k: p.default for k, p in params.items()
             if p.default is not inspect.Parameter.empty and p.kind is p.KEYWORD_ONLY}
    tree = ast.parse((pathlib.Path(robocc.__file__).parent / "_native.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    stub = {a.arg: ast.literal_eval(d) for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults)}
    assert shown == stub and Ellipsis not in shown.values()
    if name == "FetchRules":
        assert repr(robocc.FetchRules(**shown)) == repr(robocc.FetchRules())
