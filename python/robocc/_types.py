"""Plain value types returned by robocc (same shape as Protego's)."""

from __future__ import annotations

from datetime import time
from typing import NamedTuple, NoReturn, Optional


class RequestRate(NamedTuple):
    """A Request-rate record: ``requests`` documents per ``seconds``,
    between ``start_time`` and ``end_time`` (UTC) when a window is given."""

    requests: int
    seconds: int
    start_time: Optional[time]
    end_time: Optional[time]


class VisitTime(NamedTuple):
    """A Visit-time window, UTC, both ends inclusive."""

    start_time: time
    end_time: time


class Decision(NamedTuple):
    """One side of a :class:`Change`: the verdict and the rule that decides
    it (``rule``, ``rule_line`` and ``rule_text`` are ``None`` where no rule
    decides; ``rule_line`` too for a rule no line wrote)."""

    allowed: bool
    rule: Optional[int]
    rule_line: Optional[int]
    rule_text: Optional[str]

    def __bool__(self) -> NoReturn:
        raise TypeError(
            "a Decision is not a truth value: test decision.allowed"
        )


class Change(NamedTuple):
    """A change class of :func:`robocc.diff`: paths OLD decides by one rule
    and NEW by another, with different verdicts; ``witness`` is a shortest
    path (and query) that shows it, as URL text (``witness_bytes``: the
    bytes the automata read)."""

    old: Decision
    new: Decision
    witness: str
    witness_bytes: bytes

    def __bool__(self) -> NoReturn:
        raise TypeError(
            "a Change is not a truth value: a diff is a list, empty when "
            "nothing changes"
        )
