"""Bad requests never cause a 500 or a write: malformed, too deep, too large, wrong types, oversize
texts, bad timestamps, too many aliases or units; plus masking, timeouts and rate limits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from api.app import create_app
from api.settings import ApiSettings, body_room_for
from consolidation.types import Unit
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.errors import StoreUnavailable
from graph.models import Owner
from tests.support.api import Caller, app_client, count_nodes, make_api_settings, make_engine, new_caller

REMEMBER = "mutation($u: RememberInput!) { remember(input: $u) { created } }"
OFFICIAL = "application/graphql-response+json"


def _remember(**fields: Any) -> dict[str, Any]:
    return {"u": {"userId": "alice", "text": "hello", **fields}}


async def _bad(caller: Caller, query: str, variables: dict[str, Any] | None = None) -> str:
    """The error code of a request that must fail without a 5xx."""
    response = await caller.post(query, variables, accept=OFFICIAL)
    assert response.status_code < 500, response.text
    body = response.json()
    assert body.get("data") is None or any(v is None for v in body["data"].values()), body
    return str(body["errors"][0]["extensions"]["code"])


DEEP = "{ user(id: \"alice\") { episodes { nodes { facts { derivedFrom { episodes { facts { derivedFrom { " \
       "episodes { facts { derivedFrom { episodes { facts { id } } } } } } } } } } } } } }"  # fmt: skip


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        pytest.param('{ user(id: "alice") { id ', None, id="syntax error"),
        pytest.param("{ nothing }", None, id="unknown field"),
        pytest.param(DEEP, None, id="too deep"),
        pytest.param(
            "{ " + " ".join(f"a{i}: __typename" for i in range(20)) + " }", None, id="too many aliases"
        ),
        pytest.param("{ __typename " + "__typename " * 3000 + "}", None, id="too many tokens"),
        pytest.param(
            'mutation { remember(input: {userId: "alice", text: 42}) { created } }', None, id="wrong literal"
        ),
        pytest.param(REMEMBER, {"u": {"userId": "alice", "text": ["x"]}}, id="wrong variable type"),
        pytest.param(REMEMBER, {"u": {"text": "no user"}}, id="missing field"),
        pytest.param(REMEMBER, _remember(text="x" * (256 * 1024 + 1)), id="oversize text"),
        pytest.param(REMEMBER, _remember(text="ü" * (128 * 1024 + 1)), id="oversize in bytes"),
        pytest.param(REMEMBER, _remember(text=""), id="empty text"),
        pytest.param(REMEMBER, _remember(text="   "), id="blank text"),
        pytest.param(REMEMBER, _remember(speaker=""), id="empty speaker"),
        pytest.param(REMEMBER, _remember(userId="u" * 300), id="oversize user id"),
        pytest.param(REMEMBER, _remember(sourceRef="r" * 300), id="oversize source ref"),
        pytest.param(REMEMBER, _remember(occurredAt="yesterday"), id="timestamp not iso"),
        pytest.param(REMEMBER, _remember(occurredAt="2024-05-01T09:00:00"), id="timestamp without zone"),
        pytest.param(REMEMBER, _remember(occurredAt="2024-13-01T09:00:00Z"), id="timestamp impossible"),
        pytest.param(REMEMBER, _remember(occurredAt=1714554000), id="timestamp as number"),
        pytest.param(
            'mutation { remember(input: {userId: "alice", text: "x", occurredAt: "2024-05-01"}) { created } }',
            None,
            id="date literal without time zone",
        ),
        pytest.param(
            'mutation($units: [UnitInput!]!) { rememberBatch(userId: "alice", units: $units) { seq } }',
            {"units": [{"text": f"t{i}"} for i in range(ApiSettings().max_batch + 1)]},
            id="batch too large",
        ),
        pytest.param(
            'mutation($units: [UnitInput!]!) { rememberBatch(userId: "alice", units: $units) { seq } }',
            {"units": []},
            id="empty batch",
        ),
    ],
)
async def test_bad_writes_are_refused_without_writing(
    caller: Caller, db: Database, query: str, variables: Any
) -> None:
    assert await _bad(caller, query, variables) == "BAD_USER_INPUT"
    assert await count_nodes(db, caller.tenant, "alice") == {}


BATCH = 'mutation($us: [UnitInput!]!) { rememberBatch(userId: "alice", units: $us) { seq } }'
LONG = "x" * 257  # one character over the 256 of an id or name


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param({"text": " \n "}, "units[2].text must not be empty", id="blank text"),
        pytest.param({"text": "x" * (256 * 1024 + 1)}, "units[2].text is 262145 bytes", id="oversize text"),
        pytest.param({"speaker": " "}, "units[2].speaker must not be empty", id="blank speaker"),
        pytest.param({"sourceRef": " "}, "units[2].sourceRef must not be empty", id="blank source ref"),
        pytest.param({"sessionId": " "}, "units[2].sessionId must not be empty", id="blank session"),
        pytest.param({"agentId": ""}, "units[2].agentId must not be empty", id="empty agent"),
        pytest.param(
            {"sessionId": LONG},
            "invalid input: units[2].sessionId: String should have at most 256 characters",
            id="long session",
        ),
        pytest.param(
            {"speaker": LONG},
            "invalid input: units[2].speaker: String should have at most 256 characters",
            id="long speaker",
        ),
        pytest.param(
            {"sourceRef": ""}, "invalid input: units[2].sourceRef: String should have", id="empty ref"
        ),
        pytest.param(
            {"metadata": {"no spaces": 1}}, "units[2].metadata: metadata key 'no spaces'", id="metadata key"
        ),
        pytest.param(
            {"metadata": {"k": {"deep": 1}}}, "units[2].metadata: metadata 'k': a value must be", id="nested"
        ),
        pytest.param(
            {"metadata": [1]},
            "invalid input: units[2].metadata: Input should be a valid dictionary",
            id="metadata not a map",
        ),
        # Refused by the variable's coercion (graphql-core's wording), named as the checks name it.
        pytest.param({"occurredAt": "2024-05-01T09:00:00"}, "units[2].occurredAt: ", id="naive time"),
        pytest.param({"occurredAt": "2023-13-01"}, "units[2].occurredAt: ", id="impossible date"),
    ],
)
async def test_a_batch_refusal_names_the_unit_and_writes_nothing(
    caller: Caller, db: Database, bad: dict[str, Any], message: str
) -> None:
    units = [{"text": "fine"}, {"text": "also fine", "sessionId": "s1"}, {"text": "third", **bad}]
    (error,) = await caller.errors(BATCH, {"us": units})
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert message in error["message"], error["message"]
    assert await count_nodes(db, caller.tenant, "alice") == {}


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        pytest.param(
            'mutation { rememberBatch(userId: "alice", units: [{text: "a"}, {text: "b", occurredAt: "2023-13-01"}]) '
            "{ seq } }",
            None,
            id="literal",
        ),
        pytest.param(
            'mutation($u: UnitInput!) { rememberBatch(userId: "alice", units: [{text: "a"}, $u]) { seq } }',
            {"u": {"text": "b", "occurredAt": "2023-05-01T09:00:00"}},
            id="a unit's variable",
        ),
        pytest.param(
            'mutation($t: DateTime) { rememberBatch(userId: "alice", units: [{text: "a"}, {text: "b", occurredAt: $t}]) '
            "{ seq } }",
            {"t": "2023-13-01"},
            id="a time's variable",
        ),
    ],
)
async def test_a_refused_time_in_a_batch_names_its_unit(
    caller: Caller, db: Database, query: str, variables: dict[str, Any] | None
) -> None:
    """graphql-core refuses a unit's time before any resolver runs, in its own words; the refusal
    still names the unit, as a unit's other refusals do."""
    (error,) = await caller.errors(query, variables)
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["message"].startswith("units[1].occurredAt: "), error["message"]
    assert await count_nodes(db, caller.tenant, "alice") == {}


@pytest.mark.parametrize(
    "query",
    [
        '{ recall(userId: "alice", query: "x", asOf: "last week") { query } }',
        '{ recall(userId: "alice", query: "x", asOf: "2024-05-01T09:00:00") { query } }',
        '{ recall(userId: "alice", query: "x", budget: {subconscious: 1000}) { query } }',
        '{ recall(userId: "alice", query: "") { query } }',
        '{ user(id: "alice") { facts(since: "2024-02-30T00:00:00Z") { nodes { id } } } }',
        '{ user(id: "alice") { facts(status: GONE) { nodes { id } } } }',
        # A reversed or empty window, as a filter's is refused.
        '{ user(id: "alice") { interactions(since: "2023-06-01T00:00:00Z", until: "2023-05-01T00:00:00Z") '
        "{ nodes { id } } } }",
        '{ user(id: "alice") { consolidationRuns(since: "2023-06-01T00:00:00Z", until: "2023-06-01T00:00:00Z") '
        "{ nodes { id } } } }",
        '{ user(id: "alice") { facts(since: "2023-06-01T05:00:00+05:00", until: "2023-06-01T00:00:00Z") '
        "{ nodes { id } } } }",
    ],
)
async def test_bad_reads_are_bad_user_input(caller: Caller, query: str) -> None:
    await caller.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    assert await _bad(caller, query) == "BAD_USER_INPUT"


async def test_a_256_kb_turn_passes_every_limit_and_the_error_above_names_the_setting(
    caller: Caller, db: Database
) -> None:
    text = "A long pasted document. " * (256 * 1024 // 24)
    assert len(text.encode()) <= 256 * 1024
    assert (await caller.gql(REMEMBER, _remember(text=text)))["remember"]["created"] is True
    (error,) = await caller.errors(REMEMBER, _remember(text="x" * (256 * 1024 + 1)))
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "the limit is 262144 bytes (RECMEM_MAX_TEXT_BYTES)" in error["message"]
    assert (await count_nodes(db, caller.tenant, "alice"))["Interaction"] == 1


async def test_oversize_body_is_413(caller: Caller) -> None:
    response = await caller.post(REMEMBER, _remember(text="x" * (5 * 1024 * 1024)))
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_turn_at_the_text_limit_escaped_as_ascii_fits_the_least_body_limit(db: Database) -> None:
    """A client whose JSON escapes non-ASCII (\\uXXXX, Python's json.dumps by default), against
    the smallest body limit the service starts with: a CJK turn at RECMEM_MAX_TEXT_BYTES (3
    bytes a character, 6 escaped) is accepted; one of 2-byte characters (6 escaped: three times)
    is refused with 413 naming the body limit's setting (it named no setting)."""
    text_limit = 256 * 1024
    body_limit = body_room_for(text_limit)
    engine = make_engine(db, max_text_bytes=text_limit)
    async with app_client(db, engine, max_body_bytes=body_limit) as http:
        caller = await new_caller(db, http)

        async def send(text: str) -> httpx.Response:
            assert len(text.encode()) <= text_limit
            body = json.dumps({"query": REMEMBER, "variables": _remember(text=text)})
            assert body.isascii()
            headers = {"authorization": f"Bearer {caller.key}", "content-type": "application/json"}
            return await http.post("/graphql", content=body, headers=headers)

        cjk = await send("記憶は大切" * (text_limit // 15))
        assert cjk.status_code == 200 and cjk.json()["data"]["remember"]["created"] is True, cjk.text
        accents = await send("é" * (text_limit // 2))
        assert accents.status_code == 413, accents.text
        (error,) = accents.json()["errors"]
        assert error["extensions"]["code"] == "BAD_USER_INPUT"
        assert error["message"] == f"request body exceeds {body_limit} bytes (RECMEM_API_MAX_BODY_BYTES)"
    assert (await count_nodes(db, caller.tenant, "alice"))["Interaction"] == 1


async def test_internal_errors_are_masked_and_outages_unavailable(
    caller: Caller, api_app: Starlette, monkeypatch: pytest.MonkeyPatch
) -> None:
    await caller.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    engine = api_app.state.services.engine

    async def secret_failure(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("password=hunter2 in a stack trace")

    async def outage(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("bolt://10.0.0.5:7687 refused")

    query = '{ recall(userId: "alice", query: "hello") { query } }'
    monkeypatch.setattr(engine, "recall", secret_failure)
    errors = await caller.errors(query)
    assert errors[0]["extensions"]["code"] == "INTERNAL"
    assert "hunter2" not in str(errors) and errors[0]["extensions"]["requestId"] in errors[0]["message"]
    monkeypatch.setattr(engine, "recall", outage)
    unavailable = await caller.post(query)  # 503 with Retry-After (docs/failures.md#the-shape-of-an-outage)
    assert unavailable.status_code == 503 and unavailable.headers["retry-after"]
    errors = unavailable.json()["errors"]
    assert errors[0]["extensions"]["code"] == "UNAVAILABLE" and "10.0.0.5" not in str(errors)


@pytest.fixture
async def strict_app(db: Database) -> AsyncIterator[Starlette]:
    """A second app on the same database, with a short timeout and a tiny rate limit."""
    settings = make_api_settings(request_timeout_s=1.0, rate_limit_per_s=0.01, rate_limit_burst=3)
    app = create_app(AppSettings(), settings, engine=make_engine(db))
    async with app.router.lifespan_context(app):
        yield app


async def test_timeout_and_rate_limit(
    db: Database, strict_app: Starlette, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = httpx.ASGITransport(app=strict_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        caller = await new_caller(db, http)
        engine = strict_app.state.services.engine
        await engine.remember(Owner(caller.tenant, "alice"), Unit(text="hello"), consolidate=False)

        async def slow(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(30)

        monkeypatch.setattr(engine, "recall", slow)
        timed_out = await caller.post('{ recall(userId: "alice", query: "x") { query } }', accept=OFFICIAL)
        assert timed_out.status_code == 503 and "data" not in timed_out.json()
        assert timed_out.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
        statuses = [(await caller.post("{ __typename }")).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        limited = await caller.post("{ __typename }")
        assert limited.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        assert int(limited.headers["retry-after"]) >= 1
