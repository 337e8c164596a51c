"""The `filter` argument of the recall and answer tools (docs/scopes.md#filters)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from api.mcp.arguments import Moment
from consolidation.types import MetadataCondition, RecallFilters
from graph.errors import InvalidInput
from graph.vocabulary import FactKindName

Scalar = str | int | float | bool


class MetadataMatch(BaseModel):
    """One metadata key equal to a value (`equals`) or to any of several (`any_of`)."""

    model_config = ConfigDict(extra="forbid")

    key: str
    equals: Scalar | None = None
    any_of: list[Scalar] | None = None

    def to_condition(self) -> MetadataCondition:
        if self.any_of is not None and self.equals is None:
            return MetadataCondition(self.key, tuple(self.any_of))
        if self.equals is not None and self.any_of is None:
            return MetadataCondition(self.key, (self.equals,))
        raise InvalidInput(f"filter.metadata {self.key[:80]!r}: give exactly one of `equals` and `any_of`")


class MemoryFilter(BaseModel):
    """What to narrow memory to; a field left out filters nothing; fields combine with AND."""

    model_config = ConfigDict(extra="forbid")

    agent_ids: list[str] | None = Field(default=None, description="Any of these agents.")
    session_ids: list[str] | None = Field(default=None, description="Any of these sessions.")
    speakers: list[str] | None = Field(default=None, description="Any of these speakers.")
    metadata: list[MetadataMatch] | None = Field(default=None, description="Each must hold.")
    kinds: list[FactKindName] | None = Field(default=None, description="Facts of these kinds only.")
    occurred_after: Moment | None = Field(default=None, description="From this time on (inclusive).")
    occurred_before: Moment | None = Field(default=None, description="Before this time.")
    valid_from_after: Moment | None = Field(default=None, description="Facts valid from this time on.")
    valid_from_before: Moment | None = Field(default=None, description="Facts valid from before it.")

    def to_filters(self) -> RecallFilters:
        def listed(values: list[str] | None) -> tuple[str, ...] | None:
            return None if values is None else tuple(values)

        return RecallFilters(
            agent_ids=listed(self.agent_ids),
            session_ids=listed(self.session_ids),
            speakers=listed(self.speakers),
            metadata=None if self.metadata is None else tuple(m.to_condition() for m in self.metadata),
            kinds=None if self.kinds is None else tuple(self.kinds),
            occurred_after=self.occurred_after,
            occurred_before=self.occurred_before,
            valid_from_after=self.valid_from_after,
            valid_from_before=self.valid_from_before,
        )


FilterArgument = Annotated[
    MemoryFilter | None,
    Field(
        description=(
            "Narrow to agents, sessions, speakers, metadata values (equals / in), fact kinds, or a time "
            "window; episodes and facts match by the scopes of the turns they rest on."
        )
    ),
]


def filters_of(given: MemoryFilter | None) -> RecallFilters | None:
    return None if given is None else given.to_filters()
