"""The read side beyond recall: nodes by id, listings, relations and the audit trail of a fact.

A facade over the graph's stores, so the API never runs Cypher or holds a repository. Lookups by
id take the caller's tenant (ids of other tenants behave as missing); listings take an owner.
Each method is one Neo4j round trip, which is what the API's DataLoaders batch on.
"""

from __future__ import annotations

from datetime import datetime

from consolidation.stores import Stores
from graph.models import (
    ConsolidationRun,
    Derived,
    Episode,
    Fact,
    FactLinks,
    FactSources,
    Interaction,
    Owner,
    Page,
    PageRequest,
    Provenance,
    RunLinks,
    User,
    UserStats,
)


class MemoryAudit:
    def __init__(self, stores: Stores) -> None:
        self._browse = stores.browse
        self._facts = stores.facts

    # -- the tenant ----------------------------------------------------------------------------

    async def tenant_name(self, tenant: str) -> str | None:
        return await self._browse.tenant_name(tenant)

    async def user_page(self, tenant: str, request: PageRequest, *, search: str | None) -> Page[User]:
        """The tenant's users by id; `search` keeps ids containing it (case-insensitive)."""
        return await self._browse.user_page(tenant, request, search=search)

    async def user_count(self, tenant: str, *, search: str | None) -> int:
        return await self._browse.user_count(tenant, search=search)

    # -- nodes by id (tenant-scoped) -----------------------------------------------------------

    async def users(self, tenant: str, ids: list[str]) -> dict[str, User]:
        return await self._browse.users(tenant, ids)

    async def interactions(self, tenant: str, ids: list[str]) -> dict[str, Interaction]:
        return await self._browse.interactions(tenant, ids)

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, Episode]:
        return await self._browse.episodes(tenant, ids)

    async def facts(self, tenant: str, ids: list[str]) -> dict[str, Fact]:
        return await self._browse.facts(tenant, ids)

    async def runs(self, tenant: str, ids: list[str]) -> dict[str, ConsolidationRun]:
        return await self._browse.runs(tenant, ids)

    # -- relations (batched by the node they start from) ---------------------------------------

    async def episode_sources(
        self, tenant: str, ids: list[str]
    ) -> dict[str, list[tuple[Interaction, float | None]]]:
        return await self._browse.episode_sources(tenant, ids)

    async def episode_facts(self, tenant: str, ids: list[str]) -> dict[str, list[Fact]]:
        return await self._browse.episode_facts(tenant, ids)

    async def episode_versions(self, tenant: str, ids: list[str]) -> dict[str, list[Episode]]:
        return await self._browse.episode_versions(tenant, ids)

    async def fact_sources(self, tenant: str, ids: list[str]) -> dict[str, FactSources]:
        return await self._browse.fact_sources(tenant, ids)

    async def fact_links(self, tenant: str, ids: list[str]) -> dict[str, FactLinks]:
        return await self._browse.fact_links(tenant, ids)

    async def fact_history(self, tenant: str, ids: list[str]) -> dict[str, list[Fact]]:
        return await self._browse.fact_history(tenant, ids)

    async def interaction_derived(self, tenant: str, ids: list[str]) -> dict[str, Derived]:
        return await self._browse.interaction_derived(tenant, ids)

    async def run_links(self, tenant: str, ids: list[str]) -> dict[str, RunLinks]:
        return await self._browse.run_links(tenant, ids)

    # -- one user ------------------------------------------------------------------------------

    async def stats(self, owner: Owner) -> UserStats | None:
        return await self._browse.user_stats(owner)

    async def audit(self, owner: Owner, fact_id: str) -> Provenance:
        """Fact -> episodes -> interactions, the facts around it in time, and the runs that made
        them (model, tokens): one query, whatever the number of episodes and interactions."""
        return await self._facts.provenance(owner, fact_id)

    async def interaction_page(
        self, owner: Owner, request: PageRequest, *, consolidated: bool | None, session_id: str | None
    ) -> Page[Interaction]:
        return await self._browse.interaction_page(
            owner, request, consolidated=consolidated, session_id=session_id
        )

    async def episode_page(
        self, owner: Owner, request: PageRequest, *, current: bool | None, as_of: datetime | None
    ) -> Page[Episode]:
        return await self._browse.episode_page(owner, request, current=current, as_of=as_of)

    async def fact_page(
        self, owner: Owner, request: PageRequest, *, status: str | None, as_of: datetime | None
    ) -> Page[Fact]:
        return await self._browse.fact_page(owner, request, status=status, as_of=as_of)

    async def run_page(self, owner: Owner, request: PageRequest, *, op: str | None) -> Page[ConsolidationRun]:
        return await self._browse.run_page(owner, request, op=op)
