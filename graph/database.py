"""The async Neo4j handle every repository uses: named statements, one database, counted round trips."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
    Record,
)
from neo4j.exceptions import (
    AuthError,
    DriverError,
    IncompleteCommit,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph.cypher import statement, statements_in
from graph.errors import (
    QueryFailed,
    StoreAuthFailed,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    WriteOutcomeUnknown,
)
from graph.settings import Neo4jSettings
from graph.timing import timed_statement

T = TypeVar("T")
# A read that meets a transient failure (a leader switch, a deadlock victim) is tried again.
READ_ATTEMPTS = 3
READ_RETRY_DELAY_S = 0.2
# A transaction that meets one is tried again with backoff from the first delay, doubling up to
# the last, for as long as the store's retry window (Neo4jSettings.retry_seconds) allows.
TX_RETRY_DELAY_S = 0.2
TX_RETRY_MAX_DELAY_S = 1.0
DEFAULT_RETRY_S = Neo4jSettings.model_fields["retry_seconds"].default
Row = dict[str, Any]


class Database:
    """Runs named Cypher statements (``cypher/<name>.cypher``) with parameters only."""

    def __init__(self, driver: AsyncDriver, name: str = "neo4j", *, retry_s: float = DEFAULT_RETRY_S) -> None:
        self.driver = driver
        self.name = name
        # The longest a statement is retried after transient failures before it raises: what
        # bounds a request's wait while Neo4j is unreachable.
        self.retry_s = retry_s
        # Counts statements sent, so tests can bound round trips (no N+1).
        self.round_trips = 0
        # Every session of this process shares bookmarks: on a cluster a read follows this
        # process's earlier writes (causal consistency); on a single server it costs nothing.
        self.bookmarks = AsyncGraphDatabase.bookmark_manager()

    def _session(self, mode: str) -> AsyncSession:
        return self.driver.session(
            database=self.name, default_access_mode=mode, bookmark_manager=self.bookmarks
        )

    @classmethod
    def connect(cls, settings: Neo4jSettings) -> Database:
        password = settings.resolved_password()
        auth = (settings.user, password) if password is not None else None
        driver = AsyncGraphDatabase.driver(
            settings.uri,
            auth=auth,
            connection_timeout=settings.connection_timeout_s,
            connection_acquisition_timeout=settings.acquisition_timeout_s,
            # The driver's own retries are off (one attempt, see _execute): they back off 1, 2,
            # 4, 8 s, so a request could wait a whole step past any window set here.
            max_transaction_retry_time=0.0,
            notifications_min_severity="OFF",
        )
        return cls(driver, settings.database, retry_s=settings.retry_seconds)

    async def close(self) -> None:
        await self.driver.close()

    async def ping(self) -> None:
        try:
            await self.driver.verify_connectivity()
        except (DriverError, Neo4jError, OSError) as error:
            raise translate(error) from error

    async def read(self, name: str, **params: Any) -> list[Row]:
        """One statement in an auto-commit read transaction: one round trip fewer than a managed
        transaction (no separate COMMIT), so transient failures are retried here instead."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.retry_s
        for attempt in range(READ_ATTEMPTS):
            self.round_trips += 1
            try:
                with timed_statement():
                    async with self._session(READ_ACCESS) as session:
                        result = await session.run(statement(name), params)
                        return [_row(record) async for record in result]
            except (ServiceUnavailable, SessionExpired, TransientError) as error:
                if attempt + 1 == READ_ATTEMPTS or loop.time() >= deadline:
                    raise translate(error) from error
                await asyncio.sleep(READ_RETRY_DELAY_S * (attempt + 1))
            except (DriverError, Neo4jError) as error:
                raise translate(error) from error
        raise AssertionError("unreachable")

    async def write(self, name: str, **params: Any) -> list[Row]:
        return await self._execute("write", lambda tx: run(tx, name, params))

    async def write_many(self, statements: list[tuple[str, dict[str, Any]]]) -> list[list[Row]]:
        """Several named statements, in order, in one transaction (one commit): all or none."""

        async def work(tx: AsyncManagedTransaction) -> list[list[Row]]:
            return [await run(tx, name, params) for name, params in statements]

        return await self._execute("write", work)

    async def write_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run ``work`` as one transaction: all of it commits, or none of it (retried if transient)."""
        return await self._execute("write", work)

    async def run_schema(self, folder: str, **params: Any) -> None:
        """Every statement of ``cypher/<folder>/`` in file order, each in its own auto-commit
        transaction: schema commands cannot share a transaction with data writes."""
        try:
            async with self.driver.session(database=self.name) as session:
                for _, text in statements_in(folder):
                    await (await session.run(text, params)).consume()
        except (DriverError, Neo4jError, OSError) as error:
            raise translate(error) from error

    async def _execute(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """`work` in a managed transaction, tried again after transient failures until the retry
        window closes. A failure raised here means nothing committed, except WriteOutcomeUnknown:
        the connection broke during COMMIT, which is never retried (`work` need not be
        idempotent, and a second run could apply it twice)."""

        async def counted(tx: AsyncManagedTransaction) -> T:
            self.round_trips += 1
            return await work(tx)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.retry_s
        delay = TX_RETRY_DELAY_S
        while True:
            try:
                with timed_statement():
                    return await self._transaction(mode, counted)
            except IncompleteCommit as error:
                raise translate(error) from error
            except (DriverError, Neo4jError) as error:
                remaining = deadline - loop.time()
                if not error.is_retryable() or remaining <= 0:
                    raise translate(error) from error
                # Jitter spreads out the writers that failed together (one restart).
                await asyncio.sleep(min(remaining, delay * random.uniform(0.5, 1.0)))  # noqa: S311
                delay = min(TX_RETRY_MAX_DELAY_S, delay * 2)

    async def _transaction(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """One attempt (the driver's retries are off, see connect)."""
        async with self._session(READ_ACCESS if mode == "read" else WRITE_ACCESS) as session:
            with _pipelined_begin(session):
                if mode == "read":
                    return await session.execute_read(work)
                return await session.execute_write(work)


def translate(error: DriverError | Neo4jError | OSError) -> StoreError:
    """The graph error for a driver error; the original stays attached as `__cause__`."""
    if isinstance(error, IncompleteCommit):  # before ServiceUnavailable, its base class
        return WriteOutcomeUnknown(f"the connection to Neo4j broke during COMMIT: {error}")
    if isinstance(error, ServiceUnavailable | SessionExpired | OSError):
        return StoreUnavailable(f"Neo4j is not reachable: {error}")
    if isinstance(error, TransientError):
        return StoreBusy(f"Neo4j could not complete the statement, retries exhausted: {error}")
    if isinstance(error, AuthError):
        return StoreAuthFailed(f"Neo4j refused the credentials: {error.message or error}")
    if isinstance(error, Neo4jError):
        return QueryFailed(error.message or str(error), error.code)
    return StoreError(f"Neo4j driver error: {error}")


def _pipelined_begin(session: AsyncSession) -> AbstractContextManager[None]:
    """BEGIN sent together with the transaction's first RUN, as the driver's own execute_query
    does, instead of waiting for its answer first: one round trip less per transaction (a write
    is then RUN and COMMIT), same managed-transaction semantics (a failed BEGIN fails that RUN).
    The flag is the driver's private one; a driver without it keeps the separate BEGIN."""
    flag = getattr(session, "_pipelined_begin", None)
    return flag if isinstance(flag, AbstractContextManager) else contextlib.nullcontext()


def _row(record: Record) -> Row:
    """Statements return maps and scalars, never graph entities, so the driver's recursive
    `Record.data()` conversion (a few ms per recall) has nothing to do."""
    return dict(zip(record.keys(), record, strict=True))


async def run(tx: AsyncManagedTransaction, name: str, params: dict[str, Any]) -> list[Row]:
    """Run one named statement inside an open transaction and return its rows as dicts."""
    result = await tx.run(statement(name), params)
    return [_row(record) async for record in result]
