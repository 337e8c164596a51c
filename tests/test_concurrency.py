"""Consolidation is serialized per user across coroutines, engines and processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from consolidation.embedders.hashing import HashingEmbedder
from consolidation.engine import MemoryEngine
from consolidation.offline import OfflineConsolidator
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from graph.settings import Neo4jSettings
from tests.conftest import DIMENSION, engine_settings

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2024, 1, 1, tzinfo=UTC)


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
    units = [
        Unit(
            text=f"sushi dinner with salmon rolls number {i}",
            speaker="Alice",
            occurred_at=T0 + timedelta(minutes=i),
            source_ref=f"w{i}",
        )
        for i in range(24)
    ]
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
    command = [sys.executable, "-m", "tests.concurrent_writer", owner.tenant, owner.user_id]
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
