"""What may have been written: a count that the runner reads after every case."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import httpx

from bench.fuzz.case import USERS

# Counts what may have been written: the tenant's nodes (from Neo4j) or its users' interactions
# (through the API, `api_probe`).
WriteProbe = Callable[[], Awaitable[int]]
STATS = (
    "{ "
    + " ".join(f"u{i}: user(id: {json.dumps(u)}) {{ stats {{ interactions }} }}" for i, u in enumerate(USERS))
    + " }"
)


def api_probe(http: httpx.AsyncClient, key: str) -> WriteProbe:
    """The interactions of USERS, read through the API with the fuzz's own key."""

    async def probe() -> int:
        response = await http.post(
            "/graphql", json={"query": STATS}, headers={"authorization": f"Bearer {key}"}
        )
        data = response.json()["data"]
        return sum(int(user["stats"]["interactions"]) for user in data.values() if user)

    return probe
