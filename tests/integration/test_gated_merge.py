"""Recurrence-gated merging: a hot topic's turns wait for their episode and join it in batches.

Real Neo4j, real HTTP to the local OpenAI-compatible server (scripted by task)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Forgetter
from consolidation.portability import Portability, dump, parse
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.types import ConsolidationOutcome, Remembered, Unit
from graph.database import Database
from graph.models import Owner
from graph.portability import PortabilityStore
from local_llm_server import LocalLLMServer, Reply
from tests.support.conversations import OSLO, SUSHI
from tests.support.engines import DIMENSION, TEST_TEMPLATE, engine_settings, llm_engine
from tests.support.faults import scope_sweeper
from tests.support.llm_script import consolidation_replies, data_of, tasks

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
# Long enough that no test's own pace makes a session quiet.
NEVER_QUIET = 3600.0


def unit(text: str, day: float, session: str | None = "s1") -> Unit:
    return Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day), session_id=session)


async def hot_engine(
    db: Database, owner: Owner, server: LocalLLMServer, **overrides: Any
) -> tuple[MemoryEngine, str]:
    """An engine batching merges by 3, and the episode the first three sushi turns created."""
    settings: dict[str, Any] = {
        "merge_threshold": 0.99,
        "merge_batch": 3,
        "merge_quiet_seconds": NEVER_QUIET,
    }
    engine = llm_engine(db, server, **(settings | overrides))
    server.set_responder(consolidation_replies("Sushi"))
    for day, text in enumerate(SUSHI[:3]):
        created = await engine.remember(owner, unit(text, day))
    outcome = created.consolidation
    assert outcome is not None and outcome.action == "created" and outcome.episode_id
    # From here on every sushi turn is close enough to the episode to be merged into it.
    engine.settings.merge_threshold = 0.2
    return engine, outcome.episode_id


async def turn_state(db: Database, owner: Owner) -> dict[str, dict[str, Any]]:
    rows = await db.driver.execute_query(
        """MATCH (i:Interaction {tenant: $t})
           RETURN i.id AS id, i.consolidated AS consolidated, i.gate_checked AS checked,
                  i.awaits AS awaits""",
        t=owner.tenant,
        database_=db.name,
    )
    return {r["id"]: dict(r) for r in rows.records}


async def episodes(db: Database, owner: Owner) -> list[dict[str, Any]]:
    rows = await db.driver.execute_query(
        """MATCH (e:Episode {tenant: $t})
           OPTIONAL MATCH (e)-[:DERIVED_FROM]->(i:Interaction)
           RETURN e.id AS id, e.current AS current, e.version AS version, collect(i.id) AS sources
           ORDER BY e.version""",
        t=owner.tenant,
        database_=db.name,
    )
    return [dict(r) for r in rows.records]


async def runs(db: Database, owner: Owner, op: str) -> list[dict[str, Any]]:
    rows = await db.driver.execute_query(
        """MATCH (r:ConsolidationRun {tenant: $t, op: $op})
           OPTIONAL MATCH (r)-[:READ]->(i:Interaction)
           RETURN r.status AS status, collect(i.id) AS read""",
        t=owner.tenant,
        op=op,
        database_=db.name,
    )
    return [dict(r) for r in rows.records]


def outcome_of(remembered: Remembered) -> ConsolidationOutcome:
    assert remembered.consolidation is not None
    return remembered.consolidation


async def test_turns_wait_until_the_batch_is_full_then_merge_once(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm)
    calls = llm.chat_calls
    first = await engine.remember(owner, unit(SUSHI[3], 10))
    second = await engine.remember(owner, unit(SUSHI[0], 11))
    for waited in (first, second):
        outcome = outcome_of(waited)
        assert (outcome.action, outcome.waiting_for, outcome.llm_calls) == ("none", episode_id, 0)
    assert llm.chat_calls == calls  # no LLM call while the batch gathers
    state = await turn_state(db, owner)
    for waited in (first, second):
        row = state[waited.interaction_id]
        assert (row["consolidated"], row["checked"], row["awaits"]) == (False, True, episode_id)
    # Waiting turns stay in the subconscious layer: recallable as raw turns.
    recall = await engine.recall(owner, "sushi dinner with salmon rolls")
    assert {first.interaction_id, second.interaction_id} <= {h.id for h in recall.subconscious}

    third = await engine.remember(owner, unit(SUSHI[1], 12))
    merged = outcome_of(third)
    batch = [first.interaction_id, second.interaction_id, third.interaction_id]
    assert merged.action == "merged" and merged.previous_episode_id == episode_id
    assert sorted(merged.consolidated_ids) == sorted(batch)
    assert merged.llm_calls == 2 and llm.chat_calls == calls + 2
    assert tasks(llm)[-2:] == ["merge_decision", "refine_facts"]
    # One merge prompt over the whole batch, in time order.
    assert [t["id"] for t in data_of(llm.requests[-2])["new_turns"]] == batch
    versions = await episodes(db, owner)
    assert [(v["version"], v["current"]) for v in versions] == [(1, False), (2, True)]
    assert len(versions[1]["sources"]) == 6 and set(batch) <= set(versions[1]["sources"])
    merge_runs = await runs(db, owner, "merge_episode")
    assert len(merge_runs) == 1 and sorted(merge_runs[0]["read"]) == sorted(batch)
    state = await turn_state(db, owner)
    assert all(state[i]["consolidated"] and state[i]["awaits"] is None for i in batch)


async def test_a_new_session_ends_the_batch_of_the_old_one(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm, merge_batch=10)
    waiting = [await engine.remember(owner, unit(SUSHI[i], 10 + n)) for n, i in enumerate((3, 0))]
    assert all(outcome_of(w).waiting_for == episode_id for w in waiting)
    calls = llm.chat_calls
    other = await engine.remember(owner, unit(OSLO, 20, session="s2"))
    assert outcome_of(other).action == "none"
    assert tasks(llm)[calls:] == ["merge_decision", "refine_facts"]
    state = await turn_state(db, owner)
    assert all(state[w.interaction_id]["consolidated"] for w in waiting)
    assert not state[other.interaction_id]["consolidated"]


async def test_a_quiet_session_is_merged_by_the_sweeper_without_a_write(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm, merge_batch=10)
    waiting = [await engine.remember(owner, unit(SUSHI[i], 10 + n)) for n, i in enumerate((3, 0))]
    assert all(outcome_of(w).waiting_for == episode_id for w in waiting)
    # Under the engine's own quiet period (an hour) the session is not over: nobody is queued.
    assert owner not in await engine.stores.waiting.due_users(10_000, NEVER_QUIET)
    # A background engine whose quiet period has passed: its sweeper queues the user, its
    # worker merges the batch; no write happened in between.
    sweeper = llm_engine(
        db,
        llm,
        consolidation_mode="background",
        sweep_interval_s=0,
        sweep_batch=10_000,
        consolidation_delay_s=0,
        merge_threshold=0.2,
        merge_batch=10,
        merge_quiet_seconds=0.001,
    )
    # The shared test database holds other tests' users waiting for a batch: this sweeper sees
    # only this tenant, so draining its queue waits for this user alone.
    scope_sweeper(sweeper, owner.tenant)
    await asyncio.sleep(0.01)  # past the 1 ms quiet period by Neo4j's clock
    merges_before = len(await runs(db, owner, "merge_episode"))
    sweeper.start()
    try:
        assert owner in await sweeper.sweep_once()
        await asyncio.wait_for(sweeper.drain_queue(), 300)
    finally:
        await sweeper.stop()
    assert len(await runs(db, owner, "merge_episode")) == merges_before + 1
    state = await turn_state(db, owner)
    assert all(state[w.interaction_id]["consolidated"] for w in waiting)
    assert [v["current"] for v in await episodes(db, owner)] == [False, True]
    # Nothing waits any more: the next sweep does not queue the user again.
    assert owner not in await sweeper.stores.waiting.due_users(10_000, 0.001)


async def test_an_explicit_consolidate_merges_everything_waiting(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm, merge_batch=10)
    waiting = [await engine.remember(owner, unit(SUSHI[i], 10 + n)) for n, i in enumerate((3, 0))]
    ids = sorted(w.interaction_id for w in waiting)
    assert (await engine.waiting_backlog()).waiting >= 2
    # A background pass merges only due batches ...
    assert not [o for o in await engine.consolidate(owner) if o.action == "merged"]
    # ... an explicit consolidate merges every batch.
    outcomes = await engine.consolidate(owner, flush=True)
    merged = [o for o in outcomes if o.action == "merged"]
    assert len(merged) == 1 and sorted(merged[0].consolidated_ids) == ids
    assert merged[0].previous_episode_id == episode_id and merged[0].llm_calls == 2
    assert merged[0].trigger_id == waiting[-1].interaction_id
    assert [t["id"] for t in data_of(llm.requests[-2])["new_turns"]] == [w.interaction_id for w in waiting]
    assert not [o for o in await engine.consolidate(owner, flush=True) if o.action == "merged"]
    rows = await db.driver.execute_query(
        "MATCH (u:User {tenant: $t}) RETURN u.awaiting AS awaiting", t=owner.tenant, database_=db.name
    )
    assert rows.records[0]["awaiting"] is None  # the sweeper's hint is gone with the last waiting turn


async def test_a_failed_batch_merge_leaves_every_turn_waiting_and_no_partial_episode(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm)
    waiting = [await engine.remember(owner, unit(SUSHI[i], 10 + n)) for n, i in enumerate((3, 0))]
    before = await episodes(db, owner)
    broken: Any = lambda body: Reply.error(500)  # noqa: E731
    llm.set_responder(consolidation_replies("Sushi", merge_decision=broken))
    third = await engine.remember(owner, unit(SUSHI[1], 12))
    assert outcome_of(third).action == "deferred"
    for failing in ("merge_decision", "refine_facts"):
        llm.set_responder(consolidation_replies("Sushi", **{failing: broken}))
        if failing == "refine_facts":
            # The merge is answered this time; the refinement after it fails.
            (retried,) = await engine.consolidate(owner)
            assert (retried.trigger_id, retried.action) == (third.interaction_id, "deferred")
        assert await episodes(db, owner) == before
        state = await turn_state(db, owner)
        assert all(state[w.interaction_id]["awaits"] == episode_id for w in waiting)
        assert all(not state[w.interaction_id]["consolidated"] for w in waiting)
        # The trigger did not join the batch: it is still pending for the gate.
        assert (state[third.interaction_id]["checked"], state[third.interaction_id]["awaits"]) == (
            False,
            None,
        )
    # Every call made is on record: the failed merge, then the merge that was answered (its
    # product never written: "discarded") and the refinement that failed after it.
    statuses = sorted(r["status"] for r in await runs(db, owner, "merge_episode"))
    assert statuses == ["discarded", "unavailable"]
    assert [r["status"] for r in await runs(db, owner, "refine_facts") if r["status"] != "ok"]

    llm.set_responder(consolidation_replies("Sushi"))
    outcomes = await engine.consolidate(owner)
    merged = [o for o in outcomes if o.action == "merged"]
    batch = sorted([*(w.interaction_id for w in waiting), third.interaction_id])
    assert len(merged) == 1 and sorted(merged[0].consolidated_ids) == batch
    current = [v for v in await episodes(db, owner) if v["current"]]
    assert len(current) == 1 and current[0]["version"] == 2
    # Each turn is in the new version once: never merged twice.
    assert sorted(current[0]["sources"]) == sorted(set(current[0]["sources"]))


async def test_a_waiting_turn_can_be_forgotten(db: Database, owner: Owner, llm: LocalLLMServer) -> None:
    engine, episode_id = await hot_engine(db, owner, llm, merge_batch=10)
    gone, kept = [await engine.remember(owner, unit(SUSHI[i], 10 + n)) for n, i in enumerate((3, 0))]
    forgetter = Forgetter(MemoryEngine(db, engine.embedder, OfflineConsolidator(), engine_settings()))
    forgotten = await forgetter.forget_interaction(owner, gone.interaction_id, by="tests (key_test)")
    assert forgotten.interaction_ids == [gone.interaction_id] and not forgotten.episode_ids
    state = await turn_state(db, owner)
    assert gone.interaction_id not in state and state[kept.interaction_id]["awaits"] == episode_id
    outcomes = await engine.consolidate(owner, flush=True)
    merged = [o for o in outcomes if o.action == "merged"]
    assert len(merged) == 1 and merged[0].consolidated_ids == [kept.interaction_id]
    assert [t["id"] for t in data_of(llm.requests[-2])["new_turns"]] == [kept.interaction_id]


async def test_turns_waiting_for_a_forgotten_episode_meet_the_gate_again(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine, episode_id = await hot_engine(db, owner, llm, merge_batch=10)
    (waiting,) = [await engine.remember(owner, unit(SUSHI[3], 10))]
    assert outcome_of(waiting).waiting_for == episode_id
    sources = next(v["sources"] for v in await episodes(db, owner) if v["id"] == episode_id)
    forgetter = Forgetter(MemoryEngine(db, engine.embedder, OfflineConsolidator(), engine_settings()))
    for source in sources:
        await forgetter.forget_interaction(owner, source, by="tests (key_test)")
    assert not await episodes(db, owner)  # the episode rested on nothing else
    row = (await turn_state(db, owner))[waiting.interaction_id]
    assert (row["checked"], row["awaits"], row["consolidated"]) == (False, None, False)


async def test_an_imported_waiting_turn_marks_its_user(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    """An import writes the user's waiting turns as they were: its user carries the `awaiting` hint,
    by which the sweeper and the batch merge find them (waiting/due_users, waiting/groups)."""
    engine, episode_id = await hot_engine(db, owner, llm)
    waited = await engine.remember(owner, unit(SUSHI[3], 10))
    assert outcome_of(waited).waiting_for == episode_id
    portability = Portability(
        PortabilityStore(db, DIMENSION), HashingEmbedder(DIMENSION), EmbeddingTemplate(TEST_TEMPLATE)
    )
    lines = [dump(line) + "\n" async for line in portability.export(owner)]
    elsewhere = Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id=owner.user_id)
    await portability.import_user(parse(lines), elsewhere)
    assert [a for a in (await turn_state(db, elsewhere)).values() if a["awaits"]]
    groups = await engine.stores.waiting.groups(elsewhere, everything=True, batch=3, quiet_s=NEVER_QUIET)
    assert groups.flagged and [len(g.turns) for g in groups.groups] == [1]
