"""Pieces of the fault-injection tests (tests/system/test_faults.py, tests/system/test_outage_shape.py): a
private Neo4j, `recmem serve` subprocesses, a sweeper scoped to one tenant, driver failures
injected at the storage boundary, and the graph's all-or-nothing invariants.

Every process started here is stopped by the context manager that started it, on every path.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import signal
import time
from collections.abc import Awaitable, Callable, Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction
from neo4j.exceptions import IncompleteCommit, ServiceUnavailable

from consolidation.engine import MemoryEngine
from graph.database import Database
from graph.local_server import LocalNeo4j
from graph.models import Owner
from graph.settings import Neo4jSettings
from harness.serve_process import ServeProcess, serving
from harness.serve_process import free_port as free_port
from harness.serve_process import free_ports as free_ports
from tests.support.serve import serve_env

# What the fault tests call the service process they start.
Service = ServeProcess

SERVICE_READY_S = 90.0
T = TypeVar("T")


# -- a private Neo4j, which a test may kill --------------------------------------------------------


def private_neo4j_settings(home: Path, port: int) -> Neo4jSettings:
    """A Neo4j of the test's own, in `home` on `port` (never the session's shared one; draw it
    with the service's port from one `free_ports`, so that the two differ).

    Without auth (Bolt on loopback only): a service can then be started before the server's
    first start, which would generate the password."""
    return Neo4jSettings(
        uri=f"bolt://127.0.0.1:{port}",
        password=None,
        home=home,
        port=port,
        heap="512m",
        pagecache="64m",
        auth_enabled=False,
    )


@contextmanager
def private_neo4j(settings: Neo4jSettings) -> Iterator[LocalNeo4j]:
    """Started, and SIGKILLed on leaving: the throwaway database needs no clean shutdown."""
    server = LocalNeo4j(settings)
    try:
        server.start(timeout_s=120.0)
        yield server
    finally:
        if server.status().running:
            sigkill_neo4j(server)
        server.stop()  # removes the pid file


def sigkill_neo4j(server: LocalNeo4j, timeout_s: float = 30.0) -> int:
    """SIGKILL the server's JVM (no shutdown, no checkpoint) and wait until it is gone."""
    pid = server.status().pid
    assert pid is not None, "the private Neo4j is not running"
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout_s
    while server.status().running:
        assert time.monotonic() < deadline, f"neo4j pid {pid} survived SIGKILL"
        time.sleep(0.05)
    return pid


# -- `recmem serve` as a real process (harness/serve_process.py) --------------------------------------


def service_env(neo4j: Neo4jSettings, port: int, **extra: str) -> dict[str, str]:
    """The environment of a service on `neo4j`, without rate limiting (tests/support/serve.py)."""
    return serve_env(neo4j, port, **({"RECMEM_API_RATE_LIMIT_PER_S": "0"} | extra))


def running_service(
    env: dict[str, str], workdir: Path, name: str = "serve", *, wait: bool = True
) -> AbstractContextManager[Service]:
    """`recmem serve` with `env` (ready, unless not `wait`); stopped (SIGTERM, then SIGKILL) on
    leaving, however."""
    ready_within_s = SERVICE_READY_S if wait else None
    return serving(env, workdir, f"{name}.log", ready_within_s=ready_within_s, stop_within_s=30.0)


# -- driver failures at the storage boundary ----------------------------------------------------

Fault = Literal["refused", "lost", "stalled"]
# The statement being written, per task: the app's background work writes other statements
# concurrently, and only the interactions' write is armed.
_STATEMENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("statement", default=None)


class FaultyDatabase(Database):
    """A Database on another's driver whose interactions' write fails, once armed, with the real
    driver exceptions, at each attempt (graph/database.py retries within its window):

    - "refused": before anything is sent (ServiceUnavailable, as for Neo4j down): not written;
    - "lost": after a real COMMIT, its answer lost (IncompleteCommit): written, unknown to the
      caller;
    - "stalled": after a real COMMIT, never answering (until a request timeout cancels it).

    `after` attempts pass first; `attempts` counts the armed ones."""

    WRITE = "queries/interactions/write_batch"

    def __init__(self, db: Database, *, retry_s: float) -> None:
        super().__init__(db.driver, db.name, retry_s=retry_s)
        self.fault: Fault | None = None
        self.spared = 0
        self.attempts = 0

    def arm(self, fault: Fault | None, *, after: int = 0) -> None:
        self.fault, self.spared, self.attempts = fault, after, 0

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        token = _STATEMENT.set(name)
        try:
            return await super().write(name, **params)
        finally:
            _STATEMENT.reset(token)

    async def _transaction(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        if self.fault is None or _STATEMENT.get() != self.WRITE:
            return await super()._transaction(mode, work)
        if self.spared > 0:
            self.spared -= 1
            return await super()._transaction(mode, work)
        self.attempts += 1
        if self.fault == "refused":
            raise ServiceUnavailable("injected: Couldn't connect to 127.0.0.1:7687 (connection refused)")
        result = await super()._transaction(mode, work)
        if self.fault == "lost":
            raise IncompleteCommit("injected: the connection broke while waiting for COMMIT's answer")
        await asyncio.sleep(3600)
        return result


# -- engines and the graph -----------------------------------------------------------------------


def scope_sweeper(engine: MemoryEngine, tenant: str) -> None:
    """The shared database holds other tests' pending users: this engine sweeps only `tenant`, for
    unattended work and for batches whose session has ended alike."""
    unattended, due_users = engine.stores.leases.unattended, engine.stores.waiting.due_users

    async def scoped(limit: int, skip: Collection[Owner] = ()) -> list[Owner]:
        return [o for o in await unattended(100_000, skip) if o.tenant == tenant][:limit]

    async def scoped_due(limit: int, quiet_s: float, skip: Collection[Owner] = ()) -> list[Owner]:
        return [o for o in await due_users(100_000, quiet_s, skip) if o.tenant == tenant][:limit]

    # method-assign: replaced on this engine's stores alone, which see only its tenant's users.
    engine.stores.leases.unattended = scoped  # type: ignore[method-assign]
    engine.stores.waiting.due_users = scoped_due  # type: ignore[method-assign]


async def until(check: Callable[[], Awaitable[bool]], deadline_s: float, what: str) -> None:
    """Poll `check` until it holds, for at most `deadline_s` (generous: a loaded machine passes)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    while not await check():
        assert loop.time() < end, f"timed out after {deadline_s:.0f}s waiting for {what}"
        await asyncio.sleep(0.1)


async def query(driver: AsyncDriver, cypher: str, **params: Any) -> list[dict[str, Any]]:
    result = await driver.execute_query(cypher, params, database_="neo4j")
    return [dict(r) for r in result.records]


async def tenant_counts(driver: AsyncDriver, tenant: str) -> dict[str, int]:
    rows = await query(
        driver,
        """MATCH (n:Interaction {tenant: $t})
           WITH count(n) AS interactions, count(CASE WHEN NOT n.gate_checked THEN 1 END) AS pending,
                count(CASE WHEN n.consolidated THEN 1 END) AS consolidated
           OPTIONAL MATCH (e:Episode {tenant: $t})
           WITH interactions, pending, consolidated, count(e) AS episodes
           OPTIONAL MATCH (f:Fact {tenant: $t})
           WITH interactions, pending, consolidated, episodes, count(f) AS facts
           OPTIONAL MATCH (r:ConsolidationRun {tenant: $t}) WHERE r.status <> 'ok'
           RETURN interactions, pending, consolidated, episodes, facts, count(r) AS failed_runs""",
        t=tenant,
    )
    return {k: int(v) for k, v in rows[0].items()}


async def half_written(driver: AsyncDriver, tenant: str, *, facts_expected: bool) -> list[str]:
    """What a consolidation committed only in part: an episode with no sources (or, when the
    consolidator always states facts, none), a consolidated interaction no current episode
    reaches, an interaction in a current episode left pending, or one in two current episodes."""
    problems: list[str] = []
    checks = {
        "episode without DERIVED_FROM sources": """
            MATCH (e:Episode {tenant: $t}) WHERE NOT (e)-[:DERIVED_FROM]->(:Interaction)
            RETURN e.id AS id""",
        "consolidated interaction in no current episode": """
            MATCH (i:Interaction {tenant: $t}) WHERE i.consolidated
              AND NOT (:Episode {current: true})-[:DERIVED_FROM]->(i)
            RETURN i.id AS id""",
        "interaction of a current episode not marked consolidated": """
            MATCH (:Episode {tenant: $t, current: true})-[:DERIVED_FROM]->(i:Interaction)
            WHERE NOT coalesce(i.consolidated, false) OR NOT i.gate_checked
            RETURN DISTINCT i.id AS id""",
        "interaction in two current episodes": """
            MATCH (e:Episode {tenant: $t, current: true})-[:DERIVED_FROM]->(i:Interaction)
            WITH i, count(e) AS n WHERE n > 1 RETURN i.id AS id""",
    }
    if facts_expected:
        checks["current episode without facts"] = """
            MATCH (e:Episode {tenant: $t, current: true})
            WHERE NOT (:Fact)-[:DERIVED_FROM]->(e) AND NOT EXISTS {
              MATCH (e)-[:SUPERSEDES*]->(:Episode)<-[:DERIVED_FROM]-(:Fact) }
            RETURN e.id AS id"""
    for problem, cypher in checks.items():
        ids = [row["id"] for row in await query(driver, cypher, t=tenant)]
        if ids:
            problems.append(f"{problem}: {ids}")
    return problems
