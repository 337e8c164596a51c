"""Each request takes a token from its key's bucket (api/limits.py); an empty bucket answers
RATE_LIMITED with Retry-After. Runs after authentication, which names the key."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from api.admission import RenderRefusal, rate_limited
from api.context import services_of
from api.middleware.authentication import principal_of


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, render: RenderRefusal) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = principal_of(scope)
        if scope["type"] == "http" and principal is not None:
            refusal = rate_limited(services_of(scope), principal)
            if refusal is not None:
                await self.render(scope, refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)
