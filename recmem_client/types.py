"""What the client takes besides plain values: the inputs of `remember_batch` and `recall`.

What it returns is generated from the SDL (recmem_client/generated.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Unit:
    """One interaction of a `remember_batch` (the SDL's UnitInput)."""

    text: str
    speaker: str = "user"
    # Must carry a timezone; None lets the service stamp it with its own clock.
    occurred_at: datetime | None = None
    session_id: str | None = None
    # The caller's idempotency key; None makes the client generate one (see client.py).
    source_ref: str | None = None
    agent_id: str | None = None
    # String keys; string, number, boolean or list-of-string values (docs/scopes.md#metadata).
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Layers:
    """Hits each layer may contribute to a recall (the SDL's BudgetInput without `tokens`)."""

    subconscious: int = 10
    episodic: int = 5
    semantic: int = 10


DEFAULT_LAYERS = Layers()
