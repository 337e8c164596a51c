"""One shape for an outage (issue #12, item 7): whatever fails while Neo4j is unreachable, before a
resolver or inside one, a query or a write, over either media type, answers HTTP 503 with
Retry-After and the error code UNAVAILABLE, within the store's retry window; a remember's error
says whether it was written (`written`: false, or "unknown" when the connection broke during
COMMIT) and names the sourceRefs to resend it with, so that a retry stores it exactly once.

The first test SIGKILLs a Neo4j of its own under a `recmem serve`; the others inject driver
failures at the storage boundary (tests/support/faults.py's FaultyDatabase) on the session's Neo4j.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from api.app import create_app
from api.settings import ApiSettings
from consolidation.forgetting.keys import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.local_server import LocalNeo4j
from recmem_client import AsyncMemoryClient, RetryPolicy, Unavailable
from tests.support.api import make_api_settings, make_engine
from tests.support.faults import (
    FaultyDatabase,
    Service,
    free_ports,
    private_neo4j,
    private_neo4j_settings,
    query,
    running_service,
    service_env,
    sigkill_neo4j,
)
from tests.support.outage_client import Answer, open_ws, post

# The store's retry window of the service under test (RECMEM_NEO4J_RETRY_SECONDS), and the slack
# a loaded machine may add to it before an answer arrives (the issue measured up to 29 s).
RETRY_S = 2.0
SLACK_S = 3.0
REMEMBER = """
mutation($input: RememberInput!) { remember(input: $input, consolidate: false) { interactionId created } }"""
REMEMBER_BATCH = """
mutation($user: ID!, $units: [UnitInput!]!) {
  rememberBatch(userId: $user, units: $units, consolidate: false) { interactionId created }
}"""
USER = 'query { user(id: "alice") { id } }'
ACCEPTS = ("application/json", "application/graphql-response+json")
# The request timeout of the in-process app once warm (the "stalled" fault waits for it).
REQUEST_TIMEOUT_S = 5.0


def assert_unavailable(answer: Answer) -> None:
    """The one shape: 503, Retry-After, every error UNAVAILABLE with the request id."""
    assert answer.status == 503, (answer.status, answer.body)
    assert float(answer.headers["retry-after"]) > 0
    assert answer.errors, answer.body
    for error in answer.errors:
        assert error["extensions"]["code"] == "UNAVAILABLE", answer.body
        assert error["extensions"]["requestId"] == answer.headers["x-request-id"]
    assert not (answer.body.get("data") or {}).get("remember"), answer.body


def unit(text: str, ref: str | None) -> dict[str, Any]:
    return {"text": text, "speaker": "alice"} | ({"sourceRef": ref} if ref is not None else {})


def one(text: str, ref: str | None) -> dict[str, Any]:
    """`remember`'s variables: alice's unit."""
    return {"input": unit(text, ref) | {"userId": "alice"}}


# -- 1. Neo4j SIGKILLed under a service --------------------------------------------------------


@dataclass
class Outage:
    neo4j: LocalNeo4j
    service: Service
    db: Database


@pytest.fixture
def outage_stack(tmp_path: Path) -> Iterator[tuple[LocalNeo4j, Service]]:
    """A Neo4j of the test's own and a service on it with a short retry window. Keys stay cached
    for the whole test, so that requests pass authentication during the outage and fail in their
    resolvers (the path that answered HTTP 200 after 29 s); a key never used before the outage
    fails in authentication instead."""
    neo4j_port, api_port = free_ports(2)
    settings = private_neo4j_settings(tmp_path / "neo4j", neo4j_port)
    env = service_env(
        settings,
        api_port,
        RECMEM_NEO4J_HOME=str(settings.home),
        RECMEM_NEO4J_RETRY_SECONDS=str(RETRY_S),
        RECMEM_API_AUTH_CACHE_S="600",
        RECMEM_SWEEP_INTERVAL_S="0",
    )
    with running_service(env, tmp_path, wait=False) as service, private_neo4j(settings) as neo4j:
        try:
            service.wait_ready()
            yield neo4j, service
        finally:
            service.stop()  # before Neo4j goes: its shutdown would wait for it


@pytest.fixture
async def outage(outage_stack: tuple[LocalNeo4j, Service]) -> AsyncIterator[Outage]:
    neo4j, service = outage_stack
    database = Database.connect(neo4j.settings)
    yield Outage(neo4j, service, database)
    await database.close()


async def _ws_remember(ws: ClientConnection, ref: str) -> dict[str, Any]:
    """The `next` message of a remember sent over the websocket."""
    payload = {
        "query": REMEMBER,
        "variables": {"input": {"userId": "alice", "text": "by ws", "sourceRef": ref}},
    }
    await ws.send(json.dumps({"id": "w1", "type": "subscribe", "payload": payload}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] in ("next", "error"):
            return dict(message)


async def test_every_answer_during_an_outage_is_503_retry_after_unavailable_within_the_window(
    outage: Outage,
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    keys = AccessKeys(outage.db)
    key = (await keys.create(tenant, "outage")).secret
    unused_key = (await keys.create(tenant, "never used before the outage")).secret
    async with asyncio.timeout(300), httpx.AsyncClient(base_url=outage.service.base, timeout=60) as http:
        warm = await post(http, key, REMEMBER, one("before the outage", "before"), ACCEPTS[0])
        assert warm.status == 200 and not warm.errors, warm.body
        ws = await open_ws(outage.service.base, key)

        await asyncio.to_thread(sigkill_neo4j, outage.neo4j)
        # Writes with and without sourceRef, a batch mixing both, a query and an uncached key,
        # over both media types, all at once.
        requests: list[tuple[str, str, dict[str, Any], str]] = []
        for accept in ACCEPTS:
            for i in range(3):
                requests.append((key, REMEMBER, one(f"with ref {i} {accept}", f"r{i}-{accept}"), accept))
                requests.append((key, REMEMBER, one(f"no ref {i} {accept}", None), accept))
            batch = [unit(f"batch with ref {accept}", f"b-{accept}"), unit(f"batch no ref {accept}", None)]
            requests.append((key, REMEMBER_BATCH, {"user": "alice", "units": batch}, accept))
            requests.append((key, USER, {}, accept))
            requests.append((unused_key, REMEMBER, one(f"unused key {accept}", None), accept))
        answers = await asyncio.gather(*(post(http, *request) for request in requests))
        ws_answer = await _ws_remember(ws, "ws-1")
        await ws.close()

        _report(requests, answers, unused_key)
        for (used, document, variables, _), answer in zip(requests, answers, strict=True):
            assert_unavailable(answer)
            assert answer.seconds < RETRY_S + SLACK_S, (answer.seconds, document)
            if document == USER or used == unused_key:
                continue
            (error,) = answer.errors
            assert error["extensions"]["written"] is False, error
            sent = [variables["input"]] if "input" in variables else variables["units"]
            refs = answer.source_refs()
            assert len(refs) == len(sent)
            for given, ref in zip(sent, refs, strict=True):
                assert ref == given["sourceRef"] if "sourceRef" in given else ref.startswith("recmem:")

        # The websocket: the same error, code and extensions, on the operation's message.
        assert ws_answer["type"] == "next", ws_answer
        (ws_error,) = ws_answer["payload"]["errors"]
        assert ws_error["extensions"]["code"] == "UNAVAILABLE"
        assert ws_error["extensions"]["written"] is False and ws_error["extensions"]["sourceRefs"] == ["ws-1"]

        # Neo4j is back: each write resent with the sourceRefs it was answered, twice, is stored
        # exactly once; texts and refs pair up as first sent.
        await asyncio.to_thread(outage.neo4j.start, 120.0)
        expected = {"before": "before the outage"}
        for (used, document, variables, accept), answer in zip(requests, answers, strict=True):
            if document == USER or used == unused_key:
                continue
            sent = [variables["input"]] if "input" in variables else variables["units"]
            units = [
                {k: v for k, v in u.items() if k != "userId"} | {"sourceRef": ref}
                for u, ref in zip(sent, answer.source_refs(), strict=True)
            ]
            expected |= {u["sourceRef"]: u["text"] for u in units}
            for attempt in range(2):
                resent = await _until_written(http, key, units, accept)
                assert [p["created"] for p in resent] == [attempt == 0] * len(units)
    rows = await query(
        outage.db.driver,
        "MATCH (n:Interaction {tenant: $t}) RETURN n.source_ref AS ref, n.text AS text",
        t=tenant,
    )
    assert sorted(r["ref"] for r in rows) == sorted(expected)
    assert {r["ref"]: r["text"] for r in rows} == expected


def _report(
    requests: list[tuple[str, str, dict[str, Any], str]], answers: list[Answer], unused_key: str
) -> None:
    """Statuses and latencies by kind of request (shown with `pytest -s`)."""
    kinds: dict[str, list[Answer]] = {}
    for (used, document, _, _), answer in zip(requests, answers, strict=True):
        kind = "uncached key" if used == unused_key else "query" if document == USER else "write"
        kinds.setdefault(kind, []).append(answer)
    for kind, group in kinds.items():
        statuses = sorted({a.status for a in group})
        seconds = [a.seconds for a in group]
        print(
            f"outage {kind}: {len(group)} answers, HTTP {statuses}, {min(seconds):.2f}-{max(seconds):.2f} s"
        )


async def _until_written(
    http: httpx.AsyncClient, key: str, units: list[dict[str, Any]], accept: str
) -> list[dict[str, Any]]:
    """The batch's payloads once the service answers it (it may take a while to reconnect)."""
    deadline = time.monotonic() + 90
    while True:
        answer = await post(http, key, REMEMBER_BATCH, {"user": "alice", "units": units}, accept)
        if answer.status == 200 and not answer.errors:
            return list(answer.body["data"]["rememberBatch"])
        assert_unavailable(answer)  # still not written: the same shape
        assert time.monotonic() < deadline, answer.body
        await asyncio.sleep(0.5)


# -- 2. Driver failures injected at the storage boundary ------------------------------------------


@dataclass
class Faulty:
    database: FaultyDatabase
    settings: ApiSettings
    transport: httpx.AsyncBaseTransport
    http: httpx.AsyncClient
    key: str
    tenant: str


@pytest.fixture
async def faulty(db: Database) -> AsyncIterator[Faulty]:
    """An app on the session's Neo4j whose interaction writes fail as a test arms them; a key."""
    database = FaultyDatabase(db, retry_s=0.5)
    settings = make_api_settings()
    app = create_app(AppSettings(), settings, engine=make_engine(database))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=60) as http,
    ):
        tenant = f"t-{uuid.uuid4().hex[:12]}"
        key = (await AccessKeys(db).create(tenant, "faults")).secret
        # Warm: the first statements of a fresh Neo4j are planned for seconds on a loaded
        # machine, which is no fault; a short request timeout is set after them.
        warm = await post(http, key, REMEMBER, one("warm", None), ACCEPTS[0])
        assert warm.status == 200 and not warm.errors, warm.body
        settings.request_timeout_s = REQUEST_TIMEOUT_S
        yield Faulty(database, settings, transport, http, key, tenant)


async def _refs_stored(db: Database, tenant: str, refs: list[str]) -> dict[str, int]:
    """How often each sourceRef is stored in this test's tenant (other tests reuse the refs)."""
    rows = await query(
        db.driver,
        "MATCH (n:Interaction {tenant: $tenant}) WHERE n.source_ref IN $refs "
        "RETURN n.source_ref AS ref, count(*) AS n",
        tenant=tenant,
        refs=refs,
    )
    return {r["ref"]: int(r["n"]) for r in rows}


@pytest.mark.parametrize("accept", ACCEPTS)
async def test_a_commit_whose_answer_is_lost_is_written_unknown_and_resent_once(
    db: Database, faulty: Faulty, accept: str
) -> None:
    """The driver's IncompleteCommit (the connection broke while COMMIT's answer was awaited; here
    raised after a real commit): 503, `written: "unknown"`, the sourceRefs; never retried inside
    the service, and a resend with the sourceRefs stores nothing twice."""
    database, http, key = faulty.database, faulty.http, faulty.key
    database.arm("lost")
    single = await post(http, key, REMEMBER, one("lost answer", None), accept)
    batch = await post(
        http,
        key,
        REMEMBER_BATCH,
        {"user": "alice", "units": [unit("b1", "b1-" + accept), unit("b2", None)]},
        accept,
    )
    assert database.attempts == 2  # one attempt each: an unknown outcome is not retried blindly
    database.arm(None)
    for answer, document in ((single, REMEMBER), (batch, REMEMBER_BATCH)):
        assert_unavailable(answer)
        (error,) = answer.errors
        assert error["extensions"]["written"] == "unknown", error
        refs = answer.source_refs()
        assert await _refs_stored(db, faulty.tenant, refs) == dict.fromkeys(refs, 1)  # it had committed
        units = [unit("resent", ref) for ref in refs]
        resent = await post(http, key, REMEMBER_BATCH, {"user": "alice", "units": units}, accept)
        assert resent.status == 200 and not resent.errors, resent.body
        assert [p["created"] for p in resent.body["data"]["rememberBatch"]] == [False] * len(refs)
        assert await _refs_stored(db, faulty.tenant, refs) == dict.fromkeys(refs, 1), document


async def test_a_write_refused_before_commit_is_written_false_and_its_retry_stores_it(
    db: Database, faulty: Faulty
) -> None:
    database, http, key = faulty.database, faulty.http, faulty.key
    database.arm("refused")
    answer = await post(http, key, REMEMBER, one("refused", None), ACCEPTS[0])
    assert database.attempts >= 2  # retried within the window, then given up
    database.arm(None)
    assert_unavailable(answer)
    (error,) = answer.errors
    assert error["extensions"]["written"] is False
    (ref,) = answer.source_refs()
    assert await _refs_stored(db, faulty.tenant, [ref]) == {}
    resent = await post(http, key, REMEMBER, one("refused", ref), ACCEPTS[0])
    assert resent.status == 200 and resent.body["data"]["remember"]["created"] is True
    assert await _refs_stored(db, faulty.tenant, [ref]) == {ref: 1}


async def test_a_document_that_committed_a_write_answers_200_with_it_and_the_error_beside(
    db: Database, faulty: Faulty
) -> None:
    """The mixed case: the first field is written, the second meets the outage. The data shows
    the write (HTTP 200, so that no client takes it for failed); the error, on the second
    field's path, says it was not written."""
    database, http, key = faulty.database, faulty.http, faulty.key
    database.arm("refused", after=1)
    document = """mutation($a: RememberInput!, $b: RememberInput!) {
      a: remember(input: $a, consolidate: false) { created }
      b: remember(input: $b, consolidate: false) { created } }"""
    variables = {"a": one("first", "mixed-a")["input"], "b": one("second", "mixed-b")["input"]}
    answer = await post(http, key, document, variables, ACCEPTS[1])
    database.arm(None)
    assert answer.status == 200 and "retry-after" not in answer.headers, answer.body
    assert answer.body["data"] == {"a": {"created": True}, "b": None}
    (error,) = answer.errors
    assert error["path"] == ["b"] and error["extensions"]["code"] == "UNAVAILABLE"
    assert error["extensions"]["written"] is False and error["extensions"]["sourceRefs"] == ["mixed-b"]
    assert await _refs_stored(db, faulty.tenant, ["mixed-a", "mixed-b"]) == {"mixed-a": 1}


async def test_a_write_cut_short_by_the_request_timeout_is_written_unknown(
    db: Database, faulty: Faulty
) -> None:
    """The request timeout cancels a write that has committed but not returned: its
    outcome is unknown to the service too, and the answer says so."""
    database, http, key = faulty.database, faulty.http, faulty.key
    database.arm("stalled")
    answer = await post(http, key, REMEMBER, one("stalled", None), ACCEPTS[0])
    database.arm(None)
    assert_unavailable(answer)
    (error,) = answer.errors
    assert error["extensions"]["written"] == "unknown"
    (ref,) = answer.source_refs()
    assert await _refs_stored(db, faulty.tenant, [ref]) == {ref: 1}


class Recording(httpx.AsyncBaseTransport):
    """The app's transport, keeping each request's body and when it was sent."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[tuple[float, dict[str, Any]]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((time.monotonic(), json.loads(await request.aread())))
        return await self.inner.handle_async_request(request)


async def test_the_client_waits_retry_after_resends_the_same_source_ref_and_reports_written(
    db: Database, faulty: Faulty
) -> None:
    faulty.database.arm("refused")
    transport = Recording(faulty.transport)
    retry = RetryPolicy(attempts=2, initial_delay_s=0.01, max_delay_s=10.0)
    async with AsyncMemoryClient(
        faulty.key, base_url="http://api.test", transport=transport, retry=retry
    ) as client:
        with pytest.raises(Unavailable) as raised:
            await client.remember("alice", "through the client", consolidate=False)
        faulty.database.arm(None)
        error = raised.value
        assert error.status == 503 and error.retry_after is not None and error.retry_after > 0
        assert error.written is False
        (ref,) = error.source_refs
        assert ref.startswith("recmem-client:")  # the client's own key, the same in both attempts
        (first, body1), (second, body2) = transport.sent
        assert body1 == body2 and body1["variables"]["input"]["sourceRef"] == ref
        assert second - first >= error.retry_after  # it waited as asked
        done = await client.remember("alice", "through the client", source_ref=ref, consolidate=False)
    stored = await _refs_stored(db, faulty.tenant, [ref])
    assert done.created and stored == {ref: 1}, (done, stored)
