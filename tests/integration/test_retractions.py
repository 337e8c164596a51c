"""A retracted fact stays retracted: a later consolidation of the same topic (a merge into the
episode its sources rest on) does not state it again, with the offline consolidator and with an
LLM that is shown the retraction and restates it anyway."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.consolidating.retractions import normalised
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import ConsolidationOutcome, Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import STORY, T0, all_facts
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, data_of, episode_reply, merge_reply, task_of


def _owner() -> Owner:
    return Owner(f"t-{uuid.uuid4().hex[:12]}", "alice")


async def _say(engine: MemoryEngine, owner: Owner, text: str, day: int) -> ConsolidationOutcome:
    done = await engine.remember(
        owner, Unit(text=text, speaker="alice", occurred_at=T0 + timedelta(days=day))
    )
    assert done.consolidation is not None
    return done.consolidation


async def test_the_offline_consolidator_does_not_restate_a_retracted_fact(db: Database) -> None:
    settings = engine_settings(merge_threshold=0.2)
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
    owner = _owner()
    outcomes = [await _say(engine, owner, text, day) for day, text in enumerate(STORY[:3])]
    created = outcomes[-1]
    assert created.action == "created" and created.fact_ids
    (target,) = [f for f in await all_facts(db, owner) if "wasabi" in f["text"]]
    await engine.beliefs.retract(owner, target["id"], "she never ate wasabi", by="test")

    # The same statement again, merged into the episode whose sources the retracted fact rests on.
    merged = await _say(engine, owner, STORY[0], 10)
    assert merged.action == "merged"
    # Dated otherwise, the same statement: the retracted fact is the only one.
    assert [f for f in await all_facts(db, owner) if "wasabi" in f["text"]] == [
        {**target, "status": "retracted"}
    ]


async def test_the_llm_is_shown_retracted_facts_and_a_restatement_is_dropped(
    db: Database, llm: LocalLLMServer
) -> None:
    said = "Alice loves sushi with tuna."

    def refine(body: dict[str, Any]) -> Reply:
        data = data_of(body)
        first = data["turns"][0]["id"]
        # The model ignores the retraction: it states the same fact, with other spacing and case.
        return Reply.json(
            {
                "facts": [
                    {"text": said if "retracted_facts" not in data else " alice LOVES sushi, with tuna "}
                    | {"kind": "preference", "source_turn_ids": [first]},
                    {"text": f"Alice said: {data['turns'][-1]['text']}", "kind": "event"}
                    | {"source_turn_ids": [first]},
                ]
            }
        )

    llm.set_responder(
        by_task(create_episode=episode_reply("Sushi"), merge_decision=merge_reply(True), refine_facts=refine)
    )
    engine = llm_engine(db, llm, merge_threshold=0.2)
    owner = _owner()
    outcomes = [await _say(engine, owner, text, day) for day, text in enumerate(STORY[:3])]
    assert outcomes[-1].action == "created"
    (target,) = [f for f in await all_facts(db, owner) if f["text"] == said]
    await engine.beliefs.retract(owner, target["id"], "wrong", by="test")

    before = len(llm.requests)
    merged = await _say(engine, owner, STORY[1], 10)
    assert merged.action == "merged"
    (prompt,) = [b for b in llm.requests[before:] if task_of(b) == "refine_facts"]
    assert data_of(prompt)["retracted_facts"] == [{"kind": "preference", "text": said}]
    assert "retracted by a person" in prompt["messages"][-1]["content"]
    facts = await all_facts(db, owner)
    assert [f for f in facts if normalised(f["text"]) == normalised(said)] == [
        {**target, "status": "retracted"}
    ]
    assert len(merged.fact_ids) == 1  # the other draft is written
