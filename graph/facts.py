"""The semantic layer: atomic facts with validity intervals and provenance."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.database import Database
from graph.errors import NotFound
from graph.models import EpisodeWithSources, Fact, Hit, Owner, Provenance, Replacement, to_python
from graph.records import episode_from, fact_from, interaction_from, run_from
from graph.validation import require_aware
from graph.vectors import vector_param


class FactStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def search(
        self, owner: Owner, vector: list[float], k: int, *, as_of: datetime | None = None
    ) -> list[Hit[Fact]]:
        """Nearest active facts (or the facts valid at `as_of`), plain cosine scores."""
        query = vector_param("query vector", vector, self.dimension)
        params: dict[str, Any] = {**owner.params(), "vector": query, "k": k}
        name = "queries/facts/search_vector"
        if as_of is not None:
            require_aware("as_of", as_of)
            name, params["as_of"] = "queries/facts/search_vector_as_of", as_of
        rows = await self.db.read(name, **params)
        return [Hit(fact_from(r["fact"]), float(r["score"])) for r in rows]

    async def get(self, owner: Owner, ids: list[str]) -> list[Fact]:
        rows = await self.db.read("queries/facts/get", **owner.params(), ids=ids)
        return [fact_from(r["fact"]) for r in rows]

    async def provenance(self, owner: Owner, fact_id: str) -> Provenance:
        rows = await self.db.read("queries/facts/provenance", **owner.params(), id=fact_id)
        if not rows:
            raise NotFound(f"fact {fact_id!r} not found")
        return _provenance_from(rows[0])


def _provenance_from(row: dict[str, Any]) -> Provenance:
    return Provenance(
        fact=fact_from(row["fact"]),
        episodes=[
            EpisodeWithSources(
                episode_from(e["episode"]),
                [(interaction_from(s["interaction"]), s["similarity"]) for s in e["sources"]],
            )
            for e in row["episodes"]
        ],
        interactions=[interaction_from(i) for i in row["interactions"]],
        supersedes=[_replacement(r) for r in row["supersedes"]],
        superseded_by=[_replacement(r) for r in row["superseded_by"]],
        runs=[run_from(r) for r in row["runs"]],
    )


def _replacement(data: dict[str, Any]) -> Replacement:
    return Replacement(fact_from(data["fact"]), data.get("reason"), to_python(data.get("at")))
