"""The tools that change what memory believes by hand: `correct_fact`, `retract_fact`, `add_fact`
(docs/corrections.md). Each is one transaction: done when it returns, nothing written when it
fails."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field

from api.context import Context
from api.errors import not_found
from api.mcp.arguments import Moment, UserId, require_user
from api.mcp.caller import context_of
from api.mcp.results import BeliefChanged, FactView
from consolidation.beliefs import BeliefChange
from graph import models
from graph.validation import require_name
from graph.vocabulary import FactKindName

FactId = Annotated[str, Field(description="The fact's id (fact_...), e.g. from recall's items.")]
Reason = Annotated[str, Field(description="Why, in a sentence: kept in the fact's audit trail.")]


async def correct_fact(
    ctx: ToolContext,
    fact_id: FactId,
    text: Annotated[str, Field(description="The corrected statement, self-contained.")],
    reason: Reason,
    source_interaction_id: Annotated[
        str | None, Field(description="The user's turn (int_...) that states the correction, if any.")
    ] = None,
) -> BeliefChanged:
    """Replace a fact memory holds by a corrected one, from now on.

    Use it when the user says memory has something wrong. The old fact stays in the audit trail,
    superseded; reads as of an earlier time still see it."""
    context = context_of(ctx)
    owner = await _fact_owner(context, fact_id)
    beliefs = context.services.engine.beliefs
    change = await beliefs.correct(
        owner, fact_id, text, reason, by=context.who, source_interaction_id=source_interaction_id
    )
    return _changed(change)


async def retract_fact(ctx: ToolContext, fact_id: FactId, reason: Reason) -> BeliefChanged:
    """Stop believing a fact, from now on; later consolidations do not restate it from the same turns.

    Use it when the user says something memory holds is not true, and there is nothing to put in
    its place. The fact stays in the audit trail, retracted."""
    context = context_of(ctx)
    owner = await _fact_owner(context, fact_id)
    return _changed(await context.services.engine.beliefs.retract(owner, fact_id, reason, by=context.who))


async def add_fact(
    ctx: ToolContext,
    user_id: UserId,
    text: Annotated[str, Field(description="The statement, self-contained (names and dates resolved).")],
    kind: Annotated[FactKindName, Field(description="What kind of statement it is.")],
    valid_from: Annotated[
        Moment | None, Field(description="When it starts to hold, ISO 8601 with a timezone (default: now).")
    ] = None,
    agent_id: Annotated[
        str | None, Field(description="Your agent's id, so that recall filtered by it finds the fact.")
    ] = None,
    session_id: Annotated[str | None, Field(description="The session it belongs to, if any.")] = None,
    metadata: Annotated[
        dict[str, Any] | None,
        Field(description="A small map to filter recall by, with remember's rules (at most 32 keys, 4 KB)."),
    ] = None,
) -> BeliefChanged:
    """State a fact about the user by hand, with you as its source.

    Use it for something the user asks you to remember that no conversation turn states. Without
    agent_id, session_id or metadata, a recall filtered by them does not find it."""
    context = context_of(ctx)
    owner = await require_user(context, user_id)
    change = await context.services.engine.beliefs.add(
        owner,
        text,
        kind,
        by=context.who,
        valid_from=valid_from,
        agent_id=agent_id,
        session_id=session_id,
        metadata=metadata,
    )
    return _changed(change)


async def _fact_owner(context: Context, fact_id: str) -> models.Owner:
    require_name("fact_id", fact_id)
    fact = await context.loaders.facts.load(fact_id)
    if fact is None:
        raise not_found("fact", fact_id)
    return context.owner(fact.user_id)


def _view(fact: models.Fact | None) -> FactView | None:
    return FactView.model_validate(fact, from_attributes=True) if fact is not None else None


def _changed(change: BeliefChange) -> BeliefChanged:
    return BeliefChanged(
        written=True,
        fact=_view(change.fact),
        changed_fact=_view(change.changed),
        run_id=change.run.id,
        trigger=change.run.trigger,
        by=change.run.by or "",
    )
