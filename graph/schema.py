"""Idempotent schema migration, and the guard that keeps one database to one kind of vector.

A vector is only comparable with vectors made by the same embedder, at the same dimension, from
texts rendered by the same template. The database records all three on its first migration and
refuses a service configured with anything else; `recmem db reembed` moves it to new ones.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from graph.backfill import Backfill, backfill
from graph.database import Database
from graph.errors import SchemaMismatch

SCHEMA_VERSION = 2
# What a database migrated before templates were recorded embedded: the bare text.
LEGACY_TEMPLATE = "{text}"
# The vector indexes of cypher/schema/011..013, the only indexes whose shape depends on the embedder.
VECTOR_INDEXES = ("interaction_embedding", "episode_embedding", "fact_embedding")
INDEX_TIMEOUT_S = 300


@dataclass(frozen=True)
class EmbeddingSpec:
    """What stored vectors are made with: the embedder's name, its dimension, the text template."""

    embedder: str
    dimension: int
    template: str

    @property
    def key(self) -> str:
        """A short tag that marks a node re-embedded for this spec, so a rerun can skip it."""
        raw = f"{self.embedder}\x00{self.dimension}\x00{self.template}".encode()
        return hashlib.sha256(raw).hexdigest()[:16]

    def describe(self) -> str:
        return f"embedder {self.embedder!r} (dimension {self.dimension}, template {self.template!r})"


@dataclass(frozen=True)
class Migration:
    created: list[str]
    embedder: str
    dimension: int
    template: str
    backfilled: Backfill = field(default_factory=Backfill)


async def read_spec(db: Database) -> EmbeddingSpec | None:
    """What the database records, or None before its first migration."""
    rows = await db.read("queries/schema/read_meta")
    if not rows:
        return None
    row = rows[0]
    return EmbeddingSpec(row["embedder"], int(row["dimension"]), row["template"] or LEGACY_TEMPLATE)


async def check_embedder(db: Database, embedder: str, dimension: int, template: str) -> None:
    """Refuse a database whose vectors were made another way: they would not compare."""
    stored = await read_spec(db)
    configured = EmbeddingSpec(embedder, dimension, template)
    if stored is not None and stored != configured:
        raise SchemaMismatch(
            f"this database was built with {stored.describe()}, but the service is configured with "
            f"{configured.describe()}; run `recmem db reembed` to rebuild its vectors, "
            "or use a fresh database"
        )


async def migrate(
    db: Database, embedder: str, dimension: int, template: str, *, recheck: bool = False
) -> Migration:
    """Create every constraint and index in ``cypher/schema`` that is missing, and bring data of
    older versions up to date (graph/backfill.py; `recheck`: even where a migration of this
    version found none); change nothing else."""
    await check_embedder(db, embedder, dimension, template)
    before = await _index_names(db)
    await _create_missing(db, dimension)
    await db.write(
        "queries/schema/write_meta",
        embedder=embedder,
        dimension=dimension,
        template=template,
        schema_version=SCHEMA_VERSION,
    )
    created = sorted(await _index_names(db) - before)
    backfilled = await backfill(db, recheck=recheck)
    return Migration(created, embedder, dimension, template, backfilled)


async def resize_vector_indexes(db: Database, dimension: int) -> list[str]:
    """Drop the vector indexes built for another dimension and create them (with anything else
    missing) for this one; the names recreated. A no-op once they have the dimension, so an
    interrupted resize completes on the next call."""
    rows = await db.read("queries/schema/vector_indexes")
    stale = [r["name"] for r in rows if r["name"] in VECTOR_INDEXES and r["dimension"] != dimension]
    for name in stale:
        await db.write("queries/schema/drop_index", index=name)
    await _create_missing(db, dimension)
    return stale


async def record_spec(db: Database, spec: EmbeddingSpec) -> None:
    """Record that every vector is now made as `spec` says (the end of a re-embedding)."""
    await db.write(
        "queries/schema/record_meta",
        embedder=spec.embedder,
        dimension=spec.dimension,
        template=spec.template,
        schema_version=SCHEMA_VERSION,
    )


async def _create_missing(db: Database, dimension: int) -> None:
    # Schema commands cannot share a transaction with data writes, so each runs on its own.
    await db.run_schema("schema", dimension=dimension)
    await db.read("queries/schema/await_indexes", timeout_s=INDEX_TIMEOUT_S)


async def _index_names(db: Database) -> set[str]:
    return {row["name"] for row in await db.read("queries/schema/list_indexes")}
