"""robocc as Scrapy's robots.txt parser.

In the project's settings::

    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "robocc.scrapy.RobotParser"
    # Optional: keyword arguments of robocc.compile, e.g.
    # ROBOCC_OPTIONS = {"url_mode": "rfc"}

Scrapy calls :meth:`RobotParser.from_crawler` with the robots.txt body of
each site and :meth:`RobotParser.allowed` per request, with the
``ROBOTSTXT_USER_AGENT`` setting or the request's User-Agent header. The
body is compiled per user-agent token on first use (a full header is reduced
to its product token: ``"Scrapy/2.13 (+https://scrapy.org)"`` is
``Scrapy``) and cached; a check is one pass of the URL through the
automaton. Matching follows RFC 9309 as Google's robotstxt library
implements it (longest match, Allow wins ties), which differs from
Scrapy's default parser, Protego, on about 0.28 % of checks (Google's
grouping, the first Crawl-delay, product-token matching, percent-encoding,
the 500 KiB limit, /robots.txt always allowed: python/README.md, "Scrapy").

A file that needs more automata than ``max_automata`` (1024; a check runs
every one) is compiled again with no automata limit, so the crawl gets
Google's answers (an INFO line names the site). A file over the memory and
time limits (``max_states``, ``max_table_bytes``, ``compile_timeout``)
disallows its whole site, and a WARNING names the site, the limit and the
setting that raises it, e.g. ``ROBOCC_OPTIONS = {'max_states': 0}``; a
limit set in ``ROBOCC_OPTIONS`` is kept as given.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

from ._agents import AgentPolicies

try:  # Scrapy is optional: without it the class has the same interface.
    from scrapy.robotstxt import RobotParser as _RobotParserBase
except ImportError:  # pragma: no cover - depends on the environment
    _RobotParserBase = object  # type: ignore[assignment,misc]

__all__ = ["RobotParser"]


class RobotParser(_RobotParserBase):  # type: ignore[misc,valid-type]
    """Scrapy's ``RobotParser`` interface over robocc policies."""

    def __init__(
        self,
        robotstxt_body: Union[bytes, str],
        spider: Any = None,
        **options: Any,
    ) -> None:
        self.spider = spider
        self._policies = AgentPolicies(
            robotstxt_body,
            raise_with="ROBOCC_OPTIONS = {{{keyword!r}: {value}}} in the project's settings",
            **options,
        )

    @classmethod
    def from_crawler(cls, crawler: Any, robotstxt_body: Union[bytes, str]) -> "RobotParser":
        """A parser for one site's robots.txt body (bytes, as Scrapy passes
        it). The ``ROBOCC_OPTIONS`` setting, a dict, is passed to
        :func:`robocc.compile`."""
        spider = None if not crawler else crawler.spider
        options = {}
        if crawler is not None and getattr(crawler, "settings", None) is not None:
            options = dict(crawler.settings.getdict("ROBOCC_OPTIONS"))
        return cls(robotstxt_body, spider, **options)

    def allowed(self, url: Union[str, bytes], user_agent: Union[str, bytes]) -> bool:
        """``True`` if ``user_agent`` may crawl ``url`` (absolute)."""
        return self._policies.for_agent(user_agent, url).allowed(url)

    def crawl_delay(self, user_agent: Union[str, bytes]) -> Optional[float]:
        """The Crawl-delay for ``user_agent`` in seconds, or ``None``."""
        return self._policies.for_agent(user_agent).crawl_delay

    def sitemaps(self) -> List[str]:
        """The file's Sitemap URLs, in file order (empty values skipped)."""
        return list(self._policies.any_policy().sitemaps)
