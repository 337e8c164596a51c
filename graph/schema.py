"""Idempotent schema migration, and the guard that keeps one database to one embedder."""

from __future__ import annotations

from dataclasses import dataclass

from graph.cypher import statements_in
from graph.database import Database
from graph.errors import SchemaMismatch

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Migration:
    created: list[str]
    embedder: str
    dimension: int


async def check_embedder(db: Database, embedder: str, dimension: int) -> None:
    """Refuse a database built for another embedder; vectors of two models do not compare."""
    rows = await db.read("queries/schema/read_meta")
    if not rows:
        return
    stored = rows[0]
    if stored["embedder"] != embedder or stored["dimension"] != dimension:
        raise SchemaMismatch(
            f"this database was built with embedder {stored['embedder']!r} "
            f"(dimension {stored['dimension']}), but the service is configured with {embedder!r} "
            f"(dimension {dimension}); use the same embedder or a fresh database"
        )


async def migrate(db: Database, embedder: str, dimension: int) -> Migration:
    """Create every constraint and index in ``cypher/schema`` that is missing; change nothing else."""
    await check_embedder(db, embedder, dimension)
    before = {row["name"] for row in await db.read("queries/schema/list_indexes")}
    # Schema commands cannot share a transaction with data writes, so each runs on its own.
    async with db.driver.session(database=db.name) as session:
        for _, text in statements_in("schema"):
            await (await session.run(text, {"dimension": dimension})).consume()
    await db.read("queries/schema/await_indexes", timeout_s=300)
    await db.write(
        "queries/schema/write_meta",
        embedder=embedder,
        dimension=dimension,
        schema_version=SCHEMA_VERSION,
    )
    after = {row["name"] for row in await db.read("queries/schema/list_indexes")}
    return Migration(created=sorted(after - before), embedder=embedder, dimension=dimension)
