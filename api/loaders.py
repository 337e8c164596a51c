"""Per-request DataLoaders: every node or relation a query touches is fetched in one batch per kind.

Created for each HTTP request (and afresh for each subscription event), so nothing is cached across
requests. All of them are bound to the caller's tenant.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from strawberry.dataloader import DataLoader

from consolidation.recall.audit import MemoryAudit
from graph import models

T = TypeVar("T")
# Bounds the size of one `WHERE n.id IN $ids` list.
MAX_BATCH = 1000

Fetch = Callable[[str, list[str]], Awaitable[dict[str, T]]]


def by_id(fetch: Fetch[T], tenant: str) -> DataLoader[str, T | None]:
    """A loader whose missing keys (unknown or another tenant's) load as None."""

    async def load(keys: list[str]) -> list[T | None]:
        found = await fetch(tenant, keys)
        return [found.get(key) for key in keys]

    return DataLoader(load_fn=load, max_batch_size=MAX_BATCH)


def with_default(fetch: Fetch[T], tenant: str, default: Callable[[], T]) -> DataLoader[str, T]:
    """A loader for relations: a node without any loads the empty value."""

    async def load(keys: list[str]) -> list[T]:
        found = await fetch(tenant, keys)
        return [found[key] if key in found else default() for key in keys]

    return DataLoader(load_fn=load, max_batch_size=MAX_BATCH)


class Loaders:
    def __init__(self, audit: MemoryAudit, tenant: str) -> None:
        self.users: DataLoader[str, models.User | None] = by_id(audit.users, tenant)
        self.interactions: DataLoader[str, models.Interaction | None] = by_id(audit.interactions, tenant)
        self.episodes: DataLoader[str, models.Episode | None] = by_id(audit.episodes, tenant)
        self.facts: DataLoader[str, models.Fact | None] = by_id(audit.facts, tenant)
        self.runs: DataLoader[str, models.ConsolidationRun | None] = by_id(audit.runs, tenant)
        self.episode_sources: DataLoader[str, list[tuple[models.Interaction, float | None]]] = with_default(
            audit.episode_sources, tenant, list
        )
        self.episode_facts: DataLoader[str, list[models.Fact]] = with_default(
            audit.episode_facts, tenant, list
        )
        self.episode_versions: DataLoader[str, list[models.Episode]] = with_default(
            audit.episode_versions, tenant, list
        )
        self.fact_sources: DataLoader[str, models.FactSources] = with_default(
            audit.fact_sources, tenant, lambda: models.FactSources([], [])
        )
        self.fact_links: DataLoader[str, models.FactLinks] = with_default(
            audit.fact_links, tenant, lambda: models.FactLinks([], [])
        )
        self.fact_history: DataLoader[str, list[models.Fact]] = with_default(audit.fact_history, tenant, list)
        self.interaction_derived: DataLoader[str, models.Derived] = with_default(
            audit.interaction_derived, tenant, lambda: models.Derived([], [])
        )
        self.run_links: DataLoader[str, models.RunLinks] = with_default(
            audit.run_links, tenant, lambda: models.RunLinks([], [])
        )

    def prime_interactions(self, items: list[models.Interaction]) -> None:
        for item in items:
            self.interactions.prime(item.id, item)

    def prime_episodes(self, items: list[models.Episode]) -> None:
        for item in items:
            self.episodes.prime(item.id, item)
