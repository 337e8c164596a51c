"""The memory engine end to end: real Neo4j, real HTTP to the local OpenAI-compatible server."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from consolidation.types import Unit
from graph.database import Database
from graph.models import Owner
from local_llm_server import LocalLLMServer, Reply
from tests.support.conversations import OSLO, SUSHI
from tests.support.engines import llm_engine
from tests.support.llm_script import (
    by_task,
    consolidation_replies,
    data_of,
    episode_reply,
    facts_reply,
    one_fact_per_turn,
    task_of,
    tasks,
)
from tests.support.misordered import reversed_reason

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def unit(text: str, day: int, ref: str | None = None) -> Unit:
    return Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day), source_ref=ref)


async def graph_counts(db: Database, owner: Owner) -> dict[str, int]:
    result = await db.driver.execute_query(
        "MATCH (n {tenant: $t}) RETURN labels(n)[0] AS label, count(*) AS c",
        t=owner.tenant,
        database_=db.name,
    )
    return {r["label"]: r["c"] for r in result.records}


async def test_no_llm_call_below_the_gate(db: Database, owner: Owner, llm: LocalLLMServer) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi"))
    for day, text in enumerate([SUSHI[0], OSLO, SUSHI[1]]):
        remembered = await engine.remember(owner, unit(text, day))
        assert remembered.consolidation is not None and remembered.consolidation.action == "none"
    assert llm.chat_calls == 0
    assert "Episode" not in await graph_counts(db, owner)


async def test_consolidates_exactly_when_the_gate_is_reached(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi"))
    # Written out of time order: the episode prompt must still see them by time.
    first = await engine.remember(owner, unit(SUSHI[1], 5))
    await engine.remember(owner, unit(OSLO, 6))
    second = await engine.remember(owner, unit(SUSHI[0], 1))
    assert llm.chat_calls == 0
    third = await engine.remember(owner, unit(SUSHI[2], 7))
    outcome = third.consolidation
    assert outcome is not None and outcome.action == "created"
    assert tasks(llm) == ["create_episode", "refine_facts"]
    turns = data_of(llm.requests[0])["turns"]
    assert [t["id"] for t in turns] == [second.interaction_id, first.interaction_id, third.interaction_id]
    assert sorted(outcome.consolidated_ids) == sorted(
        [first.interaction_id, second.interaction_id, third.interaction_id]
    )
    result = await db.driver.execute_query(
        "MATCH (e:Episode {id: $id})-[d:DERIVED_FROM]->(i:Interaction) RETURN i.id AS id, d.similarity AS s",
        id=outcome.episode_id,
        database_=db.name,
    )
    assert {r["id"] for r in result.records} == set(outcome.consolidated_ids)
    assert all(r["s"] >= 0.3 for r in result.records)
    facts = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t})-[:DERIVED_FROM]->(i:Interaction) RETURN f.text AS text, i.id AS source",
        t=owner.tenant,
        database_=db.name,
    )
    assert {r["source"] for r in facts.records} == set(outcome.consolidated_ids)
    recall = await engine.recall(owner, "sushi dinner")
    assert recall.episodic and recall.episodic[0].id == outcome.episode_id
    assert all(h.id not in outcome.consolidated_ids for h in recall.subconscious)


async def test_merge_first_writes_a_new_episode_version(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi"))
    for day, text in enumerate(SUSHI[:3]):
        created = await engine.remember(owner, unit(text, day))
    assert created.consolidation is not None and created.consolidation.action == "created"
    engine.settings.merge_threshold = 0.2
    merged = await engine.remember(owner, unit(SUSHI[3], 10))
    outcome = merged.consolidation
    assert outcome is not None and outcome.action == "merged"
    assert outcome.previous_episode_id == created.consolidation.episode_id
    assert tasks(llm)[-2:] == ["merge_decision", "refine_facts"]
    assert outcome.llm_calls == 2 and created.consolidation.llm_calls == 2
    result = await db.driver.execute_query(
        """MATCH (new:Episode {id: $new})-[:SUPERSEDES]->(old:Episode {id: $old})
           MATCH (new)-[:DERIVED_FROM]->(i:Interaction)
           RETURN new.version AS v, old.current AS old_current, new.current AS new_current, collect(i.id) AS sources""",
        new=outcome.episode_id,
        old=outcome.previous_episode_id,
        database_=db.name,
    )
    row = result.records[0]
    assert (row["v"], row["old_current"], row["new_current"]) == (2, False, True)
    assert merged.interaction_id in row["sources"] and len(row["sources"]) == 4


async def test_a_refused_merge_is_counted_among_the_calls_made(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi", continues=False))
    for day, text in enumerate(SUSHI[:3]):
        await engine.remember(owner, unit(text, day))
    engine.settings.merge_threshold = 0.2
    calls = [llm.chat_calls]
    outcomes = []
    # Each turn near the episode asks for a merge, which is refused; the third of them opens the
    # gate on its own and a new episode is written.
    for day, text in enumerate([SUSHI[3], SUSHI[0], SUSHI[1]], start=10):
        remembered = await engine.remember(owner, unit(text, day))
        assert remembered.consolidation is not None
        outcomes.append(remembered.consolidation)
        calls.append(llm.chat_calls)
    assert [o.action for o in outcomes] == ["none", "none", "created"]
    assert [o.llm_calls for o in outcomes] == [b - a for a, b in itertools.pairwise(calls)]
    assert [o.llm_calls for o in outcomes] == [1, 1, 3]


async def test_preference_shift_supersedes_and_as_of_sees_the_past(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99, theta_count=2)

    def facts(data: dict[str, Any]) -> list[dict[str, Any]]:
        last = data["turns"][-1]
        if "can't stand" in last["text"]:
            old = [f["id"] for f in data["existing_facts"] if "loves sushi" in f["text"]]
            return [
                {
                    "text": "Alice dislikes sushi.",
                    "kind": "preference",
                    "source_turn_ids": [last["id"]],
                    "replaces": old,
                    "reason": "preference shift",
                }
            ]
        return [
            {
                "text": "Alice loves sushi.",
                "kind": "preference",
                "source_turn_ids": [last["id"]],
                "replaces": [],
            }
        ]

    llm.set_responder(by_task(create_episode=episode_reply("Sushi"), refine_facts=facts_reply(facts)))
    await engine.remember(owner, unit("I love sushi, sushi is my favourite dinner", 0))
    await engine.remember(owner, unit("I love sushi dinner so much", 1))
    await engine.remember(owner, unit("Honestly I can't stand sushi dinner any more", 60))
    await engine.remember(owner, unit("Sushi dinner? I can't stand sushi any more", 61))
    rows = await db.driver.execute_query(
        """MATCH (new:Fact {tenant: $t})-[s:SUPERSEDES]->(old:Fact)
           RETURN new.text AS new, old.text AS old, old.valid_to AS valid_to, old.status AS status, s.reason AS reason""",
        t=owner.tenant,
        database_=db.name,
    )
    assert len(rows.records) == 1
    row = rows.records[0]
    assert (row["new"], row["old"], row["status"], row["reason"]) == (
        "Alice dislikes sushi.",
        "Alice loves sushi.",
        "superseded",
        "preference shift",
    )
    assert row["valid_to"].to_native() == T0 + timedelta(days=61)
    trips = db.round_trips
    now = await engine.recall(owner, "does Alice like sushi")
    assert [h.text for h in now.semantic] == ["Alice dislikes sushi."]
    assert now.semantic[0].interaction_ids and now.episodic and now.episodic[0].interaction_ids
    # Dense candidates of all three layers, lexical ones with the user's speakers among the
    # question's names (consolidation/recall/names.py), then provenance with the beliefs a
    # person withdrew near what is returned: three statements.
    assert now.withdrawn == [] and db.round_trips - trips == 3
    before = await engine.recall(owner, "does Alice like sushi", as_of=T0 + timedelta(days=30))
    assert [h.text for h in before.semantic] == ["Alice loves sushi."]


async def test_a_shift_told_out_of_order_keeps_the_later_fact_current(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    """The preference shift above, its later turns sent first: the earlier fact, though written
    second and told to replace the later one, ends where that one begins (graph-model.md#replacement)."""
    engine = llm_engine(db, llm, merge_threshold=0.99, theta_count=2)

    def facts(data: dict[str, Any]) -> list[dict[str, Any]]:
        last = data["turns"][-1]
        if "can't stand" in last["text"]:
            return [{"text": "Alice dislikes sushi.", "kind": "preference", "source_turn_ids": [last["id"]]}]
        later = [f["id"] for f in data["existing_facts"] if "dislikes sushi" in f["text"]]
        return [
            {
                "text": "Alice loves sushi.",
                "kind": "preference",
                "source_turn_ids": [last["id"]],
                "replaces": later,
                "reason": "preference shift",
            }
        ]

    llm.set_responder(by_task(create_episode=episode_reply("Sushi"), refine_facts=facts_reply(facts)))
    await engine.remember(owner, unit("Honestly I can't stand sushi dinner any more", 60))
    await engine.remember(owner, unit("Sushi dinner? I can't stand sushi any more", 61))
    await engine.remember(owner, unit("I love sushi, sushi is my favourite dinner", 0))
    told = await engine.remember(owner, unit("I love sushi dinner so much", 1))
    assert told.consolidation is not None and told.consolidation.superseded_fact_ids == []
    rows = await db.driver.execute_query(
        """MATCH (f:Fact {tenant: $t}) OPTIONAL MATCH (f)-[s:SUPERSEDES]->(old:Fact)
           RETURN f.text AS text, f.status AS status, f.valid_from AS since, f.valid_to AS until,
                  old.text AS replaced, s.reason AS reason ORDER BY since""",
        t=owner.tenant,
        database_=db.name,
    )
    assert [
        (
            r["text"],
            r["status"],
            r["since"].to_native(),
            r["until"] and r["until"].to_native(),
            r["replaced"],
            r["reason"],
        )
        for r in rows.records
    ] == [
        ("Alice loves sushi.", "superseded", T0 + timedelta(days=1), T0 + timedelta(days=61), None, None),
        (
            "Alice dislikes sushi.",
            "active",
            T0 + timedelta(days=61),
            None,
            "Alice loves sushi.",
            reversed_reason(
                T0 + timedelta(days=1), T0 + timedelta(days=61), T0 + timedelta(days=61), "preference shift"
            ),
        ),
    ]
    now = await engine.recall(owner, "does Alice like sushi")
    assert [h.text for h in now.semantic] == ["Alice dislikes sushi."]
    before = await engine.recall(owner, "does Alice like sushi", as_of=T0 + timedelta(days=30))
    assert [h.text for h in before.semantic] == ["Alice loves sushi."]


async def test_invented_and_foreign_fact_ids_are_ignored(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    other = Owner(owner.tenant, "mallory")
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi"))
    for day, text in enumerate(SUSHI[:3]):
        await engine.remember(other, unit(text, day))
    foreign = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t, user_id: 'mallory'}) RETURN collect(f.id) AS ids",
        t=owner.tenant,
        database_=db.name,
    )
    foreign_ids = foreign.records[0]["ids"]
    assert foreign_ids

    def facts(data: dict[str, Any]) -> list[dict[str, Any]]:
        turn = data["turns"][-1]["id"]
        return [
            {
                "text": "Alice eats sushi.",
                "kind": "event",
                "source_turn_ids": [turn, "int_invented"],
                "replaces": ["fact_invented", *foreign_ids],
            }
        ]

    llm.set_responder(by_task(create_episode=episode_reply(), refine_facts=facts_reply(facts)))
    for day, text in enumerate(SUSHI[:3]):
        await engine.remember(owner, unit(text, day))
    edges = await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t, user_id: 'alice'})-[r]->(x) RETURN type(r) AS type, x.user_id AS owner, x.id AS id",
        t=owner.tenant,
        database_=db.name,
    )
    assert edges.records and all(r["owner"] == "alice" for r in edges.records)
    assert not any(r["type"] == "SUPERSEDES" for r in edges.records)
    still_active = await db.driver.execute_query(
        "MATCH (f:Fact) WHERE f.id IN $ids RETURN collect(f.status) AS s", ids=foreign_ids, database_=db.name
    )
    assert set(still_active.records[0]["s"]) == {"active"}


async def _assert_nothing_partial(db: Database, owner: Owner) -> None:
    counts = await graph_counts(db, owner)
    assert "Episode" not in counts and "Fact" not in counts
    pending = await db.driver.execute_query(
        "MATCH (i:Interaction {tenant: $t}) RETURN count(*) AS n, sum(CASE WHEN i.consolidated THEN 1 ELSE 0 END) AS c",
        t=owner.tenant,
        database_=db.name,
    )
    assert pending.records[0]["n"] == 3 and pending.records[0]["c"] == 0


async def _fault_then_recover(
    db: Database, owner: Owner, llm: LocalLLMServer, faults: list[Reply], at_task: str
) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    queue = list(faults)

    def maybe_fault(handler: Any) -> Any:
        def handle(body: dict[str, Any]) -> Reply:
            return queue.pop(0) if queue else handler(body)

        return handle

    handlers = {"create_episode": episode_reply(), "refine_facts": facts_reply(one_fact_per_turn)}
    handlers[at_task] = maybe_fault(handlers[at_task])
    llm.set_responder(by_task(**handlers))
    for day, text in enumerate(SUSHI[:3]):
        remembered = await engine.remember(owner, unit(text, day))
    assert remembered.consolidation is not None and remembered.consolidation.action == "deferred"
    await _assert_nothing_partial(db, owner)
    failed = await db.driver.execute_query(
        "MATCH (r:ConsolidationRun {tenant: $t}) RETURN r.status AS status", t=owner.tenant, database_=db.name
    )
    assert [r["status"] for r in failed.records] != [] and all(r["status"] != "ok" for r in failed.records)
    outcomes = await engine.consolidate(owner)
    assert [o.action for o in outcomes if o.action != "none"] == ["created"]
    counts = await graph_counts(db, owner)
    assert counts["Episode"] == 1 and counts["Fact"] == 3


async def test_llm_500_leaves_no_partial_write_and_recovers(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    await _fault_then_recover(db, owner, llm, [Reply.error(500), Reply.error(500)], "refine_facts")


async def test_llm_timeout_leaves_no_partial_write_and_recovers(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    await _fault_then_recover(db, owner, llm, [Reply.slow(3.0), Reply.slow(3.0)], "create_episode")


async def test_invalid_json_leaves_no_partial_write_and_recovers(
    db: Database, owner: Owner, llm: LocalLLMServer
) -> None:
    await _fault_then_recover(db, owner, llm, [Reply.invalid_json(), Reply.invalid_json()], "refine_facts")


async def test_run_tokens_match_the_servers_usage(db: Database, owner: Owner, llm: LocalLLMServer) -> None:
    engine = llm_engine(db, llm, merge_threshold=0.99)
    llm.set_responder(consolidation_replies("Sushi"))
    for day, text in enumerate(SUSHI[:3]):
        await engine.remember(owner, unit(text, day))
    await engine.answer(owner, "What did Alice eat?")
    runs = await db.driver.execute_query(
        "MATCH (r:ConsolidationRun {tenant: $t}) RETURN r.op AS op, r.prompt_tokens AS p, r.completion_tokens AS c ORDER BY r.at",
        t=owner.tenant,
        database_=db.name,
    )
    by_op = {r["op"]: (r["p"], r["c"]) for r in runs.records}
    served = {task_of(body): usage for body, usage in zip(llm.requests, llm.usage_log, strict=True)}
    assert set(by_op) == {"create_episode", "refine_facts", "answer"}
    for op in by_op:
        usage = served[op]
        assert by_op[op] == (usage["prompt_tokens"], usage["completion_tokens"])
        assert usage["prompt_tokens"] > 50
