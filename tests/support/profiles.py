"""What a statement reads, from its profile: for tests that a statement seeks its user's nodes by
index and does not grow with other tenants' data or the user's whole history."""

from __future__ import annotations

from typing import Any

from graph.cypher import statement
from graph.database import Database


async def profiled(db: Database, name: str, **params: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """The statement's rows and (operator, details, db hits) of every operator of its profile."""
    result = await db.driver.execute_query("PROFILE " + statement(name), params, database_=db.name)
    profile = result.summary.profile
    assert profile is not None
    return [r.data() for r in result.records], list(_operators(profile))


def _operators(plan: dict[str, Any]) -> Any:
    name = str(plan.get("operatorType", "")).split("@")[0]
    yield name, str(plan.get("args", {}).get("Details", "")), int(plan.get("dbHits", 0))
    for child in plan.get("children", []):
        yield from _operators(child)


async def planned(db: Database, name: str, **params: Any) -> list[tuple[str, str]]:
    """(operator, details) of every operator of the statement's plan, by EXPLAIN: nothing runs, so
    any parameter values of the right types do."""
    result = await db.driver.execute_query("EXPLAIN " + statement(name), params, database_=db.name)
    return [(name, details) for name, details, _ in _operators(result.summary.plan)]
