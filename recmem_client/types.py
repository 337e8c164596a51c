"""What the client sends and returns: frozen dataclasses mirroring the service's GraphQL types.

Field names are the SDL's (api/schema.graphql) in snake_case and annotations the types the SDL
promises: recmem_client/parsers.py reads every record from these alone. Each type holds the scalar
fields the client's documents select (recmem_client/documents.py), not every nested object the SDL
offers: an agent that needs to walk the graph further can query by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

# What the service's storage layer builds too, defined once in recmem_records; UserForgotten is
# one of the client's results as it stands there.
from recmem_records import InteractionRecord, RunAccount
from recmem_records import UserForgotten as UserForgotten

# -- enums -------------------------------------------------------------------------------------


class Layer(StrEnum):
    """The memory layer a piece of evidence comes from."""

    SUBCONSCIOUS = "SUBCONSCIOUS"
    EPISODIC = "EPISODIC"
    SEMANTIC = "SEMANTIC"


class ConsolidationAction(StrEnum):
    NONE = "NONE"
    CREATED = "CREATED"
    MERGED = "MERGED"
    DEFERRED = "DEFERRED"


class FactKind(StrEnum):
    PREFERENCE = "PREFERENCE"
    ATTRIBUTE = "ATTRIBUTE"
    EVENT = "EVENT"
    PLAN = "PLAN"
    RELATION = "RELATION"
    OTHER = "OTHER"


class FactStatus(StrEnum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    RETRACTED = "RETRACTED"


# -- inputs ------------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class Layers:
    """Hits each layer may contribute to a recall (the SDL's BudgetInput without `tokens`)."""

    subconscious: int = 10
    episodic: int = 5
    semantic: int = 10


DEFAULT_LAYERS = Layers()


# -- memory nodes ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interaction(InteractionRecord):
    """One unit of conversation, stored as sent (the subconscious layer)."""

    id: str
    user_id: str
    consolidated_at: datetime | None


@dataclass(frozen=True, slots=True)
class Episode:
    """One version of a time-anchored narrative of a recurring topic."""

    id: str
    user_id: str
    title: str
    summary: str
    version: int
    current: bool
    first_at: datetime
    last_at: datetime
    valid_from: datetime
    superseded_at: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Fact:
    """One atomic statement with its validity interval."""

    id: str
    user_id: str
    text: str
    kind: FactKind
    status: FactStatus
    valid_from: datetime
    valid_to: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ConsolidationRun(RunAccount):
    """One LLM (or offline) operation, recorded for audit and cost: its account, whose user and
    how it failed, if it did."""

    user_id: str
    error: str | None


# -- writes ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConsolidationEvent:
    """One consolidation decision: an episode created or merged, facts added or superseded."""

    user_id: str
    trigger_id: str
    action: ConsolidationAction
    episode_id: str | None
    previous_episode_id: str | None
    fact_ids: tuple[str, ...]
    superseded_fact_ids: tuple[str, ...]
    consolidated_ids: tuple[str, ...]
    llm_calls: int
    error: str | None


@dataclass(frozen=True, slots=True)
class Remembered:
    """The acknowledgement of a remembered interaction (the SDL's RememberPayload): it is durable."""

    interaction_id: str
    # False when the source_ref was already known: nothing new was stored (e.g. a retry).
    created: bool
    seq: int
    consolidation: ConsolidationEvent | None
    # None when the service could not read it back (the write is durable all the same).
    interaction: Interaction | None


@dataclass(frozen=True, slots=True)
class InteractionForgotten:
    """What forgetting an interaction removed, rebuilt and restored (ForgetInteractionPayload)."""

    interaction_ids: tuple[str, ...]
    episode_ids: tuple[str, ...]
    fact_ids: tuple[str, ...]
    run_ids: tuple[str, ...]
    rebuilt_episode_ids: tuple[str, ...]
    rebuilt_fact_ids: tuple[str, ...]
    restored_fact_ids: tuple[str, ...]


# -- recall and answers ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InteractionHit:
    score: float
    interaction: Interaction


@dataclass(frozen=True, slots=True)
class EpisodeHit:
    score: float
    episode: Episode
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FactHit:
    score: float
    fact: Fact
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One line of an assembled context, with where it came from."""

    layer: Layer
    id: str
    line: str
    tokens: int
    score: float
    rank_score: float
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RecallContext:
    """Evidence from all three layers within a token budget, ready for a prompt."""

    text: str
    tokens: int
    budget: int
    items: tuple[ContextItem, ...]


@dataclass(frozen=True, slots=True)
class Recall:
    """Memory relevant to a query, layer by layer; `context` only when a token budget was given."""

    query: str
    as_of: datetime | None
    subconscious: tuple[InteractionHit, ...]
    episodic: tuple[EpisodeHit, ...]
    semantic: tuple[FactHit, ...]
    context: RecallContext | None


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer from memory, with the evidence it used and what it cost."""

    text: str
    used_ids: tuple[str, ...]
    recall: Recall
    run_id: str | None
    prompt_tokens: int
    completion_tokens: int


# -- audit -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EpisodeSource:
    interaction: Interaction
    # Cosine similarity to the turn that triggered consolidation (1 for that turn).
    similarity: float | None


@dataclass(frozen=True, slots=True)
class AuditedEpisode:
    episode: Episode
    sources: tuple[EpisodeSource, ...]


@dataclass(frozen=True, slots=True)
class FactChange:
    """A SUPERSEDES edge seen from one fact: the other fact, why and when."""

    fact: Fact
    reason: str | None
    at: datetime | None


@dataclass(frozen=True, slots=True)
class FactAudit:
    """Why memory believes a fact: its provenance chain (fact -> episodes -> interactions) and cost."""

    fact: Fact
    episodes: tuple[AuditedEpisode, ...]
    interactions: tuple[Interaction, ...]
    supersedes: tuple[FactChange, ...]
    superseded_by: tuple[FactChange, ...]
    runs: tuple[ConsolidationRun, ...]
    prompt_tokens: int
    completion_tokens: int
