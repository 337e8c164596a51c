"""The `consolidations` subscription over a real websocket (graphql-transport-ws), and websocket auth."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from api.app import create_app
from consolidation.forgetting.keys import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.support.api import (
    REMEMBER_BATCH,
    STORY,
    Caller,
    make_api_settings,
    make_engine,
    new_caller,
    serve_app,
    unit,
)

PROTOCOL = Subprotocol("graphql-transport-ws")
SUBSCRIBE = """subscription($u: ID!) { consolidations(userId: $u) {
  userId action triggerId episodeId previousEpisodeId episode { id version current } facts { text }
  supersededFactIds consolidatedIds } }"""


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[str]:
    """The app served by a real uvicorn in the test's event loop; yields host:port."""
    app = create_app(AppSettings(), make_api_settings(), engine=make_engine(db))
    async with serve_app(app) as url:
        yield url.removeprefix("http://")


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
    ws = await connect(f"ws://{live}/graphql", subprotocols=[PROTOCOL], additional_headers=headers)
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


async def _subscribe(ws: ClientConnection, user: str, op: str = "1") -> None:
    assert (await _receive(ws))["type"] == "connection_ack"
    message = {"id": op, "type": "subscribe", "payload": {"query": SUBSCRIBE, "variables": {"u": user}}}
    await ws.send(json.dumps(message))
    await asyncio.sleep(0.5)  # the server registers the subscriber before the first event


async def test_a_subscription_may_open_before_the_users_first_write(
    db: Database, live: str, http: httpx.AsyncClient
) -> None:
    caller = await new_caller(db, http)
    # The key in connection_init this time, and a user nothing was written for yet.
    ws = await _open(live, payload={"Authorization": f"Bearer {caller.key}"})
    try:
        await _subscribe(ws, "newcomer")
        for day, text in enumerate(STORY[:3], start=1):
            await caller.gql(REMEMBER_BATCH, {"user": "newcomer", "units": [unit(text, day)]})
        created = await _receive(ws)
        assert created["type"] == "next", created
        event = created["payload"]["data"]["consolidations"]
        assert (event["action"], event["userId"], len(event["consolidatedIds"])) == ("CREATED", "newcomer", 3)
    finally:
        await ws.close()


async def test_another_tenants_user_of_the_same_id_delivers_nothing(
    db: Database, live: str, http: httpx.AsyncClient
) -> None:
    writer, watcher = await new_caller(db, http), await new_caller(db, http)
    ws = await _open(live, header=f"Bearer {watcher.key}")
    try:
        await _subscribe(ws, "shared-id")
        for day, text in enumerate(STORY[:3], start=1):
            data = await writer.gql(REMEMBER_BATCH, {"user": "shared-id", "units": [unit(text, day)]})
        assert data["rememberBatch"][0]["consolidation"]["action"] == "CREATED"
        # The writer's tenant consolidated; the watcher's "shared-id" is another user.
        with pytest.raises(TimeoutError):
            await _receive(ws, wait_s=2.0)
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
