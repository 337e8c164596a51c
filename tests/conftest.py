"""Shared fixtures: one real Neo4j per test session, isolated tenants per test."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from consolidation.embedders.hashing import HashingEmbedder
from graph.database import Database
from graph.local_server import LocalNeo4j
from graph.models import Owner
from graph.schema import migrate
from graph.settings import Neo4jSettings

DIMENSION = 384


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jSettings]:
    """RECMEM_TEST_NEO4J_URI when set (CI starts the server); else a throwaway local server."""
    uri = os.environ.get("RECMEM_TEST_NEO4J_URI")
    if uri:
        password = os.environ.get("RECMEM_TEST_NEO4J_PASSWORD")
        yield Neo4jSettings(uri=uri, password=password, home=Path("/nonexistent"))
        return
    home = tmp_path_factory.mktemp("neo4j-home")
    port = _free_port()
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
    await migrate(database, HashingEmbedder(DIMENSION).name, DIMENSION)
    yield database
    await database.close()


@pytest.fixture
def owner() -> Owner:
    """A fresh tenant per test keeps tests independent without deleting anything."""
    return Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id="alice")


@pytest.fixture(scope="session")
def embedder() -> HashingEmbedder:
    return HashingEmbedder(DIMENSION)
