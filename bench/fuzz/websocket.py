"""The websocket side of the runner: one graphql-transport-ws connection kept open across cases
(a fresh one for `raw` cases), and one case's exchange on it."""

from __future__ import annotations

import asyncio
import contextlib
import json

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.fuzz.case import Case
from bench.fuzz.outcome import Outcome, answered_data, check_errors, errors_of

PROTOCOL = "graphql-transport-ws"
SERVER_CLOSE_CODES = (1006, 1011)
# Seconds of silence that end an exchange expecting none (a subscription, a ping and pong).
QUIET_S = 0.3
# graphql-transport-ws: "Subscriber for <id> already exists".
DUPLICATE_ID_CLOSE = 4409


class WebSocketSender:
    def __init__(self, base_url: str, key: str, timeout_s: float) -> None:
        self.url = base_url.replace("http", "ws", 1) + "/graphql"
        self.key = key
        self.timeout_s = timeout_s
        self.ws: ClientConnection | None = None

    async def connect(self, *, init: bool) -> ClientConnection:
        ws = await connect(self.url, subprotocols=[PROTOCOL], max_size=None, open_timeout=self.timeout_s)  # type: ignore[list-item]
        if init:
            await ws.send(
                json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {self.key}"}})
            )
            ack = json.loads(await ws.recv())
            if ack.get("type") != "connection_ack":
                raise WebSocketException(f"no connection_ack: {ack}")
        return ws

    async def drop(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.ws = None

    async def send(self, item: Case) -> Outcome:
        if item.raw:
            ws = await self.connect(init=False)
        else:
            if self.ws is None or self.ws.close_code is not None:
                self.ws = await self.connect(init=True)
            ws = self.ws
        # Rejected until a result carries data (set as the messages arrive, so that a close
        # after an answer still counts the answer).
        outcome = Outcome(item, "ws:silent", 0.0, rejected=True)
        try:
            await _exchange(ws, item, outcome)
        except ConnectionClosed:
            code = ws.close_code
            outcome.status = f"ws:close:{code}"
            if code in SERVER_CLOSE_CODES:
                outcome.server_error = True
                outcome.detail = f"closed {code} {ws.close_reason}"
        finally:
            if item.raw:
                with contextlib.suppress(Exception):
                    await ws.close()
        # 4409 answers a second subscribe under an id in use: the first one was accepted, and
        # its operation (a remember, say) may run on and write after the close. Not a rejection.
        outcome.rejected = outcome.rejected and outcome.status != f"ws:close:{DUPLICATE_ID_CLOSE}"
        return outcome


async def _exchange(ws: ClientConnection, item: Case, outcome: Outcome) -> None:
    """Send the case's frames and read until its operations finish (or a quiet QUIET_S)."""
    pending = set(item.operation_ids)
    for frame in item.frames:
        await ws.send(frame)
    # With operations to finish, wait for them (the outer timeout bounds it); otherwise, and
    # for subscriptions (which may never send anything), a quiet QUIET_S ends the exchange.
    quiet = QUIET_S if (item.streams or not pending) else None
    while True:
        try:
            raw = await asyncio.wait_for(ws.recv(), quiet)
        except TimeoutError:
            outcome.status = "ws:quiet"
            for operation in pending:
                await ws.send(json.dumps({"id": operation, "type": "complete"}))
            return
        message = json.loads(raw)
        kind = message.get("type")
        outcome.status = f"ws:{kind}"
        if kind == "next":
            check_errors(errors_of(message.get("payload")), outcome)
            if answered_data(message.get("payload")):
                outcome.rejected = False
        elif kind == "error":
            check_errors(errors_of(message.get("payload")), outcome)
            pending.discard(message.get("id"))
        elif kind == "complete":
            pending.discard(message.get("id"))
        if not pending and quiet is None:
            return
