"""Re-embedding (`recmem db reembed`) against the real server: every layer rebuilt for a new
template or dimension, resumable after an interruption, and the guard moved only at the end.

The session's tests share one database, and the guard (the meta node) and the vector indexes are
database-wide. So each test here runs the re-embedding scoped to its own fresh tenant (the
`tenant` argument the CLI never passes), and the `restored` fixture puts the meta node and the
indexes back as the session built them, whatever the test did.
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders import Vectors
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.providers.reembedding import Reembedder
from consolidation.types import Unit
from graph.database import Database
from graph.errors import SchemaMismatch
from graph.models import Owner
from graph.schema import EmbeddingSpec, check_embedder, read_spec, record_spec, resize_vector_indexes
from tests.support.engines import DIMENSION, TEST_TEMPLATE, engine_settings

TEMPLATE_B = EmbeddingTemplate("{speaker} said on {date}: {text}")
T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
TURNS = [
    "I love sushi dinner with salmon rolls",
    "Another sushi dinner with salmon rolls, I love sushi",
    "I love sushi dinner with tuna and salmon rolls",
    "Sushi dinner with salmon rolls again tonight",
    "I can't stand sushi dinner with salmon rolls anymore",
    "The weather in Oslo is cold today",
]


@pytest.fixture
async def restored(db: Database) -> AsyncIterator[EmbeddingSpec]:
    """The session's guard and vector indexes, put back after the test."""
    session_spec = await read_spec(db)
    assert session_spec is not None and session_spec.template == TEST_TEMPLATE
    try:
        yield session_spec
    finally:
        await resize_vector_indexes(db, session_spec.dimension)
        await record_spec(db, session_spec)


async def remember_turns(db: Database, owner: Owner) -> None:
    """Interactions, two versions of an episode and a superseded fact, embedded with the default
    template (the one the session's database records)."""
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(merge_threshold=0.3)
    )
    for day, text in enumerate(TURNS):
        await engine.remember(owner, Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day)))


async def nodes(db: Database, owner: Owner) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(
        """MATCH (n {tenant: $t}) WHERE n:Interaction OR n:Episode OR n:Fact
           RETURN labels(n)[0] AS label, n.id AS id, n.text AS text, n.summary AS summary,
                  n.speaker AS speaker, n.occurred_at AS occurred_at, n.embedding AS embedding,
                  n.embedding_key AS key, n.current AS current, n.status AS status""",
        t=owner.tenant,
        database_=db.name,
    )
    return [record.data() for record in result.records]


async def expected_vector(
    node: dict[str, Any], embedder: HashingEmbedder, template: EmbeddingTemplate
) -> Vectors:
    if node["label"] == "Interaction":
        text = template.render(node["text"], node["speaker"], node["occurred_at"].to_native())
    else:
        text = node["summary"] if node["label"] == "Episode" else node["text"]
    vector: Vectors = (await embedder.embed([text]))[0]
    return vector


async def assert_embedded_for(
    db: Database, owner: Owner, embedder: HashingEmbedder, template: EmbeddingTemplate
) -> list[dict[str, Any]]:
    key = EmbeddingSpec(embedder.name, embedder.dimension, template.pattern).key
    found = await nodes(db, owner)
    assert all(node["key"] == key for node in found)
    for node in found:
        stored = np.asarray(node["embedding"], dtype=np.float32)
        assert stored.shape == (embedder.dimension,)
        assert np.allclose(stored, await expected_vector(node, embedder, template), atol=1e-6), node["id"]
    return found


class FailingEmbedder:
    """The hashing embedder until `calls` batches are done, then down (as an endpoint can be)."""

    def __init__(self, inner: HashingEmbedder, calls: int) -> None:
        self.inner = inner
        self.calls = calls
        self.texts = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed(self, texts: list[str]) -> Vectors:
        if self.calls == 0:
            raise RuntimeError("embedder down")
        self.calls -= 1
        self.texts += len(texts)
        return await self.inner.embed(texts)


async def test_reembed_rebuilds_every_layer_and_moves_the_guard(
    db: Database, owner: Owner, embedder: HashingEmbedder, restored: EmbeddingSpec
) -> None:
    await remember_turns(db, owner)
    before = await nodes(db, owner)
    labels = [node["label"] for node in before]
    assert labels.count("Interaction") == len(TURNS)
    assert {node["current"] for node in before if node["label"] == "Episode"} == {True, False}
    assert {node["status"] for node in before if node["label"] == "Fact"} >= {"active", "superseded"}
    with pytest.raises(SchemaMismatch) as refused:
        await check_embedder(db, embedder.name, DIMENSION, TEMPLATE_B.pattern)
    message = str(refused.value)
    assert repr(TEST_TEMPLATE) in message and repr(TEMPLATE_B.pattern) in message
    assert "recmem db reembed" in message

    counting = FailingEmbedder(embedder, calls=1_000)
    report = await Reembedder(db, counting, TEMPLATE_B, tenant=owner.tenant).run()

    after = await assert_embedded_for(db, owner, embedder, TEMPLATE_B)
    assert len(after) == len(before) == counting.texts == sum(report.reembedded.values())
    assert report.reembedded["Interaction"] == len(TURNS) and report.passes == 1
    assert report.previous == restored and report.recreated_indexes == []
    await check_embedder(db, embedder.name, DIMENSION, TEMPLATE_B.pattern)
    with pytest.raises(SchemaMismatch):
        await check_embedder(db, embedder.name, DIMENSION, TEST_TEMPLATE)

    again = FailingEmbedder(embedder, calls=1_000)
    rerun = await Reembedder(db, again, TEMPLATE_B, tenant=owner.tenant).run()
    assert again.texts == 0 and rerun.passes == 0 and sum(rerun.reembedded.values()) == 0


async def test_an_interrupted_run_resumes_where_it_stopped(
    db: Database, owner: Owner, embedder: HashingEmbedder, restored: EmbeddingSpec
) -> None:
    await remember_turns(db, owner)
    total = len(await nodes(db, owner))
    key = EmbeddingSpec(embedder.name, DIMENSION, TEMPLATE_B.pattern).key

    with pytest.raises(RuntimeError, match="embedder down"):
        await Reembedder(
            db, FailingEmbedder(embedder, calls=1), TEMPLATE_B, batch_size=2, tenant=owner.tenant
        ).run()
    assert [node["key"] for node in await nodes(db, owner)].count(key) == 2  # the first page only
    await check_embedder(db, embedder.name, DIMENSION, TEST_TEMPLATE)  # the guard has not moved

    resumed = FailingEmbedder(embedder, calls=1_000)
    report = await Reembedder(db, resumed, TEMPLATE_B, batch_size=2, tenant=owner.tenant).run()
    assert resumed.texts == sum(report.reembedded.values()) == total - 2
    assert len(await assert_embedded_for(db, owner, embedder, TEMPLATE_B)) == total
    await check_embedder(db, embedder.name, DIMENSION, TEMPLATE_B.pattern)


async def test_a_new_dimension_recreates_the_vector_indexes(
    db: Database, owner: Owner, restored: EmbeddingSpec
) -> None:
    await remember_turns(db, owner)
    smaller = HashingEmbedder(128)
    template = EmbeddingTemplate(TEST_TEMPLATE)
    report = await Reembedder(db, smaller, template, tenant=owner.tenant).run()

    assert sorted(report.recreated_indexes) == [
        "episode_embedding",
        "fact_embedding",
        "interaction_embedding",
    ]
    found = await assert_embedded_for(db, owner, smaller, template)
    await check_embedder(db, smaller.name, 128, TEST_TEMPLATE)
    # Dense recall works again on the new indexes, at the new size.
    engine = MemoryEngine(db, smaller, OfflineConsolidator(), engine_settings())
    recalled = await engine.recall(owner, "sushi dinner with salmon rolls", lexical=False)
    assert recalled.all_hits() and len(found) > len(TURNS)
    # The fixture resizes back: that path is the same resize, from 128 to the session's size.


def test_reembed_refuses_an_unreachable_neo4j_in_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("RECMEM_")}
    env |= {"RECMEM_NEO4J_URI": f"bolt://127.0.0.1:{port}", "RECMEM_NEO4J_PASSWORD": "unused"}
    result = CliRunner().invoke(app, ["db", "reembed", "--batch-size", "8"], env=env)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Neo4j is not reachable" in lines[0]


async def test_a_turn_is_reembedded_on_the_day_it_was_said(
    db: Database, owner: Owner, embedder: HashingEmbedder, restored: EmbeddingSpec
) -> None:
    # 00:30 on 5 December in Karachi is 19:30 UTC on the 4th: the write path dates it the 5th.
    said = datetime(2026, 12, 5, 0, 30, tzinfo=timezone(timedelta(hours=5)))
    engine = MemoryEngine(db, embedder, OfflineConsolidator(), engine_settings())
    await engine.remember(owner, Unit(text="I saw the dentist today.", speaker="Alice", occurred_at=said))
    await Reembedder(db, embedder, TEMPLATE_B, tenant=owner.tenant).run()
    [node] = await nodes(db, owner)
    expected = (await embedder.embed(["Alice said on 5 December 2026: I saw the dentist today."]))[0]
    assert np.allclose(np.asarray(node["embedding"], dtype=np.float32), expected, atol=1e-6)
