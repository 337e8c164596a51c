"""The last resort: an exception nothing else handled, raised before the response started, is
answered by `on_error` (a typed JSON error with the request id, never Starlette's plain-text 500).

A cancellation of the request itself (the client is gone, the server shuts down) is let through:
nobody is left to answer. A stray one, e.g. of a future shared with a cancelled task, is an error
like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.middleware.base import HttpMiddleware


class UnhandledErrorMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, on_error: Callable[[Scope], Response]) -> None:
        """`on_error` is called inside the `except` block, so it may log the traceback."""
        super().__init__(app)
        self.on_error = on_error

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
            return
        except asyncio.CancelledError:
            if started or _being_cancelled():
                raise
            response = self.on_error(scope)
        except Exception:
            if started:
                raise  # half a response is out: nothing else can be sent
            response = self.on_error(scope)
        await response(scope, receive, send)


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
