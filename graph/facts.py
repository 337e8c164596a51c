"""The semantic layer: atomic facts with validity intervals and provenance."""

from __future__ import annotations

from datetime import datetime

from graph.database import Database
from graph.errors import NotFound
from graph.layer_store import LayerStore
from graph.models import Fact, Hit, Owner, Provenance
from graph.records import fact_from, provenance_from
from graph.scopes import NO_FILTER, ScopeFilter


class FactStore(LayerStore[Fact]):
    """Searches active facts (or the facts valid at `as_of`); reads a fact's provenance."""

    def __init__(self, db: Database, dimension: int) -> None:
        super().__init__(db, dimension, "facts", "fact", fact_from)

    async def search(
        self,
        owner: Owner,
        vector: list[float],
        k: int,
        *,
        as_of: datetime | None = None,
        scope: ScopeFilter = NO_FILTER,
    ) -> list[Hit[Fact]]:
        """As LayerStore.search; with `as_of`, each fact as it stood then (Fact.at)."""
        hits = await super().search(owner, vector, k, as_of=as_of, scope=scope)
        if as_of is None:
            return hits
        return [Hit(hit.item.at(as_of), hit.score) for hit in hits]

    async def provenance(self, owner: Owner, fact_id: str) -> Provenance:
        rows = await self.db.read("queries/facts/provenance", **owner.params(), id=fact_id)
        if not rows:
            raise NotFound(f"fact {fact_id!r} not found")
        return provenance_from(rows[0])
