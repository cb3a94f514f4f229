"""robocc as Scrapy's robots.txt parser, and a robots.txt middleware that
fetches robots.txt by RFC 9309's rules.

``RobotsTxtMiddleware`` replaces Scrapy's middleware of the same name (same
settings: ``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``)::

    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "robocc.scrapy.RobotsTxtMiddleware": 100,
    }
    # Optional: the fetch rules (robocc.FetchRules' keywords), e.g.
    # ROBOCC_FETCH = {"redirects": "any-host", "failure_hold": 600}
    # How long a request waits for an unreachable robots.txt (seconds)
    # before it is dropped:
    # ROBOCC_ROBOTSTXT_MAX_WAIT = 3600

A 5xx, a 429, a timeout or a refused redirect for robots.txt holds the
site's requests back (nothing is crawled) and robots.txt is fetched again
after the hold (``Retry-After``, else ``failure_hold``); 4xx but 429 allows
all; redirects are followed by the fetch rules (the same origin, up to 5);
a site's rules expire (24 hours, or its ``Cache-Control``/``Expires``) and
are fetched again; bodies are read up to the 500 KiB parse limit
(docs/fetch.md has the table).

As a parser only, in the project's settings::

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

import logging
import time
from typing import Any, Dict, List, Optional, Union

from ._agents import AgentPolicies, agent_token
from ._native import CacheAnswer, FetchDecision, FetchRules, RobotsCache

logger = logging.getLogger(__name__)

try:  # Scrapy is optional: without it the class has the same interface.
    from scrapy.robotstxt import RobotParser as _RobotParserBase
except ImportError:  # pragma: no cover - depends on the environment
    _RobotParserBase = object  # type: ignore[assignment,misc]

__all__ = ["RobotParser", "RobotsTxtMiddleware"]


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


def _transport(exc: BaseException) -> str:
    """The kind of a download failure, by the exception's class names
    (Twisted's and Scrapy's)."""
    names = " ".join(c.__name__ for c in type(exc).__mro__).lower()
    if "timeout" in names:
        return "timeout"
    if "dns" in names:
        return "dns"
    if "ssl" in names or "tls" in names or "certificate" in names:
        return "tls"
    return "connection"


class RobotsTxtMiddleware:
    """A drop-in for Scrapy's ``RobotsTxtMiddleware`` that fetches each
    site's robots.txt by robocc's fetch rules (:class:`robocc.Fetch`,
    :class:`robocc.RobotsCache`; see the module documentation)."""

    DOWNLOAD_PRIORITY = 1000

    def __init__(self, crawler: Any):
        from scrapy.exceptions import NotConfigured

        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self._stats = crawler.stats
        self._default_useragent = settings.get("USER_AGENT") or "Scrapy"
        self._robotstxt_useragent = settings.get("ROBOTSTXT_USER_AGENT")
        # Refuses bad settings now, not at the first request.
        self._rules = FetchRules(**settings.getdict("ROBOCC_FETCH"))
        self._max_wait = settings.getfloat("ROBOCC_ROBOTSTXT_MAX_WAIT", 3600.0)
        # A fetch unreported for longer than a download can take is lost.
        self._fetch_timeout = int(settings.getfloat("DOWNLOAD_TIMEOUT", 180.0)) + 60
        self._caches: Dict[str, RobotsCache] = {}
        # host → the Deferreds of requests waiting for its fetch.
        self._waiting: Dict[str, List[Any]] = {}

    @classmethod
    def from_crawler(cls, crawler: Any) -> "RobotsTxtMiddleware":
        return cls(crawler)

    def _token(self, request: Any) -> str:
        agent = self._robotstxt_useragent
        if not agent:
            agent = request.headers.get(b"User-Agent", self._default_useragent)
        if isinstance(agent, bytes):
            agent = agent.decode("latin-1")
        # No token (an empty header): a name no file uses, so that only the
        # `*` groups apply.
        return agent_token(agent) or "robocc-anonymous"

    def _cache(self, token: str) -> RobotsCache:
        cache = self._caches.get(token)
        if cache is None:
            cache = RobotsCache(token, self._rules, fetch_timeout=self._fetch_timeout)
            self._caches[token] = cache
        return cache

    async def process_request(self, request: Any, spider: Any = None) -> None:
        from scrapy.exceptions import IgnoreRequest
        from scrapy.utils.httpobj import urlparse_cached

        if request.meta.get("dont_obey_robotstxt"):
            return None
        if request.url.startswith(("data:", "file:")):
            return None
        url = urlparse_cached(request)
        host = f"{url.scheme}://{url.netloc}"
        cache = self._cache(self._token(request))
        started = time.time()
        while True:
            now = time.time()
            answer = cache.check(host, request.url, now=now)
            if answer == CacheAnswer.ALLOW:
                return None
            if answer == CacheAnswer.FETCH:
                await self._fetch(cache, host)
                continue
            if answer == CacheAnswer.WAIT:
                await self._wait(host)
                continue
            held = cache.held(host)
            if held is not None and held[3] and held[0] == "disallow_all":
                # Unreachable for now: hold the request back until the
                # hold ends, then fetch robots.txt again.
                waited = now - started
                until = held[2]
                if waited + max(until - now, 0) > self._max_wait:
                    self._stats.inc_value("robotstxt/held_back_dropped")
                    raise IgnoreRequest(f"robots.txt of {host} unreachable ({held[1]})")
                self._stats.inc_value("robotstxt/held_back")
                await self._sleep(max(until - now, 0.05))
                continue
            logger.debug("Forbidden by robots.txt: %(request)s", {"request": request},
                         extra={"spider": self.crawler.spider})
            self._stats.inc_value("robotstxt/forbidden")
            raise IgnoreRequest("Forbidden by robots.txt")

    async def _download(self, request: Any) -> Any:
        from scrapy.utils.defer import maybe_deferred_to_future

        engine = self.crawler.engine
        if hasattr(engine, "download_async"):
            return await engine.download_async(request)
        return await maybe_deferred_to_future(engine.download(request))  # pragma: no cover

    async def _fetch(self, cache: RobotsCache, host: str) -> None:
        from scrapy.http import Request
        from scrapy.http.request import NO_CALLBACK

        fetch = cache.fetch(host + "/robots.txt")
        decision: Optional[FetchDecision] = None
        try:
            while decision is None:
                request = Request(
                    fetch.url,
                    priority=self.DOWNLOAD_PRIORITY,
                    # The fetch rules read every status and follow redirects
                    # themselves; a failure is retried after its hold.
                    meta={"dont_obey_robotstxt": True, "dont_redirect": True,
                          "handle_httpstatus_all": True, "dont_retry": True},
                    callback=NO_CALLBACK,
                )
                self._stats.inc_value("robotstxt/request_count")
                try:
                    response = await self._download(request)
                except Exception as e:  # noqa: BLE001 - every failure is one of the table's
                    self._stats.inc_value(f"robotstxt/exception_count/{type(e)}")
                    decision = fetch.fail(_transport(e), now=time.time())
                    break
                self._stats.inc_value("robotstxt/response_count")
                self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
                headers = {k.decode("latin-1"): response.headers.get(k).decode("latin-1")
                           for k in response.headers.keys()}
                step = fetch.answer(response.status, headers, response.body, now=time.time())
                if isinstance(step, FetchDecision):
                    decision = step
            # What the body is (an HTML page, over the parse limit): worth
            # a look, as a bot wall served with 200 reads as allow all.
            for message in decision.diagnostics:
                logger.warning("robots.txt of %s: %s", host, message)
            if decision.failure:
                logger.warning("robots.txt of %s: %s, its requests held back for %ss",
                               host, decision.reason, decision.hold)
            cache.report(host, decision, now=time.time())
        finally:
            for d in self._waiting.pop(host, []):
                d.callback(None)

    async def _wait(self, host: str) -> None:
        from twisted.internet.defer import Deferred
        from scrapy.utils.defer import maybe_deferred_to_future

        d: Any = Deferred()
        self._waiting.setdefault(host, []).append(d)
        await maybe_deferred_to_future(d)

    async def _sleep(self, seconds: float) -> None:
        from twisted.internet import reactor
        from twisted.internet.task import deferLater
        from scrapy.utils.defer import maybe_deferred_to_future

        await maybe_deferred_to_future(deferLater(reactor, seconds, lambda: None))
