"""``robocc.survey``: the store crate's survey (``robocc survey``) of a
store, as typed rows or as the CLI's text (docs/survey.md)."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from . import _native
from ._types import AgentSurvey, PathSurvey, SurveyClass, SurveyRow

# The CLI's --max-reach-states default (robocc_compiler::reach::DEFAULT_MAX_STATES).
DEFAULT_MAX_REACH_STATES: int = _native.DEFAULT_MAX_REACH_STATES

StoreArg = Union["_native.Store", str, bytes, "os.PathLike[str]"]


def _agents(agents: Union[str, Sequence[str]]) -> List[str]:
    return [agents] if isinstance(agents, str) else list(agents)


def _native_survey(store: StoreArg, call, *args):
    """``call(store, *args)`` on an open Store, or on the store at a path
    (opened, and closed after)."""
    if isinstance(store, _native.Store):
        return call(store, *args)
    with _native.Store.open(store) as opened:
        return call(opened, *args)


def _rows(agents: List[str], paths: List[str], facts, hosts) -> Iterator[SurveyRow]:
    # Hosts share policies: each policy's agents are made once.
    made: List[Optional[Tuple[bool, int, Tuple[str, ...], Tuple[AgentSurvey, ...]]]] = [None] * len(facts)
    for host, status, outcome, source, fetched_at, i in hosts:
        f = made[i]
        if f is None:
            read_whole, sitemaps, licenses, per_agent = facts[i]
            f = made[i] = (
                read_whole,
                sitemaps,
                tuple(licenses),
                tuple(
                    AgentSurvey(
                        agent,
                        SurveyClass(crawl_class),
                        SurveyClass(train_class),
                        tuple(PathSurvey(p, *cells) for p, cells in zip(paths, at_paths)),
                    )
                    for agent, (crawl_class, train_class, at_paths) in zip(agents, per_agent)
                ),
            )
        yield SurveyRow(host, status, outcome, source, fetched_at, *f)


def _verdict(allowed: Optional[bool]) -> Optional[str]:
    return None if allowed is None else ("allow" if allowed else "disallow")


def cells(facts, hosts) -> Iterator[tuple]:
    """The native survey's rows as flat column values, in the columns'
    order (the Spark survey's Parquet rows): the CSV's text where it is
    text, ``None`` where the CSV writes an empty unstated preference or
    fetched_at, integers and a boolean where it writes those."""
    flat = []
    for read_whole, sitemaps, licenses, per_agent in facts:
        row: list = [read_whole, sitemaps, " ".join(licenses)]
        for crawl_class, train_class, at_paths in per_agent:
            row += [crawl_class, train_class]
            for at in at_paths:
                row += [_verdict(v) for v in at]
        flat.append(tuple(row))
    for host, status, outcome, source, fetched_at, i in hosts:
        yield (host, status, outcome, source, fetched_at) + flat[i]


def survey(
    store: StoreArg,
    agents: Union[str, Sequence[str]],
    paths: Sequence[str] = ("/",),
    *,
    max_reach_states: int = DEFAULT_MAX_REACH_STATES,
) -> Iterator[SurveyRow]:
    """Every host of ``store`` (a :class:`Store`, or the path of a store
    or store set, opened and closed here) as a :class:`SurveyRow`, in the
    store's index order (a set's shards in order): the rows of ``robocc
    survey --store`` for ``agents`` (each-agent: the store must be built
    for them, ``build_store(..., each_agent=True)``) at the probe
    ``paths``. Each agent's :class:`SurveyClass` is exact from the
    automaton; a policy over ``max_reach_states`` explored states (0: no
    limit) gets ``SurveyClass.UNKNOWN``.

    The survey is made before this returns (a refusal raises here:
    ``ValueError`` for an agent the store's policies do not answer, no
    agent, or a path without a leading ``/``; :class:`LoadError` for a
    damaged store); the rows are then made as they are iterated, from one
    list of hosts. :func:`survey_text` gives the CLI's CSV or JSON lines.
    """
    agents, paths = _agents(agents), list(paths)
    _, facts, hosts = _native_survey(store, _native.survey_store, agents, paths, max_reach_states)
    return _rows(agents, paths, facts, hosts)


def survey_text(
    store: StoreArg,
    agents: Union[str, Sequence[str]],
    paths: Sequence[str] = ("/",),
    *,
    format: str = "csv",
    max_reach_states: int = DEFAULT_MAX_REACH_STATES,
) -> str:
    """:func:`survey`'s rows as ``robocc survey --store … --format FORMAT``
    writes them, by the same Rust writer: ``"csv"`` (a header line, then a
    line per host) or ``"jsonl"``. Refuses as :func:`survey` does."""
    return _native_survey(
        store, _native.survey_text, _agents(agents), list(paths), max_reach_states, format
    )
