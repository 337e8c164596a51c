"""`export_user`: a user's memory in pages of the JSON Lines that `recmem export` writes."""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.mcpserver import Context as ToolContext
from pydantic import Field

from api.export import export_url
from api.mcp.arguments import UserId, require_user
from api.mcp.caller import context_of
from api.mcp.results import ExportPage
from consolidation.portability import dump

MAX_LINES = 2000


async def export_user(
    ctx: ToolContext,
    user_id: UserId,
    offset: Annotated[int, Field(ge=0, description="Lines after the header to skip (next_offset).")] = 0,
    limit: Annotated[int, Field(ge=1, le=MAX_LINES, description="Lines to return after the header.")] = 500,
) -> ExportPage:
    """Take a user's memory out: the header (schema version, embedder, counts) and a page of its
    node and edge lines, exactly as `recmem export` and GET /export write them (docs/export.md).

    Use it to move or back up a user's memory; `recmem import` rebuilds it from the lines."""
    context = context_of(ctx)
    # The user the other tools answer, even once all its turns are forgotten.
    owner = await require_user(context, user_id)
    portability = context.services.portability
    header: dict[str, Any] | None = None
    page: list[dict[str, Any]] = []
    more = False
    position = 0
    async for line in portability.export(owner):
        if header is None:
            header = _plain(line)
            continue
        if position >= offset + limit:
            more = True
            break
        if position >= offset:
            page.append(_plain(line))
        position += 1
    assert header is not None, "an export starts with its header"
    return ExportPage(
        header=header,
        lines=page,
        next_offset=offset + len(page) if more else None,
        download_path=export_url(user_id),
    )


def _plain(line: dict[str, Any]) -> dict[str, Any]:
    """The line as the file holds it (datetimes and bytes in their tagged JSON forms)."""
    plain: dict[str, Any] = json.loads(dump(line))
    return plain
