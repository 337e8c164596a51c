"""The memory graph as GraphQL types: interactions, episode versions, facts and runs.

Relations resolve through the request's DataLoaders, so a query costs one round trip per kind of
relation, not one per node.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import strawberry
from strawberry.dataloader import DataLoader
from strawberry.scalars import JSON

from api.context import Context
from api.loaders import Loaders
from api.schema.decorators import resolver
from api.schema.records import from_record
from api.schema.scalars import AsSaid
from graph import models
from graph.models import Provenance, Replacement
from graph.scopes import AGENT, SESSION, scoped_ids
from graph.vocabulary import FACT_KINDS, FactKind, FactStatus

Info = strawberry.Info[Context, None]
ID = strawberry.ID
M = TypeVar("M")
N = TypeVar("N", covariant=True)


# The vocabulary's enums as GraphQL enums (graph/vocabulary.py): values named by their members.
strawberry.enum(FactStatus, description="Where a fact stands in time.")
strawberry.enum(FactKind, description="What kind of statement a fact is.")


@strawberry.interface(description="Any memory node; its id is globally unique and typed by its prefix.")
class Node:
    id: ID = strawberry.field(description="Globally unique id (int_, epi_, fact_ or run_ prefix).")


@strawberry.type(description="One unit of conversation, stored as sent (the subconscious layer).")
class Interaction(Node):
    user_id: ID = strawberry.field(description="The user (within the caller's tenant).")
    session_id: str | None = strawberry.field(description="The caller's session or conversation id.")
    speaker: str = strawberry.field(description="Who said it.")
    text: str = strawberry.field(description="What was said.")
    occurred_at: datetime = strawberry.field(
        description=(
            "When it was said, in the offset the caller gave (UTC for a turn stored before "
            "offsets were kept)."
        )
    )
    seq: int = strawberry.field(description="Position in the user's stream (1, 2, ...).")
    consolidated: bool = strawberry.field(description="Whether an episode has absorbed it.")
    consolidated_at: datetime | None = strawberry.field(description="Valid time of its consolidation.")
    source_ref: str | None = strawberry.field(description="The caller's own id for it (idempotency key).")
    agent_id: str | None = strawberry.field(description="The agent that recorded it, if the caller said.")
    metadata: JSON | None = strawberry.field(
        description="The caller's metadata map (string keys; string, number, boolean or string-list values)."
    )
    # Whether the gate has yet to run on it, when the read that produced it fetched that.
    known_pending: strawberry.Private[bool | None] = None

    @staticmethod
    def of(m: models.Interaction) -> Interaction:
        return from_record(
            Interaction, m, occurred_at=AsSaid.of(m.local_occurred_at), known_pending=m.pending
        )

    @resolver(
        description=(
            "Whether the recurrence gate has not run on it yet (it waits for consolidation, as the "
            "backlog counts it)."
        )
    )
    async def pending(self, info: Info) -> bool:
        if self.known_pending is not None:
            return self.known_pending
        if self.consolidated:
            return False  # consolidation marks what it absorbs as checked
        # Reads that skip the flag (recall hits, fresh writes): one batched lookup for all of them.
        found = await info.context.loaders.interactions.load(self.id)
        return bool(found is not None and found.pending)

    @resolver(description="Episode versions made (in part) from this interaction.")
    async def derived_episodes(self, info: Info) -> list[Episode]:
        derived = await info.context.loaders.interaction_derived.load(self.id)
        return [Episode.of(e) for e in derived.episodes]

    @resolver(description="Facts this interaction states (in part).")
    async def derived_facts(self, info: Info) -> list[Fact]:
        derived = await info.context.loaders.interaction_derived.load(self.id)
        return [Fact.of(f) for f in derived.facts]


@strawberry.type(description="An interaction an episode was made from, with its recurrence similarity.")
class EpisodeSource:
    interaction: Interaction = strawberry.field(description="The source interaction.")
    similarity: float | None = strawberry.field(
        description="Cosine similarity to the turn that triggered consolidation (1 for that turn)."
    )


@strawberry.type(description="One version of a time-anchored narrative of a recurring topic.")
class Episode(Node):
    user_id: ID = strawberry.field(description="The user (within the caller's tenant).")
    title: str = strawberry.field(description="A short label for the topic.")
    summary: str = strawberry.field(description="The narrative, with absolute dates.")
    version: int = strawberry.field(description="1 for a new episode; +1 per merge.")
    current: bool = strawberry.field(description="Whether this is the newest version.")
    first_at: datetime = strawberry.field(description="Time of the earliest source interaction.")
    last_at: datetime = strawberry.field(description="Time of the latest source interaction.")
    valid_from: datetime = strawberry.field(description="Valid time this version starts.")
    superseded_at: datetime | None = strawberry.field(description="Valid time a newer version replaced it.")
    created_at: datetime = strawberry.field(description="When memory wrote this version.")
    scopes: strawberry.Private[list[str] | None] = None
    # Read as of this instant (models.Episode.at): versions written after it are not known yet.
    as_of: strawberry.Private[datetime | None] = None

    @staticmethod
    def of(m: models.Episode) -> Episode:
        return from_record(Episode, m)

    @resolver(description="The agents of its source interactions (docs/scopes.md).")
    def agent_ids(self) -> list[str]:
        return scoped_ids(self.scopes, AGENT)

    @resolver(description="The sessions of its source interactions (docs/scopes.md).")
    def session_ids(self) -> list[str]:
        return scoped_ids(self.scopes, SESSION)

    @resolver(description="The interactions this version was made from, in stream order.")
    async def sources(self, info: Info) -> list[EpisodeSource]:
        pairs = await info.context.loaders.episode_sources.load(self.id)
        return [EpisodeSource(interaction=Interaction.of(i), similarity=s) for i, s in pairs]

    @resolver(description="Facts refined from this version.")
    async def facts(self, info: Info) -> list[Fact]:
        return [Fact.of(f) for f in await info.context.loaders.episode_facts.load(self.id)]

    @resolver(description="Every version of this episode, newest first.")
    async def versions(self, info: Info) -> list[Episode]:
        return [Episode.of(e) for e in await info.context.loaders.episode_versions.load(self.id)]

    @resolver(description="The version this one replaced, if any.")
    async def supersedes(self, info: Info) -> Episode | None:
        chain = await info.context.loaders.episode_versions.load(self.id)
        index = next((i for i, e in enumerate(chain) if e.id == self.id), None)
        return Episode.of(chain[index + 1]) if index is not None and index + 1 < len(chain) else None

    @resolver(
        description="The version that replaced this one, if any (as of `asOf`, if the version was "
        "read as of it)."
    )
    async def superseded_by(self, info: Info) -> Episode | None:
        chain = await info.context.loaders.episode_versions.load(self.id)
        index = next((i for i, e in enumerate(chain) if e.id == self.id), None)
        if not index or (self.as_of is not None and chain[index - 1].valid_from > self.as_of):
            return None
        return Episode.of(chain[index - 1])


@strawberry.type(description="What a fact was derived from.")
class FactSources:
    episodes: list[Episode] = strawberry.field(description="The episode versions it was refined from.")
    interactions: list[Interaction] = strawberry.field(description="The exact turns that state it.")


@strawberry.type(description="A SUPERSEDES edge seen from one fact: the other fact, why and when.")
class FactChange:
    fact: Fact = strawberry.field(description="The fact on the other end.")
    reason: str | None = strawberry.field(description="Why the newer fact replaced the older one.")
    at: datetime | None = strawberry.field(description="Valid time of the replacement.")

    @staticmethod
    def of(r: Replacement) -> FactChange:
        return FactChange(fact=Fact.of(r.fact), reason=r.reason, at=r.at)


@strawberry.type(description="An episode version in a fact's audit, with the interactions it rests on.")
class AuditedEpisode:
    episode: Episode = strawberry.field(description="The episode version the fact was refined from.")
    sources: list[EpisodeSource] = strawberry.field(description="Its source interactions.")


@strawberry.type(description="Why memory believes a fact: its whole provenance chain and its cost.")
class FactAudit:
    fact: Fact = strawberry.field(description="The audited fact.")
    episodes: list[AuditedEpisode] = strawberry.field(description="Episodes -> interactions.")
    interactions: list[Interaction] = strawberry.field(description="The exact turns that state the fact.")
    supersedes: list[FactChange] = strawberry.field(description="Facts it replaced.")
    superseded_by: list[FactChange] = strawberry.field(description="Facts that replaced it.")
    runs: list[ConsolidationRun] = strawberry.field(
        description="The runs (model, tokens) that produced the fact and its episodes."
    )
    corrections: list[ConsolidationRun] = strawberry.field(
        description=(
            "The changes people made to it, oldest first: the correction that replaced it or made it "
            "(trigger correction), its retraction (retraction), its addition by hand (manual), a "
            "forget that restored it, rebuilt it or changed what replaced it (erasure), an upgrade "
            "that reversed a replacement written out of time order (upgrade), each with reason, who "
            "and when."
        )
    )

    @resolver(description="Prompt tokens spent by those runs.")
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.runs)

    @resolver(description="Completion tokens spent by those runs.")
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.runs)

    @staticmethod
    def of(p: Provenance) -> FactAudit:
        return FactAudit(
            fact=Fact.of(p.fact),
            episodes=[
                AuditedEpisode(
                    episode=Episode.of(e.episode),
                    sources=[
                        EpisodeSource(interaction=Interaction.of(i), similarity=s) for i, s in e.sources
                    ],
                )
                for e in p.episodes
            ],
            interactions=[Interaction.of(i) for i in p.interactions],
            supersedes=[FactChange.of(r) for r in p.supersedes],
            superseded_by=[FactChange.of(r) for r in p.superseded_by],
            runs=[ConsolidationRun.of(r) for r in p.runs],
            corrections=[ConsolidationRun.of(r) for r in p.corrections],
        )


@strawberry.type(description="One atomic, self-contained statement with its validity interval.")
class Fact(Node):
    user_id: ID = strawberry.field(description="The user (within the caller's tenant).")
    text: str = strawberry.field(description="The statement.")
    kind: FactKind = strawberry.field(description="What kind of statement it is.")
    status: FactStatus = strawberry.field(description="Active, superseded or retracted.")
    valid_from: datetime = strawberry.field(description="Valid time it starts to hold.")
    valid_to: datetime | None = strawberry.field(description="Valid time it stopped holding (null: holds).")
    created_at: datetime = strawberry.field(description="When memory wrote it.")
    scopes: strawberry.Private[list[str] | None] = None
    # Read as of this instant (models.Fact.at): replacements made after it are not known yet.
    as_of: strawberry.Private[datetime | None] = None

    @staticmethod
    def of(m: models.Fact) -> Fact:
        kind = FactKind(m.kind if m.kind in FACT_KINDS else "other")
        return from_record(Fact, m, kind=kind, status=FactStatus(m.status))

    @resolver(description="The agents of the interactions it rests on (docs/scopes.md).")
    def agent_ids(self) -> list[str]:
        return scoped_ids(self.scopes, AGENT)

    @resolver(description="The sessions of the interactions it rests on (docs/scopes.md).")
    def session_ids(self) -> list[str]:
        return scoped_ids(self.scopes, SESSION)

    @resolver(description="The episode versions and exact interactions it was derived from.")
    async def derived_from(self, info: Info) -> FactSources:
        found = await info.context.loaders.fact_sources.load(self.id)
        return FactSources(
            episodes=[Episode.of(e) for e in found.episodes],
            interactions=[Interaction.of(i) for i in found.interactions],
        )

    @resolver(description="Facts this one replaced (as of `asOf`, if the fact was read as of it).")
    async def supersedes(self, info: Info) -> list[FactChange]:
        links = await info.context.loaders.fact_links.load(self.id)
        return [FactChange.of(r) for r in links.supersedes if self._known(r)]

    @resolver(description="Facts that replaced this one (as of `asOf`, if the fact was read as of it).")
    async def superseded_by(self, info: Info) -> list[FactChange]:
        links = await info.context.loaders.fact_links.load(self.id)
        return [FactChange.of(r) for r in links.superseded_by if self._known(r)]

    def _known(self, change: Replacement) -> bool:
        return self.as_of is None or change.at is None or change.at <= self.as_of

    @resolver(description="The whole supersession chain through this fact, oldest first.")
    async def history(self, info: Info) -> list[Fact]:
        return [Fact.of(f) for f in await info.context.loaders.fact_history.load(self.id)]

    @resolver(description="Fact -> episodes -> interactions, the facts around it, and the runs.")
    async def audit(self, info: Info) -> FactAudit:
        context = info.context
        provenance = await context.services.audit.audit(context.owner(self.user_id), self.id)
        # What the audit already holds need not be fetched again by nested fields.
        context.loaders.prime_episodes([e.episode for e in provenance.episodes])
        context.loaders.prime_interactions(provenance.interactions)
        return FactAudit.of(provenance)


@strawberry.type(description="One LLM (or offline) operation, recorded for audit and cost.")
class ConsolidationRun(Node):
    user_id: ID = strawberry.field(description="The user (within the caller's tenant).")
    op: str = strawberry.field(
        description=(
            "create_episode, merge_episode, refine_facts or answer; a person's change: correct_fact, "
            "retract_fact, add_fact or forget_interaction; an upgrade's repair: reorder_replacements."
        )
    )
    trigger: str = strawberry.field(
        description=(
            "What started it: an interaction id, question or forget (a forget's rebuild); a person's "
            "change: correction, retraction, manual or erasure (a forget); upgrade (a repair of older "
            "data by migration)."
        )
    )
    provider: str = strawberry.field(
        description="The consolidator: openai-compatible or offline; person or system for a change."
    )
    model: str = strawberry.field(description="The model id.")
    status: str = strawberry.field(description="ok, or the failure class.")
    prompt_tokens: int = strawberry.field(description="Prompt tokens as the endpoint reported them.")
    completion_tokens: int = strawberry.field(description="Completion tokens as reported.")
    latency_ms: float = strawberry.field(description="Wall time of the call.")
    neighbor_count: int = strawberry.field(description="How many interactions or items it read.")
    threshold: float | None = strawberry.field(description="The similarity threshold in force, if any.")
    at: datetime = strawberry.field(description="When it ran.")
    error: str | None = strawberry.field(description="The error class when it failed.")
    reason: str | None = strawberry.field(
        description=(
            "Why a person made the change (a correction or retraction), or what an upgrade's repair "
            "changed; null for a model's run."
        )
    )
    by: str | None = strawberry.field(
        description=(
            "Who made the change: the API key's name and id, or recmem upgrade; null for a model's run."
        )
    )
    triggered_by: str | None = strawberry.field(
        description="What opened the gate for an episode and its facts: recurrence or salience."
    )
    rule: str | None = strawberry.field(
        description="The salience rule or prototype that fired, if salience did."
    )

    @staticmethod
    def of(m: models.ConsolidationRun) -> ConsolidationRun:
        return from_record(ConsolidationRun, m, trigger=m.trigger or "")

    @resolver(description="The memory nodes it read.")
    async def read(self, info: Info) -> list[Node]:
        return await load_nodes(info, (await info.context.loaders.run_links.load(self.id)).read)

    @resolver(description="The memory nodes it produced.")
    async def produced(self, info: Info) -> list[Node]:
        return await load_nodes(info, (await info.context.loaders.run_links.load(self.id)).produced)


@dataclass(frozen=True)
class NodeKind(Generic[M, N]):
    """One kind of memory node: its name in errors, its id prefix, its loader and its type."""

    name: str
    prefix: str
    loader: Callable[[Loaders], DataLoader[str, M | None]]
    of: Callable[[M], N]
    type: type[N]

    async def load(self, info: Info, node_id: str) -> N | None:
        found = await self.loader(info.context.loaders).load(node_id)
        return self.of(found) if found is not None else None


INTERACTIONS = NodeKind(
    "interaction", "int", lambda loaders: loaders.interactions, Interaction.of, Interaction
)
EPISODES = NodeKind("episode", "epi", lambda loaders: loaders.episodes, Episode.of, Episode)
FACTS = NodeKind("fact", "fact", lambda loaders: loaders.facts, Fact.of, Fact)
RUNS = NodeKind(
    "consolidation run", "run", lambda loaders: loaders.runs, ConsolidationRun.of, ConsolidationRun
)
_BY_PREFIX: dict[str, NodeKind[Any, Node]] = {k.prefix: k for k in (INTERACTIONS, EPISODES, FACTS, RUNS)}


async def load_node(info: Info, node_id: str) -> Node | None:
    """Any memory node by id, dispatched on its prefix; None for unknown or foreign ids."""
    kind = _BY_PREFIX.get(node_id.split("_", 1)[0])
    return await kind.load(info, node_id) if kind is not None else None


async def load_nodes(info: Info, ids: list[str]) -> list[Node]:
    # Gathered, so the loaders see every id before dispatching: one batch per label.
    found = await asyncio.gather(*(load_node(info, node_id) for node_id in ids))
    return [node for node in found if node is not None]
