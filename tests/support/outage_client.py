"""What a client sees of a service while its Neo4j is sick (tests/system/test_outage_shape.py,
tests/system/test_sick_database.py): timed GraphQL answers, and an acknowledged websocket."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol


@dataclass
class Answer:
    """One answer (`what` names the request), its headers with lower-case names, and how long it
    took."""

    what: str
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    seconds: float

    @property
    def errors(self) -> list[dict[str, Any]]:
        return list(self.body.get("errors") or [])

    def source_refs(self) -> list[str]:
        """The sourceRefs the one error names, to resend the write with."""
        (error,) = self.errors
        return list(error["extensions"]["sourceRefs"])


async def post(
    http: httpx.AsyncClient, key: str, document: str, variables: dict[str, Any], accept: str, what: str = ""
) -> Answer:
    """A GraphQL POST with `key`, accepting `accept`, timed."""
    started = time.monotonic()
    response = await http.post(
        "/graphql",
        json={"query": document, "variables": variables},
        headers={"authorization": f"Bearer {key}", "accept": accept},
    )
    seconds = time.monotonic() - started
    return Answer(what, response.status_code, dict(response.headers), response.json(), seconds)


async def open_ws(base: str, key: str) -> ClientConnection:
    """A graphql-transport-ws connection to the service at `base`, initialised and acknowledged."""
    ws = await connect(
        base.replace("http://", "ws://") + "/graphql",
        subprotocols=[Subprotocol("graphql-transport-ws")],
        additional_headers={"authorization": f"Bearer {key}"},
    )
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "connection_ack"
    return ws
