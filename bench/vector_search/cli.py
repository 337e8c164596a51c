"""Per-user vector search on a real Neo4j: load through InteractionStore, then latency and recall.

Two scenarios of random unit vectors (dimension 384): one user with 100,000 interactions, and
1,000 users with 1,000 each. `--distribution clustered` draws them around topic centres instead,
which is closer to text embeddings (uniform directions are the worst case for HNSW). Every
interaction goes through `InteractionStore.write_batch`, every query through
`InteractionStore.search`, so the figures are those of the service's own code path.
Recall@10 is measured against an exact numpy scan of the queried user's own vectors.

    .venv/bin/python -m bench.vector_search --start-local --home /tmp/bench-neo4j --port 7711

Prints one JSON object on stdout; progress goes to stderr. Use a dedicated database: the benchmark
writes about a million interactions (into fresh tenants) and never deletes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench.arguments import add_flag, add_settle_limit
from bench.commands import shown_command
from bench.machine import machine_info
from bench.population import Population
from bench.vector_search.data import DIMENSION, generate, load
from bench.vector_search.measure import TARGETS, K, RecordingDatabase, measure
from bench.vector_search.results import Measurements, ScenarioResult, ServerInfo
from bench.vector_search.stats import log
from graph.cypher import statement
from graph.database import Database
from graph.interactions import InteractionStore
from graph.local_server import LocalNeo4j
from graph.schema import migrate
from graph.settings import NEO4J_VERSION, Neo4jSettings
from harness.processes import settle

EMBEDDER = "bench-random-unit-384"
PROGRAM = "python -m bench.vector_search"


async def server_info(db: Database) -> ServerInfo:
    async with db.driver.session(database=db.name) as session:
        components = await (await session.run(statement("queries/bench/components"))).data()
        indexes = await (await session.run(statement("queries/bench/vector_indexes"))).data()
        count = await (await session.run(statement("queries/bench/count_interactions"))).single()
    return {
        "neo4j_version": components[0]["versions"][0] if components else None,
        "neo4j_edition": components[0]["edition"] if components else None,
        "vector_indexes": {row["name"]: {**row["options"], "state": row["state"]} for row in indexes},
        "interactions_in_database": count["n"] if count else None,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=PROGRAM, description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument("--uri", help="Bolt URI (default: RECMEM_NEO4J_URI / Neo4jSettings)")
    p.add_argument("--password", help="password (default: RECMEM_NEO4J_PASSWORD or the local file)")
    add_flag(p, "--start-local", "start (and afterwards stop) a local server at --home/--port")
    p.add_argument("--home", type=Path, default=Path("/tmp/recmem-bench-neo4j"))
    p.add_argument("--port", type=int, default=7711)
    p.add_argument("--heap", default="3g")
    p.add_argument("--pagecache", default="3g")
    add_flag(p, "--keep-running", "with --start-local: leave the server running (to --measure-only later)")
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
    add_settle_limit(p, 1800.0)
    p.add_argument(
        "--run-id", default=uuid.uuid4().hex[:8], help="tenant suffix (default: random, i.e. fresh tenants)"
    )
    add_flag(p, "--measure-only", "skip loading: measure the tenants of an earlier --run-id and --seed")
    args = p.parse_args(argv)
    return args


def scenarios(args: argparse.Namespace) -> list[Population]:
    chosen = {
        "one_user": Population("one_user", 1, args.one_user_n),
        "many_users": Population("many_users", args.users, args.per_user),
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


async def run(args: argparse.Namespace, settings: Neo4jSettings, neo4j_pid: int | None) -> Measurements:
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
        results: dict[str, ScenarioResult] = {}
        for item in loaded:
            log(f"measuring {item.scenario.name}: {args.queries} queries")
            results[item.scenario.name] = await measure(store, db, item, rng, args.queries, args.warmup)
            log(f"{item.scenario.name}: {json.dumps(results[item.scenario.name])}")
        return {"server": await server_info(db), "settle_s_after_load": settled, "scenarios": results}
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
        measured = asyncio.run(run(args, settings, pid))
    finally:
        if server is not None and not args.keep_running:
            server.stop()
    report = {
        **measured["server"],
        "settle_s_after_load": measured["settle_s_after_load"],
        "scenarios": measured["scenarios"],
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
        "command": shown_command(PROGRAM, sys.argv[1:] if argv is None else argv),
    }
    print(json.dumps(report, indent=2, default=str))
