"""Consolidation reads a turn's relative dates on the calendar of the offset it was said in
(docs/design/offline-consolidator.md#dates): "yesterday" said at 01:30 on 5 December in +05:00
(20:30 UTC on the 4th) is 4 December. The fact's validFrom stays the turn's UTC instant; the
LLM's prompts show the turn's time in its offset, and UTC turns exactly as before."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from consolidation.consolidating.consolidator import RefineInput, Turn
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.consolidating.offline.facts import facts
from consolidation.consolidating.prompts.common import DATA_RULES
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, data_of, episode_reply, task_of

# Salient ("Please remember that"), so one turn is consolidated at once.
SAID = "Please remember that I had my dentist appointment yesterday."
KARACHI = datetime.fromisoformat("2026-12-05T01:30:00+05:00")
INSTANT = datetime(2026, 12, 4, 20, 30, tzinfo=UTC)
LOCAL_FACT = "Bob had bob's dentist appointment on 4 December 2026."
UTC_FACT = "Bob had bob's dentist appointment on 3 December 2026."
NO_RECURRENCE: dict[str, object] = {"theta_sim": 0.99, "theta_count": 5, "merge_threshold": 0.99}


async def _facts(engine: MemoryEngine, at: datetime) -> list[tuple[str, datetime]]:
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "bob")
    done = await engine.remember(owner, Unit(text=SAID, speaker="bob", occurred_at=at))
    assert done.consolidation is not None and done.consolidation.fact_ids, done.consolidation
    found = await engine.stores.browse.facts(owner.tenant, done.consolidation.fact_ids)
    return [(fact.text, fact.valid_from) for fact in found.values()]


def _offline_model(body: dict[str, Any]) -> Reply:
    """A model that dates as the offline rules do, from the turns' times as the prompt gave them."""
    data = data_of(body)
    turns = [
        Turn(id=t["id"], speaker=t["speaker"], occurred_at=t["at"], text=t["text"]) for t in data["turns"]
    ]
    drafts = facts(RefineInput(episode_summary=data["episode_summary"], turns=turns))
    return Reply.json({"facts": [draft.model_dump(mode="json") for draft in drafts]})


async def test_offline_a_turns_yesterday_is_its_own_local_yesterday(db: Database) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**NO_RECURRENCE)
    )
    local = await _facts(engine, KARACHI)
    assert local == [(LOCAL_FACT, INSTANT)]
    # The same instant sent in UTC is on UTC's calendar: the day before, as ever.
    utc = await _facts(engine, INSTANT)
    assert utc == [(UTC_FACT, INSTANT)]


async def test_the_llm_sees_the_turn_in_its_offset(db: Database, llm: LocalLLMServer) -> None:
    llm.set_responder(by_task(create_episode=episode_reply("Dentist"), refine_facts=_offline_model))
    engine = llm_engine(db, llm, **NO_RECURRENCE)
    before = len(llm.requests)
    assert await _facts(engine, KARACHI) == [(LOCAL_FACT, INSTANT)]
    prompts = llm.requests[before:]
    assert {task_of(body) for body in prompts} == {"create_episode", "refine_facts"}
    for body in prompts:
        assert [t["at"] for t in data_of(body)["turns"]] == ["2026-12-05T01:30:00+05:00"]
        system = body["messages"][0]["content"]
        assert "in the offset it was said in" in system and DATA_RULES not in system

    # A UTC turn's prompts say what they always said.
    before = len(llm.requests)
    await _facts(engine, INSTANT)
    for body in llm.requests[before:]:
        assert [t["at"] for t in data_of(body)["turns"]] == ["2026-12-04T20:30:00Z"]
        assert body["messages"][0]["content"].endswith(DATA_RULES)


async def test_a_recall_context_dates_the_turns_words_on_its_calendar(db: Database) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**NO_RECURRENCE)
    )
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "bob")
    for at in (KARACHI, INSTANT.replace(hour=8)):
        await engine.remember(
            owner,
            Unit(text="I went to the dentist yesterday.", speaker="bob", occurred_at=at),
            consolidate=False,
        )
    recall = await engine.recall(owner, "When did Bob go to the dentist?", tokens=500)
    assert recall.context is not None
    # Listed under the asker's (UTC) day, 4 December; the +05:00 turn's yesterday is the 4th too,
    # the UTC turn's the 3rd.
    assert recall.context.text == (
        "Conversation:\n4 December 2026:\n"
        "- bob: I went to the dentist yesterday (3 December 2026).\n"
        "- bob: I went to the dentist yesterday (4 December 2026)."
    )
