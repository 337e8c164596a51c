"""Schema migration against the real server: idempotent, and guarded by the embedder identity."""

from __future__ import annotations

import pytest

from graph.database import Database
from graph.errors import SchemaMismatch
from graph.schema import migrate
from tests.conftest import DIMENSION


async def _index_names(db: Database) -> set[str]:
    return {row["name"] for row in await db.read("queries/schema/list_indexes")}


async def test_migration_twice_is_a_no_op(db: Database) -> None:
    before = await _index_names(db)
    second = await migrate(db, "hashing-v1", DIMENSION)
    assert second.created == []
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


async def test_vector_index_uses_the_configured_dimension(db: Database) -> None:
    rows = await db.driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options RETURN name, options", database_=db.name
    )
    dims = {r["name"]: r["options"]["indexConfig"]["vector.dimensions"] for r in rows.records}
    assert dims["interaction_embedding"] == DIMENSION
    assert dims["fact_embedding"] == DIMENSION


@pytest.mark.parametrize(("embedder", "dimension"), [("hashing-v1", 256), ("all-MiniLM-L6-v2", 384)])
async def test_other_embedder_is_refused_and_changes_nothing(
    db: Database, embedder: str, dimension: int
) -> None:
    before = await _index_names(db)
    with pytest.raises(SchemaMismatch) as caught:
        await migrate(db, embedder, dimension)
    message = str(caught.value)
    assert "hashing-v1" in message and embedder in message and str(dimension) in message
    assert await _index_names(db) == before
    meta = await db.read("queries/schema/read_meta")
    assert meta[0]["embedder"] == "hashing-v1" and meta[0]["dimension"] == DIMENSION
