"""Neo4j unreachable: the process stays up, /readyz fails, GraphQL answers UNAVAILABLE (never 500)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import httpx
import pytest
from neo4j import AsyncGraphDatabase
from starlette.applications import Starlette

from api.app import create_app
from consolidation.wiring import AppSettings
from graph.database import Database
from tests.support.api import make_api_settings, make_engine


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def down_app() -> AsyncIterator[Starlette]:
    # No retries: the driver would otherwise back off for its whole retry window.
    driver = AsyncGraphDatabase.driver(
        f"bolt://127.0.0.1:{_closed_port()}",
        auth=("neo4j", "x"),
        connection_timeout=1.0,
        max_transaction_retry_time=0,
    )
    app = create_app(AppSettings(), make_api_settings(), engine=make_engine(Database(driver)))
    async with app.router.lifespan_context(app):
        yield app
    await driver.close()


async def test_neo4j_down_means_not_ready_and_unavailable(down_app: Starlette) -> None:
    transport = httpx.ASGITransport(app=down_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        assert (await http.get("/healthz")).status_code == 200
        ready = await http.get("/readyz")
        assert ready.status_code == 503 and ready.json()["status"] == "unavailable"
        for accept in ("application/json", "application/graphql-response+json"):
            response = await http.post(
                "/graphql",
                json={"query": 'mutation { remember(input: {userId: "a", text: "x"}) { created } }'},
                headers={"authorization": "Bearer rmk_anything", "accept": accept},
            )
            assert response.status_code == 503
            assert response.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
