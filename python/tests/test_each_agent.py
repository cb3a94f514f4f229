"""Each agent answered separately (``compile(..., each_agent=True)``,
issue 44): ``Policy.check_each`` must give every agent what a policy
compiled for that agent alone gives it (verdict and deciding line), on
real files of corpus/real and generated URLs; ``Policy.agents``, the
artifact's round trip, the command line's ``--each-agent`` and the
refusals."""

from __future__ import annotations

import json
import subprocess

import pytest

import robocc

from conftest import CORPUS, named_agents, txt_files, urls_for

CRAWLERS = ["GPTBot", "ClaudeBot", "CCBot", "Googlebot", "UnlistedBot"]


def agents_for(body: bytes):
    agents = []
    for a in named_agents(body)[:4] + CRAWLERS:
        if a != "*" and a.lower() not in (x.lower() for x in agents):
            agents.append(a)
    return agents


def answer(v: robocc.Verdict):
    return (v.allowed, v.rule_line, v.pattern, v.origin)


@pytest.mark.parametrize("path", txt_files(CORPUS / "real")[::6], ids=lambda p: p.name)
def test_check_each_matches_one_agent_policies(path) -> None:
    body = path.read_bytes()
    agents = agents_for(body)
    # Each-agent compiles whenever every agent alone does (per column where
    # the columns' joint automaton is over the budget).
    each = robocc.compile(body, agents, each_agent=True)
    assert each.agents == tuple(agents)
    alone = {a: robocc.compile(body, a, eager=True) for a in agents}
    again = robocc.Policy.from_bytes(each.to_bytes())
    for url in urls_for(body, 60, seed=44):
        got = each.check_each(url)
        assert list(got) == agents
        assert got == again.check_each(url)
        for a in agents:
            assert answer(got[a]) == answer(alone[a].check(url)), (a, url)
        # The one-answer methods answer the first agent.
        assert answer(each.check(url)) == answer(alone[agents[0]].check(url))


def test_one_agent_policy_answers_its_agent() -> None:
    policy = robocc.compile(b"User-agent: *\nDisallow: /x\n", "ExampleBot")
    assert policy.agents == ("ExampleBot",)
    assert {a: v.allowed for a, v in policy.check_each("/x").items()} == {"ExampleBot": False}


def test_coinciding_agents_and_refusals() -> None:
    body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"
    each = robocc.compile(body, ["GPTBot", "CCBot", "Bingbot"], each_agent=True)
    got = each.check_each("https://example.com/private/a")
    assert [got[a].rule_line for a in each.agents] == [2, 5, 5]
    assert {a: v.allowed for a, v in each.check_each("/a").items()} == {
        "GPTBot": False,
        "CCBot": True,
        "Bingbot": True,
    }
    with pytest.raises(robocc.CompileError, match="does not apply to acap"):
        robocc.compile(body, ["A", "B"], dialect="acap", each_agent=True)


def test_cli_each_agent_json_matches(cli) -> None:
    path = CORPUS / "real" / "ropensci-robotstxt__robots_wikipedia.txt"
    body = path.read_bytes()
    agents = ["GPTBot", "CCBot", "Googlebot"]
    each = robocc.compile(body, agents, each_agent=True)
    urls = urls_for(body, 20, seed=7)
    args = [str(cli), "check", "--robots", str(path), "--format", "json"]
    for a in agents:
        args += ["--each-agent", a]
    out = subprocess.run(args + urls, capture_output=True, check=True).stdout.decode()
    for url, line in zip(urls, out.splitlines()):
        got = json.loads(line)["agents"]
        mine = each.check_each(url)
        for a in agents:
            assert (got[a]["verdict"] == "allow", got[a]["rule_line"]) == (
                mine[a].allowed,
                mine[a].rule_line,
            ), (a, url)


def on_host(url: str, host: str) -> str:
    """``url`` (from ``urls_for``) with its scheme and authority made ``https://host``."""
    for prefix in ("https://www.example.com", "http://Example.com:8080"):
        if url.startswith(prefix):
            return f"https://{host}{url[len(prefix):]}"
    raise AssertionError(url)


def test_store_check_each_matches_one_agent_policies_and_cli(tmp_path, cli) -> None:
    # Every 60th real file as a host of a store built for each agent: each
    # agent's answer is that of a policy compiled for it alone, and the
    # command line's `check --store` (JSON) says the same.
    d = tmp_path / "robots"
    d.mkdir()
    bodies = {}
    for i, path in enumerate(txt_files(CORPUS / "real")[::60]):
        bodies[f"h{i}.example"] = path.read_bytes()
        (d / f"h{i}.example.txt").write_bytes(path.read_bytes())
    agents = ["GPTBot", "CCBot", "Googlebot", "UnlistedBot"]
    out = tmp_path / "each.store"
    report = robocc.build_store(d, agents, out, each_agent=True)
    assert report.hosts == len(bodies) and not report.failures
    store = robocc.Store.open(out)
    cli_urls = []
    for host, body in bodies.items():
        alone = {a: robocc.compile(body, a, eager=True) for a in agents}
        for url in urls_for(body, 12, seed=49):
            url = on_host(url, host)
            got = store.check_each(url)
            assert list(got) == agents
            for a in agents:
                assert answer(got[a]) == answer(alone[a].check(url)), (host, a, url)
                assert got[a].source == "fetched"
            # The one-answer methods answer the first agent.
            assert answer(store.check(url)) == answer(got[agents[0]])
            if len(cli_urls) < 200:
                cli_urls.append((url, got))
    assert store.check_each("https://absent.example/a") is None
    with pytest.raises(ValueError):
        store.check_each("/no/host")
    args = [str(cli), "check", "--store", str(out), "--format", "json"]
    lines = subprocess.run(
        args + [u for u, _ in cli_urls], capture_output=True, check=True
    ).stdout.decode()
    for (url, mine), line in zip(cli_urls, lines.splitlines()):
        theirs = json.loads(line)["agents"]
        assert list(theirs) == agents
        for a in agents:
            assert (theirs[a]["verdict"] == "allow", theirs[a]["rule_line"]) == (
                mine[a].allowed,
                mine[a].rule_line,
            ), (a, url)


def test_store_of_agents_read_together_answers_one(tmp_path) -> None:
    d = tmp_path / "robots"
    d.mkdir()
    (d / "example.com.txt").write_bytes(
        b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n"
    )
    robocc.build_store(d, ["GPTBot", "CCBot"], tmp_path / "t.store")
    together = robocc.Store.open(tmp_path / "t.store")
    got = together.check_each("https://example.com/a")
    assert list(got) == ["GPTBot,CCBot"] and got["GPTBot,CCBot"].allowed is False
    robocc.build_store(d, ["GPTBot", "CCBot"], tmp_path / "e.store", each_agent=True)
    each = robocc.Store.open(tmp_path / "e.store")
    assert {a: v.allowed for a, v in each.check_each("https://example.com/a").items()} == {
        "GPTBot": False,
        "CCBot": True,
    }
    with pytest.raises(robocc.AgentError):
        robocc.build_store(d, ["GPTBot", "bad/token"], tmp_path / "f.store", each_agent=True)
