"""One robots.txt, compiled lazily per crawler: the part that
:class:`robocc.scrapy.RobotParser` and :class:`robocc.protego.Protego` share.

robocc compiles a robots.txt for one product token. Callers of those two
APIs pass whatever they have as the user agent: a token (``"Googlebot"``),
a versioned token (``"Googlebot/2.1"``) or a whole User-Agent header
(Scrapy's default ``"Scrapy/2.13.0 (+https://scrapy.org)"``). The token is
the string itself when it is one, else :func:`robocc.token_from_header`'s
pick; with no token at all, the file's ``*`` groups apply. Each distinct
token gets its policy from :func:`robocc.compile` on first use, and it is
cached, as is each distinct user-agent string. Such a policy answers at
once from the file's rules and compiles its automaton once the checks
have paid for it (microseconds to read a typical file, where compiling it
took a few hundred).

The automata limit (``max_automata``) is lifted unless the caller sets
it: a file that needs more than 1024 automata (each check runs every one)
is read as Google's library reads it, with slower checks. A file whose
automaton does not fit the other limits (``max_states``,
``max_table_bytes``, ``compile_timeout``: memory and time) is answered
from its rules for every check.

With ``eager=True`` among the options (:func:`robocc.compile`'s: compile
before the first answer), a file over the automata limit the caller set
raises, and one over the other limits is disallowed as a whole, as a
store does for a body that fails; a WARNING names the site, the limit and
the keyword that raises it.

Pickled, the object keeps the body and the options, not the policies:
they are made again, as cheaply, on first use.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any, Dict, Optional, Union
from urllib.parse import urlsplit

from ._native import AgentError, CompileError, Policy, compile, token_from_header

logger = logging.getLogger("robocc")

_TOKEN = re.compile(r"[A-Za-z_-]+\Z")
# The 1996 draft's `agent = token` (RFC 1945: printable US-ASCII other than
# the tspecials), which draft1996 and robots2 take: MJ12bot, my.bot.
_DRAFT_TOKEN = re.compile(r"[!#$%&'*+\-.0-9A-Z^_`a-z|~]+\Z")
_LEADING = re.compile(r"[A-Za-z_-]*")
_DRAFT_DIALECTS = ("draft1996", "robots2")

# What a file gets when it cannot be compiled within the budget: everything
# disallowed, as a store does for a body that fails (robocc's default).
_DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"

# Distinct user-agent strings and tokens kept; past that the cache starts
# over (a crawler has a handful; this bounds memory for any caller).
_CACHE_LIMIT = 256


def agent_token(user_agent: str, dialect: str = "rfc9309") -> Optional[str]:
    """The product token robocc compiles for, from what a caller passed as
    the user agent; ``None`` when there is none (the ``*`` groups apply).

    A header's crawler name that is no RFC 9309 token (``MJ12bot``) is, in
    rfc9309 and acap, the name Google's library reads a line ``User-agent:
    MJ12bot`` as: its leading letters, ``_`` and ``-`` (``MJ``), with a
    warning; draft1996 and robots2 take it whole."""
    ua = user_agent.strip()
    draft = str(dialect).lower() in _DRAFT_DIALECTS
    if (_DRAFT_TOKEN if draft else _TOKEN).match(ua):
        return ua
    token = token_from_header(ua)
    if token is None or draft or _TOKEN.match(token):
        return token
    # Nobody to ask here (Scrapy and Protego pass whatever they have), and
    # refusing would disallow every URL: obey what Google's reader obeys,
    # and say so, never cutting silently.
    lead = _LEADING.match(token).group(0)
    logger.warning(
        "robocc: user agent %r names %r, which is not an RFC 9309 product token "
        "(letters, '_' and '-'): compiled for %r, the name Google's library reads a "
        "line 'User-agent: %s' as%s",
        user_agent,
        token,
        lead or None,
        token,
        "" if lead else " (none: only the * groups apply)",
    )
    return lead or None


def _text(value: Union[str, bytes, bytearray]) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def _site(url: Union[str, bytes, bytearray]) -> Optional[str]:
    """The host (and port) of a URL, for messages; ``None`` without one."""
    try:
        return urlsplit(_text(url)).netloc or None
    except ValueError:
        return None


def _refuse_file_name(text: str) -> None:
    """Refuses a one-line ``str`` that names an existing file: it is a
    path given for contents (``Protego.parse("robots.txt")``), which would
    compile as a robots.txt that allows everything. The first of the two
    tests :func:`robocc.compile` applies to a ``str`` (python/src/convert.rs,
    ``refuse_file_name``); the second, a line with no ``:`` or space, is
    left out here: Protego's callers pass fetched text, and a body ``OK``
    is a robots.txt (allow all)."""
    if "\n" in text or "\r" in text or not text.strip() or len(text) > 4096:
        return
    try:
        exists = os.path.exists(text)
    except ValueError:  # a NUL byte: no file's name
        return
    if exists:
        raise ValueError(
            f"robots.txt contents are {text!r}, which names a file: parse a file's "
            f"contents with Protego.parse(open({text!r}, 'rb').read()) or "
            f"robocc.compile(open({text!r}, 'rb').read(), agent); a compiled policy file "
            f"opens with robocc.Policy.open({text!r})"
        )


class AgentPolicies:
    """The policies of one robots.txt body, one per agent token, compiled
    on first use with the keyword arguments of :func:`robocc.compile`."""

    def __init__(
        self,
        body: Union[bytes, bytearray, str],
        *,
        raise_with: str = "{keyword}={value}",
        **options: Any,
    ) -> None:
        """``raise_with`` says how the caller raises a limit, with
        ``{keyword}`` and ``{value}`` (Scrapy: the ``ROBOCC_OPTIONS``
        setting); the options are :func:`robocc.compile`'s."""
        if isinstance(body, str):
            _refuse_file_name(body)
            body = body.encode("utf-8")
        elif not isinstance(body, (bytes, bytearray)):
            raise TypeError(
                f"robots.txt contents must be bytes or str, not {type(body).__name__}"
            )
        self._body = bytes(body)
        # Automata bound the cost of a check, not memory: a crawler wants
        # the file read (Google's library reads it) more than a fast check.
        self._options = {"max_automata": 0, **options}
        self._raise_with = raise_with
        # The site, from the first URL asked about (Scrapy does not say
        # which site a robots.txt is from): log lines name it.
        self._site: Optional[str] = None
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

    def __getstate__(self) -> Dict[str, Any]:
        """The body, the options and the site, not the policies (a policy
        pickles as its artifact, which would compile it, and a file over the
        budget has none): they are read again on first use."""
        state = dict(self.__dict__)
        state["_by_agent"] = {}
        state["_by_token"] = {}
        return state

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

    def for_agent(
        self,
        user_agent: Union[str, bytes, bytearray],
        url: Union[str, bytes, bytearray, None] = None,
    ) -> Policy:
        """The policy for a user agent as a caller passed it; ``url``, when
        the call is about one, names the site in log lines."""
        if not isinstance(user_agent, (str, bytes, bytearray)):
            # Protego fails on it (AttributeError); answering as an agent
            # with no token (the * groups) would hide the caller's bug.
            raise TypeError(
                f"user_agent must be str or bytes, not {type(user_agent).__name__}"
            )
        if self._site is None and url is not None:
            self._site = _site(url)
        key = bytes(user_agent) if isinstance(user_agent, bytearray) else user_agent
        try:
            return self._by_agent[key]
        except KeyError:
            pass
        dialect = self._options.get("dialect", "rfc9309")
        token = agent_token(_text(user_agent), dialect) or self.anonymous_token()
        policy = self.for_token(token)
        if len(self._by_agent) >= _CACHE_LIMIT:
            self._by_agent.clear()
        self._by_agent[key] = policy
        return policy

    def for_token(self, token: str) -> Policy:
        """The policy for a product token, compiled once."""
        policy = self._by_token.get(token.lower())
        if policy is None:
            policy = self._compile(token)
            if len(self._by_token) >= _CACHE_LIMIT:
                self._by_token.clear()
            self._by_token[token.lower()] = policy
        return policy

    def _compile(self, token: str) -> Policy:
        site = f"robots.txt of {self._site}" if self._site else "a robots.txt"
        try:
            # Raises for the budget only with eager=True: otherwise the
            # policy answers from the rules whatever the automaton's size.
            return compile(self._body, token, **self._options)
        except AgentError:
            # The caller's mistake, not the site's: never "disallow the site".
            raise
        except CompileError as e:
            error = e
        limit = getattr(error, "limit", None)
        how = self._raise_with.format(keyword=limit, value=0) if limit else None
        logger.warning(
            "robocc: %s not compiled for %s (%s); every URL of the site is disallowed%s",
            site,
            token,
            error,
            f". To read it, set {how}" if how else "",
        )
        return compile(_DISALLOW_ALL, token)

    def any_policy(self) -> Policy:
        """A policy of the file, for its agent-independent records (Sitemap,
        Host)."""
        for policy in self._by_token.values():
            return policy
        return self.for_token(self.anonymous_token())

