"""Shared pieces of the API tests: the app on the session's Neo4j, keys, and a GraphQL client.

The app runs in the test's event loop through httpx's ASGI transport (its lifespan driven by hand),
so it shares the session's driver. The fixtures over it (api_app, client, caller) are in
tests/support/fixtures.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette

from api.app import create_app
from api.settings import ApiSettings
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.keys import AccessKeys
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
# A recurring topic (three turns open an episode), a merge that reverses a preference, and noise.
STORY = [
    "I love sushi with salmon and wasabi.",
    "I love sushi with tuna.",
    "I love sushi rolls with salmon and tuna.",
    "I can't stand sushi with salmon anymore.",
    "My dog is called Rex.",
]


def make_engine(db: Database, **overrides: Any) -> MemoryEngine:
    # A low merge threshold lets the hashing embedder's modest cosines reach merge-first.
    settings = engine_settings(**({"merge_threshold": 0.2, "lease_seconds": 10.0} | overrides))
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)


def make_api_settings(**overrides: Any) -> ApiSettings:
    # No key cache: the tests count every round trip and expect a revoked key refused at once.
    base: dict[str, Any] = {"rate_limit_per_s": 0.0, "request_timeout_s": 60.0, "auth_cache_s": 0.0}
    return ApiSettings(**(base | overrides))


@asynccontextmanager
async def app_client(
    db: Database, engine: MemoryEngine | None = None, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app of its own (over `engine`, or a fresh one), with these ApiSettings
    overrides, running for the block."""
    app = create_app(AppSettings(), make_api_settings(**overrides), engine=engine or make_engine(db))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://t") as http,
    ):
        yield http


@dataclass(frozen=True)
class Caller:
    """One tenant's key, and a GraphQL helper that sends it."""

    http: httpx.AsyncClient
    tenant: str
    key: str

    async def post(
        self, query: str, variables: dict[str, Any] | None = None, **headers: str
    ) -> httpx.Response:
        return await self.http.post(
            "/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"authorization": f"Bearer {self.key}", **headers},
        )

    async def gql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The data of a successful operation; fails the test on any error."""
        response = await self.post(query, variables)
        body = response.json()
        assert response.status_code == 200, body
        assert "errors" not in body, body["errors"]
        return dict(body["data"])

    async def errors(self, query: str, variables: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        response = await self.post(query, variables)
        assert response.status_code < 500, response.text
        return list(response.json()["errors"])


async def counted_gql(
    db: Database, caller: Caller, query: str, variables: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """The statements an operation sent to Neo4j, and its data."""
    before = db.round_trips
    data = await caller.gql(query, variables)
    return db.round_trips - before, data


async def new_caller(db: Database, http: httpx.AsyncClient, tenant: str | None = None) -> Caller:
    tenant = tenant or f"t-{uuid.uuid4().hex[:12]}"
    issued = await AccessKeys(db).create(tenant, "test")
    return Caller(http, tenant, issued.secret)


REMEMBER_BATCH = """
mutation($user: ID!, $units: [UnitInput!]!) {
  rememberBatch(userId: $user, units: $units) {
    interactionId created seq
    consolidation { action episodeId previousEpisodeId factIds supersededFactIds consolidatedIds }
  }
}"""


def unit(text: str, day: int, **extra: Any) -> dict[str, Any]:
    return {"text": text, "speaker": "alice", "occurredAt": (T0 + timedelta(days=day)).isoformat(), **extra}


async def tell_story(caller: Caller, user: str = "alice") -> list[dict[str, Any]]:
    """The STORY, one remember per turn (each consolidates inline), as the payloads came back."""
    payloads = []
    for day, text in enumerate(STORY):
        data = await caller.gql(
            REMEMBER_BATCH, {"user": user, "units": [unit(text, day, sourceRef=f"d{day}")]}
        )
        payloads.append(data["rememberBatch"][0])
    return payloads


async def count_nodes(db: Database, tenant: str, user_id: str | None = None) -> dict[str, int]:
    """Nodes per label of a tenant (and user), read straight from the graph."""
    result = await db.driver.execute_query(
        "MATCH (n) WHERE n.tenant = $tenant AND ($user IS NULL OR n.user_id = $user OR n.id = $user) "
        "RETURN labels(n)[0] AS label, count(*) AS n",
        tenant=tenant,
        user=user_id,
        database_=db.name,
    )
    return {r["label"]: r["n"] for r in result.records}


async def all_facts(db: Database, owner: Owner) -> list[dict[str, Any]]:
    """Every fact of a user, whatever its status (id, text, status), read straight from the graph."""
    rows = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t, user_id: $u}) RETURN f.id AS id, f.text AS text, f.status AS status",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return [r.data() for r in rows.records]


@asynccontextmanager
async def serve_app(app: Starlette) -> AsyncIterator[str]:
    """`app` under a real uvicorn in this event loop, on a free port; yields `http://host:port`."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", timeout_graceful_shutdown=10
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(60):
            while not server.started:
                assert not task.done(), "uvicorn did not start"
                await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
