"""The planner on a real Neo4j: relative dates resolve against the question's day, a window
lifts the turns inside it, and "current" puts the latest statement first and marks older ones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.recall.planning import Order
from consolidation.types import Recall, Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, episode_reply, facts_reply

# One topic said four times over a year; the question is asked on 14 June 2023.
SAID = [
    (datetime(2022, 9, 5, 10, tzinfo=UTC), "My job title is junior engineer at the plant."),
    (datetime(2023, 1, 9, 10, tzinfo=UTC), "My job title is engineer at the plant."),
    (datetime(2023, 5, 22, 10, tzinfo=UTC), "My job title is senior engineer at the plant."),
    (datetime(2023, 3, 13, 10, tzinfo=UTC), "The plant canteen serves soup on Mondays."),
]
ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)


async def _engine(db: Database, owner: Owner, **settings: object) -> MemoryEngine:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**settings))
    for at, text in SAID:
        await engine.remember(owner, Unit(text=text, speaker="Sam", occurred_at=at), consolidate=False)
    return engine


def _turns(found: Recall) -> list[str]:
    return [h.text for h in found.subconscious]


async def test_current_puts_the_latest_statement_first_and_marks_the_older(
    db: Database, owner: Owner
) -> None:
    engine = await _engine(db, owner)
    found = await engine.recall(owner, "What is my current job title?", tokens=400, asked_at=ASKED)
    assert found.plan is not None and found.plan.order is Order.LATEST
    assert _turns(found)[0] == SAID[2][1]
    assert found.context is not None
    lines = found.context.text.splitlines()
    assert f"- Sam: (latest) {SAID[2][1]}" in lines
    assert f"- Sam: (earlier) {SAID[1][1]}" in lines
    # The day headers say how long before the question each day was.
    assert "22 May 2023 (3 weeks before):" in lines
    # Without the planner the same memory ranks by wording alone and marks nothing.
    plain = await _engine(db, Owner(owner.tenant, owner.user_id + "-off"), planner="off")
    unplanned = await plain.recall(
        Owner(owner.tenant, owner.user_id + "-off"),
        "What is my current job title?",
        tokens=400,
        asked_at=ASKED,
    )
    assert unplanned.plan is None
    assert unplanned.context is not None
    assert "(latest)" not in unplanned.context.text and "22 May 2023:" in unplanned.context.text


async def test_first_puts_the_earliest_statement_first(db: Database, owner: Owner) -> None:
    engine = await _engine(db, owner)
    found = await engine.recall(owner, "What was my first job title?", asked_at=ASKED)
    assert _turns(found)[0] == SAID[0][1]


async def test_a_window_resolves_against_the_day_asked(db: Database, owner: Owner) -> None:
    engine = await _engine(db, owner)
    question = "What was my job title three weeks ago?"
    found = await engine.recall(owner, question, asked_at=ASKED)
    assert found.plan is not None and found.plan.window is not None
    assert found.plan.window.start == datetime(2023, 5, 20, tzinfo=UTC)
    assert _turns(found)[0] == SAID[2][1]
    # Asked five months earlier, the same words name January, and January's statement leads.
    earlier = await engine.recall(owner, question, asked_at=datetime(2023, 1, 30, 9, tzinfo=UTC))
    assert earlier.plan is not None and earlier.plan.window is not None
    assert earlier.plan.window.start == datetime(2023, 1, 5, tzinfo=UTC)
    assert _turns(earlier)[0] == SAID[1][1]


async def test_without_asked_at_the_question_is_asked_now(db: Database, owner: Owner) -> None:
    engine = await _engine(db, owner)
    before = datetime.now(UTC)
    found = await engine.recall(owner, "What did I say last week?")
    assert found.plan is not None and before <= found.plan.asked_at <= datetime.now(UTC)


async def test_a_fact_that_replaced_another_shows_the_earlier_value(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99, theta_count=2)

    def facts(data: dict[str, Any]) -> list[dict[str, Any]]:
        last = data["turns"][-1]
        old = [f["id"] for f in data["existing_facts"] if "loves sushi" in f["text"]]
        shifted = "can't stand" in last["text"]
        text = "Alice dislikes sushi." if shifted else "Alice loves sushi."
        return [
            {
                "text": text,
                "kind": "preference",
                "source_turn_ids": [last["id"]],
                "replaces": old if shifted else [],
            }
        ]

    llm.set_responder(by_task(create_episode=episode_reply("Sushi"), refine_facts=facts_reply(facts)))
    start = datetime(2024, 3, 1, 12, tzinfo=UTC)
    for day, text in [
        (0, "I love sushi, sushi is my favourite dinner"),
        (1, "I love sushi dinner so much"),
        (60, "Honestly I can't stand sushi dinner any more"),
        (61, "Sushi dinner? I can't stand sushi any more"),
    ]:
        await engine.remember(
            owner, Unit(text=text, speaker="Alice", occurred_at=start + timedelta(days=day))
        )
    asked = start + timedelta(days=70)
    found = await engine.recall(owner, "Does Alice still like sushi?", tokens=600, asked_at=asked)
    assert found.context is not None
    assert "Alice dislikes sushi. (earlier: Alice loves sushi.)" in found.context.text
    # A question that asks for no order shows the fact as stated.
    plain = await engine.recall(owner, "Does Alice like sushi?", tokens=600, asked_at=asked)
    assert plain.context is not None and "(earlier:" not in plain.context.text


async def test_a_newer_statement_the_question_does_not_match_is_off_the_topic(
    db: Database, owner: Owner
) -> None:
    engine = await _engine(db, owner)
    # The newest turn of a small memory: among its ten best by rank, but not on the topic.
    unrelated = "Remember that the dentist appointment is on Friday."
    await engine.remember(
        owner,
        Unit(text=unrelated, speaker="Sam", occurred_at=datetime(2023, 6, 13, 10, tzinfo=UTC)),
        consolidate=False,
    )
    found = await engine.recall(owner, "What is my current job title?", tokens=400, asked_at=ASKED)
    cosine = {h.text: h.score for h in found.subconscious}
    assert cosine[unrelated] < 0.5 * cosine[SAID[2][1]]  # the premise: it matches less than half as well
    assert _turns(found)[0] == SAID[2][1]
    assert found.context is not None
    lines = found.context.text.splitlines()
    assert f"- Sam: (latest) {SAID[2][1]}" in lines
    assert f"- Sam: {unrelated}" in lines  # shown as said, neither latest nor earlier


async def test_the_offline_answer_to_current_is_the_latest_statement(db: Database, owner: Owner) -> None:
    """It answered from the best word overlap, marks and all: an earlier title could come first."""
    engine = await _engine(db, owner)
    answered = await engine.answer(owner, "What is my current job title?", tokens=400, asked_at=ASKED)
    assert answered.text.startswith(SAID[2][1]), answered.text
    assert SAID[0][1] not in answered.text and SAID[1][1] not in answered.text
    assert "(latest)" not in answered.text and "(earlier)" not in answered.text
