"""robocc: robots.txt compiled once into an automaton, checked from Python.

>>> import robocc
>>> policy = robocc.compile(b"User-agent: *\\nDisallow: /private\\n", "ExampleBot")
>>> policy.allowed("https://example.com/private/page")
False
>>> policy.allowed_many(["https://example.com/", "https://example.com/private"])
[True, False]

``robocc.scrapy.RobotParser`` is a Scrapy ``ROBOTSTXT_PARSER`` and
``robocc.scrapy.RobotsTxtMiddleware`` a robots.txt middleware that fetches
by RFC 9309's rules (``robocc.Fetch``, ``robocc.RobotsCache``);
``robocc.protego.Protego`` follows Protego's API; ``python -m robocc.spark``
builds a store set on Spark (``robocc.spark``).
"""

from ._native import (
    AgentError,
    CompileError,
    Diagnostic,
    Fetch,
    FetchDecision,
    FetchRules,
    LoadError,
    Policy,
    RoboccError,
    RobotsCache,
    Store,
    StoreBuildError,
    StoreReport,
    Verdict,
    __version__,
    build_store,
    build_store_set,
    build_store_shard,
    compile,
    host_key,
    read_warc,
    redirect_dependencies,
    shard_of,
    store_set_index,
    token_from_header,
)
from ._types import RequestRate, VisitTime

__all__ = [
    "AgentError",
    "CompileError",
    "Diagnostic",
    "Fetch",
    "FetchDecision",
    "FetchRules",
    "LoadError",
    "Policy",
    "RequestRate",
    "RoboccError",
    "RobotsCache",
    "Store",
    "StoreBuildError",
    "StoreReport",
    "Verdict",
    "VisitTime",
    "__version__",
    "build_store",
    "build_store_set",
    "build_store_shard",
    "compile",
    "host_key",
    "read_warc",
    "redirect_dependencies",
    "shard_of",
    "store_set_index",
    "token_from_header",
]
