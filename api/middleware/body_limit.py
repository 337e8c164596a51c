"""The body cap: an HTTP body or a websocket message larger than `max_bytes` is refused before
anything parses it.

Over HTTP the body is read here, whatever Content-Length claims, and handed on in one piece (a
GraphQL request is parsed whole, so nothing is lost by buffering it); over the cap it is answered
413. On the websocket a message over the cap closes the connection (1009, RFC 6455's "message too
big") and the application sees a disconnect. Either refusal names the setting.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.admission import Refusal, RenderRefusal
from api.errors import ErrorCode
from api.middleware.base import HttpMiddleware

MESSAGE_TOO_BIG = 1009
# What a refusal names: the limit is this setting, not the text limit a turn is held to.
SETTING = "RECMEM_API_MAX_BODY_BYTES"


class BodyTooLarge(Exception):
    pass


class BodyLimitMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, max_bytes: int, render: RenderRefusal) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # its messages are capped as they come; it passes on
            receive, send = capped(receive, send, self.max_bytes)
        await super().__call__(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body = await self._body(scope, receive)
        except BodyTooLarge:
            refusal = Refusal(
                f"request body exceeds {self.max_bytes} bytes ({SETTING})",
                ErrorCode.BAD_USER_INPUT,
                status=413,
            )
            await self.render(scope, refusal)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _body(self, scope: Scope, receive: Receive) -> bytes:
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            raise BodyTooLarge
        chunks, size = [], 0
        async for chunk in Request(scope, receive).stream():
            size += len(chunk)
            if size > self.max_bytes:
                raise BodyTooLarge
            chunks.append(chunk)
        return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The already-read body once, then the client's channel again (its disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def capped(receive: Receive, send: Send, max_bytes: int) -> tuple[Receive, Send]:
    """ASGI channels for one websocket that close it (1009) when a client message is larger than
    `max_bytes`, before anything parses it; the application then sees a disconnect."""
    closed = False

    async def capped_receive() -> Message:
        nonlocal closed
        message = await receive()
        if message["type"] == "websocket.receive" and _too_big(message, max_bytes):
            closed = True
            reason = f"message exceeds {max_bytes} bytes ({SETTING})"
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
