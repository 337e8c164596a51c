"""`X-Request-Id`: the caller's when it is a sane token, else a fresh one; kept in the request's
state (for error bodies and logs) and sent back on every response."""

from __future__ import annotations

import re

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from api.context import new_request_id
from api.middleware.base import HttpMiddleware

HEADER = "x-request-id"
_STATE_KEY = "request_id"
_SANE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id_of(scope: Scope) -> str:
    """The request's id; a fresh one outside RequestIdMiddleware (a websocket handshake)."""
    value = scope.get("state", {}).get(_STATE_KEY)
    return value if isinstance(value, str) else new_request_id()


class RequestIdMiddleware(HttpMiddleware):
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        offered = Headers(scope=scope).get(HEADER, "")
        request_id = offered if _SANE.match(offered) else new_request_id()
        scope.setdefault("state", {})[_STATE_KEY] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if HEADER not in headers:
                    headers.append(HEADER, request_id)
            await send(message)

        await self.app(scope, receive, send_with_id)
