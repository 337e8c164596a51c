"""The OpenAI-compatible provider over real HTTP against LocalLLMServer, and LLMConsolidator."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from consolidation.consolidating.consolidator import (
    AnswerInput,
    EpisodeDraft,
    EpisodeInput,
    EvidenceItem,
    FactDrafts,
    RefineInput,
    Turn,
)
from consolidation.consolidating.llm_consolidator import LLMConsolidator
from consolidation.consolidating.prompts import create_episode
from consolidation.providers.llm import (
    LLMError,
    LLMInvalidOutput,
    LLMResult,
    LLMUnavailable,
    Usage,
    build_language_model,
)
from consolidation.providers.llm.openai_chat import OpenAIChatModel
from consolidation.providers.llm.types import ChatMessage
from consolidation.settings import LLMSettings
from local_llm_server import LocalLLMServer, Reply

AT = datetime(2023, 5, 8, 14, 30, tzinfo=UTC)
EPISODE = {"title": "Sushi", "summary": "On 2023-05-08, Caroline said that Caroline loves sushi."}
TURNS = [Turn(id="t1", speaker="Caroline", occurred_at=AT, text="I love sushi.")]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalLLMServer]:
    with LocalLLMServer() as running:
        yield running


@pytest.fixture(autouse=True)
def clean(server: LocalLLMServer) -> None:
    server.reset()


def chat_model(server: LocalLLMServer, **overrides: Any) -> OpenAIChatModel:
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "local-test-model",
        "timeout_s": 5.0,
        "max_retries": 2,
    }
    values.update(overrides)
    return OpenAIChatModel(LLMSettings(**values))


async def ask_episode(model: OpenAIChatModel) -> LLMResult[EpisodeDraft]:
    messages = create_episode.messages(EpisodeInput(turns=TURNS))
    return await model.structured(messages, EpisodeDraft, task=create_episode.TASK)


def logged(server: LocalLLMServer) -> tuple[int, int]:
    log = server.usage_log
    return sum(e["prompt_tokens"] for e in log), sum(e["completion_tokens"] for e in log)


# --- Usage -----------------------------------------------------------------------------------


def test_usage_adds_and_sums() -> None:
    a = Usage(model="m", prompt_tokens=10, completion_tokens=2, latency_ms=5.0)
    b = Usage(model="m", prompt_tokens=3, completion_tokens=4, latency_ms=1.0, calls=2)
    assert a + b == Usage(model="m", prompt_tokens=13, completion_tokens=6, latency_ms=6.0, calls=3)
    assert sum([a, b, a]) == a + b + a
    assert (a + Usage.zero("x")).model == "m+x"


def test_build_language_model_is_none_until_configured() -> None:
    assert build_language_model(LLMSettings(base_url=None, api_key=None)) is None
    built = build_language_model(LLMSettings(base_url="http://127.0.0.1:9/v1", model="m1"))
    assert isinstance(built, OpenAIChatModel) and built.name == "openai" and built.model == "m1"


# --- structured output over HTTP -------------------------------------------------------------


async def test_scripted_reply_is_parsed_and_usage_matches_server(server: LocalLLMServer) -> None:
    server.script(Reply.json(EPISODE))
    result = await ask_episode(chat_model(server))
    assert result.value == EpisodeDraft(**EPISODE)
    prompt, completion = logged(server)
    assert prompt > 0 and completion > 0
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (prompt, completion)
    assert result.usage.calls == 1 and result.usage.latency_ms > 0
    assert result.usage.model == "local-test-model"


async def test_request_sends_the_response_models_schema(server: LocalLLMServer) -> None:
    server.script(Reply.json(EPISODE))
    await ask_episode(chat_model(server, temperature=0.0))
    body = server.requests[0]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "create_episode",
            "schema": EpisodeDraft.model_json_schema(),
            "strict": False,
        },
    }
    assert body["messages"] == create_episode.messages(EpisodeInput(turns=TURNS))
    assert body["model"] == "local-test-model" and body["temperature"] == 0.0


async def test_server_error_is_retried_by_the_client(server: LocalLLMServer) -> None:
    server.script(Reply.error(500), Reply.json(EPISODE))
    result = await ask_episode(chat_model(server))
    assert result.value.title == "Sushi"
    assert [e["status"] for e in server.usage_log] == [500, 200]
    assert result.usage.prompt_tokens == logged(server)[0]


async def test_rate_limit_is_retried(server: LocalLLMServer) -> None:
    server.script(Reply.rate_limited(), Reply.json(EPISODE))
    assert (await ask_episode(chat_model(server))).value.title == "Sushi"
    assert server.chat_calls == 2


async def test_persistent_server_error_is_unavailable(server: LocalLLMServer) -> None:
    server.script(Reply.error(503), Reply.error(503))
    with pytest.raises(LLMUnavailable) as caught:
        await ask_episode(chat_model(server, max_retries=1))
    assert caught.value.status == "unavailable" and caught.value.usage is None
    assert server.chat_calls == 2


async def test_invalid_json_is_reasked_once(server: LocalLLMServer) -> None:
    server.script(Reply.invalid_json(), Reply.json(EPISODE))
    result = await ask_episode(chat_model(server))
    assert result.value.summary == EPISODE["summary"]
    assert result.usage.calls == 2
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == logged(server)
    first, second = server.requests
    assert len(second["messages"]) == len(first["messages"]) + 2
    assert second["messages"][-2]["role"] == "assistant"
    assert "could not be used" in second["messages"][-1]["content"]


async def test_invalid_twice_raises_with_usage(server: LocalLLMServer) -> None:
    server.script(Reply.invalid_json(), Reply.json({"title": "only a title"}))
    with pytest.raises(LLMInvalidOutput) as caught:
        await ask_episode(chat_model(server))
    error = caught.value
    assert error.status == "invalid_output" and "summary" in str(error)
    assert error.usage is not None and error.usage.calls == 2
    assert (error.usage.prompt_tokens, error.usage.completion_tokens) == logged(server)
    assert server.chat_calls == 2


async def test_timeout_is_unavailable(server: LocalLLMServer) -> None:
    server.script(Reply.slow(2.0, then=Reply.json(EPISODE)))
    with pytest.raises(LLMUnavailable) as caught:
        await ask_episode(chat_model(server, timeout_s=0.3, max_retries=0))
    assert caught.value.status == "timeout"


async def test_client_error_is_rejected_without_leaking_the_key(server: LocalLLMServer) -> None:
    server.script(Reply.error(401, "bad credentials"))
    model = chat_model(server, api_key=SecretStr("sk-very-secret-key"))
    with pytest.raises(LLMError) as caught:
        await ask_episode(model)
    assert not isinstance(caught.value, LLMUnavailable)
    assert caught.value.status == "rejected" and "401" in str(caught.value)
    assert "sk-very-secret" not in str(caught.value) and "sk-very-secret" not in repr(model.__dict__)
    assert server.chat_calls == 1  # 4xx are not retried


async def test_json_schema_rejection_falls_back_to_json_object(server: LocalLLMServer) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        if body["response_format"]["type"] == "json_schema":
            return Reply.error(400, "response_format json_schema not supported")
        return Reply.json(EPISODE)

    server.set_responder(responder)
    model = chat_model(server)
    first = await ask_episode(model)
    assert first.value.title == "Sushi" and model.json_schema_supported is False
    assert [b["response_format"]["type"] for b in server.requests] == ["json_schema", "json_object"]
    system = server.requests[1]["messages"][0]
    assert system["role"] == "system" and '"summary"' in system["content"]
    assert "JSON Schema" in system["content"]
    await ask_episode(model)  # remembered: straight to json_object
    assert [b["response_format"]["type"] for b in server.requests][2:] == ["json_object"]


async def test_other_bad_request_does_not_trigger_fallback(server: LocalLLMServer) -> None:
    server.script(Reply.error(400, "context length exceeded"))
    model = chat_model(server)
    with pytest.raises(LLMError) as caught:
        await ask_episode(model)
    assert caught.value.status == "rejected" and model.json_schema_supported is True


async def test_fenced_json_is_accepted(server: LocalLLMServer) -> None:
    server.script(Reply.text('```json\n{"title": "Sushi", "summary": "s"}\n```'))
    assert (await ask_episode(chat_model(server))).value.title == "Sushi"


# --- LLMConsolidator -------------------------------------------------------------------------


async def test_llm_consolidator_end_to_end_with_generic_replies(server: LocalLLMServer) -> None:
    consolidator = LLMConsolidator(chat_model(server))
    assert (consolidator.name, consolidator.model) == ("openai", "local-test-model")
    episode = await consolidator.create_episode(EpisodeInput(turns=TURNS))
    assert episode.value.title and episode.value.summary
    facts = await consolidator.refine_facts(
        RefineInput(episode_summary=episode.value.summary, turns=TURNS, existing_facts=[])
    )
    assert isinstance(facts.value, FactDrafts)
    for fact in facts.value.facts:  # generic ids are made up; only known ones survive
        assert set(fact.source_turn_ids) <= {"t1"} and fact.replaces == []
    assert episode.usage.prompt_tokens + facts.usage.prompt_tokens == logged(server)[0]


class FakeModel:
    """A LanguageModel that records what it was asked and answers from a fixed dict."""

    name = "fake"
    model = "fake-1"

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.calls: list[tuple[list[ChatMessage], str]] = []

    async def structured(
        self, messages: list[ChatMessage], response_model: type[Any], *, task: str
    ) -> LLMResult[Any]:
        self.calls.append((messages, task))
        value: BaseModel = response_model.model_validate(self.reply)
        return LLMResult(value=value, usage=Usage("fake-1", 1, 1, 1.0))


async def test_llm_consolidator_filters_ids_the_model_invents() -> None:
    fake = FakeModel({"answer": "Sushi.", "used_ids": ["f1", "made-up"]})
    consolidator = LLMConsolidator(fake)
    inp = AnswerInput(
        question="What does Caroline love?",
        facts=[EvidenceItem(id="f1", text="Caroline loves sushi.", at=AT)],
    )
    result = await consolidator.answer(inp)
    assert result.value.used_ids == ["f1"] and result.usage.prompt_tokens == 1
    messages, task = fake.calls[0]
    assert task == "answer" and "Caroline loves sushi." in messages[1]["content"]
