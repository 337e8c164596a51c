"""The local OpenAI-compatible server, exercised with the real openai client over real HTTP."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from datetime import date, datetime
from typing import Any, Literal
from uuid import UUID

import httpx
import numpy as np
import openai
import pytest
from pydantic import BaseModel, Field

from local_llm_server import LocalLLMServer, Reply
from local_llm_server.schema_instance import SchemaInstanceError, schema_instance
from local_llm_server.text_source import TextSource

MODEL = "local-test-model"
USER_TEXT = (
    "Alice moved to Lisbon in March. She works as a marine biologist at the aquarium. "
    "Her brother Bob visits every summer."
)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalLLMServer]:
    with LocalLLMServer(model=MODEL, embedding_dimension=64) as running:
        yield running


@pytest.fixture(autouse=True)
def _fresh_server(server: LocalLLMServer) -> None:
    server.reset()


@pytest.fixture
async def client(server: LocalLLMServer) -> AsyncIterator[openai.AsyncOpenAI]:
    # No retries by default so every test states the retry behaviour it relies on.
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0) as c:
        yield c


def _o200k_count(text: str) -> int:
    """Token count straight from bpe_openai, independent of the server's tokens module."""
    with warnings.catch_warnings():
        # bpe_openai loads its rank tables with a deprecated importlib.resources call.
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return len(bpe_openai.get_encoding("o200k_base").encode_ordinary(text))


def _user(text: str = USER_TEXT) -> list[Any]:
    return [
        {"role": "system", "content": "Extract facts as JSON."},
        {"role": "user", "content": text},
    ]


def _schema_format(model: type[BaseModel]) -> Any:
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "schema": model.model_json_schema()},
    }


# -- scripted replies ------------------------------------------------------------------


async def test_scripted_json_reply_is_returned_and_request_recorded(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    scripted = {"facts": [{"subject": "Alice", "city": "Lisbon"}], "count": 1}
    server.script(Reply.json(scripted))

    completion = await client.chat.completions.create(
        model=MODEL, messages=_user(), response_format={"type": "json_object"}
    )

    assert json.loads(completion.choices[0].message.content or "") == scripted
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == MODEL
    assert server.chat_calls == 1
    assert server.requests[0]["messages"] == _user()
    assert server.requests[0]["response_format"] == {"type": "json_object"}
    assert server.pending_replies == 0


async def test_usage_counts_o200k_tokens_with_per_message_overhead(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    reply_text = "Alice lives in Lisbon; Bob visits her every summer."
    server.script(Reply.text(reply_text))
    messages: list[Any] = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": USER_TEXT, "name": "tester"},
    ]

    completion = await client.chat.completions.create(model=MODEL, messages=messages)

    # Independent count: the cookbook formula on top of the raw o200k tokenizer.
    count = _o200k_count
    expected_prompt = 3 + sum(3 + count(m["role"]) + count(m["content"]) for m in messages)
    expected_prompt += count("tester") + 1
    expected_completion = count(reply_text)
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == expected_prompt
    assert completion.usage.completion_tokens == expected_completion
    assert completion.usage.total_tokens == expected_prompt + expected_completion
    assert server.usage_log == [
        {
            "prompt_tokens": expected_prompt,
            "completion_tokens": expected_completion,
            "model": MODEL,
            "status": 200,
        }
    ]


async def test_content_parts_are_counted_as_text(client: openai.AsyncOpenAI, server: LocalLLMServer) -> None:
    parts: list[Any] = [{"type": "text", "text": "first part"}, {"type": "text", "text": "second"}]
    plain = await client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "first part\nsecond"}]
    )
    split = await client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": parts}])
    assert plain.usage is not None and split.usage is not None
    assert split.usage.prompt_tokens == plain.usage.prompt_tokens
    assert split.choices[0].message.content == plain.choices[0].message.content


# -- faults ----------------------------------------------------------------------------


async def test_server_error_then_success_is_retried_by_the_client(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    server.script(Reply.error(500, "boom"), Reply.json({"ok": True}))

    completion = await client.with_options(max_retries=1).chat.completions.create(
        model=MODEL, messages=_user()
    )

    assert json.loads(completion.choices[0].message.content or "") == {"ok": True}
    assert server.chat_calls == 2
    assert [entry["status"] for entry in server.usage_log] == [500, 200]
    assert server.usage_log[0]["prompt_tokens"] == 0


async def test_server_error_without_retry_raises_with_openai_error_body(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    server.script(Reply.error(503, "overloaded"))

    with pytest.raises(openai.InternalServerError) as raised:
        await client.chat.completions.create(model=MODEL, messages=_user())

    assert raised.value.status_code == 503
    assert raised.value.body == {
        "message": "overloaded",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert server.chat_calls == 1


async def test_rate_limit_then_success_is_retried(client: openai.AsyncOpenAI, server: LocalLLMServer) -> None:
    server.script(Reply.rate_limited(), Reply.text("after the limit"))

    completion = await client.with_options(max_retries=1).chat.completions.create(
        model=MODEL, messages=_user()
    )

    assert completion.choices[0].message.content == "after the limit"
    assert server.chat_calls == 2
    assert [entry["status"] for entry in server.usage_log] == [429, 200]


async def test_rate_limit_response_shape(server: LocalLLMServer) -> None:
    server.script(Reply.rate_limited("slow down"))
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{server.base_url}/chat/completions", json={"model": MODEL, "messages": _user()}
        )
    assert response.status_code == 429
    assert response.headers["retry-after"] == "0"
    assert response.json()["error"]["type"] == "rate_limit_exceeded"
    assert response.json()["error"]["message"] == "slow down"


async def test_rate_limit_without_retry_raises(client: openai.AsyncOpenAI, server: LocalLLMServer) -> None:
    server.script(Reply.rate_limited())
    with pytest.raises(openai.RateLimitError):
        await client.chat.completions.create(model=MODEL, messages=_user())


async def test_slow_reply_times_out_and_server_notices_the_disconnect(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    server.script(Reply.slow(5.0, then=Reply.text("too late")))

    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        await client.with_options(timeout=0.3).chat.completions.create(model=MODEL, messages=_user())
    # Well before the 5 s reply, with room for a loaded machine.
    assert time.monotonic() - started < 4.0

    # The abandoned request ends early (status 499) instead of sleeping 5 s.
    for _ in range(225):  # polls until 4.5 s after the request
        if server.usage_log or time.monotonic() - started >= 4.5:
            break
        await asyncio.sleep(0.02)
    assert [entry["status"] for entry in server.usage_log] == [499]
    follow_up = await client.chat.completions.create(model=MODEL, messages=_user())
    assert follow_up.choices[0].message.content


async def test_slow_reply_then_answers(client: openai.AsyncOpenAI, server: LocalLLMServer) -> None:
    server.script(Reply.slow(0.2, then=Reply.text("late but fine")), Reply.slow(0.05))

    started = time.monotonic()
    first = await client.chat.completions.create(model=MODEL, messages=_user())
    elapsed = time.monotonic() - started
    second = await client.chat.completions.create(model=MODEL, messages=_user())

    assert first.choices[0].message.content == "late but fine"
    assert elapsed >= 0.2
    # `then=None` falls back to the generic reply.
    assert (second.choices[0].message.content or "").startswith("Summary: ")


async def test_invalid_json_reply_cannot_be_parsed(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    server.script(Reply.invalid_json())
    completion = await client.chat.completions.create(
        model=MODEL, messages=_user(), response_format={"type": "json_object"}
    )
    content = completion.choices[0].message.content or ""
    assert content.startswith("{")
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)


async def test_concurrent_requests_each_consume_one_scripted_reply(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    server.script(*(Reply.text(f"reply {i}") for i in range(12)))

    completions = await asyncio.gather(
        *(client.chat.completions.create(model=MODEL, messages=_user()) for _ in range(12))
    )

    contents = sorted(c.choices[0].message.content or "" for c in completions)
    assert contents == sorted(f"reply {i}" for i in range(12))
    assert server.chat_calls == 12
    assert server.pending_replies == 0


# -- responder -------------------------------------------------------------------------


async def test_responder_answers_after_the_queue_and_none_means_generic(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    def responder(body: dict[str, Any]) -> Reply | None:
        last = body["messages"][-1]["content"]
        return Reply.json({"echo": last}) if "echo" in last else None

    server.set_responder(responder)
    server.script(Reply.text("queued first"))

    queued = await client.chat.completions.create(model=MODEL, messages=_user("echo me"))
    answered = await client.chat.completions.create(model=MODEL, messages=_user("echo me"))
    generic = await client.chat.completions.create(model=MODEL, messages=_user("plain."))

    assert queued.choices[0].message.content == "queued first"
    assert json.loads(answered.choices[0].message.content or "") == {"echo": "echo me"}
    assert generic.choices[0].message.content == "Summary: plain."


async def test_failing_responder_becomes_a_500(client: openai.AsyncOpenAI, server: LocalLLMServer) -> None:
    def responder(body: dict[str, Any]) -> Reply | None:
        raise KeyError("missing")

    server.set_responder(responder)
    with pytest.raises(openai.InternalServerError, match="responder raised"):
        await client.chat.completions.create(model=MODEL, messages=_user())


async def test_reset_clears_queue_responder_and_logs(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    await client.chat.completions.create(model=MODEL, messages=_user())
    server.script(Reply.text("never used"))
    server.set_responder(lambda body: Reply.text("responder"))

    server.reset()

    assert (server.chat_calls, server.requests, server.usage_log) == (0, [], [])
    completion = await client.chat.completions.create(model=MODEL, messages=_user())
    assert (completion.choices[0].message.content or "").startswith("Summary: ")


# -- generic replies -------------------------------------------------------------------


class Entity(BaseModel):
    name: str
    kind: Literal["person", "place", "organisation"]


class Fact(BaseModel):
    statement: str = Field(min_length=5, max_length=80)
    confidence: float = Field(ge=0, le=1)
    subject: Entity
    mentions: list[Entity]
    observed_at: datetime
    valid_until: date | None = None
    source_id: str
    episode_id: UUID
    support: int = Field(gt=0)
    tags: dict[str, int]
    polarity: Literal["positive"]


class Extraction(BaseModel):
    facts: list[Fact] = Field(min_length=2)
    summary: str
    note: str | None = None
    needs_review: bool


class TreeNode(BaseModel):
    label: str
    children: list[TreeNode] = []
    parent: TreeNode | None = None


async def test_generic_json_schema_reply_validates_against_the_pydantic_models(
    client: openai.AsyncOpenAI,
) -> None:
    for model in (Extraction, Fact, TreeNode):
        completion = await client.chat.completions.create(
            model=MODEL, messages=_user(), response_format=_schema_format(model)
        )
        content = completion.choices[0].message.content or ""
        model.model_validate_json(content)  # raises on any mismatch


async def test_generic_json_schema_reply_is_content_derived_and_deterministic(
    client: openai.AsyncOpenAI,
) -> None:
    async def ask() -> Extraction:
        completion = await client.chat.completions.create(
            model=MODEL, messages=_user(), response_format=_schema_format(Extraction)
        )
        return Extraction.model_validate_json(completion.choices[0].message.content or "")

    first, second = await ask(), await ask()

    assert first == second
    assert len(first.facts) == 2
    assert first.facts[0].statement in USER_TEXT
    assert first.facts[0].observed_at.isoformat().startswith("2025-01-01T12:00:00")
    assert first.facts[0].subject.kind == "person"  # first enum value
    assert 0 < first.facts[0].confidence < 1
    assert " " not in first.facts[0].source_id  # id-like fields get short slugs


async def test_openai_parse_helper_with_strict_schema(client: openai.AsyncOpenAI) -> None:
    completion = await client.chat.completions.parse(
        model=MODEL, messages=_user(), response_format=Extraction
    )
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Extraction)
    assert parsed.facts[0].mentions[0].kind == "person"


async def test_generic_json_object_and_plain_modes(client: openai.AsyncOpenAI) -> None:
    as_json = await client.chat.completions.create(
        model=MODEL, messages=_user(), response_format={"type": "json_object"}
    )
    as_text = await client.chat.completions.create(model=MODEL, messages=_user())

    assert json.loads(as_json.choices[0].message.content or "") == {
        "response": "Alice moved to Lisbon in March."
    }
    assert as_text.choices[0].message.content == "Summary: Alice moved to Lisbon in March."


def test_schema_instance_handles_keywords_beyond_pydantic_defaults() -> None:
    schema = {
        "type": "object",
        "properties": {
            "maybe": {"type": ["string", "null"], "minLength": 30, "maxLength": 40},
            "merged": {"allOf": [{"$ref": "#/definitions/A"}, {"properties": {"b": {}}}]},
            "odd": {"type": "integer", "exclusiveMinimum": 4, "maximum": 9},
            "below": {"type": "number", "exclusiveMaximum": -2},
            "none": {"type": "array", "items": {"type": "string"}, "maxItems": 0},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"const": "x"}]},
            "choice": {"oneOf": [{"type": "null"}, {"enum": [3, 4]}]},
            "createdAt": {"type": "string"},
        },
        "definitions": {"A": {"type": "object", "properties": {"a": {"type": "boolean"}}}},
    }
    value = schema_instance(schema, TextSource("Short."))

    assert 30 <= len(value["maybe"]) <= 40
    assert value["merged"] == {"a": True, "b": "Short."}
    assert value["odd"] == 5
    assert value["below"] < -2
    assert value["none"] == []
    assert value["pair"] == [1, "x"]
    assert value["choice"] == 3
    assert datetime.fromisoformat(value["createdAt"]).year == 2025


def test_schema_instance_rejects_unresolvable_and_endless_schemas() -> None:
    with pytest.raises(SchemaInstanceError):
        schema_instance({"$ref": "#/$defs/Missing"}, TextSource("x"))
    endless = {
        "$defs": {
            "L": {"type": "object", "properties": {"next": {"$ref": "#/$defs/L"}}, "required": ["next"]}
        },
        "$ref": "#/$defs/L",
    }
    with pytest.raises(SchemaInstanceError):
        schema_instance(endless, TextSource("x"))


async def test_unbuildable_schema_is_reported_as_500(client: openai.AsyncOpenAI) -> None:
    bad_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": "bad", "schema": {"$ref": "#/$defs/Missing"}},
    }
    with pytest.raises(openai.InternalServerError, match="cannot build the schema"):
        await client.chat.completions.create(model=MODEL, messages=_user(), response_format=bad_format)


# -- embeddings ------------------------------------------------------------------------


def _cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_embeddings_shape_normalisation_determinism_and_similarity(
    client: openai.AsyncOpenAI, server: LocalLLMServer
) -> None:
    texts = [
        "Alice moved to Lisbon",
        "Alice has moved to Lisbon recently",
        "quarterly tax filing deadline",
    ]
    response = await client.embeddings.create(model="local-embedding-model", input=texts)
    again = await client.embeddings.create(model="local-embedding-model", input=texts[0])

    vectors = [item.embedding for item in response.data]
    assert [item.index for item in response.data] == [0, 1, 2]
    assert all(len(v) == 64 for v in vectors)  # the server's default dimension
    assert all(abs(np.linalg.norm(v) - 1.0) < 1e-5 for v in vectors)
    assert np.allclose(again.data[0].embedding, vectors[0])
    related, unrelated = _cosine(vectors[0], vectors[1]), _cosine(vectors[0], vectors[2])
    assert related > 0.5
    assert related > unrelated
    assert response.usage.prompt_tokens == sum(_o200k_count(t) for t in texts)
    assert server.embedding_calls == 2


async def test_embeddings_dimensions_and_float_format(client: openai.AsyncOpenAI) -> None:
    response = await client.embeddings.create(
        model="local-embedding-model", input="hello", dimensions=256, encoding_format="float"
    )
    assert len(response.data[0].embedding) == 256
    assert abs(np.linalg.norm(response.data[0].embedding) - 1.0) < 1e-5


async def test_embeddings_base64_matches_float(server: LocalLLMServer) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        body = {"model": "e", "input": ["some text"], "dimensions": 32}
        as_float = (await http.post("/embeddings", json=body)).json()
        as_b64 = (await http.post("/embeddings", json={**body, "encoding_format": "base64"})).json()
    decoded = np.frombuffer(base64.b64decode(as_b64["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(decoded, as_float["data"][0]["embedding"])


async def test_embeddings_reject_bad_dimensions(client: openai.AsyncOpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        await client.embeddings.create(model="e", input="hello", dimensions=0)


# -- models, bad requests, lifecycle ---------------------------------------------------


async def test_models_lists_the_configured_model(client: openai.AsyncOpenAI) -> None:
    page = await client.models.list()
    assert MODEL in [m.id for m in page.data]
    assert (await client.models.retrieve(MODEL)).id == MODEL


@pytest.mark.parametrize(
    ("path", "payload"),
    [
        ("/chat/completions", b"{not json"),
        ("/chat/completions", b"[1, 2]"),
        ("/chat/completions", json.dumps({"model": MODEL}).encode()),
        ("/chat/completions", json.dumps({"model": MODEL, "messages": [{"x": 1}]}).encode()),
        ("/embeddings", json.dumps({"model": "e", "input": ""}).encode()),
    ],
)
async def test_malformed_request_is_a_400(server: LocalLLMServer, path: str, payload: bytes) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        response = await http.post(path, content=payload)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert server.chat_calls == 0


async def test_unknown_path_is_a_404(server: LocalLLMServer) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        response = await http.post("/completions", json={})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_stop_releases_thread_and_port() -> None:
    server = LocalLLMServer().start()
    port = server.port
    assert server.running
    assert [t for t in threading.enumerate() if t.name == f"local-llm-server:{port}"]
    assert httpx.get(f"{server.base_url}/models").status_code == 200

    server.stop()
    server.stop()  # idempotent

    assert not server.running
    assert not [t for t in threading.enumerate() if t.name == f"local-llm-server:{port}"]
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))  # the port is free again
