"""Migration reverses the replacements older versions wrote out of time order, as the in-order
rule writes them, and records the change in the facts' audits (graph/backfill.py,
docs/design/graph-model.md#replacement)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import pytest

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.backfill import backfill
from graph.database import Database
from graph.leases import LeaseStore
from graph.models import Owner, new_id, to_python
from tests.support.api import T0, Caller, app_client
from tests.support.misordered import consolidate, old_replacement, reversed_reason

AUDIT = """query($id: ID!) { fact(id: $id) { status validFrom validTo
  supersedes { fact { text } } supersededBy { fact { text } }
  audit { corrections { op trigger provider model by reason at read { id } } } } }"""


async def _rows(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


# Facts valid at no instant that no person settled (retracted, or replaced by a correction, itself
# or through later replacements): what migration counts.
UNSETTLED = """MATCH (f:Fact) WHERE f.valid_to < f.valid_from AND NOT EXISTS {
  MATCH (f)<-[:SUPERSEDES*0..]-(later:Fact)
  WHERE later.status = 'retracted' OR EXISTS {
    MATCH (later)<-[s:SUPERSEDES]-(:Fact) MATCH (r:ConsolidationRun {id: s.run_id})
    WHERE r.provider = 'person' AND r.trigger = 'correction' } }"""


async def _left(db: Database) -> int:
    rows = await _rows(db, UNSETTLED + " RETURN count(f) AS n")
    return int(rows[0]["n"])


async def _facts(db: Database, owner: Owner) -> list[tuple[Any, ...]]:
    """The user's facts and replacements by text: status, validity, and each edge's at, reason and
    the text of the fact its run produced."""
    rows = await _rows(
        db,
        """MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
           OPTIONAL MATCH (f)-[s:SUPERSEDES]->(old:Fact)
           OPTIONAL MATCH (:ConsolidationRun {id: s.run_id})-[:PRODUCED]->(by:Fact)
           RETURN f.text AS text, f.status AS status, f.valid_from AS since, f.valid_to AS until,
                  old.text AS replaced, s.at AS at, s.reason AS reason, by.text AS by
           ORDER BY text, replaced""",
        **owner.params(),
    )
    return [tuple(to_python(v) for v in r.values()) for r in rows]


async def test_backfill_reverses_replacements_written_out_of_time_order(
    db: Database, caller: Caller, embedder: HashingEmbedder
) -> None:
    alice, carol = Owner(caller.tenant, "alice"), Owner(caller.tenant, "carol")
    bob = Owner(new_id("tenant"), "alice")  # another tenant, a user of the same name
    left = await _left(db)  # the session's database may hold such facts from earlier runs
    # Said on day 60, consolidated first; said on day 1, consolidated later, naming it as replaced.
    dislikes, _ = await consolidate(db, alice, embedder, "Alice dislikes sushi.", 60)
    loves = await old_replacement(db, alice, embedder, dislikes, "Alice loves sushi.", 1, "preference shift")
    # A chain: Rome (day 5) closed Oslo (day 80) out of order, then Paris (day 90) replaced Rome.
    oslo, _ = await consolidate(db, alice, embedder, "Alice lives in Oslo.", 80)
    rome = await old_replacement(db, alice, embedder, oslo, "Alice lives in Rome.", 5, "moved")
    await consolidate(db, alice, embedder, "Alice lives in Paris.", 90, [(rome, "moved again")])
    # Each said earlier than the one it closed: car (day 70) closed bike (day 90), bus (day 2) car.
    bike, _ = await consolidate(db, alice, embedder, "Alice rides a bike.", 90)
    car = await old_replacement(db, alice, embedder, bike, "Alice rides a car.", 70, "sold the bike")
    bus = await old_replacement(db, alice, embedder, car, "Alice rides a bus.", 2, "sold the car")
    # What the current code writes for the same facts in the same order: the state to reach.
    later, _ = await consolidate(db, carol, embedder, "Alice dislikes sushi.", 60)
    await consolidate(db, carol, embedder, "Alice loves sushi.", 1, [(later, "preference shift")])
    # Another tenant's in-order replacement.
    old, _ = await consolidate(db, bob, embedder, "Alice loves sushi.", 1)
    await consolidate(db, bob, embedder, "Alice dislikes sushi.", 60, [(old, "preference shift")])

    broken = await caller.gql(AUDIT, {"id": dislikes})
    assert broken["fact"]["status"] == "SUPERSEDED"
    assert broken["fact"]["validTo"] < broken["fact"]["validFrom"]  # valid at no instant
    before = {o: await _facts(db, o) for o in (alice, carol, bob)}
    chain = [f for f in before[alice] if "lives" in f[0]]

    done = await backfill(db, batch=1, recheck=True)  # batches smaller than the data: the loop must go on
    assert (done.replacements, done.misordered_left) == (3, left + 1)  # Oslo, in a chain, stays
    after = await _facts(db, alice)
    assert [f for f in after if "sushi" in f[0]] == before[carol]
    assert [f for f in after if "lives" in f[0]] == chain
    assert await _facts(db, carol) == before[carol] and await _facts(db, bob) == before[bob]
    # Link by link, in one migration: the history as the turns came in time order.
    day = {d: T0 + timedelta(days=d) for d in (2, 70, 90)}
    assert [f for f in after if "rides" in f[0]] == [
        (
            "Alice rides a bike.",
            "active",
            day[90],
            None,
            "Alice rides a car.",
            day[90],
            reversed_reason(day[70], day[90], day[90], "sold the bike"),
            "Alice rides a car.",
        ),
        ("Alice rides a bus.", "superseded", day[2], day[70], None, None, None, None),
        (
            "Alice rides a car.",
            "superseded",
            day[70],
            day[90],
            "Alice rides a bus.",
            day[70],
            reversed_reason(day[2], day[70], day[70], "sold the car"),
            "Alice rides a bus.",
        ),
    ]

    # Both facts' audits list the one run that changed them, with what the edge held before.
    audits = [(await caller.gql(AUDIT, {"id": i}))["fact"] for i in (dislikes, loves)]
    assert [(a["status"], a["validTo"]) for a in audits] == [
        ("ACTIVE", None),
        ("SUPERSEDED", audits[0]["validFrom"]),
    ]
    assert audits[0]["supersedes"] == [{"fact": {"text": "Alice loves sushi."}}]
    assert audits[1]["supersededBy"] == [{"fact": {"text": "Alice dislikes sushi."}}]
    runs = [a["audit"]["corrections"] for a in audits]
    assert runs[0] == runs[1] and len(runs[0]) == 1
    record = runs[0][0]
    assert {k: record[k] for k in ("op", "trigger", "provider", "model", "by")} == {
        "op": "reorder_replacements",
        "trigger": "upgrade",
        "provider": "system",
        "model": "system",
        "by": "recmem upgrade",
    }
    assert sorted(n["id"] for n in record["read"]) == sorted([dislikes, loves, bike, car, bus])
    day1 = (T0 + timedelta(days=1)).isoformat()
    day60 = datetime.fromisoformat(audits[0]["validFrom"]).isoformat()
    assert f"{loves} had replaced {dislikes} from {day1}, before it began" in record["reason"]
    assert f"now {dislikes} replaces {loves} from {day60}" in record["reason"]

    again = await backfill(db, recheck=True)
    assert (again.total, again.replacements, again.misordered_left) == (0, 0, left + 1)
    assert await _facts(db, alice) == after
    assert (await caller.gql(AUDIT, {"id": dislikes}))["fact"]["audit"]["corrections"] == runs[0]
    assert not await _rows(
        db, "MATCH (r:ConsolidationRun {tenant: $t, provider: 'system'}) RETURN r", t=bob.tenant
    )


async def test_the_start_warning_names_the_tenants_holding_facts_valid_at_no_instant(
    db: Database, embedder: HashingEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    """The analytic reads one tenant: migration names the tenants holding the facts it leaves, most
    first, with their counts, and the service's start warning passes them on."""
    owner = Owner(new_id("tenant"), "alice")
    for n in range(3):  # three chains, each leaving its first fact valid at no instant
        first, _ = await consolidate(db, owner, embedder, f"Alice lives in town {n}.", 80 + n)
        second = await old_replacement(
            db, owner, embedder, first, f"Alice lives in city {n}.", 5 + n, "moved"
        )
        await consolidate(db, owner, embedder, f"Alice lives in village {n}.", 90 + n, [(second, "again")])
    held = await _rows(
        db,
        UNSETTLED + " RETURN f.tenant AS tenant, count(f) AS facts ORDER BY facts DESC, tenant",
    )
    done = await backfill(db, recheck=True)
    assert done.misordered_tenants == {h["tenant"]: h["facts"] for h in held[:5]}
    assert done.misordered_tenants[owner.tenant] == 3
    assert done.misordered_left == sum(h["facts"] for h in held)

    with caplog.at_level(logging.WARNING, logger="api.services"):
        async with app_client(db):
            pass
    (warning,) = [r.getMessage() for r in caplog.records if "valid at no instant" in r.getMessage()]
    assert f"tenant {owner.tenant} (3)" in warning
    rest = sum(h["facts"] for h in held[5:])
    assert warning.startswith(f"{done.misordered_left} facts valid at no instant")
    assert (f"and {rest} in other tenants;" in warning) == (rest > 0)


CORRECT = """mutation($id: ID!, $text: String!) {
  correctFact(id: $id, text: $text, reason: "she said so") { fact { id } } }"""
RETRACT = """mutation($id: ID!) { retractFact(id: $id, reason: "not so") { changedFact { id } } }"""


async def test_a_fact_valid_at_no_instant_a_person_settled_is_not_counted(
    db: Database, caller: Caller, embedder: HashingEmbedder
) -> None:
    """A person cannot change a fact valid at no instant (it no longer holds); correcting or
    retracting what replaced it settles it, and migration no longer counts it as left."""
    alice, bob = Owner(caller.tenant, "alice"), Owner(caller.tenant, "bob")
    chains = []
    for owner in (alice, bob):  # each: Rome (day 5) closed Oslo (day 80), then Paris replaced Rome
        oslo, _ = await consolidate(db, owner, embedder, "Alice lives in Oslo.", 80)
        rome = await old_replacement(db, owner, embedder, oslo, "Alice lives in Rome.", 5, "moved")
        paris, _ = await consolidate(db, owner, embedder, "Alice lives in Paris.", 90, [(rome, "again")])
        chains.append((oslo, paris))
    left = (await backfill(db, recheck=True)).misordered_left  # both Oslos among them
    (oslo, paris), (_, bobs_paris) = chains
    for change, variables in (
        (CORRECT, {"id": oslo, "text": "Alice lives in Lyon."}),
        (RETRACT, {"id": oslo}),
    ):
        (error,) = await caller.errors(change, variables)
        assert "is superseded; only an active fact can be corrected or retracted" in error["message"]
    await caller.gql(CORRECT, {"id": paris, "text": "Alice lives in Lyon."})
    assert (await backfill(db, recheck=True)).misordered_left == left - 1
    await caller.gql(RETRACT, {"id": bobs_paris})
    assert (await backfill(db, recheck=True)).misordered_left == left - 2


async def test_a_migration_that_left_a_user_runs_its_steps_again(
    db: Database, embedder: HashingEmbedder
) -> None:
    """A user whose lease a consolidation held is left: the steps are not marked as done, so the
    next migration repairs the user."""
    owner = Owner(new_id("tenant"), "alice")
    dislikes, _ = await consolidate(db, owner, embedder, "Alice dislikes sushi.", 60)
    await old_replacement(db, owner, embedder, dislikes, "Alice loves sushi.", 1, "preference shift")
    leases = LeaseStore(db)
    assert await leases.wait_acquire(owner, "consolidation", 60.0, 0.0)
    try:
        assert (await backfill(db, recheck=True)).replacements == 0
    finally:
        await leases.release(owner, "consolidation")
    assert (await backfill(db)).replacements == 1
    assert (await backfill(db)).replacements == 0
