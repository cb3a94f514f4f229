"""One robots.txt, compiled lazily per crawler: the part that
:class:`robocc.scrapy.RobotParser` and :class:`robocc.protego.Protego` share.

robocc compiles a robots.txt for one product token. Callers of those two
APIs pass whatever they have as the user agent: a token (``"Googlebot"``),
a versioned token (``"Googlebot/2.1"``) or a whole User-Agent header
(Scrapy's default ``"Scrapy/2.13.0 (+https://scrapy.org)"``). The token is
the string itself when it is one, else :func:`robocc.token_from_header`'s
pick; with no token at all, the file's ``*`` groups apply. Each distinct
token is compiled once, on first use, and cached, as is each distinct
user-agent string.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Dict, Optional, Union

from ._native import CompileError, Policy, compile, token_from_header

logger = logging.getLogger("robocc")

_TOKEN = re.compile(r"[A-Za-z_-]+\Z")

# What a file gets when it cannot be compiled within the budget: everything
# disallowed, as a store does for a body that fails (robocc's default).
_DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"

# Distinct user-agent strings and tokens kept; past that the cache starts
# over (a crawler has a handful; this bounds memory for any caller).
_CACHE_LIMIT = 256


def agent_token(user_agent: str) -> Optional[str]:
    """The product token robocc compiles for, from what a caller passed as
    the user agent; ``None`` when there is none (the ``*`` groups apply)."""
    ua = user_agent.strip()
    if _TOKEN.match(ua):
        return ua
    return token_from_header(ua)


def _text(value: Union[str, bytes, bytearray]) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


class AgentPolicies:
    """The policies of one robots.txt body, one per agent token, compiled
    on first use with the keyword arguments of :func:`robocc.compile`."""

    def __init__(self, body: Union[bytes, bytearray, str], **options: Any) -> None:
        if isinstance(body, str):
            body = body.encode("utf-8")
        elif not isinstance(body, (bytes, bytearray)):
            raise TypeError(
                f"robots.txt contents must be bytes or str, not {type(body).__name__}"
            )
        self._body = bytes(body)
        self._options = options
        self._by_agent: Dict[Union[str, bytes], Policy] = {}
        self._by_token: Dict[str, Policy] = {}
        self._anonymous: Optional[str] = None
        # Fail now, not at the first URL, on options robocc does not have
        # (TypeError) or values it refuses (ValueError); a budget too small
        # for anything is the per-file CompileError handled in for_token.
        if options:
            try:
                compile(b"", "robocc", **options)
            except CompileError:
                pass

    def anonymous_token(self) -> str:
        """A token that no user-agent line of the file names, so that only
        the ``*`` groups apply to it."""
        if self._anonymous is None:
            lower = self._body.lower()
            token = "robocc-anonymous"
            while token.encode() in lower:
                token += "-x"
            self._anonymous = token
        return self._anonymous

    def for_agent(self, user_agent: Union[str, bytes, bytearray, None]) -> Policy:
        """The policy for a user agent as a caller passed it."""
        key = bytes(user_agent) if isinstance(user_agent, bytearray) else user_agent
        try:
            return self._by_agent[key or ""]
        except KeyError:
            pass
        token = agent_token(_text(user_agent or "")) or self.anonymous_token()
        policy = self.for_token(token)
        if len(self._by_agent) >= _CACHE_LIMIT:
            self._by_agent.clear()
        self._by_agent[key or ""] = policy
        return policy

    def for_token(self, token: str) -> Policy:
        """The policy for a product token, compiled once."""
        policy = self._by_token.get(token.lower())
        if policy is None:
            try:
                policy = compile(self._body, token, **self._options)
            except CompileError as e:
                logger.error(
                    "robocc: robots.txt not compiled for %s (%s); every URL is disallowed",
                    token,
                    e,
                )
                policy = compile(_DISALLOW_ALL, token)
            if len(self._by_token) >= _CACHE_LIMIT:
                self._by_token.clear()
            self._by_token[token.lower()] = policy
        return policy

    def any_policy(self) -> Policy:
        """A policy of the file, for its agent-independent records (Sitemap,
        Host)."""
        for policy in self._by_token.values():
            return policy
        return self.for_token(self.anonymous_token())
