"""Group commit (consolidation/writing/write_groups.py): concurrent remembers share a transaction, each is
acknowledged after its commit, seq per user stays exact, and failures reach each member."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j.exceptions import ClientError

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Remembered, Unit
from graph.database import Database, Row
from graph.errors import InvalidInput, WriteOutcomeUnknown
from graph.models import Owner
from tests.support.engines import DIMENSION, engine_settings

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _engine(db: Database, wait_ms: float = 50.0) -> MemoryEngine:
    return MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(group_commit_wait_ms=wait_ms)
    )


def _unit(n: int) -> Unit:
    return Unit(text=f"note {n} about topic {n % 5}", occurred_at=T0 + timedelta(minutes=n), session_id="s")


async def _stored(db: Database, owner: Owner) -> list[dict[str, Any]]:
    """The user's interactions in seq order, with the seq of the one each NEXT edge leads to."""
    rows = await db.driver.execute_query(
        """MATCH (:User {tenant: $t, id: $u})-[:HAS]->(i:Interaction)
           OPTIONAL MATCH (i)-[:NEXT]->(n:Interaction)
           RETURN i.id AS id, i.seq AS seq, i.text AS text, collect(n.seq) AS next ORDER BY seq""",
        t=owner.tenant,
        u=owner.user_id,
        database_=db.name,
    )
    return [dict(r) for r in rows.records]


def _assert_exact_chain(rows: list[dict[str, Any]], count: int) -> None:
    assert [r["seq"] for r in rows] == list(range(1, count + 1))
    assert [r["next"] for r in rows] == [[r["seq"] + 1] for r in rows[:-1]] + [[]]


async def test_concurrent_remembers_share_transactions_with_exact_seq(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    users = [owner, Owner(owner.tenant, "bob"), Owner(owner.tenant, "carol")]
    calls = [(users[n % 3], _unit(n)) for n in range(24)]
    before = db.round_trips
    results = await asyncio.gather(*(engine.remember(o, u, consolidate=False) for o, u in calls))
    # Fewer transactions than writes (each transaction counts one round trip in Database).
    assert engine.writes.stats.members == 24
    assert engine.writes.stats.transactions < 24
    assert db.round_trips - before == engine.writes.stats.transactions
    assert engine.writes.stats.largest > 1
    for user in users:
        mine = [(u, r) for (o, u), r in zip(calls, results, strict=True) if o == user]
        rows = await _stored(db, user)
        _assert_exact_chain(rows, len(mine))
        # Each acknowledged write stored once, with the seq its acknowledgement gave.
        by_id = {r["id"]: r for r in rows}
        assert len(by_id) == len(mine) == 8
        for unit, remembered in mine:
            assert remembered.created
            assert by_id[remembered.interaction_id]["seq"] == remembered.seq
            assert by_id[remembered.interaction_id]["text"] == unit.text
        # One caller's writes keep their order of arrival within a user.
        assert [r.seq for _, r in mine] == sorted(r.seq for _, r in mine)


async def test_a_lone_writer_never_waits_and_zero_turns_grouping_off(db: Database, owner: Owner) -> None:
    grouped = _engine(db, wait_ms=100.0)
    for n in range(3):
        await grouped.remember(owner, _unit(n), consolidate=False)
    assert grouped.writes.stats.transactions == 3
    assert grouped.writes.stats.waited == 0  # nobody else was on the way: no group waited
    off = _engine(db, wait_ms=0)
    other = Owner(owner.tenant, "bob")
    await asyncio.gather(*(off.remember(other, _unit(n), consolidate=False) for n in range(6)))
    assert off.writes.stats.transactions == 6
    _assert_exact_chain(await _stored(db, other), 6)


async def test_an_invalid_member_does_not_fail_the_others(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    good = [engine.remember(owner, _unit(n), consolidate=False) for n in range(5)]
    bad_speaker = Unit(text="fine text", speaker="   ")  # a blank name: refused by the store
    bad = engine.remember(owner, bad_speaker, consolidate=False)
    bad_user = engine.remember(Owner(owner.tenant, ""), _unit(9), consolidate=False)
    results = await asyncio.gather(*good[:2], bad, *good[2:], bad_user, return_exceptions=True)
    assert isinstance(results[2], InvalidInput) and isinstance(results[6], InvalidInput)
    stored = [r for r in results if isinstance(r, Remembered)]
    assert len(stored) == 5
    _assert_exact_chain(await _stored(db, owner), 5)


class _RefusingDatabase(Database):
    """The session's database, whose shared (several-statement) write transactions fail as told;
    a single write fails only for the user named in `refuse_alone`."""

    def __init__(self, db: Database, shared_error: Exception) -> None:
        super().__init__(db.driver, db.name, retry_s=0.5)
        self.shared_error = shared_error
        self.refuse_alone: str | None = None
        self.shared_attempts = 0

    async def write_many(self, statements: list[tuple[str, dict[str, Any]]]) -> list[list[Row]]:
        self.shared_attempts += 1
        raise self.shared_error

    async def write(self, name: str, **params: Any) -> list[Row]:
        if params.get("user_id") == self.refuse_alone:
            raise ClientError("injected: this user's statement is refused")
        return await super().write(name, **params)


async def test_a_refused_shared_transaction_writes_each_member_alone(db: Database, owner: Owner) -> None:
    faulty = _RefusingDatabase(db, ClientError("injected: the shared statement is refused"))
    faulty.refuse_alone = "mallory"
    engine = _engine(faulty)
    users = [owner, Owner(owner.tenant, "mallory"), Owner(owner.tenant, "bob")]
    calls = [(users[n % 3], _unit(n)) for n in range(9)]
    results = await asyncio.gather(
        *(engine.remember(o, u, consolidate=False) for o, u in calls), return_exceptions=True
    )
    assert faulty.shared_attempts >= 1
    assert engine.writes.stats.alone_after_failure >= 9
    for (user, _), result in zip(calls, results, strict=True):
        if user.user_id == "mallory":
            assert isinstance(result, ClientError)
        else:
            assert isinstance(result, Remembered) and result.created
    _assert_exact_chain(await _stored(db, owner), 3)
    _assert_exact_chain(await _stored(db, Owner(owner.tenant, "bob")), 3)
    assert await _stored(db, Owner(owner.tenant, "mallory")) == []


async def test_an_unknown_commit_is_reported_to_every_member(db: Database, owner: Owner) -> None:
    faulty = _RefusingDatabase(db, WriteOutcomeUnknown("injected: the connection broke during COMMIT"))
    engine = _engine(faulty)
    results = await asyncio.gather(
        *(engine.remember(owner, _unit(n), consolidate=False) for n in range(6)), return_exceptions=True
    )
    # Every member may be written: each reports it, and none is written again alone (that
    # could store it twice).
    assert all(isinstance(r, WriteOutcomeUnknown) for r in results)
    assert engine.writes.stats.alone_after_failure == 0
    assert faulty.shared_attempts == 1
    assert await _stored(db, owner) == []


@pytest.mark.parametrize("wait_ms", [0.0, 50.0])
async def test_cancelled_before_its_group_goes_is_never_written(
    db: Database, owner: Owner, wait_ms: float
) -> None:
    engine = _engine(db, wait_ms)
    tasks = [asyncio.create_task(engine.remember(owner, _unit(n), consolidate=False)) for n in range(4)]
    await asyncio.sleep(0)  # every task has queued its write (the hashing embedder never yields)
    if wait_ms:
        tasks[3].cancel()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    written = [r for r in done if isinstance(r, Remembered)]
    rows = await _stored(db, owner)
    assert {r["id"] for r in rows} == {r.interaction_id for r in written}
    _assert_exact_chain(rows, len(written))


async def test_a_repeated_source_ref_in_one_group_is_stored_once(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    units = [_unit(0), _unit(1).model_copy(update={"source_ref": "ref-1"}), _unit(2)]
    again = _unit(3).model_copy(update={"source_ref": "ref-1"})
    results = await asyncio.gather(*(engine.remember(owner, u, consolidate=False) for u in [*units, again]))
    assert engine.writes.stats.transactions == 1  # all four queued before the group went
    assert [r.created for r in results] == [True, True, True, False]
    assert results[3].interaction_id == results[1].interaction_id and results[3].seq == results[1].seq
    _assert_exact_chain(await _stored(db, owner), 3)


class _GatedEmbedder(HashingEmbedder):
    """Yields to the event loop while embedding, as a real embedder (a thread, an HTTP call) does:
    its n-th call returns once gates[n] is set."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.gates = [asyncio.Event() for _ in range(3)]
        self.calls = 0

    async def embed(self, texts: list[str]) -> Any:
        gate = self.gates[self.calls]
        self.calls += 1
        await gate.wait()
        return self.embed_sync(texts)


async def _until(condition: Any) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def test_a_group_waits_for_writes_on_their_way(db: Database, owner: Owner) -> None:
    embedder = _GatedEmbedder(DIMENSION)
    engine = MemoryEngine(db, embedder, OfflineConsolidator(), engine_settings())
    engine.writes.wait_s = 60.0  # above the setting's range, so that no load can outlast it
    tasks = [asyncio.create_task(engine.remember(owner, _unit(n), consolidate=False)) for n in range(3)]
    await _until(lambda: embedder.calls == 3)  # all three are embedding
    embedder.gates[0].set()
    # The first write is queued and its group waits, since two more are on their way.
    await _until(lambda: engine.writes.stats.waited == 1)
    assert engine.writes.stats.transactions == 0
    embedder.gates[1].set()
    embedder.gates[2].set()
    # The wait ends as soon as no write is on its way (60 s is only its bound).
    await asyncio.wait_for(asyncio.gather(*tasks), 50)
    assert engine.writes.stats.transactions == 1
    _assert_exact_chain(await _stored(db, owner), 3)
