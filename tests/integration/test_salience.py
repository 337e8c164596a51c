"""Salience: a one-off critical statement becomes an active fact after one pass, whatever
recurrence says, and its runs say `salience` and the rule; ordinary turns seldom fire; off is off."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import ConsolidationRun, Owner, PageRequest
from local_llm_server import LocalLLMServer
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, episode_reply, facts_reply, merge_reply, one_fact_per_turn

PROBES = Path(__file__).resolve().parents[1] / "fixtures" / "salience_probes.json"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
# Recurrence out of reach: whatever forms here, salience formed it.
NO_RECURRENCE: dict[str, object] = {"theta_sim": 0.99, "theta_count": 5, "merge_threshold": 0.99}


@dataclass
class Tally:
    critical: int = 0
    kept: int = 0
    ordinary: int = 0
    fired: int = 0


def conversations() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(PROBES.read_text(encoding="utf-8"))
    return list(data["conversations"])


async def stream_probes(engine: MemoryEngine, tenant: str) -> Tally:
    """Every probe conversation as its own user, one pass (inline); what became of each turn."""
    tally = Tally()
    for number, conversation in enumerate(conversations()):
        owner = Owner(tenant=tenant, user_id=conversation["name"])
        for i, turn in enumerate(conversation["turns"]):
            unit = Unit(
                text=turn["text"], speaker=turn["speaker"], occurred_at=T0 + timedelta(days=number, minutes=i)
            )
            outcome = (await engine.remember(owner, unit)).consolidation
            assert outcome is not None
            expected = turn.get("critical")
            if expected is None:
                tally.ordinary += 1
                tally.fired += outcome.salience is not None
                continue
            tally.critical += 1
            facts = await engine.stores.browse.facts(tenant, outcome.fact_ids)
            tally.kept += any(
                f.status == "active" and expected.lower() in f.text.lower() for f in facts.values()
            )
    return tally


def check(tally: Tally) -> None:
    assert tally.critical >= 15 and tally.ordinary >= 20
    assert tally.kept / tally.critical >= 0.9, tally
    assert tally.fired / tally.ordinary <= 0.1, tally


async def test_probes_become_active_facts_offline(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**NO_RECURRENCE)
    )
    check(await stream_probes(engine, owner.tenant))


async def test_probes_become_active_facts_over_the_local_llm_server(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    llm.set_responder(
        by_task(create_episode=episode_reply("Probe"), refine_facts=facts_reply(one_fact_per_turn))
    )
    check(await stream_probes(llm_engine(db, llm, **NO_RECURRENCE), owner.tenant))


async def runs_of(engine: MemoryEngine, owner: Owner) -> list[ConsolidationRun]:
    page = await engine.stores.browse.run_page(owner, PageRequest(limit=50), op=None)
    return [run for _, run in page.items]


async def test_a_salient_turn_records_salience_and_its_rule(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**NO_RECURRENCE)
    )
    await engine.remember(owner, Unit(text="We watched a film about whales.", occurred_at=T0))
    assert await runs_of(engine, owner) == []
    outcome = (
        await engine.remember(owner, Unit(text="I am allergic to peanuts.", occurred_at=T0))
    ).consolidation
    assert outcome is not None and outcome.action == "created" and outcome.salience == "health"
    runs = await runs_of(engine, owner)
    assert sorted(r.op for r in runs) == ["create_episode", "refine_facts"]
    assert {(r.triggered_by, r.rule) for r in runs} == {("salience", "health")}


async def test_recurrence_runs_say_recurrence(db: Database, owner: Owner) -> None:
    settings = engine_settings(theta_sim=0.3, theta_count=2, merge_threshold=0.99, salience="off")
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
    for text in ("I cooked spicy ramen tonight.", "I cooked spicy ramen again tonight."):
        await engine.remember(owner, Unit(text=text, occurred_at=T0))
    runs = await runs_of(engine, owner)
    assert runs and {(r.triggered_by, r.rule) for r in runs} == {("recurrence", None)}


async def test_off_leaves_a_salient_turn_to_recurrence(db: Database, owner: Owner) -> None:
    settings = engine_settings(**NO_RECURRENCE, salience="off")
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
    outcome = (
        await engine.remember(owner, Unit(text="I am allergic to peanuts.", occurred_at=T0))
    ).consolidation
    assert outcome is not None and outcome.action == "none" and outcome.salience is None
    assert await runs_of(engine, owner) == []


async def test_a_salient_turn_merges_its_episode_before_the_batch_is_full(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    # Merge-first at any similarity, batches of 16: a turn waits, unless it is salient.
    llm.set_responder(
        by_task(
            create_episode=episode_reply("Care"),
            refine_facts=facts_reply(one_fact_per_turn),
            merge_decision=merge_reply(continues=True),
        )
    )
    engine = llm_engine(db, llm, theta_sim=0.99, theta_count=5, merge_threshold=-1.0, merge_batch=16)
    first = (
        await engine.remember(owner, Unit(text="Please remember that I take insulin.", occurred_at=T0))
    ).consolidation
    assert first is not None and first.action == "created"
    plain = (
        await engine.remember(owner, Unit(text="We went for a long walk.", occurred_at=T0))
    ).consolidation
    assert plain is not None and plain.waiting_for == first.episode_id
    salient = Unit(text="My flight number is LH 454 on Monday.", occurred_at=T0 + timedelta(minutes=1))
    merged = (await engine.remember(owner, salient)).consolidation
    assert merged is not None and merged.action == "merged" and merged.salience == "identifier"
    assert merged.previous_episode_id == first.episode_id
    assert set(merged.consolidated_ids) >= {plain.trigger_id, merged.trigger_id}
    merges = [r for r in await runs_of(engine, owner) if r.op == "merge_episode"]
    assert [(r.triggered_by, r.rule) for r in merges] == [("salience", "identifier")]
