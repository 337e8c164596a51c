"""The HTTP rules on the websocket (graphql-transport-ws): a revoked key loses the connection, and
every operation is rate limited like a request.

An HTTP request is authenticated once, but a websocket lives for hours: the connection's key is
looked up again every KEY_RECHECK_S (straight from Neo4j, so that a revoked key is refused
everywhere within RECMEM_API_AUTH_CACHE_S) and at each new operation; once it is revoked the
connection closes with 4403 and its subscriptions stop. Each `subscribe` takes a token from the
key's rate-limit bucket. The handshake's key and the message size cap are middleware
(api/middleware), as over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from graphql import GraphQLFormattedError
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    ErrorMessage,
    SubscribeMessage,
)

from api.admission import rate_limited
from api.auth import KeyRefused, KeyUnavailable, principal_for
from api.context import Context
from api.errors import ErrorCode

log = logging.getLogger("api.websocket")

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
        if not await self._key_valid(fresh=False):
            await self.websocket.close(code=FORBIDDEN, reason="Forbidden: the API key was revoked")
            return
        limit = self.max_subscriptions_per_connection
        if limit is not None and len(self.operations) >= limit and message["id"] not in self.operations:
            await self._refuse(message["id"], f"at most {limit} operations at once", ErrorCode.RATE_LIMITED)
            return
        principal = self.context.principal
        refusal = None if principal is None else rate_limited(self.context.services, principal)
        if refusal is not None:
            await self._refuse(message["id"], refusal.message, refusal.code)
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
            if not await self._key_valid(fresh=True):
                log.info("closing a websocket: its API key was revoked")
                with contextlib.suppress(Exception):  # the client may be gone already
                    await self.websocket.close(code=FORBIDDEN, reason="Forbidden: the API key was revoked")
                return

    async def _key_valid(self, *, fresh: bool) -> bool:
        """Whether the connection's key still authenticates. The watchdog bypasses the process's
        key cache; a new operation uses it, as an HTTP request does. Neo4j being unreachable is
        not a revocation: the connection stays, and its operations answer UNAVAILABLE."""
        token = self.context.credential
        if token is None:
            return False
        try:
            await principal_for(self.context.services.authenticator, token, fresh=fresh)
        except KeyUnavailable:
            return True
        except KeyRefused:
            return False
        except Exception:
            # Fail closed: a check that cannot run must not leave the connection unchecked.
            log.exception("could not re-check a websocket's API key")
            return False
        return True
