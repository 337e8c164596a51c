"""Migration brings data written before scopes and lexical statistics up to date (graph/backfill.py)."""

from __future__ import annotations

import uuid
from typing import Any

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.backfill import BACKFILL_VERSION, USERS_A_WRITE, backfill
from graph.database import Database, Row
from graph.schema import migrate
from tests.support.api import REMEMBER_BATCH, Caller, tell_story, unit
from tests.support.engines import DIMENSION, TEST_TEMPLATE
from tests.support.profiles import Profiled

RECALL = """query($filter: RecallFilter) {
  recall(userId: "alice", query: "sushi with salmon", budget: {subconscious: 50, episodic: 50, semantic: 50},
         includeConsolidated: true, filter: $filter) {
    subconscious { interaction { id } } episodic { episode { id } } semantic { fact { id } } } }"""
ALICE = {"speakers": ["alice"]}
STATISTICS = ["lex_interactions", "lex_interactions_length", "lex_episodes", "lex_episodes_length"]
STATISTICS += ["lex_facts", "lex_facts_length", "long_interactions"]


async def _rows(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def _state(db: Database, tenant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each node's scopes and word count, and the user's statistics."""
    nodes = await _rows(
        db,
        "MATCH (n) WHERE n.tenant = $tenant AND (n:Interaction OR n:Episode OR n:Fact) "
        "RETURN n.id AS id, n.scopes AS scopes, n.lex_length AS length",
        tenant=tenant,
    )
    users = await _rows(
        db, "MATCH (u:User {tenant: $tenant, id: 'alice'}) RETURN properties(u) AS u", tenant=tenant
    )
    return {n["id"]: (n["scopes"], n["length"]) for n in nodes}, {k: users[0]["u"].get(k) for k in STATISTICS}


def _found(data: dict[str, Any]) -> int:
    recall = data["recall"]
    return sum(len(recall[layer]) for layer in ("subconscious", "episodic", "semantic"))


async def test_backfill_restores_scopes_and_statistics_of_older_data(db: Database, caller: Caller) -> None:
    await tell_story(caller)
    long_turn = " ".join(f"Sentence {i} is about a trip to the lake with the dog." for i in range(40))
    await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": [unit(long_turn, 9, sourceRef="long")]})
    nodes, statistics = await _state(db, caller.tenant)
    assert statistics["long_interactions"] == 1
    filtered = _found(await caller.gql(RECALL, {"filter": ALICE}))
    assert filtered > 0 and all(n[0] for n in nodes.values()) and None not in statistics.values()

    # What a database from before scopes and statistics holds: no tokens, no counts.
    await _rows(
        db,
        "MATCH (n) WHERE n.tenant = $tenant AND (n:Interaction OR n:Episode OR n:Fact) "
        "REMOVE n.scopes, n.lex_length",
        tenant=caller.tenant,
    )
    await _rows(
        db,
        "MATCH (u:User {tenant: $tenant}) REMOVE " + ", ".join(f"u.{k}" for k in STATISTICS),
        tenant=caller.tenant,
    )
    assert _found(await caller.gql(RECALL, {"filter": ALICE})) == 0  # old turns fall out of filters

    done = await backfill(db, batch=2, recheck=True)  # batches smaller than the data: the loops must go on
    assert done.interaction_scopes >= 5 and done.memory_scopes >= 2 and done.lengths >= len(nodes)
    assert done.users >= 1
    assert await _state(db, caller.tenant) == (nodes, statistics)
    assert _found(await caller.gql(RECALL, {"filter": ALICE})) == filtered

    again = await backfill(db, recheck=True)
    assert again.total == 0


async def test_backfill_leaves_erased_nodes_empty(db: Database) -> None:
    """A node forgetting emptied in place (forget/tombstone_nodes: label kept, Erased added, no
    scopes, no word count) is no old data: a migration adds nothing to it."""
    labels = ["Interaction", "Episode", "Fact"]
    prefix = f"erased_{uuid.uuid4().hex}_"  # tombstone ids are random too
    for label in labels:
        await _rows(
            db,
            "CYPHER 25 CREATE (n:$($label):Erased {id: $id, tenant: '', user_id: '', erased: true})",
            label=label,
            id=prefix + label,
        )
    await backfill(db, recheck=True)
    rows = await _rows(
        db,
        "MATCH (n:Erased) WHERE n.id STARTS WITH $prefix RETURN n.id AS id, keys(n) AS keys",
        prefix=prefix,
    )
    assert sorted(r["id"] for r in rows) == sorted(prefix + label for label in labels)
    assert all(sorted(r["keys"]) == ["erased", "id", "tenant", "user_id"] for r in rows), rows


class _Recording(Database):
    """The session's database, recording the name of every write statement it sends."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.driver, db.name)
        self.writes: list[str] = []

    async def write(self, name: str, **params: Any) -> list[Row]:
        self.writes.append(name)
        return await super().write(name, **params)


async def test_backfill_counts_many_users_in_few_transactions(db: Database) -> None:
    """Users from before the statistics are counted many to a transaction: one each made a
    migration over 15,000 users take 80 s (docs/operations.md#upgrading)."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    await _rows(
        db, "UNWIND range(1, 300) AS k CREATE (:User {tenant: $tenant, id: 'user-' + k})", tenant=tenant
    )
    await _rows(
        db,
        "MATCH (u:User {tenant: $tenant, id: 'user-1'}) "
        "CREATE (u)-[:HAS]->(:Interaction {id: $tenant + '_1', tenant: $tenant, user_id: 'user-1', "
        "text: 'a turn', lex_length: 2, scopes: []})",
        tenant=tenant,
    )
    recording = _Recording(db)
    done = await backfill(recording, recheck=True)
    users = await _rows(
        db,
        "MATCH (u:User {tenant: $tenant}) RETURN u.id AS id, [k IN $keys | u[k]] AS statistics",
        tenant=tenant,
        keys=STATISTICS,
    )
    assert len(users) == 300 and done.users >= 300
    assert {u["id"]: u["statistics"] for u in users if u["id"] == "user-1"} == {
        "user-1": [1, 2, 0, 0, 0, 0, 0]
    }
    assert all(u["statistics"] == [0] * len(STATISTICS) for u in users if u["id"] != "user-1")
    writes = recording.writes.count("queries/backfill/set_statistics")
    assert writes <= -(-done.users // USERS_A_WRITE) + 1, writes


async def _users(db: Database) -> int:
    return int((await _rows(db, "MATCH (u:User) RETURN count(u) AS n"))[0]["n"])


async def test_backfill_reads_each_user_once_a_step(db: Database) -> None:
    """The user steps read on from where their last batch ended: each batch reading from the first
    user made the first migration of a million users cost about a thousand scans of them all
    (docs/operations.md#upgrading)."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    await _rows(
        db, "UNWIND range(1, 2000) AS k CREATE (:User {tenant: $tenant, id: 'user-' + k})", tenant=tenant
    )
    users, batch = await _users(db), 100
    profiled = Profiled(db)
    done = await backfill(profiled, batch=batch, recheck=True)
    assert done.users >= 2000 and done.gating >= 0
    marked = await _rows(
        db,
        "MATCH (u:User {tenant: $tenant}) WHERE u.gating = false AND u.lex_facts = 0 RETURN count(u) AS n",
        tenant=tenant,
    )
    assert marked == [{"n": 2000}]
    for step in ("queries/backfill/users_without_statistics", "queries/backfill/users_ungated"):
        # Every user once, and the last batch's users again at most (the read that finds no more).
        assert profiled.rows_read(step, "User") <= users + batch, step


async def test_a_migration_with_nothing_to_fill_reads_no_more_for_more_nodes(db: Database) -> None:
    """Once every step ran to the end, a migration (each service start) skips them: reading every
    node for a missing property cost 16.6 s at 140,000 users right after Neo4j started
    (docs/operations.md#upgrading)."""
    await backfill(db)  # whatever earlier tests left
    before = Profiled(db)
    assert (await backfill(before)).total == 0
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    await _rows(
        db,
        "UNWIND range(1, 2000) AS k "
        "CREATE (u:User {tenant: $tenant, id: 'user-' + k, gating: false, lex_interactions: 1, "
        "lex_interactions_length: 2, lex_episodes: 0, lex_episodes_length: 0, lex_facts: 0, "
        "lex_facts_length: 0, long_interactions: 0})"
        "-[:HAS]->(:Interaction {id: $tenant + k, tenant: $tenant, user_id: 'user-' + k, text: 'a turn', "
        "lex_length: 2, scopes: [], gate_checked: true})",
        tenant=tenant,
    )
    after = Profiled(db)
    assert (await backfill(after)).total == 0
    assert after.db_hits() == before.db_hits(), [n for n, _ in after.profiles]


async def test_a_migration_runs_the_steps_of_a_newer_backfill_only(db: Database) -> None:
    """The marker names the backfill whose steps ran to the end: a database marked by an older one
    runs them all; one marked by this one skips them (older processes are stopped before an
    upgrade), unless asked to check again."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    await backfill(db)
    await _rows(db, "CREATE (:User {tenant: $tenant, id: 'old'})", tenant=tenant)
    read = "MATCH (u:User {tenant: $tenant}) RETURN u.gating AS gating, u.lex_facts AS facts"
    assert (await backfill(db)).total == 0  # marked: not looked for
    assert await _rows(db, read, tenant=tenant) == [{"gating": None, "facts": None}]
    migration = await migrate(db, HashingEmbedder(DIMENSION).name, DIMENSION, TEST_TEMPLATE, recheck=True)
    assert migration.backfilled.users >= 1  # `recmem db migrate --recheck`
    assert await _rows(db, read, tenant=tenant) == [{"gating": False, "facts": 0}]

    await _rows(db, "MATCH (u:User {tenant: $tenant}) REMOVE u.gating, u.lex_facts", tenant=tenant)
    await _rows(
        db, "MATCH (m:SchemaMeta {id: 'recmem'}) SET m.backfilled = $older", older=BACKFILL_VERSION - 1
    )
    assert (await backfill(db)).users >= 1
    assert await _rows(db, read, tenant=tenant) == [{"gating": False, "facts": 0}]
    assert (await backfill(db)).total == 0
