"""robocc as Scrapy's robots.txt parser.

In the project's settings::

    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "robocc.scrapy.RobotParser"
    # Optional: keyword arguments of robocc.compile, e.g.
    # ROBOCC_OPTIONS = {"url_mode": "rfc"}

Scrapy calls :meth:`RobotParser.from_crawler` with the robots.txt body of
each site and :meth:`RobotParser.allowed` per request, with the
``ROBOTSTXT_USER_AGENT`` setting or the request's User-Agent header. Each
user-agent token (a full header is reduced to its product token:
``"Scrapy/2.13 (+https://scrapy.org)"`` is ``Scrapy``) gets a
:func:`robocc.compile` policy on first use, cached: it answers the first
requests from the file's rules and compiles the automaton once they have
cost about what compiling does; a check is then one pass of the URL
through the automaton. Matching follows RFC 9309 as Google's robotstxt library
implements it (longest match, Allow wins ties), which differs from
Scrapy's default parser, Protego, on about 0.28 % of checks (Google's
grouping, the first Crawl-delay, product-token matching, percent-encoding,
the 500 KiB limit, /robots.txt always allowed: python/README.md, "Scrapy").

The automata limit (``max_automata``; each check runs every automaton) is
lifted unless ``ROBOCC_OPTIONS`` sets it, so a file that needs more than
1024 automata gets Google's answers with slower checks. A file whose
automaton does not fit the memory and time limits (``max_states``,
``max_table_bytes``, ``compile_timeout``) is answered from its rules. With
``ROBOCC_OPTIONS = {'eager': True}`` (compile each site's file before its
first answer) such a file disallows its whole site instead, and a WARNING
names the site, the limit and the setting that raises it, e.g.
``ROBOCC_OPTIONS = {'eager': True, 'max_states': 0}``.
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
