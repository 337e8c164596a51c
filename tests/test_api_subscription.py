"""The `consolidations` subscription over a real websocket (graphql-transport-ws), and websocket auth."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from api.app import create_app
from consolidation.access import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.api_support import REMEMBER_BATCH, STORY, Caller, make_api_settings, make_engine, new_caller, unit

PROTOCOL = "graphql-transport-ws"
SUBSCRIBE = """subscription($u: ID!) { consolidations(userId: $u) {
  userId action triggerId episodeId previousEpisodeId episode { id version current } facts { text }
  supersededFactIds consolidatedIds } }"""


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[str]:
    """The app served by a real uvicorn in the test's event loop; yields host:port."""
    app = create_app(AppSettings(), make_api_settings(), engine=make_engine(db))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "uvicorn did not start"
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"127.0.0.1:{port}"
    server.should_exit = True
    await task


@pytest.fixture
async def http(live: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"http://{live}", timeout=60) as client:
        yield client


async def _receive(ws: ClientConnection, wait_s: float = 30.0) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), wait_s))
        if message["type"] not in ("ping", "pong"):
            return dict(message)


async def _open(
    live: str, *, header: str | None = None, payload: dict[str, Any] | None = None
) -> ClientConnection:
    headers = {"authorization": header} if header else None
    ws = await connect(f"ws://{live}/graphql", subprotocols=[PROTOCOL], additional_headers=headers)  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": payload or {}}))
    return ws


async def test_consolidation_events_stream_over_a_websocket(
    db: Database, live: str, http: httpx.AsyncClient
) -> None:
    caller: Caller = await new_caller(db, http)
    await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": [unit("Hello there.", 0)]})
    ws = await _open(live, header=f"Bearer {caller.key}")
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIBE, "variables": {"u": "alice"}}}
            )
        )
        await asyncio.sleep(0.5)  # the server registers the subscriber before the first event
        payloads = []
        for day, text in enumerate(STORY[:4], start=1):
            data = await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": [unit(text, day)]})
            payloads.append(data["rememberBatch"][0])
        created = await _receive(ws)
        merged = await _receive(ws)
        assert created["type"] == "next" and created["id"] == "1"
        event = created["payload"]["data"]["consolidations"]
        assert event["action"] == "CREATED" and event["userId"] == "alice"
        assert event["episode"] == {
            "id": payloads[2]["consolidation"]["episodeId"],
            "version": 1,
            "current": True,
        }
        assert len(event["consolidatedIds"]) == 3 and event["facts"]
        second = merged["payload"]["data"]["consolidations"]
        assert second["action"] == "MERGED" and second["previousEpisodeId"] == event["episodeId"]
        assert second["episode"]["version"] == 2 and len(second["supersededFactIds"]) == 3
        await ws.send(json.dumps({"id": "1", "type": "complete"}))
    finally:
        await ws.close()


async def test_the_key_may_come_in_connection_init(db: Database, live: str, http: httpx.AsyncClient) -> None:
    caller = await new_caller(db, http)
    ws = await _open(live, payload={"Authorization": f"Bearer {caller.key}"})
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        # Another tenant's user (or an unknown one) answers NOT_FOUND on the subscription too.
        await ws.send(
            json.dumps(
                {"id": "9", "type": "subscribe", "payload": {"query": SUBSCRIBE, "variables": {"u": "alice"}}}
            )
        )
        reply = await _receive(ws)
        errors = reply["payload"] if reply["type"] == "error" else reply["payload"]["errors"]
        assert errors[0]["extensions"]["code"] == "NOT_FOUND"
    finally:
        await ws.close()


async def test_websocket_without_a_valid_key_is_refused(
    db: Database, live: str, http: httpx.AsyncClient
) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await _open(live, header="Bearer rmk_wrong")
    assert refused.value.response.status_code == 403

    for payload in ({}, {"Authorization": "Bearer rmk_wrong"}, {"apiKey": "nope"}):
        ws = await _open(live, payload=payload)
        with pytest.raises(ConnectionClosed):
            await _receive(ws)
        assert ws.close_code == 4403

    caller = await new_caller(db, http)
    keys = AccessKeys(db)
    await keys.revoke(next(k.id for k in await keys.list(caller.tenant)))
    with pytest.raises(InvalidStatus):
        await _open(live, header=f"Bearer {caller.key}")
    ws = await _open(live, payload={"Authorization": f"Bearer {caller.key}"})
    with pytest.raises(ConnectionClosed):
        await _receive(ws)
    assert ws.close_code == 4403
