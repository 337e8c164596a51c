"""The HTTP methods an endpoint serves; any other is refused with 405 and `Allow`."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from api.admission import Refusal, RenderRefusal
from api.errors import ErrorCode


class MethodsMiddleware:
    def __init__(self, app: ASGIApp, methods: Sequence[str], render: RenderRefusal) -> None:
        self.app = app
        self.methods = tuple(methods)
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in self.methods:
            refusal = Refusal(
                f"use {' or '.join(self.methods)}",
                ErrorCode.BAD_USER_INPUT,
                {"allow": ", ".join(self.methods)},
                status=405,
            )
            await self.render(scope, refusal)(scope, receive, send)
            return
        await self.app(scope, receive, send)
