"""bench/service.py's concurrency sweep: N concurrent clients of single `remember` against one
`recmem serve`, for a fixed time each, topical texts, one tenant, a few users.

Per level: acknowledged writes per second, ack latency p50/p99, errors, and the check that every
acknowledged write is stored exactly once (its id found once in Neo4j, and nothing else stored for
those users). Each level writes to its own users, so the counts of one level are its own.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

REMEMBER = """mutation Remember($input: RememberInput!) {
  remember(input: $input) { created seq interaction { id } }
}"""
COUNT = """MATCH (i:Interaction {tenant: $tenant}) WHERE i.user_id IN $users
RETURN i.id AS id, i.user_id AS user, i.seq AS seq"""
USERS_PER_LEVEL = 4


class Topics:
    """Texts on a few topics a user keeps returning to (so the recurrence gate fires, as on a real
    stream), each with its own details so no two are equal."""

    TOPICS: ClassVar[dict[str, list[str]]] = {
        "sushi": ["the sushi place on {w}", "salmon nigiri for {n} people", "booking sushi at {n} pm"],
        "marathon": ["a {n} km long run on {w}", "marathon pace of {n}:30 per km", "new running shoes"],
        "garden": ["planting {n} tomato seedlings", "the garden bed by {w}", "watering roses at {n}"],
        "move": ["packing {n} boxes for the move", "the new flat on {w}", "movers booked for day {n}"],
        "piano": ["practising scales for {n} minutes", "the piano recital on {w}", "a Chopin nocturne"],
    }
    DAYS: ClassVar[list[str]] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def text(self) -> str:
        topic = self.rng.choice(list(self.TOPICS))
        parts = self.rng.sample(self.TOPICS[topic], 2)
        filled = [p.format(w=self.rng.choice(self.DAYS), n=self.rng.randint(2, 40)) for p in parts]
        return f"About {topic}: {filled[0]}, and {filled[1]}."


@dataclass
class Level:
    writers: int
    acked: dict[str, str] = field(default_factory=dict)  # interaction id -> user
    latencies_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0


async def _writer(
    base: str, key: str, users: list[str], index: int, until: float, level: Level, seed: int
) -> None:
    topics = Topics(seed)
    user = users[index % len(users)]
    headers = {"authorization": f"Bearer {key}", "accept": "application/json"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120) as http:
        while time.perf_counter() < until:
            variables = {
                "input": {"userId": user, "speaker": "user", "text": topics.text(), "sessionId": "s"}
            }
            start = time.perf_counter()
            try:
                response = await http.post("/graphql", json={"query": REMEMBER, "variables": variables})
                body = response.json()
            except httpx.HTTPError as error:
                level.errors[type(error).__name__] = level.errors.get(type(error).__name__, 0) + 1
                continue
            ms = (time.perf_counter() - start) * 1000
            if response.status_code != 200 or body.get("errors") or not body.get("data", {}).get("remember"):
                code = str(response.status_code)
                level.errors[code] = level.errors.get(code, 0) + 1
                continue
            level.latencies_ms.append(ms)
            level.acked[body["data"]["remember"]["interaction"]["id"]] = user


async def run_level(base: str, key: str, tenant: str, label: str, writers: int, seconds: float) -> Level:
    level = Level(writers)
    users = level_users(label, writers)
    start = time.perf_counter()
    until = start + seconds
    await asyncio.gather(
        *(
            _writer(base, key, users, i, until, level, hash((label, writers, i)) & 0xFFFF)
            for i in range(writers)
        )
    )
    level.wall_s = time.perf_counter() - start
    return level


async def stored_once(
    uri: str, password: str | None, tenant: str, level: Level, users: list[str]
) -> dict[str, Any]:
    """Every acknowledged id stored exactly once, nothing unacknowledged stored, seq exact per user."""
    from graph.database import Database
    from graph.settings import Neo4jSettings

    db = Database.connect(Neo4jSettings(uri=uri, password=password))
    try:
        # A check of the bench, not a statement of the service: run through the driver directly.
        result = await db.driver.execute_query(COUNT, tenant=tenant, users=users, database_=db.name)
        rows = [dict(r) for r in result.records]
    finally:
        await db.close()
    ids = [r["id"] for r in rows]
    seqs: dict[str, list[int]] = {}
    for row in rows:
        seqs.setdefault(row["user"], []).append(int(row["seq"]))
    exact = all(sorted(s) == list(range(1, len(s) + 1)) for s in seqs.values())
    return {
        "stored": len(ids),
        "distinct_stored": len(set(ids)),
        "acknowledged_missing": len(set(level.acked) - set(ids)),
        "stored_unacknowledged": len(set(ids) - set(level.acked)),
        "every_acknowledged_stored_once": len(ids) == len(set(ids)) == len(level.acked)
        and set(ids) == set(level.acked),
        "seq_exact_per_user": exact,
    }


def level_users(label: str, writers: int) -> list[str]:
    return [f"sweep-{label}-{writers}-u{i}" for i in range(min(writers, USERS_PER_LEVEL))]
