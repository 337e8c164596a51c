"""Which tools the server offers, in the order it lists them, with the hints clients read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.types import ToolAnnotations

from api.mcp.auditing import audit_fact, user_stats
from api.mcp.beliefs import add_fact, correct_fact, retract_fact
from api.mcp.exporting import export_user
from api.mcp.forgetting import forget_interaction
from api.mcp.recalling import answer, recall
from api.mcp.remembering import remember

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
TOOLS: list[tuple[Callable[..., Any], ToolAnnotations]] = [
    (remember, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (recall, _READ),
    # It records a run (its cost), nothing else.
    (answer, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (audit_fact, _READ),
    (forget_interaction, ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)),
    (user_stats, _READ),
    (correct_fact, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (retract_fact, ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)),
    (add_fact, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
    (export_user, _READ),
]
