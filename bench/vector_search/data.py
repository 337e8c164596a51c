"""The vectors a scenario loads (uniform directions or clustered around topic centres), and their
loading through `InteractionStore.write_batch`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from bench.population import Population
from bench.vector_search.stats import log
from graph.interactions import InteractionStore
from graph.models import NewInteraction, Owner

DIMENSION = 384
TOPICS = 1_000
# Spread around a topic centre: two interactions of one topic have cosine ~0.6, as related texts do.
TOPIC_NOISE = 0.8


@dataclass
class Loaded:
    """A scenario as written: the tenant, and each user's vectors in seq order (row i = seq i+1)."""

    scenario: Population
    tenant: str
    vectors: list[np.ndarray] = field(default_factory=list)
    load_seconds: float = 0.0
    # Topic centres for the clustered distribution; None for uniform directions.
    centers: np.ndarray | None = None


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform random directions: the hardest case for HNSW (no cluster structure to exploit)."""
    return normalized(rng.standard_normal((n, DIMENSION), dtype=np.float32))


def clustered_vectors(rng: np.random.Generator, n: int, centers: np.ndarray) -> np.ndarray:
    """Unit vectors scattered around randomly chosen topic centres."""
    picks = rng.integers(len(centers), size=n)
    noise = rng.standard_normal((n, DIMENSION), dtype=np.float32)
    return normalized(centers[picks] + noise * (TOPIC_NOISE / np.sqrt(DIMENSION)))


def normalized(raw: np.ndarray) -> np.ndarray:
    unit: np.ndarray = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    return unit


def sample(loaded: Loaded, rng: np.random.Generator, n: int) -> np.ndarray:
    """Vectors (stored or queried) from the scenario's distribution."""
    if loaded.centers is None:
        return unit_vectors(rng, n)
    return clustered_vectors(rng, n, loaded.centers)


def interactions(vectors: np.ndarray, first_seq: int) -> list[NewInteraction]:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        NewInteraction(
            speaker="user",
            text=f"bench interaction {first_seq + i}",
            occurred_at=base + timedelta(seconds=first_seq + i),
            embedding=row.tolist(),
        )
        for i, row in enumerate(vectors)
    ]


def batches(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(n, start + size)


async def load_user(store: InteractionStore, owner: Owner, vectors: np.ndarray, batch: int) -> None:
    """One user's vectors in order; batches of one user are sequential (they share its lock)."""
    for start, stop in batches(len(vectors), batch):
        await store.write_batch(owner, interactions(vectors[start:stop], start + 1))


def generate(scenario: Population, run_id: str, seed: int, distribution: str = "uniform") -> Loaded:
    """The scenario's vectors, reproducible from the seed alone (so --measure-only can rebuild them)."""
    if distribution == "uniform":
        rng = np.random.default_rng([seed, scenario.users, scenario.per_user])
        loaded = Loaded(scenario, tenant=f"bench-{scenario.name}-{run_id}")
    else:
        rng = np.random.default_rng([seed, scenario.users, scenario.per_user, 1])
        loaded = Loaded(scenario, tenant=f"bench-{scenario.name}-{distribution}-{run_id}")
        loaded.centers = unit_vectors(rng, TOPICS)
    loaded.vectors = [sample(loaded, rng, scenario.per_user) for _ in range(scenario.users)]
    return loaded


async def load(store: InteractionStore, loaded: Loaded, batch: int, concurrency: int) -> None:
    """Write every user's interactions; different users load concurrently to keep Neo4j busy."""
    scenario = loaded.scenario
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(user: int) -> None:
        nonlocal done
        async with gate:
            await load_user(store, owner_of(loaded, user), loaded.vectors[user], batch)
            done += 1
            if scenario.users == 1 or done % max(1, scenario.users // 10) == 0:
                log(f"{scenario.name}: {done}/{scenario.users} users loaded")

    started = time.perf_counter()
    await asyncio.gather(*(one(user) for user in range(scenario.users)))
    loaded.load_seconds = time.perf_counter() - started


def owner_of(loaded: Loaded, user: int) -> Owner:
    return Owner(loaded.tenant, f"user-{user:05d}")
