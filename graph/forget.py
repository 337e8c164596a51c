"""Erasing memory on request: one interaction and what rests only on it, or a whole user.

Forgetting an interaction is planned first (`plan`), then the caller prepares rewritten texts for
the episode versions and facts that survive (an LLM or offline call, outside any transaction), and
`erase_interaction` applies everything in one transaction, only while the caller still holds the
user's consolidation lease. So either all of it happens or none of it does, and no consolidation
can interleave.

Nodes in a quantized vector index are emptied in place rather than deleted (a Neo4j 2026.08 bug
breaks such an index when certain nodes leave it; see cypher/queries/forget/tombstone_nodes.cypher).
Either way no property or edge of the erased node survives.

A fact a person stated (a correction or an addition, whose producing run has the person provider)
rests on that recorded change, not on the turn it cites: forgetting the turn keeps it as it is,
derived from its run (docs/corrections.md#forgetting-a-cited-turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from neo4j import AsyncManagedTransaction

# The commit's own run writer: rebuild calls are accounted exactly like consolidation calls.
from graph.commit_steps import check_run_links, record_runs, require_lease
from graph.database import Database, run
from graph.errors import InvalidInput, NotFound
from graph.lexical import LAYER_STATISTICS, length
from graph.models import EpisodeContent, FactContent, Owner, RunWrite
from graph.records import decoder
from graph.validation import require_text, require_vector
from graph.vocabulary import MAX_FACT_BYTES, MAX_SUMMARY_BYTES, PERSON_PROVIDER


@dataclass(frozen=True, slots=True)
class UserForgotten:
    """What forgetting a user removed (the SDL's ForgetUserPayload): counts of erased nodes."""

    user_id: str
    interactions: int
    episodes: int
    facts: int
    runs: int


@dataclass(frozen=True)
class EpisodeTouch:
    """An episode version derived (among others) from the interaction being forgotten."""

    id: str
    version: int
    remaining: list[str]
    previous_id: str | None
    previous_sources: list[str]

    @property
    def erased(self) -> bool:
        """True when the version exists only because of the forgotten interaction: it rests on
        nothing else, or it is a merge whose only new turn was that interaction."""
        if self.previous_id is None:
            return not self.remaining
        return set(self.remaining) <= set(self.previous_sources)


@dataclass(frozen=True)
class FactTouch:
    """A fact stated (among others) by the interaction being forgotten."""

    id: str
    remaining: list[str]
    episode_ids: list[str]
    embedding: list[float]
    # A person stated it: it rests on the recorded change, so it is neither erased nor rebuilt.
    stated: bool

    @property
    def erased(self) -> bool:
        # The turns that state a fact are its evidence; without any, the fact goes.
        return not self.remaining and not self.stated


@dataclass(frozen=True)
class InteractionPlan:
    interaction_id: str
    episodes: list[EpisodeTouch]
    facts: list[FactTouch]

    @property
    def erased_episodes(self) -> list[EpisodeTouch]:
        return [e for e in self.episodes if e.erased]

    @property
    def kept_episodes(self) -> list[EpisodeTouch]:
        """Versions that survive and get their summary rebuilt from their other interactions."""
        return [e for e in self.episodes if not e.erased]

    @property
    def erased_facts(self) -> list[FactTouch]:
        return [f for f in self.facts if f.erased]

    @property
    def kept_facts(self) -> list[FactTouch]:
        """Facts restated from their other interactions (or erased if those no longer state them)."""
        return [f for f in self.facts if not f.erased and not f.stated]

    @property
    def stated_facts(self) -> list[FactTouch]:
        """Facts a person stated: kept as they are, derived from their run once nothing else is left."""
        return [f for f in self.facts if f.stated]


@dataclass(frozen=True)
class EpisodeRewrite(EpisodeContent):
    """A surviving episode version's summary, rebuilt from its other interactions."""


@dataclass(frozen=True)
class FactRewrite(FactContent):
    """A surviving fact, restated from its other interactions."""


@dataclass(frozen=True)
class InteractionErasure:
    """Everything one forget changes, prepared before the transaction that applies it."""

    interaction_id: str
    lease_holder: str
    # The person's run that records the forget; written, reading every surviving fact and episode
    # the forget changed, only when there is one (docs/corrections.md#the-record-of-a-forget).
    record: RunWrite
    episode_ids: list[str] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)
    stated_fact_ids: list[str] = field(default_factory=list)
    episode_rewrites: list[EpisodeRewrite] = field(default_factory=list)
    fact_rewrites: list[FactRewrite] = field(default_factory=list)
    runs: list[RunWrite] = field(default_factory=list)


@dataclass(frozen=True)
class Forgotten:
    """What forgetting one interaction removed, rebuilt and restored."""

    interaction_ids: list[str]
    episode_ids: list[str]
    fact_ids: list[str]
    run_ids: list[str]
    rebuilt_episode_ids: list[str]
    rebuilt_fact_ids: list[str]
    restored_fact_ids: list[str]
    # The person's run that records the forget, in the audit of every surviving belief it changed;
    # None when nothing surviving changed and no run was written.
    record_run_id: str | None


# The plan's lists decode their items with the touches' decoders (graph/records.py: nesting).
_episode_touch_from = decoder(EpisodeTouch)
_fact_touch_from = decoder(FactTouch, embedding=lambda data: list(data["embedding"] or []))
_plan_from = decoder(InteractionPlan, interaction_id=lambda data: data["id"])

# What forgetting a user erases, in the order erase_user removes it.
# InteractionPart: a long interaction's parts (consolidation/writing/parts.py), erased with it.
USER_LABELS = ("ConsolidationRun", "Fact", "Episode", "InteractionPart", "Interaction")


class ForgetStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension
        self._quantized: set[str] | None = None

    async def plan(self, owner: Owner, interaction_id: str) -> InteractionPlan:
        rows = await self.db.read(
            "queries/forget/plan_interaction", **owner.params(), id=interaction_id, person=PERSON_PROVIDER
        )
        if not rows:
            raise NotFound(f"interaction {interaction_id!r} not found")
        return _plan_from(rows[0])

    async def restorable(self, owner: Owner, fact_ids: list[str]) -> list[str]:
        """The facts erasing `fact_ids` would make current again (a read; changes nothing): those
        no surviving fact replaced, directly or through erased facts."""
        if not fact_ids:
            return []
        rows = await self.db.read("queries/forget/restorable_facts", **owner.params(), fact_ids=fact_ids)
        return list(rows[0]["ids"]) if rows else []

    async def user_counts(self, owner: Owner) -> UserForgotten:
        """What erase_user would erase now, counted (a read; changes nothing)."""
        rows = await self.db.read("queries/forget/owned_counts", **owner.params(), labels=list(USER_LABELS))
        counts = {r["label"]: int(r["nodes"]) for r in rows}
        return UserForgotten(
            owner.user_id,
            counts.get("Interaction", 0),
            counts.get("Episode", 0),
            counts.get("Fact", 0),
            counts.get("ConsolidationRun", 0),
        )

    async def erase_interaction(self, owner: Owner, erasure: InteractionErasure) -> Forgotten:
        self._validate(erasure)
        quantized = await self._quantized_labels()

        async def work(tx: AsyncManagedTransaction) -> Forgotten:
            await require_lease(tx, owner, erasure.lease_holder)
            params: dict[str, Any] = owner.params()
            erased_nodes = [erasure.interaction_id, *erasure.episode_ids, *erasure.fact_ids]
            runs = await run(tx, "queries/forget/delete_runs", params | {"node_ids": erased_nodes})
            await run(tx, "queries/forget/delete_events", params | {"node_ids": erased_nodes})
            # Selected by the same statement as the preview's, then set: chains through erased
            # facts are contracted to their survivors, and what only erased facts replaced holds.
            # No fact erased: nothing to select or restore.
            selected = (
                await run(tx, "queries/forget/restorable_facts", params | {"fact_ids": erasure.fact_ids})
                if erasure.fact_ids
                else []
            )
            relinks = selected[0]["relinks"] if selected else []
            if relinks:
                await run(
                    tx,
                    "queries/forget/contract_supersedes",
                    params | {"relinks": relinks, "run_id": erasure.record.id},
                )
            chosen = selected[0]["ids"] if selected else []
            restored = (
                await run(tx, "queries/forget/restore_facts", params | {"ids": chosen}) if chosen else []
            )
            restored_ids = list(restored[0]["ids"]) if restored else []
            derived = await run(
                tx,
                "queries/forget/derived_ids",
                params | {"id": erasure.interaction_id, "person": PERSON_PROVIDER},
            )
            await self._remove(tx, params, "Fact", erasure.fact_ids, quantized)
            mended: list[str] = []
            for episode_id in erasure.episode_ids:
                rows = await run(tx, "queries/forget/mend_episode_chain", params | {"id": episode_id})
                mended += [i for row in rows for i in row["mended"]]
            await self._remove(tx, params, "Episode", erasure.episode_ids, quantized)
            if erasure.episode_ids:
                await run(tx, "queries/forget/release_waiting", params | {"episode_ids": erasure.episode_ids})
            await run(tx, "queries/forget/redact_triggers", params | {"id": erasure.interaction_id})
            if not await run(tx, "queries/forget/relink_stream", params | {"id": erasure.interaction_id}):
                raise NotFound(f"interaction {erasure.interaction_id!r} not found")
            await run(tx, "queries/forget/delete_parts", params | {"id": erasure.interaction_id})
            await self._remove(tx, params, "Interaction", [erasure.interaction_id], quantized)
            if erasure.stated_fact_ids:
                await run(
                    tx,
                    "queries/forget/rederive_stated",
                    params | {"ids": erasure.stated_fact_ids, "person": PERSON_PROVIDER},
                )
            await _rewrite(tx, params, erasure)
            if derived:
                await _rescope(tx, params, erasure, derived[0])
            await record_runs(tx, owner, erasure.runs)
            # An older version of an erased one survives only if not erased itself.
            mended = [i for i in mended if i not in erasure.episode_ids]
            record_run_id = await _record(tx, owner, erasure.record, [*restored_ids, *mended], relinks)
            return Forgotten(
                interaction_ids=[erasure.interaction_id],
                episode_ids=erasure.episode_ids,
                fact_ids=erasure.fact_ids,
                run_ids=list(runs[0]["ids"]) if runs else [],
                rebuilt_episode_ids=[e.id for e in erasure.episode_rewrites],
                rebuilt_fact_ids=[f.id for f in erasure.fact_rewrites],
                restored_fact_ids=restored_ids,
                record_run_id=record_run_id,
            )

        return await self.db.write_transaction(work)

    async def erase_user(self, owner: Owner) -> UserForgotten:
        """Every node of the user, in one transaction that first locks the user node."""
        quantized = await self._quantized_labels()

        async def work(tx: AsyncManagedTransaction) -> UserForgotten:
            params: dict[str, Any] = owner.params()
            if not await run(tx, "queries/forget/lock_user", params):
                raise NotFound(f"user {owner.user_id!r} not found")
            counts = {}
            for label in USER_LABELS:
                ids = (await run(tx, "queries/forget/owned_ids", params | {"label": label}))[0]["ids"]
                counts[label] = await self._remove(tx, params, label, list(ids), quantized)
            await run(tx, "queries/forget/delete_user", params)
            return UserForgotten(
                owner.user_id,
                counts["Interaction"],
                counts["Episode"],
                counts["Fact"],
                counts["ConsolidationRun"],
            )

        return await self.db.write_transaction(work)

    async def _remove(
        self,
        tx: AsyncManagedTransaction,
        params: dict[str, Any],
        label: str,
        ids: list[str],
        quantized: set[str],
    ) -> int:
        """Delete the nodes, or empty them in place where deleting would break a vector index."""
        if not ids:
            return 0
        params = params | {"stat": LAYER_STATISTICS.get(label)}
        if label in quantized:
            neutral = [1.0] + [0.0] * (self.dimension - 1)
            rows = await run(
                tx,
                "queries/forget/tombstone_nodes",
                params | {"label": label, "ids": ids, "neutral": neutral},
            )
        else:
            rows = await run(tx, "queries/forget/delete_nodes", params | {"label": label, "ids": ids})
        return int(rows[0]["erased"]) if rows else 0

    async def _quantized_labels(self) -> set[str]:
        """Labels whose vector index quantizes (read once per store: indexes rarely change)."""
        if self._quantized is None:
            rows = await self.db.read("queries/forget/vector_indexes")
            self._quantized = {
                label
                for row in rows
                if str((row["config"] or {}).get("vector.quantization.type", "NONE")).upper() != "NONE"
                for label in row["labels"] or []
            }
        return self._quantized

    def _validate(self, erasure: InteractionErasure) -> None:
        for episode in erasure.episode_rewrites:
            require_text("rebuilt episode summary", episode.summary, MAX_SUMMARY_BYTES)
            require_vector("rebuilt episode embedding", episode.embedding, self.dimension)
        for fact in erasure.fact_rewrites:
            require_text("rebuilt fact text", fact.text, MAX_FACT_BYTES)
            require_vector("rebuilt fact embedding", fact.embedding, self.dimension)
        check_run_links([*erasure.runs, erasure.record])
        if erasure.record.provider != PERSON_PROVIDER or erasure.record.by is None:
            raise InvalidInput("a forget is recorded as a person's change, with who made it")
        if erasure.record.produced_ids:
            raise InvalidInput("the record of a forget produces nothing")
        rewritten = {e.id for e in erasure.episode_rewrites} | {f.id for f in erasure.fact_rewrites}
        if rewritten & (set(erasure.episode_ids) | set(erasure.fact_ids)):
            raise InvalidInput("a node cannot be both erased and rewritten")
        if set(erasure.stated_fact_ids) & (set(erasure.fact_ids) | rewritten):
            raise InvalidInput("a fact a person stated is kept as it is, neither erased nor rewritten")


async def _rescope(
    tx: AsyncManagedTransaction, params: dict[str, Any], erasure: InteractionErasure, derived: dict[str, Any]
) -> None:
    """The surviving episodes and facts that rested on the erased interaction lose its scopes."""
    episodes = [i for i in derived["episode_ids"] if i not in erasure.episode_ids]
    facts = [i for i in derived["fact_ids"] if i not in erasure.fact_ids]
    if episodes or facts:
        await run(
            tx,
            "queries/forget/rescope",
            params | {"episode_ids": episodes, "fact_ids": facts, "person": PERSON_PROVIDER},
        )


async def _record(
    tx: AsyncManagedTransaction,
    owner: Owner,
    record: RunWrite,
    restored: list[str],
    relinks: list[dict[str, str]],
) -> str | None:
    """The person's run, reading what the forget rebuilt, restored (facts, and episode versions
    current again or now replaced by a later one) or re-pointed (both ends of a contracted chain);
    none when no surviving fact or episode changed. Returns its id, if written."""
    contracted = [i for r in relinks for i in (r["old_id"], r["survivor_id"])]
    changed = list(dict.fromkeys([*record.read_ids, *restored, *contracted]))
    if not changed:
        return None
    await record_runs(tx, owner, [replace(record, read_ids=changed)])
    return record.id


async def _rewrite(tx: AsyncManagedTransaction, params: dict[str, Any], erasure: InteractionErasure) -> None:
    if erasure.episode_rewrites:
        rows = [
            {
                "id": e.id,
                "title": e.title,
                "summary": e.summary,
                "embedding": e.embedding,
                "lex_length": length(e.summary),
                "first_at": e.first_at.isoformat(),
                "last_at": e.last_at.isoformat(),
            }
            for e in erasure.episode_rewrites
        ]
        await run(tx, "queries/forget/rewrite_episodes", params | {"rows": rows})
    if erasure.fact_rewrites:
        rows = [
            {
                "id": f.id,
                "text": f.text,
                "kind": f.kind,
                "embedding": f.embedding,
                "lex_length": length(f.text),
            }
            for f in erasure.fact_rewrites
        ]
        await run(tx, "queries/forget/rewrite_facts", params | {"rows": rows})
