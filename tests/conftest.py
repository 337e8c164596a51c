"""Shared fixtures: one real Neo4j per test session, isolated tenants per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from consolidation.consolidating.llm_consolidator import LLMConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.llm import build_language_model
from consolidation.settings import EngineSettings, LLMSettings
from graph.database import Database
from graph.local_server import LocalNeo4j
from graph.models import Owner
from graph.schema import migrate
from graph.settings import Neo4jSettings
from harness.serve_process import free_port
from local_llm_server import LocalLLMServer

DIMENSION = 384
# What the tests' engines embed, and what the session database records: the gate tests' texts and
# thresholds are chosen on bare-text similarities, which a shared "On <date>, <speaker> said:"
# would lift. Services and benchmarks that tests start get it too (RECMEM_EMBEDDING_TEMPLATE).
# The default template itself is tested in test_recall_context.py.
TEST_TEMPLATE = "{text}"


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
    # The template the test engines embed with (engine_settings below).
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


def engine_settings(**overrides: object) -> EngineSettings:
    # Inline, so that a test sees each remember's consolidation in its result.
    base: dict[str, object] = {
        "theta_sim": 0.3,
        "theta_count": 3,
        "merge_threshold": 0.75,
        # A merge per turn, which most tests assert; tests/test_gated_merge.py covers the batches.
        "merge_batch": 1,
        "consolidation_mode": "inline",
        "embedding_template": TEST_TEMPLATE,
    }
    return EngineSettings(**(base | overrides))  # type: ignore[arg-type]


def llm_engine(db: Database, server: LocalLLMServer, **overrides: object) -> MemoryEngine:
    """An engine whose consolidator talks real HTTP to the local server through the openai client."""
    llm_settings = LLMSettings(
        base_url=server.base_url, api_key="test-key", model="local-test-model", timeout_s=2.0, max_retries=1
    )
    model = build_language_model(llm_settings)
    assert model is not None
    return MemoryEngine(db, HashingEmbedder(DIMENSION), LLMConsolidator(model), engine_settings(**overrides))


async def lease_of(db: Database, owner: Owner) -> object:
    """Who holds the user's consolidation lease (None: nobody)."""
    rows = await db.driver.execute_query(
        "MATCH (u:User {tenant: $t, id: $u}) RETURN u.lease_holder AS holder",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return rows.records[0]["holder"]
