"""Plain records that cross the storage boundary. No driver types leak out of `graph`."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from graph.validation import VectorValues

FactKind = Literal["preference", "attribute", "event", "plan", "relation", "other"]
FactStatus = Literal["active", "superseded", "retracted"]
RunOp = Literal["create_episode", "merge_episode", "refine_facts", "answer"]
T = TypeVar("T")


def new_id(prefix: str) -> str:
    """Readable, globally unique ids: the prefix says which label a bare id belongs to."""
    return f"{prefix}_{uuid.uuid4().hex}"


@dataclass(frozen=True)
class Owner:
    """The tenant and user every read and write is scoped to."""

    tenant: str
    user_id: str

    @property
    def key(self) -> str:
        """A single token for full-text filtering; hashed so no separator can be forged."""
        raw = f"{self.tenant}\x00{self.user_id}".encode()
        return "o" + hashlib.sha256(raw).hexdigest()[:32]

    def params(self) -> dict[str, str]:
        return {"tenant": self.tenant, "user_id": self.user_id, "owner_key": self.key}


@dataclass(frozen=True)
class NewInteraction:
    speaker: str
    text: str
    occurred_at: datetime
    # The embedder's float32 row passes as it is (no conversion on the bulk path).
    embedding: VectorValues
    session_id: str | None = None
    source_ref: str | None = None
    # Its sentences' unit vectors as float16 bytes, row after row (consolidation/sentences.py);
    # None for a turn of one sentence.
    sentence_vectors: bytes | None = None


@dataclass(frozen=True)
class StoredInteraction:
    """The result of a write: `created` is False when the caller's source_ref already existed."""

    id: str
    seq: int
    created: bool
    source_ref: str | None


@dataclass(frozen=True)
class Interaction:
    id: str
    tenant: str
    user_id: str
    session_id: str | None
    speaker: str
    text: str
    occurred_at: datetime
    seq: int
    consolidated: bool
    source_ref: str | None
    consolidated_at: datetime | None = None
    # Whether the recurrence gate has yet to run on it; None when the read did not fetch that.
    pending: bool | None = None


@dataclass(frozen=True)
class Episode:
    id: str
    tenant: str
    user_id: str
    title: str
    summary: str
    version: int
    first_at: datetime
    last_at: datetime
    created_at: datetime
    current: bool
    valid_from: datetime
    superseded_at: datetime | None = None


@dataclass(frozen=True)
class Fact:
    id: str
    tenant: str
    user_id: str
    text: str
    kind: str
    status: str
    valid_from: datetime
    valid_to: datetime | None
    created_at: datetime


@dataclass(frozen=True)
class ConsolidationRun:
    id: str
    tenant: str
    user_id: str
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
    error: str | None = None


@dataclass(frozen=True)
class Hit(Generic[T]):
    """A search result; `score` is plain cosine for vector search, a Lucene score for full-text."""

    item: T
    score: float


@dataclass(frozen=True)
class EpisodeWrite:
    id: str
    title: str
    summary: str
    embedding: list[float]
    first_at: datetime
    last_at: datetime
    # (interaction id, similarity to the triggering unit): the recurrence provenance.
    sources: list[tuple[str, float]]
    run_id: str
    # Valid time this version starts: first_at for a new episode, the merged turn's time for a merge.
    valid_from: datetime
    previous_id: str | None = None


@dataclass(frozen=True)
class FactWrite:
    id: str
    text: str
    kind: str
    embedding: list[float]
    valid_from: datetime
    source_interaction_ids: list[str]
    # (old fact id, reason): facts this one replaces.
    supersedes: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RunWrite:
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
    read_ids: list[str] = field(default_factory=list)
    produced_ids: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class ConsolidationWrite:
    """Everything one consolidation produces; written in a single transaction or not at all."""

    episode: EpisodeWrite | None
    facts: list[FactWrite]
    runs: list[RunWrite]
    consolidated_ids: list[str]
    # Valid time of the consolidation (the triggering turn's time); stamps consolidated_at.
    at: datetime
    facts_run_id: str | None = None
    # When set, the commit happens only while this holder still owns the user's lease.
    lease_holder: str | None = None


def to_python(value: Any) -> Any:
    """Neo4j temporal values to stdlib datetimes; everything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value
