"""robocc.scrapy.RobotsTxtMiddleware: a real Scrapy crawl on 127.0.0.1
against one local server per robots.txt case, each scripted (200, 301 to
another path, 301 to another host, 404, 429, 500, 503 with Retry-After then
200, a hang past the download timeout, an HTML page with 200, a 2 MB file,
rules that expire after a second).
The server's own log says which pages were fetched; the same crawl through
Scrapy's default middleware shows where it differs (docs/fetch.md,
"Scrapy").

Both crawls run in one subprocess each (Twisted's reactor runs once per
process), every case at once, with second-long timeouts and holds."""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

RULES = "User-agent: *\nDisallow: /private/\n"
PAGES = {
    "/": '<html><body><a href="a.html">a</a> <a href="private/b.html">b</a></body></html>',
    "/a.html": "<html><body>a</body></html>",
    "/private/b.html": "<html><body>b</body></html>",
}
ALL = {"/", "/a.html", "/private/b.html"}
# The "expiring" case's site: two pages 0.8 s each before /a.html.
SLOW = {"/", "/slow.html", "/slow2.html"}
RULED = {"/", "/a.html"}
# 2 MB: the rules, then comments past the 500 KiB parse limit (RFC 9309
# §2.5 asks for at least 500 KiB; Google reads that much), then a rule
# only a parser without a limit reads.
BIG = RULES + "# padding padding padding padding padding padding padding\n" * 36_000 + "Disallow: /a.html\n"
HTML = "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking</body></html>"

# case → (pages robocc's middleware fetches, pages Scrapy's default fetches).
EXPECTED: Dict[str, Tuple[Set[str], Set[str]]] = {
    "ok": (RULED, RULED),
    "moved": (RULED, RULED),
    # robocc refuses a redirect to another origin (disallow for now, then
    # dropped); Scrapy follows it to the other host's allow-all file.
    "elsewhere": (set(), ALL),
    "gone": (ALL, ALL),
    # Unreachable: robocc holds the site back; Scrapy retries, then reads
    # the error body (or nothing) as allow all.
    "busy": (set(), ALL),
    "broken": (set(), ALL),
    # 503 with Retry-After: 1, then 200: robocc retries after the hold;
    # Scrapy's retry middleware retries at once.
    "retry": (RULED, RULED),
    "hang": (set(), ALL),
    # An HTML page is parsed as it is (no rules: allow all), as Google's
    # library reads it; robocc says so in its log.
    "html": (ALL, ALL),
    # robocc reads 500 KiB, Protego the whole file.
    "big": (RULED, {"/"}),
    # Rules for 1 s (Cache-Control), then new ones: robocc fetches them
    # again once they expire and /a.html, reached later, is disallowed.
    "expiring": (SLOW, SLOW | {"/a.html"}),
}
HANG = 4.0  # seconds a "hang" robots.txt takes, past the 1 s download timeout


class _Server:
    """One case's server: logs every path, answers robots.txt as scripted."""

    def __init__(self, case: str, log: List[Tuple[str, str]], other: str = ""):
        robots_seen = [0]

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
                pass

            def send(self, status: int, body: str = "", headers: Dict[str, str] = None,
                     content_type: str = "text/plain"):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802 - the stdlib's name
                log.append((case, self.path))
                if self.path == "/robots.txt":
                    robots_seen[0] += 1
                    self.robots(robots_seen[0])
                elif self.path == "/other/robots.txt" and case == "moved":
                    self.send(200, RULES)
                elif case == "expiring" and self.path in ("/", "/slow.html", "/slow2.html"):
                    after = {"/": "slow.html", "/slow.html": "slow2.html", "/slow2.html": "a.html"}
                    if self.path != "/":
                        time.sleep(0.8)
                    self.send(200, f'<html><body><a href="{after[self.path]}">x</a></body></html>',
                              content_type="text/html")
                elif self.path in PAGES:
                    self.send(200, PAGES[self.path], content_type="text/html")
                else:
                    self.send(404, "not found")

            def robots(self, n: int):
                if case in ("ok", "retry") and (case == "ok" or n > 1):
                    self.send(200, RULES)
                elif case == "retry":
                    self.send(503, "down", {"Retry-After": "1"})
                elif case == "moved":
                    self.send(301, "", {"Location": "/other/robots.txt"})
                elif case == "elsewhere":
                    self.send(301, "", {"Location": other + "/robots.txt"})
                elif case == "other":
                    self.send(200, "User-agent: *\nAllow: /\n")
                elif case == "gone":
                    self.send(404, "not found")
                elif case == "busy":
                    self.send(429, "slow down")
                elif case == "broken":
                    self.send(500, "oops")
                elif case == "hang":
                    time.sleep(HANG)
                    try:
                        self.send(200, "User-agent: *\nDisallow: /\n")
                    except OSError:
                        pass  # the crawler gave up: the point of the case
                elif case == "html":
                    self.send(200, HTML, content_type="text/html")
                elif case == "big":
                    self.send(200, BIG)
                elif case == "expiring" and n == 1:
                    self.send(200, RULES, {"Cache-Control": "max-age=1"})
                elif case == "expiring":
                    self.send(200, "User-agent: *\nDisallow: /a.html\n")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


CRAWL = textwrap.dedent('''
    import json, sys
    import scrapy
    from scrapy.crawler import CrawlerProcess

    starts, middleware, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]

    class Site(scrapy.Spider):
        name = "site"
        start_urls = starts

        def parse(self, response):
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, callback=self.parse)

    settings = {
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 1,
        "CLOSESPIDER_TIMEOUT": 60,
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
    }
    if middleware == "robocc":
        settings["DOWNLOADER_MIDDLEWARES"] = {
            "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
            "robocc.scrapy.RobotsTxtMiddleware": 100,
        }
        settings["ROBOCC_FETCH"] = {"failure_hold": 1, "min_hold": 1}
        settings["ROBOCC_ROBOTSTXT_MAX_WAIT"] = 2.5
    process = CrawlerProcess(settings=settings)
    crawler = process.create_crawler(Site)
    process.crawl(crawler)
    process.start()
    with open(out, "w") as f:
        json.dump(crawler.stats.get_stats(), f, default=str)
''')


def crawl(tmp_path: Path, middleware: str):
    """Crawls every case; returns case → pages fetched, case → robots.txt
    requests, and the crawl's stats."""
    log: List[Tuple[str, str]] = []
    other = _Server("other", log)
    other_base = f"http://localhost:{other.port}"
    servers = {case: _Server(case, log, other_base) for case in EXPECTED}
    script = tmp_path / "crawl.py"
    script.write_text(CRAWL)
    out = tmp_path / f"stats-{middleware}.json"
    starts = [f"http://127.0.0.1:{s.port}/" for s in servers.values()]
    try:
        run = subprocess.run([sys.executable, str(script), json.dumps(starts), middleware, str(out)],
                             capture_output=True, timeout=120, check=False)
        assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    finally:
        for s in [other, *servers.values()]:
            s.close()
    pages: Dict[str, Set[str]] = {case: set() for case in [*EXPECTED, "other"]}
    robots: Dict[str, int] = {case: 0 for case in pages}
    for case, path in log:
        if path.endswith("robots.txt"):
            robots[case] += 1
        else:
            pages[case].add(path)
    return pages, robots, json.loads(out.read_text()), run.stderr.decode(errors="replace")


def test_robocc_middleware_against_scrapys_default(tmp_path):
    pytest.importorskip("scrapy")
    started = time.monotonic()
    pages, robots, stats, log = crawl(tmp_path, "robocc")
    for case, (want, _) in EXPECTED.items():
        assert pages[case] == want, (case, pages[case], log[-2000:])
    # Never fetched from the host a refused redirect named.
    assert pages["other"] == set() and robots["other"] == 0
    # Unreachable files are fetched again after their hold; a 503 with
    # Retry-After once, then the 200.
    assert robots["retry"] == 2
    for case in ("busy", "broken", "hang", "elsewhere"):
        assert robots[case] >= 2, (case, robots)
    for case in ("ok", "gone", "html", "big"):
        assert robots[case] == 1, (case, robots)
    assert robots["expiring"] == 2
    # The start page of elsewhere, busy, broken and hang; /private/b.html
    # of ok, moved, retry and big, and /a.html of expiring.
    assert stats.get("robotstxt/held_back_dropped") == 4
    assert stats.get("robotstxt/forbidden") == 5
    assert "its requests held back" in log
    assert "looks like an HTML page" in log and "parse limit" in log
    assert time.monotonic() - started < 60

    default_pages, default_robots, _, _ = crawl(tmp_path, "default")
    differ = sorted(c for c in EXPECTED if default_pages[c] != pages[c])
    for case, (_, want) in EXPECTED.items():
        assert default_pages[case] == want, (case, default_pages[case])
    # Scrapy follows the redirect to the other host and reads its file.
    assert default_robots["other"] == 1
    assert default_robots["expiring"] == 1
    assert differ == ["big", "broken", "busy", "elsewhere", "expiring", "hang"]
