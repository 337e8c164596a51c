"""The concurrency sweep: N concurrent clients of single `remember` against one `recmem serve`, for
a fixed time each, topical texts, one tenant, a few users; with group commit on, then off.

Per level: acknowledged writes per second, ack latency p50/p99, errors, and the check that every
acknowledged write is stored exactly once (its id found once in Neo4j, and nothing else stored for
those users). Each level writes to its own users, so the counts of one level are its own.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import httpx

from bench.machine import loadavg
from bench.service.process import Target, cpu_meter, create_key, neo4j_pid, running_service
from bench.service.results import StoredCheck, Sweep, SweepLevel, SweepVariant
from bench.service.stats import log, summary
from graph.cypher import statement
from graph.database import Database
from graph.settings import Neo4jSettings

REMEMBER = """mutation Remember($input: RememberInput!) {
  remember(input: $input) { created seq interaction { id } }
}"""
USERS_PER_LEVEL = 4


@dataclass(frozen=True)
class SweepPlan:
    """What the command line asks of the sweep."""

    levels: list[int]
    seconds: float
    group_commit_ms: float
    compare: bool
    max_batch: int


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

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


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
                level.error(type(error).__name__)
                continue
            ms = (time.perf_counter() - start) * 1000
            if response.status_code != 200 or body.get("errors") or not body.get("data", {}).get("remember"):
                level.error(str(response.status_code))
                continue
            level.latencies_ms.append(ms)
            level.acked[body["data"]["remember"]["interaction"]["id"]] = user


async def run_level(
    bases: Sequence[str], key: str, tenant: str, label: str, writers: int, seconds: float
) -> Level:
    """`writers` clients for `seconds` against one service or more. Writer i writes user i % U; each
    next U writers use the next base, so with 2U writers and two bases every user is written
    through both processes."""
    level = Level(writers)
    users = level_users(label, writers)
    start = time.perf_counter()
    until = start + seconds

    def base(i: int) -> str:
        return bases[(i // len(users)) % len(bases)]

    await asyncio.gather(
        *(
            _writer(base(i), key, users, i, until, level, hash((label, writers, i)) & 0xFFFF)
            for i in range(writers)
        )
    )
    level.wall_s = time.perf_counter() - start
    return level


async def stored_once(
    uri: str, password: str | None, tenant: str, level: Level, users: list[str]
) -> StoredCheck:
    """Every acknowledged id stored exactly once, nothing unacknowledged stored, seq exact per user."""
    db = Database.connect(Neo4jSettings(uri=uri, password=password))
    try:
        # A check of the bench, not a statement of the service: run through the driver directly.
        result = await db.driver.execute_query(
            statement("queries/bench/stored_interactions"), tenant=tenant, users=users, database_=db.name
        )
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


def concurrency_sweep(plan: SweepPlan, target: Target, embedder: str, workdir: Path) -> Sweep:
    """1, 2, 4, ... concurrent writers of single remember, with group commit on and then off."""
    tenant = f"sweep-{embedder}-{uuid.uuid4().hex[:8]}"
    key = create_key(target, tenant)
    out: Sweep = {
        "writers": plan.levels,
        "seconds_per_level": plan.seconds,
        "tenant_users_per_level": f"one tenant, min(writers, {USERS_PER_LEVEL}) users",
        "texts": "topical (5 topics a user keeps returning to), so the background gate fires",
        "consolidation_mode": "background (offline consolidator: no LLM)",
        "client": "httpx.AsyncClient per writer in one process (asyncio), keep-alive",
        "runs": {},
    }
    variants = {"group_commit": plan.group_commit_ms, "no_group_commit": 0.0}
    if not plan.compare:
        variants.pop("no_group_commit")
    for label, wait_ms in variants.items():
        out["runs"][label] = _variant(plan, target, embedder, workdir, tenant, key, label, wait_ms)
    return out


def _variant(
    plan: SweepPlan,
    target: Target,
    embedder: str,
    workdir: Path,
    tenant: str,
    key: str,
    label: str,
    wait_ms: float,
) -> SweepVariant:
    extra = {"RECMEM_GROUP_COMMIT_WAIT_MS": str(wait_ms)}
    with running_service(target, embedder, "background", plan.max_batch, workdir, extra_env=extra) as service:
        pids = {"service": service.process.pid, "neo4j": neo4j_pid(target.home, None), "client": os.getpid()}
        rows: list[SweepLevel] = []
        for writers in plan.levels:
            log(f"[sweep {label}] {writers} writers x {plan.seconds:g} s")
            rows.append(_level(plan, target, service.base, pids, tenant, key, label, writers))
            log(
                f"  {rows[-1]['per_s']}/s, ack p50 {rows[-1]['ack']['p50_ms']} ms, stored once: "
                f"{rows[-1]['every_acknowledged_stored_once']}"
            )
    one = next((r["per_s"] for r in rows if r["writers"] == 1), None)
    for row in rows:
        row["vs_one_writer"] = round(row["per_s"] / one, 2) if one else None
    return {"group_commit_wait_ms": wait_ms, "levels": rows}


def _level(
    plan: SweepPlan,
    target: Target,
    base: str,
    pids: dict[str, int | None],
    tenant: str,
    key: str,
    label: str,
    writers: int,
) -> SweepLevel:
    with cpu_meter(pids, 1) as cpu:
        level = asyncio.run(run_level([base], key, tenant, label, writers, plan.seconds))
    acked_n = max(len(level.acked), 1)
    cpu_ms = {k: round(v / acked_n, 2) for k, v in cpu.per_op.items() if v is not None}
    check = asyncio.run(stored_once(target.uri, target.password, tenant, level, level_users(label, writers)))
    acked = len(level.acked)
    return {
        "writers": writers,
        "acknowledged": acked,
        "per_s": round(acked / level.wall_s, 1),
        "ack": summary(level.latencies_ms),
        "errors": level.errors,
        "cpu_ms_per_write": cpu_ms,
        "load_average_after": loadavg(),
        "stored": check["stored"],
        "distinct_stored": check["distinct_stored"],
        "acknowledged_missing": check["acknowledged_missing"],
        "stored_unacknowledged": check["stored_unacknowledged"],
        "every_acknowledged_stored_once": check["every_acknowledged_stored_once"],
        "seq_exact_per_user": check["seq_exact_per_user"],
    }
