"""A fast subset of the GraphQL fuzz (bench/fuzz_graphql.py runs 10,000 cases): generated
documents and bodies over HTTP and the websocket against a real uvicorn on the session's Neo4j.
No 5xx, no hang, a code on every error, no write from a rejected request, healthy afterwards."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import uvicorn
from starlette.applications import Starlette

from api.app import create_app
from api.errors import ApiError, ErrorCode
from api.settings import BODY_ROOM
from bench.fuzz.case import KINDS
from bench.fuzz.documents import load_schema
from bench.fuzz.generate import cases
from bench.fuzz.probe import WriteProbe
from bench.fuzz.runner import Fuzzer
from bench.fuzz.summary import failed, summarize
from consolidation.forgetting.keys import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.support.api import make_api_settings, make_engine

SEED = 12
COUNT = 380  # 20 of each kind
MAX_BODY = 64 * 1024


@dataclass(frozen=True)
class Live:
    base: str
    app: Starlette


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[Live]:
    app = create_app(
        AppSettings(),
        make_api_settings(max_body_bytes=MAX_BODY, request_timeout_s=20.0),
        engine=make_engine(db, max_text_bytes=(MAX_BODY - BODY_ROOM) // 2),
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "uvicorn did not start"
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield Live(f"http://127.0.0.1:{port}", app)
    server.should_exit = True
    await task


def tenant_nodes(db: Database, tenant: str) -> WriteProbe:
    """Every node of the tenant, straight from Neo4j (stronger than the API's user stats)."""

    async def probe() -> int:
        result = await db.driver.execute_query(
            "MATCH (n {tenant: $tenant}) RETURN count(n) AS n", tenant=tenant, database_=db.name
        )
        return int(result.records[0]["n"])

    return probe


async def _fuzzer(db: Database, live: Live) -> Fuzzer:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    issued = await AccessKeys(db).create(tenant, "fuzz")
    return Fuzzer(live.base, issued.secret, tenant_nodes(db, tenant), timeout_s=30.0)


async def test_fuzzed_requests_get_typed_bounded_answers_and_write_nothing_when_rejected(
    db: Database, live: Live
) -> None:
    batch = cases(SEED, COUNT, MAX_BODY, load_schema())
    assert {c.kind for c in batch} == set(KINDS)
    fuzzer = await _fuzzer(db, live)
    try:
        outcomes = await fuzzer.run(batch)
        summary = summarize(outcomes, fuzzer.unattributed_writes)
        summary["health"] = await fuzzer.health()
    finally:
        await fuzzer.close()
    assert failed(summary) == [], json.dumps(
        {k: v for k, v in summary.items() if k != "slowest_case"}, indent=1
    )
    assert summary["by_transport"]["ws"] > 0 and summary["by_transport"]["http"] > 0
    # The fuzz reaches the resolvers and the limits, not only the JSON decoder.
    assert summary["rejected"] < len(outcomes)
    assert "BAD_USER_INPUT" in summary["by_error_code"] and "UNAUTHENTICATED" in summary["by_error_code"]
    assert any(status.startswith("ws:close:") for status in summary["by_status"])


async def test_the_fuzz_catches_an_internal_error_and_a_write_before_a_rejection(
    db: Database, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks can fail: `remember` made to write and then fail answers a masked 500 (with the
    graphql-response media type) and a null field, which the summary reports."""
    engine = live.app.state.services.engine
    # Both mutations (remember and rememberBatch) write through remember_batch.
    original = engine.remember_batch

    async def broken(*args: object, **kwargs: object) -> object:
        await original(*args, **kwargs)
        raise RuntimeError("injected")

    monkeypatch.setattr(engine, "remember_batch", broken)
    valid = [
        c for c in cases(SEED, 4000, MAX_BODY, load_schema()) if c.kind == "valid" and b"remember(" in c.body
    ]
    assert valid
    fuzzer = await _fuzzer(db, live)
    try:
        outcomes = await fuzzer.run(valid[:10])
    finally:
        await fuzzer.close()
    summary = summarize(outcomes, fuzzer.unattributed_writes)
    assert summary["rejected_with_write"] > 0, summary
    assert "INTERNAL" in summary["by_error_code"]
    assert any(problem.startswith("rejected_with_write") for problem in failed(summary))
    # Not an ApiError: the injected failure is an internal one.
    assert not isinstance(RuntimeError("injected"), ApiError) and ErrorCode.INTERNAL.value == "INTERNAL"


# -- the bugs the fuzz found, one by one ------------------------------------------------------------


async def test_a_spread_of_an_undefined_fragment_is_a_coded_validation_error(
    db: Database, live: Live
) -> None:
    """strawberry's depth limiter raised KeyError on it: HTTP 200 with `{"message": "'Missing'"}`."""
    fuzzer = await _fuzzer(db, live)
    try:
        for document in ("{ ...Missing }", '{ user(id: "alice") { id ...F } }'):
            response = await fuzzer.http.post(
                "/graphql", json={"query": document}, headers={"authorization": f"Bearer {fuzzer.key}"}
            )
            errors = response.json()["errors"]
            assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT", errors
            assert "Unknown fragment" in errors[0]["message"]
    finally:
        await fuzzer.close()


async def test_websocket_request_errors_are_coded_once_and_not_internal(
    db: Database, live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    """Over graphql-transport-ws a document without an operation answered INTERNAL, and every
    error of a query was recoded twice (the second pass logged a false "internal error")."""
    fuzzer = await _fuzzer(db, live)
    ws = await fuzzer.websocket.connect(init=True)
    try:
        answers = {}
        for op, document in (
            ("a", "fragment F on Query { __typename }"),
            ("b", '{ fact(id: "nope") { id } }'),
        ):
            await ws.send(json.dumps({"id": op, "type": "subscribe", "payload": {"query": document}}))
            answers[op] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        assert answers["a"]["type"] == "error"
        assert answers["a"]["payload"][0]["extensions"]["code"] == "BAD_USER_INPUT", answers["a"]
        assert answers["b"]["type"] == "next"
        assert answers["b"]["payload"]["errors"][0]["extensions"]["code"] == "NOT_FOUND"
        await asyncio.sleep(0.2)
        assert not [
            r for r in caplog.records if r.name == "api.errors" and "internal error" in r.getMessage()
        ]
    finally:
        await ws.close()
        await fuzzer.close()


async def test_an_exponential_fragment_expansion_is_refused_at_once(db: Database, live: Live) -> None:
    """Each fragment spreads the previous one twice: 2 KB of text, 2^39 fields. strawberry's depth
    limiter walked every expansion and blocked the event loop (every request hung)."""
    chain = ["fragment F0 on User { id createdAt }"]
    chain += [f"fragment F{i} on User {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, 40)]
    document = '{ user(id: "alice") { ...F39 } }\n' + "\n".join(chain)
    fuzzer = await _fuzzer(db, live)
    try:
        response = await asyncio.wait_for(
            fuzzer.http.post(
                "/graphql", json={"query": document}, headers={"authorization": f"Bearer {fuzzer.key}"}
            ),
            20,
        )
        errors = response.json()["errors"]
        assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert "fragments are expanded" in errors[0]["message"]
    finally:
        await fuzzer.close()
