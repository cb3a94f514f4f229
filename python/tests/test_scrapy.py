"""robocc.scrapy.RobotParser: the interface Scrapy calls, and a real crawl.

The crawl starts an HTTP server on 127.0.0.1 serving a small site whose
robots.txt has allow/disallow rules, wildcards, `$`, a query rule and a
Sitemap; runs a Scrapy spider with ROBOTSTXT_OBEY=True and
ROBOTSTXT_PARSER = "robocc.scrapy.RobotParser" (in a subprocess: Twisted's
reactor runs once per process); and checks from the server's own request
log that every allowed page was fetched and no disallowed one was. The same
crawl with Scrapy's default parser (Protego) must fetch the same set."""

from __future__ import annotations

import functools
import http.server
import json
import logging
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import List

import pytest

import robocc
from robocc.scrapy import RobotParser
from conftest import CORPUS

ROBOTS = """\
User-agent: *
Disallow: /

# Scrapy's default User-Agent header is "Scrapy/<version> (+https://scrapy.org)":
# its product token names this group (and then the * group does not apply).
User-agent: Scrapy
Disallow: /private/
Allow: /private/open.html
Disallow: /*.pdf$
Disallow: /search?
Disallow: /b/c.html

Sitemap: {base}/sitemap.xml
"""

PAGES = {
    "index.html": ["a.html", "private/secret.html", "private/open.html", "docs/report.pdf",
                   "docs/report.pdf?download=1", "search?q=robots", "search.html", "b/"],
    "a.html": ["b/c.html", "private/", "/"],
    "private/open.html": ["secret.html", "../a.html"],
    "private/secret.html": [],
    "private/index.html": [],
    "search.html": ["search?q=x"],
    "b/index.html": ["c.html", "d.html"],
    "b/c.html": [],
    "b/d.html": [],
}

# Worked out by hand from the rules above (RFC 9309: longest match wins,
# `$` anchors the end, the query is part of the path matched).
EXPECTED_FETCHED = {"/robots.txt", "/", "/a.html", "/private/open.html", "/docs/report.pdf?download=1",
                    "/search.html", "/b/", "/b/d.html"}
EXPECTED_FORBIDDEN = {"/private/secret.html", "/private/", "/docs/report.pdf", "/search?q=robots",
                      "/search?q=x", "/b/c.html"}


def test_from_crawler_interface():
    body = ROBOTS.format(base="https://example.com").encode()
    rp = RobotParser.from_crawler(None, body)
    ua = "Scrapy/2.13.0 (+https://scrapy.org)"
    assert rp.allowed("https://example.com/private/open.html", ua) is True
    assert rp.allowed(b"https://example.com/private/secret.html", ua.encode()) is False
    assert rp.allowed("https://example.com/a.html", "Scrapy") is True
    assert rp.allowed("https://example.com/a.html", "OtherBot/1.0") is False
    assert rp.allowed("https://example.com/a.html", "") is False  # no token: the * group
    assert rp.sitemaps() == ["https://example.com/sitemap.xml"]
    assert rp.crawl_delay(ua) is None
    # compiled once per token, whatever the spelling of the user agent
    p = rp._policies
    assert p.for_agent(ua) is p.for_agent("scrapy") is p.for_agent(b"Scrapy/1.0")
    # str bodies and bodies with a BOM or invalid UTF-8 are read as bytes are
    assert RobotParser.from_crawler(None, "\ufeff" + body.decode()).allowed("https://example.com/b/c.html", ua) is False
    assert RobotParser.from_crawler(None, b"\xff\xfe" + body).allowed("https://example.com/a.html", ua) is True


def test_a_header_naming_a_draft_token(caplog):
    body = b"User-agent: MJ12bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n"
    ua = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)"
    # rfc9309: the MJ12bot group, as Google reads it (as "MJ"), and said.
    rp = RobotParser(body, None)
    assert rp.allowed("https://e.com/a", ua) is False
    assert rp.allowed("https://e.com/b", ua) is True
    assert "'MJ'" in caplog.text
    # draft1996: the name whole.
    rp = RobotParser(body, None, dialect="draft1996")
    assert rp.allowed("https://e.com/a", ua) is False
    assert rp.allowed("https://e.com/a", "MJ12bot") is False


def test_crawl_delay_and_options():
    rp = RobotParser(b"User-agent: slowbot\nCrawl-delay: 4\nDisallow: /%7Ex\n", None, url_mode="rfc")
    assert rp.crawl_delay("SlowBot/1.0") == 4.0
    assert rp.allowed("https://e.com/~x", "slowbot") is False
    with pytest.raises(TypeError):
        RobotParser(b"", None, no_such_option=1)


def test_a_file_over_the_budget_is_answered_from_its_rules(caplog):
    """robocc.compile answers from the rules and compiles the automaton only
    when the checks pay for it: a file whose automaton does not fit the
    memory or time limits is answered as written, with nothing to warn
    about (it used to disallow its site: a compile error left no answer)."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b\n" % i for i in range(300))
    rp = RobotParser(body, None, max_states=10, max_automata=1)
    unlimited = robocc.compile(body, "bot", max_states=0, eager=True)
    with caplog.at_level(logging.INFO, logger="robocc"):
        for path in ("/", "/xa7yb", "/a7b", "/xa300b", "/b"):
            url = "https://shop.example:8080" + path
            assert rp.allowed(url, "bot") is unlimited.allowed(path), path
        assert rp.crawl_delay("bot") is None
    assert [r for r in caplog.records if r.name == "robocc"] == []


def test_eager_compiling_disallows_a_file_over_the_budget(caplog):
    """With eager=True (compile before the first answer) a file over the
    memory or time limits cannot be answered: the site is disallowed, and
    the log line says which site, which limit and how to raise it (python
    audit F1)."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b\n" % i for i in range(300))
    rp = RobotParser(body, None, max_states=10, max_automata=1, eager=True)
    with caplog.at_level(logging.WARNING, logger="robocc"):
        assert rp.allowed("https://shop.example:8080/", "bot") is False
    [record] = [r for r in caplog.records if r.name == "robocc"]
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert "robots.txt of shop.example:8080 not compiled for bot" in message
    assert "every URL of the site is disallowed" in message
    assert "ROBOCC_OPTIONS = {'max_states': 0}" in message or "ROBOCC_OPTIONS = {'max_automata': 0}" in message


def test_a_file_over_the_automata_limit_is_read_as_google_reads_it(caplog):
    """A file that needs more than 1024 automata gets Google's answers
    (Protego fetches these URLs too), at the cost of slower checks (python
    audit F1): the adapters lift the automata limit unless it is set, so
    its automaton, once the checks pay for it, is built too."""
    body = (CORPUS / "hostile" / "overlapping-star-dollar.txt").read_bytes()
    with pytest.raises(robocc.CompileError, match="max_automata=0"):
        robocc.compile(body, "Scrapy", eager=True)
    ours = robocc.compile(body, "Scrapy", max_automata=0, eager=True)
    for options in ({}, {"eager": True}):
        rp = RobotParser.from_crawler(None, body) if not options else RobotParser(body, None, **options)
        with caplog.at_level(logging.INFO, logger="robocc"):
            assert rp.allowed("https://hostile.example/", "Scrapy/2.13 (+https://scrapy.org)") is True
            assert rp.allowed("https://hostile.example/page.html", "Scrapy") is True
            for path in ("/", "/page.html", "/a/b$", "/x.php"):
                assert rp.allowed("https://hostile.example" + path, "Scrapy") is ours.allowed(path)
        assert [r for r in caplog.records if r.name == "robocc"] == [], options
    # A limit the project set is the project's: it bounds the automaton;
    # the checks are answered from the rules (with eager=True, which must
    # build it first, the site is disallowed).
    strict = RobotParser(body, None, max_automata=1024)
    assert strict.allowed("https://hostile.example/", "Scrapy") is True
    assert strict.allowed("https://hostile.example/x.php", "Scrapy") is ours.allowed("/x.php")
    strict = RobotParser(body, None, max_automata=1024, eager=True)
    with caplog.at_level(logging.WARNING, logger="robocc"):
        assert strict.allowed("https://hostile.example/", "Scrapy") is False
    assert "ROBOCC_OPTIONS = {'max_automata': 0}" in caplog.text


def test_a_bad_user_agent_type_is_a_type_error():
    rp = RobotParser.from_crawler(None, b"User-agent: *\nDisallow: /x\n")
    with pytest.raises(TypeError, match="user_agent must be str or bytes, not NoneType"):
        rp.allowed("https://e.com/", None)
    assert rp.sitemaps() == []


def test_is_a_scrapy_robot_parser():
    robotstxt = pytest.importorskip("scrapy.robotstxt")
    assert issubclass(RobotParser, robotstxt.RobotParser)
    rp = RobotParser.from_crawler(None, b"User-agent: *\nDisallow: /x\n")
    assert isinstance(rp, robotstxt.RobotParser)


CRAWL = textwrap.dedent('''
    import json, sys
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.http import TextResponse

    base, parser, out = sys.argv[1:4]
    seen = {"parsers": [], "sitemaps": []}

    class Site(scrapy.Spider):
        name = "site"
        start_urls = [base + "/"]

        def parse(self, response):
            if isinstance(response, TextResponse):
                for href in response.css("a::attr(href)").getall():
                    yield response.follow(href, callback=self.parse)

    def on_robots(robotparser, **kwargs):
        seen["parsers"].append(type(robotparser).__module__ + "." + type(robotparser).__qualname__)
        if callable(getattr(robotparser, "sitemaps", None)):
            seen["sitemaps"] += list(robotparser.sitemaps())

    settings = {
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 20,
        "CLOSESPIDER_TIMEOUT": 90,
        "RETRY_ENABLED": False,
        "CONCURRENT_REQUESTS": 4,
    }
    if parser:
        settings["ROBOTSTXT_PARSER"] = parser
    process = CrawlerProcess(settings=settings)
    crawler = process.create_crawler(Site)
    if hasattr(signals, "robots_parsed"):
        crawler.signals.connect(on_robots, signal=signals.robots_parsed)
    process.crawl(crawler)
    process.start()
    seen["forbidden"] = crawler.stats.get_value("robotstxt/forbidden", 0)
    with open(out, "w") as f:
        json.dump(seen, f)
''')


class _Site:
    """A static site on 127.0.0.1 that logs every request path."""

    def __init__(self, root: Path):
        self.requests: List[str] = []
        log = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
                log.append(self.path)

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def make_site(root: Path, base: str) -> None:
    for name, links in PAGES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f'<a href="{link}">{link}</a>\n' for link in links)
        path.write_text(f"<html><body>\n{body}</body></html>\n")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "report.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (root / "robots.txt").write_text(ROBOTS.format(base=base))
    (root / "sitemap.xml").write_text("<urlset/>\n")


def crawl(tmp_path: Path, parser: str, tag: str):
    root = tmp_path / f"site-{tag}"
    root.mkdir()
    script = tmp_path / "crawl.py"
    script.write_text(CRAWL)
    out = tmp_path / f"crawl-{tag}.json"
    with _Site(root) as site:
        make_site(root, site.base)
        run = subprocess.run([sys.executable, str(script), site.base, parser, str(out)],
                             capture_output=True, timeout=180, check=False)
        assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
        requests = list(site.requests)
    return set(requests), requests, json.loads(out.read_text())


def test_real_scrapy_crawl_obeys_robots_txt(tmp_path):
    pytest.importorskip("scrapy")
    fetched, requests, seen = crawl(tmp_path, "robocc.scrapy.RobotParser", "robocc")
    assert seen["parsers"] == ["robocc.scrapy.RobotParser"]
    assert seen["sitemaps"] and seen["sitemaps"][0].endswith("/sitemap.xml")
    assert fetched == EXPECTED_FETCHED, sorted(fetched ^ EXPECTED_FETCHED)
    assert not fetched & EXPECTED_FORBIDDEN
    assert requests.count("/robots.txt") == 1
    assert seen["forbidden"] == len(EXPECTED_FORBIDDEN)

    protego_fetched, _, protego_seen = crawl(tmp_path, "", "protego")
    assert protego_seen["parsers"] == ["scrapy.robotstxt.ProtegoRobotParser"]
    assert protego_fetched == fetched
    assert protego_seen["forbidden"] == seen["forbidden"]
