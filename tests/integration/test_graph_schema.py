"""Schema migration against the real server: idempotent, and guarded by the embedder identity
(name, dimension and embedding template)."""

from __future__ import annotations

import asyncio
import re

import pytest

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.cypher import statements_in
from graph.database import Database
from graph.errors import SchemaMismatch
from graph.local_server import new_password
from graph.schema import INDEX_TIMEOUT_S, LEGACY_TEMPLATE, check_embedder, migrate, read_spec, record_spec
from graph.settings import Neo4jSettings
from tests.support.engines import DIMENSION, TEST_TEMPLATE

# The embedder the session's database was migrated with (tests/support/fixtures.py).
NAME = HashingEmbedder(DIMENSION).name


async def _index_names(db: Database) -> set[str]:
    return {row["name"] for row in await db.read("queries/schema/list_indexes")}


async def test_migration_twice_is_a_no_op(db: Database) -> None:
    before = await _index_names(db)
    second = await migrate(db, NAME, DIMENSION, TEST_TEMPLATE)
    assert second.created == []
    # No user for the statistics step: the tests before this one make users as the write path does
    # (tests/support/graph_reads.py), or bring them up to date themselves.
    assert second.backfilled.users == 0
    assert await _index_names(db) == before
    expected = {
        "interaction_embedding",
        "episode_embedding",
        "fact_embedding",
        "interaction_text",
        "episode_summary",
        "fact_text",
        "interaction_id_unique",
        "user_key_unique",
    }
    assert expected <= before


async def test_processes_creating_the_schema_at_once_all_succeed(
    db: Database, neo4j_settings: Neo4jSettings
) -> None:
    # Range indexes only: without them the other tests' statements are slower, never wrong.
    ranges = [
        found.group(1)
        for _, text in statements_in("schema")
        if (found := re.match(r"CREATE INDEX (\w+) IF NOT EXISTS FOR \(", text))
    ]
    assert len(ranges) >= 5
    others = [Database.connect(neo4j_settings) for _ in range(4)]
    try:
        for name in ranges:
            await db.write("queries/schema/drop_index", index=name)
        assert not set(ranges) & await _index_names(db)
        # Four processes at once, as replicas starting on a fresh database: Neo4j answers the
        # ones that lose a race with "equivalent rule exists" or a deadlock.
        await asyncio.gather(*(other.run_schema("schema", dimension=DIMENSION) for other in others))
        assert set(ranges) <= await _index_names(db)
    finally:
        await db.run_schema("schema", dimension=DIMENSION)
        await db.read("queries/schema/await_indexes", timeout_s=INDEX_TIMEOUT_S)
        for other in others:
            await other.close()


async def test_vector_index_uses_the_configured_dimension(db: Database) -> None:
    rows = await db.driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options RETURN name, options", database_=db.name
    )
    dims = {r["name"]: r["options"]["indexConfig"]["vector.dimensions"] for r in rows.records}
    assert dims["interaction_embedding"] == DIMENSION
    assert dims["fact_embedding"] == DIMENSION


@pytest.mark.parametrize(("embedder", "dimension"), [(NAME, 256), ("all-MiniLM-L6-v2", 384)])
async def test_other_embedder_is_refused_and_changes_nothing(
    db: Database, embedder: str, dimension: int
) -> None:
    before = await _index_names(db)
    with pytest.raises(SchemaMismatch) as caught:
        await migrate(db, embedder, dimension, TEST_TEMPLATE)
    message = str(caught.value)
    assert NAME in message and embedder in message and str(dimension) in message
    assert await _index_names(db) == before
    meta = await db.read("queries/schema/read_meta")
    assert meta[0]["embedder"] == NAME and meta[0]["dimension"] == DIMENSION
    assert meta[0]["template"] == TEST_TEMPLATE


async def test_other_template_is_refused_with_a_way_out(db: Database) -> None:
    with pytest.raises(SchemaMismatch) as caught:
        await migrate(db, NAME, DIMENSION, "{speaker}: {text}")
    message = str(caught.value)
    assert repr(TEST_TEMPLATE) in message and repr("{speaker}: {text}") in message
    assert "recmem db reembed" in message and "\n" not in message


async def test_a_database_from_before_templates_counts_as_bare_text(db: Database) -> None:
    stored = await read_spec(db)
    assert stored is not None
    # The meta node as a migration before templates left it; the guard is database-wide, so the
    # shared meta is put back whatever happens.
    await db.driver.execute_query("MATCH (m:SchemaMeta) REMOVE m.template", database_=db.name)
    try:
        legacy = await read_spec(db)
        assert legacy is not None and legacy.template == LEGACY_TEMPLATE == "{text}"
        with pytest.raises(SchemaMismatch, match="recmem db reembed"):
            await check_embedder(db, NAME, DIMENSION, "[{date}] {text}")
        await migrate(db, NAME, DIMENSION, LEGACY_TEMPLATE)
        meta = await db.read("queries/schema/read_meta")
        assert meta[0]["template"] == LEGACY_TEMPLATE  # now recorded explicitly
    finally:
        await record_spec(db, stored)


def test_generated_neo4j_passwords_never_read_as_an_option() -> None:
    # neo4j-admin took a password starting with "-" for an unknown option and refused to start
    # the local server (one first start in 64 failed).
    passwords = {new_password() for _ in range(2_000)}
    assert len(passwords) == 2_000
    assert all(p[0] != "-" and len(p) >= 32 and p.isalnum() for p in passwords)
