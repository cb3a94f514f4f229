"""Plain value types returned by robocc (same shape as Protego's)."""

from __future__ import annotations

from datetime import time
from enum import Enum
from typing import NamedTuple, NoReturn, Optional, Tuple


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


class SurveyClass(Enum):
    """Which crawl (or train-ai) verdicts occur over every URL of a site,
    exact from the automaton (docs/survey.md, "The classes"); ``str()``
    gives the CSV's text. No truth value: compare with the members."""

    ALL_DISALLOWED = "all-disallowed"
    PARTLY = "partly"
    ALL_ALLOWED = "all-allowed"
    # The policy's automaton was over the survey's state budget.
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value

    def __bool__(self) -> NoReturn:
        raise TypeError(
            "a SurveyClass is not a truth value: compare it with "
            "SurveyClass.ALL_DISALLOWED, PARTLY, ALL_ALLOWED or UNKNOWN"
        )


class PathSurvey(NamedTuple):
    """One agent's answers at one probe path: ``crawl`` (allowed?, as
    :meth:`Store.allowed`) and the stated AI-usage preferences (as
    :meth:`Store.preference`: ``True``, ``False``, or ``None`` when
    nothing states one)."""

    path: str
    crawl: bool
    train_ai: Optional[bool]
    search: Optional[bool]
    ai_input: Optional[bool]

    def __bool__(self) -> NoReturn:
        raise TypeError("a PathSurvey is not a truth value: test path_survey.crawl")


class AgentSurvey(NamedTuple):
    """One agent's classes over the whole site and its probe paths."""

    agent: str
    crawl_class: SurveyClass
    train_ai_class: SurveyClass
    paths: Tuple[PathSurvey, ...]

    def __bool__(self) -> NoReturn:
        raise TypeError("an AgentSurvey is not a truth value: test its classes or paths")


class SurveyRow(NamedTuple):
    """A host's row of :func:`robocc.survey`: the columns of ``robocc
    survey`` (docs/survey.md, "Columns"), ``agents`` in the order asked."""

    host: str
    status: int
    outcome: str
    source: str
    fetched_at: Optional[str]
    read_whole: bool
    sitemaps: int
    licenses: Tuple[str, ...]
    agents: Tuple[AgentSurvey, ...]

    def __bool__(self) -> NoReturn:
        raise TypeError("a SurveyRow is not a truth value: read its fields")
