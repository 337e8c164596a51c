"""A request is served once the schema is migrated: until Neo4j answers (it may be down at start)
every request is refused as UNAVAILABLE, with Retry-After."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from api.admission import RenderRefusal, unready
from api.context import services_of


class ReadinessMiddleware:
    def __init__(self, app: ASGIApp, render: RenderRefusal) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await unready(services_of(scope))
            if refusal is not None:
                await self.render(scope, refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)
