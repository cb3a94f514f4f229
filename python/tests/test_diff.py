"""robocc.diff: typed change classes, checked against the policies by brute
force and against the command line's JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import robocc

from conftest import CORPUS, txt_files, urls_for

OLD = b"User-agent: *\nDisallow: /private/\nContent-Signal: ai-train=no\n"
NEW = (
    b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nDisallow: /*.pdf$\n"
    b"Content-Signal: ai-train=yes\n"
)


def _verify(old: bytes, new: bytes, changes) -> None:
    """Every witness shows its class; every class sampled URLs show is
    listed (crawl)."""
    a = robocc.compile(old, "Googlebot", eager=True)
    b = robocc.compile(new, "Googlebot", eager=True)

    def verdict(p, url):
        return p.check(url)

    listed = {(c.old.allowed, c.old.rule, c.new.allowed, c.new.rule) for c in changes}
    assert len(listed) == len(changes)
    for c in changes:
        url = "https://example.com" + c.witness
        vo, vn = verdict(a, url), verdict(b, url)
        assert (vo.allowed, vo.rule, vn.allowed, vn.rule) == (
            c.old.allowed,
            c.old.rule,
            c.new.allowed,
            c.new.rule,
        ), c
        assert c.old.allowed != c.new.allowed
    for url in urls_for(old + new, 400, 45):
        vo, vn = verdict(a, url), verdict(b, url)
        if vo.allowed != vn.allowed:
            assert (vo.allowed, vo.rule, vn.allowed, vn.rule) in listed, url


def test_changes_are_typed_and_shortest():
    changes = robocc.diff(OLD, NEW, "Googlebot")
    assert all(isinstance(c, robocc.Change) for c in changes)
    assert all(isinstance(c.old, robocc.Decision) for c in changes)
    shown = sorted((c.witness, c.old.allowed, c.new.allowed, c.old.rule_line, c.new.rule_line)
                   for c in changes)
    assert shown == [("/.pdf", True, False, None, 4), ("/private/ok", False, True, 2, 3)]
    by_witness = {c.witness: c for c in changes}
    assert by_witness["/.pdf"].new.rule_text == "Disallow: /*.pdf$"
    assert by_witness["/.pdf"].old.rule_text is None
    assert by_witness["/.pdf"].witness_bytes == b"/.pdf"
    _verify(OLD, NEW, changes)


def test_no_truthiness_that_lies():
    (c, *_) = robocc.diff(OLD, NEW, "Googlebot")
    with pytest.raises(TypeError):
        bool(c)
    with pytest.raises(TypeError):
        bool(c.old)
    # The list itself: empty exactly when nothing changes.
    assert robocc.diff(OLD, OLD, "Googlebot") == []


def test_usage_channels():
    crawl = robocc.diff(OLD, NEW, "Googlebot")
    train = robocc.diff(OLD, NEW, "Googlebot", usage="train-ai")
    assert train and train != crawl
    assert all(not c.old.allowed and c.new.allowed for c in train)
    a, b = robocc.compile(OLD, "Googlebot"), robocc.compile(NEW, "Googlebot")
    for c in train:
        url = "https://example.com" + c.witness
        # A verdict allows where the preference is not a disallow (True, or
        # None: unknown).
        assert a.preference(url, "train-ai") is False
        assert b.preference(url, "train-ai") is not False
    with pytest.raises(ValueError):
        robocc.diff(OLD, NEW, "Googlebot", usage="nonsense")


def test_options_budget_and_agents():
    with pytest.raises(robocc.RoboccError, match="max_pairs"):
        robocc.diff(OLD, NEW, "Googlebot", max_pairs=2)
    with pytest.raises(TypeError):
        robocc.diff(OLD, NEW, "Googlebot", no_such_option=1)
    # Several agents: Google's merged reading, as compile reads them.
    old = b"User-agent: a\nDisallow: /a\n\nUser-agent: b\nDisallow: /b\n"
    new = b"User-agent: a\nDisallow: /a\n\nUser-agent: b\n"
    assert robocc.diff(old, new, ["a", "b"])
    assert robocc.diff(old, new, "a") == []
    rfc = robocc.diff(b"User-agent: *\nDisallow: /x\n", b"User-agent: *\nDisallow: /a{b}*\n",
                      "Bot", url_mode="rfc")
    assert any(c.witness.startswith("/a%7Bb%7D") for c in rfc)


def test_corpus_deletions_match_brute_force():
    files = [p for p in txt_files(CORPUS / "real")][::7][:12]
    checked = 0
    for path in files:
        body = path.read_bytes()
        lines = body.split(b"\n")
        rules = [i for i, l in enumerate(lines)
                 if l.split(b":")[0].strip().lower() in (b"allow", b"disallow")]
        if not rules:
            continue
        cut = rules[len(rules) // 2]
        new = b"\n".join(l for i, l in enumerate(lines) if i != cut)
        try:
            changes = robocc.diff(body, new, "Googlebot")
        except robocc.CompileError:
            continue
        _verify(body, new, changes)
        checked += 1
    assert checked >= 5


def test_agrees_with_the_command_line(cli: Path, tmp_path: Path):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_bytes(OLD)
    new.write_bytes(NEW)
    for usage in ("crawl", "train-ai"):
        out = subprocess.run(
            [str(cli), "diff", str(old), str(new), "--agent", "Googlebot",
             "--format", "json", "--usage", usage],
            capture_output=True, check=False,
        )
        assert out.returncode == 1, out.stderr
        cli_changes = json.loads(out.stdout)["changes"]
        ours = robocc.diff(OLD, NEW, "Googlebot", usage=usage)
        assert [(c["witness"], c["old_line"], c["new_line"]) for c in cli_changes] == [
            (c.witness, c.old.rule_line, c.new.rule_line) for c in ours
        ]
