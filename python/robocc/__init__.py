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
builds a store set, or surveys WARC files, on Spark (``robocc.spark``);
``robocc.survey`` surveys a store (docs/survey.md).
"""

from ._native import (
    AgentError,
    CompileError,
    Diagnostic,
    Fetch,
    CacheAnswer,
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
)
from ._native import diff as _diff
from ._native import (
    host_key,
    read_warc,
    redirect_dependencies,
    shard_of,
    store_set_index,
    token_from_header,
)
from ._types import (
    AgentSurvey,
    Change,
    Decision,
    PathSurvey,
    RequestRate,
    SurveyClass,
    SurveyRow,
    VisitTime,
)
from ._survey import survey, survey_text

__all__ = [
    "AgentError",
    "AgentSurvey",
    "Change",
    "CompileError",
    "Decision",
    "Diagnostic",
    "Fetch",
    "CacheAnswer",
    "FetchDecision",
    "FetchRules",
    "LoadError",
    "PathSurvey",
    "Policy",
    "RequestRate",
    "RoboccError",
    "RobotsCache",
    "Store",
    "StoreBuildError",
    "StoreReport",
    "SurveyClass",
    "SurveyRow",
    "Verdict",
    "VisitTime",
    "__version__",
    "build_store",
    "build_store_set",
    "build_store_shard",
    "compile",
    "diff",
    "host_key",
    "read_warc",
    "redirect_dependencies",
    "shard_of",
    "store_set_index",
    "survey",
    "survey_text",
    "token_from_header",
]


def diff(old, new, agent, usage="crawl", *, max_pairs=1_000_000, **options):
    """What changing robots.txt ``old`` into ``new`` (str or bytes) does for
    ``agent`` (a product token, or several: Google's merged reading) on
    ``usage`` (``"crawl"``, ``"train-ai"``, …): every change class, each a
    :class:`Change` with a shortest witness, in the order found (shorter
    witnesses first); ``[]`` when no URL changes verdict. ``options`` are
    :func:`compile`'s keywords (``dialect``, ``url_mode``, …).

    Exact: the product of both policies' automata is explored whole; over
    ``max_pairs`` states (0: no limit) it raises :class:`RoboccError`
    rather than answer in part.

    >>> [c.witness for c in diff("User-agent: *\\nDisallow: /a\\n", "User-agent: *\\n", "Bot")]
    ['/a']
    """
    return [
        Change(Decision(*o), Decision(*n), witness, bytes(witness_bytes))
        for o, n, witness, witness_bytes in _diff(
            old, new, agent, usage, max_pairs, **options
        )
    ]
