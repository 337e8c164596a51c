"""The plan a recall was searched by: what the planner read from the query (docs/design/planner.md)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from consolidation.recall import planning

AskedAt = Annotated[
    datetime | None,
    strawberry.argument(
        description=(
            "When the question is asked (default: now): relative dates in it (last week, two months "
            "ago, in May) resolve against this time, on the calendar of its offset, and contexts say "
            "how long before it each day was."
        )
    ),
]


@strawberry.enum(description="Which statements on the topic come first.")
class PlanOrder(Enum):
    LATEST = "latest"
    EARLIEST = "earliest"


@strawberry.enum(description="What an answer is made of.")
class QuestionKind(Enum):
    LOOKUP = "lookup"
    AGGREGATE = "aggregate"
    DURATION = "duration"


@strawberry.type(description="A time window the query names, resolved against the day it is asked.")
class PlanWindow:
    start: datetime = strawberry.field(description="Its first instant (UTC).")
    end: datetime = strawberry.field(description="The instant after its last (UTC, exclusive).")
    text: str = strawberry.field(description="The words it was read from.")


@strawberry.type(
    description=(
        "What the planner read from the query before searching: by rules (no LLM call, the default) "
        "or, with RECMEM_PLANNER=llm, by one call to the configured endpoint."
    )
)
class RecallPlan:
    source: str = strawberry.field(description="Which planner read it: `rules` or `llm`.")
    fallback: str | None = strawberry.field(
        description="RECMEM_PLANNER=llm: why the rule plan was used instead (`llm timeout`, ...); else null."
    )
    notes: list[str] = strawberry.field(description="What was dropped from the LLM's reading, and why.")
    llm_calls: int = strawberry.field(description="HTTP calls the planner made (0 for the rules).")
    prompt_tokens: int = strawberry.field(description="Prompt tokens of the planner's call.")
    completion_tokens: int = strawberry.field(description="Completion tokens of the planner's call.")
    asked_at: datetime = strawberry.field(description="The time the question was asked.")
    window: PlanWindow | None = strawberry.field(
        description="The time window it names; items inside rank higher."
    )
    order: PlanOrder | None = strawberry.field(
        description="LATEST: the newest statements on the topic first, older ones marked (earlier)."
    )
    kind: QuestionKind = strawberry.field(description="AGGREGATE searches wider pools.")
    entities: list[str] = strawberry.field(description="Names it mentions.")
    unresolved: list[str] = strawberry.field(description="Times it names that the planner could not date.")

    @staticmethod
    def of(plan: planning.Plan | None) -> RecallPlan | None:
        if plan is None:
            return None
        window = plan.window
        return RecallPlan(
            source=plan.source,
            fallback=plan.fallback,
            notes=list(plan.notes),
            llm_calls=plan.llm_calls,
            prompt_tokens=plan.prompt_tokens,
            completion_tokens=plan.completion_tokens,
            asked_at=plan.asked_at,
            window=PlanWindow(start=window.start, end=window.end, text=window.text) if window else None,
            order=PlanOrder(plan.order.value) if plan.order is not None else None,
            kind=QuestionKind(plan.kind.value),
            entities=list(plan.entities),
            unresolved=list(plan.unresolved),
        )
