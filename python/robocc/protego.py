"""Protego's public API over robocc policies, for code that calls Protego
directly::

    from robocc.protego import Protego   # instead of: from protego import Protego

    rp = Protego.parse(robotstxt)
    rp.can_fetch("https://example.com/page", "mybot")
    rp.crawl_delay("mybot"), rp.request_rate("mybot"), rp.visit_time("mybot")
    list(rp.sitemaps), rp.preferred_host

Each user agent is reduced to a product token (``"mybot"``,
``"Mozilla/5.0 (compatible; MyBot/1.0)"`` → ``MyBot``), which gets one
:func:`robocc.compile` policy: it answers at once from the file's rules,
and compiles the automaton once the checks have paid for it. Verdicts follow RFC 9309 as Google's library
implements it, which Protego also aims at; where the two differ, robocc
follows Google. Known differences: Protego matches a group whose name occurs
anywhere in the user-agent string (the longest such name wins), robocc
compares the one product token; Protego reads the last valid Crawl-delay of
a group, robocc the first (Request-rate and Visit-time: the last, as
Protego); Protego percent-encodes paths and patterns before comparing them,
robocc matches the URL as given, as Google does (``/café`` and
``/caf%C3%A9`` are different paths; Scrapy passes URLs already encoded, so
its crawls are unaffected; ``url_mode="rfc"`` reads them as RFC 9309 §2.2.2
does: docs/dialects.md, "URL modes"); robocc groups as Google does (a
Crawl-delay line does not end a group). ``request_rate()`` and
``visit_time()`` return robocc's ``RequestRate`` and ``VisitTime``: named
tuples with Protego's fields, equal to Protego's as tuples but not
instances of its classes. A user agent that is not ``str`` or ``bytes`` is
a ``TypeError`` (Protego fails with an ``AttributeError``). A file over
robocc's automaton budget is handled as :mod:`robocc.scrapy` says (the
automata limit lifted; a file over the others answered from its rules,
or, with ``eager=True``, every URL disallowed with a WARNING naming the
keyword to pass to :meth:`Protego.parse`). Objects pickle (as the file
and the options: the policies are read again on first use).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Union

from ._agents import AgentPolicies
from ._types import RequestRate, VisitTime

__all__ = ["Protego", "RequestRate", "VisitTime"]


class Protego:
    """A parsed robots.txt, answering for any user agent."""

    def __init__(self, content: Union[str, bytes] = b"", **options: Any) -> None:
        self._policies = AgentPolicies(
            content, raise_with="Protego.parse(content, {keyword}={value})", **options
        )

    @classmethod
    def parse(cls, content: Union[str, bytes], **options: Any) -> "Protego":
        """Reads a robots.txt (text, or bytes). Keyword arguments are those
        of :func:`robocc.compile`."""
        if not isinstance(content, (str, bytes, bytearray)):
            raise TypeError(f"Protego.parse expects str, got {type(content).__name__}")
        return cls(content, **options)

    def can_fetch(self, url: Union[str, bytes], user_agent: Union[str, bytes]) -> bool:
        """``True`` if the user agent may fetch the URL."""
        return self._policies.for_agent(user_agent, url).allowed(url)

    def crawl_delay(self, user_agent: Union[str, bytes]) -> Optional[float]:
        """The Crawl-delay for the user agent in seconds, or ``None``."""
        return self._policies.for_agent(user_agent).crawl_delay

    def request_rate(self, user_agent: Union[str, bytes]) -> Optional[RequestRate]:
        """``RequestRate(requests, seconds, start_time, end_time)`` for the
        user agent, or ``None``."""
        rates = self._policies.for_agent(user_agent).request_rates
        return rates[-1] if rates else None

    def visit_time(self, user_agent: Union[str, bytes]) -> Optional[VisitTime]:
        """``VisitTime(start_time, end_time)`` (UTC) for the user agent, or
        ``None``."""
        times = self._policies.for_agent(user_agent).visit_times
        return times[-1] if times else None

    @property
    def sitemaps(self) -> Iterator[str]:
        """An iterator over the file's Sitemap URLs (empty values skipped,
        as Protego does)."""
        return iter(self._policies.any_policy().sitemaps)

    @property
    def preferred_host(self) -> Optional[str]:
        """The file's Host record (the last one with a value), or ``None``."""
        hosts = self._policies.any_policy().hosts
        return hosts[-1] if hosts else None
