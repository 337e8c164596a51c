"""The Python client (recmem_client) end to end: a real uvicorn on a free port, the session's Neo4j.

Every scenario runs twice, with AsyncMemoryClient and with MemoryClient. The blocking client runs
in a worker thread (Threaded below) so that this event loop, which also serves the app, stays free.
Failures are injected by an httpx transport in front of the real one: a canned 503 or 429, or a
response that is read in full (the service committed) and then lost.
"""

from __future__ import annotations

import asyncio
import re
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

import recmem_client
from api.app import create_app
from consolidation.forgetting.keys import AccessKeys
from consolidation.wiring import AppSettings
from graph.database import Database
from graph.models import new_id
from recmem_client import (
    GENERATED_REF_PREFIX,
    NO_RETRY,
    AsyncMemoryClient,
    BadUserInput,
    ConnectionFailed,
    ConsolidationAction,
    FactKind,
    FactStatus,
    InternalError,
    Layer,
    Layers,
    MemoryClient,
    MemoryClientError,
    NotFound,
    ProtocolError,
    RateLimited,
    RetryPolicy,
    Unauthenticated,
    Unavailable,
    Unit,
    operations,
)
from recmem_client.protocol import retry_after
from tests.support.api import STORY, T0, count_nodes, make_api_settings, make_engine, serve_app

README = Path(__file__).resolve().parents[2] / "docs" / "client.md"

# Short sleeps between tries: the tests check how many tries, not how long they wait.
FAST = RetryPolicy(attempts=4, initial_delay_s=0.01, max_delay_s=0.05)
TIMEOUT = 60.0  # per request; generous for a loaded two-core machine


@asynccontextmanager
async def serving(db: Database, **api: Any) -> AsyncIterator[str]:
    """The app under a real uvicorn in this event loop, on a free port; yields its base URL."""
    async with serve_app(create_app(AppSettings(), make_api_settings(**api), engine=make_engine(db))) as url:
        yield url


@pytest.fixture(scope="module")
async def live(db: Database) -> AsyncIterator[str]:
    async with serving(db) as url:
        yield url


@pytest.fixture(scope="module")
async def strict(db: Database) -> AsyncIterator[str]:
    """A service allowing each key one request, then a Retry-After of 1000 s."""
    async with serving(db, rate_limit_per_s=0.001, rate_limit_burst=1) as url:
        yield url


@dataclass(frozen=True)
class Tenant:
    name: str
    key: str


@pytest.fixture
async def tenant(db: Database) -> Tenant:
    name = f"t-{uuid.uuid4().hex[:12]}"
    return Tenant(name, (await AccessKeys(db).create(name, "client test")).secret)


# -- failure injection -------------------------------------------------------------------------

LOST, BUSY, LIMITED = "lost", "busy", "limited"


@dataclass
class Faults:
    """Faults to inject, one per request in order (then none), and what got through."""

    planned: list[str] = field(default_factory=list)
    requests: int = 0  # requests the client sent
    forwarded: int = 0  # requests that reached the service

    def next(self) -> str | None:
        self.requests += 1
        return self.planned.pop(0) if self.planned else None

    def intercept(self, fault: str | None, request: httpx.Request) -> httpx.Response | None:
        """The response of a fault that never reaches the service; None: forward (and count) it."""
        if fault == BUSY:
            body = {"errors": [{"message": "busy", "extensions": {"code": "UNAVAILABLE"}}]}
            return httpx.Response(503, json=body, request=request)
        if fault == LIMITED:
            body = {"errors": [{"message": "slow down", "extensions": {"code": "RATE_LIMITED"}}]}
            return httpx.Response(429, json=body, headers={"retry-after": "0"}, request=request)
        self.forwarded += 1
        return None


def _lost(request: httpx.Request) -> httpx.ReadError:
    return httpx.ReadError("the connection broke after the service answered", request=request)


class AsyncFaulty(httpx.AsyncBaseTransport):
    def __init__(self, faults: Faults) -> None:
        self.faults, self.inner = faults, httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        fault = self.faults.next()
        canned = self.faults.intercept(fault, request)
        if canned is not None:
            return canned
        response = await self.inner.handle_async_request(request)
        if fault == LOST:
            await response.aread()  # the whole answer: the write is committed
            await response.aclose()
            raise _lost(request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class Faulty(httpx.BaseTransport):
    def __init__(self, faults: Faults) -> None:
        self.faults, self.inner = faults, httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        fault = self.faults.next()
        canned = self.faults.intercept(fault, request)
        if canned is not None:
            return canned
        response = self.inner.handle_request(request)
        if fault == LOST:
            response.read()
            response.close()
            raise _lost(request)
        return response

    def close(self) -> None:
        self.inner.close()


# -- one interface over both clients -----------------------------------------------------------


class Threaded:
    """A MemoryClient behind AsyncMemoryClient's interface: each call runs in a worker thread."""

    def __init__(self, client: MemoryClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(self._client, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(method, *args, **kwargs)

        return call


Opener = Callable[..., Any]


@pytest.fixture(params=["async", "sync"])
def open_client(request: pytest.FixtureRequest) -> Opener:
    """`open_client(key, url, faults=None, **options)`: an async context manager of the client."""
    kind = request.param

    @asynccontextmanager
    async def opened(
        key: str, url: str, faults: Faults | None = None, **options: Any
    ) -> AsyncIterator[AsyncMemoryClient]:
        settings: dict[str, Any] = {"base_url": url, "timeout": TIMEOUT, "retry": FAST} | options
        if kind == "async":
            transport = AsyncFaulty(faults) if faults is not None else None
            async with AsyncMemoryClient(key, transport=transport, **settings) as client:
                yield client
            return
        with MemoryClient(key, transport=Faulty(faults) if faults is not None else None, **settings) as sync:
            yield cast(AsyncMemoryClient, Threaded(sync))

    return opened


def _day(day: int) -> datetime:
    return T0 + timedelta(days=day)


# -- every method, end to end ------------------------------------------------------------------


async def test_every_method_end_to_end(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        told = [
            await memory.remember(
                "alice", text, speaker="alice", occurred_at=_day(day), session_id="s1", source_ref=f"d{day}"
            )
            for day, text in enumerate(STORY)
        ]
        ids = [r.interaction_id for r in told]
        assert [r.seq for r in told] == [1, 2, 3, 4, 5] and all(r.created for r in told)
        first = told[0].interaction
        assert first is not None and first.id == ids[0]
        assert (first.text, first.speaker, first.session_id, first.source_ref) == (
            STORY[0],
            "alice",
            "s1",
            "d0",
        )
        assert first.occurred_at == T0 and first.occurred_at.tzinfo is not None
        # The third sushi turn opens an episode; the fourth merges into it, superseding facts.
        created, merged = told[2].consolidation, told[3].consolidation
        assert created is not None and created.action is ConsolidationAction.CREATED and created.fact_ids
        assert merged is not None and merged.action is ConsolidationAction.MERGED
        assert merged.previous_episode_id == created.episode_id
        assert set(merged.superseded_fact_ids) == set(created.fact_ids)

        await _check_recall(memory, ids)
        await _check_answer(memory)
        await _check_audit(memory, ids, created.fact_ids, merged.fact_ids[0], merged.episode_id)
        await _check_batch_and_consolidate(memory)

        forgotten = await memory.forget_interaction(ids[4])
        assert forgotten.interaction_ids == (ids[4],) and forgotten.episode_ids == ()
        assert forgotten.record_run_id is None  # no surviving belief changed: nothing records it
        with pytest.raises(NotFound):
            await memory.forget_interaction(ids[4])
        gone = await memory.forget_user("alice")
        assert (gone.user_id, gone.interactions, gone.episodes) == ("alice", 4, 2)
        assert gone.facts >= 1 and gone.runs >= 3  # create, merge and refine runs, and the answer
        with pytest.raises(NotFound):
            await memory.recall("alice", "sushi")


async def _check_recall(memory: AsyncMemoryClient, ids: list[str]) -> None:
    found = await memory.recall("alice", "sushi with salmon", tokens=300)
    assert found.query == "sushi with salmon" and found.as_of is None
    assert found.semantic and found.episodic
    assert all(h.fact.user_id == "alice" and h.source_ids for h in found.semantic)
    assert found.context is not None and found.context.budget == 300
    assert 0 < found.context.tokens <= 300 and found.context.items
    assert {i.layer for i in found.context.items} <= set(Layer)
    assert all(i.line in found.context.text for i in found.context.items)

    plain = await memory.recall("alice", "my dog", layers=Layers(subconscious=1, episodic=0, semantic=0))
    assert plain.context is None and plain.episodic == () and plain.semantic == ()
    assert [h.interaction.id for h in plain.subconscious] == [ids[4]]

    # As of before the fourth turn: the episode's first version, not the merge.
    earlier = await memory.recall("alice", "sushi", as_of=_day(2) + timedelta(hours=1))
    assert earlier.as_of is not None and all(h.episode.version == 1 for h in earlier.episodic)


async def _check_answer(memory: AsyncMemoryClient) -> None:
    question = "What is my dog called?"
    answered = await memory.answer("alice", question, tokens=200)
    assert answered.recall.query == question and answered.recall.context is not None
    assert answered.run_id is not None and answered.run_id.startswith("run_")
    assert answered.prompt_tokens == 0  # the offline answerer spends no tokens
    assert isinstance(answered.text, str)


async def _check_audit(
    memory: AsyncMemoryClient,
    ids: list[str],
    replaced: tuple[str, ...],
    fact_id: str,
    episode_id: str | None,
) -> None:
    audit = await memory.audit(fact_id)
    assert audit.fact.id == fact_id
    assert [e.episode.id for e in audit.episodes] == [episode_id]
    assert {s.interaction.id for s in audit.episodes[0].sources} == set(ids[:4])
    assert [i.id for i in audit.interactions] == [ids[3]]
    assert {c.fact.id for c in audit.supersedes} == set(replaced) and audit.superseded_by == ()
    assert all(c.reason for c in audit.supersedes)
    assert sorted(r.op for r in audit.runs) == ["merge_episode", "refine_facts"]
    assert audit.prompt_tokens == 0


async def _check_batch_and_consolidate(memory: AsyncMemoryClient) -> None:
    units = [
        Unit("I play chess on Sundays.", speaker="bob", occurred_at=_day(1), source_ref="b1"),
        Unit("My sister lives in Lyon.", speaker="bob"),
    ]
    batch = await memory.remember_batch("bob", units, consolidate=False)
    assert [r.seq for r in batch] == [1, 2] and all(r.consolidation is None for r in batch)
    stored = [r.interaction for r in batch]
    assert stored[0] is not None and stored[0].source_ref == "b1"
    # No source_ref given: the client made one up, so that a retry could not store it twice.
    assert stored[1] is not None and (stored[1].source_ref or "").startswith(GENERATED_REF_PREFIX)
    events = await memory.consolidate("bob")
    assert {e.trigger_id for e in events} == {r.interaction_id for r in batch}
    assert all(e.user_id == "bob" for e in events)


async def test_correct_retract_and_add_facts(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        told = [
            await memory.remember("carol", text, speaker="carol", occurred_at=_day(day), source_ref=f"c{day}")
            for day, text in enumerate(STORY[:3])
        ]
        created = told[2].consolidation
        assert created is not None and created.fact_ids
        corrected = await memory.correct_fact(
            created.fact_ids[0],
            "Carol loves eel sushi.",
            "wrong fish",
            source_interaction_id=told[0].interaction_id,
        )
        assert corrected.written and corrected.fact is not None and corrected.changed_fact is not None
        assert corrected.changed_fact.status is FactStatus.SUPERSEDED
        assert (corrected.run.trigger, corrected.run.reason) == ("correction", "wrong fish")
        retracted = await memory.retract_fact(corrected.fact.id, "not true either")
        assert retracted.fact is None and retracted.changed_fact is not None
        assert retracted.changed_fact.status is FactStatus.RETRACTED
        audit = await memory.audit(corrected.fact.id)
        assert [r.trigger for r in audit.corrections] == ["correction", "retraction"]
        assert all(r.by == corrected.run.by for r in audit.corrections)
        # Recall names both withdrawn beliefs, the latest first: the correction rests on a turn
        # the recall returns, as the belief it replaced does.
        found = await memory.recall("carol", "sushi salmon wasabi eel")
        assert [(f.id, f.status) for f in found.withdrawn] == [
            (corrected.fact.id, FactStatus.RETRACTED),
            (created.fact_ids[0], FactStatus.SUPERSEDED),
        ]
        with pytest.raises(BadUserInput):
            await memory.retract_fact(corrected.fact.id, "again")
        added = await memory.add_fact("carol", "Carol is vegetarian.", "attribute", valid_from=_day(9))
        assert added.fact is not None and added.fact.kind is FactKind.ATTRIBUTE
        assert added.fact.valid_from == _day(9) and added.run.trigger == "manual"
        scoped = await memory.add_fact(
            "carol", "Carol is allergic to penicillin.", "attribute", agent_id="ag1", session_id="s9",
            metadata={"topic": "health"},
        )  # fmt: skip
        assert scoped.fact is not None and scoped.fact.agent_ids == ("ag1",)
        assert scoped.fact.session_ids == ("s9",)
        found = await memory.recall(
            "carol", "penicillin", filter={"metadata": [{"key": "topic", "equals": "health"}]}
        )
        assert [h.fact.id for h in found.semantic] == [scoped.fact.id]
        with pytest.raises(NotFound):
            await memory.retract_fact(new_id("fact"), "r")


async def test_export_user_downloads_the_users_lines(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        told = [
            await memory.remember("erin", text, speaker="erin", occurred_at=_day(day), source_ref=f"e{day}")
            for day, text in enumerate(STORY[:3])
        ]
        lines = await memory.export_user("erin")
        header, rest = lines[0], lines[1:]
        assert header["schema_version"] == 1 and header["counts"]["nodes"]["Interaction"] == len(told)
        stored = {line["id"] for line in rest if line.get("labels") == ["Interaction"]}
        assert stored == {t.interaction_id for t in told}
        with pytest.raises(NotFound):
            await memory.export_user("nobody-" + new_id("u"))


# -- typed errors ------------------------------------------------------------------------------


async def test_a_bad_key_is_unauthenticated(open_client: Opener, live: str) -> None:
    faults = Faults()
    async with open_client("not-a-key", live, faults=faults) as memory:
        with pytest.raises(Unauthenticated) as raised:
            await memory.remember("alice", "hello", source_ref="r1")
    assert raised.value.code == "UNAUTHENTICATED" and raised.value.status == 401
    assert raised.value.request_id
    assert faults.requests == 1  # not retried


async def test_unknown_ids_are_not_found(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        with pytest.raises(NotFound) as raised:
            await memory.audit(new_id("fact"))
        assert raised.value.code == "NOT_FOUND" and raised.value.errors
        with pytest.raises(NotFound):
            await memory.forget_interaction(new_id("int"))
        with pytest.raises(NotFound):
            await memory.forget_user("nobody")
        with pytest.raises(NotFound):
            await memory.answer("nobody", "anything?")


async def test_bad_input_is_bad_user_input(open_client: Opener, live: str, tenant: Tenant) -> None:
    faults = Faults()
    async with open_client(tenant.key, live, faults=faults) as memory:
        with pytest.raises(BadUserInput) as raised:
            await memory.remember("alice", "   ")
        assert raised.value.code == "BAD_USER_INPUT"
        await memory.remember("alice", "hello there", source_ref="h1")
        with pytest.raises(BadUserInput, match="tokens"):
            await memory.recall("alice", "hello", tokens=0)
        with pytest.raises(BadUserInput):
            await memory.remember_batch("alice", [])
        # A naive time is ambiguous: the service refuses it rather than guess a zone.
        with pytest.raises(BadUserInput):
            await memory.remember("alice", "when?", occurred_at=datetime(2024, 1, 1))
    assert faults.requests == 5  # none of them retried


async def test_a_batch_refusal_names_the_unit(
    open_client: Opener, live: str, tenant: Tenant, db: Database
) -> None:
    units = [Unit("fine"), Unit("also fine"), Unit("third", session_id=" ")]
    async with open_client(tenant.key, live) as memory:
        with pytest.raises(BadUserInput, match=re.escape("units[2].sessionId must not be empty")):
            await memory.remember_batch("alice", units)
        with pytest.raises(BadUserInput, match=re.escape("units[1].speaker: String should have at most")):
            await memory.remember_batch("alice", [Unit("fine"), Unit("long", speaker="s" * 257)])
        # A time without an offset is refused by the GraphQL variable's coercion, named all the same.
        with pytest.raises(BadUserInput, match=re.escape("units[1].occurredAt: ")):
            await memory.remember_batch(
                "alice", [Unit("fine"), Unit("naive", occurred_at=datetime(2024, 1, 1))]
            )
    assert await count_nodes(db, tenant.name, "alice") == {}


async def test_rate_limited_carries_retry_after(open_client: Opener, strict: str, tenant: Tenant) -> None:
    faults = Faults()
    async with open_client(tenant.key, strict, faults=faults, retry=RetryPolicy()) as memory:
        await memory.remember("alice", "one", source_ref="r1")
        with pytest.raises(RateLimited) as raised:
            await memory.remember("alice", "two", source_ref="r2")
    # 1000 s is more than the policy waits (8 s at most): the client gives up at once.
    assert raised.value.retry_after == 1000.0 and raised.value.status == 429
    assert faults.requests == 2


async def test_no_service_is_connection_failed(open_client: Opener) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: connections are refused
        faults = Faults()
        async with open_client("k", f"http://127.0.0.1:{port}", faults=faults) as memory:
            with pytest.raises(ConnectionFailed) as raised:
                # Not retryable once sent, but a refused connection sent nothing: retried.
                await memory.forget_user("alice")
    assert isinstance(raised.value, Unavailable) and not raised.value.sent
    assert faults.requests == FAST.attempts


async def test_a_proxy_page_is_classed_by_status() -> None:
    pages = iter([(502, "<html>Bad Gateway</html>"), (200, "<html>captive portal</html>")])

    def answer(request: httpx.Request) -> httpx.Response:
        status, text = next(pages)
        return httpx.Response(status, text=text, request=request)

    async with AsyncMemoryClient("k", transport=httpx.MockTransport(answer), retry=NO_RETRY) as memory:
        with pytest.raises(Unavailable, match="502"):
            await memory.recall("alice", "x")
        with pytest.raises(ProtocolError):
            await memory.recall("alice", "x")


async def test_a_committed_write_with_a_failed_nested_read_is_returned() -> None:
    """A mutation field that answers data committed its write: errors below it (here the stored
    interaction could not be read back) must not turn it into an exception, which would invite a
    duplicate. A query with the same partial answer raises."""
    write = {
        "remember": {
            "interactionId": "int_1",
            "created": True,
            "seq": 7,
            "consolidation": None,
            "interaction": None,
        }
    }
    error = {"message": "boom", "path": ["remember", "interaction"], "extensions": {"code": "INTERNAL"}}
    read = {"recall": None}

    def answer(request: httpx.Request) -> httpx.Response:
        data = write if b"Remember" in request.content else read
        return httpx.Response(200, json={"data": data, "errors": [error]}, request=request)

    async with AsyncMemoryClient("k", transport=httpx.MockTransport(answer), retry=NO_RETRY) as memory:
        done = await memory.remember("alice", "hello")
        assert (done.interaction_id, done.seq, done.interaction) == ("int_1", 7, None)
        with pytest.raises(InternalError):
            await memory.recall("alice", "hello")


# -- retries -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source_ref", ["msg-42", None])
async def test_a_lost_answer_is_retried_without_a_duplicate(
    open_client: Opener, live: str, tenant: Tenant, db: Database, source_ref: str | None
) -> None:
    faults = Faults([BUSY, LIMITED, LOST])
    async with open_client(tenant.key, live, faults=faults) as memory:
        done = await memory.remember("alice", "My cat is called Tom.", source_ref=source_ref)
    # The third try committed and its answer was lost; the fourth resent the same source_ref.
    assert (faults.requests, faults.forwarded) == (4, 2)
    assert done.created is False and done.seq == 1
    assert done.interaction is not None and done.interaction.id == done.interaction_id
    ref = done.interaction.source_ref or ""
    assert ref == source_ref if source_ref else ref.startswith(GENERATED_REF_PREFIX)
    assert (await count_nodes(db, tenant.name)).get("Interaction") == 1


async def test_a_lost_batch_is_retried_without_duplicates(
    open_client: Opener, live: str, tenant: Tenant, db: Database
) -> None:
    faults = Faults([LOST])
    units = [Unit(f"Note number {n}.", occurred_at=_day(n)) for n in range(3)]
    async with open_client(tenant.key, live, faults=faults) as memory:
        done = await memory.remember_batch("alice", units, consolidate=False)
    assert faults.forwarded == 2 and [r.created for r in done] == [False, False, False]
    assert [r.seq for r in done] == [1, 2, 3]
    assert (await count_nodes(db, tenant.name)).get("Interaction") == 3


async def test_reads_retry_and_give_up_after_the_bound(
    open_client: Opener, live: str, tenant: Tenant
) -> None:
    async with open_client(tenant.key, live) as memory:
        await memory.remember("alice", "I like tea.", source_ref="t1")
    faults = Faults([BUSY] * FAST.attempts)
    async with open_client(tenant.key, live, faults=faults) as memory:
        with pytest.raises(Unavailable) as raised:
            await memory.recall("alice", "tea")
    assert faults.requests == FAST.attempts and raised.value.status == 503


@pytest.mark.parametrize("fault", [BUSY, LOST])
async def test_answer_and_forget_are_not_retried(
    open_client: Opener, live: str, tenant: Tenant, fault: str
) -> None:
    async with open_client(tenant.key, live) as memory:
        stored = await memory.remember("alice", "I like green tea.", source_ref="g1")
    calls: list[Callable[[AsyncMemoryClient], Awaitable[object]]] = [
        lambda m: m.answer("alice", "What do I like?"),
        lambda m: m.forget_interaction(stored.interaction_id),
        lambda m: m.forget_user("alice"),
        lambda m: m.consolidate("alice"),
    ]
    for call in calls:
        faults = Faults([fault])
        async with open_client(tenant.key, live, faults=faults) as memory:
            with pytest.raises(Unavailable):
                await call(memory)
        assert faults.requests == 1


async def test_a_rate_limited_answer_is_retried(open_client: Opener, live: str, tenant: Tenant) -> None:
    """A 429 comes before execution: even an operation that is not safe to repeat is sent again."""
    async with open_client(tenant.key, live) as memory:
        await memory.remember("alice", "I like green tea.", source_ref="g1")
    faults = Faults([LIMITED])
    async with open_client(tenant.key, live, faults=faults) as memory:
        answered = await memory.answer("alice", "What do I like?")
    assert answered.recall.query == "What do I like?" and faults.requests == 2


# -- pieces without a service ------------------------------------------------------------------


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert retry_after("3") == 3.0 and retry_after(None) is None and retry_after("soon") is None
    assert retry_after("Wed, 01 May 2024 12:00:30 GMT", now) == 30.0


def test_retry_policy_bounds_every_delay() -> None:
    policy = RetryPolicy(attempts=6, initial_delay_s=0.5, max_delay_s=2.0)
    write = operations.remember("alice", "x")
    busy = Unavailable("busy")
    delays = [policy.delay(write, attempt, busy) for attempt in range(1, 6)]
    assert all(d is not None and 0.25 <= d <= 2.0 for d in delays)
    assert policy.delay(write, 6, busy) is None  # attempts spent
    assert policy.delay(write, 1, BadUserInput("no")) is None
    assert policy.delay(write, 1, RateLimited("wait", retry_after=1.5)) == 1.5
    assert policy.delay(write, 1, RateLimited("wait", retry_after=60.0)) is None
    question = operations.answer("a", "q?")
    assert policy.delay(question, 1, busy) is None
    assert policy.delay(question, 1, ConnectionFailed("lost", sent=True)) is None
    assert policy.delay(question, 1, ConnectionFailed("refused", sent=False)) is not None
    assert policy.delay(question, 1, RateLimited("wait", retry_after=0.5)) == 0.5


def test_each_call_gets_its_own_source_ref_and_keeps_it() -> None:
    first = operations.remember("alice", "same text")
    second = operations.remember("alice", "same text")
    refs = [op.variables["input"]["sourceRef"] for op in (first, first, second)]
    assert refs[0] == refs[1] != refs[2]
    assert first.body() == first.body()  # what a retry resends


def test_errors_share_one_base() -> None:
    for cls in (BadUserInput, Unauthenticated, NotFound, RateLimited, Unavailable, ConnectionFailed):
        assert issubclass(cls, MemoryClientError)


# -- the README's agent loop -------------------------------------------------------------------


def _readme_loop() -> str:
    section = README.read_text().split("## An agent loop", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found, "no Python block in the README's Python client section"
    return found.group(1)


async def test_the_readme_agent_loop_runs_and_is_idempotent(
    live: str, tenant: Tenant, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    class HereClient(MemoryClient):
        """The README's client, pointed at this test's service instead of the default port."""

        def __init__(self, api_key: str) -> None:
            super().__init__(api_key, base_url=live, timeout=TIMEOUT)

    monkeypatch.setenv("RECMEM_API_KEY", tenant.key)
    monkeypatch.setattr(recmem_client, "MemoryClient", HereClient)
    prompts: list[str] = []

    def llm(prompt: str) -> str:
        prompts.append(prompt)
        return f"Noted ({len(prompts)})."

    namespace = {"conversation": STORY[:3], "llm": llm, "print": lambda *_: None}
    code = compile(_readme_loop(), "README.md", "exec")
    await asyncio.to_thread(exec, code, dict(namespace))
    assert len(prompts) == 3
    assert STORY[0] in prompts[1].split("User:")[0]  # the second turn's context recalls the first
    assert (await count_nodes(db, tenant.name)).get("Interaction") == 6
    # Run again, as an agent restarted mid-conversation would: its source_refs store nothing new.
    await asyncio.to_thread(exec, code, dict(namespace))
    assert (await count_nodes(db, tenant.name)).get("Interaction") == 6


async def test_scopes_and_filters_end_to_end(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        notes = ["I bought a red bicycle.", "The dentist is on Friday.", "My favourite tea is jasmine."]
        for day, agent in enumerate(["a1", "a2", "a1"]):
            done = await memory.remember(
                "erin",
                notes[day],
                occurred_at=_day(day),
                agent_id=agent,
                metadata={"day": day, "tags": ["x"]},
            )
            assert done.interaction is not None
            assert done.interaction.agent_id == agent and done.interaction.metadata == {
                "day": day,
                "tags": ["x"],
            }
        mine = await memory.recall("erin", "tea bicycle dentist", filter={"agentIds": ["a1"]})
        assert sorted(h.interaction.text for h in mine.subconscious) == sorted([notes[0], notes[2]])
        one = await memory.recall(
            "erin",
            "tea bicycle dentist",
            filter={"metadata": [{"key": "day", "anyOf": [1, 2]}], "agentIds": ["a2"]},
        )
        assert [h.interaction.text for h in one.subconscious] == [notes[1]]
        with pytest.raises(BadUserInput):
            await memory.remember("erin", "Bad.", metadata={"deep": {"a": 1}})
        with pytest.raises(BadUserInput):
            await memory.recall("erin", "tea", filter={"agentIds": []})
        # A filter's times may be datetimes, as asked_at is; a naive one is refused, as there.
        later = await memory.recall("erin", "tea bicycle dentist", filter={"occurredAfter": _day(1)})
        assert sorted(h.interaction.text for h in later.subconscious) == sorted(notes[1:])
        with pytest.raises(BadUserInput, match="timezone"):
            await memory.recall("erin", "tea", filter={"occurredAfter": datetime(2024, 5, 2)})
        # A value JSON cannot carry is the caller's bad input, and nothing is sent.
        with pytest.raises(BadUserInput, match="JSON"):
            await memory.remember("erin", "Bad.", metadata={"a": float("nan")})
        with pytest.raises(BadUserInput, match="JSON"):
            await memory.recall("erin", "tea", filter={"metadata": [{"key": "a", "equals": {1, 2}}]})
        assert (await memory.recall("erin", "Bad")).subconscious[0].interaction.text != "Bad."


async def test_stats_take_the_filter_recall_takes(open_client: Opener, live: str, tenant: Tenant) -> None:
    async with open_client(tenant.key, live) as memory:
        notes = ["I bought a red bicycle.", "The dentist is on Friday.", "My favourite tea is jasmine."]
        for day, agent in enumerate(["a1", "a2", "a1"]):
            await memory.remember(
                "gail", notes[day], occurred_at=_day(day), agent_id=agent, metadata={"day": day}
            )
        await memory.add_fact("gail", "Gail rides a red bicycle.", "attribute", agent_id="a1")
        whole = await memory.stats("gail")
        assert (whole.interactions, whole.active_facts, whole.episodes) == (3, 1, 0)
        mine = await memory.stats("gail", filter={"agentIds": ["a1"]})
        assert (mine.interactions, mine.active_facts) == (2, 1)
        theirs = await memory.stats(
            "gail", filter={"metadata": [{"key": "day", "anyOf": [1, 2]}], "agentIds": ["a2"]}
        )
        assert (theirs.interactions, theirs.active_facts) == (1, 0)
        # Runs hold no scope: their count and cost stay the user's whole under any filter.
        assert (theirs.runs, theirs.prompt_tokens) == (whole.runs, whole.prompt_tokens)
        # A filter's times may be datetimes, as recall's are; a naive one is refused, as there.
        later = await memory.stats("gail", filter={"occurredAfter": _day(1)})
        assert later.interactions == 2
        with pytest.raises(BadUserInput, match="timezone"):
            await memory.stats("gail", filter={"occurredAfter": datetime(2024, 5, 2)})
        with pytest.raises(BadUserInput):
            await memory.stats("gail", filter={"agentIds": []})
        with pytest.raises(NotFound):
            await memory.stats("nobody", filter={"agentIds": ["a1"]})
