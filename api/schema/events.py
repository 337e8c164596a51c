"""Consolidation events: what `remember`, `consolidate` and the subscription report."""

from __future__ import annotations

from enum import Enum

import strawberry

from api.schema.decorators import resolver
from api.schema.nodes import ID, Episode, Fact, Info
from consolidation.types import ConsolidationOutcome


@strawberry.enum(description="What one consolidation decision did.")
class ConsolidationAction(Enum):
    NONE = "none"
    CREATED = "created"
    MERGED = "merged"
    DEFERRED = "deferred"


@strawberry.type(description="One consolidation: an episode created or merged, facts added or superseded.")
class ConsolidationEvent:
    user_id: ID = strawberry.field(description="The user.")
    trigger_id: ID = strawberry.field(description="The interaction that triggered the decision.")
    action: ConsolidationAction = strawberry.field(description="What happened.")
    episode_id: ID | None = strawberry.field(description="The episode version written, if any.")
    previous_episode_id: ID | None = strawberry.field(description="The version a merge replaced.")
    fact_ids: list[ID] = strawberry.field(description="Facts added.")
    superseded_fact_ids: list[ID] = strawberry.field(description="Facts the new ones replaced.")
    consolidated_ids: list[ID] = strawberry.field(description="Interactions the episode absorbed.")
    llm_calls: int = strawberry.field(description="Consolidator calls made.")
    error: str | None = strawberry.field(description="Why a deferred decision will be retried.")

    @staticmethod
    def of(user_id: str, o: ConsolidationOutcome) -> ConsolidationEvent:
        return ConsolidationEvent(
            user_id=ID(user_id),
            trigger_id=ID(o.trigger_id),
            action=ConsolidationAction(o.action),
            episode_id=ID(o.episode_id) if o.episode_id else None,
            previous_episode_id=ID(o.previous_episode_id) if o.previous_episode_id else None,
            fact_ids=[ID(i) for i in o.fact_ids],
            superseded_fact_ids=[ID(i) for i in o.superseded_fact_ids],
            consolidated_ids=[ID(i) for i in o.consolidated_ids],
            llm_calls=o.llm_calls,
            error=o.error,
        )

    @resolver(description="The episode version written, if any.")
    async def episode(self, info: Info) -> Episode | None:
        if self.episode_id is None:
            return None
        found = await info.context.loaders.episodes.load(self.episode_id)
        return Episode.of(found) if found else None

    @resolver(description="The facts added.")
    async def facts(self, info: Info) -> list[Fact]:
        found = await info.context.loaders.facts.load_many(list(self.fact_ids))
        return [Fact.of(f) for f in found if f is not None]

    @resolver(description="The facts the new ones replaced.")
    async def superseded_facts(self, info: Info) -> list[Fact]:
        found = await info.context.loaders.facts.load_many(list(self.superseded_fact_ids))
        return [Fact.of(f) for f in found if f is not None]
