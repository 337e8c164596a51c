"""The records the service and its client share, each defined once.

The storage layer (`graph/`) builds them from Neo4j rows; the client (`recmem_client/`, which
needs only httpx) reads them from the wire, where the SDL names their fields in camelCase. Plain
frozen dataclasses with no dependency, so that both sides can import them without the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["InteractionRecord", "RunAccount", "UserForgotten"]


@dataclass(frozen=True)
class InteractionRecord:
    """An interaction's own fields: what was sent and where it stands in the user's stream. Its id
    and owner come with the holder (a stored node, or the client's record of the wire's)."""

    session_id: str | None
    speaker: str
    text: str
    occurred_at: datetime
    seq: int
    consolidated: bool
    # The caller's idempotency key, if it sent one.
    source_ref: str | None


@dataclass(frozen=True)
class RunAccount:
    """One LLM (or offline) call's account, as a consolidation or a forget's rebuild records it
    for audit and cost. No slots: the server's stored run also inherits its node's fields."""

    id: str
    op: str
    trigger: str
    provider: str
    model: str
    status: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    neighbor_count: int
    threshold: float | None
    at: datetime


@dataclass(frozen=True, slots=True)
class UserForgotten:
    """What forgetting a user removed (the SDL's ForgetUserPayload): counts of erased nodes."""

    user_id: str
    interactions: int
    episodes: int
    facts: int
    runs: int
