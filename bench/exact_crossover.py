"""Where a scan of one user's interactions in the graph stops being cheaper than the vector cache.

Loads users of growing size (clustered random unit vectors, as in bench/vector_search) through
`InteractionStore.write_batch`, then times recall's dense statement (`RecallSearch.candidates`,
interactions only, k = 40) twice per query: forced scan (`exact_limit` above the user's size) and
forced cache (`exact_limit` 0: a shortlist from graph/vector_cache.py, re-scored in the graph),
and reports p50/p95 latency of each, the time of the first cached call (which scans, and starts
reading the user's vectors in the background), the time until those vectors are in, and the
cached answers' recall@k against the scan's (both exact: 1.0 unless one is wrong).
`graph/recall.py` EXACT_LIMIT is chosen from this curve.

    .venv/bin/python -m bench.exact_crossover --neo4j-uri bolt://127.0.0.1:7801 --neo4j-password ...

Prints one JSON object on stdout and writes it to --out (bench/results/exact_crossover.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypedDict

import numpy as np
from pydantic import SecretStr

from bench.commands import shown_command
from bench.machine import MachineInfo, machine_info
from consolidation.providers.embedders import Vectors
from graph.database import Database
from graph.interactions import InteractionStore
from graph.models import NewInteraction, Owner
from graph.recall import RecallSearch
from graph.schema import migrate
from graph.settings import Neo4jSettings

DIMENSION = 384
K = 40
TOPICS = 50
NOISE = 0.8
EMBEDDER = "bench-random-unit-384"
RESULTS = Path(__file__).parent / "results" / "exact_crossover.json"
PROGRAM = "python -m bench.exact_crossover"


class Row(TypedDict):
    """One user size: each path's latency, and the cache's recall@k against the scan's answer."""

    size: int
    exact_p50_ms: float
    exact_p95_ms: float
    cached_first_ms: float
    cache_fill_ms: float
    cached_p50_ms: float
    cached_p95_ms: float
    cached_recall_at_k: float


class Measurements(TypedDict):
    k: int
    queries_per_size: int
    rows: list[Row]
    machine: MachineInfo


class Report(Measurements):
    command: str


def clustered(rng: np.random.Generator, n: int, centres: Vectors) -> Vectors:
    picked = centres[rng.integers(0, len(centres), n)]
    raw = picked + NOISE * rng.standard_normal((n, DIMENSION)) / np.sqrt(DIMENSION)
    unit: Vectors = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)
    return unit


async def load(store: InteractionStore, owner: Owner, vectors: Vectors) -> None:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for first in range(0, len(vectors), 1_000):
        rows = [
            NewInteraction(
                speaker="user",
                text=f"interaction {first + i}",
                occurred_at=start + timedelta(minutes=first + i),
                embedding=vector,
            )
            for i, vector in enumerate(vectors[first : first + 1_000])
        ]
        await store.write_batch(owner, rows)


async def timed(search: RecallSearch, owner: Owner, query: Vectors) -> tuple[float, set[str]]:
    started = time.perf_counter()
    found = await search.candidates(
        owner, query.tolist(), None, interactions=K, episodes=0, facts=0, include_consolidated=True
    )
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, {h.item.id for h in found.interactions.dense}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


async def measure(db: Database, size: int, queries: int, rng: np.random.Generator) -> Row:
    centres = clustered(rng, TOPICS, rng.standard_normal((TOPICS, DIMENSION)).astype(np.float32))
    owner = Owner(f"crossover-{uuid.uuid4().hex[:8]}", f"user-{size}")
    await load(InteractionStore(db, DIMENSION), owner, clustered(rng, size, centres))
    exact, cached = RecallSearch(db, DIMENSION, exact_limit=size), RecallSearch(db, DIMENSION, exact_limit=0)
    asked = clustered(rng, queries + 1, centres)
    started = time.perf_counter()
    first_ms, _ = await timed(cached, owner, asked[-1])
    await cached.vectors.settled()
    fill_ms = (time.perf_counter() - started) * 1000
    exact_ms: list[float] = []
    cached_ms: list[float] = []
    overlap: list[float] = []
    for query in asked[:-1]:
        spent, truth = await timed(exact, owner, query)
        exact_ms.append(spent)
        spent, found = await timed(cached, owner, query)
        cached_ms.append(spent)
        overlap.append(len(truth & found) / max(1, len(truth)))
    return {
        "size": size,
        "exact_p50_ms": percentile(exact_ms, 0.5),
        "exact_p95_ms": percentile(exact_ms, 0.95),
        "cached_first_ms": round(first_ms, 2),
        "cache_fill_ms": round(fill_ms, 2),
        "cached_p50_ms": percentile(cached_ms, 0.5),
        "cached_p95_ms": percentile(cached_ms, 0.95),
        "cached_recall_at_k": round(statistics.fmean(overlap), 4),
    }


async def run(args: argparse.Namespace) -> Measurements:
    settings = Neo4jSettings(
        uri=args.neo4j_uri, password=SecretStr(args.neo4j_password) if args.neo4j_password else None
    )
    db = Database.connect(settings)
    try:
        await migrate(db, EMBEDDER, DIMENSION, "{text}")
        rng = np.random.default_rng(args.seed)
        sizes = [int(s) for s in args.sizes.split(",")]
        rows = [await measure(db, size, args.queries, rng) for size in sizes]
    finally:
        await db.close()
    return {"k": K, "queries_per_size": args.queries, "rows": rows, "machine": machine_info()}


def main() -> None:
    parser = argparse.ArgumentParser(prog=PROGRAM, description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--neo4j-uri", required=True)
    parser.add_argument("--neo4j-password", default=None)
    parser.add_argument("--sizes", default="250,500,1000,2000,4000,8000")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON report goes")
    args = parser.parse_args()
    report: Report = {**asyncio.run(run(args)), "command": shown_command(PROGRAM, sys.argv[1:])}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
