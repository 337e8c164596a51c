"""The `filter` argument of recall, answer and the listings (docs/scopes.md#filters)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from api.errors import bad_input
from consolidation.recall.filters import scope_filter
from consolidation.types import MetadataCondition, RecallFilters
from graph.scopes import MetadataScalar, ScopeFilter
from graph.vocabulary import FactKind


@strawberry.input(description="One metadata key equal to a value, or to any of several (`anyOf`).")
class MetadataFilter:
    key: str = strawberry.field(description="The metadata key.")
    equals: JSON | None = strawberry.field(
        default=None, description="A string, number or boolean; a string-list key matches if it holds it."
    )
    any_of: list[JSON] | None = strawberry.field(
        default=None, description="Any of these values (at most 100): the `in` of a filter."
    )

    def to_condition(self) -> MetadataCondition:
        if (self.equals is None) == (self.any_of is None):
            raise bad_input(f"filter.metadata {self.key[:80]!r}: give exactly one of `equals` and `anyOf`")
        values = [self.equals] if self.any_of is None else list(self.any_of)
        # Checked as scalars by consolidation/recall/filters.py, with the key named.
        return MetadataCondition(self.key, tuple(cast("list[MetadataScalar]", values)))


@strawberry.input(
    description=(
        "What to narrow memory to; every field left out filters nothing, and the fields combine with "
        "AND. Agents, sessions, speakers and metadata match an interaction's own and an episode's or "
        "fact's inherited scopes (the union of its sources'). Windows include their start and exclude "
        "their end."
    )
)
class RecallFilter:
    agent_ids: list[str] | None = strawberry.field(default=None, description="Any of these agents.")
    session_ids: list[str] | None = strawberry.field(default=None, description="Any of these sessions.")
    speakers: list[str] | None = strawberry.field(default=None, description="Any of these speakers.")
    metadata: list[MetadataFilter] | None = strawberry.field(
        default=None, description="Each condition must hold (at most 32)."
    )
    kinds: list[FactKind] | None = strawberry.field(
        default=None, description="Facts of any of these kinds (other layers are not narrowed)."
    )
    occurred_after: datetime | None = strawberry.field(
        default=None,
        description="From this time on: an interaction's occurredAt, an episode's span, a fact's validFrom.",
    )
    occurred_before: datetime | None = strawberry.field(default=None, description="Before this time.")
    valid_from_after: datetime | None = strawberry.field(
        default=None, description="Facts valid from this time on (other layers are not narrowed)."
    )
    valid_from_before: datetime | None = strawberry.field(
        default=None, description="Facts valid from before this time."
    )

    def to_filters(self) -> RecallFilters:
        return RecallFilters(
            agent_ids=_tuple(self.agent_ids),
            session_ids=_tuple(self.session_ids),
            speakers=_tuple(self.speakers),
            metadata=None if self.metadata is None else tuple(m.to_condition() for m in self.metadata),
            kinds=None if self.kinds is None else tuple(k.value for k in self.kinds),
            occurred_after=self.occurred_after,
            occurred_before=self.occurred_before,
            valid_from_after=self.valid_from_after,
            valid_from_before=self.valid_from_before,
        )


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def filters_of(given: RecallFilter | None) -> RecallFilters | None:
    return None if given is None else given.to_filters()


def scope_of(given: RecallFilter | None) -> ScopeFilter:
    """A listing's filter, checked as recall checks it."""
    return scope_filter(filters_of(given))


FilterArg = Annotated[
    RecallFilter | None,
    strawberry.argument(description="Narrow to agents, sessions, speakers, metadata, kinds, times."),
]
