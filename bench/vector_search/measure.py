"""Measuring: `InteractionStore.search` per query, scored against an exact numpy scan of the
queried user's own vectors, with the statements the search took."""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.vector_search.data import Loaded, owner_of, sample
from bench.vector_search.results import ScenarioResult
from graph.database import Database, Row
from graph.interactions import InteractionStore

K = 10
TARGETS = {"recall_at_10": 0.95, "p50_ms": 15.0, "p99_ms": 50.0}


class RecordingDatabase(Database):
    """A Database that counts which named statements were read, to report the query path taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: Counter[str] = Counter()

    async def read(self, name: str, **params: Any) -> list[Row]:
        self.reads[name] += 1
        return await super().read(name, **params)


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    recalls: list[float] = field(default_factory=list)
    short_results: int = 0
    foreign_hits: int = 0


def exact_top_k(vectors: np.ndarray, query: np.ndarray, k: int) -> set[int]:
    """Row indexes of the k most similar vectors (all are unit length, so dot = cosine)."""
    scores = vectors @ query
    k = min(k, len(scores))
    return {int(i) for i in np.argpartition(-scores, k - 1)[:k]}


async def one_query(
    store: InteractionStore, loaded: Loaded, user: int, query: np.ndarray, tally: Tally | None
) -> None:
    """Time one search; when tallying, also score it against the exact answer."""
    owner = owner_of(loaded, user)
    vector = query.tolist()
    started = time.perf_counter()
    hits = await store.search(owner, vector, K)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if tally is None:
        return
    tally.latencies_ms.append(elapsed_ms)
    own = [h for h in hits if (h.item.tenant, h.item.user_id) == (owner.tenant, owner.user_id)]
    tally.foreign_hits += len(hits) - len(own)
    user_vectors = loaded.vectors[user]
    if len(hits) < min(K, len(user_vectors)):
        tally.short_results += 1
    truth = exact_top_k(user_vectors, query, K)
    found = {h.item.seq - 1 for h in own}
    tally.recalls.append(len(truth & found) / len(truth))


async def measure(
    store: InteractionStore,
    db: RecordingDatabase,
    loaded: Loaded,
    rng: np.random.Generator,
    queries: int,
    warmup: int,
) -> ScenarioResult:
    users = loaded.scenario.users
    for query in sample(loaded, rng, warmup):
        await one_query(store, loaded, int(rng.integers(users)), query, None)
    db.reads.clear()
    trips_before = db.round_trips
    tally = Tally()
    for query in sample(loaded, rng, queries):
        await one_query(store, loaded, int(rng.integers(users)), query, tally)
    result = summarize(loaded, tally, dict(db.reads), (db.round_trips - trips_before) / queries)
    # Other work on the machine moves latency; the 1-minute load average says how busy it was.
    return result | {"load_avg_1m": round(os.getloadavg()[0], 2)}


def summarize(loaded: Loaded, tally: Tally, reads: dict[str, int], trips_per_query: float) -> ScenarioResult:
    s = loaded.scenario
    latencies = np.array(tally.latencies_ms)
    result: ScenarioResult = {
        "n_interactions": s.interactions,
        "users": s.users,
        "per_user": s.per_user,
        "tenant": loaded.tenant,
        "load_seconds": round(loaded.load_seconds, 1) if loaded.load_seconds else None,
        "load_rate_per_s": (round(s.interactions / loaded.load_seconds, 1) if loaded.load_seconds else None),
        "queries": len(latencies),
        "p50_ms": round(float(np.percentile(latencies, 50)), 2),
        "p99_ms": round(float(np.percentile(latencies, 99)), 2),
        "mean_ms": round(float(latencies.mean()), 2),
        "recall_at_10": round(float(np.mean(tally.recalls)), 4),
        "min_recall_at_10": round(float(np.min(tally.recalls)), 2),
        "short_results": tally.short_results,
        "foreign_hits": tally.foreign_hits,
        "strategy": reads,
        "round_trips_per_query": trips_per_query,
    }
    result["targets_met"] = (
        result["recall_at_10"] >= TARGETS["recall_at_10"]
        and result["p50_ms"] <= TARGETS["p50_ms"]
        and result["p99_ms"] <= TARGETS["p99_ms"]
        and result["short_results"] == 0
        and result["foreign_hits"] == 0
    )
    return result
