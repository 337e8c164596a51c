"""The Starlette application: `/graphql` (HTTP and websocket), `/mcp`, `/export`, `/healthz`, `/readyz`,
`/metrics`.

The Neo4j driver, the schema migration and the engine live in the app's lifespan, so they belong
to the event loop that serves requests. Neo4j being down at start does not stop the process:
`/readyz` stays red (and GraphQL answers UNAVAILABLE) until it can migrate.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute

from api.context import services_of
from api.explorer import routes as explorer_routes
from api.export import PATH as EXPORT_PATH
from api.export import ExportEndpoint
from api.graphiql import ASSET_PATH, asset
from api.http import GraphQLEndpoint, MemoryGraphQL, internal_error, render_refusal
from api.mcp import build_mcp
from api.metrics import metrics, read_backlog
from api.middleware.authentication import authentication
from api.middleware.body_limit import BodyLimitMiddleware
from api.middleware.graphiql import GraphiQLMiddleware
from api.middleware.methods import MethodsMiddleware
from api.middleware.negotiation import NegotiationMiddleware
from api.middleware.rate_limit import RateLimitMiddleware
from api.middleware.readiness import ReadinessMiddleware
from api.middleware.request_id import RequestIdMiddleware
from api.middleware.server_timing import ServerTimingMiddleware
from api.middleware.unhandled_errors import UnhandledErrorMiddleware
from api.responses import UNAVAILABLE_HEADERS
from api.schema import build_schema
from api.services import Services
from api.settings import ApiSettings, require_body_room
from consolidation.assembly import around
from consolidation.engine import MemoryEngine
from consolidation.wiring import AppSettings, build_memory
from graph.database import Database
from graph.errors import StoreUnavailable

log = logging.getLogger("api.app")


def create_app(
    settings: AppSettings | None = None,
    api: ApiSettings | None = None,
    *,
    database: Database | None = None,
    engine: MemoryEngine | None = None,
) -> Starlette:
    """The service. `database` / `engine` let tests share one driver; the app then leaves them
    open (their owner closes them), but still migrates and starts/stops the engine. Raises
    BodyLimitError when the body limit leaves no room for a text the memory accepts."""
    settings = settings or AppSettings()
    api = api or ApiSettings()
    require_body_room(api.max_body_bytes, (engine.settings if engine else settings.engine).max_text_bytes)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        owned: Database | None = None  # a driver this app opened itself is closed with it
        if engine is not None:
            memory = around(engine)
        else:
            db = database
            if db is None:
                db = owned = Database.connect(settings.neo4j)
            memory = build_memory(db, settings)
        services = Services.build(memory, api)
        app.state.services = services
        try:
            await services.ensure_ready()
        except StoreUnavailable as error:
            log.warning("starting without Neo4j (not ready until it answers): %s", error)
        services.engine.start()
        try:
            async with mcp.run():
                yield
        finally:
            await services.engine.stop()
            if owned is not None:
                await owned.close()

    graphql = MemoryGraphQL(build_schema(api), api)
    mcp = build_mcp(api)
    return Starlette(
        routes=[
            *graphql_routes(graphql, api),
            Route("/mcp", mcp),
            export_route(api),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Route(ASSET_PATH, asset),
            *explorer_routes(),
        ],
        lifespan=lifespan,
    )


def graphql_routes(view: MemoryGraphQL, api: ApiSettings) -> list[BaseRoute]:
    """`/graphql` over HTTP and its websocket, each behind its middleware stack, outermost first.
    The order is the contract (tests/*/test_api_*.py): the GraphiQL page is public; the
    Server-Timing clock starts first, so it covers every other middleware; a request gets its id
    before anything can fail; method and Accept are checked before the key, so that even a
    refusal is in a type the client reads; readiness, the key and its rate limit come in
    api/admission.py's order; the body is read last, only for a caller who may send one."""
    render = render_refusal
    http = [
        *([Middleware(GraphiQLMiddleware)] if api.graphiql else []),
        *([Middleware(ServerTimingMiddleware)] if api.server_timing else []),
        Middleware(RequestIdMiddleware),
        Middleware(UnhandledErrorMiddleware, on_error=internal_error),
        Middleware(MethodsMiddleware, methods=("GET", "POST"), render=render),
        Middleware(NegotiationMiddleware, render=render),
        Middleware(ReadinessMiddleware, render=render),
        authentication(render),
        Middleware(RateLimitMiddleware, render=render),
        Middleware(BodyLimitMiddleware, max_bytes=api.max_body_bytes, render=render),
    ]
    # The websocket: each message under the body cap, and a key in the handshake checked before
    # it is accepted; the protocol handles connection_init's key and each operation's limits.
    websocket = [
        Middleware(BodyLimitMiddleware, max_bytes=api.max_body_bytes, render=render),
        authentication(render),
    ]
    return [
        Route("/graphql", GraphQLEndpoint(view, api), middleware=http),
        WebSocketRoute("/graphql", view, middleware=websocket),
    ]


def export_route(api: ApiSettings) -> BaseRoute:
    """`GET /export?user=U` (api/export.py): a request id, then admission as for `/graphql`."""
    render = render_refusal
    middleware = [
        Middleware(RequestIdMiddleware),
        Middleware(UnhandledErrorMiddleware, on_error=internal_error),
        Middleware(MethodsMiddleware, methods=("GET",), render=render),
        Middleware(ReadinessMiddleware, render=render),
        authentication(render),
        Middleware(RateLimitMiddleware, render=render),
    ]
    return Route(EXPORT_PATH, ExportEndpoint(), middleware=middleware)


async def healthz(request: Request) -> JSONResponse:
    """The process is up (says nothing about Neo4j)."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Neo4j answers and the schema is migrated: the process can serve requests. When ready, the
    body also carries the consolidation backlog (pending interactions, the oldest's age)."""
    services = services_of(request.scope)
    reason = await services.check_ready()
    if reason is None:
        return JSONResponse({"status": "ready", **await read_backlog(services)})
    return JSONResponse(
        {"status": "unavailable", "reason": reason}, status_code=503, headers=UNAVAILABLE_HEADERS
    )
