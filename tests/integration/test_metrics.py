"""`GET /metrics` and the engine's metrics: the backlog gauges, failures by class, lease takeovers,
the sweeper's counters, and an exposition that parses and names no tenant, user or text."""

from __future__ import annotations

import asyncio
import math
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from api.app import create_app
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.metrics import FAILURE_CLASSES, Metrics, failure_class
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.llm.types import LLMUnavailable
from consolidation.types import Unit
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.errors import LeaseLost, StoreUnavailable
from graph.leases import LeaseStore
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import app_client, make_api_settings, make_engine
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import by_task

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
SUSHI = [
    "We had sushi dinner with salmon rolls",
    "Another sushi dinner with tuna rolls",
    "Sushi dinner with salmon and tuna rolls again",
]


def unit(text: str, day: int) -> Unit:
    return Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day))


def offline_engine(db: Database, **overrides: object) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**overrides))


def value(metrics: Metrics, name: str, **labels: str) -> float:
    sample = metrics.registry.get_sample_value(name, labels or None)
    assert sample is not None, f"{name}{labels} is not exposed"
    return sample


def failures(metrics: Metrics) -> dict[str, float]:
    return {c: value(metrics, "recmem_consolidation_failures_total", **{"class": c}) for c in FAILURE_CLASSES}


async def test_pending_gauge_follows_writes_left_pending_then_consolidation(
    db: Database, owner: Owner
) -> None:
    engine = offline_engine(db)
    before = await engine.backlog()
    await engine.remember_batch(owner, [unit(t, day) for day, t in enumerate(SUSHI)], consolidate=False)
    written = await engine.backlog()
    assert written.pending == before.pending + 3
    assert written.users == before.users + 1
    assert not written.partial
    assert value(engine.metrics, "recmem_pending_interactions") == written.pending
    assert value(engine.metrics, "recmem_pending_users") == written.users
    # The oldest pending interaction is at least as old as ours (Neo4j's clock on both ends).
    await asyncio.sleep(1.0)
    aged = await engine.backlog()
    assert aged.oldest_age_s >= 1.0
    assert value(engine.metrics, "recmem_pending_oldest_age_seconds") == aged.oldest_age_s

    await engine.consolidate(owner)
    after = await engine.backlog()
    assert after.pending == before.pending and after.users == before.users
    assert value(engine.metrics, "recmem_pending_interactions") == before.pending


async def test_a_failing_llm_counts_one_llm_failure(db: Database, owner: Owner, llm: LocalLLMServer) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(by_task(create_episode=lambda body: Reply.error(500)))
    assert failures(engine.metrics) == dict.fromkeys(FAILURE_CLASSES, 0.0)
    for day, text in enumerate(SUSHI):
        remembered = await engine.remember(owner, unit(text, day))
    assert remembered.consolidation is not None and remembered.consolidation.action == "deferred"
    assert failures(engine.metrics) == dict.fromkeys(FAILURE_CLASSES, 0.0) | {"llm": 1.0}


async def test_failed_passes_are_counted_by_class(db: Database, owner: Owner) -> None:
    engine = offline_engine(db)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("Neo4j is not reachable: scripted")

    # method-assign: replaced on this engine alone; a scripted outage of its store.
    engine.leases.wait_acquire = broken  # type: ignore[method-assign]
    # Inline after a write: the write stands, the failure is counted once.
    remembered = await engine.remember(owner, unit(SUSHI[0], 0))
    assert remembered.consolidation is not None and remembered.consolidation.action == "deferred"
    assert value(engine.metrics, "recmem_consolidation_failures_total", **{"class": "store"}) == 1.0
    # An explicit pass that raises is counted too.
    try:
        await engine.consolidate(owner)
    except StoreUnavailable:
        pass
    else:
        raise AssertionError("the pass should have failed")
    assert failures(engine.metrics) == dict.fromkeys(FAILURE_CLASSES, 0.0) | {"store": 2.0}


def test_failure_classes() -> None:
    assert failure_class(LeaseLost("gone")) == "lease_lost"
    assert failure_class(LLMUnavailable("down")) == "llm"
    assert failure_class(StoreUnavailable("down")) == "store"
    assert failure_class(TimeoutError()) == "timeout"
    assert failure_class(ValueError("bug")) == "other"


async def test_taking_over_an_expired_lease_is_counted(db: Database, owner: Owner) -> None:
    engine = offline_engine(db)
    await engine.remember(owner, unit(SUSHI[0], 0), consolidate=False)
    assert await LeaseStore(db).wait_acquire(owner, "crashed-process", 0.001, 0)
    await asyncio.sleep(0.05)
    await engine.consolidate(owner)
    assert value(engine.metrics, "recmem_lease_takeovers_total") == 1.0
    # Its own lease, taken again, or a free one: no takeover.
    await engine.remember(owner, unit(SUSHI[1], 1), consolidate=False)
    await engine.consolidate(owner)
    assert value(engine.metrics, "recmem_lease_takeovers_total") == 1.0


async def test_a_sweep_pass_is_counted_with_the_users_it_queued(db: Database, owner: Owner) -> None:
    engine = offline_engine(db)
    await engine.remember(owner, unit(SUSHI[0], 0), consolidate=False)
    assert value(engine.metrics, "recmem_sweeper_passes_total") == 0.0
    found = await engine.sweep_once()
    assert found  # our user at least has unattended pending work (the batch may be full of others)
    assert value(engine.metrics, "recmem_sweeper_passes_total") == 1.0
    assert value(engine.metrics, "recmem_sweeper_users_total") == len(found)
    await engine.consolidate(owner)


async def test_metrics_endpoint_parses_and_names_no_user(db: Database) -> None:
    secret = uuid.uuid4().hex
    owner = Owner(f"tenant-{secret}", f"user-{secret}")
    engine = make_engine(db)
    app = create_app(AppSettings(), make_api_settings(), engine=engine)
    other = create_app(AppSettings(), make_api_settings(), engine=make_engine(db))  # its own registry
    async with app.router.lifespan_context(app), other.router.lifespan_context(other):
        await engine.remember(
            owner, Unit(text=f"text-{secret}", speaker=f"speaker-{secret}"), consolidate=False
        )
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            response = await http.get("/metrics")  # no API key
            ready = await http.get("/readyz")
        await engine.consolidate(owner)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert secret not in response.text
    families = {f.name: f for f in text_string_to_metric_families(response.text)}
    for name in (
        "recmem_pending_interactions",
        "recmem_pending_users",
        "recmem_pending_oldest_age_seconds",
        "recmem_consolidation_failures",
        "recmem_lease_takeovers",
        "recmem_sweeper_passes",
        "recmem_sweeper_users",
        "process_cpu_seconds",
        "python_info",
    ):
        assert name in families, name
    pending = families["recmem_pending_interactions"].samples[0].value
    assert pending >= 1 and not math.isnan(pending)
    classes = {s.labels["class"] for s in families["recmem_consolidation_failures"].samples}
    assert classes == set(FAILURE_CLASSES)
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready" and body["pending_interactions"] >= 1
    assert body["pending_oldest_age_seconds"] >= 0
    assert secret not in ready.text


async def test_metrics_can_be_turned_off(db: Database) -> None:
    async with app_client(db, metrics=False) as http:
        assert (await http.get("/metrics")).status_code == 404


async def test_backlog_gauges_are_nan_when_neo4j_does_not_answer(db: Database) -> None:
    engine = offline_engine(db)

    async def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("Neo4j is not reachable: scripted")

    # method-assign: replaced on this engine alone; a scripted outage of its store.
    engine.leases.backlog = down  # type: ignore[method-assign]
    try:
        await engine.backlog()
    except StoreUnavailable:
        pass
    else:
        raise AssertionError("the backlog read should have failed")
    assert math.isnan(value(engine.metrics, "recmem_pending_interactions"))
