"""The semantic layer: atomic facts with validity intervals and provenance."""

from __future__ import annotations

from graph.database import Database
from graph.errors import NotFound
from graph.layer_store import LayerStore
from graph.models import Fact, Owner, Provenance
from graph.records import fact_from, provenance_from


class FactStore(LayerStore[Fact]):
    """Searches active facts (or the facts valid at `as_of`); reads a fact's provenance."""

    def __init__(self, db: Database, dimension: int) -> None:
        super().__init__(db, dimension, "facts", "fact", fact_from, Fact.at)

    async def provenance(self, owner: Owner, fact_id: str) -> Provenance:
        rows = await self.db.read("queries/facts/provenance", **owner.params(), id=fact_id)
        if not rows:
            raise NotFound(f"fact {fact_id!r} not found")
        return provenance_from(rows[0])
