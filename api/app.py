"""The Starlette application: `/graphql` (HTTP and websocket), `/mcp`, `/healthz`, `/readyz`, `/metrics`.

The Neo4j driver, the schema migration and the engine live in the app's lifespan, so they belong
to the event loop that serves requests. Neo4j being down at start does not stop the process:
`/readyz` stays red (and GraphQL answers UNAVAILABLE) until it can migrate.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

from api.explorer import routes as explorer_routes
from api.graphiql import ASSET_PATH, asset
from api.http import MemoryGraphQL, services_of
from api.mcp_server import build_mcp
from api.metrics import metrics, read_backlog
from api.schema import build_schema
from api.services import Services
from api.settings import ApiSettings
from consolidation.engine import MemoryEngine
from consolidation.wiring import AppSettings, build_engine
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
    open (their owner closes them), but still migrates and starts/stops the engine."""
    settings = settings or AppSettings()
    api = api or ApiSettings()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        db = engine.db if engine is not None else database or Database.connect(settings.neo4j)
        memory = engine or build_engine(db, settings)
        services = Services.build(memory, api)
        app.state.services = services
        try:
            await services.ensure_ready()
        except StoreUnavailable as error:
            log.warning("starting without Neo4j (not ready until it answers): %s", error)
        memory.start()
        try:
            async with mcp.run():
                yield
        finally:
            await memory.stop()
            if engine is None and database is None:
                await db.close()

    graphql = MemoryGraphQL(build_schema(api), api)
    mcp = build_mcp(api)
    return Starlette(
        routes=[
            Route("/graphql", graphql),
            WebSocketRoute("/graphql", graphql),
            Route("/mcp", mcp),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Route(ASSET_PATH, asset),
            *explorer_routes(),
        ],
        lifespan=lifespan,
    )


async def healthz(request: Request) -> JSONResponse:
    """The process is up (says nothing about Neo4j)."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Neo4j answers and the schema is migrated: the process can serve requests. When ready, the
    body also carries the consolidation backlog (pending interactions, the oldest's age)."""
    services = services_of(request.scope)
    reason = await services.check_ready()
    if reason is not None:
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
    return JSONResponse({"status": "ready", **await read_backlog(services)})
