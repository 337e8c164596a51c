"""GraphQL-over-HTTP content negotiation: the response's media type from `Accept`, kept in the
request's state; a client that accepts neither JSON flavour gets 406 (api/responses.py)."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from api.admission import Refusal, RenderRefusal
from api.errors import ErrorCode
from api.responses import GRAPHQL_RESPONSE, JSON, negotiate

_STATE_KEY = "media"


def media_of(scope: Scope) -> str:
    """The negotiated media type; JSON before (or without) negotiation."""
    value = scope.get("state", {}).get(_STATE_KEY)
    return value if isinstance(value, str) else JSON


class NegotiationMiddleware:
    def __init__(self, app: ASGIApp, render: RenderRefusal) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        media = negotiate(Headers(scope=scope).get("accept"))
        if media is None:
            refusal = Refusal(
                f"acceptable media types: {GRAPHQL_RESPONSE}, {JSON}", ErrorCode.BAD_USER_INPUT, status=406
            )
            await self.render(scope, refusal)(scope, receive, send)
            return
        scope.setdefault("state", {})[_STATE_KEY] = media
        await self.app(scope, receive, send)
