"""A store answers a URL from the policy of the host a client fetches.

The differential counterpart of engine/tests/url_hosts.rs (WHATWG, the
`url` crate) against Python's own parser, `urllib.parse` (RFC 3986), which
requests and urllib fetch with: wherever robocc answers from a host's
policy, urllib names that host; where the parsers could disagree, robocc
reads no host (``ValueError``), never another host's policy (issue 41,
item 1).
"""

from __future__ import annotations

import random
from urllib.parse import urlsplit

import pytest

import robocc

# Each host's policy answers /private differently, so the answer tells
# whose policy was read.
HOSTS = {
    "victim.example": b"User-agent: *\nDisallow: /\n",
    "allowed.example": b"User-agent: *\nAllow: /\n",
    "victim.example:8080": b"User-agent: *\nDisallow: /\n",
}
EXPECTED = {"victim.example": False, "allowed.example": True, "victim.example:8080": False}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("hosts")
    robots = d / "robots"
    robots.mkdir()
    for host, body in HOSTS.items():
        (robots / (host.replace(":", "_") + ".txt")).write_bytes(body)
    manifest = d / "m.jsonl"
    import json

    with open(manifest, "w") as f:
        for host, body in HOSTS.items():
            path = robots / (host.replace(":", "_") + ".txt")
            f.write(json.dumps({"host": host, "status": 200, "body_path": str(path)}) + "\n")
    robocc.build_store(manifest, "ExampleBot", d / "s.store")
    return robocc.Store.open(d / "s.store")


def urllib_key(url: str):
    """The host (and port, unless the scheme's default) urllib fetches."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if host is None:
        return None
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return host if port is None or port == default else f"{host}:{port}"


def answer(store, url: str):
    """robocc's answer, or "no host" when it reads none."""
    try:
        return store.allowed(url)
    except ValueError:
        return "no host"


def agree(store, url: str) -> bool:
    got = answer(store, url)
    if got == "no host":
        return False
    want = EXPECTED.get(urllib_key(url))
    assert got == want, f"{url!r}: robocc answers {got}, the policy of {urllib_key(url)!r} says {want}"
    return True


@pytest.mark.parametrize(
    "url,read",
    [
        ("https://allowed.example;@victim.example/private", False),
        ("https://[::1];@victim.example/private", False),
        ("https://allowed.example\\@victim.example/private", False),
        ("https://[@victim.example/private", False),
        ("https://allowed.example@victim.example/private", True),
        ("https://allowed.example:pw@victim.example/private", True),
        ("https://a@allowed.example@victim.example/private", True),
        ("https://victim.example#@allowed.example/private", True),
        ("https://victim.example?@allowed.example/private", True),
        ("https://victim.example:08080/private", True),
        ("https://vic\ttim.example/private", False),
        ("https://victim%2Eexample/private", False),
        ("//allowed.example;@victim.example/private", False),
    ],
)
def test_hostile_authorities(store, url, read):
    assert agree(store, url) is read


def test_generated_authorities_agree_with_urllib(store):
    pieces = [
        "victim.example", "allowed.example", "Victim.Example", ".", "@", "@", ":", "8080", "443",
        "[", "]", "[::1]", "%", "%2E", "\\", ";", " ", "\t", "#", "?", "/", "_", "0", "1.2.3",
    ]
    rng = random.Random(41)
    read = 0
    for _ in range(20_000):
        authority = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
        url = rng.choice(["http://", "https://", "HTTPS://"]) + authority + rng.choice(["/private", "", "?q"])
        read += agree(store, url)
    # Not a reader that refuses everything.
    assert read > 2_000, read


def test_an_empty_build_does_not_replace_a_store_with_hosts(tmp_path, store):
    """Issue 41, item 8, in Python: an empty manifest (a failed fetch stage)
    must not wipe yesterday's store; ``allow_empty=True`` says it may."""
    full = tmp_path / "m.jsonl"
    full.write_text('{"host": "a.example", "status": 200, "body": "User-agent: *\\nDisallow: /\\n"}\n')
    out = tmp_path / "s.store"
    robocc.build_store(full, "ExampleBot", out)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(robocc.StoreBuildError, match="read no host.*allow_empty=True"):
        robocc.build_store(empty, "ExampleBot", out)
    assert robocc.Store.open(out).allowed("https://a.example/x") is False
    robocc.build_store(empty, "ExampleBot", out, allow_empty=True)
    assert len(robocc.Store.open(out)) == 0
