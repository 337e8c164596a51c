"""Server-Timing on /graphql (api/middleware/server_timing.py): the time waiting for Neo4j, the
rest of the request, and the total; statements that run side by side count once."""

from __future__ import annotations

import asyncio
import re

import httpx

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.database import Database
from graph.timing import StatementClock, statement_clock, timed_statement
from tests.support.api import Caller, app_client, new_caller
from tests.support.engines import DIMENSION, engine_settings

RECALL = 'query { recall(userId: "u", query: "sailing in the harbour") { subconscious { score } } }'
TIMING = re.compile(r'^neo4j;dur=([\d.]+);desc="(\d+) statements?", app;dur=([\d.]+), total;dur=([\d.]+)$')


def _timing(response: httpx.Response) -> tuple[float, int, float, float]:
    found = TIMING.match(response.headers["server-timing"])
    assert found is not None, response.headers["server-timing"]
    neo4j, count, app, total = found.groups()
    return float(neo4j), int(count), float(app), float(total)


def test_overlapping_statements_count_once() -> None:
    clock = StatementClock([(0.0, 2.0), (1.0, 3.0), (5.0, 6.0), (5.5, 5.7)])
    assert clock.busy_s() == 4.0
    assert StatementClock().busy_s() == 0.0


async def test_statements_of_tasks_a_request_starts_land_on_its_clock() -> None:
    async def statement() -> None:
        with timed_statement():
            await asyncio.sleep(0.05)

    with statement_clock() as clock:
        await asyncio.gather(statement(), statement())
    assert clock.statements == 2
    # Side by side: about one statement's time, not two.
    assert 0.045 <= clock.busy_s() < 0.095
    await statement()  # the block is over: its clock records nothing more
    assert clock.statements == 2


async def test_a_task_that_outlives_its_request_adds_nothing_to_it() -> None:
    finished = asyncio.Event()

    async def later() -> None:
        await asyncio.sleep(0.02)
        with timed_statement():
            await asyncio.sleep(0)
        finished.set()

    with statement_clock() as clock:
        task = asyncio.create_task(later())  # carries the clock in its context
    await finished.wait()
    await task
    assert clock.statements == 0


async def test_writes_that_share_a_commit_each_count_it(db: Database) -> None:
    # Background mode: a remember's only statement of its own is then its write.
    settings = engine_settings(consolidation_mode="background")
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
    async with app_client(db, engine) as http:
        caller = await new_caller(db, http)
        remember = 'mutation($t: String!) { remember(input: {userId: "u", text: $t}) { created } }'
        sent = await asyncio.gather(*(caller.post(remember, {"t": f"turn {i}"}) for i in range(6)))
    assert all(r.status_code == 200 and "errors" not in r.json() for r in sent)
    assert engine.writes.stats.largest > 1, "the writes did not share a commit"
    # Each: its key lookup and the commit that holds its write, whichever request started it.
    assert [_timing(r)[1] for r in sent] == [2] * 6


async def test_a_recall_reports_its_neo4j_time_apart_from_the_rest(caller: Caller) -> None:
    await caller.gql(
        'mutation { remember(input: {userId: "u", text: "sailing in the harbour"}) { created } }'
    )
    ping = await caller.post("{ __typename }")
    recall = await caller.post(RECALL)
    assert ping.status_code == recall.status_code == 200, recall.text
    _, ping_statements, _, _ = _timing(ping)
    neo4j, statements, app, total = _timing(recall)
    # The key lookup (no key cache in the tests) is the ping's only statement; a recall adds its reads.
    assert ping_statements == 1
    assert statements > ping_statements
    assert 0 < neo4j <= total and abs(neo4j + app - total) <= 0.02


async def test_a_refused_request_is_timed_too(client: httpx.AsyncClient) -> None:
    refused = await client.post("/graphql", json={"query": "{ __typename }"})
    assert refused.status_code == 401
    assert _timing(refused)[1] == 0  # refused before any key lookup: no bearer token at all


async def test_server_timing_can_be_turned_off(db: Database) -> None:
    async with app_client(db, server_timing=False) as http:
        response = await (await new_caller(db, http)).post("{ __typename }")
    assert response.status_code == 200 and "server-timing" not in response.headers
