"""Commits what one consolidation produced: episode, facts, provenance, runs; all or nothing."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.database import Database, run
from graph.errors import InvalidInput, LeaseLost
from graph.event_log import append_event
from graph.models import ConsolidationWrite, EpisodeWrite, FactWrite, Owner, RunWrite
from graph.validation import require_aware, require_text, require_vector

# Which label an id names, from the prefix `new_id` gave it; anything else is refused.
LABELS = {"int": "Interaction", "epi": "Episode", "fact": "Fact"}
FACT_KINDS = {"preference", "attribute", "event", "plan", "relation", "other"}


class ConsolidationStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def commit(self, owner: Owner, write: ConsolidationWrite) -> None:
        """One transaction; raises (and writes nothing) on a lost lease or an unknown id."""
        self._validate(write)

        async def work(tx: AsyncManagedTransaction) -> None:
            if write.lease_holder is not None:
                await _require_lease(tx, owner, write.lease_holder)
            await _require_sources(tx, owner, write)
            params = {**owner.params(), "at": write.at}
            if write.episode is not None:
                await run(tx, "queries/consolidation/create_episode", params | _episode_params(write.episode))
            if write.facts:
                await run(
                    tx,
                    "queries/consolidation/create_facts",
                    params
                    | {
                        "episode_id": write.episode.id if write.episode else None,
                        "run_id": write.facts_run_id,
                        "facts": [_fact_row(f) for f in write.facts],
                    },
                )
            if write.consolidated_ids:
                await run(
                    tx, "queries/consolidation/mark_consolidated", params | {"ids": write.consolidated_ids}
                )
            await _record_runs(tx, owner, write.runs)
            # In the same transaction: the event exists exactly when the consolidation does.
            await append_event(tx, owner, write)

        await self.db.write_transaction(work)

    async def record_runs(self, owner: Owner, runs: list[RunWrite]) -> None:
        """Runs that produced nothing (failures, merge refusals), in their own transaction."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await _record_runs(tx, owner, runs)

        await self.db.write_transaction(work)

    def _validate(self, write: ConsolidationWrite) -> None:
        require_aware("at", write.at)
        if write.episode is not None:
            require_text("episode summary", write.episode.summary, 1 << 20)
            require_vector("episode embedding", write.episode.embedding, self.dimension)
        for fact in write.facts:
            require_text("fact text", fact.text, 1 << 16)
            require_vector("fact embedding", fact.embedding, self.dimension)
            require_aware("fact valid_from", fact.valid_from)
            if fact.kind not in FACT_KINDS:
                raise InvalidInput(f"unknown fact kind {fact.kind!r}")
        for record in write.runs:
            for node_id in [*record.read_ids, *record.produced_ids]:
                label_of(node_id)


def label_of(node_id: str) -> str:
    label = LABELS.get(node_id.split("_", 1)[0])
    if label is None:
        raise InvalidInput(f"not a memory node id: {node_id!r}")
    return label


async def _require_lease(tx: AsyncManagedTransaction, owner: Owner, holder: str) -> None:
    rows = await run(tx, "queries/consolidation/check_lease", {**owner.params(), "holder": holder})
    if not rows or not rows[0]["held"]:
        raise LeaseLost(f"consolidation lease for {owner.user_id!r} is no longer held by {holder}")


async def _require_sources(tx: AsyncManagedTransaction, owner: Owner, write: ConsolidationWrite) -> None:
    interactions = set(write.consolidated_ids)
    facts: set[str] = set()
    if write.episode is not None:
        interactions |= {source for source, _ in write.episode.sources}
    for fact in write.facts:
        interactions |= set(fact.source_interaction_ids)
        facts |= {old for old, _ in fact.supersedes}
    previous = write.episode.previous_id if write.episode else None
    found = (
        await run(
            tx,
            "queries/consolidation/check_sources",
            {
                **owner.params(),
                "interaction_ids": sorted(interactions),
                "fact_ids": sorted(facts),
                "previous_episode_id": previous,
            },
        )
    )[0]
    missing = (interactions - set(found["interactions"])) | (facts - set(found["facts"]))
    if previous is not None and previous not in found["episodes"]:
        missing.add(previous)
    if missing:
        raise InvalidInput(f"unknown or foreign ids for this user: {sorted(missing)}")


async def _record_runs(tx: AsyncManagedTransaction, owner: Owner, runs: list[RunWrite]) -> None:
    if not runs:
        return
    await run(
        tx, "queries/consolidation/record_runs", {**owner.params(), "runs": [_run_row(r) for r in runs]}
    )
    links = [
        {"run_id": r.id, "id": node_id, "label": label_of(node_id), "rel": rel}
        for r in runs
        for rel, ids in (("READ", r.read_ids), ("PRODUCED", r.produced_ids))
        for node_id in ids
    ]
    if links:
        await run(tx, "queries/consolidation/link_runs", {**owner.params(), "links": links})


# The driver sends datetimes as DATETIME values and dataclasses map field by field; only the
# tuple lists need reshaping into maps for Cypher.
def _episode_params(episode: EpisodeWrite) -> dict[str, Any]:
    return asdict(episode) | {"sources": [{"id": i, "similarity": s} for i, s in episode.sources]}


def _fact_row(fact: FactWrite) -> dict[str, Any]:
    return asdict(fact) | {
        "source_ids": fact.source_interaction_ids,
        "supersedes": [{"id": old, "reason": reason} for old, reason in fact.supersedes],
    }


def _run_row(record: RunWrite) -> dict[str, Any]:
    return asdict(record)
