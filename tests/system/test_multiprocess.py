"""More than one process: bounded concurrent consolidation, work shared through the leases and the
sweeper, and consolidation events every subscriber sees whichever process consolidated.

The last test runs two real `recmem serve` processes on the session's Neo4j."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Forgetter
from consolidation.forgetting.keys import AccessKeys
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import ConsolidationOutcome, Unit
from graph.database import Database
from graph.models import Owner
from graph.settings import Neo4jSettings
from tests.support.engines import DIMENSION, engine_settings, lease_of
from tests.support.faults import (
    free_ports,
    half_written,
    running_service,
    scope_sweeper,
    service_env,
    until,
)

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
# Topics the hashing embedder keeps apart (cosine <= 0.25 across, about 0.8 within).
TOPICS = [
    "sushi salmon tuna wasabi rolls",
    "violin lesson practice scales bow",
    "garden tomatoes basil compost soil",
    "marathon training running shoes pace",
    "jazz concert saxophone trumpet club",
    "kitchen renovation tiles cabinets sink",
    "chess openings endgame tactics puzzles",
    "sailing harbour wind knots mooring",
]
# Thresholds under which three turns of a topic open an episode, the next ones merge into it.
GATE = {"theta_sim": 0.5, "theta_count": 3, "merge_threshold": 0.6}


def turns(topics: list[str], per_topic: int, tag: str) -> list[str]:
    """`per_topic` turns of each topic, the topics interleaved, every text unique."""
    return [f"{topic} {tag}{n}" for n in range(per_topic) for topic in topics]


def background_engine(db: Database, tenant: str, **overrides: Any) -> MemoryEngine:
    background: dict[str, Any] = {
        "consolidation_mode": "background",
        "consolidation_delay_s": 0,
        "sweep_interval_s": 0.2,
    }
    settings = engine_settings(**GATE, **(background | overrides))
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), settings)
    scope_sweeper(engine, tenant)  # the session database holds other tests' pending users
    return engine


async def rows(db: Database, cypher: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(cypher, params, database_=db.name)
    return [r.data() for r in result.records]


async def pending_in(db: Database, tenant: str) -> int:
    found = await rows(
        db, "MATCH (n:Interaction {tenant: $t}) WHERE n.gate_checked = false RETURN count(n) AS n", t=tenant
    )
    return int(found[0]["n"])


async def logged_events(db: Database, owner: Owner) -> list[dict[str, Any]]:
    return await rows(
        db,
        """MATCH (e:ConsolidationEvent {tenant: $t, user_id: $u})
           RETURN e.seq AS seq, e.origin AS origin, e.trigger_id AS trigger, e.episode_id AS episode,
                  e.consolidated_ids AS consolidated
           ORDER BY e.seq""",
        t=owner.tenant,
        u=owner.user_id,
    )


async def check_consolidated_once(db: Database, tenant: str) -> None:
    """No interaction absorbed twice (by one event or by two), the graph whole, no lease left."""
    assert await half_written(db.driver, tenant, facts_expected=False) == []
    users = await rows(
        db, "MATCH (u:User {tenant: $t}) RETURN u.id AS id, u.lease_holder AS holder", t=tenant
    )
    for user in users:
        assert user["holder"] is None, user
        events = await logged_events(db, Owner(tenant, user["id"]))
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        absorbed = [i for e in events for i in e["consolidated"]]
        assert len(absorbed) == len(set(absorbed)), f"an interaction consolidated twice for {user['id']}"
        episodes = [e["episode"] for e in events]
        assert len(episodes) == len(set(episodes))


# -- bounded concurrency in one process ---------------------------------------------------------


@dataclass
class Flight:
    """The users the engine's workers are on right now, the most at once, and any user found
    worked on twice at once."""

    now: set[Owner] = field(default_factory=set)
    most: int = 0
    twice: list[Owner] = field(default_factory=list)
    passes: int = 0


def watch_flight(engine: MemoryEngine, hold_s: float) -> Flight:
    """Count the users in the engine's passes; each pass first waits `hold_s`, so that passes of
    different users overlap however fast the machine is."""
    flight = Flight()
    consolidate = engine.consolidate

    async def watched(owner: Owner, **options: Any) -> list[ConsolidationOutcome]:
        if owner in flight.now:
            flight.twice.append(owner)
        flight.now.add(owner)
        flight.passes += 1
        flight.most = max(flight.most, len(flight.now))
        try:
            await asyncio.sleep(hold_s)
            return await consolidate(owner, **options)
        finally:
            flight.now.discard(owner)

    # method-assign: replaced on this engine alone; it counts the users in its passes.
    engine.consolidate = watched  # type: ignore[method-assign]
    return flight


def stall_passes(engine: MemoryEngine, users: set[Owner]) -> None:
    """Every pass stalls once it holds its lease (at its read of the pending interactions); the
    users that got there are added to `users`."""
    pending = engine.stores.interactions.pending

    async def stalled(owner: Owner, *args: Any, **kwargs: Any) -> Any:
        users.add(owner)
        await asyncio.sleep(60)
        return await pending(owner, *args, **kwargs)

    # method-assign: replaced on this engine alone; its store stalls.
    engine.stores.interactions.pending = stalled  # type: ignore[method-assign]


async def test_several_users_at_once_never_more_than_the_limit_never_one_twice(
    db: Database, owner: Owner
) -> None:
    limit = 3
    users = [Owner(owner.tenant, f"user-{n}") for n in range(6)]
    # No sweeper: every pass here comes from a write.
    engine = background_engine(db, owner.tenant, worker_concurrency=limit, sweep_interval_s=0)
    flight = watch_flight(engine, hold_s=0.3)
    texts = turns(TOPICS[:2], 3, "t")

    async def write(text: str) -> None:
        await asyncio.gather(*(engine.remember(u, Unit(text=text, speaker="Alice")) for u in users))

    await write(texts[0])  # every user queued before the workers start: `limit` of them at once
    engine.start()
    try:
        async with asyncio.timeout(240):
            # The other writes arrive while passes run, so users are queued again while in flight.
            for text in texts[1:]:
                await write(text)

            async def done() -> bool:
                return await pending_in(db, owner.tenant) == 0 and not flight.now

            await until(done, 200, "every user consolidated")
            await engine.drain_queue()
    finally:
        await engine.stop()
    assert flight.most == limit, flight  # several users in flight, never more than the limit
    assert flight.twice == []
    assert flight.passes >= len(users)
    for user in users:
        assert len(await logged_events(db, user)) >= 2  # an episode per topic
    await check_consolidated_once(db, owner.tenant)


async def test_stopping_mid_passes_leaves_no_lease_held(db: Database, owner: Owner) -> None:
    users = [Owner(owner.tenant, f"user-{n}") for n in range(4)]
    engine = background_engine(db, owner.tenant, worker_concurrency=4)
    leased: set[Owner] = set()
    stall_passes(engine, leased)
    engine.start()
    try:
        for user in users:
            await engine.remember(user, Unit(text="a remark about the weather", speaker="Alice"))

        async def all_in_flight() -> bool:
            return len(leased) == len(users)

        await until(all_in_flight, 60, "four passes at once, each holding its lease")
        for user in users:
            assert await lease_of(db, user) == engine.holder
    finally:
        async with asyncio.timeout(30):
            await engine.stop()
    for user in users:
        assert await lease_of(db, user) is None
    assert await pending_in(db, owner.tenant) == len(users)  # left for the next pass


# -- two engines on one database: the work shared, the events shared ---------------------------


async def collect(engine: MemoryEngine, owner: Owner, into: list[ConsolidationOutcome]) -> None:
    async for outcome in engine.subscribe(owner):
        if outcome.action in ("created", "merged"):
            into.append(outcome)


def feeds_of(engine: MemoryEngine) -> float:
    return engine.metrics.registry.get_sample_value("recmem_event_feeds") or 0.0


async def test_two_engines_share_the_users_and_each_subscriber_hears_both(db: Database, owner: Owner) -> None:
    users = [Owner(owner.tenant, f"user-{n}") for n in range(4)]
    watched = users[0]
    first = background_engine(db, owner.tenant, worker_concurrency=2)
    second = background_engine(db, owner.tenant, worker_concurrency=2)
    heard: tuple[list[ConsolidationOutcome], list[ConsolidationOutcome]] = ([], [])
    listeners = [
        asyncio.create_task(collect(engine, watched, into))
        for engine, into in zip((first, second), heard, strict=True)
    ]
    first.start()
    second.start()
    try:
        async with asyncio.timeout(240):

            async def listening() -> bool:
                return feeds_of(first) == 1 and feeds_of(second) == 1

            await until(listening, 30, "both feeds")

            # Deterministic origins first: a topic of the watched user consolidated by each engine.
            # A write with consolidate=True reports the pass of whoever holds the user's lease, so
            # each engine writes its topic only once no pass of the other holds it.
            async def lease_free() -> bool:
                return await lease_of(db, watched) is None

            for engine, topic in ((first, TOPICS[4]), (second, TOPICS[5])):
                await until(lease_free, 60, "the watched user's lease released")
                for text in turns([topic], 3, "inline"):
                    await engine.remember(watched, Unit(text=text, speaker="Alice"), consolidate=True)
            texts = turns(TOPICS[:4], 4, "x")
            # Every user's writes go to both engines, alternately, from concurrent writers.
            for index, text in enumerate(texts):
                writer = (first, second)[index % 2]
                await asyncio.gather(*(writer.remember(u, Unit(text=text, speaker="Alice")) for u in users))

            async def settled() -> bool:
                logged = {e["episode"] for e in await logged_events(db, watched)}
                return (
                    await pending_in(db, owner.tenant) == 0
                    and bool(logged)
                    and all({o.episode_id for o in h} == logged for h in heard)
                )

            await until(settled, 200, "no pending work and every event heard on both")
    finally:
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)

        # The last subscriber of the user left: each engine's feed stops once its cancelled task
        # next runs, which on a loaded machine can come after the listeners are gone.
        async def feeds_stopped() -> bool:
            return [feeds_of(first), feeds_of(second)] == [0, 0]

        with contextlib.suppress(AssertionError):  # asserted below, once the engines are stopped
            await until(feeds_stopped, 30, "both feeds stopped")
        feeds_left = [feeds_of(first), feeds_of(second)]
        await first.stop()
        await second.stop()
    assert feeds_left == [0, 0]
    for outcomes in heard:
        ids = [o.episode_id for o in outcomes]
        assert len(ids) == len(set(ids))  # none delivered twice
    origins = {e["origin"] for e in await logged_events(db, watched)}
    assert origins == {first.holder, second.holder}  # each subscriber heard the other engine's
    await check_consolidated_once(db, owner.tenant)


async def test_forgetting_erases_the_event_records(db: Database, owner: Owner) -> None:
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**GATE))
    for n, text in enumerate(turns(TOPICS[:1], 3, "f") + turns(TOPICS[1:2], 3, "g")):
        at = T0 + timedelta(hours=n)
        await engine.remember(owner, Unit(text=text, speaker="Alice", occurred_at=at))
    events = await logged_events(db, owner)
    assert len(events) == 2 and all(len(e["consolidated"]) == 3 for e in events)
    forgetter = Forgetter(engine)
    forgotten = events[0]["consolidated"][0]
    await forgetter.forget_interaction(owner, forgotten, by="tests (key_test)")
    # The event that names the forgotten turn is gone; the other topic's stays.
    assert await logged_events(db, owner) == events[1:]
    await forgetter.forget_user(owner)
    assert await logged_events(db, owner) == []


async def test_a_feed_follows_a_user_forgotten_and_written_again(db: Database, owner: Owner) -> None:
    """The user's log starts over after forgetUser: a subscriber on another engine still hears the
    new user's consolidations (its sequence restarts at 1)."""
    writer = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**GATE))
    watcher = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(**GATE))
    heard: list[ConsolidationOutcome] = []
    listener = asyncio.create_task(collect(watcher, owner, heard))
    try:
        async with asyncio.timeout(120):

            async def listening() -> bool:
                return feeds_of(watcher) == 1

            await until(listening, 30, "the watcher's feed")
            for round_, topic in enumerate(TOPICS[:2]):
                for text in turns([topic], 3, f"r{round_}-"):
                    await writer.remember(owner, Unit(text=text, speaker="Alice"))
                logged = await logged_events(db, owner)
                assert [e["seq"] for e in logged] == [1]

                async def heard_it(episode: str = logged[0]["episode"]) -> bool:
                    return episode in {o.episode_id for o in heard}

                await until(heard_it, 60, f"the event of round {round_}")
                if round_ == 0:
                    await Forgetter(writer).forget_user(owner)
    finally:
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    assert len(heard) == 2


# -- two real service processes ---------------------------------------------------------------

PROTOCOL = "graphql-transport-ws"
SUBSCRIBE = """subscription($u: ID!) { consolidations(userId: $u) {
  action triggerId episodeId consolidatedIds } }"""
REMEMBER = """mutation($u: ID!, $text: String!, $at: DateTime!, $consolidate: Boolean) {
  remember(input: {userId: $u, text: $text, occurredAt: $at}, consolidate: $consolidate) {
    interaction { id } } }"""


@dataclass
class Subscriber:
    ws: ClientConnection
    events: list[dict[str, Any]] = field(default_factory=list)

    async def listen(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message["type"] == "next":
                self.events.append(message["payload"]["data"]["consolidations"])
            elif message["type"] in ("error", "complete"):
                raise AssertionError(f"the subscription ended: {message}")


@contextlib.asynccontextmanager
async def subscribed(base: str, key: str, user: str) -> AsyncIterator[Subscriber]:
    url = base.replace("http://", "ws://") + "/graphql"
    protocols = [Subprotocol(PROTOCOL)]
    async with connect(
        url, subprotocols=protocols, additional_headers={"authorization": f"Bearer {key}"}
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIBE, "variables": {"u": user}}}
            )
        )
        subscriber = Subscriber(ws)
        listening = asyncio.create_task(subscriber.listen())
        try:
            yield subscriber
        finally:
            listening.cancel()
            await asyncio.gather(listening, return_exceptions=True)


async def feeds_at(http: httpx.AsyncClient, base: str) -> float:
    text = (await http.get(f"{base}/metrics")).text
    found = re.search(r"^recmem_event_feeds (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


@contextlib.contextmanager
def two_services(neo4j: Neo4jSettings, workdir: Path) -> Iterator[list[str]]:
    settings = {
        "RECMEM_THETA_SIM": str(GATE["theta_sim"]),
        "RECMEM_THETA_COUNT": str(GATE["theta_count"]),
        "RECMEM_MERGE_THRESHOLD": str(GATE["merge_threshold"]),
        "RECMEM_MERGE_BATCH": "2",
        "RECMEM_CONSOLIDATION_MODE": "background",
        "RECMEM_WORKER_CONCURRENCY": "2",
        "RECMEM_SWEEP_INTERVAL_S": "1",
        "RECMEM_EVENT_POLL_S": "0.5",
    }
    with contextlib.ExitStack() as stack:
        services = [
            stack.enter_context(
                running_service(service_env(neo4j, port, **settings), workdir, name, wait=False)
            )
            for name, port in zip(("serve-a", "serve-b"), free_ports(2), strict=True)
        ]
        for service in services:
            service.wait_ready(120)
        yield [s.base for s in services]


async def test_two_service_processes_share_the_work_and_every_subscriber_sees_every_event(
    db: Database, neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    key = (await AccessKeys(db).create(tenant, "test")).secret
    watched = "watched"
    users = [watched, "other-1", "other-2", "other-3"]
    clock = itertools.count()
    async with (
        asyncio.timeout(600),
        httpx.AsyncClient(timeout=60, headers={"authorization": f"Bearer {key}"}) as http,
    ):
        with two_services(neo4j_settings, tmp_path) as bases:

            async def remember(base: str, user: str, text: str, consolidate: bool | None = None) -> None:
                at = (T0 + timedelta(minutes=next(clock))).isoformat()
                variables = {"u": user, "text": text, "at": at, "consolidate": consolidate}
                body = (
                    await http.post(f"{base}/graphql", json={"query": REMEMBER, "variables": variables})
                ).json()
                assert "errors" not in body, body

            async with subscribed(bases[0], key, watched) as on_a, subscribed(bases[1], key, watched) as on_b:

                async def listening() -> bool:
                    return all([await feeds_at(http, b) >= 1 for b in bases])

                await until(listening, 60, "a feed on each process")

                # Deterministic origins first: one topic consolidated inline by each process, each
                # once no pass of the other holds the user's lease (a write with consolidate=true
                # reports the pass of whoever holds it).
                async def lease_free() -> bool:
                    return await lease_of(db, Owner(tenant, watched)) is None

                for process, topic in ((0, TOPICS[0]), (1, TOPICS[1])):
                    await until(lease_free, 60, "the watched user's lease released")
                    for text in turns([topic], 3, f"p{process}-"):
                        await remember(bases[process], watched, text, consolidate=True)
                # Then the load: four writers, two on each process, every user written on both.
                texts = turns(TOPICS[2:], 4, "w")

                async def writer(index: int) -> None:
                    for n, text in enumerate(texts):
                        await remember(bases[(index + n) % 2], users[index], text)

                await asyncio.gather(*(writer(i) for i in range(len(users))))

                # No new writes from here: the workers and the sweepers finish the backlog.
                async def drained() -> bool:
                    return await pending_in(db, tenant) == 0

                await until(drained, 240, "pending work to reach 0")
                owner = Owner(tenant, watched)

                async def heard_everything() -> bool:
                    logged = {e["episode"] for e in await logged_events(db, owner)}
                    return all({e["episodeId"] for e in s.events} == logged for s in (on_a, on_b))

                await until(heard_everything, 120, "both subscribers to hear every event")

        events = await logged_events(db, owner)
        episodes = await rows(
            db, "MATCH (e:Episode {tenant: $t, user_id: $u}) RETURN e.id AS id", t=tenant, u=watched
        )
        assert {e["episode"] for e in events} == {r["id"] for r in episodes}  # an event per version
        for subscriber in (on_a, on_b):
            received = [e["episodeId"] for e in subscriber.events]
            assert len(received) == len(set(received))  # none delivered twice
            assert {e["triggerId"] for e in subscriber.events} == {e["trigger"] for e in events}
            assert {e["action"] for e in subscriber.events} <= {"CREATED", "MERGED"}
        # Both processes consolidated the watched user, so each subscriber heard the other's.
        assert len({e["origin"] for e in events}) == 2
        assert await pending_in(db, tenant) == 0
        await check_consolidated_once(db, tenant)
