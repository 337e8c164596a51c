"""`ConsolidationEvent.llmCalls` counts the consolidator calls actually made: each remember's
figure equals the chat requests the local OpenAI-compatible server received for it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from api.app import create_app
from consolidation.engine import MemoryEngine
from consolidation.wiring import AppSettings
from graph.database import Database
from local_llm_server import LocalLLMServer
from tests.support.api import Caller, make_api_settings, new_caller
from tests.support.conversations import SUSHI
from tests.support.engines import llm_engine
from tests.support.llm_script import consolidation_replies, task_of

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
REMEMBER = """
mutation($input: RememberInput!) {
  remember(input: $input) { consolidation { action llmCalls } }
}"""


@pytest.fixture
async def engine(db: Database, llm: LocalLLMServer) -> MemoryEngine:
    # Merge-first is out of reach until the test lowers the threshold.
    return llm_engine(db, llm, merge_threshold=0.99)


@pytest.fixture
async def api(db: Database, engine: MemoryEngine) -> AsyncIterator[Caller]:
    app = create_app(AppSettings(), make_api_settings(), engine=engine)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            yield await new_caller(db, http)


async def remember(api: Caller, llm: LocalLLMServer, user: str, text: str, day: int) -> tuple[Any, list[str]]:
    """The remember's (action, llmCalls), and the tasks of the LLM requests it made."""
    before = len(llm.requests)
    unit = {
        "userId": user,
        "text": text,
        "speaker": "Alice",
        "occurredAt": (T0 + timedelta(days=day)).isoformat(),
    }
    data = await api.gql(REMEMBER, {"input": unit})
    event = data["remember"]["consolidation"]
    return (event["action"], event["llmCalls"]), [task_of(body) for body in llm.requests[before:]]


async def test_a_merge_counts_its_two_calls(api: Caller, engine: MemoryEngine, llm: LocalLLMServer) -> None:
    llm.set_responder(consolidation_replies("Sushi"))
    user = f"u-{uuid.uuid4().hex[:8]}"
    for day, text in enumerate(SUSHI[:2]):
        assert (await remember(api, llm, user, text, day)) == (("NONE", 0), [])
    created = await remember(api, llm, user, SUSHI[2], 2)
    assert created == (("CREATED", 2), ["create_episode", "refine_facts"])
    engine.settings.merge_threshold = 0.2
    merged = await remember(api, llm, user, SUSHI[3], 10)
    # The formula this replaced, 2 + (1 if previous else 0), said 3.
    assert merged == (("MERGED", 2), ["merge_decision", "refine_facts"])


async def test_a_refused_merge_counts_as_the_call_it_was(
    api: Caller, engine: MemoryEngine, llm: LocalLLMServer
) -> None:
    llm.set_responder(consolidation_replies("Sushi", continues=False))
    user = f"u-{uuid.uuid4().hex[:8]}"
    for day, text in enumerate(SUSHI[:3]):
        await remember(api, llm, user, text, day)
    engine.settings.merge_threshold = 0.2
    # Near the episode, so a merge is asked for and refused; the gate stays shut: one call.
    refused = await remember(api, llm, user, SUSHI[3], 10)
    assert refused == (("NONE", 1), ["merge_decision"])
    await remember(api, llm, user, SUSHI[0], 11)
    # A refused merge, then the gate opens on its own: a new episode. The old formula said 2.
    created = await remember(api, llm, user, SUSHI[1], 12)
    assert created == (("CREATED", 3), ["merge_decision", "create_episode", "refine_facts"])
