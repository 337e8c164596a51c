"""The HTTP rules on the websocket (graphql-transport-ws): a revoked key loses the connection, and
every operation is rate limited and size capped like a request.

An HTTP request is authenticated once, but a websocket lives for hours: the connection's key is
looked up again every KEY_RECHECK_S (straight from Neo4j, so that the README's "refused everywhere
within 5 s" holds) and at each new operation; once it is revoked the connection closes with 4403
and its subscriptions stop. Each `subscribe` takes a token from the key's rate-limit bucket, and a
message larger than the HTTP body cap closes the connection (1009) before it is parsed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from graphql import GraphQLFormattedError
from starlette.types import Message, Receive, Send
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    ErrorMessage,
    SubscribeMessage,
)

from api.auth import token_from_params
from api.context import Context
from api.errors import ErrorCode
from graph.errors import StoreUnavailable

log = logging.getLogger("api.websocket")

# RFC 6455: the peer sent a message too big to process.
MESSAGE_TOO_BIG = 1009
FORBIDDEN = 4403


class GuardedTransportWS(BaseGraphQLTransportWSHandler[Context, None]):
    """strawberry's graphql-transport-ws handler, with the key re-checked and operations limited."""

    # Seconds between two lookups of an open connection's key.
    KEY_RECHECK_S = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watchdog: asyncio.Task[None] | None = None

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        await super().handle_connection_init(message)
        if self.connection_acknowledged and self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch_key(), name="recmem-ws-key-watchdog")

    async def shutdown(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        await super().shutdown()

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        if not self.connection_acknowledged:
            await super().handle_subscribe(message)  # closes with 4401
            return
        if not await self._key_valid(cached=True):
            await self.websocket.close(code=FORBIDDEN, reason="Forbidden: the API key was revoked")
            return
        limit = self.max_subscriptions_per_connection
        if limit is not None and len(self.operations) >= limit and message["id"] not in self.operations:
            await self._refuse(message["id"], f"at most {limit} operations at once", ErrorCode.RATE_LIMITED)
            return
        principal = self.context.principal
        services = self.context.services
        if principal is not None and not services.limiter.allow(principal.key_id):
            await self._refuse(message["id"], "too many requests for this key", ErrorCode.RATE_LIMITED)
            return
        await super().handle_subscribe(message)

    async def _refuse(self, operation_id: str, reason: str, code: ErrorCode) -> None:
        """An `error` message for one operation; the connection stays open."""
        error: GraphQLFormattedError = {
            "message": reason,
            "extensions": {"code": code.value, "requestId": self.context.request_id},
        }
        await self.send_message(ErrorMessage(id=operation_id, type="error", payload=[error]))

    async def _watch_key(self) -> None:
        while True:
            await asyncio.sleep(self.KEY_RECHECK_S)
            if not await self._key_valid(cached=False):
                log.info("closing a websocket: its API key was revoked")
                with contextlib.suppress(Exception):  # the client may be gone already
                    await self.websocket.close(code=FORBIDDEN, reason="Forbidden: the API key was revoked")
                return

    async def _key_valid(self, *, cached: bool) -> bool:
        """Whether the connection's key still authenticates. The watchdog bypasses the process's
        key cache; a new operation uses it, as an HTTP request does. Neo4j being unreachable is
        not a revocation: the connection stays, and its operations answer UNAVAILABLE."""
        token = self._token()
        if token is None:
            return False
        authenticator = self.context.services.authenticator
        try:
            found = await (
                authenticator.authenticate(token) if cached else authenticator.keys.authenticate(token)
            )
        except StoreUnavailable:
            return True
        except Exception:
            # Fail closed: a check that cannot run must not leave the connection unchecked.
            log.exception("could not re-check a websocket's API key")
            return False
        return found is not None

    def _token(self) -> str | None:
        # The handshake's Authorization header (kept by MemoryGraphQL), else connection_init's.
        state = getattr(self.websocket, "ws", None)
        token = getattr(getattr(state, "state", None), "token", None)
        return token if isinstance(token, str) else token_from_params(self.context.connection_params)


def capped(receive: Receive, send: Send, max_bytes: int) -> tuple[Receive, Send]:
    """ASGI channels for one websocket that close it (1009) when a client message is larger than
    `max_bytes`, before anything parses it; the application then sees a disconnect."""
    closed = False

    async def capped_receive() -> Message:
        nonlocal closed
        message = await receive()
        if message["type"] == "websocket.receive" and _too_big(message, max_bytes):
            closed = True
            reason = f"message exceeds {max_bytes} bytes"
            await send({"type": "websocket.close", "code": MESSAGE_TOO_BIG, "reason": reason})
            return {"type": "websocket.disconnect", "code": MESSAGE_TOO_BIG}
        return message

    async def capped_send(message: Message) -> None:
        if not closed:  # the connection is gone: what the application still sends is dropped
            await send(message)

    return capped_receive, capped_send


def _too_big(message: Message, max_bytes: int) -> bool:
    text = message.get("text")
    if isinstance(text, str):
        # A character is 1 to 4 UTF-8 bytes: encode only when the length alone cannot decide.
        if len(text) > max_bytes or len(text) * 4 <= max_bytes:
            return len(text) > max_bytes
        return len(text.encode("utf-8", "surrogatepass")) > max_bytes
    data = message.get("bytes")
    return isinstance(data, bytes | bytearray) and len(data) > max_bytes
