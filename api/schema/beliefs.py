"""Mutations that change what memory believes by hand: correctFact, retractFact, addFact
(docs/corrections.md). Each answers `written: true` once its one transaction committed; a refusal
carries `extensions.written: false`, as every mutation's does (api/schema/extensions.py)."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from api.errors import not_found
from api.schema.decorators import mutation
from api.schema.nodes import ID, ConsolidationRun, Fact, Info
from api.schema.query import UserId, require_user
from consolidation.beliefs import BeliefChange
from graph.models import Owner
from graph.validation import require_name
from graph.vocabulary import FactKind


@strawberry.type(description="What a correction, a retraction or a fact added by hand wrote.")
class BeliefPayload:
    written: bool = strawberry.field(
        description="True: the change committed, all of it (an error instead means none of it did)."
    )
    fact: Fact | None = strawberry.field(
        description="The fact it made (correctFact, addFact); null for retractFact."
    )
    changed_fact: Fact | None = strawberry.field(
        description="The fact it closed, as it stands now: superseded (correctFact), retracted (retractFact)."
    )
    run: ConsolidationRun = strawberry.field(
        description="The run that records it: trigger correction, retraction or manual; its reason and who."
    )

    @staticmethod
    def of(change: BeliefChange) -> BeliefPayload:
        return BeliefPayload(
            written=True,
            fact=Fact.of(change.fact) if change.fact else None,
            changed_fact=Fact.of(change.changed) if change.changed else None,
            run=ConsolidationRun.of(change.run),
        )


FactId = Annotated[ID, strawberry.argument(description="The fact (fact_...).")]
Reason = Annotated[str, strawberry.argument(description="Why: kept in the audit trail (at most 4 KiB).")]


async def _fact_owner(info: Info, fact_id: str) -> Owner:
    """The owner of a fact of the caller's tenant; another tenant's facts do not exist here."""
    require_name("id", fact_id)
    found = await info.context.loaders.facts.load(fact_id)
    if found is None:
        raise not_found("fact", fact_id)
    return info.context.owner(found.user_id)


async def _changed(info: Info, owner: Owner, change: Awaitable[BeliefChange]) -> BeliefPayload:
    done = await change
    info.context.committed = True
    info.context.fresh_loaders()
    return BeliefPayload.of(done)


@strawberry.type
class BeliefMutations:
    @mutation(
        description="Replace a fact from now on by a corrected one; the old one stays in the audit trail."
    )
    async def correct_fact(
        self,
        info: Info,
        id: FactId,
        text: Annotated[str, strawberry.argument(description="The corrected statement.")],
        reason: Reason,
        source_interaction_id: Annotated[
            ID | None,
            strawberry.argument(description="The user's interaction that states the correction, if any."),
        ] = None,
    ) -> BeliefPayload | None:
        owner = await _fact_owner(info, id)
        beliefs = info.context.services.engine.beliefs
        change = beliefs.correct(
            owner, id, text, reason, by=info.context.who, source_interaction_id=source_interaction_id
        )
        return await _changed(info, owner, change)

    @mutation(description="Stop believing a fact from now on; it stays, retracted, in the audit trail.")
    async def retract_fact(self, info: Info, id: FactId, reason: Reason) -> BeliefPayload | None:
        owner = await _fact_owner(info, id)
        change = info.context.services.engine.beliefs.retract(owner, id, reason, by=info.context.who)
        return await _changed(info, owner, change)

    @mutation(description="State a fact by hand, with the caller as its source.")
    async def add_fact(
        self,
        info: Info,
        user_id: UserId,
        text: Annotated[str, strawberry.argument(description="The statement.")],
        kind: Annotated[FactKind, strawberry.argument(description="What kind of statement it is.")],
        valid_from: Annotated[
            datetime | None, strawberry.argument(description="When it starts to hold (default: now).")
        ] = None,
        agent_id: Annotated[
            str | None, strawberry.argument(description="The agent whose memory it belongs to, if any.")
        ] = None,
        session_id: Annotated[
            str | None, strawberry.argument(description="The session it belongs to, if any.")
        ] = None,
        metadata: Annotated[
            JSON | None,
            strawberry.argument(
                description=(
                    "A metadata map to filter by, with a turn's rules (docs/scopes.md#metadata). "
                    "Without agentId, sessionId and metadata the fact matches no scope filter."
                )
            ),
        ] = None,
    ) -> BeliefPayload | None:
        await require_user(info, user_id)
        owner = info.context.owner(user_id)
        beliefs = info.context.services.engine.beliefs
        change = beliefs.add(
            owner,
            text,
            kind.value,
            by=info.context.who,
            valid_from=valid_from,
            agent_id=agent_id,
            session_id=session_id,
            metadata=metadata,
        )
        return await _changed(info, owner, change)
