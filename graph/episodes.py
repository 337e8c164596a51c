"""The episodic layer: versioned narratives of recurring topics."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.database import Database
from graph.models import Episode, Hit, Owner
from graph.records import episode_from
from graph.validation import require_aware
from graph.vectors import vector_param


class EpisodeStore:
    def __init__(self, db: Database, dimension: int) -> None:
        self.db = db
        self.dimension = dimension

    async def search(
        self, owner: Owner, vector: list[float], k: int, *, as_of: datetime | None = None
    ) -> list[Hit[Episode]]:
        """Nearest current versions (or the versions current at `as_of`), plain cosine scores."""
        query = vector_param("query vector", vector, self.dimension)
        params: dict[str, Any] = {**owner.params(), "vector": query, "k": k}
        name = "queries/episodes/search_vector"
        if as_of is not None:
            require_aware("as_of", as_of)
            name, params["as_of"] = "queries/episodes/search_vector_as_of", as_of
        rows = await self.db.read(name, **params)
        return [Hit(episode_from(r["episode"]), float(r["score"])) for r in rows]

    async def get(self, owner: Owner, ids: list[str]) -> list[Episode]:
        rows = await self.db.read("queries/episodes/get", **owner.params(), ids=ids)
        return [episode_from(r["episode"]) for r in rows]
