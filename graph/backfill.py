"""Brings data written by older versions up to what the current code reads, in batches, on every
migration; a no-op (a few empty reads) once nothing is missing.

- Interactions from before scopes get their tokens (agent, session, speaker, metadata: graph/scopes.py),
  so a filtered recall finds them; episodes and facts get the union of their sources' scopes.
- Items from before the lexical statistics get their word counts, and their users the per-layer
  statistics, so that BM25 uses the exact user-wide average length (graph/lexical.py), and the
  count of long interactions, so that dense recall skips parts for users without any.
Why, and what an upgrade costs: docs/operations.md#upgrading.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.database import Database
from graph.lexical import LAYER_STATISTICS, length
from graph.scopes import metadata_from, scope_tokens
from graph.vocabulary import PERSON_PROVIDER

BATCH = 1_000


@dataclass(frozen=True)
class Backfill:
    """How many nodes each step brought up to date."""

    interaction_scopes: int = 0
    memory_scopes: int = 0
    lengths: int = 0
    users: int = 0

    @property
    def total(self) -> int:
        return self.interaction_scopes + self.memory_scopes + self.lengths + self.users


async def backfill(db: Database, batch: int = BATCH) -> Backfill:
    """Every step, each until its read finds nothing more; safe beside live writes and reruns."""
    return Backfill(
        interaction_scopes=await _interaction_scopes(db, batch),
        memory_scopes=await _memory_scopes(db, batch),
        lengths=await _lengths(db, batch),
        users=await _statistics(db, batch),
    )


async def _interaction_scopes(db: Database, batch: int) -> int:
    done = 0
    while rows := await db.read("queries/backfill/interactions_unscoped", batch=batch):
        scoped = [
            {
                "node": r["node"],
                "scopes": scope_tokens(
                    r["agent_id"], r["session_id"], r["speaker"], metadata_from(r["metadata"])
                ),
            }
            for r in rows
        ]
        written = await db.write("queries/backfill/set_interaction_scopes", rows=scoped)
        done += int(written[0]["updated"])
    return done


async def _memory_scopes(db: Database, batch: int) -> int:
    done = 0
    while groups := await db.read("queries/backfill/memory_unscoped", batch=batch):
        for g in groups:
            rows = await db.write(
                "queries/forget/rescope",
                tenant=g["tenant"],
                user_id=g["user_id"],
                episode_ids=g["episode_ids"],
                fact_ids=g["fact_ids"],
                person=PERSON_PROVIDER,
            )
            done += int(rows[0]["episodes"]) + int(rows[0]["facts"])
    return done


async def _lengths(db: Database, batch: int) -> int:
    done = 0
    for label in LAYER_STATISTICS:
        while rows := await db.read("queries/backfill/unmeasured", label=label, batch=batch):
            counted = [{"node": r["node"], "lex_length": length(r["text"])} for r in rows]
            written = await db.write("queries/backfill/set_lengths", rows=counted)
            done += int(written[0]["updated"])
    return done


async def _statistics(db: Database, batch: int) -> int:
    done = 0
    seen: set[tuple[str, str]] = set()
    while users := await db.read("queries/backfill/users_without_statistics", batch=batch):
        fresh = [(u["tenant"], u["user_id"]) for u in users if (u["tenant"], u["user_id"]) not in seen]
        if not fresh:  # what is left has items without counts yet (written mid-run): next migration
            break
        for tenant, user_id in fresh:
            seen.add((tenant, user_id))
            rows = await db.write("queries/backfill/set_statistics", tenant=tenant, user_id=user_id)
            done += int(rows[0]["updated"]) if rows else 0
    return done
