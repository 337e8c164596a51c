"""What the sweeper's statements read (cypher/queries/waiting: due_users, backlog): the users
carrying the `awaiting` hint by index, never every user of the database, and of each such user its
last turn and waiting turns, never all its turns."""

from __future__ import annotations

import uuid

from graph.database import Database
from graph.models import Owner
from tests.support.graph_reads import USER_STATISTICS
from tests.support.profiles import assert_read_by, profiled


async def _waiting_user(db: Database, owner: Owner, turns: int, ago: str = "PT1H") -> None:
    """A user of `turns` turns whose first waits for an episode's batch merge, written `ago`, and
    2,000 other users without the hint."""
    await db.driver.execute_query(
        "CREATE (u:User {tenant: $t, id: $u, awaiting: true, last_interaction_id: 'int_' + $t + $n}) "
        "SET u += $statistics WITH u UNWIND range(1, $n) AS k "
        "CREATE (:Interaction {id: 'int_' + $t + k, tenant: $t, user_id: $u, seq: k, consolidated: false, "
        "gate_checked: true, created_at: datetime() - duration($ago), "
        "awaits: CASE k WHEN 1 THEN 'epi_' + $t END})",
        t=owner.tenant,
        u=owner.user_id,
        n=turns,
        ago=ago,
        statistics=USER_STATISTICS,
        database_=db.name,
    )
    await db.driver.execute_query(
        "UNWIND range(1, 2000) AS k CREATE (u:User {tenant: $t, id: 'u' + k}) SET u += $statistics",
        t=f"t-{uuid.uuid4().hex[:12]}",
        statistics=USER_STATISTICS,
        database_=db.name,
    )


async def test_the_sweeper_reads_the_waiting_users_and_their_last_turns(db: Database, owner: Owner) -> None:
    await _waiting_user(db, owner, 1000)
    rows, operators = await profiled(db, "queries/waiting/due_users", quiet_ms=1000, skip=[], limit=1000)
    assert {"tenant": owner.tenant, "user_id": owner.user_id} in rows
    assert_read_by(operators, "User(awaiting)", "Interaction(id)", "Interaction(tenant, user_id, awaits)")
    # Every waiting user of the session's database is read; each costs a few hits, not its turns.
    assert sum(hits for _, _, hits in operators) < 50 * len(rows) + 200, operators


async def test_the_sweeper_reads_a_live_sessions_waiting_turns_only(db: Database, owner: Owner) -> None:
    # Written just now: whether the session ended is read from the user's waiting turns.
    await _waiting_user(db, owner, 1000, ago="PT0S")
    rows, operators = await profiled(db, "queries/waiting/due_users", quiet_ms=600_000, skip=[], limit=1000)
    assert {"tenant": owner.tenant, "user_id": owner.user_id} not in rows  # one session, still live
    assert sum(hits for _, _, hits in operators) < 50 * (len(rows) + 1) + 200, operators


async def test_the_backlog_reads_the_waiting_users_waiting_turns(db: Database, owner: Owner) -> None:
    await _waiting_user(db, owner, 1000)
    rows, operators = await profiled(db, "queries/waiting/backlog", max_users=100_000)
    assert rows[0]["waiting"] >= 1 and not rows[0]["partial"]
    assert_read_by(operators, "User(awaiting)", "Interaction(tenant, user_id, awaits)")
    # A few hits a waiting user and a waiting turn, whatever else the session's database holds.
    bound = 50 * rows[0]["users"] + 5 * rows[0]["waiting"] + 200
    assert sum(hits for _, _, hits in operators) < bound, operators
