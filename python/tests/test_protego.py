"""robocc.protego.Protego against Protego itself: the same answers from the
same calls on a file where RFC 9309 leaves no room for the two to differ
(and, when Protego is installed, on real files where they agree)."""

from __future__ import annotations

import datetime
import pickle

import pytest

import robocc
from robocc.protego import Protego, RequestRate, VisitTime

ROBOTS = """\
User-agent: *
Disallow: /private
Allow: /private/public
Disallow: /*.gif$
Crawl-delay: 1.5

User-agent: FooBot
Disallow: /
Allow: /foo
Request-rate: 3/1m 0600-0845
Visit-time: 2000-2359

Sitemap: https://example.com/sitemap.xml
Sitemap: https://example.com/sitemap2.xml
Host: example.com
"""

CALLS = [
    ("https://example.com/", "SomeBot"),
    ("https://example.com/private", "SomeBot"),
    ("https://example.com/private/public/x", "SomeBot"),
    ("https://example.com/img/a.gif", "SomeBot"),
    ("https://example.com/img/a.gif?x", "SomeBot"),
    ("https://example.com/robots.txt", "FooBot"),
    ("https://example.com/foo/bar", "FooBot"),
    ("https://example.com/bar", "FooBot"),
    ("https://example.com/bar", "Mozilla/5.0 (compatible; FooBot/1.0)"),
    ("https://example.com/private", "foobot"),
]
EXPECTED = [True, False, True, False, True, True, True, False, False, False]


def test_answers_worked_out_by_hand():
    rp = Protego.parse(ROBOTS)
    assert [rp.can_fetch(url, ua) for url, ua in CALLS] == EXPECTED
    assert rp.crawl_delay("SomeBot") == 1.5
    assert rp.crawl_delay("FooBot") is None
    assert rp.request_rate("FooBot") == RequestRate(3, 60, datetime.time(6, 0), datetime.time(8, 45))
    assert rp.request_rate("SomeBot") is None
    assert rp.visit_time("FooBot") == VisitTime(datetime.time(20, 0), datetime.time(23, 59))
    assert rp.visit_time("SomeBot") is None
    assert list(rp.sitemaps) == ["https://example.com/sitemap.xml", "https://example.com/sitemap2.xml"]
    assert rp.preferred_host == "example.com"
    assert Protego.parse("").preferred_host is None
    assert list(Protego.parse("").sitemaps) == []
    assert RequestRate is robocc.RequestRate and VisitTime is robocc.VisitTime
    with pytest.raises(TypeError):
        Protego.parse(None)


def test_same_answers_as_protego():
    protego = pytest.importorskip("protego")
    theirs = protego.Protego.parse(ROBOTS)
    ours = Protego.parse(ROBOTS)
    assert [ours.can_fetch(u, a) for u, a in CALLS] == [theirs.can_fetch(u, a) for u, a in CALLS]
    for ua in ("SomeBot", "FooBot", "foobot/2.0"):
        assert ours.crawl_delay(ua) == theirs.crawl_delay(ua)
        assert tuple(ours.request_rate(ua) or ()) == tuple(theirs.request_rate(ua) or ())
        assert tuple(ours.visit_time(ua) or ()) == tuple(theirs.visit_time(ua) or ())
    assert list(ours.sitemaps) == list(theirs.sitemaps)
    assert ours.preferred_host == theirs.preferred_host


def test_a_bad_option_fails_at_parse_not_per_url():
    """A training agent that is not a product token is refused at once: as
    a per-file compile error it would make every URL disallowed."""
    with pytest.raises(ValueError, match="training_agents: invalid agent product token"):
        Protego.parse(ROBOTS, training_agents=["Google-Extended/1.0"])


def test_pickles_before_and_after_use():
    """As Protego objects do: Scrapy and Spark ship parsers to workers."""
    rp = Protego.parse(ROBOTS)
    fresh = pickle.loads(pickle.dumps(rp))
    assert [fresh.can_fetch(u, a) for u, a in CALLS] == EXPECTED
    assert [rp.can_fetch(u, a) for u, a in CALLS] == EXPECTED  # compiles policies
    used = pickle.loads(pickle.dumps(rp))
    assert [used.can_fetch(u, a) for u, a in CALLS] == EXPECTED
    assert used.crawl_delay("SomeBot") == 1.5


def test_protego_s_readings_of_empty_and_spaced_values():
    """Empty Sitemap and Host values are not values; `Visit-time: 0400
    0845` is a window; an agent that is not a string is the caller's bug
    (python audit F6)."""
    rp = Protego.parse("Sitemap:\nSitemap: https://e.com/s.xml\nHost:\nUser-agent: *\nVisit-time: 0400 0845\n")
    assert list(rp.sitemaps) == ["https://e.com/s.xml"]
    assert rp.preferred_host is None
    assert Protego.parse("Host: a.example\nHost:\n").preferred_host == "a.example"
    assert rp.visit_time("x") == VisitTime(datetime.time(4, 0), datetime.time(8, 45))
    for bad in (None, 5):
        with pytest.raises(TypeError, match="user_agent must be str or bytes"):
            rp.can_fetch("https://e.com/", bad)
        with pytest.raises(TypeError, match="user_agent must be str or bytes"):
            rp.crawl_delay(bad)
    protego = pytest.importorskip("protego")
    theirs = protego.Protego.parse("Sitemap:\nSitemap: https://e.com/s.xml\nHost:\nUser-agent: *\nVisit-time: 0400 0845\n")
    assert list(theirs.sitemaps) == list(rp.sitemaps)
    assert theirs.preferred_host == rp.preferred_host
    assert tuple(theirs.visit_time("x")) == tuple(rp.visit_time("x"))
