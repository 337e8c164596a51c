"""What the episodic and semantic layers' stores share: nearest-neighbour search over the layer's
live nodes (or over those live at a past instant), and lookups by id."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Generic, TypeVar

from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Hit, Owner
from graph.scopes import NO_FILTER, ScopeFilter
from graph.validation import require_aware
from graph.vectors import vector_param

T = TypeVar("T")


class LayerStore(Generic[T]):
    """One layer's reads: its queries are cypher/queries/<layer>/, each row carries a node under
    `node` ("episode", "fact"), `decode` makes it a record and `at` the record as it stood at an
    instant (docs/corrections.md#time)."""

    def __init__(
        self,
        db: Database,
        dimension: int,
        layer: str,
        node: str,
        decode: Callable[[dict[str, Any]], T],
        at: Callable[[T, datetime], T],
    ) -> None:
        self.db = db
        self.dimension = dimension
        self._queries = f"queries/{layer}"
        self._node = node
        self._decode = decode
        self._at = at

    async def search(
        self,
        owner: Owner,
        vector: list[float],
        k: int,
        *,
        as_of: datetime | None = None,
        scope: ScopeFilter = NO_FILTER,
    ) -> list[Hit[T]]:
        """Nearest live nodes (or the nodes live at `as_of`, those matching `scope`, each as it
        stood then), plain cosine scores."""
        query = vector_param("query vector", vector, self.dimension)
        params: dict[str, Any] = {**owner.params(), "vector": query, "k": k}
        name = f"{self._queries}/search_vector"
        if as_of is not None:
            require_aware("as_of", as_of)
            name, params["as_of"] = f"{self._queries}/search_vector_as_of", as_of
            params |= scope.params()
        elif scope.active:
            raise InvalidInput("a filtered search is an as-of one here; recall filters the present")
        rows = await self.db.read(name, **params)
        found = [Hit(self._decode(r[self._node]), float(r["score"])) for r in rows]
        return found if as_of is None else [Hit(self._at(h.item, as_of), h.score) for h in found]

    async def get(self, owner: Owner, ids: list[str]) -> list[T]:
        rows = await self.db.read(f"{self._queries}/get", **owner.params(), ids=ids)
        return [self._decode(r[self._node]) for r in rows]
