"""The memory-write tool: `remember`, one conversation turn, checked once at this entry point."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field
from strawberry.scalars import JSON

from api.mcp.arguments import Moment, UserId, checked_unit, owner_of
from api.mcp.caller import context_of
from api.mcp.rendering import remembered
from api.mcp.results import Remembered
from api.schema.mutation import UnitInput


async def remember(
    ctx: ToolContext,
    user_id: UserId,
    text: Annotated[str, Field(description="What was said, verbatim.")],
    speaker: Annotated[str, Field(description="Who said it: 'user', 'assistant' or a name.")] = "user",
    occurred_at: Annotated[
        Moment | None, Field(description="When it was said, ISO 8601 with a timezone (default: now).")
    ] = None,
    session_id: Annotated[str | None, Field(description="Your conversation or session id.")] = None,
    source_ref: Annotated[
        str | None,
        Field(description="Your own id for this turn: sending it again stores nothing new (safe retries)."),
    ] = None,
    agent_id: Annotated[str | None, Field(description="Your agent's id, to filter recall by later.")] = None,
    metadata: Annotated[
        dict[str, Any] | None,
        Field(
            description=(
                "A small map to filter recall by later: keys of letters, digits, '_', '.', '-'; values a "
                "string, number, boolean or list of strings; at most 32 keys and 4 KB."
            )
        ),
    ] = None,
) -> Remembered:
    """Store one conversation turn in the user's long-term memory.

    Use it for every turn worth keeping, the user's and your own, as it happens. It is durable when
    this returns. Topics that come back are consolidated into episodes and facts (with provenance).
    Send a `source_ref` whenever the call may be retried: a repeat returns the same id with
    `created: false`."""
    context = context_of(ctx)
    owner = owner_of(context, user_id)
    unit = UnitInput(
        text=text,
        speaker=speaker,
        occurred_at=occurred_at,
        session_id=session_id,
        source_ref=source_ref,
        agent_id=agent_id,
        metadata=None if metadata is None else JSON(metadata),
    ).to_unit()
    (done,) = await context.services.engine.remember_batch(owner, checked_unit(context, owner, unit))
    return remembered(done)
