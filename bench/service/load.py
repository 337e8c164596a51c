"""The load the service is measured under: single remembers, batch loads and recalls over HTTP."""

from __future__ import annotations

import time
from typing import NotRequired, TypedDict

from bench.machine import loadavg
from bench.service.client import BUDGETS, RECALL, REMEMBER, REMEMBER_BATCH, Client
from bench.service.results import LoadResult, RecallResult, RememberResult, WarmUp
from bench.service.stats import iso, log, summary
from bench.service.texts import Salads

REMEMBER_EPOCH = 1_700_000_000.0
LOAD_EPOCH = 1_600_000_000.0
PROGRESS_EVERY_S = 10


class RememberInput(TypedDict):
    """A single remember's GraphQL `RememberInput`."""

    userId: str
    speaker: str
    text: str
    occurredAt: str
    sessionId: str


# With --metadata-filter every loaded turn carries {"topic": "t<i mod 10>"}, and the filtered
# recall asks for one topic: a tenth of the user's turns match.
METADATA_TOPICS = 10
METADATA_FILTER: dict[str, object] = {"metadata": [{"key": "topic", "equals": "t3"}]}


class BatchUnit(TypedDict):
    """One `UnitInput` of a rememberBatch."""

    text: str
    speaker: str
    occurredAt: str
    sessionId: str
    metadata: NotRequired[dict[str, str]]


def remember_input(salads: Salads, user: str, i: int, session: str = "bench") -> RememberInput:
    """One single remember's input, a minute after the previous one."""
    return {
        "userId": user,
        "speaker": "user",
        "text": salads.text(),
        "occurredAt": iso(REMEMBER_EPOCH + 60 * i),
        "sessionId": session,
    }


def measure_remember(client: Client, salads: Salads, user: str, count: int, warmup: int) -> RememberResult:
    latencies: list[float] = []
    actions: dict[str, int] = {}
    llm_calls = 0
    start = time.perf_counter()
    for i in range(warmup + count):
        if i == warmup:
            start = time.perf_counter()
        data, ms = client.call(REMEMBER, {"input": remember_input(salads, user, i)})
        if i < warmup:
            continue
        latencies.append(ms)
        consolidation = data["remember"]["consolidation"]
        action = consolidation["action"] if consolidation else "deferred_to_background"
        actions[action] = actions.get(action, 0) + 1
        llm_calls += consolidation["llmCalls"] if consolidation else 0
    wall = time.perf_counter() - start
    return {
        "latency": summary(latencies),
        "throughput_per_s": round(count / wall, 1),
        "warmup_requests": warmup,
        "consolidation_actions": actions,
        "llm_calls": llm_calls,
        "load_average_after": loadavg(),
    }


def _units(salads: Salads, sent: int, n: int, metadata: bool = False) -> list[BatchUnit]:
    units: list[BatchUnit] = [
        {
            "text": salads.text(),
            "speaker": "user" if (sent + j) % 2 == 0 else "assistant",
            "occurredAt": iso(LOAD_EPOCH + 30 * (sent + j)),
            "sessionId": f"s{(sent + j) // 50}",
        }
        for j in range(n)
    ]
    if metadata:
        for j, unit in enumerate(units):
            unit["metadata"] = {"topic": f"t{(sent + j) % METADATA_TOPICS}"}
    return units


def load_user(
    client: Client,
    salads: Salads,
    user: str,
    size: int,
    batch: int,
    consolidate: bool | None,
    metadata: bool = False,
) -> LoadResult:
    sent = 0
    batch_ms: list[float] = []
    start = time.perf_counter()
    last_report = start
    while sent < size:
        n = min(batch, size - sent)
        units = _units(salads, sent, n, metadata)
        variables = {"userId": user, "units": units, "consolidate": consolidate}
        data, ms = client.call(REMEMBER_BATCH, variables)
        assert len(data["rememberBatch"]) == n
        batch_ms.append(ms)
        sent += n
        now = time.perf_counter()
        if now - last_report > PROGRESS_EVERY_S:
            log(f"  {user}: {sent}/{size} loaded ({sent / (now - start):.0f}/s)")
            last_report = now
    wall = time.perf_counter() - start
    return {
        "interactions": size,
        "batch_size": batch,
        "consolidate": consolidate,
        "wall_s": round(wall, 2),
        "interactions_per_s": round(size / wall, 1),
        "batch_latency": summary(batch_ms),
        "load_average_after": loadavg(),
    }


def measure_recall(
    client: Client,
    salads: Salads,
    user: str,
    queries: int,
    warmup: int,
    filter: dict[str, object] | None = None,
) -> RecallResult:
    latencies: list[float] = []
    hits = {"subconscious": 0, "episodic": 0, "semantic": 0}
    for i in range(warmup + queries):
        variables = {"userId": user, "query": salads.query(), "budget": BUDGETS, "filter": filter}
        data, ms = client.call(RECALL, variables)
        if i < warmup:
            continue
        latencies.append(ms)
        for layer in hits:
            hits[layer] += len(data["recall"][layer])
    found: RecallResult = {
        "latency": summary(latencies),
        "budgets": BUDGETS,
        "warmup_queries": warmup,
        "mean_hits_per_layer": {k: round(v / max(queries, 1), 2) for k, v in hits.items()},
        "load_average_after": loadavg(),
    }
    if filter is not None:
        found["filter"] = filter
    return found


def warm_up(client: Client, salads: Salads, requests: int, batch: int) -> WarmUp:
    """A JVM that has just started spends its first minutes compiling Neo4j's hot paths (on two
    cores that doubles the first phase's latencies): every measured path runs first, unmeasured."""
    start = time.perf_counter()
    # The loaded interactions skip the gate, so single writes go to another user: the first
    # inline one would otherwise gate every loaded interaction.
    load_user(client, salads, "warm-up-loaded", 5 * batch, batch, False)
    measure_remember(client, salads, "warm-up-single", requests, 0)
    measure_recall(client, salads, "warm-up-loaded", requests, 0)
    wall = round(time.perf_counter() - start, 1)
    return {"requests_per_kind": requests, "loaded": 5 * batch, "wall_s": wall}
