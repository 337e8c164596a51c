"""Both consolidators follow one rule: facts only from declarative statements about someone.

The LLM consolidator sends the rule in its refine_facts prompt (over HTTP to the local server,
whose model here answers with the offline rules on the data it was sent); the offline
consolidator applies it itself. Neither states the imperative or the thanks as a fact.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from consolidation.consolidating.consolidator import RefineInput, Turn
from consolidation.consolidating.offline import OfflineConsolidator, declarative
from consolidation.consolidating.offline.facts import facts
from consolidation.consolidating.offline.words import name_words
from consolidation.consolidating.prompts.refine_facts import DECLARATIVE_RULE
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import T0
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, data_of, episode_reply, merge_reply, task_of

TALK = [
    ("ana", "I made sushi with salmon and avocado for my parents."),
    ("ben", "Keep making sushi with salmon, your parents must love it."),
    ("ana", "Thanks for the sushi with salmon compliment!"),
    ("ben", "I tried sushi with salmon and eel at Koya in Lisbon."),
    ("ana", "My brother sells sushi with salmon at the market in Porto."),
]
DECLARATIVE_TURNS = {0, 3, 4}


def _offline_model(body: dict[str, Any]) -> Reply:
    """A model that follows the rule: the offline rules on the turns the prompt carried."""
    data = data_of(body)
    turns = [
        Turn(id=t["id"], speaker=t["speaker"], occurred_at=t["at"], text=t["text"]) for t in data["turns"]
    ]
    drafts = facts(RefineInput(episode_summary=data["episode_summary"], turns=turns))
    return Reply.json({"facts": [draft.model_dump(mode="json") for draft in drafts]})


async def _tell(engine: MemoryEngine, owner: Owner) -> list[str]:
    ids = []
    for n, (speaker, text) in enumerate(TALK):
        done = await engine.remember(
            owner, Unit(text=text, speaker=speaker, occurred_at=T0 + timedelta(minutes=n))
        )
        ids.append(done.interaction_id)
    await engine.consolidate(owner)
    return ids


async def _facts_by_source(db: Database, owner: Owner, ids: list[str]) -> dict[int, list[str]]:
    rows = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t, user_id: $u})-[:DERIVED_FROM]->(i:Interaction) "
        "RETURN f.text AS text, i.id AS source",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    found: dict[int, list[str]] = {}
    for record in rows.records:
        found.setdefault(ids.index(record["source"]), []).append(record["text"])
    return found


async def test_the_llm_prompt_carries_the_rule_and_facts_come_from_statements(
    db: Database, llm: LocalLLMServer
) -> None:
    llm.set_responder(
        by_task(
            create_episode=episode_reply("Sushi"),
            merge_decision=merge_reply(True),
            refine_facts=_offline_model,
        )
    )
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "ana")
    before = len(llm.requests)
    ids = await _tell(llm_engine(db, llm), owner)
    prompts = [body for body in llm.requests[before:] if task_of(body) == "refine_facts"]
    assert prompts and all(DECLARATIVE_RULE in body["messages"][0]["content"] for body in prompts)
    by_source = await _facts_by_source(db, owner, ids)
    assert set(by_source) == DECLARATIVE_TURNS
    names = name_words(speaker for speaker, _ in TALK)
    assert all(declarative(text, names) for texts in by_source.values() for text in texts)


async def test_the_offline_consolidator_states_the_same_facts(db: Database) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "ana")
    ids = await _tell(engine, owner)
    assert set(await _facts_by_source(db, owner, ids)) == DECLARATIVE_TURNS
