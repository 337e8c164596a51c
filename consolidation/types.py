"""What the memory engine takes and returns; the API layer maps these to GraphQL types."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from consolidation.recall.planning.plan import Plan
from graph.models import Episode, Fact, Interaction
from graph.vocabulary import MAX_ID_CHARS


class Unit(BaseModel):
    """One interaction as an agent sends it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1)
    speaker: str = Field(default="user", min_length=1, max_length=MAX_ID_CHARS)
    occurred_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    session_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    source_ref: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    agent_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    # Checked by consolidation/writing/checks.py (graph/scopes.py: its rules), not coerced here.
    metadata: dict[str, Any] | None = None

    @field_validator("occurred_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        """Naive times are ambiguous; refuse them rather than guess a zone. The offset stays: the
        turn is stored in UTC beside it (docs/design/graph-model.md#interaction-times)."""
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("occurred_at must carry a timezone")
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise ValueError("occurred_at must lie in the years 1 to 9999 once in UTC") from None
        return value


@dataclass(frozen=True)
class Remembered:
    """The acknowledgement: the interaction is durable once this exists."""

    interaction_id: str
    seq: int
    created: bool
    consolidation: ConsolidationOutcome | None = None
    # The interaction as this request stored it, so that the caller need not read it back; None
    # when it was known already (a repeated source_ref) or an inline consolidation changed it.
    interaction: Interaction | None = None


@dataclass(frozen=True)
class ConsolidationOutcome:
    """What one gate decision did: nothing, a new episode, or a merge into an existing one."""

    trigger_id: str
    action: str  # "none" | "created" | "merged" | "deferred"
    episode_id: str | None = None
    previous_episode_id: str | None = None
    fact_ids: list[str] = field(default_factory=list)
    superseded_fact_ids: list[str] = field(default_factory=list)
    consolidated_ids: list[str] = field(default_factory=list)
    llm_calls: int = 0
    error: str | None = None
    # action "none" for a turn that now waits for this episode's batch merge (pipeline.py).
    waiting_for: str | None = None
    # The salience rule that opened the gate when recurrence alone would not have (pipeline.py).
    salience: str | None = None


@dataclass(frozen=True)
class Budgets:
    """How many hits each layer may contribute (RecMem's 10 / 5 / 10)."""

    subconscious: int = 10
    episodic: int = 5
    semantic: int = 10


@dataclass(frozen=True)
class RecallHit:
    """One piece of evidence: its layer, score, and the interactions it rests on."""

    layer: str  # "subconscious" | "episodic" | "semantic"
    id: str
    text: str
    score: float
    at: datetime | None
    interaction_ids: list[str]
    item: Interaction | Episode | Fact
    # What its layer ranks it by (reciprocal-rank fusion of the dense and lexical rankings): a
    # layer's hits come highest first. 0.0 where no layer ranking applies (a context's candidates).
    rank_score: float = 0.0


@dataclass(frozen=True)
class ContextItem:
    """One line of an assembled context: the hit, its line as it stands there, what it cost
    (o200k tokens, with its newline) and its place in the fused ranking."""

    hit: RecallHit
    line: str
    tokens: int
    rank_score: float


@dataclass(frozen=True)
class Context:
    """Evidence across the three layers that fits a token budget, ready for a prompt."""

    text: str
    tokens: int
    budget: int
    items: list[ContextItem]
    # No candidate cleared the relevance floor (consolidation/recall/relevance.py); with the
    # rule on (RECMEM_CONTEXT_RELEVANCE) the context is then empty.
    nothing_relevant: bool = False

    @property
    def interaction_ids(self) -> set[str]:
        """Every interaction the context rests on (a turn itself, an episode's or fact's sources)."""
        return {i for item in self.items for i in item.hit.interaction_ids}


@dataclass(frozen=True)
class Recall:
    query: str
    as_of: datetime | None
    subconscious: list[RecallHit]
    episodic: list[RecallHit]
    semantic: list[RecallHit]
    # Present when the recall was given a token budget.
    context: Context | None = None
    # What the planner read from the query (None with the planner off).
    plan: Plan | None = None
    # The beliefs a person withdrew (retracted, or replaced by a correction) that rest on the
    # evidence, most recently withdrawn first: the evidence may still say them (docs/corrections.md).
    withdrawn: list[Fact] = field(default_factory=list)

    def all_hits(self) -> list[RecallHit]:
        return [*self.semantic, *self.episodic, *self.subconscious]

    def evidence(self) -> list[RecallHit]:
        """What an answer reads: the assembled context's items when the recall has one (it fits
        a token budget), else every per-layer hit."""
        if self.context is not None:
            return [item.hit for item in self.context.items]
        return self.all_hits()


@dataclass(frozen=True)
class Answer:
    text: str
    used_ids: list[str]
    recall: Recall
    run_id: str | None
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class MetadataCondition:
    """One metadata key equal to a value (`values` of one) or to any of several (`in`). A
    list-valued key matches when it holds one of them (docs/scopes.md#filters)."""

    key: str
    values: tuple[str | int | float | bool, ...]


@dataclass(frozen=True)
class RecallFilters:
    """What recall, answer and the listings may narrow to; None filters nothing (an empty tuple is
    refused by consolidation/recall/filters.py).

    Agents, sessions, speakers and metadata match an interaction's own and an episode's or a
    fact's inherited scopes; `kinds` and the `valid_from` window narrow facts only; the
    `occurred` window narrows interactions (occurred_at), episodes (their span overlaps it) and
    facts (valid_from). Windows include their start and exclude their end.
    """

    agent_ids: tuple[str, ...] | None = None
    session_ids: tuple[str, ...] | None = None
    speakers: tuple[str, ...] | None = None
    metadata: tuple[MetadataCondition, ...] | None = None
    kinds: tuple[str, ...] | None = None
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    valid_from_after: datetime | None = None
    valid_from_before: datetime | None = None
