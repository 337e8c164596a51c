"""Many tenants in one database: recall latency and exactness for fixed probe users while other
tenants' users fill it (issue #16, item 4).

Layouts (default `10000x100,1000x1000`): USERSxPER_USER interactions, the users of each layout in
tenants of `--users-per-tenant` users, no tenant shared between layouts. Texts are generated
topical sentences (each user talks about a few of 40 topics of made-up words), embedded in batches
by the hashing embedder and written through `InteractionStore.write_batch`, one user per batch
(the service's write statement and indexes); nothing is consolidated, so recall's episode and
fact layers are empty and every hit is an interaction.

The probe users (the first `--probes` users of each layout) are loaded first and measured while
the database holds only them (the single-tenant baseline), then again after each checkpoint share
of the whole load. A measurement is `MemoryEngine.recall` (consolidation/recall.py, lexical view
on) with the per-layer budgets (10/5/10) and with a token budget, for every probe's queries;
exactness compares each recall's dense interaction hits with the exact top k by cosine computed
in numpy over that user's own vectors.

    .venv/bin/python bench/many_tenants.py --neo4j-uri bolt://127.0.0.1:7831 \\
        --neo4j-password "$(cat /tmp/mt-neo4j/password)"

Prints one JSON object on stdout, writes it to --output (bench/results/many_tenants.json) and a
PNG beside it; progress goes to stderr. Use a throwaway database: nothing is deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import SecretStr

from bench.commands import shown_command
from bench.common import machine_info
from bench.processes import settle
from consolidation.embedders import Vectors
from consolidation.embedders.hashing import HashingEmbedder
from consolidation.engine import MemoryEngine
from consolidation.offline import OfflineConsolidator
from consolidation.recall import context_pools
from consolidation.settings import EngineSettings
from consolidation.types import Budgets
from graph.database import Database
from graph.interactions import MAX_BATCH, InteractionStore
from graph.models import Hit, Interaction, NewInteraction, Owner
from graph.recall import EXACT_LIMIT, RecallCandidates, RecallSearch
from graph.schema import migrate
from graph.settings import Neo4jSettings

DIMENSION = 384
TEMPLATE = "{text}"
TOKENS = 1_000
P99_RATIO_TARGET = 2.0
# Cosine scores closer than this to the k-th best count as ties: Neo4j and numpy round differently.
TIE = 1e-5
TOPICS = 40
WORDS_PER_TOPIC = 14
TOPICS_PER_USER = 4
RESULTS = Path(__file__).parent / "results" / "many_tenants.json"
_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "nu",
    "re",
    "ta",
    "vo",
    "shi",
    "den",
    "mar",
    "pol",
    "gri",
    "sel",
    "tun",
    "bri",
)
_FRAMES = (
    "I spent the evening on {0} and {1}, then {2} came up again at turn {n}",
    "we talked about {0} with the {1} group; {2} and {3} next week (turn {n})",
    "my notes on {0}: {1} needs {2}, ask about {3} later, turn {n}",
    "turn {n}: back to {0} and {1} after the {2} thing",
)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- what is loaded ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    name: str
    users: int
    per_user: int

    @property
    def interactions(self) -> int:
        return self.users * self.per_user


def parse_layouts(spec: str) -> list[Layout]:
    """`10000x100,1000x1000` -> layouts named by their shape."""
    layouts = []
    for part in spec.split(","):
        users, per_user = (int(v) for v in part.lower().split("x"))
        layouts.append(Layout(f"{users}x{per_user}", users, per_user))
    return layouts


class Topics:
    """A fixed vocabulary: TOPICS topics of made-up words (so the hashing embedder sees texts of one
    topic share words, as a user's recurring subjects do)."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng([seed, 0])
        self.words = [
            ["".join(rng.choice(_SYLLABLES, size=3)) for _ in range(WORDS_PER_TOPIC)] for _ in range(TOPICS)
        ]

    def texts(self, rng: np.random.Generator, favourites: Sequence[int], n: int) -> list[str]:
        texts = []
        for seq in range(1, n + 1):
            words = self.words[int(rng.choice(favourites))]
            picked = [words[int(i)] for i in rng.choice(len(words), size=4, replace=False)]
            texts.append(_FRAMES[int(rng.integers(len(_FRAMES)))].format(*picked, n=seq))
        return texts

    def queries(self, rng: np.random.Generator, favourites: Sequence[int], n: int) -> list[str]:
        queries = []
        for _ in range(n):
            words = self.words[int(rng.choice(favourites))]
            picked = [words[int(i)] for i in rng.choice(len(words), size=2, replace=False)]
            queries.append(f"what did I say about {picked[0]} and {picked[1]}?")
        return queries


@dataclass
class User:
    """One generated user: owner, texts in seq order (row i is seq i + 1) and, for a probe, its
    vectors and queries kept for the exact answers."""

    owner: Owner
    texts: list[str]
    favourites: list[int]
    vectors: Vectors | None = None
    queries: list[str] = field(default_factory=list)
    query_vectors: Vectors | None = None


class Generator:
    """Every user reproducible from (seed, layout, index) alone, so nothing big stays in memory."""

    def __init__(self, seed: int, run_id: str, users_per_tenant: int) -> None:
        self.seed = seed
        self.run_id = run_id
        self.users_per_tenant = users_per_tenant
        self.topics = Topics(seed)

    def user(self, layout_index: int, layout: Layout, index: int) -> User:
        rng = np.random.default_rng([self.seed, layout_index + 1, index])
        tenant = f"mt-{self.run_id}-{layout.name}-{index // self.users_per_tenant:04d}"
        favourites = [int(t) for t in rng.choice(TOPICS, size=TOPICS_PER_USER, replace=False)]
        texts = self.topics.texts(rng, favourites, layout.per_user)
        return User(Owner(tenant, f"user-{index:05d}"), texts, favourites)


# -- loading -------------------------------------------------------------------------------------


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
    layouts: list[Layout]
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


# -- measuring -----------------------------------------------------------------------------------


class RecordingSearch(RecallSearch):
    """RecallSearch that keeps the dense interaction hits of its last candidates call: recall
    returns them fused with the lexical view, and exactness is a property of the dense one."""

    def __init__(self, db: Database, dimension: int) -> None:
        super().__init__(db, dimension)
        self.last_dense: list[Hit[Interaction]] = []

    async def candidates(self, *args: Any, **kwargs: Any) -> RecallCandidates:
        found = await super().candidates(*args, **kwargs)
        self.last_dense = found.interactions.dense
        return found


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    checked: int = 0
    exact: int = 0
    strict: int = 0
    foreign_hits: int = 0
    max_score_error: float = 0.0
    mismatches: list[dict[str, Any]] = field(default_factory=list)


def exact_top(vectors: Vectors, query: Vectors, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Seqs - 1 of the k most similar rows, best first, and every row's cosine (unit vectors)."""
    scores = (vectors.astype(np.float64) @ query.astype(np.float64)).ravel()
    order = np.argsort(-scores, kind="stable")[: min(k, len(scores))]
    return order, scores


def judge(tally: Tally, probe: User, query: str, qvec: Vectors, k: int, hits: list[Hit[Interaction]]) -> None:
    """Count the recall exact when its dense hits are the exact top k, up to ties at the k-th score."""
    assert probe.vectors is not None
    order, scores = exact_top(probe.vectors, qvec, k)
    tally.checked += 1
    own = [h for h in hits if (h.item.tenant, h.item.user_id) == (probe.owner.tenant, probe.owner.user_id)]
    tally.foreign_hits += len(hits) - len(own)
    found = [h.item.seq - 1 for h in own]
    truth = [int(i) for i in order]
    for hit in own:
        tally.max_score_error = max(tally.max_score_error, abs(hit.score - float(scores[hit.item.seq - 1])))
    kth = float(scores[order[-1]]) if len(order) else 0.0
    extra, missing = set(found) - set(truth), set(truth) - set(found)
    tied = all(abs(float(scores[i]) - kth) <= TIE for i in extra | missing)
    strict = found == truth
    exact = len(found) == len(truth) == len(hits) and (set(found) == set(truth) or tied)
    tally.strict += strict
    tally.exact += exact
    if not exact and len(tally.mismatches) < 10:
        tally.mismatches.append(
            {
                "user": probe.owner.user_id,
                "query": query,
                "k": k,
                "returned": len(hits),
                "extra": sorted(extra),
            }
            | {"missing": sorted(missing), "foreign": len(hits) - len(own)}
        )


def summary(tally: Tally) -> dict[str, Any]:
    latencies = np.asarray(tally.latencies_ms)
    return {
        "recalls": len(latencies),
        "p50_ms": round(float(np.percentile(latencies, 50)), 2),
        "p99_ms": round(float(np.percentile(latencies, 99)), 2),
        "mean_ms": round(float(latencies.mean()), 2),
        "exact_share": round(tally.exact / max(1, tally.checked), 4),
        "strict_order_share": round(tally.strict / max(1, tally.checked), 4),
        "foreign_hits": tally.foreign_hits,
        "max_score_error": float(f"{tally.max_score_error:.2e}"),
        "mismatches": tally.mismatches,
    }


@dataclass(frozen=True)
class Mode:
    name: str
    budgets: Budgets
    tokens: int | None

    @property
    def dense_k(self) -> int:
        """How many dense interaction hits recall asks for (consolidation/recall.py context_pools)."""
        pools = self.budgets if self.tokens is None else context_pools(self.budgets, self.tokens)
        return pools.subconscious


MODES = (Mode("budgets", Budgets(), None), Mode(f"tokens_{TOKENS}", Budgets(), TOKENS))


async def measure(
    engine: MemoryEngine, search: RecordingSearch, probes: dict[str, list[User]], rounds: int, warmup: int
) -> dict[str, Any]:
    """Every probe's queries `rounds` times per mode, per layout, after `warmup` unmeasured passes."""
    result: dict[str, Any] = {}
    for layout, users in probes.items():
        per_mode: dict[str, Any] = {}
        for mode in MODES:
            tally = Tally()
            for round_ in range(warmup + rounds):
                for probe in users:
                    for q in range(len(probe.queries)):
                        await one_recall(engine, search, probe, q, mode, tally if round_ >= warmup else None)
            per_mode[mode.name] = summary(tally)
        result[layout] = per_mode
    return result


async def warm_up(
    engine: MemoryEngine, search: RecordingSearch, probes: dict[str, list[User]], seconds: float
) -> None:
    """Unmeasured recalls for `seconds`. The baseline comes first, on a JVM that has not run these
    statements yet and compiles their hot paths for minutes (a first run measured a p50 of 16 ms
    there against 4.6 ms at 200,000 interactions): without this the baseline would be the JIT's."""
    stop = time.monotonic() + seconds
    done = 0
    while time.monotonic() < stop:
        for users in probes.values():
            for mode in MODES:
                for probe in users:
                    await one_recall(engine, search, probe, done % len(probe.queries), mode, None)
        done += 1
    log(f"warmed up for {seconds:.0f} s ({done} passes)")


async def one_recall(
    engine: MemoryEngine, search: RecordingSearch, probe: User, q: int, mode: Mode, tally: Tally | None
) -> None:
    started = time.perf_counter()
    await engine.recall(probe.owner, probe.queries[q], budgets=mode.budgets, tokens=mode.tokens)
    elapsed = (time.perf_counter() - started) * 1000
    if tally is None:
        return
    tally.latencies_ms.append(elapsed)
    assert probe.query_vectors is not None
    judge(tally, probe, probe.queries[q], probe.query_vectors[q], mode.dense_k, search.last_dense)


# -- the run -------------------------------------------------------------------------------------


async def count_interactions(db: Database) -> int:
    # Introspection only: how big the database is at a checkpoint.
    records = await db.driver.execute_query("MATCH (n:Interaction) RETURN count(n) AS n", database_=db.name)
    return int(records.records[0]["n"])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Neo4jSettings(
        uri=args.neo4j_uri, password=SecretStr(args.neo4j_password) if args.neo4j_password else None
    )
    db = Database.connect(settings)
    try:
        embedder = HashingEmbedder(DIMENSION)
        await migrate(db, embedder.name, DIMENSION, TEMPLATE)
        engine = MemoryEngine(
            db, embedder, OfflineConsolidator(), EngineSettings(embedding_template=TEMPLATE)
        )
        search = RecordingSearch(db, DIMENSION)
        engine.recaller.search = search
        return await _checkpoints(args, db, engine, search)
    finally:
        await db.close()


async def _checkpoints(
    args: argparse.Namespace, db: Database, engine: MemoryEngine, search: RecordingSearch
) -> dict[str, Any]:
    layouts = parse_layouts(args.layouts)
    generator = Generator(args.seed, args.run_id, args.users_per_tenant)
    store = InteractionStore(db, DIMENSION)
    embedder = HashingEmbedder(DIMENSION)
    loader = Loader(store, embedder, generator, layouts, args.writers, time.monotonic() + args.ingest_limit)
    probes = await _load_probes(loader, generator, layouts, args)
    total = sum(layout.interactions for layout in layouts)
    plan = deque((li, i) for li, layout in enumerate(layouts) for i in range(args.probes, layout.users))
    checkpoints: list[dict[str, Any]] = []
    for share in [0.0, *args.checkpoints]:
        await loader.load(plan, round(share * total))
        in_db = await count_interactions(db)
        # After a load Lucene merges index segments for a while; recall measured meanwhile would
        # report the merge, not the steady state (bench/processes.py).
        settled = await asyncio.to_thread(settle, args.neo4j_pid, limit_s=args.settle_limit)
        log(f"measuring at {loader.loaded:,} loaded ({in_db:,} in the database)")
        if share == 0.0:
            await warm_up(engine, search, probes, args.baseline_warmup_s)
        measured = await measure(engine, search, probes, args.rounds, args.warmup_rounds)
        checkpoints.append(
            {"share_target": share, "loaded": loader.loaded, "interactions_in_database": in_db}
            | {"users_loaded": dict(loader.users_loaded), "settle_s": settled if args.neo4j_pid else None}
            | {"load_avg_1m": round(os.getloadavg()[0], 2)}
            | {"layouts": measured}
        )
        log(json.dumps(checkpoints[-1]["layouts"])[:600])
        if loader.stopped_early:
            break
    return {
        "layouts": [vars(layout) | {"interactions": layout.interactions} for layout in layouts],
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
    loader: Loader, generator: Generator, layouts: list[Layout], args: argparse.Namespace
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


def targets(checkpoints: list[dict[str, Any]], layout: str) -> dict[str, Any]:
    """p99 of the first layout's probes at the last checkpoint against the single-tenant baseline
    (per mode), and every recall exact at every checkpoint."""
    first, last = checkpoints[0]["layouts"][layout], checkpoints[-1]["layouts"][layout]
    p99 = {}
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


# -- output --------------------------------------------------------------------------------------


def draw_chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    checkpoints = report["checkpoints"]
    sizes = [c["interactions_in_database"] for c in checkpoints]
    figure, axes = plt.subplots(1, len(MODES), figsize=(6 * len(MODES), 4.2), squeeze=False)
    for axis, mode in zip(axes[0], MODES, strict=True):
        for layout in checkpoints[0]["layouts"]:
            for stat, style in (("p50_ms", "--"), ("p99_ms", "-")):
                values = [c["layouts"][layout][mode.name][stat] for c in checkpoints]
                axis.plot(sizes, values, style, marker="o", label=f"{layout} probes {stat[:3]}")
        axis.set_xscale("symlog", linthresh=max(1, sizes[0]))
        axis.set_xlabel("interactions in the database")
        axis.set_ylabel("recall latency (ms)")
        axis.set_title(f"MemoryEngine.recall, {mode.name}")
        axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--neo4j-uri", required=True)
    p.add_argument("--neo4j-password", default=None)
    p.add_argument("--layouts", default="10000x100,1000x1000", help="USERSxPER_USER, comma separated")
    p.add_argument("--users-per-tenant", type=int, default=100)
    p.add_argument("--probes", type=int, default=10, help="probe users per layout")
    p.add_argument("--queries", type=int, default=5, help="queries per probe user")
    p.add_argument("--rounds", type=int, default=6, help="measured passes over every probe's queries")
    p.add_argument("--warmup-rounds", type=int, default=2, help="unmeasured passes before them")
    p.add_argument("--baseline-warmup-s", type=float, default=180.0, help="warm-up before the baseline")
    p.add_argument("--neo4j-pid", type=int, default=None, help="local Neo4j's pid: settle before measuring")
    p.add_argument("--settle-limit", type=float, default=180.0, help="seconds to wait at most for it")
    p.add_argument("--checkpoints", default="0.1,0.5,1.0", help="shares of the load to measure after")
    p.add_argument("--writers", type=int, default=3, help="concurrent write_batch calls")
    p.add_argument("--ingest-limit", type=float, default=1800.0, help="seconds of loading at most")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--run-id", default=uuid.uuid4().hex[:8], help="tenant name part (fresh tenants)")
    p.add_argument("--output", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    args.checkpoints = [float(s) for s in args.checkpoints.split(",")]
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    report = asyncio.run(run(args))
    report |= {
        "embedder": "hashing-v2 over generated topical texts (batch embed)",
        "exact_limit": EXACT_LIMIT,
        "settings": {k: v for k, v in vars(args).items() if k not in ("neo4j_password", "output")}
        | {"output": str(args.output), "tokens": TOKENS},
        "machine": machine_info(),
        "total_seconds": round(time.perf_counter() - started, 1),
        "command": shown_command("bench/many_tenants.py", sys.argv[1:] if argv is None else argv),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    draw_chart(report, args.output.with_suffix(".png"))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
