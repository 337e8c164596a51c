"""The database floors: the Cypher statements a remember and a recall send (recorded from a real
engine call), sent again straight through the driver with the same parameters. A request can come
no closer to the database than this."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from neo4j import READ_ACCESS, AsyncManagedTransaction

from bench.service.client import BUDGETS, RECALL, REMEMBER, Client
from bench.service.load import remember_input
from bench.service.process import Target
from bench.service.profile import engine_settings
from bench.service.results import DriverFloors, Latency, ServerSplit, StatementsLatency
from bench.service.stats import summary
from bench.service.texts import Salads
from consolidation.engine import MemoryEngine
from consolidation.types import Budgets, Unit
from consolidation.wiring import build_engine
from graph.cypher import statement
from graph.database import Database, Row
from graph.models import Owner

WARM = 5
T = TypeVar("T")
Params = dict[str, Any]
Statement = tuple[str, Params]


class Timed(NamedTuple):
    """One interleaved HTTP request: its round trip, the service's Server-Timing metrics, and the
    floor measured right after it."""

    round_trip_ms: float
    timing: dict[str, float]
    floor_ms: float


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
    block: int = 1,
) -> DriverFloors:
    """The database's own time for one remember and one recall: no Database wrapper, engine,
    GraphQL or HTTP.

    With `http`, the floor samples alternate with the same requests over HTTP, `block` requests
    at a time (see _alternate): on a shared machine whose load moves by the minute, the two are
    then measured under the same load."""
    settings = engine_settings(target, embedder_kind, "background")
    db = RecordingDatabase.connect(settings.neo4j)
    assert isinstance(db, RecordingDatabase)
    engine = build_engine(db, settings)
    run = FloorRun({"n": n, "block": block}, db, engine, salads, n, http, block)
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
    block: int


# One step of a floor run: what the step is about (an index, a query) to a measurement in ms.
Step = Callable[[T], Awaitable[float]]
HttpStep = Callable[[T], float]


async def _alternate(
    run: FloorRun, items: list[T], http: HttpStep[T], floor: Step[T]
) -> tuple[list[float], list[Timed]]:
    """The floor of each item, and, with `run.http`, the same request over HTTP before it: in
    blocks of `run.block` requests, each block followed by its floors. Alternating every request
    (block 1) leaves the service's caches cold at each request (the bench and Neo4j ran in
    between) while the floor's process is always warm; blocks measure both sides warm, still under
    the same load. The first WARM items are not counted."""
    floors: list[float] = []
    timed: list[Timed] = []
    for first in range(0, len(items), run.block):
        chunk = items[first : first + run.block]
        trips: list[tuple[float, dict[str, float]]] = []
        if run.http is not None:
            for item in chunk:
                trips.append((http(item), run.http.last_timing))
        for offset, item in enumerate(chunk):
            floor_ms = await floor(item)
            if first + offset >= WARM:
                floors.append(floor_ms)
                if trips:
                    timed.append(Timed(*trips[offset], floor_ms))
    return floors, timed


async def _remember_floor(run: FloorRun, owner: Owner) -> None:
    statements: list[Statement] = []

    def remember_http(i: int) -> float:
        assert run.http is not None
        variables = {"input": remember_input(run.salads, f"{owner.user_id}-http", i, session="p")}
        return run.http.call(REMEMBER, variables)[1]

    async def write_floor(_: int) -> float:
        nonlocal statements
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
        return (time.perf_counter() - start) * 1000

    writes, remembers = await _alternate(run, list(range(run.n + WARM)), remember_http, write_floor)
    run.out["remember_write"] = _with_statements(summary(writes), [name for name, _ in statements])
    if remembers:
        run.out["remember_http_interleaved"] = summary([r.round_trip_ms for r in remembers])
        if split := server_split(remembers):
            run.out["remember_http_server_timing"] = split


async def _recall_floor(run: FloorRun, reader: Owner) -> None:
    names: list[str] = []

    def recall_http(query: str) -> float:
        assert run.http is not None
        asked: Params = {"userId": reader.user_id, "query": query, "budget": BUDGETS}
        return run.http.call(RECALL, asked)[1]

    async def read_floor(query: str) -> float:
        nonlocal names
        run.db.sent.clear()
        await run.engine.recall(reader, query, budgets=Budgets(**BUDGETS))
        grouped = waves(list(run.db.sent))
        names = [name for wave in grouped for name, _ in wave]
        start = time.perf_counter()
        for wave in grouped:
            await asyncio.gather(*(_driver_read(run.db, name, params) for name, params in wave))
        return (time.perf_counter() - start) * 1000

    queries = [run.salads.query() for _ in range(run.n + WARM)]
    reads, recalls = await _alternate(run, queries, recall_http, read_floor)
    if recalls:
        run.out["recall_http_interleaved"] = summary([r.round_trip_ms for r in recalls])
        if split := server_split(recalls):
            run.out["recall_http_server_timing"] = split
    run.out["recall_reads"] = _with_statements(summary(reads), names)
    run.out["recall_reads"]["note"] = (
        "statements issued together by the engine run together here too (the API "
        "checks the user, one more read, only when a recall finds nothing)"
    )


def server_split(samples: list[Timed]) -> ServerSplit | None:
    """Where each interleaved request's time went, by the service's Server-Timing header, each
    part's median over the samples (medians need not add up): outside the service (the client,
    the loopback, uvicorn before the first middleware), the service's own work, its Neo4j time,
    and that Neo4j time minus the floor measured right after (the same statements, sent bare)."""
    timed = [s for s in samples if {"neo4j", "app", "total"} <= s.timing.keys()]
    if not timed:
        return None

    def p50(values: list[float]) -> float:
        return round(statistics.median(values), 2)

    return {
        "n": len(timed),
        "round_trip_p50_ms": p50([s.round_trip_ms for s in timed]),
        "outside_service_p50_ms": p50([s.round_trip_ms - s.timing["total"] for s in timed]),
        "service_app_p50_ms": p50([s.timing["app"] for s in timed]),
        "service_neo4j_p50_ms": p50([s.timing["neo4j"] for s in timed]),
        "service_neo4j_over_floor_p50_ms": p50([s.timing["neo4j"] - s.floor_ms for s in timed]),
    }


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
