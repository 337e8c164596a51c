"""What the MCP tools return: their structured results, whose JSON schemas the SDK publishes as
each tool's output schema (so a field's description is part of the protocol). A model whose
fields bear the names of a record's attributes is filled from it (api/mcp/rendering.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

# Said of the withdrawn beliefs a recall and an answer list.
WITHDRAWN = (
    "Beliefs a person retracted or corrected that rest on the context's items, which may still say "
    "them: do not state them as true (at most 10, most recently withdrawn first)."
)


class ConsolidationSummary(BaseModel):
    action: str = Field(description="none, created (a new episode), merged (into an episode) or deferred.")
    episode_id: str | None = Field(description="The episode version created or merged into.")
    fact_ids: list[str] = Field(description="Facts derived by this consolidation.")
    superseded_fact_ids: list[str] = Field(description="Facts the new ones replaced.")
    error: str | None = Field(description="Why it was deferred (the interaction stays pending).")


class Remembered(BaseModel):
    interaction_id: str = Field(description="The stored interaction (int_...).")
    created: bool = Field(description="False when the source_ref was known already: nothing new was stored.")
    seq: int = Field(description="Its position in the user's stream.")
    consolidation: ConsolidationSummary | None = Field(
        description="What consolidation did with it; null when it runs in the background (the default)."
    )


class ContextItem(BaseModel):
    layer: str = Field(description="subconscious (a raw turn), episodic (an episode) or semantic (a fact).")
    id: str = Field(description="The interaction, episode version or fact the line shows.")
    tokens: int = Field(description="o200k tokens its line costs.")
    score: float = Field(description="Cosine similarity to the query (0 when found by words only).")
    source_ids: list[str] = Field(description="The interactions it rests on (itself, for a turn).")


class LayerHit(BaseModel):
    id: str = Field(description="The interaction, episode version or fact.")
    text: str = Field(description="Its text (an episode's summary).")
    score: float = Field(description="Cosine similarity to the query (0 when found by words only).")
    at: datetime | None = Field(
        description="When it was said (a turn: in the offset it was said in) or holds from (UTC)."
    )
    source_ids: list[str] = Field(description="The interactions it rests on.")


class LayerHits(BaseModel):
    subconscious: list[LayerHit] = Field(description="Raw interactions (at most 10).")
    episodic: list[LayerHit] = Field(description="Episodes (at most 5).")
    semantic: list[LayerHit] = Field(description="Facts (at most 10).")


class PlanWindow(BaseModel):
    start: datetime = Field(description="Its first instant (UTC).")
    end: datetime = Field(description="The instant after its last (UTC).")
    text: str = Field(description="The words it was read from.")


class Plan(BaseModel):
    source: str = Field(default="rules", description="rules, or llm (RECMEM_PLANNER=llm).")
    fallback: str | None = Field(
        default=None,
        description="With the LLM planner: why the rule plan was used instead (llm timeout, ...).",
    )
    notes: list[str] = Field(default_factory=list, description="What was dropped from the LLM's reading.")
    llm_calls: int = Field(default=0, description="HTTP calls the planner made (0 for the rules).")
    prompt_tokens: int = Field(default=0, description="Prompt tokens of the planner's LLM call (0: rules).")
    completion_tokens: int = Field(default=0, description="Completion tokens of that call.")
    asked_at: datetime = Field(description="When the question was asked; relative dates resolve against it.")
    window: PlanWindow | None = Field(
        description="The time window the query names; items inside rank higher."
    )
    order: str | None = Field(description="latest or earliest: those statements on the topic first.")
    kind: str = Field(description="lookup, aggregate (searched wider) or duration.")
    entities: list[str] = Field(description="Names the query mentions.")
    unresolved: list[str] = Field(description="Times it names that could not be dated.")


class Recalled(BaseModel):
    context: str = Field(
        description="Facts, then episodes, then turns, each under a header: ready for a prompt."
    )
    tokens: int = Field(description="o200k tokens of `context` (at most the budget).")
    budget: int = Field(description="The token budget asked for.")
    items: list[ContextItem] = Field(description="Provenance of the context's lines, in their order.")
    nothing_relevant: bool = Field(
        description="No candidate reached the relevance floor (with the server's rule on: an empty context)."
    )
    layers: LayerHits | None = Field(description="The best hits of each layer, when asked for.")
    plan: Plan | None = Field(
        default=None,
        description="What the planner read from the query (no LLM call unless RECMEM_PLANNER=llm).",
    )
    withdrawn: list[FactView] = Field(default_factory=list, description=WITHDRAWN)


class Evidence(BaseModel):
    layer: str = Field(description="subconscious, episodic or semantic.")
    id: str = Field(description="The memory item.")
    text: str = Field(description="Its text.")
    at: datetime | None = Field(
        description="When it was said (a turn: in the offset it was said in) or holds from (UTC)."
    )
    source_ids: list[str] = Field(description="The interactions it rests on.")


class Answered(BaseModel):
    answer: str = Field(description="The answer, from memory only.")
    evidence: list[Evidence] = Field(description="The memory items the answer rests on.")
    run_id: str | None = Field(description="The ConsolidationRun recording this answer's cost.")
    prompt_tokens: int = Field(description="Prompt tokens spent.")
    completion_tokens: int = Field(description="Completion tokens spent.")
    withdrawn: list[FactView] = Field(default_factory=list, description=WITHDRAWN)


class InteractionView(BaseModel):
    id: str
    speaker: str
    text: str
    occurred_at: datetime = Field(
        description="When it was said, in the offset it was said in (UTC for a turn stored before "
        "offsets were kept), as GraphQL's occurredAt."
    )
    session_id: str | None
    agent_id: str | None = None
    metadata: dict[str, Any] | None = None


class EpisodeSource(BaseModel):
    interaction: InteractionView
    similarity: float | None = Field(description="Cosine similarity to the turn that triggered it.")


class AuditedEpisode(BaseModel):
    id: str
    title: str
    summary: str
    version: int = Field(description="1 for a new episode, +1 per merge.")
    current: bool
    valid_from: datetime
    sources: list[EpisodeSource] = Field(description="The interactions it was made from.")


class FactView(BaseModel):
    id: str
    user_id: str
    text: str
    kind: str = Field(description="preference, attribute, event, plan, relation or other.")
    status: str = Field(description="active, superseded or retracted.")
    valid_from: datetime
    valid_to: datetime | None = Field(description="When it stopped holding (null: it holds).")
    created_at: datetime


class FactChange(BaseModel):
    fact: FactView = Field(description="The fact on the other end of the SUPERSEDES edge.")
    reason: str | None = Field(description="Why the newer fact replaced the older one.")
    at: datetime | None = Field(description="Valid time of the replacement.")


class RunView(BaseModel):
    id: str
    op: str = Field(
        description=(
            "create_episode, merge_episode, refine_facts or answer; a person's change: correct_fact, "
            "retract_fact, add_fact or forget_interaction; an upgrade's repair: reorder_replacements."
        )
    )
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    at: datetime
    trigger: str = Field(
        description=(
            "What started it: an interaction id, forget, correction, retraction, manual, erasure, upgrade."
        )
    )
    reason: str | None = Field(
        default=None, description="Why a person made the change (null for a model's run)."
    )
    by: str | None = Field(default=None, description="Who made the change: the API key's name and id.")


class FactAudit(BaseModel):
    fact: FactView
    episodes: list[AuditedEpisode] = Field(
        description="DERIVED_FROM: the episode versions, with their sources."
    )
    interactions: list[InteractionView] = Field(description="DERIVED_FROM: the exact turns that state it.")
    supersedes: list[FactChange] = Field(description="Facts it replaced.")
    superseded_by: list[FactChange] = Field(description="Facts that replaced it.")
    runs: list[RunView] = Field(description="The runs (model, tokens) that produced it and its episodes.")
    corrections: list[RunView] = Field(
        description=(
            "The changes people made to it (correction, retraction, manual; erasure: a forget that "
            "restored, rebuilt or re-pointed it; upgrade: a migration that reversed a replacement "
            "written out of time order), with reason and who."
        )
    )


class Forgotten(BaseModel):
    interaction_ids: list[str] = Field(description="Interactions erased.")
    episode_ids: list[str] = Field(description="Episode versions erased (they rested only on it).")
    fact_ids: list[str] = Field(
        description="Facts erased: those only it stated, and those its other turns no longer state."
    )
    run_ids: list[str] = Field(description="Runs erased (everything they produced is gone).")
    rebuilt_episode_ids: list[str] = Field(description="Surviving episode versions rebuilt without it.")
    rebuilt_fact_ids: list[str] = Field(description="Surviving facts restated without it.")
    restored_fact_ids: list[str] = Field(
        description="Facts current again (erased facts had replaced them; nothing surviving replaced those)."
    )
    record_run_id: str | None = Field(
        description=(
            "The person's run recording this forget (op forget_interaction, trigger erasure), in the "
            "corrections of every surviving fact it changed (audit_fact); null when nothing "
            "surviving changed."
        )
    )


class UserStats(BaseModel):
    interactions: int = Field(description="Interactions stored (the subconscious layer).")
    consolidated: int = Field(description="Interactions absorbed into episodes.")
    unconsolidated: int = Field(description="Interactions no episode has absorbed (yet).")
    pending: int = Field(description="Interactions the recurrence gate has not run on yet.")
    episodes: int = Field(description="Episodes, current versions (the episodic layer).")
    episode_versions: int = Field(description="Episode versions, old ones included.")
    active_facts: int = Field(description="Facts in force (the semantic layer).")
    superseded_facts: int = Field(description="Facts replaced by newer ones.")
    retracted_facts: int = Field(description="Facts a person retracted (kept for audit).")
    runs: int = Field(description="Consolidation and answer runs recorded.")
    prompt_tokens: int = Field(description="Prompt tokens spent in total.")
    completion_tokens: int = Field(description="Completion tokens spent in total.")


class ExportPage(BaseModel):
    header: dict[str, Any] = Field(description="The file's header: schema_version, embedder, counts.")
    lines: list[dict[str, Any]] = Field(description="Node and edge lines, as in docs/export.md.")
    next_offset: int | None = Field(description="The offset of the next page; null when this is the last.")
    download_path: str = Field(description="The same file over HTTP: GET this path with the same key.")


class BeliefChanged(BaseModel):
    written: bool = Field(description="True: the change committed, all of it.")
    fact: FactView | None = Field(
        description="The fact it made (correct_fact, add_fact); null for retract_fact."
    )
    changed_fact: FactView | None = Field(
        description="The fact it closed, as it stands now: superseded (correct_fact) or retracted."
    )
    run_id: str = Field(description="The run recording the change: its trigger, reason and who made it.")
    trigger: str = Field(description="correction, retraction or manual.")
    by: str = Field(description="Who made it: the API key's name and id.")
