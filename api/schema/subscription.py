"""Subscription: consolidation events of one user, whichever service process consolidated."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry

from api.schema.decorators import subscription
from api.schema.events import ConsolidationAction, ConsolidationEvent
from api.schema.nodes import Info
from api.schema.query import UserId

DEFAULT_ACTIONS = (ConsolidationAction.CREATED, ConsolidationAction.MERGED)


@strawberry.type(description="Live memory events.")
class Subscription:
    @subscription(
        description="An event per consolidation of the user: an episode created or merged, with its facts. "
        "Every CREATED and MERGED is reported whichever service process on the same database "
        "consolidated: this process's own at once, another's within about RECMEM_EVENT_POLL_S "
        "(0.5 s by default; read from the database's per-user event log while someone subscribes). "
        "NONE and DEFERRED come only from this process's own decisions. Events are those committed "
        "after the subscription opened. It may be opened before the user's first write."
    )
    async def consolidations(
        self,
        info: Info,
        user_id: UserId,
        actions: Annotated[
            list[ConsolidationAction] | None,
            strawberry.argument(description="Which decisions to report (default: CREATED, MERGED)."),
        ] = None,
    ) -> AsyncGenerator[ConsolidationEvent, None]:
        # No check that the user exists: a client may subscribe before the user's first write.
        # The owner is (tenant, user), so another tenant's user of the same id is another user.
        owner = info.context.owner(user_id)  # validates the id
        wanted = set(actions or DEFAULT_ACTIONS)
        async for outcome in info.context.services.engine.subscribe(owner):
            if ConsolidationAction(outcome.action) in wanted:
                info.context.fresh_loaders()
                yield ConsolidationEvent.of(user_id, outcome)
