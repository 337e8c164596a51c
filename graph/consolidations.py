"""Commits what one consolidation produced: episode, facts, provenance, runs; all or nothing."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.commit_steps import check_run_links, record_runs, require_lease
from graph.database import Database, run
from graph.errors import InvalidInput
from graph.event_log import append_event
from graph.lexical import length
from graph.models import ConsolidationWrite, EpisodeWrite, FactWrite, Owner, RunWrite
from graph.validation import require_aware, require_text, require_vector
from graph.vocabulary import FACT_KINDS, MAX_FACT_BYTES, MAX_SUMMARY_BYTES


class ConsolidationStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def commit(self, owner: Owner, write: ConsolidationWrite) -> list[str]:
        """One transaction; raises (and writes nothing) on a lost lease or an unknown id. Returns
        the ids of the facts the new ones replaced: a named fact that began after the new one
        stays current and ends it instead (docs/design/graph-model.md#replacement)."""
        self._validate(write)

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            if write.lease_holder is not None:
                await require_lease(tx, owner, write.lease_holder)
            await _require_sources(tx, owner, write)
            params = {**owner.params(), "at": write.at}
            superseded: list[str] = []
            if write.episode is not None:
                await run(tx, "queries/consolidation/create_episode", params | _episode_params(write.episode))
            if write.facts:
                rows = await run(
                    tx,
                    "queries/consolidation/create_facts",
                    params
                    | {
                        "episode_id": write.episode.id if write.episode else None,
                        "run_id": write.facts_run_id,
                        "facts": [_fact_row(f) for f in write.facts],
                    },
                )
                superseded = list(rows[0]["superseded"])
            if write.consolidated_ids:
                await run(
                    tx, "queries/consolidation/mark_consolidated", params | {"ids": write.consolidated_ids}
                )
            await record_runs(tx, owner, write.runs)
            # In the same transaction: the event exists exactly when the consolidation does.
            await append_event(tx, owner, write, superseded)
            return superseded

        return await self.db.write_transaction(work)

    async def record_runs(self, owner: Owner, runs: list[RunWrite]) -> None:
        """Runs that produced nothing (failures, merge refusals), in their own transaction."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await record_runs(tx, owner, runs)

        await self.db.write_transaction(work)

    def _validate(self, write: ConsolidationWrite) -> None:
        require_aware("at", write.at)
        if write.episode is not None:
            require_text("episode summary", write.episode.summary, MAX_SUMMARY_BYTES)
            require_vector("episode embedding", write.episode.embedding, self.dimension)
        for fact in write.facts:
            require_text("fact text", fact.text, MAX_FACT_BYTES)
            require_vector("fact embedding", fact.embedding, self.dimension)
            require_aware("fact valid_from", fact.valid_from)
            if fact.kind not in FACT_KINDS:
                raise InvalidInput(f"unknown fact kind {fact.kind!r}")
        check_run_links(write.runs)


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


# The driver sends datetimes as DATETIME values and dataclasses map field by field; only the
# tuple lists need reshaping into maps for Cypher.
def _episode_params(episode: EpisodeWrite) -> dict[str, Any]:
    return asdict(episode) | {
        "sources": [{"id": i, "similarity": s} for i, s in episode.sources],
        "lex_length": length(episode.summary),
    }


def _fact_row(fact: FactWrite) -> dict[str, Any]:
    return asdict(fact) | {
        "source_ids": fact.source_interaction_ids,
        "lex_length": length(fact.text),
        "supersedes": [{"id": old, "reason": reason} for old, reason in fact.supersedes],
    }
