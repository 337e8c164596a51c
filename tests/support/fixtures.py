"""The tests' fixtures: one real Neo4j per test session, isolated tenants per test, the local LLM
server, and the API app over the session's database (tests/conftest.py and bench/tests/conftest.py
import them)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from api.app import create_app
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.local_server import LocalNeo4j
from graph.models import Owner
from graph.schema import migrate
from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from local_llm_server import LocalLLMServer
from tests.support.api import Caller, make_api_settings, make_engine, new_caller
from tests.support.engines import DIMENSION, TEST_TEMPLATE


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jSettings]:
    """RECMEM_TEST_NEO4J_URI when set (CI starts the server); else a throwaway local server."""
    uri = os.environ.get("RECMEM_TEST_NEO4J_URI")
    if uri:
        password = os.environ.get("RECMEM_TEST_NEO4J_PASSWORD")
        yield Neo4jSettings(uri=uri, password=password, home=Path("/nonexistent"))
        return
    home = tmp_path_factory.mktemp("neo4j-home")
    port = free_port()
    settings = Neo4jSettings(
        uri=f"bolt://127.0.0.1:{port}", password=None, home=home, port=port, heap="1g", pagecache="256m"
    )
    server = LocalNeo4j(settings)
    server.start()
    try:
        yield settings
    finally:
        server.stop()


@pytest.fixture(scope="session")
async def db(neo4j_settings: Neo4jSettings) -> AsyncIterator[Database]:
    database = Database.connect(neo4j_settings)
    # The template the test engines embed with (engine_settings, tests/support/engines.py).
    await migrate(database, HashingEmbedder(DIMENSION).name, DIMENSION, TEST_TEMPLATE)
    yield database
    await database.close()


@pytest.fixture
def owner() -> Owner:
    """A fresh tenant per test keeps tests independent without deleting anything."""
    return Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id="alice")


@pytest.fixture(scope="session")
def embedder() -> HashingEmbedder:
    return HashingEmbedder(DIMENSION)


@pytest.fixture(scope="session")
def llm_server() -> Iterator[LocalLLMServer]:
    with LocalLLMServer() as server:
        yield server


@pytest.fixture
def llm(llm_server: LocalLLMServer) -> Iterator[LocalLLMServer]:
    """The shared local LLM server, cleared of scripts and logs for this test."""
    llm_server.reset()
    yield llm_server
    llm_server.reset()


@pytest.fixture(scope="session")
async def api_app(db: Database) -> AsyncIterator[Starlette]:
    app = create_app(AppSettings(), make_api_settings(), engine=make_engine(db))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(api_app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=api_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http


@pytest.fixture
async def caller(db: Database, client: httpx.AsyncClient) -> Caller:
    return await new_caller(db, client)
