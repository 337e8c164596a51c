"""A statement that finds a node by its id finds it by the id's unique index on a fresh database too.

Neo4j plans from the database's statistics. On a fresh database (no data, or a first few nodes) the
planner can prefer another index over the unique one, and keeps that plan in its cache: a lookup by
id that reads the owner's nodes or scans an index. Such statements name the index (USING INDEX SEEK);
this checks each on a private Neo4j, empty after migration and then with its first nodes
(docs/design/graph-model.md#pinned-indexes). Then, on statistics that make the runs' owner index
look selective, that the forget reaches the run telling whether a person stated a fact from the fact.
The reads of an owner's turns waiting for the gate seek the gate's index on the same fresh database,
and the other pinned reads (SEEKS) each the index they name."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.database import Database
from graph.schema import migrate
from tests.support.engines import DIMENSION, TEST_TEMPLATE
from tests.support.faults import free_ports, private_neo4j, private_neo4j_settings
from tests.support.profiles import planned, profiled

# Each statement, its parameters (types matter, values do not: EXPLAIN runs nothing) and the nodes it
# finds by id: (variable, label).
CASES: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    "queries/consolidation/link_runs": (
        {"links": [{"run_id": "run_1", "label": "Fact", "id": "fact_1", "rel": "PRODUCED"}]},
        [("run", "ConsolidationRun")],
    ),
    "queries/consolidation/check_sources": (
        {"interaction_ids": ["int_1"], "fact_ids": ["fact_1"], "previous_episode_id": "epi_1"},
        [("i", "Interaction"), ("f", "Fact"), ("e", "Episode")],
    ),
    "queries/consolidation/mark_consolidated": ({"ids": ["int_1"]}, [("i", "Interaction")]),
    "queries/consolidation/create_facts": (
        {"episode_id": "epi_1", "run_id": "run_1"},
        [("e", "Episode"), ("later", "Fact")],
    ),
    "queries/consolidation/create_episode": (
        {
            "id": "epi_2",
            "title": "t",
            "summary": "s",
            "first_at": "2026-01-01T00:00:00Z",
            "last_at": "2026-01-01T00:00:00Z",
            "valid_from": "2026-01-01T00:00:00Z",
            "sources": [{"id": "int_1", "similarity": 1.0}],
            "run_id": "run_1",
            "previous_id": None,
            "lex_length": 1,
            "owner_key": "o",
            "embedding": [0.1] * DIMENSION,
        },
        [("i", "Interaction")],
    ),
    "queries/interactions/get": ({"ids": ["int_1", "int_2", "int_3"]}, [("n", "Interaction")]),
    "queries/browse/episode_facts": ({"ids": ["epi_1"]}, [("e", "Episode")]),
    "queries/browse/episode_sources": ({"ids": ["epi_1"]}, [("e", "Episode")]),
    "queries/browse/episode_versions": ({"ids": ["epi_1"]}, [("e", "Episode")]),
    "queries/beliefs/derive": (
        {"fact_id": "fact_1", "run_id": "run_1", "interaction_id": "int_1"},
        [("f", "Fact"), ("run", "ConsolidationRun"), ("i", "Interaction")],
    ),
    "queries/beliefs/retract": ({"id": "fact_1"}, [("f", "Fact")]),
    "queries/beliefs/state": (
        {"fact_id": "fact_1", "interaction_id": "int_1"},
        [("f", "Fact"), ("i", "Interaction")],
    ),
    "queries/beliefs/supersede": ({"old_id": "fact_1", "new_id": "fact_2"}, [("old", "Fact"), ("f", "Fact")]),
    "queries/episodes/get": ({"ids": ["epi_1"]}, [("n", "Episode")]),
    "queries/facts/get": ({"ids": ["fact_1"]}, [("n", "Fact")]),
    "queries/facts/provenance": ({"id": "fact_1"}, [("f", "Fact")]),
    "queries/leases/release": ({"checked": ["int_1"], "holder": "holder"}, [("n", "Interaction")]),
    "queries/recall/replaced": ({"ids": ["fact_1"]}, [("f", "Fact")]),
    "queries/recall/sentence_vectors": ({"ids": ["int_1"]}, [("n", "Interaction")]),
    "queries/waiting/mark": ({"id": "int_1", "episode_id": "epi_1"}, [("n", "Interaction")]),
    "queries/waiting/release": ({"ids": ["int_1"], "regate": False}, [("n", "Interaction")]),
    "queries/forget/contract_supersedes": (
        {"relinks": [{"survivor_id": "fact_1", "old_id": "fact_2"}]},
        [("survivor", "Fact"), ("old", "Fact")],
    ),
    "queries/forget/delete_parts": ({"id": "int_1"}, [("i", "Interaction")]),
    "queries/forget/delete_runs": (
        {"node_ids": ["int_1", "epi_1", "fact_1"]},
        [("n", "Episode"), ("n", "Fact"), ("n", "Interaction")],
    ),
    "queries/forget/derived_ids": ({"id": "int_1"}, [("i", "Interaction"), ("f", "Fact")]),
    "queries/forget/mend_episode_chain": ({"id": "epi_1"}, [("e", "Episode")]),
    "queries/forget/plan_interaction": ({"id": "int_1", "person": "person"}, [("x", "Interaction")]),
    "queries/forget/rederive_stated": ({"ids": ["fact_1"], "person": "person"}, [("f", "Fact")]),
    "queries/forget/relink_stream": ({"id": "int_1"}, [("x", "Interaction")]),
    "queries/forget/rescope": (
        {"episode_ids": ["epi_1"], "fact_ids": ["fact_1"], "person": "person"},
        [("e", "Episode"), ("f", "Fact")],
    ),
    "queries/forget/restorable_facts": ({"fact_ids": ["fact_1"]}, [("gone", "Fact")]),
    "queries/forget/restore_facts": ({"ids": ["fact_1"]}, [("old", "Fact")]),
    "queries/forget/rewrite_episodes": ({"rows": [{"id": "epi_1"}]}, [("e", "Episode")]),
    "queries/forget/rewrite_facts": ({"rows": [{"id": "fact_1"}]}, [("f", "Fact")]),
}

# The statements that read the owner's turns still waiting for the recurrence gate: by the gate's
# index, never every turn of the owner (the owner index) and a filter.
GATE: dict[str, dict[str, Any]] = {
    "queries/interactions/pending": {"limit": 10},
    "queries/leases/release": CASES["queries/leases/release"][0],
    "queries/consolidation/pending_users": {"skip": [], "limit": 10},
    "queries/consolidation/pending_backlog": {"max_users": 10},
}

# Statements whose every node read is a seek of the index named, as variable:Label(properties): on
# a fresh database Neo4j read these through the owner index (every node of the user) or scanned the
# index (every tenant's entries).
SEEKS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "queries/waiting/groups": (
        {"batch": 5, "quiet_ms": 1000, "everything": False},
        [
            "u:User(tenant, id)",
            "last:Interaction(id)",
            "n:Interaction(tenant, user_id, awaits)",
            "e:Episode(id)",
        ],
    ),
    "queries/waiting/settle": ({}, ["u:User(tenant, id)", "n:Interaction(tenant, user_id, awaits)"]),
    "queries/recall/speakers": ({"candidates": ["Bob"]}, ["n:Interaction(tenant, user_id, speaker)"]),
    "queries/interactions/write_batch": (
        {
            "owner_key": "o",
            "rows": [
                {
                    "id": "int_new",
                    "session_id": None,
                    "speaker": "user",
                    "text": "t",
                    "lex_length": 1,
                    "occurred_at": "2026-01-01T00:00:00Z",
                    "utc_offset_s": 0,
                    "source_ref": "ref-1",
                    "embedding": [0.1] * DIMENSION,
                    "sentence_vectors": None,
                    "agent_id": None,
                    "metadata": None,
                    "scopes": [],
                    "parts": [],
                }
            ],
        },
        ["known:Interaction(tenant, user_id, source_ref)", "previous:Interaction(id)"],
    ),
    "queries/recall/sources": (
        {
            "episode_ids": ["epi_1"],
            "fact_ids": ["fact_1"],
            "interaction_ids": ["int_1"],
            "as_of": None,
            "retracted": "retracted",
            "superseded": "superseded",
            "person": "person",
            "correction": "correction",
        },
        [
            "e:Episode(id)",
            "f:Fact(id)",
            "f:Fact(tenant, user_id, status)",
        ],
    ),
    "queries/recall/vectors": (
        {"layer": "facts", "since": 5, "after": "", "page": 100, "dimension": DIMENSION},
        [
            "u:User(tenant, id)",
            "n:Interaction(tenant, user_id)",
            "n:Interaction(tenant, user_id, vector_no)",
            "n:Episode(tenant, user_id)",
            "n:Episode(tenant, user_id, vector_no)",
            "n:Fact(tenant, user_id)",
            "n:Fact(tenant, user_id, vector_no)",
        ],
    ),
}

OWNER = {"tenant": "t-fresh", "user_id": "alice"}


@pytest.fixture(scope="module")
def fresh_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    (port,) = free_ports(1)
    yield tmp_path_factory.mktemp("fresh-plans"), port


async def _plans(db: Database) -> dict[str, list[tuple[str, str]]]:
    await db.driver.execute_query("CALL db.clearQueryCaches()", database_=db.name)
    cases = {name: params for name, (params, _) in CASES.items()} | GATE
    cases |= {name: params for name, (params, _) in SEEKS.items()}
    return {name: await planned(db, name, **OWNER, **params) for name, params in cases.items()}


@pytest.fixture(scope="module")
async def fresh_db(fresh_home: tuple[Path, int]) -> AsyncIterator[Database]:
    """A private Neo4j, empty after migration."""
    home, port = fresh_home
    settings = private_neo4j_settings(home / "neo4j", port)
    with private_neo4j(settings):
        db = Database.connect(settings)
        # A fresh Neo4j on a loaded machine plans its first statements slowly.
        db.statement_timeout_s = 120.0
        try:
            embedder = HashingEmbedder(DIMENSION)
            await migrate(db, embedder.name, embedder.dimension, TEST_TEMPLATE)
            yield db
        finally:
            await db.close()


@pytest.fixture(scope="module")
async def fresh_plans(fresh_db: Database) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Every case's plan on a fresh database: empty after migration, then with a first user's 20
    nodes of each label (turns with their source refs), then with 2,000 other owners' one turn each (the owner index looks
    selective)."""
    db = fresh_db
    empty = await _plans(db)
    await db.driver.execute_query(
        "CREATE (:User {tenant: $tenant, id: $user_id}) "
        "WITH * UNWIND range(1, 20) AS k "
        "CREATE (:ConsolidationRun {id: 'run_' + k, tenant: $tenant, user_id: $user_id}), "
        "(:Fact {id: 'fact_' + k, tenant: $tenant, user_id: $user_id, status: 'active'}), "
        "(:Interaction {id: 'int_' + k, tenant: $tenant, user_id: $user_id, seq: k, source_ref: 'ref_' + k}), "
        "(:Episode {id: 'epi_' + k, tenant: $tenant, user_id: $user_id, version: 1, current: true})",
        OWNER,
        database_=db.name,
    )
    first = await _plans(db)
    await db.driver.execute_query(
        "UNWIND range(1, 2000) AS k CREATE (:Interaction {id: 'many_' + k, tenant: 't-many' + k, "
        "user_id: $user_id, seq: 1, gate_checked: true, consolidated: true})",
        OWNER,
        database_=db.name,
    )
    return {"empty": empty, "first nodes": first, "many owners": await _plans(db)}


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_lookup_by_id_seeks_the_id_index_on_a_fresh_database(
    fresh_plans: dict[str, dict[str, list[tuple[str, str]]]], name: str
) -> None:
    _, found = CASES[name]
    for state, plans in fresh_plans.items():
        operators = plans[name]
        for variable, label in found:
            # A seek of the id's index: never the owner's nodes, another index, or a scan of the
            # id's index (Neo4j keeps a plan made at 20 entries once the index holds every
            # tenant's nodes), which `USING INDEX SEEK` rules out.
            index = f" {variable}:{label}(id) WHERE id "
            assert any(
                op.startswith("NodeUniqueIndexSeek") and index in details for op, details in operators
            ), (state, variable, operators)


@pytest.mark.parametrize("name", sorted(GATE))
async def test_a_read_of_pending_turns_seeks_the_gate_index_on_a_fresh_database(
    fresh_plans: dict[str, dict[str, list[tuple[str, str]]]], name: str
) -> None:
    for state, plans in fresh_plans.items():
        operators = plans[name]
        by_owner = [d for op, d in operators if "Seek" in op and ":Interaction(tenant, user_id" in d]
        # (The release also finds the checked turns by id: test_a_lookup_by_id checks that seek.)
        assert by_owner, (state, operators)
        assert all(":Interaction(tenant, user_id, gate_checked)" in d for d in by_owner), (state, operators)


@pytest.mark.parametrize("name", sorted(SEEKS))
async def test_a_pinned_read_seeks_its_index_on_a_fresh_database(
    fresh_plans: dict[str, dict[str, list[tuple[str, str]]]], name: str
) -> None:
    _, expected = SEEKS[name]
    for state, plans in fresh_plans.items():
        reads = [(op, d) for op, d in plans[name] if "Scan" in op or "Seek" in op]
        assert all(
            op.startswith(("NodeIndexSeek", "NodeUniqueIndexSeek")) and "ByRange" not in op for op, _ in reads
        ), (
            state,
            reads,
        )
        found = [m.group(1) for _, d in reads if (m := re.search(r"(\w+:\w+\([^)]*\))", d))]
        assert sorted(found) == sorted(expected), (state, reads)


async def test_the_forget_plan_reaches_episodes_and_facts_from_the_turn(
    fresh_plans: dict[str, dict[str, list[tuple[str, str]]]],
) -> None:
    """forget/plan_interaction reads what rests on the turn from the turn, never every episode or
    fact of the user by the owner index."""
    for state, plans in fresh_plans.items():
        operators = plans["queries/forget/plan_interaction"]
        owner_reads = [
            d for _, d in operators if "Episode(tenant, user_id)" in d or "Fact(tenant, user_id)" in d
        ]
        assert owner_reads == [], (state, owner_reads)


# The statements that ask whether a person stated a fact (a run of theirs produced it), with the
# parameters that ask it of a stated fact: `said` rests on the turn `int_said`, `alone` on nothing,
# `over` replaced `said`.
STATED: dict[str, dict[str, Any]] = {
    "queries/forget/plan_interaction": {"id": "int_said", "person": "person"},
    "queries/forget/derived_ids": {"id": "int_said", "person": "person"},
    "queries/forget/rescope": {"episode_ids": [], "fact_ids": ["said"], "person": "person"},
    "queries/forget/rederive_stated": {"ids": ["alone"], "person": "person"},
}


@pytest.fixture(scope="module")
async def crowded_runs(
    fresh_db: Database, fresh_plans: dict[str, dict[str, list[tuple[str, str]]]]
) -> dict[str, list[tuple[str, str, int]]]:
    """Each STATED statement's profile where the runs' owner index looks selective and a fact's
    runs many: 100 other users' 5,000 runs produced 20 facts; the user has 2,000 runs of its own
    and three facts a person stated (by the user's last runs)."""
    db = fresh_db
    crowd = "t-crowd"
    await db.driver.execute_query(
        "UNWIND range(1, 20) AS k CREATE (:Fact {id: $t + k, tenant: $t, user_id: 'u1', status: 'active'}) "
        "WITH count(*) AS made UNWIND range(1, 5000) AS k "
        "MATCH (f:Fact {id: $t + (k % 20 + 1)}) "
        "CREATE (:ConsolidationRun {id: $t + '_run' + k, tenant: $t, user_id: 'u' + (k % 100 + 1), "
        "provider: 'llm', at: datetime()})-[:PRODUCED]->(f)",
        t=crowd,
        database_=db.name,
    )
    owner = {"tenant": "t-stated", "user_id": "alice"}
    await db.driver.execute_query(
        "CREATE (:User {tenant: $tenant, id: $user_id}) "
        "CREATE (i:Interaction {id: 'int_said', tenant: $tenant, user_id: $user_id, seq: 1}) "
        "WITH * UNWIND range(1, 2000) AS k "
        "CREATE (:ConsolidationRun {id: 'own_run' + k, tenant: $tenant, user_id: $user_id, "
        "provider: 'llm', at: datetime()}) "
        "WITH count(*) AS made "
        "MATCH (i:Interaction {id: 'int_said'}) "
        "UNWIND ['said', 'alone', 'over'] AS id "
        "CREATE (f:Fact {id: id, tenant: $tenant, user_id: $user_id, status: 'active', "
        "created_at: datetime()}) "
        "CREATE (:ConsolidationRun {id: id + '_run', tenant: $tenant, user_id: $user_id, "
        "provider: 'person', at: datetime()})-[:PRODUCED]->(f) "
        "FOREACH (_ IN CASE id WHEN 'said' THEN [1] ELSE [] END | CREATE (f)-[:DERIVED_FROM]->(i)) "
        "WITH count(*) AS made "
        "MATCH (over:Fact {id: 'over'}), (said:Fact {id: 'said'}) CREATE (over)-[:SUPERSEDES]->(said)",
        owner,
        database_=db.name,
    )
    await db.driver.execute_query("CALL db.clearQueryCaches()", database_=db.name)
    return {name: (await profiled(db, name, **owner, **params))[1] for name, params in STATED.items()}


@pytest.mark.parametrize("name", sorted(STATED))
async def test_whether_a_person_stated_a_fact_is_read_from_the_fact(
    crowded_runs: dict[str, list[tuple[str, str, int]]], name: str
) -> None:
    """The run that tells whether a person stated a fact is reached from the fact, never by
    reading every run of the user by the runs' owner index (docs/design/graph-model.md#pinned-indexes)."""
    operators = crowded_runs[name]
    owner_reads = [(op, d, hits) for op, d, hits in operators if "ConsolidationRun(tenant, user_id)" in d]
    assert owner_reads == [], operators
    assert sum(hits for _, _, hits in operators) < 200, operators
