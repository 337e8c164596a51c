"""What a forget's statements read: the user's own nodes by index, never every tenant's nodes of a
label, and work that does not grow with the user's whole history."""

from __future__ import annotations

import uuid

from graph.database import Database
from graph.models import Owner
from tests.support.engines import DIMENSION
from tests.support.graph_reads import USER_STATISTICS
from tests.support.profiles import assert_read_by, profiled


async def _events(db: Database, owner: Owner, n: int, trigger: str) -> None:
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k CREATE (:ConsolidationEvent {id: 'evt_' + $t + k, tenant: $t, "
        "user_id: $u, seq: k, trigger_id: $trigger, action: 'created', consolidated_ids: [$trigger], "
        "fact_ids: [], superseded_fact_ids: []})",
        t=owner.tenant,
        u=owner.user_id,
        n=n,
        trigger=trigger,
        database_=db.name,
    )


async def test_forgetting_a_turn_reads_only_its_users_events(db: Database, owner: Owner) -> None:
    await _events(db, owner, 3, "int_gone")
    # Another tenant's event log, as on any shared database: the forget reads none of it.
    await _events(db, Owner(f"t-{uuid.uuid4().hex[:12]}", "bob"), 2000, "int_other")
    rows, operators = await profiled(
        db, "queries/forget/delete_events", **owner.params(), node_ids=["int_gone", "fact_x"]
    )
    assert rows == [{"erased": 3}]
    assert_read_by(operators, "ConsolidationEvent(tenant, user_id, seq)")
    assert sum(hits for _, _, hits in operators) < 200, operators


async def test_forgetting_a_user_reads_only_its_events(db: Database, owner: Owner) -> None:
    await db.driver.execute_query(
        "CREATE (u:User {tenant: $t, id: $u}) SET u += $statistics",
        t=owner.tenant,
        u=owner.user_id,
        statistics=USER_STATISTICS,
        database_=db.name,
    )
    await _events(db, owner, 3, "int_gone")
    await _events(db, Owner(f"t-{uuid.uuid4().hex[:12]}", "bob"), 2000, "int_other")
    rows, operators = await profiled(db, "queries/forget/delete_user", **owner.params())
    assert rows == [{"erased": 1}]
    assert_read_by(operators, "User(tenant, id)", "ConsolidationEvent(tenant, user_id, seq)")
    assert sum(hits for _, _, hits in operators) < 200, operators


async def test_the_runs_of_erased_nodes_are_found_from_those_nodes(db: Database, owner: Owner) -> None:
    """A user with 1,000 runs: erasing one fact reads that fact's runs, not every run's products."""
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k "
        "CREATE (r:ConsolidationRun {id: 'run_' + $t + k, tenant: $t, user_id: $u})"
        "-[:PRODUCED]->(:Fact {id: 'fact_' + $t + k, tenant: $t, user_id: $u}) "
        "WITH r, k WHERE k <= 2 "
        "CREATE (r)-[:PRODUCED]->(:Episode {id: 'epi_' + $t + k, tenant: $t, user_id: $u})",
        t=owner.tenant,
        u=owner.user_id,
        n=1000,
        database_=db.name,
    )
    t = owner.tenant
    # Run 1 produced only erased nodes: it goes; run 2 also produced a surviving episode: it stays.
    erased = [f"int_{t}", f"fact_{t}1", f"epi_{t}1", f"fact_{t}2", f"fact_{t}3"]
    rows, operators = await profiled(db, "queries/forget/delete_runs", **owner.params(), node_ids=erased)
    assert sorted(rows[0]["ids"]) == [f"run_{t}1", f"run_{t}3"]
    assert_read_by(operators, "Episode(id)", "Fact(id)", "Interaction(id)")
    assert sum(hits for _, _, hits in operators) < 200, operators


async def test_turns_waiting_on_erased_episodes_are_found_from_those_episodes(
    db: Database, owner: Owner
) -> None:
    """A user with 1,000 turns, 3 waiting: releasing those on erased episodes reads those turns."""
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k "
        "CREATE (:Interaction {id: 'int_' + $t + k, tenant: $t, user_id: $u, seq: k, "
        "consolidated: k = 2, gate_checked: true, "
        "awaits: CASE k WHEN 1 THEN 'epi_' + $t + 'a' WHEN 2 THEN 'epi_' + $t + 'a' "
        "WHEN 3 THEN 'epi_' + $t + 'b' END, awaits_similarity: CASE WHEN k <= 3 THEN 0.9 END})",
        t=owner.tenant,
        u=owner.user_id,
        n=1000,
        database_=db.name,
    )
    t = owner.tenant
    # Another tenant's turn naming the same episode id: the forget does not touch it.
    other = Owner(f"t-{uuid.uuid4().hex[:12]}", "bob")
    await db.driver.execute_query(
        "CREATE (:Interaction {id: 'int_' + $t, tenant: $t, user_id: $u, consolidated: false, "
        "gate_checked: true, awaits: $e})",
        t=other.tenant,
        u=other.user_id,
        e=f"epi_{t}a",
        database_=db.name,
    )
    rows, operators = await profiled(
        db, "queries/forget/release_waiting", **owner.params(), episode_ids=[f"epi_{t}a", f"epi_{t}c"]
    )
    # Turn 1 waited on an erased episode; turn 2 is consolidated; turn 3 waits on a surviving one.
    assert rows == [{"released": 1}]
    records, _, _ = await db.driver.execute_query(
        "MATCH (n:Interaction) WHERE n.tenant IN [$t, $o] AND n.awaits IS NOT NULL RETURN n.id AS id",
        t=t,
        o=other.tenant,
        database_=db.name,
    )
    assert sorted(r["id"] for r in records) == sorted([f"int_{other.tenant}", f"int_{t}2", f"int_{t}3"])
    # Only through the waiting-turn index (and the user's, to mark it pending); never the user's
    # turns or every turn.
    assert_read_by(operators, "Interaction(tenant, user_id, awaits)", "User(tenant, id)")
    assert sum(hits for _, _, hits in operators) < 200, operators


async def test_nodes_erased_by_id_are_read_by_id(db: Database, owner: Owner) -> None:
    """A user with 2,000 nodes of each label: erasing two by id reads those two. The statements
    take their label as a parameter, which `USING INDEX` cannot name; Neo4j's lookup by a dynamic
    label seeks the id's unique index itself (docs/design/graph-model.md#pinned-indexes)."""
    labels = {
        "Interaction": "int",
        "Episode": "epi",
        "Fact": "fact",
        "ConsolidationRun": "run",
        # A long turn's parts, which forgetting the user erases by id too.
        "InteractionPart": "part",
    }
    for label, prefix in labels.items():
        await db.driver.execute_query(
            "CYPHER 25 UNWIND range(1, 2000) AS k CREATE (:$($label) {id: $p + k, tenant: $t, user_id: $u})",
            label=label,
            p=f"{prefix}_{owner.tenant}_",
            t=owner.tenant,
            u=owner.user_id,
            database_=db.name,
        )
    neutral = [1.0] + [0.0] * (DIMENSION - 1)
    cases = {
        "queries/forget/delete_nodes": ((7, 1500), {}),
        "queries/forget/tombstone_nodes": ((8, 1600), {"neutral": neutral}),
    }
    for name, (picks, extra) in cases.items():
        for label, prefix in labels.items():
            ids = [f"{prefix}_{owner.tenant}_{k}" for k in picks]
            rows, operators = await profiled(
                db, name, **owner.params(), label=label, ids=ids, stat=None, **extra
            )
            assert rows == [{"erased": 2}], (name, label)
            # 16 db hits an id, whatever the user holds.
            assert sum(hits for _, _, hits in operators) < 100, (name, label, operators)
