"""Read-only browsing of the memory graph: batched lookups by id and keyset-paginated listings.

Lookups by id are scoped to a tenant (an id names one node, whoever its user is); the neighbours a
batch query follows must belong to the same tenant and user as the node they start from. Listings
are scoped to one owner. Every call is one round trip, so callers can batch (DataLoaders).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from neo4j.time import DateTime

from graph import models
from graph.database import Database, Row
from graph.models import Cursor, Owner, Page, PageRequest
from graph.records import (
    derived_from,
    episode_from,
    fact_from,
    fact_links_from,
    fact_sources_from,
    interaction_from,
    run_from,
    run_links_from,
    user_from,
    user_stats_from,
)
from graph.scopes import NO_FILTER, ScopeFilter
from graph.validation import require_aware
from graph.vocabulary import FactStatus

T = TypeVar("T")


class BrowseStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- nodes by id ---------------------------------------------------------------------------

    async def interactions(self, tenant: str, ids: list[str]) -> dict[str, models.Interaction]:
        return await self._nodes("interactions", tenant, ids, interaction_from)

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, models.Episode]:
        return await self._nodes("episodes", tenant, ids, episode_from)

    async def facts(self, tenant: str, ids: list[str]) -> dict[str, models.Fact]:
        return await self._nodes("facts", tenant, ids, fact_from)

    async def runs(self, tenant: str, ids: list[str]) -> dict[str, models.ConsolidationRun]:
        return await self._nodes("runs", tenant, ids, run_from)

    async def users(self, tenant: str, ids: list[str]) -> dict[str, models.User]:
        return {r["user"]["id"]: user_from(r["user"]) for r in await self._read("users", tenant, ids)}

    async def tenant_name(self, tenant: str) -> str | None:
        rows = await self.db.read("queries/browse/tenant", tenant=tenant)
        return str(rows[0]["name"]) if rows and rows[0]["name"] is not None else None

    async def user_stats(self, owner: Owner, scope: ScopeFilter = NO_FILTER) -> models.UserStats | None:
        """`scope` narrows the interactions, episodes and facts counted as it narrows the
        listings; runs and tokens stay the user's whole (runs hold no scope)."""
        rows = await self.db.read("queries/browse/user_stats", **owner.params(), **scope.params())
        return user_stats_from(rows[0]) if rows else None

    # -- relations, batched by the node they start from ----------------------------------------

    async def episode_sources(
        self, tenant: str, ids: list[str]
    ) -> dict[str, list[tuple[models.Interaction, float | None]]]:
        found: dict[str, list[tuple[models.Interaction, float | None]]] = defaultdict(list)
        for row in await self._read("episode_sources", tenant, ids):
            found[row["anchor"]].append((interaction_from(row["interaction"]), row["similarity"]))
        return dict(found)

    async def episode_facts(self, tenant: str, ids: list[str]) -> dict[str, list[models.Fact]]:
        return _grouped(await self._read("episode_facts", tenant, ids), "fact", fact_from)

    async def episode_versions(self, tenant: str, ids: list[str]) -> dict[str, list[models.Episode]]:
        return _grouped(await self._read("episode_versions", tenant, ids), "episode", episode_from)

    async def fact_sources(self, tenant: str, ids: list[str]) -> dict[str, models.FactSources]:
        return await self._by_anchor("fact_sources", tenant, ids, fact_sources_from)

    async def fact_links(self, tenant: str, ids: list[str]) -> dict[str, models.FactLinks]:
        return await self._by_anchor("fact_links", tenant, ids, fact_links_from)

    async def fact_history(self, tenant: str, ids: list[str]) -> dict[str, list[models.Fact]]:
        return _grouped(await self._read("fact_history", tenant, ids), "fact", fact_from)

    async def interaction_derived(self, tenant: str, ids: list[str]) -> dict[str, models.Derived]:
        return await self._by_anchor("interaction_derived", tenant, ids, derived_from)

    async def run_links(self, tenant: str, ids: list[str]) -> dict[str, models.RunLinks]:
        return await self._by_anchor("run_links", tenant, ids, run_links_from)

    # -- listings ------------------------------------------------------------------------------

    async def interaction_page(
        self,
        owner: Owner,
        request: PageRequest,
        *,
        consolidated: bool | None,
        session_id: str | None,
        by_time: bool = False,
        scope: ScopeFilter = NO_FILTER,
    ) -> Page[models.Interaction]:
        """In stream order (seq), or `by_time`: by occurred_at, then seq. A cursor is a position
        in the order it came from only. `scope` narrows every listing as it narrows recall."""
        filters = {"consolidated": consolidated, "session_id": session_id, **scope.params()}
        layer = "interactions_time" if by_time else "interactions"
        return await self._page(layer, owner, request, interaction_from, filters)

    async def episode_page(
        self,
        owner: Owner,
        request: PageRequest,
        *,
        current: bool | None,
        as_of: datetime | None,
        scope: ScopeFilter = NO_FILTER,
    ) -> Page[models.Episode]:
        """With `as_of`, the versions in force then, each as it stood then (models.Episode.at):
        all current, so `current: false` lists none."""
        _aware_or_none("as_of", as_of)
        if as_of is not None:
            if current is False:
                return Page([], False)
            current = None
        filters = {"current": current, "as_of": as_of, **scope.params()}
        page = await self._page("episodes", owner, request, episode_from, filters)
        if as_of is None:
            return page
        return Page([(cursor, episode.at(as_of)) for cursor, episode in page.items], page.has_more)

    async def fact_page(
        self,
        owner: Owner,
        request: PageRequest,
        *,
        status: str | None,
        as_of: datetime | None,
        kind: str | None = None,
        scope: ScopeFilter = NO_FILTER,
    ) -> Page[models.Fact]:
        """With `as_of`, the facts in force then, each as it stood then (models.Fact.at): all
        active, so a `status` other than active lists none."""
        _aware_or_none("as_of", as_of)
        if as_of is not None:
            if status not in (None, FactStatus.ACTIVE):
                return Page([], False)
            status = None
        filters = {"status": status, "as_of": as_of, "kind": kind, **scope.params()}
        page = await self._page("facts", owner, request, fact_from, filters)
        if as_of is None:
            return page
        return Page([(cursor, fact.at(as_of)) for cursor, fact in page.items], page.has_more)

    async def run_page(
        self, owner: Owner, request: PageRequest, *, op: str | None
    ) -> Page[models.ConsolidationRun]:
        return await self._page("runs", owner, request, run_from, {"op": op})

    async def user_page(self, tenant: str, request: PageRequest, *, search: str | None) -> Page[models.User]:
        """A tenant's users by id, forward only; the cursor's key is unused (0), its id is the user's."""
        rows = await self.db.read(
            "queries/browse/pages/users_forward",
            tenant=tenant,
            after_id=request.after.id if request.after else None,
            search=_search(search),
            limit=request.limit + 1,
        )
        users = [user_from(r["user"]) for r in rows]
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

    async def _by_anchor(
        self, name: str, tenant: str, ids: list[str], parse: Callable[[dict[str, Any]], T]
    ) -> dict[str, T]:
        """One record per node a relation starts from, read from that node's row."""
        return {r["anchor"]: parse(r) for r in await self._read(name, tenant, ids)}

    async def _page(
        self,
        layer: str,
        owner: Owner,
        request: PageRequest,
        parse: Callable[[dict[str, Any]], T],
        filters: dict[str, Any],
    ) -> Page[T]:
        direction = "backward" if request.backward else "forward"
        params = request.params()
        if layer != "interactions":
            # A time listing: the cursor's nanoseconds go in as the instant they name.
            for name in ("after_key", "before_key"):
                if params[name] is not None:
                    params[name] = _instant(params[name])
        rows = await self.db.read(
            f"queries/browse/pages/{layer}_{direction}", **owner.params(), **params, **filters
        )
        has_more = len(rows) > request.limit
        items = [(Cursor(_key(r["key"]), r["node"]["id"]), parse(r["node"])) for r in rows[: request.limit]]
        if request.backward:
            items.reverse()
        return Page(items, has_more)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = 1_000_000_000


def _key(value: Any) -> int:
    """A listing's sort key as the cursor's int: a seq as it is, an instant as nanoseconds since
    the epoch (a Python int, so any year the store can hold fits)."""
    if isinstance(value, DateTime):
        whole = datetime(
            value.year, value.month, value.day, value.hour, value.minute, value.second, tzinfo=UTC
        )
        return (whole - _EPOCH) // timedelta(seconds=1) * _SECOND + value.nanosecond
    return int(value)


def _instant(key: int) -> DateTime:
    """The UTC instant a cursor's nanoseconds name, held to the years 1 to 9999 Python reads (a
    forged cursor beyond them still pages, as if at their edge)."""
    seconds, nanosecond = divmod(key, _SECOND)
    try:
        moment = _EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        moment, nanosecond = (datetime.max, _SECOND - 1) if seconds > 0 else (datetime.min, 0)
    return DateTime(
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        nanosecond,
        tzinfo=UTC,
    )


def _grouped(rows: list[Row], field: str, parse: Callable[[dict[str, Any]], T]) -> dict[str, list[T]]:
    found: dict[str, list[T]] = defaultdict(list)
    for row in rows:
        found[row["anchor"]].append(parse(row[field]))
    return dict(found)


def _search(search: str | None) -> str | None:
    # An empty search keeps everything; Cypher lower-cases both sides (one notion of case).
    return search or None


def _aware_or_none(what: str, moment: datetime | None) -> None:
    if moment is not None:
        require_aware(what, moment)
