"""`remember(consolidate=True)` reports what the pass that covered the write did with it, whoever
ran that pass: this engine's own pass, its background worker, or another holder of the lease (a
second engine on the database, as another process is); DEFERRED, saying why, past the budget."""

from __future__ import annotations

import asyncio
import time

from graph.database import Database
from graph.leases import LeaseStore
from graph.models import Owner
from tests.support.concurrent_writer import sushi_unit
from tests.support.engines import lease_of
from tests.support.leases import WAIT_S, Stalled, derived_episodes, engine


async def test_an_absorbed_write_reports_the_episode_that_absorbed_it(db: Database, owner: Owner) -> None:
    """Two turns written without consolidating, then a third with: the pass's trigger is the
    oldest pending turn, and the write it absorbed reports that creation (once: null)."""
    writer = engine(db)
    for i in range(2):
        await writer.remember(owner, sushi_unit(i, "", f"r{i}"), consolidate=False)
    done = await writer.remember(owner, sushi_unit(2, "", "r2"), consolidate=True)
    outcome = done.consolidation
    assert outcome is not None
    assert outcome.action == "created"
    assert done.interaction_id in outcome.consolidated_ids
    assert outcome.episode_id in await derived_episodes(db, done.interaction_id)


async def test_a_write_while_the_background_worker_holds_the_lease(db: Database, owner: Owner) -> None:
    """The background worker of this engine is mid-pass, holding the user's lease: the write with
    consolidate=True waits for that pass and reports its decision on this very write."""
    mine = engine(db, consolidation_mode="background", consolidation_delay_s=0.0)
    stalled = Stalled(mine)
    mine.start()
    try:
        for i in range(2):
            await mine.remember(owner, sushi_unit(i, "", f"b{i}"), consolidate=False)
        mine.background.enqueue(owner)  # as the sweeper or another write does
        await asyncio.wait_for(stalled.started.wait(), WAIT_S)
        assert await lease_of(db, owner) == mine.holder
        write = asyncio.create_task(mine.remember(owner, sushi_unit(2, "", "b2"), consolidate=True))
        await asyncio.sleep(0.5)
        assert not write.done()
        stalled.go.set()
        done = await asyncio.wait_for(write, WAIT_S)
    finally:
        stalled.go.set()
        await mine.stop()
    outcome = done.consolidation
    assert outcome is not None, "the write's outcome was not reported"
    assert outcome.action == "created"
    assert done.interaction_id in outcome.consolidated_ids
    assert outcome.episode_id in await derived_episodes(db, done.interaction_id)
    # The pass that decided it was the worker's (the only one that read the pending turns).
    assert len(stalled.tasks) == 1 and stalled.tasks[0].startswith("recmem-consolidation-")


async def test_a_write_while_another_engine_holds_the_lease(db: Database, owner: Owner) -> None:
    """Another engine on the database (as another process is) is mid-pass: the write's own
    engine never runs a pass, yet reports the other's decision on its write."""
    other = engine(db)
    stalled = Stalled(other)
    for i in range(2):
        await other.remember(owner, sushi_unit(i, "", f"o{i}"), consolidate=False)
    elsewhere = asyncio.create_task(other.consolidate(owner, wait=True))
    await asyncio.wait_for(stalled.started.wait(), WAIT_S)
    assert await lease_of(db, owner) == other.holder
    mine = engine(db)
    idle = Stalled(mine)
    idle.go.set()
    write = asyncio.create_task(mine.remember(owner, sushi_unit(2, "", "o2"), consolidate=True))
    await asyncio.sleep(0.5)
    assert not write.done()
    stalled.go.set()
    done = await asyncio.wait_for(write, WAIT_S)
    await asyncio.wait_for(elsewhere, WAIT_S)
    outcome = done.consolidation
    assert outcome is not None, "the write's outcome was not reported"
    assert outcome.action == "created"
    assert done.interaction_id in outcome.consolidated_ids
    assert outcome.episode_id in await derived_episodes(db, done.interaction_id)
    assert idle.tasks == []  # the writer's engine never held the lease to read pending turns
    assert await lease_of(db, owner) is None


async def test_a_write_past_its_budget_behind_another_holder_says_so(db: Database, owner: Owner) -> None:
    """A lease held past the write's inline budget: the write answers at the budget with DEFERRED,
    saying that it waited for another holder of the lease, and its interaction stays pending."""
    budget = 1.5
    holder = LeaseStore(db)
    mine = engine(db, inline_consolidation_budget_s=budget)
    await mine.remember(owner, sushi_unit(0, "", "t0"), consolidate=False)  # the user exists
    assert await holder.wait_acquire(owner, "another-process", WAIT_S, 0)
    try:
        start = time.monotonic()
        done = await mine.remember(owner, sushi_unit(1, "", "t1"), consolidate=True)
        took = time.monotonic() - start
    finally:
        await holder.release(owner, "another-process")
    assert budget <= took < budget + 5.0
    outcome = done.consolidation
    assert outcome is not None
    assert outcome.action == "deferred"
    assert outcome.trigger_id == done.interaction_id
    assert outcome.error is not None
    assert f"passed its {budget:g} s budget" in outcome.error
    assert "another holder of this user's consolidation lease" in outcome.error
    assert outcome.error.endswith("it stays pending")
    rows = await db.driver.execute_query(
        "MATCH (i:Interaction {id: $id}) RETURN i.gate_checked AS checked",
        id=done.interaction_id,
        database_=db.name,
    )
    assert rows.records[0]["checked"] is False
    # Once the lease is free, the next pass decides it.
    later = await mine.remember(owner, sushi_unit(2, "", "t2"), consolidate=True)
    assert later.consolidation is not None and later.consolidation.action != "deferred"
