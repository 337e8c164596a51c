"""The audit trail of a fact over HTTP, and the bound on Neo4j round trips (no N+1)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.interactions import InteractionStore
from graph.models import ConsolidationWrite, EpisodeWrite, FactWrite, NewInteraction, Owner, RunWrite, new_id
from local_llm_server import LocalLLMServer
from tests.support.api import T0, Caller, counted_gql, tell_story
from tests.support.engines import DIMENSION, llm_engine
from tests.support.llm_script import by_task, episode_reply, facts_reply

AUDIT = """query($id: ID!) { fact(id: $id) { id text audit {
  fact { id }
  episodes { episode { id summary version } sources { similarity interaction { id text occurredAt } } }
  interactions { id text }
  supersedes { fact { id } reason }
  supersededBy { fact { id } }
  runs { id op model promptTokens completionTokens }
  promptTokens completionTokens
} } }"""


async def test_audit_chain_of_a_superseding_fact(caller: Caller) -> None:
    payloads = await tell_story(caller)
    interactions = [p["interactionId"] for p in payloads]
    created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
    audit = (await caller.gql(AUDIT, {"id": merged["factIds"][0]}))["fact"]["audit"]
    assert [e["episode"]["id"] for e in audit["episodes"]] == [merged["episodeId"]]
    sources = audit["episodes"][0]["sources"]
    assert {s["interaction"]["id"] for s in sources} == set(interactions[:4])
    assert all(s["similarity"] is not None for s in sources)
    assert [i["id"] for i in audit["interactions"]] == [interactions[3]]
    assert {c["fact"]["id"] for c in audit["supersedes"]} == set(created["factIds"])
    assert all(c["reason"] for c in audit["supersedes"]) and audit["supersededBy"] == []
    assert sorted(r["op"] for r in audit["runs"]) == ["merge_episode", "refine_facts"]
    assert {r["model"] for r in audit["runs"]} == {"extractive-v2"}
    assert audit["promptTokens"] == 0  # the offline consolidator spends no tokens


async def test_a_replacement_turned_by_time_order_says_so_in_the_audit(
    db: Database, caller: Caller, llm: LocalLLMServer
) -> None:
    """Turns consolidated out of time order: refinement names the fact said later as replaced by
    the one said before it, the edge runs the other way (graph-model.md#replacement), and its
    reason says so, keeping refinement's reason as what it is: written for the other direction."""
    owner, engine = Owner(caller.tenant, "alice"), llm_engine(db, llm, merge_threshold=0.99, theta_count=2)

    def facts(data: dict[str, Any]) -> list[dict[str, Any]]:
        last = data["turns"][-1]
        if "Berlin" in last["text"]:
            return [{"text": "Alice lives in Berlin.", "kind": "attribute", "source_turn_ids": [last["id"]]}]
        named = [f["id"] for f in data["existing_facts"] if "Berlin" in f["text"]]
        return [
            {"text": "Alice lives in Paris.", "kind": "attribute", "source_turn_ids": [last["id"]]}
            | {"replaces": named, "reason": "the user moved"}
        ]

    llm.set_responder(by_task(create_episode=episode_reply("Home"), refine_facts=facts_reply(facts)))
    for day, text in (
        (60, "I live in Berlin, my home is Berlin"),
        (61, "My home is Berlin now, I live there"),
    ):
        await engine.remember(owner, Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day)))
    for day, text in ((0, "I live in Paris, my home is Paris"), (1, "My home is Paris, I live there")):
        await engine.remember(owner, Unit(text=text, speaker="Alice", occurred_at=T0 + timedelta(days=day)))
    query = """query { user(id: "alice") { facts(first: 10) { nodes { id text status
        audit { supersedes { fact { text } reason at } supersededBy { fact { text } reason at } } } } } }"""
    nodes = (await caller.gql(query))["user"]["facts"]["nodes"]
    audits = {n["text"]: (n["status"], n["audit"]) for n in nodes}
    said, berlin = (f"{T0 + timedelta(days=d):%Y-%m-%dT%H:%M:%SZ}" for d in (1, 61))
    reason = (
        f"Reversed by time order: the replaced fact, said {said}, was consolidated after the "
        f"replacing fact, said {berlin}, and named it as the fact it replaced; the one said first "
        f"ends at {berlin}. Reason given for the opposite direction: the user moved"
    )
    edge = {"reason": reason, "at": berlin}
    assert audits == {
        "Alice lives in Berlin.": (
            "ACTIVE",
            {"supersedes": [{"fact": {"text": "Alice lives in Paris."}} | edge], "supersededBy": []},
        ),
        "Alice lives in Paris.": (
            "SUPERSEDED",
            {"supersedes": [], "supersededBy": [{"fact": {"text": "Alice lives in Berlin."}} | edge]},
        ),
    }


def _vector(embedder: HashingEmbedder, text: str) -> list[float]:
    return [float(x) for x in embedder.embed_sync([text])[0]]


def _run(op: str, read: list[str], produced: list[str]) -> RunWrite:
    return RunWrite(
        id=new_id("run"), op=op, trigger="recurrence", provider="test", model="m", status="ok",
        prompt_tokens=100, completion_tokens=20, latency_ms=1.0, neighbor_count=len(read), threshold=0.7,
        at=T0 + timedelta(days=200), read_ids=read, produced_ids=produced,
    )  # fmt: skip


async def _wide_fact(db: Database, owner: Owner, embedder: HashingEmbedder) -> str:
    """A fact derived from 10 episodes of 10 interactions each (provenance written directly)."""
    texts = [f"topic {e} detail {i}" for e in range(10) for i in range(10)]
    items = [
        NewInteraction("alice", t, T0 + timedelta(hours=n), _vector(embedder, t)) for n, t in enumerate(texts)
    ]
    ids = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    store, episodes, fact_id = ConsolidationStore(db, DIMENSION), [], new_id("fact")
    for e in range(10):
        sources = ids[10 * e : 10 * e + 10]
        run = _run("create_episode", sources, [])
        episode = EpisodeWrite(
            id=new_id("epi"), title=f"topic {e}", summary=f"Alice talks about topic {e}.",
            embedding=_vector(embedder, f"topic {e}"), first_at=T0, last_at=T0 + timedelta(days=1),
            sources=[(i, 0.9) for i in sources], run_id=run.id, valid_from=T0,
        )  # fmt: skip
        facts = [] if e < 9 else [
            FactWrite(fact_id, "Alice covers ten topics.", "attribute", _vector(embedder, "ten topics"), T0, sources)
        ]  # fmt: skip
        refine = _run("refine_facts", [episode.id, *sources], [f.id for f in facts])
        runs = [RunWrite(**{**run.__dict__, "produced_ids": [episode.id]}), refine]
        write = ConsolidationWrite(episode, facts, runs, sources, T0 + timedelta(days=1), refine.id)
        await store.commit(owner, write)
        episodes.append(episode.id)
    # The fact rests on all ten episodes.
    await db.driver.execute_query(
        "MATCH (f:Fact {id: $fact}) UNWIND $episodes AS e MATCH (x:Episode {id: e}) MERGE (f)-[:DERIVED_FROM]->(x)",
        fact=fact_id, episodes=episodes, database_=db.name,
    )  # fmt: skip
    return fact_id


async def _round_trips(db: Database, caller: Caller, query: str, variables: dict[str, Any]) -> int:
    return (await counted_gql(db, caller, query, variables))[0]


async def test_audit_of_ten_by_ten_costs_at_most_four_round_trips(
    db: Database, caller: Caller, embedder: HashingEmbedder
) -> None:
    fact_id = await _wide_fact(db, Owner(caller.tenant, "alice"), embedder)
    data = await caller.gql(AUDIT, {"id": fact_id})
    audit = data["fact"]["audit"]
    assert len(audit["episodes"]) == 10
    assert all(len(e["sources"]) == 10 for e in audit["episodes"])
    assert len(audit["runs"]) == 11 and audit["promptTokens"] == 1100
    # Authentication, the fact, its whole audit: one round trip each.
    assert await _round_trips(db, caller, AUDIT, {"id": fact_id}) == 3
    # Nested relations of all ten episodes are one batch more, not ten.
    nested = AUDIT.replace("summary version }", "summary version versions { id } }")
    assert await _round_trips(db, caller, nested, {"id": fact_id}) <= 4


async def test_listing_relations_do_not_grow_with_the_page(
    db: Database, caller: Caller, embedder: HashingEmbedder
) -> None:
    await _wide_fact(db, Owner(caller.tenant, "alice"), embedder)
    query = """query($n: Int) { user(id: "alice") { episodes(first: $n) { nodes {
        id sources { interaction { id derivedFacts { id } } } facts { id } versions { id } } } } }"""
    small = await _round_trips(db, caller, query, {"n": 2})
    large = await _round_trips(db, caller, query, {"n": 10})
    assert small == large <= 7
