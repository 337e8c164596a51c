"""The database floors: the Cypher statements a remember and a recall send (recorded from a real
engine call), sent again straight through the driver with the same parameters. A request can come
no closer to the database than this."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any, NamedTuple

from neo4j import READ_ACCESS, AsyncManagedTransaction

from bench.service.client import BUDGETS, RECALL, REMEMBER, Client
from bench.service.load import remember_input
from bench.service.process import Target
from bench.service.profile import engine_settings
from bench.service.results import DriverFloors, Latency, StatementsLatency
from bench.service.stats import summary
from bench.service.texts import Salads
from consolidation.engine import MemoryEngine
from consolidation.types import Budgets, Unit
from consolidation.wiring import build_engine
from graph.cypher import statement
from graph.database import Database, Row
from graph.models import Owner

WARM = 5
Params = dict[str, Any]
Statement = tuple[str, Params]


class Sent(NamedTuple):
    name: str
    params: Params
    start: float
    end: float


class RecordingDatabase(Database):
    """A Database that keeps every statement it sends, with its parameters and when it ran."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[Sent] = []

    async def read(self, name: str, **params: Any) -> list[Row]:
        start = time.perf_counter()
        rows = await super().read(name, **params)
        self.sent.append(Sent(name, params, start, time.perf_counter()))
        return rows

    async def write(self, name: str, **params: Any) -> list[Row]:
        start = time.perf_counter()
        rows = await super().write(name, **params)
        self.sent.append(Sent(name, params, start, time.perf_counter()))
        return rows


async def driver_floors(
    target: Target,
    embedder_kind: str,
    tenant: str,
    recall_user: str | None,
    salads: Salads,
    n: int,
    http: Client | None = None,
) -> DriverFloors:
    """The database's own time for one remember and one recall: no Database wrapper, engine,
    GraphQL or HTTP.

    With `http`, each floor sample follows the same request over HTTP: on a shared machine whose
    load moves by the minute, the two are then measured under the same load."""
    settings = engine_settings(target, embedder_kind, "background")
    db = RecordingDatabase.connect(settings.neo4j)
    assert isinstance(db, RecordingDatabase)
    engine = build_engine(db, settings)
    run = FloorRun({"n": n}, db, engine, salads, n, http)
    try:
        await _remember_floor(run, Owner(tenant=tenant, user_id=f"floor-{uuid.uuid4().hex[:6]}"))
        if recall_user is not None:
            await _recall_floor(run, Owner(tenant=tenant, user_id=recall_user))
        return run.out
    finally:
        await db.close()


@dataclass
class FloorRun:
    """What both floors measure with, and `out`, which they fill."""

    out: DriverFloors
    db: RecordingDatabase
    engine: MemoryEngine
    salads: Salads
    n: int
    http: Client | None


async def _remember_floor(run: FloorRun, owner: Owner) -> None:
    writes: list[float] = []
    remembers: list[float] = []
    remember_http = 0.0
    statements: list[Statement] = []
    for i in range(run.n + WARM):
        if run.http is not None:
            variables = {"input": remember_input(run.salads, f"{owner.user_id}-http", i, session="p")}
            remember_http = run.http.call(REMEMBER, variables)[1]
        run.db.sent.clear()
        # What the service sends for a single remember (its generated sourceRef included).
        unit = Unit(
            text=run.salads.text(), speaker="user", session_id="p", source_ref=f"recmem:{uuid.uuid4()}"
        )
        await run.engine.remember(owner, unit, consolidate=False)
        statements = [(sent.name, sent.params) for sent in run.db.sent]
        fresh = [(name, fresh_ids(params)) for name, params in statements]
        start = time.perf_counter()
        await _driver_write(run.db, fresh)
        if i >= WARM:
            writes.append((time.perf_counter() - start) * 1000)
            if run.http is not None:
                remembers.append(remember_http)
    run.out["remember_write"] = _with_statements(summary(writes), [name for name, _ in statements])
    if remembers:
        run.out["remember_http_interleaved"] = summary(remembers)


async def _recall_floor(run: FloorRun, reader: Owner) -> None:
    reads: list[float] = []
    names: list[str] = []
    recalls: list[float] = []
    recall_http = 0.0
    for i in range(run.n + WARM):
        query = run.salads.query()
        if run.http is not None:
            asked: Params = {"userId": reader.user_id, "query": query, "budget": BUDGETS}
            recall_http = run.http.call(RECALL, asked)[1]
        run.db.sent.clear()
        await run.engine.recall(reader, query, budgets=Budgets(**BUDGETS))
        grouped = waves(list(run.db.sent))
        names = [name for wave in grouped for name, _ in wave]
        start = time.perf_counter()
        for wave in grouped:
            await asyncio.gather(*(_driver_read(run.db, name, params) for name, params in wave))
        if i >= WARM:
            reads.append((time.perf_counter() - start) * 1000)
            if run.http is not None:
                recalls.append(recall_http)
    if recalls:
        run.out["recall_http_interleaved"] = summary(recalls)
    run.out["recall_reads"] = _with_statements(summary(reads), names)
    run.out["recall_reads"]["note"] = (
        "statements issued together by the engine run together here too (the API "
        "checks the user, one more read, only when a recall finds nothing)"
    )


def _with_statements(latency: Latency, names: list[str]) -> StatementsLatency:
    with_names: StatementsLatency = {
        "n": latency["n"],
        "p50_ms": latency["p50_ms"],
        "p90_ms": latency["p90_ms"],
        "p99_ms": latency["p99_ms"],
        "mean_ms": latency["mean_ms"],
        "max_ms": latency["max_ms"],
        "statements": names,
    }
    return with_names


def waves(sent: list[Sent] | list[tuple[str, Params, float, float]]) -> list[list[Statement]]:
    """Statements grouped as the engine ran them: one that started before every statement of the
    current wave had finished ran side by side with it."""
    grouped: list[list[Statement]] = []
    first_end = float("-inf")
    for name, params, start, end in sorted(sent, key=lambda r: r[2]):
        if grouped and start < first_end:
            grouped[-1].append((name, params))
            first_end = min(first_end, end)
        else:
            grouped.append([(name, params)])
            first_end = end
    return grouped


def fresh_ids(params: Params) -> Params:
    """The write's parameters with new interaction ids and sourceRefs (ids are unique)."""
    rows = [
        r | {"id": f"int_{uuid.uuid4().hex}", "source_ref": f"recmem:{uuid.uuid4()}"} for r in params["rows"]
    ]
    return params | {"rows": rows}


async def _driver_write(db: Database, statements: list[Statement]) -> None:
    async def work(tx: AsyncManagedTransaction) -> None:
        for name, params in statements:
            await (await tx.run(statement(name), params)).consume()

    async with db.driver.session(database=db.name) as session:
        await session.execute_write(work)


async def _driver_read(db: Database, name: str, params: Params) -> None:
    async with db.driver.session(database=db.name, default_access_mode=READ_ACCESS) as session:
        result = await session.run(statement(name), params)
        _ = [record async for record in result]
