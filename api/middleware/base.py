"""What the middlewares have in common: each acts on HTTP requests only (a websocket and the
lifespan pass through untouched), and a check among them either refuses a request, rendered in
the endpoint's protocol (api/admission.py), or passes it on."""

from __future__ import annotations

from abc import ABC, abstractmethod

from starlette.types import ASGIApp, Receive, Scope, Send

from api.admission import Refusal, RenderRefusal


class HttpMiddleware(ABC):
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One HTTP request."""


class CheckMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, render: RenderRefusal) -> None:
        super().__init__(app)
        self.render = render

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = await self.refusal(scope)
        if refusal is not None:
            await self.render(scope, refusal)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @abstractmethod
    async def refusal(self, scope: Scope) -> Refusal | None:
        """Why the request is refused; None passes it on."""
