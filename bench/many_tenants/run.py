"""The many-tenants run: probes first, then the other tenants' users checkpoint by checkpoint, the
probes measured after each."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import deque
from dataclasses import replace

import numpy as np
from pydantic import SecretStr

from bench.many_tenants.data import Generator, User, parse_layouts
from bench.many_tenants.loading import Loader, write_user
from bench.many_tenants.measure import MODES, RecordingSearch, measure, warm_up
from bench.many_tenants.results import Checkpoint, LayoutRecord, Measurements, P99Judgment, Targets
from bench.many_tenants.stats import log
from bench.population import Population
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.settings import EngineSettings
from consolidation.stores import Stores
from graph.cypher import statement
from graph.database import Database
from graph.interactions import InteractionStore
from graph.schema import migrate
from graph.settings import Neo4jSettings
from harness.processes import settle

DIMENSION = 384
TEMPLATE = "{text}"
P99_RATIO_TARGET = 2.0


async def count_interactions(db: Database) -> int:
    # Introspection only: how big the database is at a checkpoint.
    records = await db.driver.execute_query(statement("queries/bench/count_interactions"), database_=db.name)
    return int(records.records[0]["n"])


async def run(args: argparse.Namespace) -> Measurements:
    settings = Neo4jSettings(
        uri=args.neo4j_uri, password=SecretStr(args.neo4j_password) if args.neo4j_password else None
    )
    db = Database.connect(settings)
    try:
        embedder = HashingEmbedder(DIMENSION)
        await migrate(db, embedder.name, DIMENSION, TEMPLATE)
        # The engine's recall searches through a RecordingSearch, given to it in its stores.
        search = RecordingSearch(db, DIMENSION)
        stores = replace(Stores.open(db, DIMENSION), search=search)
        engine = MemoryEngine(
            stores, embedder, OfflineConsolidator(), EngineSettings(embedding_template=TEMPLATE)
        )
        return await _checkpoints(args, db, engine, search)
    finally:
        await db.close()


async def _checkpoints(
    args: argparse.Namespace, db: Database, engine: MemoryEngine, search: RecordingSearch
) -> Measurements:
    layouts = parse_layouts(args.layouts)
    generator = Generator(args.seed, args.run_id, args.users_per_tenant)
    store = InteractionStore(db, DIMENSION)
    embedder = HashingEmbedder(DIMENSION)
    loader = Loader(store, embedder, generator, layouts, args.writers, time.monotonic() + args.ingest_limit)
    probes = await _load_probes(loader, generator, layouts, args)
    total = sum(layout.interactions for layout in layouts)
    plan = deque((li, i) for li, layout in enumerate(layouts) for i in range(args.probes, layout.users))
    checkpoints: list[Checkpoint] = []
    for share in [0.0, *args.checkpoints]:
        await loader.load(plan, round(share * total))
        in_db = await count_interactions(db)
        # After a load Lucene merges index segments for a while; recall measured meanwhile would
        # report the merge, not the steady state (harness/processes.py).
        settled = await asyncio.to_thread(settle, args.neo4j_pid, limit_s=args.settle_limit)
        log(f"measuring at {loader.loaded:,} loaded ({in_db:,} in the database)")
        if share == 0.0:
            await warm_up(engine, search, probes, args.baseline_warmup_s)
        measured = await measure(engine, search, probes, args.rounds, args.warmup_rounds)
        checkpoints.append(
            {
                "share_target": share,
                "loaded": loader.loaded,
                "interactions_in_database": in_db,
                "users_loaded": dict(loader.users_loaded),
                "settle_s": settled if args.neo4j_pid else None,
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "layouts": measured,
            }
        )
        log(json.dumps(checkpoints[-1]["layouts"])[:600])
        if loader.stopped_early:
            break
    return {
        "layouts": [_layout_record(layout) for layout in layouts],
        "interactions_planned": total,
        "complete": loader.loaded == total,
        "ingest": {
            "interactions": loader.loaded,
            "seconds": round(loader.write_seconds, 1),
            "per_s": round(loader.loaded / max(1e-9, loader.write_seconds), 1),
            "writers": args.writers,
            "stopped_by_deadline": loader.stopped_early,
        },
        "checkpoints": checkpoints,
        "targets": targets(checkpoints, layouts[0].name),
    }


async def _load_probes(
    loader: Loader, generator: Generator, layouts: list[Population], args: argparse.Namespace
) -> dict[str, list[User]]:
    """The probe users, written first and kept (vectors and queries) for the exact answers."""
    probes: dict[str, list[User]] = {}
    for li, layout in enumerate(layouts):
        users = [generator.user(li, layout, i) for i in range(min(args.probes, layout.users))]
        for user in users:
            user.vectors = await write_user(loader.store, loader.embedder, user)
            rng = np.random.default_rng([args.seed, 99, li, int(user.owner.user_id[5:])])
            user.queries = generator.topics.queries(rng, user.favourites, args.queries)
            user.query_vectors = loader.embedder.embed_sync(user.queries)
            loader.loaded += layout.per_user
            loader.users_loaded[layout.name] = loader.users_loaded.get(layout.name, 0) + 1
        probes[layout.name] = users
    return probes


def _layout_record(layout: Population) -> LayoutRecord:
    return {
        "name": layout.name,
        "users": layout.users,
        "per_user": layout.per_user,
        "interactions": layout.interactions,
    }


def targets(checkpoints: list[Checkpoint], layout: str) -> Targets:
    """p99 of the first layout's probes at the last checkpoint against the single-tenant baseline
    (per mode), and every recall exact at every checkpoint."""
    first, last = checkpoints[0]["layouts"][layout], checkpoints[-1]["layouts"][layout]
    p99: dict[str, P99Judgment] = {}
    for mode in MODES:
        base, now = first[mode.name]["p99_ms"], last[mode.name]["p99_ms"]
        ratio = round(now / base, 2) if base else None
        p99[mode.name] = {
            "single_tenant_p99_ms": base,
            "p99_ms": now,
            "ratio": ratio,
            "met": ratio is not None and ratio <= P99_RATIO_TARGET,
        }
    shares = [m["exact_share"] for c in checkpoints for lay in c["layouts"].values() for m in lay.values()]
    exact = min(shares) if shares else None
    return {
        "layout": layout,
        "at_interactions_in_database": checkpoints[-1]["interactions_in_database"],
        "p99_ratio_max": P99_RATIO_TARGET,
        "p99": p99,
        "exact_share_min": exact,
        "exact_met": exact == 1.0,
        "all_met": exact == 1.0 and all(v["met"] for v in p99.values()),
    }
