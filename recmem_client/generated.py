"""The client's wire types and operations, GENERATED from api/schema.graphql and
recmem_client/graphql/*.graphql by scripts/generate_client.py: do not edit. Regenerate with

    python scripts/generate_client.py

(tests/unit/test_client_codegen.py fails while this file is stale).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from recmem_client.document import Document


class ConsolidationAction(StrEnum):
    """What one consolidation decision did."""

    NONE = "NONE"
    CREATED = "CREATED"
    MERGED = "MERGED"
    DEFERRED = "DEFERRED"


class FactKind(StrEnum):
    """What kind of statement a fact is."""

    PREFERENCE = "PREFERENCE"
    ATTRIBUTE = "ATTRIBUTE"
    EVENT = "EVENT"
    PLAN = "PLAN"
    RELATION = "RELATION"
    OTHER = "OTHER"


class FactStatus(StrEnum):
    """Where a fact stands in time."""

    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    RETRACTED = "RETRACTED"


class Layer(StrEnum):
    """The memory layer a piece of evidence comes from."""

    SUBCONSCIOUS = "SUBCONSCIOUS"
    EPISODIC = "EPISODIC"
    SEMANTIC = "SEMANTIC"


class PlanOrder(StrEnum):
    """Which statements on the topic come first."""

    LATEST = "LATEST"
    EARLIEST = "EARLIEST"


class QuestionKind(StrEnum):
    """What an answer is made of."""

    LOOKUP = "LOOKUP"
    AGGREGATE = "AGGREGATE"
    DURATION = "DURATION"


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer from memory, with the evidence it used."""

    # The answer.
    text: str
    # Ids of the memory items the answer rests on.
    used_ids: tuple[str, ...]
    # Everything that was recalled for the question.
    recall: Recall
    # The ConsolidationRun recording this answer's cost.
    run_id: str | None
    # Prompt tokens spent.
    prompt_tokens: int
    # Completion tokens spent.
    completion_tokens: int


@dataclass(frozen=True, slots=True)
class AuditedEpisode:
    """An episode version in a fact's audit, with the interactions it rests on."""

    # The episode version the fact was refined from.
    episode: Episode
    # Its source interactions.
    sources: tuple[EpisodeSource, ...]


@dataclass(frozen=True, slots=True)
class BeliefChanged:
    """What a correction, a retraction or a fact added by hand wrote."""

    # True: the change committed, all of it (an error instead means none of it did).
    written: bool
    # The fact it made (correctFact, addFact); null for retractFact.
    fact: Fact | None
    # The fact it closed, as it stands now: superseded (correctFact), retracted (retractFact).
    changed_fact: Fact | None
    # The run that records it: trigger correction, retraction or manual; its reason and who.
    run: ConsolidationRun


@dataclass(frozen=True, slots=True)
class ConsolidationEvent:
    """One consolidation: an episode created or merged, facts added or superseded."""

    # The user.
    user_id: str
    # The interaction that triggered the decision.
    trigger_id: str
    # What happened.
    action: ConsolidationAction
    # The episode version written, if any.
    episode_id: str | None
    # The version a merge replaced.
    previous_episode_id: str | None
    # Facts added.
    fact_ids: tuple[str, ...]
    # Facts the new ones replaced.
    superseded_fact_ids: tuple[str, ...]
    # Interactions the episode absorbed.
    consolidated_ids: tuple[str, ...]
    # Consolidator calls made.
    llm_calls: int
    # Why a deferred decision will be retried.
    error: str | None


@dataclass(frozen=True, slots=True)
class ConsolidationRun:
    """One LLM (or offline) operation, recorded for audit and cost."""

    # Globally unique id (int_, epi_, fact_ or run_ prefix).
    id: str
    # The user (within the caller's tenant).
    user_id: str
    # create_episode, merge_episode, refine_facts or answer; a person's change: correct_fact,
    # retract_fact, add_fact or forget_interaction; an upgrade's repair: reorder_replacements.
    op: str
    # What started it: an interaction id, question or forget (a forget's rebuild); a person's change:
    # correction, retraction, manual or erasure (a forget); upgrade (a repair of older data by
    # migration).
    trigger: str
    # The consolidator: openai-compatible or offline; person or system for a change.
    provider: str
    # The model id.
    model: str
    # ok, or the failure class.
    status: str
    # Prompt tokens as the endpoint reported them.
    prompt_tokens: int
    # Completion tokens as reported.
    completion_tokens: int
    # Wall time of the call.
    latency_ms: float
    # How many interactions or items it read.
    neighbor_count: int
    # The similarity threshold in force, if any.
    threshold: float | None
    # When it ran.
    at: datetime
    # The error class when it failed.
    error: str | None
    # Why a person made the change (a correction or retraction), or what an upgrade's repair changed;
    # null for a model's run.
    reason: str | None
    # Who made the change: the API key's name and id, or recmem upgrade; null for a model's run.
    by: str | None


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One line of an assembled context, with where it came from."""

    # The layer it comes from.
    layer: Layer
    # Id of the interaction, episode version or fact.
    id: str
    # The line as it stands in the context text.
    line: str
    # o200k tokens the line costs, with its newline.
    tokens: int
    # Cosine similarity to the query (0 if found lexically only).
    score: float
    # Its score in the fused ranking across layers.
    rank_score: float
    # Interactions it rests on (itself, for a turn).
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Episode:
    """One version of a time-anchored narrative of a recurring topic."""

    # Globally unique id (int_, epi_, fact_ or run_ prefix).
    id: str
    # The user (within the caller's tenant).
    user_id: str
    # A short label for the topic.
    title: str
    # The narrative, with absolute dates.
    summary: str
    # 1 for a new episode; +1 per merge.
    version: int
    # Whether this is the newest version.
    current: bool
    # Time of the earliest source interaction.
    first_at: datetime
    # Time of the latest source interaction.
    last_at: datetime
    # Valid time this version starts.
    valid_from: datetime
    # Valid time a newer version replaced it.
    superseded_at: datetime | None
    # When memory wrote this version.
    created_at: datetime
    # The agents of its source interactions (docs/scopes.md).
    agent_ids: tuple[str, ...]
    # The sessions of its source interactions (docs/scopes.md).
    session_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EpisodeHit:
    """An episode recalled by similarity, with the interactions it rests on."""

    # Cosine similarity to the query (0 if found lexically only).
    score: float
    # The episode version.
    episode: Episode
    # Ids of its source interactions.
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EpisodeSource:
    """An interaction an episode was made from, with its recurrence similarity."""

    # The source interaction.
    interaction: Interaction
    # Cosine similarity to the turn that triggered consolidation (1 for that turn).
    similarity: float | None


@dataclass(frozen=True, slots=True)
class Fact:
    """One atomic, self-contained statement with its validity interval."""

    # Globally unique id (int_, epi_, fact_ or run_ prefix).
    id: str
    # The user (within the caller's tenant).
    user_id: str
    # The statement.
    text: str
    # What kind of statement it is.
    kind: FactKind
    # Active, superseded or retracted.
    status: FactStatus
    # Valid time it starts to hold.
    valid_from: datetime
    # Valid time it stopped holding (null: holds).
    valid_to: datetime | None
    # When memory wrote it.
    created_at: datetime
    # The agents of the interactions it rests on (docs/scopes.md).
    agent_ids: tuple[str, ...]
    # The sessions of the interactions it rests on (docs/scopes.md).
    session_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FactAudit:
    """Why memory believes a fact: its whole provenance chain and its cost."""

    # The audited fact.
    fact: Fact
    # Episodes -> interactions.
    episodes: tuple[AuditedEpisode, ...]
    # The exact turns that state the fact.
    interactions: tuple[Interaction, ...]
    # Facts it replaced.
    supersedes: tuple[FactChange, ...]
    # Facts that replaced it.
    superseded_by: tuple[FactChange, ...]
    # The runs (model, tokens) that produced the fact and its episodes.
    runs: tuple[ConsolidationRun, ...]
    # The changes people made to it, oldest first: the correction that replaced it or made it (trigger
    # correction), its retraction (retraction), its addition by hand (manual), a forget that restored
    # it, rebuilt it or changed what replaced it (erasure), an upgrade that reversed a replacement
    # written out of time order (upgrade), each with reason, who and when.
    corrections: tuple[ConsolidationRun, ...]
    # Prompt tokens spent by those runs.
    prompt_tokens: int
    # Completion tokens spent by those runs.
    completion_tokens: int


@dataclass(frozen=True, slots=True)
class FactChange:
    """A SUPERSEDES edge seen from one fact: the other fact, why and when."""

    # The fact on the other end.
    fact: Fact
    # Why the newer fact replaced the older one.
    reason: str | None
    # Valid time of the replacement.
    at: datetime | None


@dataclass(frozen=True, slots=True)
class FactHit:
    """A fact recalled by similarity, with the interactions that state it."""

    # Cosine similarity to the query (0 if found lexically only).
    score: float
    # The fact.
    fact: Fact
    # Ids of the interactions that state it.
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Interaction:
    """One unit of conversation, stored as sent (the subconscious layer)."""

    # Globally unique id (int_, epi_, fact_ or run_ prefix).
    id: str
    # The user (within the caller's tenant).
    user_id: str
    # The caller's session or conversation id.
    session_id: str | None
    # Who said it.
    speaker: str
    # What was said.
    text: str
    # When it was said, in the offset the caller gave (UTC for a turn stored before offsets were kept).
    occurred_at: datetime
    # Position in the user's stream (1, 2, ...).
    seq: int
    # Whether an episode has absorbed it.
    consolidated: bool
    # Valid time of its consolidation.
    consolidated_at: datetime | None
    # The caller's own id for it (idempotency key).
    source_ref: str | None
    # The agent that recorded it, if the caller said.
    agent_id: str | None
    # The caller's metadata map (string keys; string, number, boolean or string-list values).
    metadata: Any | None


@dataclass(frozen=True, slots=True)
class InteractionForgotten:
    """What forgetting an interaction removed, rebuilt and restored."""

    # Interactions erased.
    interaction_ids: tuple[str, ...]
    # Episode versions erased (they rested only on it).
    episode_ids: tuple[str, ...]
    # Facts erased: those only it stated, and those its other turns no longer state.
    fact_ids: tuple[str, ...]
    # Runs erased (everything they produced is gone).
    run_ids: tuple[str, ...]
    # Surviving episode versions whose summary was rebuilt from their other interactions.
    rebuilt_episode_ids: tuple[str, ...]
    # Surviving facts restated from their other interactions.
    rebuilt_fact_ids: tuple[str, ...]
    # Facts current again: erased facts had superseded them and no surviving fact replaced those.
    restored_fact_ids: tuple[str, ...]
    # The person's run recording this forget (op forget_interaction, trigger erasure), listed in the
    # audit of every surviving fact it changed; null when nothing surviving changed.
    record_run_id: str | None


@dataclass(frozen=True, slots=True)
class InteractionHit:
    """A raw interaction recalled by similarity."""

    # Cosine similarity to the query (0 if found lexically only).
    score: float
    # The interaction.
    interaction: Interaction


@dataclass(frozen=True, slots=True)
class PlanWindow:
    """A time window the query names, resolved against the day it is asked."""

    # Its first instant (UTC).
    start: datetime
    # The instant after its last (UTC, exclusive).
    end: datetime
    # The words it was read from.
    text: str


@dataclass(frozen=True, slots=True)
class Recall:
    """Memory relevant to a query, layer by layer."""

    # The query as asked.
    query: str
    # The time memory was read as of, if any.
    as_of: datetime | None
    # Raw interactions.
    subconscious: tuple[InteractionHit, ...]
    # Episode versions.
    episodic: tuple[EpisodeHit, ...]
    # Facts.
    semantic: tuple[FactHit, ...]
    # With `budget.tokens`: one context across the layers, no interaction twice.
    context: RecallContext | None
    # What the planner read from the query (null with RECMEM_PLANNER=off).
    plan: RecallPlan | None
    # Beliefs a person withdrew that rest on this recall's episodes and interactions (the context's,
    # with `budget.tokens`), which they may still say: the user's facts retracted or replaced by a
    # correction (at or before `asOf`, if given), at most 10, most recently withdrawn first. `status`,
    # `validTo` and `supersededBy` tell what happened (docs/corrections.md).
    withdrawn: tuple[Fact, ...]


@dataclass(frozen=True, slots=True)
class RecallContext:
    """Evidence from all three layers within a token budget, ready for a prompt."""

    # Facts, then episodes, then turns, each group in time order.
    text: str
    # o200k tokens of `text` (at most the budget).
    tokens: int
    # The token budget asked for.
    budget: int
    # No candidate reached the relevance floor (docs/design/context-assembly.md): with
    # RECMEM_CONTEXT_RELEVANCE on the context is then empty; off, it is filled all the same.
    nothing_relevant: bool
    # Its lines in the order of `text`.
    items: tuple[ContextItem, ...]


@dataclass(frozen=True, slots=True)
class RecallPlan:
    """What the planner read from the query before searching: by rules (no LLM call, the default) or, with
    RECMEM_PLANNER=llm, by one call to the configured endpoint."""

    # Which planner read it: `rules` or `llm`.
    source: str
    # RECMEM_PLANNER=llm: why the rule plan was used instead (`llm timeout`, ...); else null.
    fallback: str | None
    # What was dropped from the LLM's reading, and why.
    notes: tuple[str, ...]
    # HTTP calls the planner made (0 for the rules).
    llm_calls: int
    # Prompt tokens of the planner's call.
    prompt_tokens: int
    # Completion tokens of the planner's call.
    completion_tokens: int
    # The time the question was asked.
    asked_at: datetime
    # The time window it names; items inside rank higher.
    window: PlanWindow | None
    # LATEST: the newest statements on the topic first, older ones marked (earlier).
    order: PlanOrder | None
    # AGGREGATE searches wider pools.
    kind: QuestionKind
    # Names it mentions.
    entities: tuple[str, ...]
    # Times it names that the planner could not date.
    unresolved: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Remembered:
    """The acknowledgement of a remembered interaction: it is durable."""

    # The stored interaction.
    interaction_id: str
    # False when the sourceRef was already known.
    created: bool
    # Its position in the user's stream.
    seq: int
    # When the write waited for consolidation (consolidate: true, or inline mode): what the pass that
    # covered it did with it, whichever worker or process ran that pass (its trigger may be another
    # interaction that absorbed it); DEFERRED with the reason when no pass decided on it within the
    # inline budget. Null when it was left to the background.
    consolidation: ConsolidationEvent | None
    # The stored interaction (null if it could not be read back; see errors).
    interaction: Interaction | None


@dataclass(frozen=True, slots=True)
class UserForgotten:
    """What forgetting a user removed (everything)."""

    # The erased user.
    user_id: str
    # Interactions erased.
    interactions: int
    # Episode versions erased.
    episodes: int
    # Facts erased.
    facts: int
    # Consolidation runs erased.
    runs: int


@dataclass(frozen=True, slots=True)
class UserStats:
    """Sizes of a user's memory and what consolidation has cost."""

    # Interactions stored.
    interactions: int
    # Interactions absorbed into episodes.
    consolidated: int
    # Interactions the recurrence gate has not run on yet.
    pending: int
    # Episodes (current versions).
    episodes: int
    # Episode versions, old ones included.
    episode_versions: int
    # Facts in force.
    active_facts: int
    # Facts replaced by newer ones.
    superseded_facts: int
    # Facts a person retracted (kept for audit).
    retracted_facts: int
    # Consolidation and answer runs recorded.
    runs: int
    # Prompt tokens spent in total.
    prompt_tokens: int
    # Completion tokens spent in total.
    completion_tokens: int


class BudgetInput(TypedDict):
    """How many hits each layer may contribute (RecMem's defaults: 10 / 5 / 10), and optionally a token
    budget for one assembled context across the three layers."""

    # Raw interactions (0 to 100).
    subconscious: NotRequired[int]
    # Episodes (0 to 100).
    episodic: NotRequired[int]
    # Facts (0 to 100).
    semantic: NotRequired[int]
    # Fill `context` with the best evidence of all three layers within this many o200k tokens (1 to
    # 200000); without it `context` is null.
    tokens: NotRequired[int | None]


class MetadataFilter(TypedDict):
    """One metadata key equal to a value, or to any of several (`anyOf`)."""

    # The metadata key.
    key: str
    # A string, number or boolean; a string-list key matches if it holds it.
    equals: NotRequired[Any | None]
    # Any of these values (at most 100): the `in` of a filter.
    anyOf: NotRequired[list[Any] | None]


class RecallFilter(TypedDict):
    """What to narrow memory to; every field left out filters nothing, and the fields combine with AND.
    Agents, sessions, speakers and metadata match an interaction's own and an episode's or fact's
    inherited scopes (the union of its sources'). Windows include their start and exclude their end."""

    # Any of these agents.
    agentIds: NotRequired[list[str] | None]
    # Any of these sessions.
    sessionIds: NotRequired[list[str] | None]
    # Any of these speakers.
    speakers: NotRequired[list[str] | None]
    # Each condition must hold (at most 32).
    metadata: NotRequired[list[MetadataFilter] | None]
    # Facts of any of these kinds (other layers are not narrowed).
    kinds: NotRequired[list[FactKind] | None]
    # From this time on: an interaction's occurredAt, an episode's span, a fact's validFrom.
    occurredAfter: NotRequired[str | datetime | None]
    # Before this time.
    occurredBefore: NotRequired[str | datetime | None]
    # Facts valid from this time on (other layers are not narrowed).
    validFromAfter: NotRequired[str | datetime | None]
    # Facts valid from before this time.
    validFromBefore: NotRequired[str | datetime | None]


class RememberInput(TypedDict):
    """One interaction of one user."""

    # What was said (UTF-8, at most the configured size).
    text: str
    # Who said it.
    speaker: NotRequired[str]
    # When it was said (default: now).
    occurredAt: NotRequired[str | datetime | None]
    # The caller's session id.
    sessionId: NotRequired[str | None]
    # The caller's id for it; resending the same one stores nothing new.
    sourceRef: NotRequired[str | None]
    # The agent recording it.
    agentId: NotRequired[str | None]
    # A small map to filter by later: keys of letters, digits, `_`, `.`, `-` (at most 64 bytes); values
    # a string, number, boolean or list of strings (at most 512 bytes); at most 32 keys and 4 KB as JSON
    # (docs/scopes.md#metadata).
    metadata: NotRequired[Any | None]
    # The user (created on first use within the tenant).
    userId: str


class UnitInput(TypedDict):
    """One interaction as an agent sends it."""

    # What was said (UTF-8, at most the configured size).
    text: str
    # Who said it.
    speaker: NotRequired[str]
    # When it was said (default: now).
    occurredAt: NotRequired[str | datetime | None]
    # The caller's session id.
    sessionId: NotRequired[str | None]
    # The caller's id for it; resending the same one stores nothing new.
    sourceRef: NotRequired[str | None]
    # The agent recording it.
    agentId: NotRequired[str | None]
    # A small map to filter by later: keys of letters, digits, `_`, `.`, `-` (at most 64 bytes); values
    # a string, number, boolean or list of strings (at most 512 bytes); at most 32 keys and 4 KB as JSON
    # (docs/scopes.md#metadata).
    metadata: NotRequired[Any | None]


class CorrectFactVariables(TypedDict):
    """The variables of CorrectFact."""

    id: str
    text: str
    reason: str
    sourceInteractionId: NotRequired[str | None]


class RetractFactVariables(TypedDict):
    """The variables of RetractFact."""

    id: str
    reason: str


class AddFactVariables(TypedDict):
    """The variables of AddFact."""

    userId: str
    text: str
    kind: FactKind
    validFrom: NotRequired[str | datetime | None]
    agentId: NotRequired[str | None]
    sessionId: NotRequired[str | None]
    metadata: NotRequired[Any | None]


class ForgetInteractionVariables(TypedDict):
    """The variables of ForgetInteraction."""

    id: str


class ForgetUserVariables(TypedDict):
    """The variables of ForgetUser."""

    id: str


class RecallVariables(TypedDict):
    """The variables of Recall."""

    userId: str
    query: str
    budget: NotRequired[BudgetInput | None]
    asOf: NotRequired[str | datetime | None]
    includeConsolidated: NotRequired[bool | None]
    lexical: NotRequired[bool]
    filter: NotRequired[RecallFilter | None]
    minScore: NotRequired[float | None]
    askedAt: NotRequired[str | datetime | None]


class AnswerVariables(TypedDict):
    """The variables of Answer."""

    userId: str
    question: str
    budget: NotRequired[BudgetInput | None]
    asOf: NotRequired[str | datetime | None]
    filter: NotRequired[RecallFilter | None]
    minScore: NotRequired[float | None]
    askedAt: NotRequired[str | datetime | None]


class StatsVariables(TypedDict):
    """The variables of Stats."""

    userId: str
    filter: NotRequired[RecallFilter | None]


class AuditVariables(TypedDict):
    """The variables of Audit."""

    id: str


class RememberVariables(TypedDict):
    """The variables of Remember."""

    input: RememberInput
    consolidate: NotRequired[bool | None]


class RememberBatchVariables(TypedDict):
    """The variables of RememberBatch."""

    userId: str
    units: list[UnitInput]
    consolidate: NotRequired[bool | None]


class ConsolidateVariables(TypedDict):
    """The variables of Consolidate."""

    userId: str


CORRECT_FACT: Document[CorrectFactVariables, BeliefChanged] = Document(
    name="CorrectFact",
    mutation=True,
    path=("correctFact",),
    result=BeliefChanged,
    text="""mutation CorrectFact($id: ID!, $text: String!, $reason: String!, $sourceInteractionId: ID) {
  correctFact(id: $id, text: $text, reason: $reason, sourceInteractionId: $sourceInteractionId) {
    ...BeliefChanged
  }
}
fragment BeliefChanged on BeliefPayload {
  written
  fact { ...Fact }
  changedFact { ...Fact }
  run { ...ConsolidationRun }
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }
fragment ConsolidationRun on ConsolidationRun {
  id userId op trigger provider model status promptTokens completionTokens latencyMs
  neighborCount threshold at error reason by
}""",
)


RETRACT_FACT: Document[RetractFactVariables, BeliefChanged] = Document(
    name="RetractFact",
    mutation=True,
    path=("retractFact",),
    result=BeliefChanged,
    text="""mutation RetractFact($id: ID!, $reason: String!) {
  retractFact(id: $id, reason: $reason) { ...BeliefChanged }
}
fragment BeliefChanged on BeliefPayload {
  written
  fact { ...Fact }
  changedFact { ...Fact }
  run { ...ConsolidationRun }
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }
fragment ConsolidationRun on ConsolidationRun {
  id userId op trigger provider model status promptTokens completionTokens latencyMs
  neighborCount threshold at error reason by
}""",
)


ADD_FACT: Document[AddFactVariables, BeliefChanged] = Document(
    name="AddFact",
    mutation=True,
    path=("addFact",),
    result=BeliefChanged,
    text="""mutation AddFact(
  $userId: ID!
  $text: String!
  $kind: FactKind!
  $validFrom: DateTime
  $agentId: String
  $sessionId: String
  $metadata: JSON
) {
  addFact(
    userId: $userId
    text: $text
    kind: $kind
    validFrom: $validFrom
    agentId: $agentId
    sessionId: $sessionId
    metadata: $metadata
  ) { ...BeliefChanged }
}
fragment BeliefChanged on BeliefPayload {
  written
  fact { ...Fact }
  changedFact { ...Fact }
  run { ...ConsolidationRun }
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }
fragment ConsolidationRun on ConsolidationRun {
  id userId op trigger provider model status promptTokens completionTokens latencyMs
  neighborCount threshold at error reason by
}""",
)


FORGET_INTERACTION: Document[ForgetInteractionVariables, InteractionForgotten] = Document(
    name="ForgetInteraction",
    mutation=True,
    path=("forgetInteraction",),
    result=InteractionForgotten,
    text="""mutation ForgetInteraction($id: ID!) { forgetInteraction(id: $id) { ...InteractionForgotten } }
fragment InteractionForgotten on ForgetInteractionPayload {
  interactionIds episodeIds factIds runIds rebuiltEpisodeIds rebuiltFactIds restoredFactIds
  recordRunId
}""",
)


FORGET_USER: Document[ForgetUserVariables, UserForgotten] = Document(
    name="ForgetUser",
    mutation=True,
    path=("forgetUser",),
    result=UserForgotten,
    text="""mutation ForgetUser($id: ID!) { forgetUser(id: $id) { ...UserForgotten } }
fragment UserForgotten on ForgetUserPayload { userId interactions episodes facts runs }""",
)


RECALL: Document[RecallVariables, Recall] = Document(
    name="Recall",
    mutation=False,
    path=("recall",),
    result=Recall,
    text="""query Recall($userId: ID!, $query: String!, $budget: BudgetInput, $asOf: DateTime,
  $includeConsolidated: Boolean, $lexical: Boolean! = true, $filter: RecallFilter, $minScore: Float,
  $askedAt: DateTime) {
  recall(userId: $userId, query: $query, budget: $budget, asOf: $asOf,
    includeConsolidated: $includeConsolidated, lexical: $lexical, filter: $filter, minScore: $minScore,
    askedAt: $askedAt) {
    ...Recall
  }
}
fragment Recall on Recall {
  query asOf
  subconscious { score interaction { ...Interaction } }
  episodic { score episode { ...Episode } sourceIds }
  semantic { score fact { ...Fact } sourceIds }
  context { text tokens budget nothingRelevant items { layer id line tokens score rankScore sourceIds } }
  plan {
    source fallback notes llmCalls promptTokens completionTokens
    askedAt window { start end text } order kind entities unresolved
  }
  withdrawn { ...Fact }
}
fragment Interaction on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef agentId metadata
}
fragment Episode on Episode {
  id userId title summary version current firstAt lastAt validFrom supersededAt createdAt agentIds
  sessionIds
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }""",
)


ANSWER: Document[AnswerVariables, Answer] = Document(
    name="Answer",
    mutation=False,
    path=("answer",),
    result=Answer,
    text="""query Answer($userId: ID!, $question: String!, $budget: BudgetInput, $asOf: DateTime,
  $filter: RecallFilter, $minScore: Float, $askedAt: DateTime) {
  answer(userId: $userId, question: $question, budget: $budget, asOf: $asOf, filter: $filter,
    minScore: $minScore, askedAt: $askedAt) {
    text usedIds recall { ...Recall } runId promptTokens completionTokens
  }
}
fragment Recall on Recall {
  query asOf
  subconscious { score interaction { ...Interaction } }
  episodic { score episode { ...Episode } sourceIds }
  semantic { score fact { ...Fact } sourceIds }
  context { text tokens budget nothingRelevant items { layer id line tokens score rankScore sourceIds } }
  plan {
    source fallback notes llmCalls promptTokens completionTokens
    askedAt window { start end text } order kind entities unresolved
  }
  withdrawn { ...Fact }
}
fragment Interaction on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef agentId metadata
}
fragment Episode on Episode {
  id userId title summary version current firstAt lastAt validFrom supersededAt createdAt agentIds
  sessionIds
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }""",
)


STATS: Document[StatsVariables, UserStats] = Document(
    name="Stats",
    mutation=False,
    path=("user", "stats"),
    result=UserStats,
    text="""query Stats($userId: ID!, $filter: RecallFilter) {
  user(id: $userId) {
    stats(filter: $filter) {
      interactions consolidated pending episodes episodeVersions activeFacts supersededFacts
      retractedFacts runs promptTokens completionTokens
    }
  }
}""",
)


AUDIT: Document[AuditVariables, FactAudit] = Document(
    name="Audit",
    mutation=False,
    path=("fact", "audit"),
    result=FactAudit,
    text="""query Audit($id: ID!) {
  fact(id: $id) {
    audit {
      fact { ...Fact }
      episodes { episode { ...Episode } sources { interaction { ...Interaction } similarity } }
      interactions { ...Interaction }
      supersedes { ...FactChange }
      supersededBy { ...FactChange }
      runs { ...ConsolidationRun }
      corrections { ...ConsolidationRun }
      promptTokens completionTokens
    }
  }
}
fragment Fact on Fact { id userId text kind status validFrom validTo createdAt agentIds sessionIds }
fragment Episode on Episode {
  id userId title summary version current firstAt lastAt validFrom supersededAt createdAt agentIds
  sessionIds
}
fragment Interaction on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef agentId metadata
}
fragment FactChange on FactChange { fact { ...Fact } reason at }
fragment ConsolidationRun on ConsolidationRun {
  id userId op trigger provider model status promptTokens completionTokens latencyMs
  neighborCount threshold at error reason by
}""",
)


REMEMBER: Document[RememberVariables, Remembered] = Document(
    name="Remember",
    mutation=True,
    path=("remember",),
    result=Remembered,
    text="""mutation Remember($input: RememberInput!, $consolidate: Boolean) {
  remember(input: $input, consolidate: $consolidate) { ...Remembered }
}
fragment Remembered on RememberPayload {
  interactionId created seq
  consolidation { ...ConsolidationEvent }
  interaction { ...Interaction }
}
fragment ConsolidationEvent on ConsolidationEvent {
  userId triggerId action episodeId previousEpisodeId factIds supersededFactIds consolidatedIds
  llmCalls error
}
fragment Interaction on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef agentId metadata
}""",
)


REMEMBER_BATCH: Document[RememberBatchVariables, list[Remembered]] = Document(
    name="RememberBatch",
    mutation=True,
    path=("rememberBatch",),
    result=list[Remembered],
    text="""mutation RememberBatch($userId: ID!, $units: [UnitInput!]!, $consolidate: Boolean) {
  rememberBatch(userId: $userId, units: $units, consolidate: $consolidate) { ...Remembered }
}
fragment Remembered on RememberPayload {
  interactionId created seq
  consolidation { ...ConsolidationEvent }
  interaction { ...Interaction }
}
fragment ConsolidationEvent on ConsolidationEvent {
  userId triggerId action episodeId previousEpisodeId factIds supersededFactIds consolidatedIds
  llmCalls error
}
fragment Interaction on Interaction {
  id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef agentId metadata
}""",
)


CONSOLIDATE: Document[ConsolidateVariables, list[ConsolidationEvent]] = Document(
    name="Consolidate",
    mutation=True,
    path=("consolidate",),
    result=list[ConsolidationEvent],
    text="""mutation Consolidate($userId: ID!) { consolidate(userId: $userId) { ...ConsolidationEvent } }
fragment ConsolidationEvent on ConsolidationEvent {
  userId triggerId action episodeId previousEpisodeId factIds supersededFactIds consolidatedIds
  llmCalls error
}""",
)
