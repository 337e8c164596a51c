"""What a planner reads from a question: the day it is asked, a time window, an order, a count,
and the names in it. A plan changes only ranking and pool sizes, never which user is searched."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Order(StrEnum):
    """Which statements on the topic come first: the latest ("currently", "still") or the
    earliest ("first")."""

    LATEST = "latest"
    EARLIEST = "earliest"


class QuestionKind(StrEnum):
    """What the answer is made of: one statement, a count or list over several ("how many
    times", "all the ..."), or a span of time ("how long ago", "how many days between")."""

    LOOKUP = "lookup"
    AGGREGATE = "aggregate"
    DURATION = "duration"


@dataclass(frozen=True)
class Window:
    """A time window the question names, as a half-open UTC interval [start, end) (the local
    midnights of the asker's calendar), and the words it was read from."""

    start: datetime
    end: datetime
    text: str

    def holds(self, moment: datetime) -> bool:
        return self.start <= moment < self.end

    def overlaps(self, start: datetime, end: datetime) -> bool:
        return start < self.end and end >= self.start


@dataclass(frozen=True)
class Plan:
    """A question read for search: `asked_at` is the day relative dates resolve against, in its
    own offset (the asker's calendar)."""

    asked_at: datetime
    source: str = "rules"  # "rules" | "llm"
    window: Window | None = None
    order: Order | None = None
    kind: QuestionKind = QuestionKind.LOOKUP
    entities: list[str] = field(default_factory=list)
    # Words that name a time the planner could not resolve ("before I moved").
    unresolved: list[str] = field(default_factory=list)
    # RECMEM_PLANNER=llm: why the rule plan was used instead ("llm timeout"), else None.
    fallback: str | None = None
    # What was dropped from the LLM's reading ("window dropped: ..."); the rest was used.
    notes: list[str] = field(default_factory=list)
    # The planner's LLM call, as the endpoint reported it (zero for the rules).
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def temporal(self) -> bool:
        """Whether the question is about time: contexts then say how long before it each day was."""
        return self.window is not None or self.order is not None or self.kind is QuestionKind.DURATION

    @property
    def empty(self) -> bool:
        """Nothing read that changes a search."""
        return self.window is None and self.order is None and self.kind is QuestionKind.LOOKUP
