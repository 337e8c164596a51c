"""The forgetting tool: `forget_interaction`, erasing a turn and what rests only on it."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field

from api.errors import not_found
from api.mcp.caller import context_of
from api.mcp.rendering import forgotten
from api.mcp.results import Forgotten
from graph.validation import require_name


async def forget_interaction(
    ctx: ToolContext,
    interaction_id: Annotated[
        str, Field(description="The interaction's id (int_...), as remember returned it.")
    ],
) -> Forgotten:
    """Erase one interaction and everything derived only from it; rebuild what also rests on others.

    Use it when the user asks to forget something they said, or a turn was stored by mistake. It
    cannot be undone."""
    context = context_of(ctx)
    require_name("interaction_id", interaction_id)
    found = await context.loaders.interactions.load(interaction_id)
    if found is None:
        raise not_found("interaction", interaction_id)
    owner = context.owner(found.user_id)
    done = await context.services.forgetter.forget_interaction(owner, interaction_id, by=context.who)
    return forgotten(done)
