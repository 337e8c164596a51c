"""Loading: users written through `InteractionStore.write_batch`, one user per batch, a few
concurrent writers, checkpoint by checkpoint."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bench.many_tenants.data import Generator, User
from bench.many_tenants.stats import log
from bench.population import Population
from consolidation.providers.embedders import Vectors
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.interactions import MAX_BATCH, InteractionStore
from graph.models import NewInteraction


def new_interactions(texts: list[str], vectors: Vectors, first_seq: int) -> list[NewInteraction]:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        NewInteraction(
            speaker="user",
            text=text,
            occurred_at=base + timedelta(minutes=first_seq + i),
            embedding=vectors[i],
        )
        for i, text in enumerate(texts)
    ]


async def write_user(store: InteractionStore, embedder: HashingEmbedder, user: User) -> Vectors:
    """The user's interactions in order (batches of one user run one after another: they share
    the user's lock and its seq)."""
    vectors = embedder.embed_sync(user.texts)
    for start in range(0, len(user.texts), MAX_BATCH):
        chunk = user.texts[start : start + MAX_BATCH]
        await store.write_batch(user.owner, new_interactions(chunk, vectors[start:], start + 1))
    return vectors


@dataclass
class Loader:
    """Writes users in a fixed order with a few concurrent writers, checkpoint by checkpoint."""

    store: InteractionStore
    embedder: HashingEmbedder
    generator: Generator
    layouts: list[Population]
    writers: int
    deadline: float
    loaded: int = 0
    users_loaded: dict[str, int] = field(default_factory=dict)
    write_seconds: float = 0.0
    stopped_early: bool = False

    async def load(self, plan: deque[tuple[int, int]], target: int) -> None:
        """Load users from `plan` (consumed from the front) until `target` interactions are in the
        database, or the deadline passes; each writer takes the next user as soon as it is free."""
        started = time.perf_counter()
        step = max(1, (target - self.loaded) // 10)
        next_report = [self.loaded + step]

        async def writer() -> None:
            while plan and self.loaded < target and not self.stopped_early:
                if time.monotonic() > self.deadline:
                    self.stopped_early = True
                    log(f"ingest deadline reached at {self.loaded:,} interactions")
                    return
                await self._one(*plan.popleft())
                if self.loaded >= next_report[0]:
                    spent = self.write_seconds + time.perf_counter() - started
                    log(f"loaded {self.loaded:,} ({self.loaded / spent:,.0f}/s overall) {self.users_loaded}")
                    next_report[0] += step

        await asyncio.gather(*(writer() for _ in range(self.writers)))
        self.write_seconds += time.perf_counter() - started

    async def _one(self, layout_index: int, index: int) -> None:
        layout = self.layouts[layout_index]
        user = self.generator.user(layout_index, layout, index)
        await write_user(self.store, self.embedder, user)
        self.loaded += layout.per_user
        self.users_loaded[layout.name] = self.users_loaded.get(layout.name, 0) + 1
