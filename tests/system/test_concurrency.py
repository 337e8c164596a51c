"""Consolidation is serialized per user across coroutines, engines and processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from consolidation.consolidating.consolidator import EpisodeDraft, EpisodeInput, LLMResult
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.leases import LeaseStore
from graph.models import Owner
from graph.settings import Neo4jSettings
from tests.support.concurrent_writer import T0, sushi_unit
from tests.support.engines import DIMENSION, engine_settings, lease_of

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


async def check_graph(db: Database, owner: Owner, expected_ids: set[str]) -> None:
    """Every interaction stored once, none left pending, none in two current episodes' creations."""
    rows = await db.driver.execute_query(
        """MATCH (i:Interaction {tenant: $t, user_id: $u})
           OPTIONAL MATCH (e:Episode {current: true})-[:DERIVED_FROM]->(i)
           RETURN i.id AS id, i.gate_checked AS checked, count(e) AS episodes""",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    records = rows.records
    assert {r["id"] for r in records} == expected_ids
    assert all(r["checked"] for r in records)
    assert all(r["episodes"] <= 1 for r in records)
    runs = await db.driver.execute_query(
        """MATCH (r:ConsolidationRun {tenant: $t, op: 'create_episode'})-[:READ]->(i:Interaction)
           WITH i, count(r) AS creations WHERE creations > 1 RETURN count(i) AS duplicated""",
        t=owner.tenant,
        database_=db.name,
    )
    assert runs.records[0]["duplicated"] == 0


async def test_eight_concurrent_writers_for_one_user(db: Database, owner: Owner) -> None:
    engines = [
        MemoryEngine(
            db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(merge_threshold=0.6)
        )
        for _ in range(8)
    ]
    units = [sushi_unit(i, "", f"w{i}") for i in range(24)]
    results = await asyncio.gather(*(engines[i % 8].remember(owner, u) for i, u in enumerate(units)))
    for engine in engines:
        await engine.consolidate(owner, wait=True)
    await check_graph(db, owner, {r.interaction_id for r in results})
    episodes = await db.driver.execute_query(
        "MATCH (e:Episode {tenant: $t}) RETURN count(e) AS n", t=owner.tenant, database_=db.name
    )
    assert episodes.records[0]["n"] >= 1


async def test_two_engine_processes_for_one_user(
    db: Database, owner: Owner, neo4j_settings: Neo4jSettings
) -> None:
    env = {**os.environ, "RECMEM_NEO4J_URI": neo4j_settings.uri}
    password = neo4j_settings.resolved_password()
    if password is not None:
        env["RECMEM_NEO4J_PASSWORD"] = password
    command = [sys.executable, "-m", "tests.support.concurrent_writer", owner.tenant, owner.user_id]
    processes = [
        await asyncio.create_subprocess_exec(
            *command, prefix, "15", cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for prefix in ("p1", "p2")
    ]
    outputs = [await p.communicate() for p in processes]
    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err.decode()[-2000:]
    ids = {i for out, _ in outputs for i in json.loads(out)}
    assert len(ids) == 30
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(merge_threshold=0.6)
    )
    await engine.consolidate(owner, wait=True)
    await check_graph(db, owner, ids)
    episodes = await db.driver.execute_query(
        "MATCH (e:Episode {tenant: $t}) RETURN count(e) AS n", t=owner.tenant, database_=db.name
    )
    assert episodes.records[0]["n"] >= 1


# -- cancellation safety of the lease: acquire, drain, renew and release -----------------------

SUSHI = [
    "I love sushi dinner with salmon rolls",
    "Sushi dinner with tuna rolls again, I love it",
    "The weather in Oslo is cold today",
    "I love sushi dinner with salmon and tuna rolls",
    "Sushi dinner with friends and salmon rolls",
    "More sushi dinner with salmon rolls tonight",
]


def offline(db: Database, **overrides: object) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**overrides))


class CancellingDatabase(Database):
    """The session's driver, with a statement counter that cancels `target` at statement number
    `at`: before the statement is sent, or after it returned (committed, its answer in hand)."""

    def __init__(self, db: Database, at: int, after: bool) -> None:
        super().__init__(db.driver, db.name)
        self.at, self.after = at, after
        self.calls = 0
        self.target: asyncio.Task[Any] | None = None

    async def _step(self, work: Callable[[], Awaitable[T]]) -> T:
        self.calls += 1
        hit = self.calls == self.at and self.target is not None
        if hit and not self.after:
            self._cancel()
            await asyncio.sleep(0)  # the target's cancellation lands here when it is the caller
        result = await work()
        if hit and self.after:
            self._cancel()
            await asyncio.sleep(0)
        return result

    def _cancel(self) -> None:
        assert self.target is not None
        self.target.cancel()

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._step(lambda: super(CancellingDatabase, self).read(name, **params))

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._step(lambda: super(CancellingDatabase, self).write(name, **params))

    async def write_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        return await self._step(lambda: super(CancellingDatabase, self).write_transaction(work))


def heartbeats() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "recmem-lease-heartbeat" and not t.done()]


async def backlog(db: Database, owner: Owner) -> set[str]:
    """Interactions written without consolidation: a recurring topic (an episode, then merges)."""
    units = [
        Unit(text=t, speaker="Alice", occurred_at=T0 + timedelta(hours=i), source_ref=f"b{i}")
        for i, t in enumerate(SUSHI)
    ]
    written = await offline(db).remember_batch(owner, units, consolidate=False)
    return {r.interaction_id for r in written}


async def finish_and_check(db: Database, owner: Owner, ids: set[str]) -> None:
    """The lease is free (no waiting), and a fresh pass finishes what the cancelled one left
    without any interaction in two episodes' creations."""
    assert await lease_of(db, owner) is None
    assert heartbeats() == []
    await offline(db, merge_threshold=0.6).consolidate(owner, wait=False)
    await check_graph(db, owner, ids)


async def test_cancellation_at_every_statement_of_a_pass_leaves_the_lease_free(
    db: Database, owner: Owner
) -> None:
    """Cancelled before or after each statement of acquire, drain (reads, commits), release: the
    lease is free once the cancelled call returns, and nothing is half-written."""
    probe = CancellingDatabase(db, at=0, after=False)
    await backlog(db, owner)
    engine = MemoryEngine(
        probe, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(merge_threshold=0.6)
    )
    outcomes = await engine.consolidate(owner, wait=True)
    assert any(o.action == "created" for o in outcomes)
    statements = probe.calls
    assert statements >= 5
    for after in (False, True):
        for at in range(1, statements + 1):
            user = Owner(f"{owner.tenant}-{at}-{int(after)}", owner.user_id)
            ids = await backlog(db, user)
            cancelling = CancellingDatabase(db, at, after)
            engine = MemoryEngine(
                cancelling,
                HashingEmbedder(DIMENSION),
                OfflineConsolidator(),
                engine_settings(merge_threshold=0.6),
            )
            task = asyncio.create_task(engine.consolidate(user, wait=True))
            cancelling.target = task
            await asyncio.wait([task])
            assert task.cancelled(), (at, after)
            await finish_and_check(db, user, ids)


async def test_cancellation_after_any_number_of_loop_steps_leaves_the_lease_free(
    db: Database, owner: Owner
) -> None:
    """The same through the event loop: cancel a pass after N scheduler steps, for N across the
    whole pass (wherever the cancellation lands: in the driver, between statements, in release)."""
    await backlog(db, owner)
    task = asyncio.create_task(offline(db, merge_threshold=0.6).consolidate(owner, wait=True))
    steps = 0
    while not task.done():
        await asyncio.sleep(0)
        steps += 1
    task.result()
    for n in sorted({0, 1, 2, 3, 5, 8, *range(0, steps + steps // 4, max(1, steps // 40))}):
        user = Owner(f"{owner.tenant}-n{n}", owner.user_id)
        ids = await backlog(db, user)
        task = asyncio.create_task(offline(db, merge_threshold=0.6).consolidate(user, wait=True))
        for _ in range(n):
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.wait([task])
        await finish_and_check(db, user, ids)


class SlowFirstEpisode(OfflineConsolidator):
    """The first episode takes `seconds` to write (a slow LLM); the rest are instant."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.started = asyncio.Event()

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        if not self.started.is_set():
            self.started.set()
            await asyncio.sleep(self.seconds)
        return await super().create_episode(inp)


async def test_a_pass_longer_than_its_lease_keeps_it(db: Database, owner: Owner) -> None:
    """The lease is renewed while the pass runs: past twice its duration no one else can take
    it, and the slow episode commits (without renewal its commit would find the lease lost)."""
    lease = 2.0
    ids = await backlog(db, owner)
    slow = SlowFirstEpisode(seconds=2.5 * lease)
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), slow, engine_settings(merge_threshold=0.6, lease_seconds=lease)
    )
    task = asyncio.create_task(engine.consolidate(owner, wait=True))
    await asyncio.wait_for(slow.started.wait(), 60)
    await asyncio.sleep(1.5 * lease)  # the lease taken before the episode began has run out
    intruder = LeaseStore(db)
    assert not await intruder.wait_acquire(owner, "intruder", 60.0, 0)
    assert await lease_of(db, owner) == engine.holder
    outcomes = await asyncio.wait_for(task, 120)
    assert [o.action for o in outcomes if o.action == "deferred"] == []
    assert any(o.action == "created" for o in outcomes)
    assert await lease_of(db, owner) is None
    await check_graph(db, owner, ids)


async def test_the_heartbeat_stops_with_the_pass(db: Database, owner: Owner) -> None:
    """Once the pass is over (done or cancelled), no heartbeat task is left renewing anything."""
    await backlog(db, owner)
    engine = offline(db, merge_threshold=0.6, lease_seconds=0.3)
    await engine.consolidate(owner, wait=True)
    assert heartbeats() == []
    assert await LeaseStore(db).wait_acquire(owner, "next-holder", 60.0, 0)


# -- the engine's per-user locks are kept only while used ------------------------------------


class HeldEpisode(OfflineConsolidator):
    """The first episode waits until the test lets it go (no timing involved)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        if not self.started.is_set():
            self.started.set()
            await self.go.wait()
        return await super().create_episode(inp)


async def test_the_engine_keeps_a_lock_per_user_only_while_it_is_used(db: Database, owner: Owner) -> None:
    """A user's lock exists while a pass holds or waits for it, and goes with the last of them:
    the map does not grow with the users served."""
    engine = offline(db, merge_threshold=0.6)
    users = [Owner(owner.tenant, f"{owner.user_id}-{n}") for n in range(12)]
    for n, user in enumerate(users):
        await engine.remember(user, Unit(text=f"{SUSHI[0]} {n}", occurred_at=T0))  # consolidated inline
        await engine.consolidate(user, wait=True)
    assert len(engine._locks) == 0
    await backlog(db, owner)
    held = HeldEpisode()
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), held, engine_settings(merge_threshold=0.6))
    first = asyncio.create_task(engine.consolidate(owner, wait=True))
    await asyncio.wait_for(held.started.wait(), 60)
    second = asyncio.create_task(engine.consolidate(owner, wait=True))  # queues behind the first
    await asyncio.sleep(0)
    assert await engine.consolidate(owner, wait=False) == []  # the lock is busy: nothing to do
    assert len(engine._locks) == 1
    held.go.set()
    outcomes = await asyncio.wait_for(asyncio.gather(first, second), 120)
    assert any(o.action == "created" for o in outcomes[0])
    assert len(engine._locks) == 0
