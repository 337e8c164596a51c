"""The async Neo4j handle every repository uses: named statements, one database, counted round trips."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graph.cypher import statement
from graph.errors import StoreUnavailable
from graph.settings import Neo4jSettings

T = TypeVar("T")
Row = dict[str, Any]


class Database:
    """Runs named Cypher statements (``cypher/<name>.cypher``) with parameters only."""

    def __init__(self, driver: AsyncDriver, name: str = "neo4j") -> None:
        self.driver = driver
        self.name = name
        # Counts statements sent, so tests can bound round trips (no N+1).
        self.round_trips = 0

    @classmethod
    def connect(cls, settings: Neo4jSettings) -> Database:
        password = settings.resolved_password()
        auth = (settings.user, password) if password is not None else None
        driver = AsyncGraphDatabase.driver(
            settings.uri,
            auth=auth,
            connection_timeout=settings.connection_timeout_s,
            max_transaction_retry_time=15.0,
            notifications_min_severity="OFF",
        )
        return cls(driver, settings.database)

    async def close(self) -> None:
        await self.driver.close()

    async def ping(self) -> None:
        try:
            await self.driver.verify_connectivity()
        except (ServiceUnavailable, SessionExpired, OSError) as error:
            raise StoreUnavailable(f"Neo4j is not reachable: {error}") from error

    async def read(self, name: str, **params: Any) -> list[Row]:
        return await self._execute("read", lambda tx: run(tx, name, params))

    async def write(self, name: str, **params: Any) -> list[Row]:
        return await self._execute("write", lambda tx: run(tx, name, params))

    async def write_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run ``work`` as one transaction: all of it commits, or none of it (retried if transient)."""
        return await self._execute("write", work)

    async def read_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        return await self._execute("read", work)

    async def _execute(self, mode: str, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        async def counted(tx: AsyncManagedTransaction) -> T:
            self.round_trips += 1
            return await work(tx)

        try:
            async with self.driver.session(database=self.name) as session:
                if mode == "read":
                    return await session.execute_read(counted)
                return await session.execute_write(counted)
        except (ServiceUnavailable, SessionExpired) as error:
            raise StoreUnavailable(f"Neo4j is not reachable: {error}") from error


async def run(tx: AsyncManagedTransaction, name: str, params: dict[str, Any]) -> list[Row]:
    """Run one named statement inside an open transaction and return its rows as dicts."""
    result = await tx.run(statement(name), params)
    return [record.data() async for record in result]
