"""Plain records that cross the storage boundary. No driver types leak out of `graph`."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Generic, TypeVar

from graph.validation import VectorValues, require_aware
from graph.vocabulary import RUN_ID_PREFIX, FactStatus

T = TypeVar("T")


def new_id(prefix: str) -> str:
    """Readable, globally unique ids: the prefix (graph/vocabulary.py: INTERACTION_PREFIX, ...)
    says which label a bare id belongs to."""
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
class NewPart:
    """One part of a long interaction (consolidation/writing/parts.py): a span of its text by
    character offsets, with its own vector."""

    start: int
    end: int
    embedding: VectorValues


@dataclass(frozen=True)
class NewInteraction:
    speaker: str
    text: str
    # Stored in UTC, beside the offset it is given in (a naive time is UTC's).
    occurred_at: datetime
    # The embedder's float32 row passes as it is (no conversion on the bulk path).
    embedding: VectorValues
    session_id: str | None = None
    source_ref: str | None = None
    agent_id: str | None = None
    # Checked already (graph/scopes.py); stored as JSON beside its scope tokens.
    metadata: Mapping[str, Any] | None = field(default=None, hash=False)
    # Its sentences' unit vectors as float16 bytes, row after row (consolidation/recall/sentences.py);
    # None for a turn of one sentence.
    sentence_vectors: bytes | None = None
    # A long turn's parts, each searchable on its own; empty for a turn its one vector covers.
    parts: tuple[NewPart, ...] = ()


@dataclass(frozen=True)
class StoredInteraction:
    """The result of a write: `created` is False when the caller's source_ref already existed."""

    id: str
    seq: int
    created: bool
    source_ref: str | None


@dataclass(frozen=True)
class MemoryNode:
    """What every node of a user's memory carries first: its id and its owner."""

    id: str
    tenant: str
    user_id: str


@dataclass(frozen=True)
class Interaction(MemoryNode):
    """A stored interaction: the node's id, tenant and user_id, then what was sent and where it
    stands in the user's stream."""

    session_id: str | None
    speaker: str
    text: str
    occurred_at: datetime
    seq: int
    consolidated: bool
    # The caller's idempotency key, if it sent one.
    source_ref: str | None
    consolidated_at: datetime | None = None
    # Whether the recurrence gate has yet to run on it; None when the read did not fetch that.
    pending: bool | None = None
    agent_id: str | None = None
    metadata: dict[str, Any] | None = field(default=None, hash=False)
    # Seconds east of UTC the caller gave occurred_at in (0: UTC, or stored before offsets were
    # kept); occurred_at itself is the UTC instant (docs/design/graph-model.md#interaction-times).
    utc_offset_s: int = 0

    @property
    def local_occurred_at(self) -> datetime:
        """occurred_at in the offset it was said in; in UTC where that offset has no date (the
        last hours of the year 9999 east of Greenwich, the first of the year 1 west of it)."""
        return said_at(self.occurred_at, self.utc_offset_s)


def utc_offset_s(moment: datetime) -> int:
    """The whole seconds east of UTC `moment` is given in; 0 for a naive one (taken as UTC)."""
    offset = moment.utcoffset()
    return 0 if offset is None else int(offset.total_seconds())


def offset_zone(seconds: int) -> timezone:
    """The fixed offset of `seconds` east of UTC (UTC itself for 0)."""
    return UTC if seconds == 0 else timezone(timedelta(seconds=seconds))


def said_at(occurred_at: datetime, utc_offset_s: int) -> datetime:
    """A stored instant in the offset it was said in; in UTC where that offset has no date (the
    last hours of the year 9999 east of Greenwich, the first of the year 1 west of it)."""
    try:
        return occurred_at.astimezone(offset_zone(utc_offset_s))
    except OverflowError:
        return occurred_at.astimezone(UTC)


@dataclass(frozen=True)
class Episode(MemoryNode):
    title: str
    summary: str
    version: int
    first_at: datetime
    last_at: datetime
    created_at: datetime
    current: bool
    valid_from: datetime
    superseded_at: datetime | None = None
    # The scope tokens of its sources (graph/scopes.py); None where a read did not fetch them.
    scopes: list[str] | None = field(default=None, hash=False)
    # The instant it reads as of (`at`); None: as it stands now.
    as_of: datetime | None = field(default=None, compare=False)

    def at(self, instant: datetime) -> Episode:
        """This version as it stood at `instant` (docs/corrections.md#time): one in force then was
        current, with no newer version known yet; any other reads as it stands now."""
        held = self.valid_from <= instant and (self.superseded_at is None or instant < self.superseded_at)
        return replace(self, current=True, superseded_at=None, as_of=instant) if held else self


@dataclass(frozen=True)
class Fact(MemoryNode):
    text: str
    kind: str
    status: str
    valid_from: datetime
    valid_to: datetime | None
    created_at: datetime
    # The scope tokens of its sources (graph/scopes.py); None where a read did not fetch them.
    scopes: list[str] | None = field(default=None, hash=False)
    # The instant it reads as of (`at`); None: as it stands now.
    as_of: datetime | None = field(default=None, compare=False)

    def at(self, instant: datetime) -> Fact:
        """This fact as it stood at `instant` (docs/corrections.md#time): one in force then was
        active, with no end and no replacement known yet; any other reads as it stands now."""
        held = self.valid_from <= instant and (self.valid_to is None or instant < self.valid_to)
        return replace(self, status=FactStatus.ACTIVE.value, valid_to=None, as_of=instant) if held else self


@dataclass(frozen=True)
class RunAccount:
    """One LLM (or offline) call's account, as a consolidation or a forget's rebuild records it
    for audit and cost. No slots: the stored run also inherits its node's fields."""

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


@dataclass(frozen=True)
class ConsolidationRun(RunAccount, MemoryNode):
    """A run as stored. Its fields come base by base from the last one: the node's id, tenant and
    user_id, then the account (whose `id` is the same field)."""

    error: str | None = None
    # A change a person made (a correction, retraction or fact added by hand): why, and who.
    reason: str | None = None
    by: str | None = None
    # What opened the gate for an episode's run: "recurrence", or "salience" with the rule that fired.
    triggered_by: str | None = None
    rule: str | None = None


@dataclass(frozen=True)
class Hit(Generic[T]):
    """A search result; `score` is plain cosine for vector search, a Lucene score for full-text."""

    item: T
    score: float


@dataclass(frozen=True)
class EpisodeContent:
    """What an episode version's node holds of its own: written by a consolidation, or rewritten
    in place by a forget (graph/forget.py: EpisodeRewrite)."""

    id: str
    title: str
    summary: str
    embedding: list[float]
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class EpisodeWrite(EpisodeContent):
    # (interaction id, similarity to the triggering unit): the recurrence provenance.
    sources: list[tuple[str, float]]
    run_id: str
    # Valid time this version starts: first_at for a new episode, the merged turn's time for a merge.
    valid_from: datetime
    previous_id: str | None = None


@dataclass(frozen=True)
class FactContent:
    """What a fact's node holds of its own: written by a consolidation, or rewritten in place by a
    forget (graph/forget.py: FactRewrite)."""

    id: str
    text: str
    kind: str
    embedding: list[float]


@dataclass(frozen=True)
class FactWrite(FactContent):
    valid_from: datetime
    source_interaction_ids: list[str]
    # (old fact id, reason): facts this one replaces; one that began after it ends it instead
    # (docs/design/graph-model.md#replacement).
    supersedes: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RunWrite(RunAccount):
    read_ids: list[str] = field(default_factory=list)
    produced_ids: list[str] = field(default_factory=list)
    error: str | None = None
    reason: str | None = None
    by: str | None = None
    triggered_by: str | None = None
    rule: str | None = None


def change_run(
    op: str,
    trigger: str,
    provider: str,
    by: str,
    reason: str | None,
    at: datetime,
    read: list[str],
    produced: list[str],
    *,
    neighbor_count: int = 0,
) -> RunWrite:
    """The run of a change no model made (a person's, or a migration's repair): no tokens, the
    provider as its model; who and why."""
    return RunWrite(
        id=new_id(RUN_ID_PREFIX),
        op=op,
        trigger=trigger,
        provider=provider,
        model=provider,
        status="ok",
        prompt_tokens=0,
        completion_tokens=0,
        latency_ms=0.0,
        neighbor_count=neighbor_count,
        threshold=None,
        at=at,
        read_ids=read,
        produced_ids=produced,
        reason=reason,
        by=by,
    )


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


# -- read models: what browsing and the audit trail return --------------------------------------


@dataclass(frozen=True)
class User:
    id: str
    tenant: str
    created_at: datetime | None


@dataclass(frozen=True)
class UserStats:
    interactions: int
    consolidated: int
    pending: int
    episodes: int
    episode_versions: int
    active_facts: int
    superseded_facts: int
    retracted_facts: int
    runs: int
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Cursor:
    """A position in a listing: the sort key (seq, or a time in ns) and the id that breaks ties."""

    key: int
    id: str


@dataclass(frozen=True)
class PageRequest:
    """`limit` items after `after` (forward) or before `before` (backward), within [since, until)."""

    limit: int
    backward: bool = False
    after: Cursor | None = None
    before: Cursor | None = None
    since: datetime | None = None
    until: datetime | None = None

    def params(self) -> dict[str, Any]:
        for name, moment in (("since", self.since), ("until", self.until)):
            if moment is not None:
                require_aware(name, moment)
        return {
            # One extra row tells whether another page follows.
            "limit": self.limit + 1,
            "after_key": self.after.key if self.after else None,
            "after_id": self.after.id if self.after else None,
            "before_key": self.before.key if self.before else None,
            "before_id": self.before.id if self.before else None,
            "since": self.since,
            "until": self.until,
        }


@dataclass(frozen=True)
class Page(Generic[T]):
    """Items in ascending order; `has_more` says whether more lie beyond in the direction read."""

    items: list[tuple[Cursor, T]]
    has_more: bool


@dataclass(frozen=True)
class Replacement:
    """One SUPERSEDES edge seen from a fact: the other fact, why, and when."""

    fact: Fact
    reason: str | None
    at: datetime | None


@dataclass(frozen=True)
class FactSources:
    episodes: list[Episode]
    interactions: list[Interaction]


@dataclass(frozen=True)
class FactLinks:
    supersedes: list[Replacement]
    superseded_by: list[Replacement]


@dataclass(frozen=True)
class Derived:
    episodes: list[Episode]
    facts: list[Fact]


@dataclass(frozen=True)
class RunLinks:
    read: list[str]
    produced: list[str]


@dataclass(frozen=True)
class EpisodeWithSources:
    episode: Episode
    sources: list[tuple[Interaction, float | None]]


@dataclass(frozen=True)
class Provenance:
    """Why the memory believes a fact, since when, and what it replaced."""

    fact: Fact
    episodes: list[EpisodeWithSources]
    interactions: list[Interaction]
    supersedes: list[Replacement]
    superseded_by: list[Replacement]
    runs: list[ConsolidationRun]
    # The changes people made to it: its correction, retraction or addition by hand.
    corrections: list[ConsolidationRun] = field(default_factory=list)


def to_python(value: Any) -> Any:
    """Neo4j temporal values to stdlib datetimes; everything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value
