#!/usr/bin/env python3
"""Manifests of a million hosts for `robocc store build --manifest`, then
`bench --bin lookup` (docs/performance-log.md, "store format 9").

    bench/scripts/million_hosts.py DIR [DISTINCT]

Writes DIR/manifest.jsonl: hosts `host<i>.example<i % 97>.com`, 87% status
200, 8% 404, 4% 503, 1% redirects (the report's mix). Without DISTINCT,
the 200 bodies are the files of ../shared/corpus/real round robin (3,861
distinct policies: their records and first lines stay in cache). With
DISTINCT (e.g. 200000), host i gets body variant i % DISTINCT, written to
DIR/b/: corpus file j % len with the rule `Disallow: /zz<j>/` added to
each group, so that each compiles to a policy of its own for Googlebot, as
a crawl's bodies mostly differ. Then, from DIR:

    robocc store build --manifest manifest.jsonl --agent Googlebot -o s.store
    cargo run --release -p robocc-bench --bin lookup -- DIR/s.store --rounds 9
"""
import json
import os
import re
import sys

M = 1_000_000
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus", "real"))
RULE = re.compile(rb"^\s*(dis)?allow\s*:", re.I)
AGENT = re.compile(rb"^\s*user-agent\s*:", re.I)


def host(i):
    return f"host{i}.example{i % 97}.com"


def variant(text, j):
    """`text` with `Disallow: /zz<j>/` after the first rule of each group."""
    out, want = [], False
    for line in text.split(b"\n"):
        if AGENT.match(line):
            want = True
        out.append(line)
        if want and RULE.match(line):
            out.append(b"Disallow: /zz%d/" % j)
            want = False
    return b"\n".join(out)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    distinct = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    files = sorted(f for f in os.listdir(CORPUS) if f.endswith(".txt"))
    os.makedirs(out, exist_ok=True)
    if distinct:
        os.makedirs(os.path.join(out, "b"), exist_ok=True)
        texts = [open(os.path.join(CORPUS, f), "rb").read() for f in files]
        for j in range(distinct):
            with open(os.path.join(out, "b", f"{j}.txt"), "wb") as f:
                f.write(variant(texts[j % len(texts)], j))
    with open(os.path.join(out, "manifest.jsonl"), "w") as m:
        for i in range(M):
            roll = ((i * 0x9E3779B97F4A7C15) & (2**64 - 1)) >> 54
            h = {"host": host(i)}
            if roll < 870:
                if distinct:
                    body = os.path.join("b", f"{i % distinct}.txt")
                else:
                    body = os.path.join(CORPUS, files[i % len(files)])
                h.update(status=200, body_path=body)
            elif roll < 952:
                h.update(status=404)
            elif roll < 993:
                h.update(status=503)
            else:
                h.update(status=301, location=f"https://{host((i * 7919) % M)}/robots.txt")
            m.write(json.dumps(h) + "\n")


if __name__ == "__main__":
    main()
