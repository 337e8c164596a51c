"""What the statements of a remember's inline consolidation read: the nodes at hand, by index, never
every tenant's nodes of a label, and work that does not grow with the user's whole history."""

from __future__ import annotations

import uuid

from graph.database import Database
from graph.models import Owner
from tests.support.profiles import assert_read_by, profiled


async def _history(db: Database, owner: Owner, n: int) -> None:
    """A user of `n` turns, each the source of an active fact, and an episode over turns 1 to 20;
    three retracted facts: on turn 1 (in the episode), on turn n (new) and on turn n - 1."""
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k "
        "CREATE (f:Fact {id: 'fact_' + $t + k, tenant: $t, user_id: $u, status: 'active', "
        "valid_from: datetime('2024-01-01T00:00:00Z')})"
        "-[:DERIVED_FROM]->(:Interaction {id: 'int_' + $t + k, tenant: $t, user_id: $u, seq: k, "
        "consolidated: k < $n, gate_checked: true})",
        t=owner.tenant,
        u=owner.user_id,
        n=n,
        database_=db.name,
    )
    await db.driver.execute_query(
        "CREATE (e:Episode {id: 'epi_' + $t, tenant: $t, user_id: $u, current: true}) "
        "WITH e MATCH (i:Interaction {tenant: $t, user_id: $u}) WHERE i.seq <= 20 "
        "CREATE (e)-[:DERIVED_FROM]->(i) "
        "WITH DISTINCT e UNWIND [[1, 'a'], [$n, 'b'], [$n - 1, 'c']] AS r "
        "MATCH (i:Interaction {tenant: $t, user_id: $u, seq: r[0]}) "
        "CREATE (:Fact {id: 'fact_' + $t + r[1], tenant: $t, user_id: $u, status: 'retracted', kind: 'event', "
        "text: r[1], valid_from: datetime('2024-01-01T00:00:00Z'), "
        "valid_to: datetime('2024-02-01T00:00:00Z') + duration({days: r[0]})})-[:DERIVED_FROM]->(i)",
        t=owner.tenant,
        u=owner.user_id,
        n=n,
        database_=db.name,
    )


async def test_refinement_reads_the_users_retracted_facts_only(db: Database, owner: Owner) -> None:
    """beliefs/retracted_among, each consolidation: the retracted facts on its sources, found among
    the user's retracted facts, not by reading every fact of the user."""
    await _history(db, owner, 1000)
    # Another tenant with as long a history, as on any shared database: the read touches none of it.
    await _history(db, Owner(f"t-{uuid.uuid4().hex[:12]}", owner.user_id), 1000)
    t = owner.tenant
    rows, operators = await profiled(
        db,
        "queries/beliefs/retracted_among",
        **owner.params(),
        interaction_ids=[f"int_{t}1000"],
        episode_id=f"epi_{t}",
        limit=20,
    )
    assert [(r["id"], r["source_ids"]) for r in rows] == [
        (f"fact_{t}b", [f"int_{t}1000"]),
        (f"fact_{t}a", [f"int_{t}1"]),
    ]
    assert_read_by(operators, "Fact(tenant, user_id, status)", "Episode(id)")
    assert sum(hits for _, _, hits in operators) < 200, operators
