"""What a statement reads, from its profile: for tests that a statement seeks its user's nodes by
index and does not grow with other tenants' data or the user's whole history."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graph.cypher import statement
from graph.database import Database, Row, in_utc


async def profiled(db: Database, name: str, **params: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """The statement's rows and (operator, details, db hits) of every operator of its profile."""
    result = await db.driver.execute_query("PROFILE " + statement(name), params, database_=db.name)
    profile = result.summary.profile
    assert profile is not None
    return [r.data() for r in result.records], operators_of(profile)


def operators_of(plan: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(operator, details, db hits) of every operator of a plan or profile."""
    return list(_operators(plan))


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str, int]]:
    name = str(plan.get("operatorType", "")).split("@")[0]
    yield name, str(plan.get("args", {}).get("Details", "")), int(plan.get("dbHits", 0))
    for child in plan.get("children", []):
        yield from _operators(child)


async def planned(db: Database, name: str, **params: Any) -> list[tuple[str, str]]:
    """(operator, details) of every operator of the statement's plan, by EXPLAIN: nothing runs, so
    any parameter values of the right types do."""
    result = await db.driver.execute_query("EXPLAIN " + statement(name), params, database_=db.name)
    plan = result.summary.plan
    assert plan is not None
    return [(name, details) for name, details, _ in _operators(plan)]


def assert_read_by(operators: list[Any], *indexes: str) -> None:
    """Every node the plan starts from comes from one of `indexes` ("Fact(tenant, user_id, status)",
    or a prefix such as "Fact(tenant, user_id" for any index keyed by the owner): a seek, or where
    the statistics say the index holds few entries a scan of it; never a scan of a label or of every
    node. `operators` are `profiled`'s or `planned`'s."""
    reads = [(op[0], op[1]) for op in operators if "Scan" in op[0] or "Seek" in op[0]]
    assert reads, operators
    for name, details in reads:
        assert any(f":{index}" in details for index in indexes), (name, details, operators)


class Profiled(Database):
    """The session's database, profiling every statement sent by `read` and `write`: the name and
    profile of each, in order (transactions run by `write_transaction` are not profiled)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.driver, db.name)
        self.profiles: list[tuple[str, dict[str, Any]]] = []

    async def read(self, name: str, **params: Any) -> list[Row]:
        return await self._profiled(name, params)

    async def write(self, name: str, **params: Any) -> list[Row]:
        return await self._profiled(name, params)

    async def _profiled(self, name: str, params: dict[str, Any]) -> list[Row]:
        result = await self.driver.execute_query(
            "PROFILE " + statement(name), in_utc(params), database_=self.name
        )
        assert result.summary.profile is not None
        self.profiles.append((name, result.summary.profile))
        return [dict(zip(r.keys(), r, strict=True)) for r in result.records]

    def db_hits(self, name: str | None = None) -> int:
        """The db hits of every statement sent (of those named `name`)."""
        return sum(_hits(p) for n, p in self.profiles if name in (None, n))

    def rows_read(self, name: str, label: str) -> int:
        """The rows that the scans and seeks of `label`'s nodes produced, over every statement
        named `name`: how many times its nodes were read."""
        return sum(_rows_read(p, label) for n, p in self.profiles if n == name)


def _hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(_hits(c) for c in plan.get("children", []))


def _rows_read(plan: dict[str, Any], label: str) -> int:
    name, details = str(plan.get("operatorType", "")), str(plan.get("args", {}).get("Details", ""))
    own = int(plan.get("rows", 0)) if ("Scan" in name or "Seek" in name) and f":{label}" in details else 0
    return own + sum(_rows_read(c, label) for c in plan.get("children", []))
