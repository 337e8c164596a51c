"""The LLM planner (RECMEM_PLANNER=llm) over real HTTP to the local server, recall on a real Neo4j:
a valid plan is used, a bad window is dropped and said, and malformed, slow, rejected or empty
replies fall back to the rule plan, with the call's tokens counted either way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine, PlannerConfigError
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.recall.planning import Order, QuestionKind
from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
from consolidation.types import Unit
from consolidation.wiring import AppSettings, build_memory
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task, plan_reply

SAID = [
    (datetime(2022, 9, 5, 10, tzinfo=UTC), "My job title is junior engineer at the plant."),
    (datetime(2023, 1, 9, 10, tzinfo=UTC), "My job title is engineer at the plant."),
    (datetime(2023, 5, 22, 10, tzinfo=UTC), "My job title is senior engineer at the plant."),
]
ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)
# Nothing the rules read: no window, no order, a lookup.
PLAIN = "What is my job title?"


async def _engine(db: Database, owner: Owner, llm: LocalLLMServer, **settings: object) -> MemoryEngine:
    engine = llm_engine(db, llm, planner="llm", **settings)
    for at, text in SAID:
        await engine.remember(owner, Unit(text=text, speaker="Sam", occurred_at=at), consolidate=False)
    llm.reset()  # only the planner's calls from here on
    return engine


def _spent(llm: LocalLLMServer) -> tuple[int, int, int]:
    ok = [u for u in llm.usage_log if u["status"] == 200]
    return len(llm.usage_log), sum(u["prompt_tokens"] for u in ok), sum(u["completion_tokens"] for u in ok)


async def test_a_valid_plan_is_used_and_its_tokens_counted(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = await _engine(db, owner, llm)
    llm.set_responder(
        by_task(
            plan_question=plan_reply(
                window_start="2023-05-01", window_end="2023-06-01", window_text="in May", order="latest"
            )
        )
    )
    found = await engine.recall(owner, PLAIN, tokens=400, asked_at=ASKED)
    plan = found.plan
    assert plan is not None and plan.source == "llm" and plan.fallback is None
    assert plan.order is Order.LATEST and plan.window is not None
    assert (plan.window.start, plan.window.end) == (
        datetime(2023, 5, 1, tzinfo=UTC),
        datetime(2023, 6, 1, tzinfo=UTC),
    )
    # The LLM's order ranks the latest statement first, as the rules' would.
    assert found.subconscious[0].text == SAID[2][1]
    assert found.context is not None and f"- Sam: (latest) {SAID[2][1]}" in found.context.text.splitlines()
    calls, prompt, completion = _spent(llm)
    assert (plan.llm_calls, plan.prompt_tokens, plan.completion_tokens) == (calls, prompt, completion)
    assert calls == 1 and prompt > 0 and completion > 0
    request = llm.requests[0]
    assert request["response_format"]["json_schema"]["name"] == "plan_question"
    assert (
        PLAIN in request["messages"][-1]["content"]
        and "2023-06-14T13:43:00Z" in request["messages"][-1]["content"]
    )


async def test_the_question_offset_is_sent_and_the_reply_days_read_in_it(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = await _engine(db, owner, llm)
    llm.set_responder(
        by_task(
            plan_question=plan_reply(
                window_start="2026-12-05", window_end="2026-12-06", window_text="yesterday"
            )
        )
    )
    asked = datetime(2026, 12, 6, 1, 30, tzinfo=timezone(timedelta(hours=5)))
    plan = (await engine.recall(owner, "What did I do yesterday?", asked_at=asked)).plan
    # The model is shown the asker's clock, and its days are the asker's: 5 December in +05:00.
    assert '"asked_at": "2026-12-06T01:30:00+05:00"' in llm.requests[0]["messages"][-1]["content"]
    assert plan is not None and plan.source == "llm" and plan.window is not None
    assert (plan.window.start, plan.window.end) == (
        datetime(2026, 12, 4, 19, tzinfo=UTC),
        datetime(2026, 12, 5, 19, tzinfo=UTC),
    )


async def test_a_window_ending_before_it_starts_is_dropped_and_said(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = await _engine(db, owner, llm)
    llm.set_responder(
        by_task(
            plan_question=plan_reply(window_start="2023-06-01", window_end="2023-05-01", kind="aggregate")
        )
    )
    plan = (await engine.recall(owner, PLAIN, asked_at=ASKED)).plan
    assert plan is not None and plan.source == "llm" and plan.window is None
    assert plan.kind is QuestionKind.AGGREGATE
    assert len(plan.notes) == 1 and plan.notes[0].startswith("window dropped")


async def test_the_generic_schema_reply_is_a_usable_plan(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = await _engine(db, owner, llm)
    plan = (await engine.recall(owner, PLAIN, asked_at=ASKED)).plan
    # Schema-valid: used; its window strings are not dates, so the window is dropped and said.
    assert plan is not None and plan.source == "llm" and plan.fallback is None
    assert plan.window is None and plan.notes and plan.notes[0].startswith("window dropped")


@pytest.mark.parametrize(
    ("replies", "reason", "calls"),
    [
        ((Reply.invalid_json(), Reply.invalid_json()), "llm invalid output", 2),
        # A refusal leaves the message content empty: re-asked once, then given up.
        ((Reply.text(""), Reply.text("")), "llm invalid output", 2),
        ((Reply.error(400, "The request was refused by the content policy."),), "llm rejected", 1),
        # The client retries a 503 once (max_retries=1), then gives up.
        ((Reply.error(503), Reply.error(503)), "llm unavailable", 2),
    ],
)
async def test_a_failed_call_falls_back_to_the_rules(
    db: Database, owner: Owner, llm: LocalLLMServer, replies: tuple[Reply, ...], reason: str, calls: int
) -> None:
    engine = await _engine(db, owner, llm)
    llm.script(*replies)
    found = await engine.recall(owner, "What is my current job title?", tokens=400, asked_at=ASKED)
    plan = found.plan
    assert plan is not None and plan.source == "rules" and plan.fallback == reason
    # The rule plan is the one searched by: "current" reads as the latest order.
    assert plan.order is Order.LATEST and found.subconscious[0].text == SAID[2][1]
    logged, prompt, _ = _spent(llm)
    assert logged == calls and llm.pending_replies == 0
    assert plan.prompt_tokens == prompt  # tokens of malformed replies count; failed HTTP calls bill none


async def test_a_slow_reply_past_the_timeout_falls_back(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = await _engine(db, owner, llm, planner_timeout_s=0.3)
    llm.script(Reply.slow(3.0, then=Reply.json({"order": "earliest"})))
    started = datetime.now(UTC)
    plan = (await engine.recall(owner, "What is my current job title?", asked_at=ASKED)).plan
    assert (datetime.now(UTC) - started).total_seconds() < 2.0
    assert plan is not None and plan.source == "rules" and plan.fallback == "llm timeout"
    assert plan.order is Order.LATEST and plan.llm_calls == 0


async def test_llm_without_an_endpoint_is_refused_at_start(db: Database) -> None:
    with pytest.raises(PlannerConfigError, match="RECMEM_LLM_BASE_URL"):
        MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(planner="llm"))
    settings = AppSettings(
        embedder=EmbedderSettings(kind="hashing", dimension=DIMENSION),
        llm=LLMSettings(base_url=None, api_key=None),
        engine=EngineSettings(planner="llm"),
    )
    with pytest.raises(PlannerConfigError):
        build_memory(db, settings, warn_offline=False)
