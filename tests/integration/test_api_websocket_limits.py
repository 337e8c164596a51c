"""The HTTP rules hold on the websocket too: a key revoked while a connection is open loses it
(4403) within RECMEM_API_AUTH_CACHE_S, each operation is rate limited, a message larger than the body cap
closes the connection (1009), and the per-connection operation limit answers a typed error."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from api.app import create_app
from api.websocket import GuardedTransportWS
from consolidation.forgetting.keys import AccessKeys
from consolidation.types import Unit
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.models import Owner
from tests.support.api import make_api_settings, make_engine, serve_app

PROTOCOL = Subprotocol("graphql-transport-ws")
SUBSCRIBE = "subscription($u: ID!) { consolidations(userId: $u) { action } }"
BURST = 3
MAX_OPERATIONS = 2


@dataclass(frozen=True)
class Live:
    address: str
    app: Starlette


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[Live]:
    """A real uvicorn with a small rate limit and operation limit; the body cap is the default."""
    settings = make_api_settings(
        rate_limit_per_s=0.001, rate_limit_burst=BURST, max_subscriptions_per_connection=MAX_OPERATIONS
    )
    app = create_app(AppSettings(), settings, engine=make_engine(db))
    async with serve_app(app) as url:
        yield Live(url.removeprefix("http://"), app)


@dataclass(frozen=True)
class Key:
    tenant: str
    id: str
    secret: str


async def _key(db: Database, live: Live) -> Key:
    """A fresh tenant's key, whose user alice exists (written without spending a rate token)."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    issued = await AccessKeys(db).create(tenant, "ws")
    await live.app.state.services.engine.remember(
        Owner(tenant, "alice"), Unit(text="hello"), consolidate=False
    )
    return Key(tenant, issued.key.id, issued.secret)


async def _open(live: Live, key: Key, *, in_header: bool) -> ClientConnection:
    headers = {"authorization": f"Bearer {key.secret}"} if in_header else None
    ws = await connect(
        f"ws://{live.address}/graphql",
        subprotocols=[PROTOCOL],
        additional_headers=headers,
        max_size=None,
    )
    payload = {} if in_header else {"Authorization": f"Bearer {key.secret}"}
    await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
    assert (await _receive(ws))["type"] == "connection_ack"
    return ws


async def _receive(ws: ClientConnection, wait_s: float = 30.0) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), wait_s))
        if message["type"] not in ("ping", "pong"):
            return dict(message)


async def _subscribe(ws: ClientConnection, operation_id: str, query: str = SUBSCRIBE) -> None:
    message = {
        "id": operation_id,
        "type": "subscribe",
        "payload": {"query": query, "variables": {"u": "alice"}},
    }
    await ws.send(json.dumps(message))


async def _closed_within(ws: ClientConnection, seconds: float) -> tuple[int | None, float]:
    """The close code once the server closes the connection, and how long it took."""
    start = time.monotonic()
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), seconds)
    return ws.close_code, time.monotonic() - start


@pytest.mark.parametrize("in_header", [True, False], ids=["key in header", "key in connection_init"])
async def test_revoking_a_key_closes_its_open_websocket_within_5_s(
    db: Database, live: Live, in_header: bool
) -> None:
    key = await _key(db, live)
    ws = await _open(live, key, in_header=in_header)
    await _subscribe(ws, "1")
    await asyncio.sleep(0.3)  # the subscription is live
    await AccessKeys(db).revoke(key.id)
    code, took = await _closed_within(ws, 8.0)
    assert code == 4403 and took < 5.0


async def test_a_revoked_key_cannot_start_an_operation(
    db: Database, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The periodic re-check is out of the way: the refusal comes from the operation itself.
    monkeypatch.setattr(GuardedTransportWS, "KEY_RECHECK_S", 600.0)
    key = await _key(db, live)
    ws = await _open(live, key, in_header=False)
    await AccessKeys(db).revoke(key.id)
    await _subscribe(ws, "1", "query { __typename }")
    code, _ = await _closed_within(ws, 5.0)
    assert code == 4403


async def test_operations_spend_the_keys_rate_limit(db: Database, live: Live) -> None:
    key = await _key(db, live)
    ws = await _open(live, key, in_header=True)
    try:
        for n in range(BURST):
            await _subscribe(ws, f"q{n}", "query { __typename }")
            assert (await _receive(ws))["type"] == "next"
            assert (await _receive(ws))["type"] == "complete"
        await _subscribe(ws, "over", "query { __typename }")
        refused = await _receive(ws)
        assert refused["type"] == "error" and refused["id"] == "over"
        assert refused["payload"][0]["extensions"]["code"] == "RATE_LIMITED"
        await ws.send(json.dumps({"type": "ping"}))  # the connection itself stays open
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "pong"
    finally:
        await ws.close()


async def test_the_operation_limit_answers_a_typed_error(db: Database, live: Live) -> None:
    key = await _key(db, live)
    ws = await _open(live, key, in_header=True)
    try:
        for n in range(MAX_OPERATIONS):
            await _subscribe(ws, f"s{n}")
        await asyncio.sleep(0.3)
        await _subscribe(ws, "one-too-many")
        refused = await _receive(ws)
        assert refused["type"] == "error" and refused["id"] == "one-too-many", refused
        extensions = refused["payload"][0]["extensions"]
        assert extensions["code"] == "RATE_LIMITED" and extensions["requestId"]
    finally:
        await ws.close()


async def test_a_message_over_the_body_cap_closes_the_connection(db: Database, live: Live) -> None:
    key = await _key(db, live)
    cap = live.app.state.services.settings.max_body_bytes
    ws = await _open(live, key, in_header=True)
    # Under the cap, a large (undeclared, so ignored) variable is fine.
    big = {"query": "query { __typename }", "variables": {"pad": "x" * (cap // 2)}}
    await ws.send(json.dumps({"id": "ok", "type": "subscribe", "payload": big}))
    assert (await _receive(ws))["type"] == "next"
    assert (await _receive(ws))["type"] == "complete"
    over = {"query": "query { __typename }", "variables": {"pad": "x" * cap}}
    await ws.send(json.dumps({"id": "big", "type": "subscribe", "payload": over}))
    code, _ = await _closed_within(ws, 10.0)
    assert (code, ws.close_reason) == (1009, f"message exceeds {cap} bytes (RECMEM_API_MAX_BODY_BYTES)")
