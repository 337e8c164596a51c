"""Per-user vector search on a real Neo4j: load through InteractionStore, then latency and recall.

Two scenarios of random unit vectors (dimension 384): one user with 100,000 interactions, and
1,000 users with 1,000 each. `--distribution clustered` draws them around topic centres instead,
which is closer to text embeddings (uniform directions are the worst case for HNSW). Every
interaction goes through `InteractionStore.write_batch`, every query through
`InteractionStore.search`, so the figures are those of the service's own code path.
Recall@10 is measured against an exact numpy scan of the queried user's own vectors.

    .venv/bin/python bench/vector_search.py --start-local --home /tmp/bench-neo4j --port 7711

Prints one JSON object on stdout; progress goes to stderr. Use a dedicated database: the benchmark
writes about a million interactions (into fresh tenants) and never deletes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.processes import settle
from graph.database import Database, Row
from graph.interactions import InteractionStore
from graph.local_server import LocalNeo4j
from graph.models import NewInteraction, Owner
from graph.schema import migrate
from graph.settings import NEO4J_VERSION, Neo4jSettings

DIMENSION = 384
K = 10
EMBEDDER = "bench-random-unit-384"
TOPICS = 1_000
# Spread around a topic centre: two interactions of one topic have cosine ~0.6, as related texts do.
TOPIC_NOISE = 0.8
TARGETS = {"recall_at_10": 0.95, "p50_ms": 15.0, "p99_ms": 50.0}
# Introspection only (no user data, no parameters): the bench reports what the server runs.
SHOW_VECTOR_INDEXES = (
    "SHOW VECTOR INDEXES YIELD name, state, populationPercent, options "
    "RETURN name, state, populationPercent, options"
)
COMPONENTS = "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
COUNT_INTERACTIONS = "MATCH (n:Interaction) RETURN count(n) AS n"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class RecordingDatabase(Database):
    """A Database that counts which named statements were read, to report the query path taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: Counter[str] = Counter()

    async def read(self, name: str, **params: Any) -> list[Row]:
        self.reads[name] += 1
        return await super().read(name, **params)


@dataclass(frozen=True)
class Scenario:
    name: str
    users: int
    per_user: int

    @property
    def n_interactions(self) -> int:
        return self.users * self.per_user


@dataclass
class Loaded:
    """A scenario as written: the tenant, and each user's vectors in seq order (row i = seq i+1)."""

    scenario: Scenario
    tenant: str
    vectors: list[np.ndarray] = field(default_factory=list)
    load_seconds: float = 0.0
    # Topic centres for the clustered distribution; None for uniform directions.
    centers: np.ndarray | None = None


# -- data ----------------------------------------------------------------------------------------


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform random directions: the hardest case for HNSW (no cluster structure to exploit)."""
    return normalized(rng.standard_normal((n, DIMENSION), dtype=np.float32))


def clustered_vectors(rng: np.random.Generator, n: int, centers: np.ndarray) -> np.ndarray:
    """Unit vectors scattered around randomly chosen topic centres."""
    picks = rng.integers(len(centers), size=n)
    noise = rng.standard_normal((n, DIMENSION), dtype=np.float32)
    return normalized(centers[picks] + noise * (TOPIC_NOISE / np.sqrt(DIMENSION)))


def normalized(raw: np.ndarray) -> np.ndarray:
    return raw / np.linalg.norm(raw, axis=1, keepdims=True)


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


# -- loading -------------------------------------------------------------------------------------


async def load_user(store: InteractionStore, owner: Owner, vectors: np.ndarray, batch: int) -> None:
    """One user's vectors in order; batches of one user are sequential (they share its lock)."""
    for start, stop in batches(len(vectors), batch):
        await store.write_batch(owner, interactions(vectors[start:stop], start + 1))


def generate(scenario: Scenario, run_id: str, seed: int, distribution: str = "uniform") -> Loaded:
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


# -- measuring -----------------------------------------------------------------------------------


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
) -> dict[str, Any]:
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


def summarize(loaded: Loaded, tally: Tally, reads: dict[str, int], trips_per_query: float) -> dict[str, Any]:
    s = loaded.scenario
    latencies = np.array(tally.latencies_ms)
    result: dict[str, Any] = {
        "n_interactions": s.n_interactions,
        "users": s.users,
        "per_user": s.per_user,
        "tenant": loaded.tenant,
        "load_seconds": round(loaded.load_seconds, 1) if loaded.load_seconds else None,
        "load_rate_per_s": (
            round(s.n_interactions / loaded.load_seconds, 1) if loaded.load_seconds else None
        ),
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


# -- environment ---------------------------------------------------------------------------------


async def server_info(db: Database) -> dict[str, Any]:
    async with db.driver.session(database=db.name) as session:
        components = await (await session.run(COMPONENTS)).data()
        indexes = await (await session.run(SHOW_VECTOR_INDEXES)).data()
        count = await (await session.run(COUNT_INTERACTIONS)).single()
    return {
        "neo4j_version": components[0]["versions"][0] if components else None,
        "neo4j_edition": components[0]["edition"] if components else None,
        "vector_indexes": {row["name"]: {**row["options"], "state": row["state"]} for row in indexes},
        "interactions_in_database": count["n"] if count else None,
    }


def machine_info() -> dict[str, Any]:
    meminfo = Path("/proc/meminfo")
    total_kb = (
        next(
            (
                int(line.split()[1])
                for line in meminfo.read_text().splitlines()
                if line.startswith("MemTotal")
            ),
            0,
        )
        if meminfo.exists()
        else 0
    )
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(total_kb / 2**20, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
    }


# -- command line --------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--uri", help="Bolt URI (default: RECMEM_NEO4J_URI / Neo4jSettings)")
    p.add_argument("--password", help="password (default: RECMEM_NEO4J_PASSWORD or the local file)")
    p.add_argument(
        "--start-local",
        action="store_true",
        help="start (and afterwards stop) a local server at --home/--port",
    )
    p.add_argument("--home", type=Path, default=Path("/tmp/recmem-bench-neo4j"))
    p.add_argument("--port", type=int, default=7711)
    p.add_argument("--heap", default="3g")
    p.add_argument("--pagecache", default="3g")
    p.add_argument(
        "--keep-running",
        action="store_true",
        help="with --start-local: leave the server running (to --measure-only later)",
    )
    p.add_argument("--scenario", choices=["one_user", "many_users", "all"], default="all")
    p.add_argument("--one-user-n", type=int, default=100_000)
    p.add_argument("--users", type=int, default=1_000)
    p.add_argument("--per-user", type=int, default=1_000)
    p.add_argument(
        "--distribution",
        choices=["uniform", "clustered"],
        default="uniform",
        help="uniform random directions (the brief), or points around topic centres",
    )
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--batch", type=int, default=5_000, help="interactions per write_batch")
    p.add_argument("--load-concurrency", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument(
        "--settle-limit",
        type=float,
        default=1800.0,
        help="seconds to wait at most, after loading, for a local Neo4j to finish merging index segments",
    )
    p.add_argument(
        "--run-id", default=uuid.uuid4().hex[:8], help="tenant suffix (default: random, i.e. fresh tenants)"
    )
    p.add_argument(
        "--measure-only",
        action="store_true",
        help="skip loading: measure the tenants of an earlier --run-id and --seed",
    )
    args = p.parse_args(argv)
    return args


def scenarios(args: argparse.Namespace) -> list[Scenario]:
    chosen = {
        "one_user": Scenario("one_user", 1, args.one_user_n),
        "many_users": Scenario("many_users", args.users, args.per_user),
    }
    return list(chosen.values()) if args.scenario == "all" else [chosen[args.scenario]]


def settings_from(args: argparse.Namespace) -> Neo4jSettings:
    overrides: dict[str, Any] = {}
    if args.start_local:
        overrides |= {
            "home": args.home,
            "port": args.port,
            "heap": args.heap,
            "pagecache": args.pagecache,
            "uri": f"bolt://127.0.0.1:{args.port}",
        }
    if args.uri:
        overrides["uri"] = args.uri
    if args.password:
        overrides["password"] = args.password
    return Neo4jSettings(**overrides)


async def run(args: argparse.Namespace, settings: Neo4jSettings, neo4j_pid: int | None) -> dict[str, Any]:
    db = RecordingDatabase.connect(settings)
    assert isinstance(db, RecordingDatabase)
    try:
        await db.ping()
        await migrate(db, EMBEDDER, DIMENSION, "{text}")  # random vectors: no template renders them
        store = InteractionStore(db, DIMENSION)
        loaded = [generate(s, args.run_id, args.seed, args.distribution) for s in scenarios(args)]
        for item in [] if args.measure_only else loaded:
            log(f"loading {item.scenario.name} into {item.tenant}")
            await load(store, item, args.batch, args.load_concurrency)
            log(f"{item.scenario.name} loaded in {item.load_seconds:.0f}s")
        # Measured after every scenario is loaded (each user shares one index with all the others)
        # and after Lucene has merged the load's small segments: the state a service runs in.
        settled = None if args.measure_only else settle(neo4j_pid, limit_s=args.settle_limit)
        if settled is not None:
            log(f"Neo4j idle again {settled} s after the load")
        rng = np.random.default_rng([args.seed, 1])
        results = {}
        for item in loaded:
            log(f"measuring {item.scenario.name}: {args.queries} queries")
            results[item.scenario.name] = await measure(store, db, item, rng, args.queries, args.warmup)
            log(f"{item.scenario.name}: {json.dumps(results[item.scenario.name])}")
        return {**await server_info(db), "settle_s_after_load": settled, "scenarios": results}
    finally:
        await db.close()


def local_server(args: argparse.Namespace, settings: Neo4jSettings) -> LocalNeo4j | None:
    if not args.start_local:
        return None
    server = LocalNeo4j(settings)
    log(f"starting local Neo4j {NEO4J_VERSION} at {server.home} on port {args.port}")
    server.start()
    return server


def jvm_vector_api(server: LocalNeo4j | None) -> bool | None:
    """Whether the local JVM has Lucene's SIMD path; unknown (None) for a remote server."""
    pid = server.status().pid if server is not None else None
    if pid is None:
        return None
    return b"jdk.incubator.vector" in Path(f"/proc/{pid}/cmdline").read_bytes()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings = settings_from(args)
    started = time.perf_counter()
    server = local_server(args, settings)
    vector_api = jvm_vector_api(server)
    try:
        pid = server.status().pid if server is not None else None
        report = asyncio.run(run(args, settings, pid))
    finally:
        if server is not None and not args.keep_running:
            server.stop()
    report |= {
        "jvm_vector_api": vector_api,
        "machine": machine_info(),
        "settings": {
            "seed": args.seed,
            "run_id": args.run_id,
            "distribution": args.distribution,
            "queries": args.queries,
            "warmup": args.warmup,
            "k": K,
            "dimension": DIMENSION,
            "batch": args.batch,
            "load_concurrency": args.load_concurrency,
            "targets": TARGETS,
            "local_heap": settings.heap if server else None,
            "local_pagecache": settings.pagecache if server else None,
        },
        "total_seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
