"""Brings data written by older versions up to what the current code reads, in batches, on every
migration until every step has run to the end; later migrations read the marker that says so.

- Interactions from before scopes get their tokens (agent, session, speaker, metadata: graph/scopes.py),
  so a filtered recall finds them; episodes and facts get the union of their sources' scopes.
- Items from before the lexical statistics get their word counts, and their users the per-layer
  statistics, so that BM25 uses the exact user-wide average length (graph/lexical.py), and the
  count of long interactions, so that dense recall skips parts for users without any.
- Users from before the `gating` hint get it, true for those with interactions still waiting for
  the recurrence gate, which the sweeper and the backlog find by its index (false for the others).
- Replacements consolidated out of time order before the in-order rule (a fact said earlier
  closed one said later, which then held at no instant) are reversed as the rule writes them, under
  each user's lease, and recorded by one run per user; the facts valid at no instant that remain
  (not a case the rule decides) are left, and counted until a person settles them
  (docs/design/graph-model.md#replacement).
Why, and what an upgrade costs: docs/operations.md#upgrading.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial

from neo4j import AsyncManagedTransaction

from graph.commit_steps import record_runs, require_lease
from graph.database import Database, Row, run
from graph.leases import LeaseStore
from graph.lexical import LAYER_STATISTICS, length
from graph.models import Owner, change_run, to_python
from graph.scopes import metadata_from, scope_tokens
from graph.vocabulary import (
    CORRECTION_TRIGGER,
    PERSON_PROVIDER,
    SYSTEM_PROVIDER,
    UPGRADE_BY,
    UPGRADE_TRIGGER,
    FactStatus,
)

BATCH = 1_000
# Bumped by every change to what the steps fill: a database whose marker holds another version (or
# none) runs them all at its next migration; one that holds this one skips them
# (docs/operations.md#upgrading: older processes are stopped before the upgrade).
BACKFILL_VERSION = 1
# Users whose statistics one transaction counts, each under its write lock until the commit.
USERS_A_WRITE = 100
# How long the repair of one user's replacements may hold the user's lease (one transaction).
LEASE_S = 60.0
REPLACEMENT_DOC = "docs/design/graph-model.md#replacement"
# How many of the tenants holding facts valid at no instant the backfill names.
MISORDERED_TENANTS = 5


@dataclass(frozen=True)
class Backfill:
    """How many nodes each step brought up to date."""

    interaction_scopes: int = 0
    memory_scopes: int = 0
    lengths: int = 0
    users: int = 0
    # Users found with interactions waiting for the recurrence gate and no `gating` hint.
    gating: int = 0
    # Replacements reversed (docs/design/graph-model.md#replacement).
    replacements: int = 0
    # Facts still valid at no instant, left as they are, that no person settled (corrected or
    # retracted it or what replaced it): not part of `total`, which counts changes.
    misordered_left: int = 0
    # The tenants holding most of them (at most MISORDERED_TENANTS, most first), with their counts.
    misordered_tenants: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return (
            self.interaction_scopes
            + self.memory_scopes
            + self.lengths
            + self.users
            + self.gating
            + self.replacements
        )


async def backfill(db: Database, batch: int = BATCH, *, recheck: bool = False) -> Backfill:
    """Every step, each until its read finds nothing more; safe beside live writes and reruns.
    Once every step of BACKFILL_VERSION has run to the end, later migrations skip them (a read of
    the marker, and the count of facts valid at no instant while there are any) unless `recheck`."""
    marker = None if recheck else next(iter(await db.read("queries/backfill/read_marker")), None)
    if marker is not None and marker["version"] == BACKFILL_VERSION:
        if not marker["misordered_left"]:
            return Backfill()
        left = await _misordered_left(db)
        await _mark(db, BACKFILL_VERSION, left)
        return left
    interaction_scopes = await _interaction_scopes(db, batch)
    memory_scopes = await _memory_scopes(db, batch)
    lengths = await _lengths(db, batch)
    users, counted = await _statistics(db, batch)
    gating = await _gating(db, batch)
    replacements, repaired = await _replacements(db, batch)
    left = await _misordered_left(db)
    await _mark(db, BACKFILL_VERSION if counted and repaired else None, left)
    return replace(
        left,
        interaction_scopes=interaction_scopes,
        memory_scopes=memory_scopes,
        lengths=lengths,
        users=users,
        gating=gating,
        replacements=replacements,
    )


async def _misordered_left(db: Database) -> Backfill:
    (left,) = await db.read(
        "queries/backfill/misordered_left",
        shown=MISORDERED_TENANTS,
        retracted=FactStatus.RETRACTED.value,
        person=PERSON_PROVIDER,
        correction=CORRECTION_TRIGGER,
    )
    return Backfill(
        misordered_left=int(left["facts"]),
        misordered_tenants={t["tenant"]: int(t["facts"]) for t in left["tenants"]},
    )


async def _mark(db: Database, version: int | None, left: Backfill) -> None:
    await db.write("queries/backfill/write_marker", version=version, misordered_left=left.misordered_left)


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


async def _statistics(db: Database, batch: int) -> tuple[int, bool]:
    """Every user without the statistics, `batch` a read in (tenant, user) order from where the
    last read ended, counted USERS_A_WRITE a transaction; a user whose items are still without
    counts (written mid-run) is left for the next migration. The users counted, and whether all."""
    done, after, left = 0, ("", ""), False
    while users := await db.read(
        "queries/backfill/users_without_statistics",
        after_tenant=after[0],
        after_user=after[1],
        batch=batch,
    ):
        for start in range(0, len(users), USERS_A_WRITE):
            keys = [
                {"tenant": u["tenant"], "user_id": u["user_id"]} for u in users[start : start + USERS_A_WRITE]
            ]
            rows = await db.write("queries/backfill/set_statistics", users=keys)
            done += int(rows[0]["updated"])
            left = left or int(rows[0]["updated"]) < len(keys)
        after = (users[-1]["tenant"], users[-1]["user_id"])
    return done, not left


async def _gating(db: Database, batch: int) -> int:
    """Every user without the hint gets it, `batch` a transaction in (tenant, user) order from
    where the last one ended; the users marked pending."""
    marked, after = 0, ("", "")
    while True:
        rows = await db.write(
            "queries/backfill/users_ungated", after_tenant=after[0], after_user=after[1], batch=batch
        )
        marked += int(rows[0]["marked"])
        if int(rows[0]["checked"]) < batch:
            return marked
        after = (rows[0]["last"][0], rows[0]["last"][1])


async def _replacements(db: Database, batch: int) -> tuple[int, bool]:
    """Each user holding a fact valid at no instant, once: a user whose lease another holder has
    (a consolidation running) is left for the next migration. The edges reversed, and whether
    every such user was looked at."""
    done, after, skipped = 0, ("", ""), False
    leases, holder = LeaseStore(db), f"backfill:{uuid.uuid4().hex}"
    while users := await db.read(
        "queries/backfill/misordered_users", after_tenant=after[0], after_user=after[1], batch=batch
    ):
        for u in users:
            owner = Owner(u["tenant"], u["user_id"])
            if not await leases.wait_acquire(owner, holder, LEASE_S, 0.0):
                skipped = True
                continue
            try:
                done += await db.write_transaction(partial(_reorder, owner=owner, holder=holder))
            finally:
                await leases.release(owner, holder)
        after = (users[-1]["tenant"], users[-1]["user_id"])
    return done, not skipped


async def _reorder(tx: AsyncManagedTransaction, owner: Owner, holder: str) -> int:
    """One user's reversals and the run that records them (reading both facts of each, with what
    the reversed edge held), in one transaction; no run when nothing was reversed. Repeated until
    none is left: a fact a reversal made current again may have closed a later one the same way."""
    await require_lease(tx, owner, holder)
    params = {**owner.params(), "person": PERSON_PROVIDER}
    rows: list[Row] = []
    while found := await run(tx, "queries/backfill/reorder_replacements", params):
        rows += found
    if not rows:
        return 0
    changed = list(dict.fromkeys(i for r in rows for i in (r["later_id"], r["earlier_id"])))
    record = change_run(
        "reorder_replacements",
        UPGRADE_TRIGGER,
        SYSTEM_PROVIDER,
        UPGRADE_BY,
        _reason(rows),
        datetime.now(UTC),
        changed,
        [],
        neighbor_count=len(changed),
    )
    await record_runs(tx, owner, [record])
    return len(rows)


def _reason(rows: list[Row]) -> str:
    """What each reversed edge held before, so the former state can be read back from the run."""
    pairs = "; ".join(
        f"{r['earlier_id']} had replaced {r['later_id']} from {to_python(r['closed']).isoformat()}, "
        f"before it began; now {r['later_id']} replaces {r['earlier_id']} from "
        f"{to_python(r['ends']).isoformat()}"
        for r in rows
    )
    return f"Replacements consolidated out of time order, reversed ({REPLACEMENT_DOC}): {pairs}."
