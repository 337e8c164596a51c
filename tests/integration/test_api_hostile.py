"""Hostile requests: bodies that are not what GraphQL over HTTP expects, text that is not Unicode,
Lucene syntax in queries, unexpected failures, and documents that fail half way. Each answers a
typed JSON error with the request id, changes nothing it did not report, and never a plain 500."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from api.app import create_app
from consolidation.consolidating.consolidator import EpisodeDraft, EpisodeInput, LLMResult
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.errors import InvalidInput, StoreUnavailable
from graph.lucene import lucene_query
from graph.models import Owner
from graph.validation import require_name, require_text
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import Caller, count_nodes, make_api_settings, make_engine, new_caller, tell_story
from tests.support.engines import DIMENSION, engine_settings, llm_engine

OFFICIAL = "application/graphql-response+json"
REMEMBER = "mutation($u: RememberInput!) { remember(input: $u) { interactionId created } }"
REMEMBER_LITERAL = 'mutation { remember(input: {userId: "alice", text: "TEXT"}) { created } }'


async def _client(app: Starlette) -> httpx.AsyncClient:
    # raise_app_exceptions=False: an exception escaping the app reaches the test as the client
    # would see it (Starlette's plain-text 500), not as a Python exception.
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://api.test")


@pytest.fixture
async def raw(db: Database, api_app: Starlette) -> AsyncIterator[Caller]:
    async with await _client(api_app) as http:
        yield await new_caller(db, http)


async def _send(caller: Caller, body: bytes, **headers: str) -> httpx.Response:
    return await caller.http.post(
        "/graphql",
        content=body,
        headers={"authorization": f"Bearer {caller.key}", "content-type": "application/json", **headers},
    )


def _as_json(query: str, variables: dict[str, Any] | None = None) -> bytes:
    # json.dumps escapes non-ASCII, so lone surrogates travel as "\ud800" the way clients send them.
    return json.dumps({"query": query, "variables": variables or {}}).encode()


def _typed_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The single error of a rejected request, checked for status, JSON, code and request id."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/"), response.headers
    body = response.json()
    assert "data" not in body, body
    (error,) = body["errors"]
    assert error["extensions"]["code"] == code, error
    assert error["extensions"]["requestId"] == response.headers["x-request-id"]
    return dict(error)


# -- item 4: bodies that are not a GraphQL request --------------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("body", "says"),
    [
        # "café" in Latin-1: the 0xE9 byte starts no valid UTF-8 sequence.
        pytest.param(_as_json(REMEMBER_LITERAL).replace(b"TEXT", b"caf\xe9"), "UTF-8", id="invalid UTF-8"),
        pytest.param(b"\xff\xfe\x00\x00", "UTF-8", id="binary"),
        pytest.param(b'"mutation { remember }"', "got a string", id="a string"),
        pytest.param(b"null", "got null", id="null"),
        pytest.param(b"42", "got a number", id="a number"),
        pytest.param(b"[1]", "got an array", id="a list"),
        pytest.param(
            _as_json(REMEMBER)[:-2] + b'"x": ' + DEEP + b"}}",
            "nested deeper",
            id="100000 deep in variables",
        ),
        pytest.param(
            _as_json(REMEMBER, {"u": {"userId": "alice", "text": "x"}, "pad": _nested(34)}),
            "nested deeper",
            id="34 deep, below the recursion limit",
        ),
    ],
)
async def test_malformed_bodies_are_typed_400s_that_change_nothing(
    raw: Caller, db: Database, body: bytes, says: str
) -> None:
    for accept in (OFFICIAL, "application/json"):
        response = await _send(raw, body, accept=accept, **{"x-request-id": "client-id-1"})
        error = _typed_error(response, 400, "BAD_USER_INPUT")
        assert says in error["message"] and response.headers["x-request-id"] == "client-id-1"
    assert await count_nodes(db, raw.tenant, "alice") == {}


async def test_deep_get_variables_are_a_typed_400(raw: Caller) -> None:
    response = await raw.http.get(
        "/graphql",
        params={"query": "{ __typename }", "variables": "[" * 5000},
        headers={"authorization": f"Bearer {raw.key}"},
    )
    assert "nested deeper" in _typed_error(response, 400, "BAD_USER_INPUT")["message"]


async def test_an_unexpected_error_is_a_json_internal_error_and_is_logged(
    raw: Caller, api_app: Starlette, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(token: str | None) -> None:
        raise RuntimeError("password=hunter2 leaked by a bug")

    monkeypatch.setattr(api_app.state.services.authenticator, "authenticate", broken)
    with caplog.at_level(logging.ERROR, logger="api.http"):
        response = await _send(raw, _as_json("{ __typename }"))
    error = _typed_error(response, 500, "INTERNAL")
    assert error["extensions"]["requestId"] in error["message"] and "hunter2" not in response.text
    logged = [r for r in caplog.records if error["extensions"]["requestId"] in r.getMessage()]
    assert logged and logged[0].exc_info is not None


async def test_a_failing_field_does_not_cancel_its_siblings(raw: Caller) -> None:
    """recall checks the user while it searches and cancels the check when the search fails: the
    user's loader future, shared with `answer`, must not be cancelled with it (it was: a
    CancelledError escaped as a plain-text 500)."""
    await raw.gql('mutation { remember(input: {userId: "alice", text: "I like tea."}) { created } }')
    response = await _send(
        raw,
        _as_json(
            '{ recall(userId: "alice", query: "") { query } answer(userId: "alice", question: "tea?") { text } }'
        ),
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"]["recall"] is None and body["data"]["answer"]["text"]
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_USER_INPUT"]


# -- item 5: text that is not Unicode, and Lucene syntax --------------------------------------

S = "\ud800"
UNITS = 'mutation($us: [UnitInput!]!) { rememberBatch(userId: "alice", units: $us) { seq } }'


def _remember(**fields: Any) -> dict[str, Any]:
    return {"u": {"userId": "alice", "text": "hello", **fields}}


@pytest.mark.parametrize(
    ("query", "variables", "where"),
    [
        pytest.param(REMEMBER, _remember(text=f"caf{S}"), "$u.text", id="remember text"),
        pytest.param(REMEMBER, _remember(userId=f"al{S}ce"), "$u.userId", id="remember user id"),
        pytest.param(REMEMBER, _remember(sourceRef=S), "$u.sourceRef", id="source ref"),
        pytest.param(REMEMBER, _remember(sessionId=S), "$u.sessionId", id="session id"),
        pytest.param(REMEMBER, _remember(speaker="\udfff"), "$u.speaker", id="speaker"),
        pytest.param(UNITS, {"us": [{"text": "fine"}, {"text": f"x{S}"}]}, "$us[1].text", id="batch text"),
    ],
)
async def test_lone_surrogates_in_writes_are_bad_input_and_write_nothing(
    raw: Caller, db: Database, query: str, variables: dict[str, Any], where: str
) -> None:
    error = _typed_error(await _send(raw, _as_json(query, variables), accept=OFFICIAL), 400, "BAD_USER_INPUT")
    assert error["message"].startswith(f"{where} is not valid Unicode"), error
    assert await count_nodes(db, raw.tenant, "alice") == {}


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        pytest.param(
            'query($q: String!) { recall(userId: "alice", query: $q) { query } }', {"q": S}, id="recall"
        ),
        pytest.param(
            'query($q: ID!) { recall(userId: $q, query: "x") { query } }', {"q": S}, id="recall user"
        ),
        pytest.param("query($q: ID!) { user(id: $q) { id } }", {"q": S}, id="user"),
        pytest.param(
            'query($q: String!) { answer(userId: "alice", question: $q) { text } }', {"q": S}, id="answer"
        ),
        pytest.param(
            'query($q: String) { user(id: "alice") { interactions(after: $q) { nodes { id } } } }',
            {"q": S},
            id="cursor",
        ),
    ],
)
async def test_lone_surrogates_in_reads_are_bad_input(
    raw: Caller, query: str, variables: dict[str, Any]
) -> None:
    await raw.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    error = _typed_error(await _send(raw, _as_json(query, variables), accept=OFFICIAL), 400, "BAD_USER_INPUT")
    assert "not valid Unicode" in error["message"]


async def test_the_storage_layer_refuses_lone_surrogates_too(db: Database, owner: Owner) -> None:
    """Callers below the API (the CLI, the Python engine) get InvalidInput, not a driver error."""
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        require_text("text", f"a{S}", 100)
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        require_name("user_id", S)
    engine = make_engine(db)
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        await engine.recall(owner, f"tea{S}")
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        await engine.remember(Owner(owner.tenant, f"a{S}"), Unit(text="hello"))
    assert await count_nodes(db, owner.tenant) == {}


LUCENE_ONLY = ['+-&&||!(){}[]^"~*?:\\/', "AND OR NOT", "*", "NOT", '"', "[a TO z]", "owner_key:x"]


@pytest.mark.parametrize("text", LUCENE_ONLY)
async def test_lucene_syntax_in_a_recall_query_is_plain_text(raw: Caller, text: str) -> None:
    """Lexical search treats the query as words (finding nothing when none remain); dense recall
    answers as usual."""
    await tell_story(raw)
    data = await raw.gql(
        'query($q: String!) { recall(userId: "alice", query: $q) { query subconscious { score } semantic { score } } }',
        {"q": text},
    )
    assert data["recall"]["query"] == text and data["recall"]["subconscious"] and data["recall"]["semantic"]


def test_lucene_queries_carry_words_only() -> None:
    owner = Owner("t", "u")
    assert lucene_query('+-&&||!(){}[]^"~*?:\\/', owner) is None
    assert lucene_query("*", owner) is None
    built = lucene_query("AND OR NOT x:y (z)", owner)
    # `x:y` is one word to Lucene's standard tokeniser, so the colon goes in escaped.
    assert built == f"+owner_key:{owner.key} +(and or not x\\:y z)"


# -- item 6: a durable write is reported as done ------------------------------------------------


async def _interactions(db: Database, tenant: str) -> list[str]:
    rows = await db.driver.execute_query(
        "MATCH (n:Interaction {tenant: $t}) RETURN n.id AS id", t=tenant, database_=db.name
    )
    return [r["id"] for r in rows.records]


@pytest.mark.parametrize(
    "second",
    [
        'b: remember(input: {userId: "alice", text: ""}) { interactionId }',
        'b: remember(input: {userId: "alice", text: "x", sourceRef: ""}) { interactionId }',
        'b: rememberBatch(userId: "alice", units: []) { interactionId }',
    ],
)
async def test_a_failing_second_field_leaves_the_first_reported(
    raw: Caller, db: Database, second: str
) -> None:
    document = f'mutation {{ a: remember(input: {{userId: "alice", text: "first"}}) {{ interactionId created }} {second} }}'
    response = await _send(raw, _as_json(document), accept=OFFICIAL)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"]["a"]["created"] is True and body["data"]["b"] is None
    assert [(e["path"], e["extensions"]["code"]) for e in body["errors"]] == [(["b"], "BAD_USER_INPUT")]
    assert await _interactions(db, raw.tenant) == [body["data"]["a"]["interactionId"]]


class BrokenConsolidator(OfflineConsolidator):
    """A bug in consolidation: anything but an LLM error (those are deferred by the pipeline)."""

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        raise RuntimeError("a bug in consolidation")


class PendingReadFails(Database):
    """The session's driver, except that reading a user's pending interactions (the start of
    every consolidation pass) meets Neo4j down."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.driver, db.name)

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "queries/interactions/pending":
            raise StoreUnavailable("Neo4j went away")
        return await super().read(name, **params)


def _failing_engine(db: Database, llm: LocalLLMServer, fault: str) -> MemoryEngine:
    if fault == "llm 500":
        llm.script(*[Reply.error(500)] * 8)
        return llm_engine(db, llm, merge_threshold=0.99)
    if fault == "neo4j":
        return MemoryEngine(
            PendingReadFails(db), HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings()
        )
    return MemoryEngine(db, HashingEmbedder(DIMENSION), BrokenConsolidator(), engine_settings())


SIMILAR = ["I love sushi with salmon.", "I love sushi with salmon and tuna.", "I love sushi with tuna."]


@pytest.mark.parametrize("fault", ["llm 500", "neo4j", "bug"])
async def test_inline_consolidation_failing_after_the_write_still_acknowledges_it(
    db: Database, llm: LocalLLMServer, fault: str
) -> None:
    app = create_app(AppSettings(), make_api_settings(), engine=_failing_engine(db, llm, fault))
    async with app.router.lifespan_context(app), await _client(app) as http:
        caller = await new_caller(db, http)
        reported = []
        # Three similar turns: the third makes a topic recur, so consolidation calls the LLM.
        for text in SIMILAR:
            data = await caller.gql(
                'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) '
                "{ interactionId created consolidation { action error } } }",
                {"t": text},
            )
            reported.append(data["remember"])
    assert all(r["created"] for r in reported)
    assert reported[-1]["consolidation"]["action"] == "DEFERRED"
    assert (
        "pending" in reported[-1]["consolidation"]["error"]
        or "retry" in reported[-1]["consolidation"]["error"]
    )
    assert sorted(await _interactions(db, caller.tenant)) == sorted(r["interactionId"] for r in reported)


# -- instants off the calendar ----------------------------------------------------------------

# Each has an offset and a date Python reads, but lies outside the years 1 to 9999 once in UTC.
OFF_CALENDAR = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:30:00-01:00"]
ADD_FACT_LITERAL = (
    'mutation { addFact(userId: "alice", text: "Alice was born.", kind: EVENT, validFrom: "MOMENT") {'
    " written } }"
)


@pytest.mark.parametrize("moment", OFF_CALENDAR)
@pytest.mark.parametrize(
    "query",
    [
        pytest.param(ADD_FACT_LITERAL, id="a mutation's literal"),
        pytest.param('{ recall(userId: "alice", query: "x", asOf: "MOMENT") { query } }', id="asOf literal"),
        pytest.param('{ user(id: "alice") { facts(since: "MOMENT") { nodes { id } } } }', id="since literal"),
        pytest.param(
            'query($at: DateTime) { recall(userId: "alice", query: "x", askedAt: $at) { query } }',
            id="askedAt variable",
        ),
    ],
)
async def test_an_instant_off_the_calendar_is_bad_input_and_writes_nothing(
    raw: Caller, db: Database, query: str, moment: str
) -> None:
    await raw.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    before = await count_nodes(db, raw.tenant, "alice")
    response = await _send(raw, _as_json(query.replace("MOMENT", moment), {"at": moment}), accept=OFFICIAL)
    error = _typed_error(response, 400, "BAD_USER_INPUT")
    assert "years 1 to 9999" in error["message"], error
    if query.startswith("mutation"):
        assert error["extensions"]["written"] is False, error
    assert await count_nodes(db, raw.tenant, "alice") == before


@pytest.mark.parametrize("question", ["", "   ", "\u200b"])
async def test_an_empty_question_names_the_question(raw: Caller, question: str) -> None:
    await raw.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    query = 'query($q: String!) { answer(userId: "alice", question: $q) { text } }'
    (error,) = await raw.errors(query, {"q": question})
    assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    assert error["message"].startswith("question must not be empty"), error


def _remembering(**fields: str) -> str:
    given = ", ".join(f"{name}: {json.dumps(value)}" for name, value in fields.items())
    return f'mutation {{ remember(input: {{userId: "alice", text: "hi", {given}}}) {{ created }} }}'


@pytest.mark.parametrize(
    ("query", "variables", "words"),
    [
        pytest.param(_remembering(sourceRef=""), None, "sourceRef: String should have at least 1", id="model"),
        pytest.param(_remembering(sessionId="s" * 300), None, "sessionId: String should have at most",
                     id="model length"),
        pytest.param(_remembering(agentId=" "), None, "agentId must not be empty", id="check"),
        pytest.param(REMEMBER, {"u": {"userId": "alice", "text": "hi", "sourceRef": " "}},
                     "sourceRef must not be empty", id="variables"),
        pytest.param('query { recall(userId: "alice", query: "x", filter: {agentIds: []}) { query } }', None,
                     "filter.agentIds must name at least one value", id="filter"),
        pytest.param(
            'query { recall(userId: "alice", query: "x", filter: {validFromAfter: "2024-05-02T00:00:00Z", '
            'validFromBefore: "2024-05-01T00:00:00Z"}) { query } }', None,
            "filter.validFromBefore must be later than filter.validFromAfter", id="window",
        ),
        # A value the caller sent is quoted as sent, even one spelt like a field.
        pytest.param(REMEMBER, {"u": {"userId": "alice", "text": "hi", "metadata": {"source_ref!": 1}}},
                     "metadata key 'source_ref!' is not allowed", id="quoted value"),
    ],
)  # fmt: skip
async def test_a_refusal_names_fields_as_the_caller_wrote_them(
    raw: Caller, db: Database, query: str, variables: dict[str, Any] | None, words: str
) -> None:
    """GraphQL callers write camelCase (`sourceRef`): a refusal names the field so, not by its
    Python name (`source_ref`, which MCP's refusals use, as its callers write)."""
    await raw.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    before = await count_nodes(db, raw.tenant, "alice")
    (error,) = await raw.errors(query, variables)
    assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    assert words in error["message"], error
    assert await count_nodes(db, raw.tenant, "alice") == before


REFUSED_MUTATIONS = [
    pytest.param('mutation { remember(input: {userId: "alice", text: " "}) { created } }', "BAD_USER_INPUT",
                 id="remember blank text"),
    pytest.param('mutation { remember(input: {userId: "", text: "hi"}) { created } }', "BAD_USER_INPUT",
                 id="remember blank user"),
    pytest.param('mutation { rememberBatch(userId: "alice", units: []) { created } }', "BAD_USER_INPUT",
                 id="rememberBatch empty"),
    pytest.param('mutation { consolidate(userId: "nobody") { action } }', "NOT_FOUND", id="consolidate"),
    pytest.param('mutation { forgetInteraction(id: "int_missing") { interactionIds } }', "NOT_FOUND",
                 id="forgetInteraction"),
    pytest.param('mutation { forgetUser(id: "nobody") { userId } }', "NOT_FOUND", id="forgetUser"),
    pytest.param('mutation { forgetUser(id: " ") { userId } }', "BAD_USER_INPUT", id="forgetUser blank"),
    pytest.param('mutation { retractFact(id: "fact_missing", reason: "r") { written } }', "NOT_FOUND",
                 id="retractFact"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "code"), REFUSED_MUTATIONS)
async def test_every_refused_mutation_says_nothing_was_written(
    raw: Caller, db: Database, query: str, code: str
) -> None:
    await raw.gql('mutation { remember(input: {userId: "alice", text: "hello"}) { created } }')
    before = await count_nodes(db, raw.tenant)
    (error,) = await raw.errors(query)
    assert error["extensions"]["code"] == code, error
    assert error["extensions"]["written"] is False, error
    assert await count_nodes(db, raw.tenant) == before


BY_ID = [
    "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }",
    'mutation($id: ID!) { correctFact(id: $id, text: "t", reason: "r") { written } }',
    "query($id: ID!) { forgetInteractionPreview(id: $id) { interactions { id } } }",
    "query($id: ID!) { interaction(id: $id) { id } }",
    "query($id: ID!) { fact(id: $id) { id } }",
    "query($id: ID!) { episode(id: $id) { id } }",
    "query($id: ID!) { consolidationRun(id: $id) { id } }",
    "query($id: ID!) { node(id: $id) { id } }",
]


@pytest.mark.parametrize("query", BY_ID)
@pytest.mark.parametrize("blank", ["", "  "])
async def test_a_blank_id_is_bad_input_everywhere(raw: Caller, query: str, blank: str) -> None:
    (error,) = await raw.errors(query, {"id": blank})
    assert (error["extensions"]["code"], error["message"]) == ("BAD_USER_INPUT", "id must not be empty"), (
        error
    )
