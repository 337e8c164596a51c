"""The time a piece of work spends waiting for Neo4j, for whoever asks (the API's Server-Timing
header): every statement the Database sends while a clock is running is recorded on it.

A context variable carries the clock, so the statements of tasks a request starts (a recall's
layers run side by side) land on the request's clock too. Overlapping statements count once:
what is reported is the time at least one statement was out, not the sum. A clock stops when its
request has answered, so a task the request started that outlives it (an event feed) adds nothing
more to it; work done for many requests at once (a group commit) records on each one's clock itself
(`current_clock`, `record`) from a task that carries none."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class StatementClock:
    # (start, end) of each statement, perf_counter seconds.
    spans: list[tuple[float, float]] = field(default_factory=list)
    running: bool = True

    def record(self, start: float, end: float) -> None:
        if self.running:
            self.spans.append((start, end))

    def stop(self) -> None:
        self.running = False

    @property
    def statements(self) -> int:
        return len(self.spans)

    def busy_s(self) -> float:
        """The union of the spans: how long at least one statement was out."""
        busy, reach = 0.0, float("-inf")
        for start, end in sorted(self.spans):
            if end > reach:
                busy += end - max(start, reach)
                reach = end
        return busy


_clock: ContextVar[StatementClock | None] = ContextVar("recmem_statement_clock", default=None)


def current_clock() -> StatementClock | None:
    return _clock.get()


@contextmanager
def statement_clock() -> Iterator[StatementClock]:
    """A clock for the statements sent inside this block (and the tasks it starts)."""
    clock = StatementClock()
    token = _clock.set(clock)
    try:
        yield clock
    finally:
        clock.stop()
        _clock.reset(token)


@contextmanager
def timed_statement() -> Iterator[None]:
    """Records the block on the running clock, if any (the Database wraps each statement)."""
    clock = _clock.get()
    if clock is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        clock.record(start, time.perf_counter())
