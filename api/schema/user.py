"""A user of the caller's tenant: stats and the four listings as Relay connections."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from api.errors import not_found
from api.export import export_url
from api.schema.connections import listing
from api.schema.decorators import resolver
from api.schema.filters import FilterArg, scope_of
from api.schema.nodes import EPISODES, FACTS, ID, INTERACTIONS, RUNS, Info
from graph import models
from graph.models import Page, PageRequest
from graph.models import UserStats as UserStatsRecord
from graph.vocabulary import FactKind, FactStatus

AsOf = Annotated[
    datetime | None,
    strawberry.argument(description="Only what was valid at this time (valid time, not storage time)."),
]


@strawberry.enum(description="The order of a user's interactions.")
class InteractionOrder(Enum):
    STREAM = strawberry.enum_value("stream", description="As written: by seq, the user's stream order.")
    TIME = strawberry.enum_value("time", description="As said: by occurredAt, then seq.")


@strawberry.type(description="Sizes of a user's memory and what consolidation has cost.")
class UserStats:
    interactions: int = strawberry.field(description="Interactions stored.")
    consolidated: int = strawberry.field(description="Interactions absorbed into episodes.")
    pending: int = strawberry.field(description="Interactions the recurrence gate has not run on yet.")
    episodes: int = strawberry.field(description="Episodes (current versions).")
    episode_versions: int = strawberry.field(description="Episode versions, old ones included.")
    active_facts: int = strawberry.field(description="Facts in force.")
    superseded_facts: int = strawberry.field(description="Facts replaced by newer ones.")
    retracted_facts: int = strawberry.field(description="Facts a person retracted (kept for audit).")
    runs: int = strawberry.field(description="Consolidation and answer runs recorded.")
    prompt_tokens: int = strawberry.field(description="Prompt tokens spent in total.")
    completion_tokens: int = strawberry.field(description="Completion tokens spent in total.")

    @staticmethod
    def of(s: UserStatsRecord) -> UserStats:
        return UserStats(**s.__dict__)


@strawberry.type(description="One user of the caller's tenant and everything memory holds about them.")
class User:
    id: ID = strawberry.field(description="The user id (unique within the tenant).")
    created_at: datetime | None = strawberry.field(description="When memory first heard of the user.")

    @resolver(
        description="Where to download this user's memory as JSON Lines (GET with the same key; "
        "docs/export.md): a path relative to the service's base URL."
    )
    def export_url(self) -> str:
        return export_url(self.id)

    @resolver(
        description="Sizes of this user's memory and its cost. A `filter` narrows the interactions, "
        "episodes and facts counted as it narrows the listings; runs and tokens stay the user's whole "
        "(runs hold no scope)."
    )
    async def stats(self, info: Info, filter: FilterArg = None) -> UserStats:
        found = await info.context.services.audit.stats(info.context.owner(self.id), scope_of(filter))
        if found is None:
            raise not_found("user", self.id)
        return UserStats.of(found)

    @listing(
        INTERACTIONS, description="Interactions in stream order, or in time order.", time_field="occurredAt"
    )
    async def interactions(
        self,
        info: Info,
        request: PageRequest,
        consolidated: Annotated[
            bool | None, strawberry.argument(description="Only (un)consolidated interactions.")
        ] = None,
        session_id: Annotated[str | None, strawberry.argument(description="Only this session.")] = None,
        order: Annotated[
            InteractionOrder,
            strawberry.argument(
                description="Stream order (default) or time order; a cursor keeps to its order."
            ),
        ] = InteractionOrder.STREAM,
        filter: FilterArg = None,
    ) -> Page[models.Interaction]:
        return await info.context.services.audit.interaction_page(
            info.context.owner(self.id),
            request,
            consolidated=consolidated,
            session_id=session_id,
            by_time=order is InteractionOrder.TIME,
            scope=scope_of(filter),
        )

    @listing(
        EPISODES,
        description="Episode versions in valid-time order; with `asOf`, those in force then, as they "
        "stood then (docs/corrections.md#time).",
        time_field="validFrom",
    )
    async def episodes(
        self,
        info: Info,
        request: PageRequest,
        current: Annotated[
            bool | None, strawberry.argument(description="Only current (true) or old (false) versions.")
        ] = None,
        as_of: AsOf = None,
        filter: FilterArg = None,
    ) -> Page[models.Episode]:
        return await info.context.services.audit.episode_page(
            info.context.owner(self.id), request, current=current, as_of=as_of, scope=scope_of(filter)
        )

    @listing(
        FACTS,
        description="Facts in valid-time order; with `asOf`, those in force then, as they stood then "
        "(docs/corrections.md#time).",
        time_field="validFrom",
    )
    async def facts(
        self,
        info: Info,
        request: PageRequest,
        status: Annotated[FactStatus | None, strawberry.argument(description="Only this status.")] = None,
        kind: Annotated[FactKind | None, strawberry.argument(description="Only this kind.")] = None,
        as_of: AsOf = None,
        filter: FilterArg = None,
    ) -> Page[models.Fact]:
        return await info.context.services.audit.fact_page(
            info.context.owner(self.id),
            request,
            status=status.value if status else None,
            as_of=as_of,
            kind=kind.value if kind else None,
            scope=scope_of(filter),
        )

    @listing(RUNS, description="Consolidation and answer runs in time order.", time_field="at")
    async def consolidation_runs(
        self,
        info: Info,
        request: PageRequest,
        op: Annotated[str | None, strawberry.argument(description="Only runs of this operation.")] = None,
    ) -> Page[models.ConsolidationRun]:
        return await info.context.services.audit.run_page(info.context.owner(self.id), request, op=op)
