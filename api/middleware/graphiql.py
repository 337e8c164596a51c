"""A browser opening `/graphql` gets the GraphiQL page (api/graphiql), before any API check: the
page is public, its queries are not. The rule is GraphQL over HTTP's, as strawberry applies it: a
GET without a `query` parameter whose Accept names HTML or `*/*`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from api.graphiql import page_response
from api.middleware.base import HttpMiddleware


def wants_graphiql(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return (
        request.method == "GET"
        and request.query_params.get("query") is None
        and any(media in accept for media in ("text/html", "*/*"))
    )


class GraphiQLMiddleware(HttpMiddleware):
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if wants_graphiql(Request(scope)):
            await page_response()(scope, receive, send)
            return
        await self.app(scope, receive, send)
