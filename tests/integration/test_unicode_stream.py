"""Turns in any script ingest, consolidate and recall with every embedder a fresh install has.

The hashing embedder used to turn a text without an ASCII letter into a zero vector, which Neo4j
then refused in every vector search of that user. Each embedder here must give every turn a
usable vector, and the user's consolidation and recall must keep working.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from pydantic import SecretStr

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders import Embedder, build_embedder
from consolidation.settings import EmbedderSettings
from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2024, 6, 1, 9, 0, tzinfo=UTC)
# Recurring on purpose (the same few turns again), so that the gate opens and consolidation runs.
TURNS = [
    "🙂🙂",
    "寿司が大好きです",
    "Я люблю суши",
    "?",
    "寿司が大好きです！",
    "Я очень люблю суши",
    "🍣🍣🍣",
] * 2


@pytest.fixture(params=["hashing", "minilm", "minilm-int8", "openai"])
def any_embedder(request: pytest.FixtureRequest, llm_server: LocalLLMServer) -> Iterator[Embedder]:
    kind = request.param
    if kind == "openai":
        # The project's local OpenAI-compatible server, over real HTTP.
        settings = EmbedderSettings(
            kind="openai", base_url=llm_server.base_url, api_key=SecretStr("test"), dimension=DIMENSION
        )
    else:
        settings = EmbedderSettings(kind=kind, dimension=DIMENSION)
    yield build_embedder(settings)


async def test_every_script_gets_a_unit_vector(any_embedder: Embedder) -> None:
    vectors = await any_embedder.embed(TURNS)
    assert vectors.shape == (len(TURNS), DIMENSION)
    assert np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)


async def test_a_stream_in_any_script_ingests_consolidates_and_recalls(
    db: Database, owner: Owner, any_embedder: Embedder
) -> None:
    # A low theta_sim: the point is that consolidation runs over these vectors, not its threshold.
    engine = MemoryEngine(db, any_embedder, OfflineConsolidator(), engine_settings(theta_sim=-1.0))
    for n, text in enumerate(TURNS):
        await engine.remember(owner, Unit(text=text, speaker="Ada", occurred_at=T0 + timedelta(minutes=n)))
    actions = {o.action for o in await engine.consolidate(owner)}
    assert not actions & {"deferred"}
    recall = await engine.recall(owner, "寿司", include_consolidated=True, tokens=200)
    assert recall.subconscious or recall.episodic or recall.semantic
    assert recall.context is not None and recall.context.items
    for query in ("🙂", "суши", "?"):
        assert (await engine.recall(owner, query, include_consolidated=True)).subconscious
