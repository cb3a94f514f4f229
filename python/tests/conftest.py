"""Shared fixtures: where the repository's corpus and the robocc command
line are, and URLs generated from a robots.txt's own patterns."""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
SHARED_REAL = ROOT.parent / "shared" / "corpus" / "real"


def robocc_bin() -> Optional[Path]:
    """The robocc CLI: $ROBOCC_BIN (the test command sets it), else a build
    in target/, else one on PATH."""
    env = os.environ.get("ROBOCC_BIN")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "robocc"
        if p.is_file():
            return p
    found = shutil.which("robocc")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def cli() -> Path:
    path = robocc_bin()
    if path is None or not path.is_file():
        if os.environ.get("ROBOCC_REQUIRE_CLI"):
            pytest.fail(f"ROBOCC_REQUIRE_CLI is set but no robocc binary was found ({path})")
        pytest.skip("no robocc binary: build it with `cargo build -p robocc-cli` or set ROBOCC_BIN")
    return path


def txt_files(directory: Path) -> List[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix == ".txt" and p.is_file())


_RULE = re.compile(rb"(?im)^[ \t]*(?:allow|disallow)[ \t]*:?[ \t]*([^\s#]*)")
_AGENT = re.compile(rb"(?im)^[ \t]*user-?agent[ \t]*:?[ \t]*([A-Za-z_-]+)")
_STARS = ["", "a", "x/y", "%2F", "%2f", "\u00e9", "*", "$", "index.html", "a$b"]
_SUFFIXES = ["", "", "x", "/", "?q=1", ".html", "#frag", "%41", "/%7Euser", "?\u00fc=1"]


def named_agents(body: bytes) -> List[str]:
    """Product tokens the file's user-agent lines name, in file order."""
    seen: List[str] = []
    for m in _AGENT.finditer(body):
        token = m.group(1).decode("ascii")
        if token.lower() not in (s.lower() for s in seen):
            seen.append(token)
    return seen


def urls_for(body: bytes, n: int, seed: int) -> List[str]:
    """n absolute URLs built from the file's Allow/Disallow patterns (hits,
    near misses, encodings, queries, non-ASCII) and random paths."""
    rng = random.Random(seed)
    patterns = [m.group(1).decode("utf-8", "replace") for m in _RULE.finditer(body)]
    out = []
    for i in range(n):
        if patterns and rng.random() < 0.85:
            p = rng.choice(patterns)
            p = "".join(rng.choice(_STARS) if c == "*" else c for c in p)
            if p.endswith("$") and rng.random() < 0.5:
                p = p[:-1]
            if p and rng.random() < 0.2:
                p = p[: rng.randrange(len(p))]
            p += rng.choice(_SUFFIXES)
        else:
            p = "/" + "/".join(rng.choice(["a", "b", "img", "Search", "%C3%A9", "x.php"]) for _ in range(rng.randrange(4)))
        if not p.startswith("/") and rng.random() < 0.9:
            p = "/" + p
        # The CLI reads one URL per line.
        p = "".join(c for c in p if c not in "\r\n\x00\x0b\x0c")
        out.append(("https://www.example.com" if i % 7 else "http://Example.com:8080") + p)
    return out
