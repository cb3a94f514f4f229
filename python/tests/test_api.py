"""The Python API: every function and property, its types and its errors.
Expected answers are worked out by hand from RFC 9309 (and the robots 2.0
text for timing records), not taken from robocc."""

from __future__ import annotations

import ast
import datetime
import inspect
import os
import pathlib
import pickle
import threading
import time

import pytest

import robocc

ROBOTS = b"""\
User-agent: ExampleBot
Disallow: /private
Allow: /private/public
Disallow: /*.pdf$
Crawl-delay: 2.5
Request-rate: 1/10s 0600-0845
Request-rate: 5/1m
Visit-time: 0100-0200

User-agent: *
Disallow: /

Sitemap: https://example.com/sitemap.xml
Sitemap: https://example.com/news.xml
Host: www.example.com
"""


@pytest.fixture(scope="module")
def policy() -> robocc.Policy:
    return robocc.compile(ROBOTS, "ExampleBot")


def test_allowed_follows_longest_match(policy):
    assert policy.allowed("https://example.com/") is True
    assert policy.allowed("https://example.com/private") is False
    assert policy.allowed("https://example.com/private/x") is False
    assert policy.allowed("https://example.com/private/public/x") is True
    assert policy.allowed("https://example.com/doc.pdf") is False
    assert policy.allowed("https://example.com/doc.pdf?x=1") is True  # $ ends the pattern
    assert policy.allowed("/private") is False  # a path works too
    assert policy.allowed(b"https://example.com/private") is False  # and bytes


def test_other_agents_get_the_star_group():
    other = robocc.compile(ROBOTS, "OtherBot")
    assert other.allowed("https://example.com/") is False
    assert other.allowed("https://example.com/robots.txt") is True  # RFC 9309 §2.2.2
    rules = robocc.compile(ROBOTS, "OtherBot", robots_txt="rules")
    assert rules.allowed("https://example.com/robots.txt") is False


def test_agent_is_case_insensitive():
    assert not robocc.compile(ROBOTS, "examplebot").allowed("/private")


def test_several_agents_read_together(tmp_path):
    """A list of agents (rfc9309) is Google's AllowedByRobots with a list:
    the groups naming any of them, merged; `*` only when none is named.
    Worked out from robots.cc: longest match over both groups, the Allow on
    a tie, the first line of a length."""
    robots = b"""\
User-agent: Googlebot-Image
Disallow: /img
Allow: /img/logo

User-agent: Googlebot
Disallow: /g
Allow: /img/logo/big

User-agent: *
Disallow: /
"""
    both = robocc.compile(robots, ["Googlebot-Image", "Googlebot"])
    assert both.agent == "Googlebot-Image,Googlebot"
    assert (both.check("/img/x").allowed, both.check("/img/x").rule_line) == (False, 2)
    assert (both.check("/img/logo/big").allowed, both.check("/img/logo/big").rule_line) == (True, 7)
    assert (both.check("/g").allowed, both.check("/g").rule_line) == (False, 6)
    # Named, so `*` does not apply: nothing matches, allowed.
    assert (both.check("/other").allowed, both.check("/other").rule_line) == (True, None)
    # One named agent is enough; none named: the `*` group.
    assert robocc.compile(robots, ("OtherBot", "googlebot")).allowed("/img/x") is True
    assert robocc.compile(robots, ["OtherBot", "ThirdBot"]).allowed("/img/x") is False
    # The compiled artifact and the answers from the rules agree.
    eager = robocc.compile(robots, ["Googlebot-Image", "Googlebot"], eager=True)
    assert eager.to_bytes() == both.to_bytes()
    assert robocc.Policy.from_bytes(both.to_bytes()).agent == "Googlebot-Image,Googlebot"
    # A repeat is one agent: the same artifact as the str.
    assert robocc.compile(robots, ["Googlebot", "GOOGLEBOT"]).to_bytes() == robocc.compile(robots, "Googlebot").to_bytes()
    # The dialects that read one robot's record refuse several, as a bad agent.
    for dialect in ("draft1996", "robots2", "acap"):
        with pytest.raises(robocc.AgentError, match=r"several agents \(A,B\) have no meaning in dialect"):
            robocc.compile(robots, ["A", "B"], dialect=dialect)
    with pytest.raises(robocc.AgentError, match="empty"):
        robocc.compile(robots, [])
    with pytest.raises(robocc.AgentError, match="Googlebot/2.1"):
        robocc.compile(robots, ["Googlebot", "Googlebot/2.1"])
    with pytest.raises(TypeError, match="^agent must be a str or a list of str"):
        robocc.compile(robots, b"Googlebot")
    with pytest.raises(TypeError, match="^agent must be a str or a list of str"):
        robocc.compile(robots, ["Googlebot", 5])
    # A store for the list: every host's policy reads them together.
    d = tmp_path / "robots"
    d.mkdir()
    (d / "example.com.txt").write_bytes(robots)
    robocc.build_store(d, ["Googlebot-Image", "Googlebot"], tmp_path / "s.store")
    store = robocc.Store.open(tmp_path / "s.store")
    assert store.agent == "Googlebot-Image,Googlebot"
    assert store.allowed("https://example.com/other") is True
    assert store.check("https://example.com/img/x").rule_line == 2
    with pytest.raises(robocc.AgentError, match="several agents"):
        robocc.build_store(d, ["A", "B"], tmp_path / "t.store", dialect="draft1996")


def test_check_names_the_rule(policy):
    v = policy.check("https://example.com/private/public/page")
    assert v.allowed is True
    assert v.rule_line == 3
    assert v.pattern == "/private/public"
    assert v.origin == "line"
    assert isinstance(v.rule, int)
    v = policy.check("https://example.com/doc.pdf")
    assert (v.allowed, v.rule_line, v.pattern) == (False, 4, "/*.pdf$")
    none = policy.check("https://example.com/open")
    assert (none.allowed, none.rule, none.rule_line, none.pattern, none.origin) == (True, None, None, None, None)
    implicit = robocc.compile(ROBOTS, "OtherBot").check("/robots.txt")
    assert implicit.allowed and implicit.origin == "robots-txt" and implicit.rule_line is None
    assert "allowed=True" in repr(v) or "allowed=False" in repr(v)
    assert policy.check("/open") == policy.check("/open")


def test_allowed_many_matches_allowed(policy):
    urls = ["https://example.com/private", "/private/public", b"/a.pdf", "/", "/x.pdf?q"]
    expected = [False, True, False, True, True]
    assert policy.allowed_many(urls) == expected
    assert policy.allowed_many(tuple(urls)) == expected
    assert policy.allowed_many(u for u in urls) == expected
    assert policy.allowed_many([]) == []
    assert [policy.allowed(u) for u in urls] == expected


def test_allowed_many_refuses_one_url_and_non_urls(policy):
    with pytest.raises(TypeError, match="iterable of URLs"):
        policy.allowed_many("https://example.com/")
    with pytest.raises(TypeError, match="str or bytes"):
        policy.allowed_many(["/a", 3])
    with pytest.raises(TypeError, match="str or bytes"):
        policy.allowed(None)


def test_allowed_many_releases_the_gil():
    # While one thread is inside allowed_many, another can run Python code:
    # with the GIL held for the whole call it could not run at all.
    p = robocc.compile(b"User-agent: *\nDisallow: /*.php$\nAllow: /a\n", "Bot")
    urls = [f"https://example.com/a/{i}/" + "segment/" * 12 + "page.php" for i in range(300_000)]
    started = threading.Event()
    done = threading.Event()
    result = []

    def work():
        started.set()
        result.append(p.allowed_many(urls))
        done.set()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    spins = 0
    while not done.is_set():
        spins += 1
        time.sleep(0)
    t.join()
    assert result[0] == [False] * len(urls)
    assert spins > 20, spins


def test_metadata(policy):
    assert policy.crawl_delay == 2.5
    assert policy.sitemaps == ["https://example.com/sitemap.xml", "https://example.com/news.xml"]
    assert policy.hosts == ["www.example.com"]
    rate = policy.request_rate
    assert isinstance(rate, robocc.RequestRate)
    assert rate == (1, 10, datetime.time(6, 0), datetime.time(8, 45))
    assert policy.request_rates == [rate, robocc.RequestRate(5, 60, None, None)]
    assert policy.visit_time == robocc.VisitTime(datetime.time(1, 0), datetime.time(2, 0))
    assert policy.visit_times == [policy.visit_time]
    assert policy.agent == "ExampleBot"
    assert policy.dialect == "rfc9309"
    assert policy.url_mode == "google"
    assert "ExampleBot" in repr(policy)


def test_metadata_absent():
    p = robocc.compile(b"User-agent: *\nDisallow: /x\n", "Bot")
    assert p.crawl_delay is None and p.request_rate is None and p.visit_time is None
    assert p.sitemaps == [] and p.hosts == [] and p.request_rates == [] and p.visit_times == []


def test_usage_channels(policy):
    assert policy.usages == ("crawl",)
    assert policy.usage("/private", "crawl") is False
    assert policy.usage("/", "crawl") is True
    assert policy.usage(b"/", "Crawl") is True
    # An ACAP usage type: nothing in an rfc9309 file could decide it.
    with pytest.raises(ValueError, match=r'usage "index" is an ACAP usage type, and this rfc9309 policy.*dialect="acap"'):
        policy.usage("/", "index")
    assert policy.usage_states("/private") == {"crawl": False}
    assert policy.usage_states("/") == {"crawl": True}
    # No preference channels: nothing stated, so unknown.
    assert policy.preference("/", "train-ai") is None


ACAP_ROBOTS = b"""\
ACAP-crawler: *
ACAP-disallow-index: /drafts/
ACAP-allow-index: /drafts/public/
ACAP-disallow-present: /
ACAP-allow-present-snippet: /news/
"""
ACAP_USAGES = (
    "crawl", "follow", "index", "preserve", "present", "present-original", "present-currentcopy",
    "present-oldcopy", "present-snippet", "present-thumbnail", "present-oldsnippet",
    "present-oldthumbnail", "present-link", "other",
)


def test_acap_usages():
    # ACAP 1.0 2.4.5 and 2.5: no rule concerning a usage allows it; a rule on
    # present concerns its sub-types; the narrowest scope decides.
    p = robocc.compile(ACAP_ROBOTS, "SomeBot", dialect="acap")
    assert p.usages == ACAP_USAGES
    assert p.usage("/drafts/x", "index") is False
    assert p.usage("/drafts/public/x", "INDEX") is True
    assert p.usage("/a", "index") is True
    assert p.usage("/a", "present-link") is False
    assert p.usage("/news/a", "present-snippet") is True
    assert p.usage("/news/a", "present-link") is False
    states = p.usage_states("https://example.com/drafts/x")
    assert list(states) == list(ACAP_USAGES)
    allowed = {"crawl", "follow", "preserve", "other"}
    assert states == {u: u in allowed for u in ACAP_USAGES}
    assert p.usage_states(b"/news/a")["present-snippet"] is True
    # An acap policy has no AI-usage preference channels.
    assert p.preference("/a", "search") is None
    with pytest.raises(ValueError, match=r'"search" is an AI-usage preference channel.*preference\(url, "search"\)'):
        p.usage("/a", "search")


SIGNALS_ROBOTS = b"""\
User-agent: *
Disallow: /private/
Content-Usage: train-ai=n
Content-Usage: /open/ train-ai=y, search=y
Content-Signal: ai-input=no
"""


def test_preferences():
    # docs/dialects.md, "AI-usage preferences": the longest Content-Usage
    # line speaks alone; Content-Signal applies to every path of its group;
    # an uncrawlable URL has no preferences.
    p = robocc.compile(SIGNALS_ROBOTS, "ExampleBot")
    assert p.usages == ("crawl", "search", "train-ai", "ai-input")
    assert p.preference("/a", "train-ai") is False
    assert p.preference("/a", "search") is None
    assert p.preference("/a", "ai-input") is False
    assert p.preference("https://example.com/open/x", "train-ai") is True
    assert p.preference(b"/open/x", "Search") is True
    assert p.usage_states("/open/x") == {"crawl": True, "search": True, "train-ai": True, "ai-input": False}
    assert p.usage_states("/a") == {"crawl": True, "search": None, "train-ai": False, "ai-input": False}
    assert p.usage_states("/private/x") == {"crawl": False, "search": None, "train-ai": None, "ai-input": None}
    assert p.usage("/private/x", "crawl") is False


def test_training_agents():
    robots = b"User-agent: *\nAllow: /\n\nUser-agent: Google-Extended\nDisallow: /nolearn/\n"
    plain = robocc.compile(robots, "ExampleBot")
    assert plain.usages == ("crawl",)
    assert plain.preference("/nolearn/a", "train-ai") is None
    p = robocc.compile(robots, "ExampleBot", training_agents=["Google-Extended"])
    assert p.usages == ("crawl", "search", "train-ai", "ai-input")
    assert p.preference("/nolearn/a", "train-ai") is False
    assert p.preference("/a", "train-ai") is None
    assert p.usage("/nolearn/a", "crawl") is True
    with pytest.raises(ValueError, match=r'training_agents applies to dialect="rfc9309", and the file is read as acap'):
        robocc.compile(robots, "ExampleBot", dialect="acap", training_agents=["Google-Extended"])
    with pytest.raises(TypeError):
        robocc.compile(robots, "ExampleBot", training_agents="Google-Extended")
    # A token with a version, a space or nothing matches no group: refused,
    # as a bad agent is, instead of leaving train-ai unknown.
    for bad in ["Google-Extended/1.0", "Google Extended", "", "*"]:
        with pytest.raises(ValueError, match="^training_agents: "):
            robocc.compile(robots, "ExampleBot", training_agents=[bad])


def test_zero_lifts_a_limit():
    """As on the command line: 0 is no limit, not a limit of 0."""
    robots = b"User-agent: *\nDisallow: /a*b\nDisallow: /c\n"
    for name in ["max_bytes", "max_line_len", "max_rules", "max_states", "max_table_bytes", "max_automata",
                 "compile_timeout"]:
        p = robocc.compile(robots, "x", **{name: 0})
        assert p.allowed("https://e.com/c") is False, name
        assert p.allowed("https://e.com/a-b") is False, name
        assert p.allowed("https://e.com/d") is True, name
        assert p.diagnostics == [], name
    assert robocc.compile(robots, "x", compile_timeout=float("inf")).allowed("/c") is False
    assert robocc.compile(robots, "x", compile_timeout=1e30).allowed("/c") is False  # past the clock
    for bad in [-1.0, float("nan")]:
        with pytest.raises(ValueError, match="compile_timeout"):
            robocc.compile(robots, "x", compile_timeout=bad)
    # A limit that is given still applies.
    assert robocc.compile(robots, "x", max_rules=1).allowed("/c") is True
    # A negative limit is a ValueError naming it (not an OverflowError);
    # one past any size is no limit.
    for name in ["max_bytes", "max_line_len", "max_rules", "max_states", "max_table_bytes", "max_automata"]:
        with pytest.raises(ValueError, match=f"^{name} is negative"):
            robocc.compile(robots, "x", **{name: -1})
        p = robocc.compile(robots, "x", **{name: 2**70})
        assert (p.allowed("/c"), p.allowed("/a-b"), p.diagnostics) == (False, False, []), name
    with pytest.raises(ValueError, match="^max_store_bytes is negative"):
        robocc.build_store("never-read.jsonl", "x", "never-written.store", max_store_bytes=-1)


def test_verdicts_pickle_and_hash(policy):
    """Worker processes send verdicts back; verdicts can be set members."""
    verdicts = [policy.check(u) for u in ("/private", "/private/public/x", "/doc.pdf", "/robots.txt", "/")]
    assert [pickle.loads(pickle.dumps(v)) for v in verdicts] == verdicts
    assert len(set(verdicts)) == len(verdicts)
    assert {policy.check("/private"), policy.check("/private")} == {verdicts[0]}
    with pytest.raises(ValueError, match="not a rule origin"):
        robocc.Verdict._from_state(True, None, None, None, "bogus", None)


def test_policy_pickles_and_saves(policy, tmp_path):
    again = pickle.loads(pickle.dumps(policy))
    assert again.to_bytes() == policy.to_bytes()
    assert again.check("/doc.pdf") == policy.check("/doc.pdf")
    path = tmp_path / "site.policy"
    policy.save(path)
    mapped = robocc.Policy.open(path)
    # Saving another policy over a mapped one replaces the file by a
    # rename: the mapped object keeps its answers (a write in place could
    # crash the interpreter).
    robocc.compile(b"User-agent: *\nAllow: /\n", "ExampleBot").save(str(path))
    assert mapped.allowed("/private") is False
    assert robocc.Policy.open(path).allowed("/private") is True
    assert [p.name for p in tmp_path.iterdir()] == ["site.policy"]  # no temporary left
    # As robocc compile -o: a directory and a read-only file are refused,
    # a link is followed (and kept), the old file's permissions are kept.
    with pytest.raises(IsADirectoryError) as e:
        policy.save(tmp_path)
    assert e.value.filename == str(tmp_path)
    os.symlink(path, tmp_path / "link.policy")
    policy.save(tmp_path / "link.policy")
    assert os.path.islink(tmp_path / "link.policy")
    assert robocc.Policy.open(path).allowed("/private") is False
    with pytest.raises(FileNotFoundError) as e:
        policy.save(tmp_path / "no" / "such.policy")
    assert e.value.filename == str(tmp_path / "no" / "such.policy")
    os.chmod(path, 0o640)
    policy.save(path)
    assert os.stat(path).st_mode & 0o777 == 0o640
    os.chmod(path, 0o444)  # refused by its mode bits, even for root
    with pytest.raises(PermissionError, match="read-only"):
        policy.save(path)


def test_purposes():
    robots = b"ACAP-crawler: *\nACAP-usage-purpose: news\nACAP-disallow-index: /n/\n"
    # ACAP 2.3.3: a sub-record applies when its purpose matches one of the
    # crawler's.
    assert robocc.compile(robots, "Bot", dialect="acap").usage("/n/a", "index") is True
    assert robocc.compile(robots, "Bot", dialect="acap", purposes=["news"]).usage("/n/a", "index") is False
    with pytest.raises(ValueError, match=r'purposes applies to dialect="acap", and the file is read as rfc9309'):
        robocc.compile(robots, "Bot", purposes=["news"])


@pytest.mark.parametrize("name", ["bogus", "", "train_ai", "all"])
def test_unknown_usage_names(policy, name):
    for call in (policy.usage, policy.preference):
        with pytest.raises(ValueError, match=f"unknown usage {name!r}".replace("'", '"') + r": expected one of crawl, follow, .*, other \(usage\(\)\) or search, train-ai, ai-input \(preference\(\)\)"):
            call("/", name)


@pytest.mark.parametrize("name", ["crawl", "index", "present-snippet", "other"])
def test_preference_refuses_verdict_usages(name):
    for p in (robocc.compile(SIGNALS_ROBOTS, "Bot"), robocc.compile(ACAP_ROBOTS, "Bot", dialect="acap")):
        with pytest.raises(ValueError, match=f'usage "{name}" is not an AI-usage preference channel.*usage\\(url, "{name}"\\)'):
            p.preference("/", name)


def test_usage_refuses_other_channels():
    draft = robocc.compile(b"User-agent: *\nDisallow: /x\n", "Bot", dialect="draft1996")
    with pytest.raises(ValueError, match=r'usage "present-link" is an ACAP usage type, and this draft1996 policy'):
        draft.usage("/", "present-link")
    signals = robocc.compile(SIGNALS_ROBOTS, "Bot")
    for name in ("search", "train-ai", "AI-INPUT"):
        with pytest.raises(ValueError, match="AI-usage preference channel"):
            signals.usage("/", name)
    with pytest.raises(TypeError):
        signals.preference(42, "search")


def test_bytes_round_trip_and_mmap(policy, tmp_path):
    data = policy.to_bytes()
    assert isinstance(data, bytes) and data[:6] == b"ROBOCC"
    again = robocc.Policy.from_bytes(data)
    assert again.to_bytes() == data
    assert again.allowed("/private") is False
    assert robocc.Policy.from_bytes(bytearray(data)).allowed("/private/public")
    path = tmp_path / "site.policy"
    path.write_bytes(data)
    mapped = robocc.Policy.open(path)  # os.PathLike
    assert mapped.allowed("/private") is False
    assert robocc.Policy.open(str(path)).check("/doc.pdf").rule_line == 4
    assert mapped.diagnostics == []  # artifacts do not keep them


def test_body_as_text_and_bytes_agree():
    text = ROBOTS.decode()
    assert robocc.compile(text, "ExampleBot").to_bytes() == robocc.compile(ROBOTS, "ExampleBot").to_bytes()


def test_compile_errors_carry_the_rust_message():
    with pytest.raises(robocc.CompileError, match="invalid agent product token") as e:
        robocc.compile(ROBOTS, "Googlebot/2.1")
    assert isinstance(e.value, robocc.RoboccError)
    with pytest.raises(robocc.CompileError, match="empty"):
        robocc.compile(ROBOTS, "")
    # acap compiles (its crawl channel answers through the binding).
    acap = robocc.compile(b"ACAP-crawler: *\nACAP-disallow-crawl: /x\n", "Bot", dialect="acap")
    assert not acap.allowed("/x/1") and acap.allowed("/y")
    # Over the budget: raised where the automaton is needed (eager=True:
    # at once; otherwise the policy answers from its rules and to_bytes
    # raises).
    over = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b\n" % i for i in range(300))
    with pytest.raises(robocc.CompileError, match="budget"):
        robocc.compile(over, "Bot", max_states=10, max_automata=1, eager=True)
    with pytest.raises(robocc.CompileError, match="budget"):
        robocc.compile(over, "Bot", max_states=10, max_automata=1).to_bytes()
    # A deadline is the file's, not the rule lowered when it passed.
    many = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b*c%d\n" % (i, i) for i in range(20000))
    with pytest.raises(robocc.CompileError, match="lowering takes longer than") as e:
        robocc.compile(many, "Bot", compile_timeout=0.001, eager=True)
    assert "alone" not in str(e.value) and "implicit rule" not in str(e.value)


def test_dense_layout_answers_as_compact_in_more_bytes():
    # Wildcards scan: the compact layout writes chains and sparse nodes,
    # the dense one a row per state.
    body = b"User-agent: *\nDisallow: /*?\nAllow: /*?lang=\nDisallow: /*/followers\nDisallow: /private/\n"
    compact = robocc.compile(body, "Bot", layout="compact")
    dense = robocc.compile(body, "Bot", layout="DENSE")
    assert len(dense.to_bytes()) > len(compact.to_bytes())
    # The default writes rows for a small file whose `*` rules scan...
    assert len(robocc.compile(body, "Bot").to_bytes()) == len(dense.to_bytes())
    # ...and stays compact where no walk comes back to a scanning row.
    plain = b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\n"
    assert len(robocc.compile(plain, "Bot").to_bytes()) == len(robocc.compile(plain, "Bot", layout="compact").to_bytes())
    assert len(robocc.compile(plain, "Bot", layout="dense").to_bytes()) > len(robocc.compile(plain, "Bot").to_bytes())
    urls = ["/", "/a?b", "/a?lang=en", "/x/followers", "/x/follow", "/private/1", "/privat", "/a/b/c"]
    assert [dense.allowed(u) for u in urls] == [compact.allowed(u) for u in urls]
    assert [compact.allowed(u) for u in urls] == [True, False, True, False, True, False, True, True]


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="dialect"):
        robocc.compile(ROBOTS, "Bot", dialect="rfc")
    with pytest.raises(ValueError, match="url_mode"):
        robocc.compile(ROBOTS, "Bot", url_mode="decode")
    with pytest.raises(ValueError, match="robots_txt"):
        robocc.compile(ROBOTS, "Bot", robots_txt="yes")
    with pytest.raises(ValueError, match="compile_timeout"):
        robocc.compile(ROBOTS, "Bot", compile_timeout=-1)
    with pytest.raises(ValueError, match="compile_timeout"):
        robocc.compile(ROBOTS, "Bot", compile_timeout=float("nan"))
    with pytest.raises(ValueError, match="layout"):
        robocc.compile(ROBOTS, "Bot", layout="fast")
    with pytest.raises(ValueError, match="max_bytes"):
        robocc.compile(ROBOTS, "Bot", max_bytes=-1)
    with pytest.raises(TypeError):
        robocc.compile(ROBOTS, "Bot", dialect="rfc9309", nonsense=1)
    with pytest.raises(TypeError, match="bytes, bytearray or str"):
        robocc.compile(12, "Bot")


def test_load_errors():
    with pytest.raises(robocc.LoadError, match="shorter than the 32-byte header"):
        robocc.Policy.from_bytes(b"junk")
    data = bytearray(robocc.compile(ROBOTS, "Bot").to_bytes())
    data[-1] ^= 0xFF
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(robocc.LoadError):
        robocc.Policy.from_bytes(bytes(data[:-40]))
    # A rule's text changed on disk still parses: the checksum refuses it.
    data = bytearray(robocc.compile(ROBOTS, "ExampleBot").to_bytes())
    at = bytes(data).index(b"/private/public")
    data[at + 1] = ord("q")
    with pytest.raises(robocc.LoadError, match="checksum"):
        robocc.Policy.from_bytes(bytes(data))
    with pytest.raises(FileNotFoundError) as e:
        robocc.Policy.open("/nonexistent/site.policy")
    assert e.value.filename == "/nonexistent/site.policy"
    with pytest.raises(IsADirectoryError):
        robocc.Policy.open("/")
    with pytest.raises(TypeError, match="^policy bytes must be bytes or bytearray, not memoryview$"):
        robocc.Policy.from_bytes(memoryview(b"x"))
    # store_set_index (robocc.spark's first call) states what is wrong.
    with pytest.raises(robocc.AgentError, match='^invalid agent product token "Google bot"'):
        robocc.store_set_index("Google bot", [(0, 0, 0)])


def test_limits_are_reported_as_diagnostics():
    body = b"User-agent: *\nDisallow: /a\n" + b"Disallow: /b\n" * 100
    p = robocc.compile(body, "Bot", max_bytes=27)
    codes = [d.code for d in p.diagnostics]
    assert "parse-limit" in codes
    d = p.diagnostics[codes.index("parse-limit")]
    assert d.severity == "warning" and isinstance(d.line, int) and d.message
    assert p.allowed("/b") is True  # the limit did change the answer, and said so
    assert robocc.compile(body, "Bot").allowed("/b") is False


def test_dialects_and_url_modes():
    draft = robocc.compile(b"User-agent: *\nDisallow: /a\nAllow: /a/b\n", "Bot", dialect="draft1996")
    assert draft.dialect == "draft1996" and draft.url_mode == "decode"
    assert draft.allowed("/a/b") is False  # first match, not longest
    rfc = robocc.compile(b"User-agent: *\nDisallow: /~joe\n", "Bot", url_mode="rfc")
    assert rfc.url_mode == "rfc"
    assert rfc.allowed("/%7Ejoe/x") is False  # unreserved escapes decoded (RFC 9309 §2.2.2)
    google = robocc.compile(b"User-agent: *\nDisallow: /~joe\n", "Bot")
    assert google.allowed("/%7Ejoe/x") is True


def test_hostile_input_is_bounded():
    big = b"User-agent: *\n" + b"Disallow: /" + b"*a" * 5000 + b"\n"
    t = time.monotonic()
    try:
        p = robocc.compile(big, "Bot", compile_timeout=5)
        assert isinstance(p.allowed("/" + "a" * 10000), bool)
    except robocc.CompileError:
        pass
    assert time.monotonic() - t < 20
    p = robocc.compile(bytes(range(256)) * 100, "Bot")
    assert p.allowed("/") is True


def test_token_from_header():
    assert robocc.token_from_header("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)") == "Googlebot"
    assert robocc.token_from_header("Scrapy/2.13.0 (+https://scrapy.org)") == "Scrapy"
    assert robocc.token_from_header("Mozilla/5.0") is None
    # The 1996 draft's own example names FigTree, not the bare word Robot;
    # a name with digits comes whole, never cut to "bot".
    assert robocc.token_from_header("FigTree/0.1 Robot libwww-perl/5.04") == "FigTree"
    assert robocc.token_from_header("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)") == "MJ12bot"


def test_draft_dialects_take_rfc1945_agent_names():
    body = b"User-agent: MJ12bot\nDisallow: /\n"
    for dialect in ("draft1996", "robots2"):
        assert robocc.compile(body, "MJ12bot", dialect=dialect).allowed("/x") is False
    with pytest.raises(robocc.CompileError, match="RFC 1945"):
        robocc.compile(body, "my bot", dialect="draft1996")
    with pytest.raises(robocc.CompileError, match="RFC 9309"):
        robocc.compile(body, "MJ12bot")


def test_version():
    assert robocc.__version__.count(".") == 2


def test_store_preferences(tmp_path):
    d = tmp_path / "robots"
    d.mkdir()
    (d / "signals.example.com.txt").write_bytes(SIGNALS_ROBOTS)
    (d / "plain.example.com.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    (d / "tokens.example.com.txt").write_bytes(b"User-agent: Google-Extended\nDisallow: /\n")
    robocc.build_store(d, "ExampleBot", tmp_path / "s.store", training_agents=["Google-Extended"])
    store = robocc.Store.open(tmp_path / "s.store")
    assert store.preference("https://signals.example.com/a", "train-ai") is False
    assert store.preference("https://signals.example.com/open/x", "search") is True
    assert store.preference("https://signals.example.com/a", "search") is None
    assert store.preference("https://plain.example.com/a", "train-ai") is None
    assert store.preference("https://tokens.example.com/a", "train-ai") is False
    assert store.preference("https://unknown.example.org/a", "train-ai") is None  # not in the store
    assert store.usage_states("https://signals.example.com/a") == {
        "crawl": True, "search": None, "train-ai": False, "ai-input": False}
    # The token obeys the `*` group (issue 46): the plain file has
    # preference channels too, none stated where crawl is disallowed.
    assert store.usage_states(b"https://plain.example.com/x") == {
        "crawl": False, "search": None, "train-ai": None, "ai-input": None}
    no_token = tmp_path / "n.store"
    robocc.build_store(d, "ExampleBot", no_token)
    assert robocc.Store.open(no_token).usage_states(b"https://plain.example.com/x") == {"crawl": False}
    assert store.usage_states("https://tokens.example.com/a") == {
        "crawl": True, "search": None, "train-ai": False, "ai-input": None}
    assert store.usage_states("https://unknown.example.org/") is None
    with pytest.raises(ValueError, match="has no host"):
        store.usage_states("/no/host")
    with pytest.raises(ValueError, match='usage "crawl" is not an AI-usage preference channel'):
        store.preference("https://signals.example.com/a", "crawl")
    with pytest.raises(ValueError, match='unknown usage "nope"'):
        store.preference("https://unknown.example.org/", "nope")


def test_url_mode_is_refused_where_the_dialect_reads_urls_its_own_way(tmp_path):
    """As `--url-mode` with `--dialect draft1996`: an option that would
    change nothing is refused, never dropped (python audit F2)."""
    body = b"User-agent: *\nDisallow: /a%62c\n"
    for dialect, reading in [("draft1996", "decodes %xx escapes except %2F"),
                             ("robots2", "decodes %xx escapes except %2F"),
                             ("acap", "matches URLs as given")]:
        for mode in ("rfc", "google"):
            with pytest.raises(ValueError, match=f'url_mode applies to dialect="rfc9309" only.*{dialect}, which {reading}'):
                robocc.compile(body, "Bot", dialect=dialect, url_mode=mode)
        # Not given: the dialect's own reading.
        policy = robocc.compile(body, "Bot", dialect=dialect)
        assert policy.url_mode == ("google" if dialect == "acap" else "decode")
    assert robocc.compile(body, "Bot", url_mode="rfc").url_mode == "rfc"
    assert robocc.compile(body, "Bot", url_mode=None).url_mode == "google"
    (tmp_path / "m.jsonl").write_text('{"host": "a.example", "status": 404}\n')
    with pytest.raises(ValueError, match="url_mode applies to"):
        robocc.build_store(tmp_path / "m.jsonl", "Bot", tmp_path / "s.store", dialect="draft1996", url_mode="rfc")
    assert not (tmp_path / "s.store").exists()
    for call in (lambda: robocc.store_set_index("Bot", [(0, 0, 0)], dialect="acap", url_mode="rfc"),
                 lambda: robocc.build_store_set([], "Bot", 2, dialect="robots2", url_mode="google"),
                 lambda: robocc.build_store_shard([], "Bot", 2, 0, dialect="draft1996", url_mode="rfc")):
        with pytest.raises(ValueError, match="url_mode applies to"):
            call()


def test_dialect_auto_reads_the_dialect_from_the_file(tmp_path):
    """`dialect="auto"` is `--dialect auto` (python audit F11)."""
    acap = robocc.compile(b"ACAP-crawler: *\nACAP-disallow-crawl: /x\n", "Bot", dialect="auto")
    assert acap.dialect == "acap" and acap.allowed("/x") is False
    assert robocc.compile(b"Robot-version: 2.0\nUser-agent: *\nDisallow: /x\n", "Bot", dialect="AUTO").dialect == "robots2"
    plain = robocc.compile(b"User-agent: *\nDisallow: /x\n", "Bot", dialect="auto", url_mode="rfc")
    assert plain.dialect == "rfc9309" and plain.url_mode == "rfc"
    with pytest.raises(ValueError, match=r'the file reads as acap \(dialect="auto"\)'):
        robocc.compile(b"ACAP-crawler: *\n", "Bot", dialect="auto", url_mode="rfc")
    with pytest.raises(ValueError, match="training_agents applies to"):
        robocc.compile(b"ACAP-crawler: *\n", "Bot", dialect="auto", training_agents=["Google-Extended"])
    (tmp_path / "m.jsonl").write_text('{"host": "a.example", "status": 404}\n')
    with pytest.raises(ValueError, match='dialect="auto" reads one robots.txt'):
        robocc.build_store(tmp_path / "m.jsonl", "Bot", tmp_path / "s.store", dialect="auto")
    with pytest.raises(ValueError, match='or "auto"'):
        robocc.compile(b"", "Bot", dialect="google")


def test_a_bad_agent_is_a_value_error(tmp_path):
    """The caller's mistake: a ValueError, as a bad option is; still a
    CompileError for code written when compile raised that (python audit
    F11)."""
    with pytest.raises(robocc.AgentError) as e:
        robocc.compile(ROBOTS, "Googlebot/2.1")
    assert isinstance(e.value, ValueError) and isinstance(e.value, robocc.CompileError)
    assert issubclass(robocc.AgentError, robocc.StoreBuildError)
    assert "invalid agent product token" in str(e.value)
    (tmp_path / "m.jsonl").write_text('{"host": "a.example", "status": 404}\n')
    with pytest.raises(ValueError, match="invalid agent product token"):
        robocc.build_store(tmp_path / "m.jsonl", "Google bot", tmp_path / "s.store")
    assert not (tmp_path / "s.store").exists()
    with pytest.raises(robocc.AgentError):
        robocc.build_store_set([], "a/b", 2)


def test_the_agent_rule_is_the_dialects(tmp_path):
    """draft1996 and robots2 take the 1996 draft's RFC 1945 token (digits,
    '.'), rfc9309 RFC 9309's, in compile and in store builds alike."""
    body = b"User-agent: MJ12bot\nDisallow: /\n"
    for dialect in ("draft1996", "robots2"):
        assert robocc.compile(body, "MJ12bot", dialect=dialect).allowed("http://h/x") is False
    with pytest.raises(robocc.AgentError, match="invalid agent product token"):
        robocc.compile(body, "MJ12bot")
    (tmp_path / "m.jsonl").write_text('{"host": "a.example", "status": 404}\n')
    robocc.build_store(tmp_path / "m.jsonl", "MJ12bot", tmp_path / "s.store", dialect="draft1996")
    assert robocc.build_store_set([], "MJ12bot", 2, dialect="robots2") is not None
    with pytest.raises(robocc.AgentError):
        robocc.build_store_set([], "MJ12bot", 2)


def test_wrong_types_name_the_argument_and_what_it_takes(tmp_path):
    """Not PyO3's internal wording, and a bool is not a limit (python audit
    F10)."""
    with pytest.raises(TypeError, match=r"^training_agents must be a list of str, not one str: wrap it in a list, e\.g\. \['Google-Extended'\]"):
        robocc.compile(ROBOTS, "Bot", training_agents="Google-Extended")
    with pytest.raises(TypeError, match="^purposes must be a list of str, and an item is int"):
        robocc.compile(ROBOTS, "Bot", dialect="acap", purposes=["news", 3])
    with pytest.raises(TypeError, match="^training_agents must be a list of str, not bytes"):
        robocc.compile(ROBOTS, "Bot", training_agents=b"Google-Extended")
    tokens = b"User-agent: Google-Extended\nDisallow: /\n"
    assert robocc.compile(tokens, "Bot", training_agents=("Google-Extended",)).to_bytes() == \
        robocc.compile(tokens, "Bot", training_agents=["Google-Extended"]).to_bytes()
    for name in ("max_bytes", "max_states", "max_automata", "max_line_len"):
        with pytest.raises(TypeError, match=f"^{name} is a bool: expected an int"):
            robocc.compile(ROBOTS, "Bot", **{name: True})
    with pytest.raises(TypeError, match="^max_store_bytes is a bool"):
        robocc.build_store(tmp_path / "m.jsonl", "Bot", tmp_path / "s.store", max_store_bytes=False)
    # Paths as open() takes them: str, bytes, os.PathLike.
    robocc.compile(ROBOTS, "Bot").save(os.fsencode(tmp_path / "b.policy"))
    assert robocc.Policy.open(os.fsencode(tmp_path / "b.policy")).allowed("/private") is False
    assert robocc.Policy.open(pathlib.Path(tmp_path / "b.policy")).agent == "Bot"
    with pytest.raises(FileNotFoundError) as e:
        robocc.Policy.open(b"/nonexistent/x.policy")
    assert e.value.filename == "/nonexistent/x.policy"
    with pytest.raises(TypeError, match="os.PathLike"):
        robocc.Policy.open(5)


def _stub_defaults(name: str) -> dict:
    tree = ast.parse((pathlib.Path(robocc.__file__).parent / "_native.pyi").read_text())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    args = fn.args.kwonlyargs
    return {a.arg: ast.literal_eval(d) for a, d in zip(args, fn.args.kw_defaults)}


@pytest.mark.parametrize("name", ["compile", "build_store"])
def test_signatures_show_the_real_defaults(name):
    """help() and inspect.signature show the values the keywords default to,
    not `...`; the stubs say the same (python audit F12)."""
    fn = getattr(robocc, name)
    params = inspect.signature(fn).parameters
    defaults = {k: p.default for k, p in params.items() if p.default is not inspect.Parameter.empty}
    assert Ellipsis not in defaults.values()
    stub = _stub_defaults(name)
    assert {k: (list(v) if isinstance(v, tuple) else v) for k, v in defaults.items()} == \
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in stub.items()}
    if name == "compile":
        # Given explicitly, the shown defaults compile the same artifact.
        body = b"User-agent: *\nDisallow: /*a*b$\nCrawl-delay: 3\n"
        assert robocc.compile(body, "Bot", **defaults).to_bytes() == robocc.compile(body, "Bot").to_bytes()


def test_a_budget_error_names_the_keyword_that_raises_it():
    """As the CLI names --max-automata (python audit F1)."""
    body = (pathlib.Path(__file__).resolve().parents[2] / "corpus/hostile/overlapping-star-dollar.txt").read_bytes()
    # Raised by compile(eager=True), and by what needs the artifact of a
    # policy that answers from its rules: the same error.
    lazy = robocc.compile(body, "Bot")
    for needs in (lambda: robocc.compile(body, "Bot", eager=True), lazy.to_bytes):
        with pytest.raises(robocc.CompileError) as e:
            needs()
        assert e.value.limit == "max_automata"
        assert "(raise the limit with max_automata=N, or max_automata=0 for no limit)" in str(e.value)
    assert robocc.compile(body, "Bot", max_automata=0).allowed("/") is True
    assert lazy.allowed("/") is True
    with pytest.raises(robocc.AgentError) as e:
        robocc.compile(body, "Bot/1")
    assert e.value.limit is None
    many = b"User-agent: *\n" + b"".join(b"Disallow: /*a%d*b*c%d\n" % (i, i) for i in range(20000))
    with pytest.raises(robocc.CompileError) as e:
        robocc.compile(many, "Bot", compile_timeout=0.001, eager=True)
    assert e.value.limit == "compile_timeout" and "compile_timeout=0 for no limit" in str(e.value)
    with pytest.raises(robocc.CompileError) as e:
        robocc.compile(many, "Bot", compile_timeout=0.001).diagnostics
    assert e.value.limit == "compile_timeout"


def test_a_corrupted_policy_says_so_plainly():
    """Not rancor's advice to enable its debug features (python audit F9)."""
    raw = bytearray(robocc.compile(b"User-agent: *\nDisallow: /private\n", "a").to_bytes())
    raw[len(raw) // 2] ^= 0xFF
    with pytest.raises(robocc.LoadError) as e:
        robocc.Policy.from_bytes(bytes(raw))
    assert "corrupted policy" in str(e.value)
    assert "rancor" not in str(e.value) and "debug assertions" not in str(e.value)


def test_empty_sitemap_and_host_values_are_left_out():
    """A `Sitemap:` with no value names no sitemap (python audit F6)."""
    p = robocc.compile(b"Sitemap:\nSitemap:   \nSitemap: https://e.com/s.xml\nHost:\nUser-agent: *\n", "Bot")
    assert p.sitemaps == ["https://e.com/s.xml"]
    assert p.hosts == []


def test_rsl_licenses_are_site_wide():
    """RSL 1.0 `License:` lines (issue 46): the file's, wherever they stand,
    for every crawler, compiled eagerly or read lazily."""
    body = (b"User-agent: a\nDisallow: /x\nLicense: https://e.com/a.xml\n\n"
            b"User-agent: *\nLicense:\nlicense: https://e.com/b.xml\n")
    for agent in ("a", "b"):
        for eager in (False, True):
            p = robocc.compile(body, agent, eager=eager)
            assert p.licenses == ["https://e.com/a.xml", "https://e.com/b.xml"], (agent, eager)
    assert robocc.compile(b"User-agent: *\n", "a").licenses == []


def test_preference_grouping():
    """attach-05 reads Content-Usage as a rule: NewsBot's own group states
    nothing; `preference_grouping="crawl"` is Google's grouping (issue 46)."""
    body = b"User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: NewsBot\nAllow: /\n"
    for eager in (False, True):
        assert robocc.compile(body, "NewsBot", eager=eager).preference("/a", "train-ai") is None
        crawl = robocc.compile(body, "NewsBot", preference_grouping="crawl", eager=eager)
        assert crawl.preference("/a", "train-ai") is False
        assert crawl.allowed("/a")
    with pytest.raises(ValueError, match="preference_grouping"):
        robocc.compile(body, "NewsBot", preference_grouping="google")


def test_a_unicode_host_is_looked_up_in_its_idna_form(tmp_path):
    """A build stores `Bücher.com` as `xn--bcher-kva.com`; a URL that writes
    the Unicode name finds it through every lookup, where it was None (not in
    the store, which a crawler may read as allowed)."""
    d = tmp_path / "robots"
    d.mkdir()
    (d / "Bücher.com.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    robocc.build_store(d, "Bot", tmp_path / "s.store")
    store = robocc.Store.open(tmp_path / "s.store")
    for url, allowed in (("https://bücher.com/x", False), ("https://BÜCHER.com/y", True),
                         ("https://xn--bcher-kva.com/x", False)):
        assert store.allowed(url) is allowed, url
        v = store.check(url)
        assert (v.allowed, v.source) == (allowed, "fetched"), url
        assert store.policy_for(url).allowed(url) is allowed, url
        assert store.usage_states(url) is not None, url
    assert store.allowed_many(["https://bücher.com/x", "https://bücher.com/y",
                               "https://ünknown.com/x"]) == [False, True, None]
    assert store.allowed("https://ünknown.com/x") is None
    assert store.check("https://ünknown.com/x") is None
    # A set whose shard for the name as written is not its key's shard.
    shards, index, _ = robocc.build_store_set(
        [("Bücher.example", 200, b"User-agent: *\nDisallow: /x\n", None, None, None)], "Bot", 4)
    d = tmp_path / "set"
    d.mkdir()
    (d / "index.txt").write_text(index)
    for i, b in enumerate(shards):
        (d / ("shard-%05d.store" % i)).write_bytes(b)
    store = robocc.Store.open(d)
    for url, allowed in (("https://bücher.example/x", False), ("https://bücher.example/y", True),
                         ("http://bücher.example:443/x", None), ("http://xn--bcher-kva.example:443/x", None)):
        assert store.allowed(url) is allowed, url
        assert (store.check(url) is None) == (allowed is None), url
    assert store.allowed_many(["https://bücher.example/x", "https://bücher.example/y"]) == [False, True]


def test_a_url_without_a_host_is_not_a_host_missing_from_the_store(tmp_path):
    """None means "host not in the store: fetch its robots.txt"; a URL with
    no host is refused instead (as `check --store` answers it unknown, "no
    host"), python audit F15."""
    d = tmp_path / "robots"
    d.mkdir()
    (d / "a.com.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    robocc.build_store(d, "Bot", tmp_path / "s.store")
    store = robocc.Store.open(tmp_path / "s.store")
    assert store.allowed("https://a.com/x") is False
    assert store.allowed("//a.com/y") is True
    assert store.allowed("https://b.com/x") is None
    # One trailing dot is dropped, as URL parsers drop it (stores audit F21).
    assert store.allowed("https://a.com./x") is False
    # No host, and (as `check --store` answers both "no host", never None)
    # a host no store build accepts.
    # `[]` holds no IPv6 address: URL parsers refuse it, so it is no host.
    refused = [(("a.com/x", "/x", "https:a.com/x", b"a.com/x", "", "https://[]/x"),
                "has no host: a store answers absolute URLs"),
               (("https://a..com/x", "https://a.com:0/x"),
                "has no host a store can hold")]
    for urls, why in refused:
        for url in urls:
            for call in (store.allowed, store.check, store.policy_for, store.usage_states,
                         lambda u: store.preference(u, "train-ai")):
                with pytest.raises(ValueError, match=why):
                    call(url)
    with pytest.raises(ValueError, match=r"^urls\[1\] = \"a.com/x\" has no host"):
        store.allowed_many(["https://a.com/x", "a.com/x"])
    assert store.allowed_many(["https://a.com/x", "https://b.com/"]) == [False, None]
    with pytest.raises(ValueError, match=r"^urls\[1\] = \"https://a..com/\" has no host a store can hold"):
        store.allowed_many(["https://a.com/x", "https://a..com/"])


# --- Issue 41: answers whose truth value or type could mislead ----------------


def test_a_verdicts_truth_value_is_refused(policy, tmp_path):
    """`if policy.check(url):` read every Verdict as true and fetched
    disallowed URLs: truthiness is a TypeError saying what to test."""
    verdict = policy.check("/private")
    assert verdict.allowed is False
    for v in (verdict, policy.check("/")):
        with pytest.raises(TypeError, match=r"verdict\.allowed"):
            bool(v)
        with pytest.raises(TypeError, match=r"verdict\.allowed"):
            if v:  # noqa: SIM108 - the trap itself
                pass
    d = tmp_path / "robots"
    d.mkdir()
    (d / "a.com.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    robocc.build_store(d, "Bot", tmp_path / "s.store")
    store = robocc.Store.open(tmp_path / "s.store")
    with pytest.raises(TypeError, match=r"is None"):
        bool(store.check("https://a.com/x"))
    # The other answers are bool, or None where the answer is unknown, and
    # None is falsy: `if store.allowed(url):` fetches only what is allowed.
    assert store.check("https://b.com/x") is None
    assert store.allowed("https://b.com/x") is None
    states = policy.usage_states("/private")
    assert all(v is True or v is False or v is None for v in states.values())
    assert policy.preference("/private", "train-ai") is None


def test_a_file_name_is_not_robots_txt_contents(tmp_path, monkeypatch):
    """`robocc.compile("robots.txt", agent)` compiled the file's name as a
    one-line robots.txt and allowed everything: a str of one line that
    names a file, or that no robots.txt line could be (no ':' and no
    space), is refused, saying how to read the file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "robots.txt").write_bytes(b"User-agent: *\nDisallow: /\n")
    for name in ("robots.txt", str(tmp_path / "robots.txt"), "missing/robots.txt", "site.txt"):
        with pytest.raises(ValueError, match=r"open\(.*'rb'\)\.read\(\).*Policy\.open") as e:
            robocc.compile(name, "Bot")
        assert repr(name) in str(e.value)
    with pytest.raises(ValueError, match="names a file"):
        robocc.compile("robots.txt", "Bot", references={"/b.txt": "robots.txt"})
    from robocc.protego import Protego

    with pytest.raises(ValueError, match="names a file"):
        Protego.parse("robots.txt")
    with pytest.raises(TypeError, match=r"not str.*Policy\.open"):
        robocc.Policy.from_bytes("site.policy")
    with pytest.raises(TypeError, match=r"not str.*Store\.open"):
        robocc.Store.from_bytes("hosts.store")
    with pytest.raises(TypeError, match=r"not PosixPath.*open\(path, 'rb'\)"):
        robocc.compile(tmp_path / "robots.txt", "Bot")
    # Contents still compile: text with line breaks, one line a robots.txt
    # could hold, an empty file, and any bytes (what a fetch returns).
    assert robocc.compile("User-agent: *\nDisallow: /\n", "Bot").allowed("/x") is False
    assert robocc.compile("Sitemap: https://a.example/s.xml", "Bot").sitemaps == ["https://a.example/s.xml"]
    assert robocc.compile("", "Bot").allowed("/x") is True
    assert robocc.compile(b"robots.txt", "Bot").allowed("/x") is True
    assert Protego.parse("OK").can_fetch("https://a.example/x", "Bot") is True


FIFO_ENTRY_POINTS = """
import os, sys, robocc
from robocc import _native
fifo, good = sys.argv[1], sys.argv[2]
calls = {
    "Policy.open": lambda: robocc.Policy.open(fifo),
    "Store.open": lambda: robocc.Store.open(fifo),
    "build_store": lambda: robocc.build_store(fifo, "Bot", fifo + ".store"),
    "build_store base": lambda: robocc.build_store(good, "Bot", fifo + ".store", base=fifo),
    "read_warc": lambda: robocc.read_warc(fifo),
    "iter_warc": lambda: _native.iter_warc(fifo),
    "read_manifest_range": lambda: _native.read_manifest_range(fifo, 0, 10),
}
for name, call in calls.items():
    try:
        call()
        print(name, "ANSWERED")
    except OSError as e:
        print(name, type(e).__name__, e.filename == fifo, e)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_by_every_entry_point_without_waiting(tmp_path):
    """A FIFO with no writer blocked the binding's open forever, holding the
    GIL (every thread frozen, Ctrl-C ignored). Run in a child with a
    timeout, so that a regression fails instead of hanging the suite."""
    import subprocess
    import sys

    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    good = tmp_path / "m.jsonl"
    good.write_text('{"host": "a.com", "status": 404}\n')
    out = subprocess.run(
        [sys.executable, "-c", FIFO_ENTRY_POINTS, str(fifo), str(good)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 7, out.stdout
    for line in lines:
        assert " OSError True " in line and "it is a FIFO, not a regular file" in line, line
    assert not (tmp_path / "in.fifo.store").exists()


def test_policy_and_store_close_and_are_context_managers(policy, tmp_path):
    path = tmp_path / "site.policy"
    policy.save(path)
    with robocc.Policy.open(path) as mapped:
        assert mapped.closed is False
        assert mapped.allowed("/private") is False
    assert mapped.closed is True
    for call in (lambda: mapped.allowed("/x"), lambda: mapped.check("/x"),
                 lambda: mapped.allowed_many(["/x"]), lambda: mapped.usage_states("/x"),
                 lambda: mapped.agent, lambda: mapped.crawl_delay, mapped.to_bytes,
                 lambda: pickle.dumps(mapped), lambda: mapped.save(tmp_path / "again.policy")):
        with pytest.raises(ValueError, match="^the Policy is closed"):
            call()
    assert "closed" in repr(mapped)
    mapped.close()  # again: nothing to do
    with pytest.raises(ValueError, match="closed"):
        with mapped:
            pass
    d = tmp_path / "robots"
    d.mkdir()
    (d / "a.com.txt").write_bytes(b"User-agent: *\nDisallow: /x\n")
    robocc.build_store(d, "Bot", tmp_path / "s.store")
    with robocc.Store.open(tmp_path / "s.store") as store:
        own = store.policy_for("https://a.com/")
        assert store.allowed("https://a.com/x") is False
    for call in (lambda: store.allowed("https://a.com/x"), lambda: store.check("https://a.com/x"),
                 lambda: store.allowed_many(["https://a.com/x"]), lambda: len(store),
                 lambda: store.host_count, lambda: store.policy_for("https://a.com/")):
        with pytest.raises(ValueError, match="^the Store is closed"):
            call()
    assert store.closed and "closed" in repr(store)
    # A policy taken from the store owns its bytes.
    assert own.allowed("/x") is False


def test_close_while_a_batch_runs_waits_for_nothing_and_unmaps_after(policy, tmp_path):
    """A batch releases the GIL: close() from another thread must not unmap
    what the batch reads (use after unmap); the batch finishes on what it
    holds."""
    path = tmp_path / "site.policy"
    policy.save(path)
    mapped = robocc.Policy.open(path)
    urls = ["/private/x", "/", "/private/public/y"] * 200_000
    want = policy.allowed_many(urls)
    got = []
    t = threading.Thread(target=lambda: got.append(mapped.allowed_many(urls)))
    t.start()
    time.sleep(0.05)
    mapped.close()
    t.join(60)
    assert got == [want] and mapped.closed


def test_the_package_states_its_licence_and_extras():
    """`pip show robocc` had no licence: the metadata carries the SPDX
    expression and the licence files, and the extras include spark."""
    from importlib import metadata

    meta = metadata.metadata("robocc")
    assert meta["License-Expression"] == "MIT OR Apache-2.0"
    files = sorted(meta.get_all("License-File") or [])
    assert files == ["LICENSE-APACHE", "LICENSE-MIT"]
    dist = metadata.distribution("robocc")
    assert "Apache License" in dist.read_text("licenses/LICENSE-APACHE")
    assert "Permission is hereby granted" in dist.read_text("licenses/LICENSE-MIT")
    assert {"scrapy", "spark", "test"} <= set(meta.get_all("Provides-Extra"))
    assert any(r.startswith("pyspark") and "extra == 'spark'" in r for r in meta.get_all("Requires-Dist"))


def test_references_are_the_cli_reference_files(tmp_path):
    """`references` is `--reference PATH=FILE`: the referenced record's
    rules are read from the file's contents."""
    body = b"ACAP-crawler: searchbot\nACAP-permissions-reference: /searchbot.txt\n\nACAP-crawler: *\nACAP-disallow-crawl: /\n"
    referenced = b"ACAP-crawler: searchbot\nACAP-allow-crawl: /\nACAP-disallow-index: /drafts/\n"
    without = robocc.compile(body, "searchbot", dialect="acap")
    assert without.allowed("/x") is False  # a reference with no file prohibits everything
    for given in (referenced, bytearray(referenced), referenced.decode()):
        policy = robocc.compile(body, "searchbot", dialect="acap", references={"/searchbot.txt": given})
        assert policy.allowed("/x") is True
        assert policy.usage("/drafts/a", "index") is False
    with pytest.raises(ValueError, match='^references applies to dialect="acap"'):
        robocc.compile(body, "searchbot", references={"/searchbot.txt": referenced})
    with pytest.raises(TypeError, match="^references must be a dict of path to contents"):
        robocc.compile(body, "searchbot", dialect="acap", references=[("/searchbot.txt", referenced)])
    with pytest.raises(TypeError, match=r"^references\[\"/s.txt\"\] must be bytes, bytearray or str, not int"):
        robocc.compile(body, "searchbot", dialect="acap", references={"/s.txt": 3})


def test_compile_timeout_takes_what_the_cli_takes():
    """Fractional seconds in both (`--compile-timeout 0.5` was refused by
    the CLI); a bool is not a number of seconds, as it is not a limit."""
    for t in (0.5, 0, 30, float("inf"), 1e-3):
        assert robocc.compile(ROBOTS, "Bot", compile_timeout=t).allowed("/x") is False
    for t in (-1, float("nan")):
        with pytest.raises(ValueError, match="^compile_timeout=.*: expected a number of seconds ≥ 0"):
            robocc.compile(ROBOTS, "Bot", compile_timeout=t)
    with pytest.raises(TypeError, match="^compile_timeout is a bool"):
        robocc.compile(ROBOTS, "Bot", compile_timeout=True)
