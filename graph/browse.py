"""Read-only browsing of the memory graph: batched lookups by id and keyset-paginated listings.

Lookups by id are scoped to a tenant (an id names one node, whoever its user is); the neighbours a
batch query follows must belong to the same tenant and user as the node they start from. Listings
are scoped to one owner. Every call is one round trip, so callers can batch (DataLoaders).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from graph.database import Database, Row
from graph.models import (
    ConsolidationRun,
    Cursor,
    Derived,
    Episode,
    Fact,
    FactLinks,
    FactSources,
    Interaction,
    Owner,
    Page,
    PageRequest,
    Replacement,
    RunLinks,
    User,
    UserStats,
    to_python,
)
from graph.records import episode_from, fact_from, interaction_from, run_from
from graph.validation import require_aware

T = TypeVar("T")


class BrowseStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- nodes by id ---------------------------------------------------------------------------

    async def interactions(self, tenant: str, ids: list[str]) -> dict[str, Interaction]:
        return await self._nodes("interactions", tenant, ids, interaction_from)

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, Episode]:
        return await self._nodes("episodes", tenant, ids, episode_from)

    async def facts(self, tenant: str, ids: list[str]) -> dict[str, Fact]:
        return await self._nodes("facts", tenant, ids, fact_from)

    async def runs(self, tenant: str, ids: list[str]) -> dict[str, ConsolidationRun]:
        return await self._nodes("runs", tenant, ids, run_from)

    async def users(self, tenant: str, ids: list[str]) -> dict[str, User]:
        return {r["user"]["id"]: _user(r["user"]) for r in await self._read("users", tenant, ids)}

    async def tenant_name(self, tenant: str) -> str | None:
        rows = await self.db.read("queries/browse/tenant", tenant=tenant)
        return str(rows[0]["name"]) if rows and rows[0]["name"] is not None else None

    async def user_stats(self, owner: Owner) -> UserStats | None:
        rows = await self.db.read("queries/browse/user_stats", **owner.params())
        return UserStats(**{k: int(v) for k, v in rows[0].items()}) if rows else None

    # -- relations, batched by the node they start from ----------------------------------------

    async def episode_sources(
        self, tenant: str, ids: list[str]
    ) -> dict[str, list[tuple[Interaction, float | None]]]:
        found: dict[str, list[tuple[Interaction, float | None]]] = defaultdict(list)
        for row in await self._read("episode_sources", tenant, ids):
            found[row["anchor"]].append((interaction_from(row["interaction"]), row["similarity"]))
        return dict(found)

    async def episode_facts(self, tenant: str, ids: list[str]) -> dict[str, list[Fact]]:
        return _grouped(await self._read("episode_facts", tenant, ids), "fact", fact_from)

    async def episode_versions(self, tenant: str, ids: list[str]) -> dict[str, list[Episode]]:
        return _grouped(await self._read("episode_versions", tenant, ids), "episode", episode_from)

    async def fact_sources(self, tenant: str, ids: list[str]) -> dict[str, FactSources]:
        return {
            r["anchor"]: FactSources(
                [episode_from(e) for e in r["episodes"]], [interaction_from(i) for i in r["interactions"]]
            )
            for r in await self._read("fact_sources", tenant, ids)
        }

    async def fact_links(self, tenant: str, ids: list[str]) -> dict[str, FactLinks]:
        return {
            r["anchor"]: FactLinks(
                [_replacement(x) for x in r["supersedes"]], [_replacement(x) for x in r["superseded_by"]]
            )
            for r in await self._read("fact_links", tenant, ids)
        }

    async def fact_history(self, tenant: str, ids: list[str]) -> dict[str, list[Fact]]:
        return _grouped(await self._read("fact_history", tenant, ids), "fact", fact_from)

    async def interaction_derived(self, tenant: str, ids: list[str]) -> dict[str, Derived]:
        return {
            r["anchor"]: Derived([episode_from(e) for e in r["episodes"]], [fact_from(f) for f in r["facts"]])
            for r in await self._read("interaction_derived", tenant, ids)
        }

    async def run_links(self, tenant: str, ids: list[str]) -> dict[str, RunLinks]:
        return {
            r["anchor"]: RunLinks(list(r["read"]), list(r["produced"]))
            for r in await self._read("run_links", tenant, ids)
        }

    # -- listings ------------------------------------------------------------------------------

    async def interaction_page(
        self, owner: Owner, request: PageRequest, *, consolidated: bool | None, session_id: str | None
    ) -> Page[Interaction]:
        filters = {"consolidated": consolidated, "session_id": session_id}
        return await self._page("interactions", owner, request, interaction_from, filters)

    async def episode_page(
        self, owner: Owner, request: PageRequest, *, current: bool | None, as_of: datetime | None
    ) -> Page[Episode]:
        _aware_or_none("as_of", as_of)
        return await self._page(
            "episodes", owner, request, episode_from, {"current": current, "as_of": as_of}
        )

    async def fact_page(
        self, owner: Owner, request: PageRequest, *, status: str | None, as_of: datetime | None
    ) -> Page[Fact]:
        _aware_or_none("as_of", as_of)
        return await self._page("facts", owner, request, fact_from, {"status": status, "as_of": as_of})

    async def run_page(self, owner: Owner, request: PageRequest, *, op: str | None) -> Page[ConsolidationRun]:
        return await self._page("runs", owner, request, run_from, {"op": op})

    async def user_page(self, tenant: str, request: PageRequest, *, search: str | None) -> Page[User]:
        """A tenant's users by id, forward only; the cursor's key is unused (0), its id is the user's."""
        rows = await self.db.read(
            "queries/browse/pages/users_forward",
            tenant=tenant,
            after_id=request.after.id if request.after else None,
            search=_search(search),
            limit=request.limit + 1,
        )
        users = [_user(r["user"]) for r in rows]
        return Page([(Cursor(0, u.id), u) for u in users[: request.limit]], len(users) > request.limit)

    async def user_count(self, tenant: str, *, search: str | None) -> int:
        rows = await self.db.read("queries/browse/user_count", tenant=tenant, search=_search(search))
        return int(rows[0]["total"]) if rows else 0

    # -- helpers -------------------------------------------------------------------------------

    async def _read(self, name: str, tenant: str, ids: list[str]) -> list[Row]:
        if not ids:
            return []
        return await self.db.read(f"queries/browse/{name}", tenant=tenant, ids=ids)

    async def _nodes(
        self, name: str, tenant: str, ids: list[str], parse: Callable[[dict[str, Any]], T]
    ) -> dict[str, T]:
        return {r["node"]["id"]: parse(r["node"]) for r in await self._read(name, tenant, ids)}

    async def _page(
        self,
        layer: str,
        owner: Owner,
        request: PageRequest,
        parse: Callable[[dict[str, Any]], T],
        filters: dict[str, Any],
    ) -> Page[T]:
        direction = "backward" if request.backward else "forward"
        rows = await self.db.read(
            f"queries/browse/pages/{layer}_{direction}", **owner.params(), **request.params(), **filters
        )
        has_more = len(rows) > request.limit
        items = [(Cursor(int(r["key"]), r["node"]["id"]), parse(r["node"])) for r in rows[: request.limit]]
        if request.backward:
            items.reverse()
        return Page(items, has_more)


def _grouped(rows: list[Row], field: str, parse: Callable[[dict[str, Any]], T]) -> dict[str, list[T]]:
    found: dict[str, list[T]] = defaultdict(list)
    for row in rows:
        found[row["anchor"]].append(parse(row[field]))
    return dict(found)


def _user(data: dict[str, Any]) -> User:
    return User(data["id"], data["tenant"], to_python(data.get("created_at")))


def _search(search: str | None) -> str | None:
    # An empty search keeps everything; Cypher lower-cases both sides (one notion of case).
    return search or None


def _replacement(data: dict[str, Any]) -> Replacement:
    return Replacement(fact_from(data["fact"]), data.get("reason"), to_python(data.get("at")))


def _aware_or_none(what: str, moment: datetime | None) -> None:
    if moment is not None:
        require_aware(what, moment)
