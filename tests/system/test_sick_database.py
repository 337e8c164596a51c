"""A sick Neo4j under a real `recmem serve` (issue #29): a database that needs a restart (its disk
full), a frozen server (SIGSTOP) and a crash with a restart (SIGKILL). Every answer is typed
(UNAVAILABLE, HTTP 503 with Retry-After, `written` false or "unknown"), comes within the
documented bound (the store's retry window plus one attempt's statement timeout), `/readyz` is
503 while Neo4j is sick and 200 after, and every acknowledged write is stored exactly once.

The three tests share one Neo4j of their own (never the session's) and one service. Its data
directory is a small tmpfs in a private mount namespace held by a `sleep` process, so that the
disk-full test can fill that disk, and only it, and the namespace outlives Neo4j's restarts
(docs/failures.md). Each test starts and ends with the stack healthy.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from consolidation.forgetting.keys import AccessKeys
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.database import Database
from graph.local_server import LocalNeo4j
from graph.schema import migrate
from graph.settings import Neo4jSettings
from tests.support.engines import DIMENSION, TEST_TEMPLATE
from tests.support.faults import (
    Service,
    free_ports,
    private_neo4j_settings,
    query,
    running_service,
    service_env,
    sigkill_neo4j,
)
from tests.support.outage_client import Answer, open_ws, post

# The service's store settings, and the bound they document (docs/failures.md): no attempt
# starts after the retry window, and one attempt lasts at most the statement timeout.
RETRY_S = 2.0
STATEMENT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 2.0
BOUND_S = RETRY_S + STATEMENT_TIMEOUT_S
# What a loaded two-core machine may add to an answer (the issue measured answers of 20-27 s
# during a 20 s freeze and of 42-46 s after a restart: far beyond BOUND_S + SLACK_S).
SLACK_S = 6.0
FREEZE_S = 20.0
DATA_DISK = "256m"
NEO4J_START_S = 150.0
RECOVER_S = 120.0
ACCEPTS = ("application/json", "application/graphql-response+json")

REMEMBER = """
mutation($input: RememberInput!) { remember(input: $input, consolidate: false) { interactionId created } }"""
RECALL = 'query { recall(userId: "alice", query: "sushi dinner") { subconscious { score } } }'


# -- a Neo4j whose data disk the test owns ---------------------------------------------------------


@contextmanager
def data_disk(data: Path) -> Iterator[int]:
    """A tmpfs of DATA_DISK at `data`, visible only in a private mount namespace held by a
    `sleep`: yields that process's pid (`nsenter -t PID -m` enters the namespace)."""
    data.mkdir(parents=True, exist_ok=True)
    script = f"mount -t tmpfs -o size={DATA_DISK} tmpfs {data} && exec sleep 3600"
    holder = subprocess.Popen(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script], start_new_session=True
    )
    try:
        deadline = time.monotonic() + 30
        while in_namespace(holder.pid, "mountpoint", "-q", str(data)).returncode != 0:
            assert holder.poll() is None, "the mount namespace holder exited"
            assert time.monotonic() < deadline, "the data disk was not mounted"
            time.sleep(0.1)
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(timeout=30)


def in_namespace(pid: int, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["nsenter", "-t", str(pid), "-m", "--", *command], capture_output=True, text=True, timeout=60
    )


class BoxedNeo4j(LocalNeo4j):
    """The project's local Neo4j, its JVM entering the data disk's namespace, with transaction
    logs that grow as written (not preallocated), so that a full disk fails the next commit."""

    def __init__(self, settings: Neo4jSettings, namespace: int) -> None:
        super().__init__(settings)
        self.namespace = namespace

    def write_config(self) -> Path:
        conf = super().write_config()
        with (conf / "neo4j.conf").open("a", encoding="utf-8") as out:
            out.write("db.tx_log.preallocate=false\ndb.tx_log.rotation.size=1M\n")
        return conf

    def java_binary(self) -> Path:
        wrapper = self.home / "java-in-namespace"
        wrapper.write_text(
            f'#!/bin/sh\nexec nsenter -t {self.namespace} -m -- {super().java_binary()} "$@"\n',
            encoding="utf-8",
        )
        wrapper.chmod(0o755)
        return wrapper


# -- what the clients saw ------------------------------------------------------------------------


@dataclass
class Ledger:
    """Every sourceRef sent, and the interaction id of those acknowledged."""

    acked: dict[str, str] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)


@dataclass
class Stack:
    neo4j: BoxedNeo4j
    namespace: int
    service: Service
    db: Database
    key: str
    tenant: str
    ledger: Ledger


async def remember(http: httpx.AsyncClient, stack: Stack, ref: str, accept: str = ACCEPTS[0]) -> Answer:
    """One remember of alice's with `ref`; an acknowledgement is entered in the ledger."""
    stack.ledger.pending.add(ref)
    variables = {"input": {"userId": "alice", "text": f"sushi dinner note {ref}", "sourceRef": ref}}
    answer = await post(http, stack.key, REMEMBER, variables, accept, f"remember {ref}")
    payload = (answer.body.get("data") or {}).get("remember")
    if answer.status == 200 and not answer.errors and payload:
        stack.ledger.acked.setdefault(ref, payload["interactionId"])
        assert stack.ledger.acked[ref] == payload["interactionId"], (ref, payload)
    return answer


async def recall(http: httpx.AsyncClient, stack: Stack) -> Answer:
    return await post(http, stack.key, RECALL, {}, ACCEPTS[1], "recall")


async def mcp_remember(http: httpx.AsyncClient, stack: Stack, ref: str) -> Answer:
    """The MCP `remember` tool with `ref`, as a stateless JSON-RPC call."""
    stack.ledger.pending.add(ref)
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "remember",
            "arguments": {"user_id": "alice", "text": f"sushi by mcp {ref}", "source_ref": ref},
        },
    }
    started = time.monotonic()
    response = await http.post(
        "/mcp",
        json=call,
        headers={
            "authorization": f"Bearer {stack.key}",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
        },
    )
    seconds = time.monotonic() - started
    answer = Answer(f"mcp {ref}", response.status_code, dict(response.headers), response.json(), seconds)
    result = answer.body.get("result") or {}
    if not result.get("isError") and result.get("structuredContent"):
        stack.ledger.acked.setdefault(ref, result["structuredContent"]["interaction_id"])
    return answer


async def ws_remember(ws: ClientConnection, stack: Stack, ref: str) -> Answer:
    """A remember over the websocket: its `next` (or `error`) message."""
    stack.ledger.pending.add(ref)
    variables = {"input": {"userId": "alice", "text": f"sushi by ws {ref}", "sourceRef": ref}}
    payload = {"query": REMEMBER, "variables": variables}
    started = time.monotonic()
    await ws.send(json.dumps({"id": ref, "type": "subscribe", "payload": payload}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), BOUND_S + 4 * SLACK_S))
        if message.get("id") == ref and message["type"] in ("next", "error"):
            break
    body = message["payload"] if message["type"] == "next" else {"errors": message["payload"]}
    answer = Answer(f"ws {ref}", 200, {}, body, time.monotonic() - started)
    done = (body.get("data") or {}).get("remember")
    if not answer.errors and done:
        stack.ledger.acked.setdefault(ref, done["interactionId"])
    return answer


def refused(answer: Answer) -> bool:
    """Whether `answer` is a typed refusal (checked by assert_refusal); False for a success."""
    if answer.what.startswith("mcp"):
        return bool((answer.body.get("result") or {}).get("isError") or "error" in answer.body)
    return bool(answer.errors)


def assert_refusal(answer: Answer, *, write: bool) -> None:
    """The one shape of a refusal: UNAVAILABLE, `written` false or "unknown" (false for a
    query), and over HTTP 503 with Retry-After."""
    if answer.what.startswith("mcp"):
        if "error" in answer.body:  # refused before the tool ran (admission)
            assert answer.status == 503 and float(answer.headers["retry-after"]) > 0, answer
            assert answer.body["error"]["data"] == {"code": "UNAVAILABLE", "written": False}, answer
            return
        (text,) = [c["text"] for c in answer.body["result"]["content"]]
        assert text.startswith("UNAVAILABLE: ") and "written: " in text, answer
        return
    if not answer.what.startswith("ws"):
        assert answer.status == 503, answer
        assert float(answer.headers["retry-after"]) > 0, answer
    assert answer.errors, answer
    for error in answer.errors:
        extensions = error["extensions"]
        assert extensions["code"] == "UNAVAILABLE", answer
        assert extensions["written"] in ((False, "unknown") if write else (False,)), answer


def report(fault: str, answers: list[Answer], **figures: float) -> None:
    """The figures docs/failures.md quotes, on stdout (pytest -s shows them)."""
    seconds = sorted(a.seconds for a in answers)
    shapes = sorted({f"{a.status}/{_written(a)}" for a in answers})
    extra = " ".join(f"{name}={value:.1f}s" for name, value in figures.items())
    print(
        f"\nMEASURED {fault}: {len(answers)} answers in {seconds[0]:.2f}-{seconds[-1]:.2f}s "
        f"(bound {BOUND_S:g}s) status/written {shapes} {extra}"
    )


def _written(answer: Answer) -> str:
    if answer.what.startswith("mcp"):
        result = answer.body.get("result") or {}
        texts = [c.get("text", "") for c in result.get("content") or []]
        if "error" in answer.body:
            return "mcp-refused"
        return "mcp-" + (
            "unknown" if any("unknown" in t for t in texts) else "false" if result.get("isError") else "ok"
        )
    written = {str(e.get("extensions", {}).get("written")) for e in answer.errors}
    return ",".join(sorted(written)) or "ok"


def assert_answered_in_time(answers: list[Answer], bound_s: float) -> None:
    slow = [(a.what, round(a.seconds, 1)) for a in answers if a.seconds > bound_s]
    assert not slow, f"answers past {bound_s:.0f}s: {slow}"


async def readyz(http: httpx.AsyncClient) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    response = await http.get("/readyz")
    return response.status_code, response.json(), time.monotonic() - started


async def until_ready(http: httpx.AsyncClient, within_s: float) -> float:
    """Seconds until `/readyz` answers 200 (at most `within_s`)."""
    started = time.monotonic()
    while (await readyz(http))[0] != 200:
        assert time.monotonic() - started < within_s, f"/readyz not 200 within {within_s:.0f}s"
        await asyncio.sleep(0.3)
    return time.monotonic() - started


async def settle(http: httpx.AsyncClient, stack: Stack) -> None:
    """Resend every write not acknowledged, with its sourceRef, until it is; then check that
    every acknowledged one is stored exactly once, under the id it was acknowledged with."""
    deadline = time.monotonic() + RECOVER_S
    for ref in sorted(stack.ledger.pending - set(stack.ledger.acked)):
        while ref not in stack.ledger.acked:
            answer = await remember(http, stack, ref)
            if ref not in stack.ledger.acked:
                assert_refusal(answer, write=True)
                assert time.monotonic() < deadline, f"{ref} not stored after recovery: {answer}"
                await asyncio.sleep(0.5)
    rows = await query(
        stack.db.driver,
        "MATCH (n:Interaction {tenant: $t}) RETURN n.source_ref AS ref, n.id AS id",
        t=stack.tenant,
    )
    stored: dict[str, list[str]] = {}
    for row in rows:
        stored.setdefault(row["ref"], []).append(row["id"])
    assert {ref: ids for ref, ids in stored.items() if len(ids) != 1} == {}
    assert {ref: ids[0] for ref, ids in stored.items()} == stack.ledger.acked


async def migrated(settings: Neo4jSettings) -> None:
    """The service's schema, made with patience: on a loaded machine a fresh Neo4j takes longer
    than the service's 5 s statement timeout to plan its first statements, and the service
    would not be ready in time (its readiness is what the tests measure, not Neo4j's warm-up)."""
    db = Database.connect(settings)
    db.statement_timeout_s = NEO4J_START_S
    try:
        embedder = HashingEmbedder(DIMENSION)
        await migrate(db, embedder.name, embedder.dimension, TEST_TEMPLATE)
    finally:
        await db.close()


@pytest.fixture(scope="module")
def stack_processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BoxedNeo4j, int, Service]]:
    root = tmp_path_factory.mktemp("sick")
    neo4j_port, api_port = free_ports(2)
    settings = private_neo4j_settings(root / "neo4j", neo4j_port)
    env = service_env(
        settings,
        api_port,
        RECMEM_NEO4J_HOME=str(settings.home),
        RECMEM_NEO4J_RETRY_SECONDS=str(RETRY_S),
        RECMEM_NEO4J_CONNECTION_TIMEOUT_S="2",
        RECMEM_NEO4J_ACQUISITION_TIMEOUT_S="3",
        RECMEM_NEO4J_STATEMENT_TIMEOUT_S=str(STATEMENT_TIMEOUT_S),
        RECMEM_NEO4J_PROBE_TIMEOUT_S=str(PROBE_TIMEOUT_S),
        # The key stays cached: requests pass authentication and fail where the store is used.
        RECMEM_API_AUTH_CACHE_S="600",
        RECMEM_SWEEP_INTERVAL_S="0",
    )
    with data_disk(settings.home / "data") as namespace:
        neo4j = BoxedNeo4j(settings, namespace)
        try:
            neo4j.start(timeout_s=NEO4J_START_S)
            asyncio.run(migrated(settings))
            with running_service(env, root) as service:
                try:
                    yield neo4j, namespace, service
                finally:
                    service.stop()  # before Neo4j goes
        finally:
            if neo4j.status().running:
                sigkill_neo4j(neo4j)
            neo4j.stop()


@pytest.fixture
async def stack(stack_processes: tuple[BoxedNeo4j, int, Service]) -> AsyncIterator[Stack]:
    neo4j, namespace, service = stack_processes
    db = Database.connect(neo4j.settings)
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    key = (await AccessKeys(db).create(tenant, "sick")).secret
    try:
        yield Stack(neo4j, namespace, service, db, key, tenant, Ledger())
    finally:
        await db.close()


async def warm(http: httpx.AsyncClient, stack: Stack, count: int) -> None:
    """`count` acknowledged writes (the key is then cached). A fresh server's first statements
    are slow to plan on a loaded machine: one past the statement timeout is refused, and resent."""
    await until_ready(http, RECOVER_S)
    deadline = time.monotonic() + RECOVER_S
    for i in range(count):
        while f"before-{i}" not in stack.ledger.acked:
            answer = await remember(http, stack, f"before-{i}")
            if f"before-{i}" not in stack.ledger.acked:
                assert_refusal(answer, write=True)
                assert time.monotonic() < deadline, answer


# -- 1. the database needs a restart (its disk is full) ------------------------------------------


async def test_a_database_that_needs_a_restart_is_unavailable_with_retry_after(stack: Stack) -> None:
    """A full data disk: Neo4j fails the next commit (Neo.DatabaseError.Transaction.
    TransactionLogError) and from then on refuses every transaction with "needs to be
    restarted" (TransactionStartFailed). Every answer is UNAVAILABLE, never INTERNAL."""
    data = str(stack.neo4j.home / "data")
    async with asyncio.timeout(240), httpx.AsyncClient(base_url=stack.service.base, timeout=60) as http:
        await warm(http, stack, 3)
        ws = await open_ws(stack.service.base, stack.key)
        filled = in_namespace(stack.namespace, "dd", "if=/dev/zero", f"of={data}/fill", "bs=1M")
        assert "No space left" in filled.stderr, filled
        try:
            answers = list(
                await asyncio.gather(
                    *[remember(http, stack, f"full-{i}", ACCEPTS[i % 2]) for i in range(4)],
                    recall(http, stack),
                    mcp_remember(http, stack, "full-mcp"),
                    ws_remember(ws, stack, "full-ws"),
                )
            )
            # Then the server is sick for good: one more of each, in turn.
            answers.append(await remember(http, stack, "full-late"))
            answers.append(await recall(http, stack))
            answers.append(await mcp_remember(http, stack, "full-mcp-late"))
            answers.append(await ws_remember(ws, stack, "full-ws-late"))
            status, body, probe_s = await readyz(http)
            assert status == 503 and body["status"] == "unavailable", body
            assert "restart" in body["reason"], body
            assert probe_s < PROBE_TIMEOUT_S + SLACK_S
        finally:
            await ws.close()
            assert in_namespace(stack.namespace, "rm", f"{data}/fill").returncode == 0

        assert_answered_in_time(answers, BOUND_S + SLACK_S)
        # The recall sent beside the first writes reads only: it may finish before one of those
        # writes finds the disk full and the database gives up. Every write, and everything sent
        # after the first wave, is refused.
        first_recall = answers[4]
        for answer in answers:
            if answer is first_recall and not refused(answer):
                continue
            assert refused(answer), f"{answer.what} succeeded on a full disk: {answer}"
            assert_refusal(answer, write=answer.what != "recall")
        # "Needs to be restarted": a database error, not retried, answers at once.
        late = [a for a in answers[7:] if a.what in ("remember full-late", "recall")]
        assert_answered_in_time(late, 1.0 + SLACK_S)

        # It stays sick until restarted.
        assert (await readyz(http))[0] == 503
        await asyncio.to_thread(sigkill_neo4j, stack.neo4j)
        restarting = time.monotonic()
        await asyncio.to_thread(stack.neo4j.start, NEO4J_START_S)
        bolt_s = time.monotonic() - restarting
        ready_s = await until_ready(http, RECOVER_S)
        await settle(http, stack)
        report(
            "database needs a restart",
            answers,
            readyz=probe_s,
            bolt_after_restart=bolt_s,
            ready_after_bolt=ready_s,
        )


# -- 2. a frozen Neo4j ---------------------------------------------------------------------------


async def test_a_frozen_neo4j_answers_within_the_bound_and_recovers(stack: Stack) -> None:
    """SIGSTOP for longer than the bound, with requests in flight and arriving: each answers
    UNAVAILABLE within retry window + statement timeout, not after the freeze."""
    pid = stack.neo4j.status().pid
    assert pid is not None
    async with asyncio.timeout(240), httpx.AsyncClient(base_url=stack.service.base, timeout=60) as http:
        await warm(http, stack, 3)
        os.kill(pid, signal.SIGSTOP)
        frozen = time.monotonic()
        try:
            in_flight = [asyncio.create_task(remember(http, stack, f"frozen-{i}")) for i in range(4)]
            in_flight.append(asyncio.create_task(recall(http, stack)))
            await asyncio.sleep(BOUND_S / 2)
            arriving = [asyncio.create_task(remember(http, stack, f"frozen-late-{i}")) for i in range(2)]
            arriving.append(asyncio.create_task(mcp_remember(http, stack, "frozen-mcp")))
            probes = [await readyz(http) for _ in range(2)]
            answers = list(await asyncio.gather(*in_flight, *arriving))
            assert time.monotonic() - frozen < FREEZE_S, "the freeze ended before the answers"
            await asyncio.sleep(max(0.0, FREEZE_S - (time.monotonic() - frozen)))
        finally:
            os.kill(pid, signal.SIGCONT)

        assert_answered_in_time(answers, BOUND_S + SLACK_S)
        for answer in answers:
            assert refused(answer), f"{answer.what} succeeded on a frozen Neo4j: {answer}"
            assert_refusal(answer, write=answer.what != "recall")
        for status, body, seconds in probes:
            assert status == 503 and body["status"] == "unavailable", body
            assert seconds < PROBE_TIMEOUT_S + SLACK_S, seconds
        ready_s = await until_ready(http, RECOVER_S)
        await settle(http, stack)
        report("frozen", answers, readyz=max(p[2] for p in probes), ready_after_sigcont=ready_s)


# -- 3. a crash and a restart --------------------------------------------------------------------


async def test_a_crash_and_restart_answers_within_the_bound_and_loses_nothing(stack: Stack) -> None:
    """SIGKILL under writes, then a restart on the same home and port: while down, each write is
    refused at once; once Bolt accepts again, each answers (stored, or refused) within the
    bound, and `/readyz` turns 200 only once a real query answers."""
    async with asyncio.timeout(300), httpx.AsyncClient(base_url=stack.service.base, timeout=60) as http:
        await warm(http, stack, 3)
        writing = [asyncio.create_task(remember(http, stack, f"kill-{i}")) for i in range(4)]
        await asyncio.to_thread(sigkill_neo4j, stack.neo4j)
        down = list(await asyncio.gather(*writing))
        down.append(await remember(http, stack, "down"))
        status, body, _ = await readyz(http)
        assert status == 503 and body["status"] == "unavailable", body
        assert_answered_in_time(down, BOUND_S + SLACK_S)
        for answer in down:
            if refused(answer):
                assert_refusal(answer, write=True)

        restarting = time.monotonic()
        await asyncio.to_thread(stack.neo4j.start, NEO4J_START_S)  # returns once Bolt accepts
        bolt_s = time.monotonic() - restarting
        after = list(
            await asyncio.gather(
                *[remember(http, stack, f"restart-{i}") for i in range(4)], recall(http, stack)
            )
        )
        assert_answered_in_time(after, BOUND_S + SLACK_S)
        for answer in after:
            if refused(answer):
                assert_refusal(answer, write=answer.what != "recall")
        ready_s = await until_ready(http, RECOVER_S)
        await settle(http, stack)
        report("crashed, while down", down)
        report("crashed, once Bolt accepts", after, bolt_after_restart=bolt_s, ready_after_answers=ready_s)
