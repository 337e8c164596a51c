"""The in-process profile: the operations behind each request without HTTP or GraphQL, against the
same database, so that a missed target can be put down to the embedder, Neo4j or the API layer."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from bench.service.client import BUDGETS
from bench.service.process import Target
from bench.service.results import Latency, Profile
from bench.service.stats import summary
from bench.service.texts import Salads
from consolidation.engine import MemoryEngine
from consolidation.forgetting.keys import AccessKeys
from consolidation.settings import EmbedderSettings, EngineSettings, LLMSettings
from consolidation.types import Budgets, Unit
from consolidation.wiring import AppSettings, build_engine
from graph.database import Database
from graph.models import NewInteraction, Owner
from graph.settings import Neo4jSettings

WARM = 5


def engine_settings(target: Target, embedder_kind: str, mode: str) -> AppSettings:
    """The service's settings for one embedder, without an LLM (nothing consolidates)."""
    return AppSettings(
        neo4j=Neo4jSettings(uri=target.uri, password=target.password),
        embedder=EmbedderSettings(kind=embedder_kind, dimension=384),
        llm=LLMSettings(base_url=None, api_key=None),
        engine=EngineSettings(consolidation_mode=mode),
    )


async def timed(work: Callable[[int], Awaitable[object]], count: int, warm: int = WARM) -> Latency:
    """`work(i)` run `warm + count` times; the latencies of the last `count`."""
    ms: list[float] = []
    for i in range(warm + count):
        start = time.perf_counter()
        await work(i)
        if i >= warm:
            ms.append((time.perf_counter() - start) * 1000)
    return summary(ms)


async def profile_in_process(
    target: Target,
    embedder_kind: str,
    tenant: str,
    key: str,
    recall_user: str | None,
    salads: Salads,
    n: int,
) -> Profile:
    """The same operations without HTTP/GraphQL, against the same database, in this process."""
    settings = engine_settings(target, embedder_kind, "inline")
    db = Database.connect(settings.neo4j)
    engine = build_engine(db, settings)
    try:
        out: Profile = {"n": n}
        await _profile_basics(out, db, engine, key, salads, n)
        if recall_user is not None:
            await _profile_recall(out, engine, Owner(tenant=tenant, user_id=recall_user), salads, n)
            out["write_batch_of_100_split"] = await split_write_batch(
                engine, Owner(tenant=tenant, user_id=recall_user), salads, max(1, n // 20)
            )
        await _profile_remember(out, engine, tenant, salads, n)
        return out
    finally:
        await db.close()


async def _profile_basics(
    out: Profile, db: Database, engine: MemoryEngine, key: str, salads: Salads, n: int
) -> None:
    keys = AccessKeys(db)
    out["embed_one_query"] = await timed(lambda i: engine.embedder.embed([salads.query()]), n)
    out["embed_batch_of_100"] = await timed(
        lambda i: engine.embedder.embed([salads.text() for _ in range(100)]), max(5, n // 20), warm=2
    )
    out["api_key_lookup"] = await timed(lambda i: keys.authenticate(key), n)
    out["neo4j_trivial_read_roundtrip"] = await timed(lambda i: db.read("queries/schema/read_meta"), n)
    probe = f"probe-{uuid.uuid4().hex[:8]}"
    try:
        out["neo4j_commit_unindexed_write"] = await timed(
            lambda i: db.write("queries/probes/commit_unindexed", id=probe), n
        )
    finally:
        await db.write("queries/probes/remove_probe", id=probe)


async def _profile_recall(out: Profile, engine: MemoryEngine, owner: Owner, salads: Salads, n: int) -> None:
    budgets = Budgets(**BUDGETS)
    out["engine_recall"] = await timed(lambda i: engine.recall(owner, salads.query(), budgets=budgets), n)
    vector = [float(x) for x in (await engine.embedder.embed([salads.query()]))[0]]
    search = engine.stores.search
    out["neo4j_recall_statement"] = await timed(
        lambda i: search.candidates(
            owner,
            vector,
            salads.query(),
            interactions=BUDGETS["subconscious"],
            episodes=BUDGETS["episodic"],
            facts=BUDGETS["semantic"],
            include_consolidated=False,
        ),
        n,
    )
    out["neo4j_interaction_vector_search"] = await timed(
        lambda i: engine.stores.interactions.search(
            owner, vector, 10, include_consolidated=False, as_of=None
        ),
        n,
    )


async def _profile_remember(out: Profile, engine: MemoryEngine, tenant: str, salads: Salads, n: int) -> None:
    def unit() -> Unit:
        return Unit(text=salads.text(), speaker="user", session_id="p")

    owner = Owner(tenant=tenant, user_id=f"profile-{uuid.uuid4().hex[:6]}")
    out["engine_remember_write_only"] = await timed(
        lambda i: engine.remember(owner, unit(), consolidate=False), n
    )
    gated = Owner(tenant=tenant, user_id=f"profile-{uuid.uuid4().hex[:6]}")
    out["engine_remember_with_gate"] = await timed(
        lambda i: engine.remember(gated, unit(), consolidate=True), n
    )


async def split_write_batch(
    engine: MemoryEngine, owner: Owner, salads: Salads, rounds: int
) -> dict[str, Latency]:
    """One rememberBatch write (100 units) taken apart: the embedding, then the one write
    statement with its commit (where index updates, the vector index's included, happen)."""
    phases: dict[str, list[float]] = {"embed": [], "write_statement_and_commit": []}
    for _ in range(rounds):
        texts = [salads.text() for _ in range(100)]
        t0 = time.perf_counter()
        vectors = await engine.embedder.embed(texts)
        phases["embed"].append((time.perf_counter() - t0) * 1000)
        items = [
            NewInteraction("user", t, datetime.now(UTC), [float(x) for x in v], "p", None)
            for t, v in zip(texts, vectors, strict=True)
        ]
        t0 = time.perf_counter()
        await engine.stores.interactions.write_batch(owner, items)
        phases["write_statement_and_commit"].append((time.perf_counter() - t0) * 1000)
    return {k: summary(v) for k, v in phases.items()}
