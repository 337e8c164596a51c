"""The users with turns waiting for the recurrence gate carry `gating`, indexed, so the sweeper
(consolidation/pending_users) and the backlog (consolidation/pending_backlog) read those users,
never every user of the database; every path that makes such a turn sets it, the pass that leaves
none drops it, and a migration marks the users of an older database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.portability import Portability, dump, parse
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.embedding_template import EmbeddingTemplate
from consolidation.types import Unit
from graph.backfill import backfill
from graph.database import Database
from graph.leases import LeaseStore
from graph.models import Owner
from graph.portability import PortabilityStore
from tests.support.engines import DIMENSION, TEST_TEMPLATE, engine_settings
from tests.support.graph_reads import USER_STATISTICS
from tests.support.profiles import assert_read_by, profiled

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
OTHERS = 2000


async def _rows(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def _gating(db: Database, owner: Owner) -> bool | None:
    rows = await _rows(
        db, "MATCH (u:User {tenant: $t, id: $u}) RETURN u.gating AS g", t=owner.tenant, u=owner.user_id
    )
    return rows[0]["g"] if rows else None


async def _pending_user(db: Database, owner: Owner, turns: int, *, marked: bool = True) -> str:
    """A user of `turns` turns, the first still waiting for the gate (carrying `gating` when
    `marked`), and 2,000 other users without pending turns (nor the hint); their tenant."""
    await _rows(
        db,
        "CREATE (u:User {tenant: $t, id: $u}) SET u += $statistics, u.gating = CASE WHEN $marked THEN true END "
        "WITH u UNWIND range(1, $n) AS k "
        "CREATE (:Interaction {id: 'int_' + $t + k, tenant: $t, user_id: $u, seq: k, consolidated: false, "
        "gate_checked: k > 1, created_at: datetime()})",
        t=owner.tenant,
        u=owner.user_id,
        n=turns,
        marked=marked,
        statistics=USER_STATISTICS,
    )
    others = f"t-{uuid.uuid4().hex[:12]}"
    await _rows(
        db,
        "UNWIND range(1, $n) AS k CREATE (u:User {tenant: $t, id: 'u' + k}) SET u += $statistics",
        t=others,
        n=OTHERS,
        statistics=USER_STATISTICS,
    )
    return others


def _hits(operators: list[Any]) -> int:
    return sum(hits for _, _, hits in operators)


async def test_the_sweeper_reads_the_users_carrying_the_hint(db: Database, owner: Owner) -> None:
    await _pending_user(db, owner, 100)
    rows, operators = await profiled(db, "queries/consolidation/pending_users", skip=[], limit=100_000)
    assert {"tenant": owner.tenant, "user_id": owner.user_id} in rows
    assert_read_by(operators, "User(gating)", "Interaction(tenant, user_id, gate_checked)")
    # Each pending user of the session's database costs a few hits, whatever else it holds.
    assert _hits(operators) < 50 * len(rows) + 200, operators


async def test_the_backlog_reads_the_users_carrying_the_hint(db: Database, owner: Owner) -> None:
    await _pending_user(db, owner, 100)
    rows, operators = await profiled(db, "queries/consolidation/pending_backlog", max_users=100_000)
    assert rows[0]["pending"] >= 1 and rows[0]["users"] >= 1 and not rows[0]["partial"]
    assert_read_by(operators, "User(gating)", "Interaction(tenant, user_id, gate_checked)")
    bound = 50 * rows[0]["users"] + 5 * rows[0]["pending"] + 200
    assert _hits(operators) < bound, operators


async def test_a_stale_hint_counts_nothing(db: Database, owner: Owner) -> None:
    await _pending_user(db, owner, 1)
    await _rows(db, "MATCH (n:Interaction {tenant: $t}) SET n.gate_checked = true", t=owner.tenant)
    assert await _gating(db, owner) is True
    assert owner not in await LeaseStore(db).unattended(100_000)


def _engine(db: Database) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())


async def test_a_written_turn_is_swept_and_counted_until_its_pass(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    leases = LeaseStore(db)
    before = await leases.backlog()
    await engine.remember(
        owner, Unit(text="We had sushi for dinner", speaker="Alice", occurred_at=T0), consolidate=False
    )
    assert await _gating(db, owner) is True
    assert owner in await leases.unattended(100_000)
    written = await leases.backlog()
    assert (written.pending, written.users) == (before.pending + 1, before.users + 1)

    await engine.consolidate(owner)  # the pass leaves nothing pending: the hint goes
    assert await _gating(db, owner) is False
    assert owner not in await leases.unattended(100_000)


async def test_turns_sent_back_through_the_gate_mark_their_user(db: Database, owner: Owner) -> None:
    """forget/release_waiting (an episode they waited for is erased) and waiting/release with
    `regate` make turns pending again."""
    await _rows(
        db,
        "CREATE (u:User {tenant: $t, id: $u}) SET u += $statistics WITH u UNWIND [1, 2] AS k "
        "CREATE (:Interaction {id: 'int_' + $t + k, tenant: $t, user_id: $u, seq: k, consolidated: false, "
        "gate_checked: true, awaits: 'epi_' + $t + k, created_at: datetime()})",
        t=owner.tenant,
        u=owner.user_id,
        statistics=USER_STATISTICS,
    )
    t = owner.tenant
    rows, _ = await profiled(
        db, "queries/forget/release_waiting", **owner.params(), episode_ids=[f"epi_{t}1"]
    )
    assert rows == [{"released": 1}]
    assert await _gating(db, owner) is True

    await _rows(db, "MATCH (u:User {tenant: $t}) REMOVE u.gating", t=t)
    rows, _ = await profiled(db, "queries/waiting/release", **owner.params(), ids=[f"int_{t}2"], regate=False)
    assert await _gating(db, owner) is None  # still through the gate: nothing pending
    await _rows(db, "MATCH (n:Interaction {id: $id}) SET n.awaits = 'epi'", id=f"int_{t}2")
    rows, _ = await profiled(db, "queries/waiting/release", **owner.params(), ids=[f"int_{t}2"], regate=True)
    assert rows == [{"released": 1}]
    assert await _gating(db, owner) is True


async def test_an_imported_pending_turn_marks_its_user(db: Database, owner: Owner) -> None:
    engine = _engine(db)
    await engine.remember(
        owner, Unit(text="We had sushi for dinner", speaker="Alice", occurred_at=T0), consolidate=False
    )
    embedder = HashingEmbedder(DIMENSION)
    portability = Portability(PortabilityStore(db, DIMENSION), embedder, EmbeddingTemplate(TEST_TEMPLATE))
    lines = [dump(line) + "\n" async for line in portability.export(owner)]
    elsewhere = Owner(tenant=f"t-{uuid.uuid4().hex[:12]}", user_id=owner.user_id)
    await portability.import_user(parse(lines), elsewhere)
    assert await _gating(db, elsewhere) is True
    assert elsewhere in await LeaseStore(db).unattended(100_000)
    await engine.consolidate(owner)
    await engine.consolidate(elsewhere)


async def test_the_migration_marks_older_users_with_pending_turns(db: Database, owner: Owner) -> None:
    others = await _pending_user(db, owner, 3, marked=False)
    settled = Owner(owner.tenant, "bob")  # every turn through the gate: not marked
    await _rows(
        db,
        "CREATE (u:User {tenant: $t, id: $u}) SET u += $statistics "
        "CREATE (:Interaction {id: 'int_' + $t + 'bob', tenant: $t, user_id: $u, seq: 1, consolidated: false, "
        "gate_checked: true, created_at: datetime()})",
        t=settled.tenant,
        u=settled.user_id,
        statistics=USER_STATISTICS,
    )
    assert owner not in await LeaseStore(db).unattended(100_000)  # lost to the sweeper

    done = await backfill(db, recheck=True)  # more users than a batch: the loop must go on
    assert done.gating >= 1
    assert await _gating(db, owner) is True and await _gating(db, settled) is False
    known = await _rows(
        db, "MATCH (u:User {tenant: $t}) WHERE u.gating = false RETURN count(u) AS n", t=others
    )
    assert known == [{"n": OTHERS}]  # known to have nothing pending: the next migration skips them
    assert owner in await LeaseStore(db).unattended(100_000)
    assert (await backfill(db, recheck=True)).gating == 0


async def test_a_pass_on_a_user_leaves_the_hint_while_turns_are_pending(db: Database, owner: Owner) -> None:
    """The lease's release drops the hint only when nothing is pending any more."""
    await _pending_user(db, owner, 2)
    leases = LeaseStore(db)
    assert await leases.wait_acquire(owner, "h", 30.0, 0.0)
    assert await leases.release(owner, "h", checked=[]) is True
    assert await _gating(db, owner) is True
    assert await leases.wait_acquire(owner, "h", 30.0, 0.0)
    assert await leases.release(owner, "h", checked=[f"int_{owner.tenant}1"]) is False
    assert await _gating(db, owner) is False
