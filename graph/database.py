"""The async Neo4j handle every repository uses: named statements, one database, counted round trips."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
    Query,
    Record,
    unit_of_work,
)
from neo4j.exceptions import (
    AuthError,
    ConnectionAcquisitionTimeoutError,
    DatabaseError,
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
    StoreFailed,
    StoreTimeout,
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
DEFAULT_STATEMENT_TIMEOUT_S = Neo4jSettings.model_fields["statement_timeout_s"].default
DEFAULT_PROBE_TIMEOUT_S = Neo4jSettings.model_fields["probe_timeout_s"].default
# The server's codes for a transaction it terminated at its timeout (rolled back: safe to retry).
TIMED_OUT_CODES = (
    "Neo.ClientError.Transaction.TransactionTimedOut",
    "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
)
# What Neo4j answers a `CREATE ... IF NOT EXISTS` that raced another creating the same rule.
EQUIVALENT_RULE_EXISTS = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
Row = dict[str, Any]
# The readiness probe: a real read transaction on the database.
PROBE = "queries/probes/ready"


class Database:
    """Runs named Cypher statements (``cypher/<name>.cypher``) with parameters only."""

    def __init__(
        self,
        driver: AsyncDriver,
        name: str = "neo4j",
        *,
        retry_s: float = DEFAULT_RETRY_S,
        statement_timeout_s: float = DEFAULT_STATEMENT_TIMEOUT_S,
        probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
    ) -> None:
        self.driver = driver
        self.name = name
        # The longest a statement is retried after transient failures before it raises: no
        # attempt starts after it. With the bound on one attempt (`statement_timeout_s`, on the
        # client and as the server's transaction timeout) it bounds a request's wait on Neo4j:
        # at most retry_s + statement_timeout_s, also when Neo4j is frozen or recovering.
        self.retry_s = retry_s
        self.statement_timeout_s = statement_timeout_s
        self.probe_timeout_s = probe_timeout_s
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
        return cls(
            driver,
            settings.database,
            retry_s=settings.retry_seconds,
            statement_timeout_s=settings.statement_timeout_s,
            probe_timeout_s=settings.probe_timeout_s,
        )

    async def close(self) -> None:
        await self.driver.close()

    async def ping(self, timeout_s: float | None = None) -> None:
        """A real read transaction on the database (`cypher/queries/probes/ready.cypher`), once,
        within `timeout_s` (default: the statement timeout; `/readyz` passes `probe_timeout_s`):
        raises StoreUnavailable (StoreTimeout past the bound, StoreFailed for a DatabaseError)
        when it fails. A connectivity check alone would pass on a server whose database refuses
        every transaction."""
        timeout_s = self.statement_timeout_s if timeout_s is None else timeout_s
        self.round_trips += 1
        try:
            async with asyncio.timeout(timeout_s):
                async with self._session(READ_ACCESS) as session:
                    result = await session.run(Query(statement(PROBE), timeout=timeout_s))
                    await result.consume()
        except TimeoutError as error:
            raise StoreTimeout(f"Neo4j did not answer a probe query within {timeout_s:g}s") from error
        except (DriverError, Neo4jError, OSError) as error:
            raise translate(error) from error

    async def read(self, name: str, **params: Any) -> list[Row]:
        """One statement in an auto-commit read transaction: one round trip fewer than a managed
        transaction (no separate COMMIT), so transient failures are retried here instead."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.retry_s
        query = Query(statement(name), timeout=self.statement_timeout_s)
        for attempt in range(READ_ATTEMPTS):
            self.round_trips += 1
            try:
                with timed_statement():
                    async with asyncio.timeout(self.statement_timeout_s):
                        async with self._session(READ_ACCESS) as session:
                            result = await session.run(query, in_utc(params))
                            return [_row(record) async for record in result]
            except (TimeoutError, DriverError, Neo4jError) as error:
                failure = self._failure(error, write=False, committing=False)
                if not _retryable(error) or attempt + 1 == READ_ATTEMPTS or loop.time() >= deadline:
                    raise failure from error
                await asyncio.sleep(READ_RETRY_DELAY_S * (attempt + 1))
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
        transaction: schema commands cannot share a transaction with data writes. Each is
        `IF NOT EXISTS`, so processes that create the schema of a fresh database at once all
        succeed: an equivalent rule created meanwhile counts as done, a transient failure (a
        deadlock between them) is tried again within the retry window of each statement."""
        loop = asyncio.get_running_loop()
        for _, text in statements_in(folder):
            deadline = loop.time() + self.retry_s
            delay = TX_RETRY_DELAY_S
            while True:
                try:
                    async with asyncio.timeout(self.statement_timeout_s):
                        async with self.driver.session(database=self.name) as session:
                            await (await session.run(text, params)).consume()
                    break
                except OSError as error:
                    raise translate(error) from error
                except (TimeoutError, DriverError, Neo4jError) as error:
                    if isinstance(error, Neo4jError) and error.code == EQUIVALENT_RULE_EXISTS:
                        break
                    failure = self._failure(error, write=False, committing=False)
                    delay = await _backoff(error, failure, deadline, delay)

    async def _execute(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """`work` in a managed transaction, tried again after transient failures (and attempts
        that ran out of time before COMMIT) until the retry window closes; each attempt bounded
        by `statement_timeout_s`. A failure raised here means nothing committed, except
        WriteOutcomeUnknown (the connection broke, the bound ran out or Neo4j failed with a
        DatabaseError during COMMIT), which is never retried (`work` need not be idempotent, and a
        second run could apply it twice)."""
        committing = False

        async def counted(tx: AsyncManagedTransaction) -> T:
            nonlocal committing
            self.round_trips += 1
            done = await work(tx)
            committing = True  # `work` returned: the driver sends COMMIT next
            return done

        bounded = unit_of_work(timeout=self.statement_timeout_s)(counted)  # the server's bound
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.retry_s
        delay = TX_RETRY_DELAY_S
        while True:
            committing = False
            try:
                with timed_statement():
                    async with asyncio.timeout(self.statement_timeout_s):  # the client's bound
                        return await self._transaction(mode, bounded)
            except (TimeoutError, DriverError, Neo4jError) as error:
                failure = self._failure(error, write=mode == "write", committing=committing)
                delay = await _backoff(error, failure, deadline, delay)

    def _failure(self, error: BaseException, *, write: bool, committing: bool) -> StoreError:
        """The graph error of a failed attempt. A write's outcome is unknown when the failure
        came with COMMIT in flight: a broken connection, the bound running out, or a
        DatabaseError (e.g. the transaction log could not be appended). Not for a refusal Neo4j
        answered as a client or transient error (it rolled back), nor for any failure before
        COMMIT was sent: without COMMIT an explicit transaction cannot commit."""
        if isinstance(error, TimeoutError):
            if write and committing:
                return WriteOutcomeUnknown(
                    f"Neo4j did not answer COMMIT within {self.statement_timeout_s:g}s: "
                    "the write may or may not be stored"
                )
            return StoreTimeout(f"Neo4j did not answer within {self.statement_timeout_s:g}s")
        assert isinstance(error, DriverError | Neo4jError)
        unanswered = isinstance(error, DriverError | DatabaseError)
        if write and committing and unanswered:
            if isinstance(error, IncompleteCommit):
                return translate(error)
            return WriteOutcomeUnknown(f"Neo4j failed a write, which may or may not be stored: {error}")
        return translate(error)

    async def _transaction(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """One attempt (the driver's retries are off, see connect)."""
        async with self._session(READ_ACCESS if mode == "read" else WRITE_ACCESS) as session:
            with _pipelined_begin(session):
                if mode == "read":
                    return await session.execute_read(work)
                return await session.execute_write(work)


async def _backoff(error: BaseException, failure: StoreError, deadline: float, delay: float) -> float:
    """Wait before the next attempt and return the delay after it, or raise `failure` when
    `error` is not worth another attempt or the retry window (ending at `deadline`) has closed."""
    remaining = deadline - asyncio.get_running_loop().time()
    if isinstance(failure, WriteOutcomeUnknown) or not _retryable(error) or remaining <= 0:
        raise failure from error
    # Jitter spreads out the writers that failed together (one restart).
    await asyncio.sleep(min(remaining, delay * random.uniform(0.5, 1.0)))  # noqa: S311
    return min(TX_RETRY_MAX_DELAY_S, delay * 2)


def _retryable(error: BaseException) -> bool:
    """Worth another attempt within the retry window: a transient failure, a lost connection,
    an attempt that ran out of time (on the client, or at the server's transaction timeout).
    Not a DatabaseError: such a server answers so until it is restarted."""
    if isinstance(error, TimeoutError | ConnectionAcquisitionTimeoutError):
        return True
    if isinstance(error, Neo4jError) and error.code in TIMED_OUT_CODES:
        return True
    return isinstance(error, DriverError | Neo4jError) and error.is_retryable()


def translate(error: DriverError | Neo4jError | OSError) -> StoreError:
    """The graph error for a driver error; the original stays attached as `__cause__`."""
    if isinstance(error, IncompleteCommit):  # before ServiceUnavailable, its base class
        return WriteOutcomeUnknown(f"the connection to Neo4j broke during COMMIT: {error}")
    if isinstance(error, ServiceUnavailable | SessionExpired | OSError):
        return StoreUnavailable(f"Neo4j is not reachable: {error}")
    if isinstance(error, ConnectionAcquisitionTimeoutError):
        return StoreTimeout(f"no connection to Neo4j could be had in time: {error}")
    if isinstance(error, DatabaseError):
        return StoreFailed(f"Neo4j failed (it may need a restart): {error.message or error}", error.code)
    if isinstance(error, Neo4jError) and error.code in TIMED_OUT_CODES:
        return StoreTimeout(f"Neo4j terminated the statement at its transaction timeout: {error.message}")
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
    result = await tx.run(statement(name), in_utc(params))
    return [_row(record) async for record in result]


def in_utc(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with each time among them (the bounds a caller gives: as_of, since, a filter's)
    as its UTC instant, as every stored time is: Neo4j orders two DateTimes of one instant by
    their offsets too (09:00Z is before, and not equal to, 14:00+05:00)."""
    return {
        k: v.astimezone(UTC) if isinstance(v, datetime) and v.tzinfo is not None else v
        for k, v in params.items()
    }
