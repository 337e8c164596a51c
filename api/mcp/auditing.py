"""The browsing and audit tools: `audit_fact` (why a fact is believed) and `user_stats` (sizes)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field

from api.errors import not_found
from api.mcp import rendering
from api.mcp.arguments import UserId, owner_of
from api.mcp.caller import context_of
from api.mcp.filters import FilterArgument, filters_of
from api.mcp.results import FactAudit, UserStats
from consolidation.recall.filters import scope_filter
from graph.validation import require_name


async def audit_fact(
    ctx: ToolContext,
    fact_id: Annotated[str, Field(description="The fact's id (fact_...), e.g. from recall's items.")],
) -> FactAudit:
    """Explain why memory believes a fact: the episodes and exact turns it was derived from, the facts
    it replaced or was replaced by (with reasons), and the runs (model, tokens) that produced it.

    Use it when a fact is surprising, contested or about to be relied on."""
    context = context_of(ctx)
    require_name("fact_id", fact_id)
    fact = await context.loaders.facts.load(fact_id)
    if fact is None:
        raise not_found("fact", fact_id)
    return rendering.fact_audit(await context.services.audit.audit(context.owner(fact.user_id), fact_id))


async def user_stats(ctx: ToolContext, user_id: UserId, filter: FilterArgument = None) -> UserStats:
    """Sizes of a user's memory per layer and what consolidation has cost.

    Use it to check whether memory knows a user at all, or how much has been consolidated. A
    `filter` (as recall's) narrows the interactions, episodes and facts counted; runs and tokens stay
    the user's whole."""
    context = context_of(ctx)
    owner = owner_of(context, user_id)
    s = await context.services.audit.stats(owner, scope_filter(filters_of(filter)))
    if s is None:
        raise not_found("user", user_id)
    return rendering.user_stats(s)
