"""Plain value types returned by robocc (same shape as Protego's)."""

from __future__ import annotations

from datetime import time
from typing import NamedTuple, Optional


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
