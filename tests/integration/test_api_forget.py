"""Forgetting over HTTP, checked in the graph itself: what rests only on a forgotten interaction is
gone, what survives is rebuilt without it, and forgetting a user leaves nothing behind."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

import graph.database
import graph.forget
from consolidation.consolidating.consolidator import EpisodeInput
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.consolidating.prompts.create_episode import EpisodeDraft
from consolidation.consolidating.prompts.refine_facts import FactDrafts, RefineInput
from consolidation.engine import MemoryEngine
from consolidation.forgetting.forgetter import Busy, Forgetter
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.providers.llm.types import LLMError, LLMResult, LLMUnavailable
from graph.consolidations import ConsolidationStore
from graph.database import Database
from graph.facts import FactStore
from graph.interactions import InteractionStore
from graph.leases import LeaseStore
from graph.models import ConsolidationWrite, EpisodeWrite, FactWrite, NewInteraction, Owner, RunWrite, new_id
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import REMEMBER_BATCH, STORY, T0, Caller, count_nodes, tell_story, unit
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import Handler, by_task, episode_reply, facts_reply, one_fact_per_turn

WHO = "desk (key_123)"
FORGET = """mutation($id: ID!) { forgetInteraction(id: $id) {
  interactionIds episodeIds factIds runIds rebuiltEpisodeIds rebuiltFactIds restoredFactIds recordRunId } }"""


async def _graph(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def mentions(db: Database, tenant: str, word: str) -> list[dict[str, Any]]:
    """Every node or relationship property of the tenant whose text contains `word`."""
    return await _graph(
        db,
        """MATCH (n) WHERE n.tenant = $tenant
           UNWIND keys(n) AS key
           WITH n, key WHERE n[key] IS :: STRING AND toLower(n[key]) CONTAINS $word
           RETURN labels(n)[0] AS what, key
           UNION
           MATCH (n)-[r]->() WHERE n.tenant = $tenant
           UNWIND keys(r) AS key
           WITH r, key WHERE r[key] IS :: STRING AND toLower(r[key]) CONTAINS $word
           RETURN type(r) AS what, key""",
        tenant=tenant,
        word=word,
    )


async def test_forgetting_the_merge_turn_undoes_the_merge(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    turns = [p["interactionId"] for p in payloads]
    created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
    result = (await caller.gql(FORGET, {"id": turns[3]}))["forgetInteraction"]
    assert result["interactionIds"] == [turns[3]]
    assert result["episodeIds"] == [merged["episodeId"]]  # the version existed only for this turn
    assert result["factIds"] == merged["factIds"]
    assert set(result["restoredFactIds"]) == set(created["factIds"])
    assert len(result["runIds"]) == 2 and result["rebuiltEpisodeIds"] == []

    # In the graph: the turn, the merged version, its fact and its runs are gone ...
    gone = [turns[3], merged["episodeId"], *merged["factIds"], *result["runIds"]]
    assert await _graph(db, "MATCH (n) WHERE n.id IN $ids RETURN n.id AS id", ids=gone) == []
    assert await mentions(db, caller.tenant, "can't stand") == []
    assert await _graph(db, "MATCH (r:ConsolidationRun {trigger: $id}) RETURN r.id AS id", id=turns[3]) == []
    # ... the first version is current again, the old facts hold again, the stream is chained.
    first = await _graph(
        db,
        "MATCH (e:Episode {id: $id}) RETURN e.current AS current, e.superseded_at AS s",
        id=created["episodeId"],
    )
    assert first == [{"current": True, "s": None}]
    facts = await _graph(
        db,
        "MATCH (f:Fact) WHERE f.id IN $ids RETURN f.status AS status, f.valid_to AS to",
        ids=created["factIds"],
    )
    assert facts == [{"status": "active", "to": None}] * 3
    chain = await _graph(
        db, "MATCH p = (:Interaction {id: $a})-[:NEXT*]->(:Interaction {id: $b}) RETURN length(p) AS hops",
        a=turns[0], b=turns[4],
    )  # fmt: skip
    assert chain == [{"hops": 3}]
    # Through the API the memory reads as if the turn had never been said.
    recall = await caller.gql('{ recall(userId: "alice", query: "sushi") { semantic { fact { id } } } }')
    assert {h["fact"]["id"] for h in recall["recall"]["semantic"]} == set(created["factIds"])


async def test_forgetting_a_source_turn_rebuilds_surviving_episodes(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    turns = [p["interactionId"] for p in payloads]
    created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
    before = await _graph(
        db, "MATCH (e:Episode) WHERE e.id IN $ids RETURN e.id AS id, e.embedding AS v",
        ids=[created["episodeId"], merged["episodeId"]],
    )  # fmt: skip
    assert len(await mentions(db, caller.tenant, "wasabi")) > 0

    result = (await caller.gql(FORGET, {"id": turns[0]}))["forgetInteraction"]
    assert result["episodeIds"] == []  # both versions rest on other turns too
    assert set(result["rebuiltEpisodeIds"]) == {created["episodeId"], merged["episodeId"]}
    assert len(result["factIds"]) == 1 and result["factIds"][0] in created["factIds"]

    # Nothing anywhere in the tenant's graph still says "wasabi" (summaries, titles, facts, edges).
    assert await mentions(db, caller.tenant, "wasabi") == []
    after = await _graph(
        db, """MATCH (e:Episode) WHERE e.id IN $ids
               RETURN e.id AS id, e.embedding AS v, e.rebuilt_at IS NOT NULL AS rebuilt,
                      [(e)-[:DERIVED_FROM]->(i) | i.id] AS sources""",
        ids=[created["episodeId"], merged["episodeId"]],
    )  # fmt: skip
    old_vectors = {row["id"]: row["v"] for row in before}
    for row in after:
        assert row["rebuilt"] and row["v"] != old_vectors[row["id"]]
        assert turns[0] not in row["sources"]
    rebuild_runs = await _graph(
        db, "MATCH (r:ConsolidationRun {tenant: $t, trigger: 'forget'})-[:PRODUCED]->(e) RETURN e.id AS id",
        t=caller.tenant,
    )  # fmt: skip
    assert {r["id"] for r in rebuild_runs} == {created["episodeId"], merged["episodeId"]}
    # The fact that superseded the erased one survives (its own turn still states it).
    still = await caller.gql("query($id: ID!) { fact(id: $id) { status supersedes { fact { id } } } }",
                             {"id": merged["factIds"][0]})  # fmt: skip
    assert still["fact"]["status"] == "ACTIVE"
    assert result["factIds"][0] not in {c["fact"]["id"] for c in still["fact"]["supersedes"]}


async def test_forget_user_erases_everything_of_that_user(db: Database, caller: Caller) -> None:
    await tell_story(caller, user="alice")
    await tell_story(caller, user="bob")
    before = await count_nodes(db, caller.tenant, "alice")
    data = await caller.gql(
        'mutation { forgetUser(id: "alice") { userId interactions episodes facts runs } }'
    )
    removed = data["forgetUser"]
    assert removed["userId"] == "alice" and removed["interactions"] == 5
    assert (removed["episodes"], removed["facts"], removed["runs"]) == (
        before["Episode"], before["Fact"], before["ConsolidationRun"],
    )  # fmt: skip
    assert await count_nodes(db, caller.tenant, "alice") == {}
    assert (await count_nodes(db, caller.tenant, "bob"))["Interaction"] == 5  # the other user is untouched
    # Erased nodes that stayed in a vector index hold nothing, and every index still answers.
    leftovers = await _graph(
        db, """MATCH (n:Erased) WHERE any(k IN keys(n) WHERE NOT k IN ['id', 'tenant', 'user_id', 'erased', 'embedding'])
               OR (n)--() RETURN count(n) AS n""",
    )  # fmt: skip
    assert leftovers == [{"n": 0}]
    recall = await caller.gql(
        '{ recall(userId: "bob", query: "sushi") { semantic { score } episodic { score } } }'
    )
    assert recall["recall"]["semantic"] and recall["recall"]["episodic"]
    errors = await caller.errors('{ user(id: "alice") { id } }')
    assert errors[0]["extensions"]["code"] == "NOT_FOUND"
    again = await caller.errors('mutation { forgetUser(id: "alice") { userId } }')
    assert again[0]["extensions"]["code"] == "NOT_FOUND"


# -- the forgetter itself: restated facts, waiting for the lease, nothing half-done ---------------


def _vec(embedder: HashingEmbedder, text: str) -> list[float]:
    return [float(x) for x in embedder.embed_sync([text])[0]]


async def _facts_from_two_turns(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    facts: Sequence[tuple[str, str]] = (("Alice loves jazz and wasabi.", "jazz wasabi"),),
) -> tuple[list[str], list[str]]:
    """Three turns in one episode, and `facts` (text, what its vector embeds) each stated by the
    first two; the turn ids and the fact ids."""
    texts = ["I love jazz and wasabi.", "I love jazz.", "Jazz concerts are fun."]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    ids = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    run = RunWrite(new_id("run"), "create_episode", ids[-1], "offline", "m", "ok", 0, 0, 1.0, 3, 0.7, T0, ids)
    episode = EpisodeWrite(
        new_id("epi"), "Jazz", "Alice loves jazz and wasabi; jazz concerts are fun.", _vec(embedder, "jazz"),
        T0, T0 + timedelta(days=2), [(i, 0.8) for i in ids], run.id, T0,
    )  # fmt: skip
    written = [
        FactWrite(new_id("fact"), text, "preference", _vec(embedder, embeds), T0 + timedelta(days=1), ids[:2])
        for text, embeds in facts
    ]
    write = ConsolidationWrite(episode, written, [replace(run, produced_ids=[episode.id])], ids, T0, run.id)
    await ConsolidationStore(db, DIMENSION).commit(owner, write)
    return ids, [f.id for f in written]


def _forgetter(
    db: Database, embedder: HashingEmbedder, consolidator: Any = None, **settings: Any
) -> Forgetter:
    return Forgetter(
        MemoryEngine(db, embedder, consolidator or OfflineConsolidator(), engine_settings(**settings))
    )


async def test_a_fact_with_another_source_is_restated_without_the_forgotten_turn(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids, [fact_id] = await _facts_from_two_turns(db, owner, embedder)
    forgotten = await _forgetter(db, embedder).forget_interaction(owner, ids[0], by=WHO)
    assert forgotten.fact_ids == [] and forgotten.rebuilt_fact_ids == [fact_id]
    row = (
        await _graph(db, "MATCH (f:Fact {id: $id}) RETURN f.text AS text, f.rebuilt_at AS at", id=fact_id)
    )[0]
    assert "jazz" in row["text"] and "wasabi" not in row["text"] and row["at"] is not None
    assert await mentions(db, owner.tenant, "wasabi") == []
    # The forget is in the rebuilt fact's audit, beside the rebuild's own run (a model's).
    (forget,) = await _graph(db, FORGET_RUNS, tenant=owner.tenant)
    assert sorted(forget["read"]) == sorted([fact_id, *forgotten.rebuilt_episode_ids])
    audit = await FactStore(db, DIMENSION).provenance(owner, fact_id)
    assert [(c.op, c.trigger, c.by) for c in audit.corrections] == [("forget_interaction", "erasure", WHO)]
    assert {r.trigger for r in audit.runs if r.op == "refine_facts"} == {"forget"}


class CountingConsolidator(OfflineConsolidator):
    def __init__(self) -> None:
        super().__init__()
        self.refined: list[RefineInput] = []

    async def refine_facts(self, inp: RefineInput) -> LLMResult[FactDrafts]:
        self.refined.append(inp)
        return await super().refine_facts(inp)


async def test_facts_resting_on_the_same_turns_share_one_rebuild_call(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """Two facts of one episode stated by the same two turns: forgetting one turn asks the
    consolidator once (the same input), and both facts are restated from that one answer."""
    statements = ("Alice loves jazz and wasabi.", "Alice loves jazz music.")
    ids, fact_ids = await _facts_from_two_turns(db, owner, embedder, [(t, t) for t in statements])
    consolidator = CountingConsolidator()
    forgotten = await _forgetter(db, embedder, consolidator).forget_interaction(owner, ids[0], by=WHO)
    assert sorted(forgotten.rebuilt_fact_ids) == sorted(fact_ids)
    assert len(consolidator.refined) == 1
    rebuilt = await _graph(
        db, "MATCH (r:ConsolidationRun {tenant: $t, trigger: 'forget', op: 'refine_facts'})-[:PRODUCED]->(f) "
        "RETURN r.id AS run, f.id AS fact", t=owner.tenant,
    )  # fmt: skip
    assert sorted(r["fact"] for r in rebuilt) == sorted(fact_ids)
    assert len({r["run"] for r in rebuilt}) == 1


class SlowConsolidator(OfflineConsolidator):
    """A rebuild that outlasts the lease: an LLM answering slowly under load."""

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        await asyncio.sleep(2.5)
        return await super().create_episode(inp)


async def test_a_rebuild_longer_than_the_lease_keeps_it(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids, [fact_id] = await _facts_from_two_turns(db, owner, embedder)
    forgetter = _forgetter(db, embedder, SlowConsolidator(), lease_seconds=1.0)
    forgotten = await forgetter.forget_interaction(owner, ids[0], by=WHO)
    assert forgotten.rebuilt_fact_ids == [fact_id] and len(forgotten.rebuilt_episode_ids) == 1
    assert await mentions(db, owner.tenant, "wasabi") == []


async def _episodes_sharing_a_turn(
    db: Database, owner: Owner, embedder: HashingEmbedder, n: int
) -> tuple[str, list[str]]:
    """One turn that `n` episodes (each with a fact) rest on, each also on a turn of its own; the
    shared turn's id and the episode ids."""
    texts = ["I play music every day."] + [f"I play instrument number {k}." for k in range(n)]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    shared, *own = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    episodes = []
    for k, mine in enumerate(own):
        ids = [shared, mine]
        run = RunWrite(
            new_id("run"), "create_episode", mine, "offline", "m", "ok", 0, 0, 1.0, 2, 0.7, T0, ids
        )
        episode = EpisodeWrite(
            new_id("epi"), f"Music {k}", texts[k + 1], _vec(embedder, texts[k + 1]),
            T0, T0 + timedelta(days=k + 1), [(i, 0.8) for i in ids], run.id, T0,
        )  # fmt: skip
        fact = FactWrite(new_id("fact"), texts[k + 1], "preference", _vec(embedder, texts[k + 1]), T0, ids)
        write = ConsolidationWrite(
            episode, [fact], [replace(run, produced_ids=[episode.id])], ids, T0, run.id
        )
        await ConsolidationStore(db, DIMENSION).commit(owner, write)
        episodes.append(episode.id)
    return shared, episodes


def _slowly(seconds: float, handler: Handler, arrivals: list[float]) -> Handler:
    """The handler's reply after `seconds`; notes when each request arrived."""

    def handle(body: dict[str, Any]) -> Reply:
        arrivals.append(time.monotonic())
        return Reply.slow(seconds, handler(body))

    return handle


async def test_the_rebuilds_of_a_forget_run_side_by_side(
    db: Database, owner: Owner, embedder: HashingEmbedder, llm: LocalLLMServer
) -> None:
    """Each rebuilt episode (and each refine call after them) is its own LLM call: with
    worker_concurrency 5, a forget touching five episodes sends the five calls at once, then the
    five refine calls, and waits about two calls' time, not ten (the arrival times show it)."""
    shared, episodes = await _episodes_sharing_a_turn(db, owner, embedder, 5)
    delay = 1.0  # calls one after another arrive at least this far apart, however loaded the machine
    episode_calls: list[float] = []
    refine_calls: list[float] = []
    llm.set_responder(
        by_task(
            create_episode=_slowly(delay, episode_reply("Music"), episode_calls),
            refine_facts=_slowly(delay, facts_reply(one_fact_per_turn), refine_calls),
        )
    )
    forgetter = Forgetter(llm_engine(db, llm, worker_concurrency=5))
    forgotten = await forgetter.forget_interaction(owner, shared, by=WHO)
    assert sorted(forgotten.rebuilt_episode_ids) == sorted(episodes) and len(forgotten.rebuilt_fact_ids) == 5
    assert len(episode_calls) == len(refine_calls) == 5
    # Each batch arrived before its first call was answered (one after another: a delay apart).
    assert max(episode_calls) - min(episode_calls) < delay, episode_calls
    assert max(refine_calls) - min(refine_calls) < delay, refine_calls
    assert await mentions(db, owner.tenant, "every day") == []


async def test_a_rebuild_call_failing_beside_others_changes_nothing(
    db: Database, owner: Owner, embedder: HashingEmbedder, llm: LocalLLMServer
) -> None:
    """One of five episode calls in flight is refused: the others are given up, the forget raises
    the refusal, nothing is written and the lease is free."""
    shared, _ = await _episodes_sharing_a_turn(db, owner, embedder, 5)
    calls: list[float] = []

    def one_refused(body: dict[str, Any]) -> Reply:
        calls.append(time.monotonic())
        if len(calls) == 3:
            return Reply.slow(0.5, Reply.error(400, "refused"))
        return Reply.slow(1.5, episode_reply("Music")(body))

    llm.set_responder(by_task(create_episode=one_refused))
    before = await count_nodes(db, owner.tenant)
    with pytest.raises(LLMError, match="HTTP 400"):
        await Forgetter(llm_engine(db, llm, worker_concurrency=5)).forget_interaction(owner, shared, by=WHO)
    assert len(calls) == 5
    assert await count_nodes(db, owner.tenant) == before
    assert len(await mentions(db, owner.tenant, "every day")) > 0
    assert await LeaseStore(db).wait_acquire(owner, "someone-else", 1.0, 0)


class FailingConsolidator(OfflineConsolidator):
    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        raise LLMUnavailable("endpoint down")


async def test_a_failed_rebuild_changes_nothing(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids, _ = await _facts_from_two_turns(db, owner, embedder)
    before = await count_nodes(db, owner.tenant)
    with pytest.raises(LLMUnavailable):
        await _forgetter(db, embedder, FailingConsolidator()).forget_interaction(owner, ids[0], by=WHO)
    assert await count_nodes(db, owner.tenant) == before
    assert len(await mentions(db, owner.tenant, "wasabi")) > 0  # untouched, not half-erased
    assert await LeaseStore(db).wait_acquire(owner, "someone-else", 1.0, 0)  # and the lease was released


async def test_forget_waits_for_a_running_consolidation(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    ids, _ = await _facts_from_two_turns(db, owner, embedder)
    assert await LeaseStore(db).wait_acquire(owner, "consolidating-elsewhere", 60.0, 0)
    with pytest.raises(Busy):
        await _forgetter(db, embedder, lease_seconds=0.3).forget_interaction(owner, ids[0], by=WHO)
    await LeaseStore(db).release(owner, "consolidating-elsewhere")
    done = await _forgetter(db, embedder).forget_interaction(owner, ids[0], by=WHO)
    assert done.interaction_ids == [ids[0]]


# -- a fact a person stated rests on the recorded change, not on the turn it cites ----------------

PREVIEW = """query($id: ID!) { forgetInteractionPreview(id: $id) {
  facts { id } rebuiltFacts { id } restoredFacts { id } } }"""
CORRECT = """mutation($id: ID!, $text: String!, $reason: String!, $source: ID) {
  correctFact(id: $id, text: $text, reason: $reason, sourceInteractionId: $source) {
    fact { id agentIds } run { id by } } }"""
AUDIT = """query($id: ID!) { fact(id: $id) { text status agentIds
  supersededBy { reason fact { id } } derivedFrom { interactions { id } }
  audit { corrections { id reason by } } } }"""
FACTS = "MATCH (f:Fact) WHERE f.id IN $ids RETURN f.id AS id, f.status AS status ORDER BY id"
SCOPES = "MATCH (f:Fact {id: $id}) RETURN f.scopes AS scopes"


async def _correct_citing(caller: Caller, old_id: str, source: str) -> dict[str, Any]:
    variables = {"id": old_id, "text": "Alice prefers eel.", "reason": "she said so", "source": source}
    return dict((await caller.gql(CORRECT, variables))["correctFact"])


async def _forget_as_previewed(caller: Caller, interaction_id: str) -> dict[str, Any]:
    """The real forget, checked against its preview (erased, rebuilt and restored facts)."""
    preview = (await caller.gql(PREVIEW, {"id": interaction_id}))["forgetInteractionPreview"]
    result = dict((await caller.gql(FORGET, {"id": interaction_id}))["forgetInteraction"])
    assert sorted(f["id"] for f in preview["facts"]) == sorted(result["factIds"])
    assert sorted(f["id"] for f in preview["rebuiltFacts"]) == sorted(result["rebuiltFactIds"])
    assert sorted(f["id"] for f in preview["restoredFacts"]) == sorted(result["restoredFactIds"])
    return result


async def test_forgetting_the_turn_a_correction_cites_keeps_the_correction(
    db: Database, caller: Caller
) -> None:
    """The correction is made as it always was (nothing new is written on it): the forget knows it
    by the person's run that produced it, so corrections from before the rule are kept too."""
    payloads = await tell_story(caller)
    old_id = payloads[3]["consolidation"]["factIds"][0]  # active, stated by the merge turn
    said = await caller.gql(
        'mutation { remember(input: {userId: "alice", text: "Actually I prefer eel.", sourceRef: "fix",'
        ' agentId: "fixer"}, consolidate: false) { interactionId } }'
    )
    source = said["remember"]["interactionId"]
    done = await _correct_citing(caller, old_id, source)
    new_id_, run = done["fact"]["id"], done["run"]
    assert done["fact"]["agentIds"] == ["fixer"]

    result = await _forget_as_previewed(caller, source)
    # The person's fact is neither erased nor rebuilt, and the old belief does not come back.
    assert (result["factIds"], result["rebuiltFactIds"], result["restoredFactIds"]) == ([], [], [])
    assert result["runIds"] == []
    made = (await caller.gql(AUDIT, {"id": new_id_}))["fact"]
    assert (made["text"], made["status"]) == ("Alice prefers eel.", "ACTIVE")
    assert made["derivedFrom"]["interactions"] == []
    # Nothing of the forgotten turn's scopes stays; the replaced belief's do, as without a source.
    assert made["agentIds"] == []
    assert await _graph(db, SCOPES, id=new_id_) == await _graph(db, SCOPES, id=old_id)
    assert made["audit"]["corrections"] == [{"id": run["id"], "reason": "she said so", "by": run["by"]}]
    # It now rests on its run, exactly like a correction made without a source.
    sources = await _graph(
        db, "MATCH (f:Fact {id: $id})-[d:DERIVED_FROM]->(s) RETURN labels(s) AS what, s.id AS id, d.run_id AS r",
        id=new_id_,
    )  # fmt: skip
    assert sources == [{"what": ["ConsolidationRun"], "id": run["id"], "r": run["id"]}]
    old = (await caller.gql(AUDIT, {"id": old_id}))["fact"]
    assert old["status"] == "SUPERSEDED"
    assert old["supersededBy"] == [{"reason": "she said so", "fact": {"id": new_id_}}]
    assert [c["id"] for c in old["audit"]["corrections"]] == [run["id"]]
    # Recall sees the correction, not the old belief, also within the old belief's scope.
    filtered = await caller.gql(
        """{ recall(userId: "alice", query: "eel sushi salmon", filter: {speakers: ["alice"]},
             budget: {subconscious: 0, episodic: 0, semantic: 20}) { semantic { fact { id } } } }"""
    )
    found = {h["fact"]["id"] for h in filtered["recall"]["semantic"]}
    assert new_id_ in found and old_id not in found


async def test_forgetting_a_cited_turn_still_erases_what_consolidation_wrote_from_it(
    db: Database, caller: Caller
) -> None:
    payloads = await tell_story(caller)
    turns = [p["interactionId"] for p in payloads]
    created, merged = payloads[3 - 1]["consolidation"], payloads[3]["consolidation"]
    # A correction of the merge turn's fact that cites that same turn: created <- merged <- correction.
    old_id = merged["factIds"][0]
    done = await _correct_citing(caller, old_id, turns[3])
    new_id_ = done["fact"]["id"]

    replaced = await _graph(
        db, "MATCH (:Fact {id: $id})-[:SUPERSEDES]->(f) RETURN f.id AS id, f.valid_to AS to ORDER BY id",
        id=old_id,
    )  # fmt: skip
    assert {r["id"] for r in replaced} == set(created["factIds"])

    result = await _forget_as_previewed(caller, turns[3])
    # The consolidator's facts resting only on the turn go ...
    assert result["factIds"] == merged["factIds"]
    assert await _graph(db, FACTS, ids=[old_id]) == []
    # ... but what they superseded does not come back beside the person's correction of them: the
    # correction now replaces it directly, and it stopped holding when it did.
    assert result["restoredFactIds"] == []
    assert await _graph(db, FACTS, ids=created["factIds"]) == [
        {"id": i, "status": "superseded"} for i in sorted(created["factIds"])
    ]
    # The forget is recorded in the audits of both ends of the contracted chain.
    (forget,) = await _graph(db, FORGET_RUNS, tenant=caller.tenant)
    assert sorted(forget["read"]) == sorted([new_id_, *created["factIds"], created["episodeId"]])
    for row in replaced:
        kept = (await caller.gql(AUDIT, {"id": row["id"]}))["fact"]
        assert kept["supersededBy"] == [{"reason": None, "fact": {"id": new_id_}}]
        assert [c["id"] for c in kept["audit"]["corrections"]] == [forget["run"]["id"]]
        assert await _graph(db, "MATCH (f:Fact {id: $id}) RETURN f.valid_to AS to", id=row["id"]) == [
            {"to": row["to"]}
        ]
    # The person's correction stays, resting on its run.
    made = (await caller.gql(AUDIT, {"id": new_id_}))["fact"]
    assert (made["text"], made["status"]) == ("Alice prefers eel.", "ACTIVE")
    assert made["derivedFrom"]["interactions"] == []
    assert [c["id"] for c in made["audit"]["corrections"]] == [done["run"]["id"], forget["run"]["id"]]
    recall = await caller.gql('{ recall(userId: "alice", query: "sushi") { semantic { fact { id } } } }')
    assert not {h["fact"]["id"] for h in recall["recall"]["semantic"]} & set(created["factIds"])


async def test_forgetting_the_turn_under_a_corrected_fact_clears_it_from_the_corrections_scopes(
    caller: Caller,
) -> None:
    """A correction made without a source answers in the scopes of the fact it replaced; once that
    fact's turn is forgotten, nothing of the turn's agent stays on the correction, nor on a
    correction of the correction: they answer in the scopes of the older fact the correction now
    replaces directly (docs/corrections.md, a chain of replacements), from the turns that remain."""
    payloads = []
    for day, text in enumerate(STORY[:4]):
        units = [unit(text, day, sourceRef=f"d{day}", agentId=f"agent-{day}")]
        payloads.append(
            (await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": units}))["rememberBatch"][0]
        )
    old_id = payloads[3]["consolidation"]["factIds"][0]  # stated by the merge turn alone
    first = (await caller.gql(CORRECT, {"id": old_id, "text": "Alice prefers eel.", "reason": "r"}))[
        "correctFact"
    ]
    second = (
        await caller.gql(
            CORRECT, {"id": first["fact"]["id"], "text": "Alice prefers eel rolls.", "reason": "r"}
        )
    )["correctFact"]
    chain = [first["fact"]["id"], second["fact"]["id"]]
    assert first["fact"]["agentIds"] == second["fact"]["agentIds"] == ["agent-3"]

    await _forget_as_previewed(caller, payloads[3]["interactionId"])
    scopes = [(await caller.gql(AUDIT, {"id": fact_id}))["fact"]["agentIds"] for fact_id in chain]
    assert scopes[0] == scopes[1] and set(scopes[0]) <= {"agent-0", "agent-1", "agent-2"}, scopes
    listed = await caller.gql(
        '{ user(id: "alice") { facts(filter: {agentIds: ["agent-3"]}) { nodes { id } } } }'
    )
    assert listed["user"]["facts"]["nodes"] == []


async def test_a_correction_of_a_correction_keeps_its_chain_and_scopes(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    old_id = payloads[3]["consolidation"]["factIds"][0]
    said = await caller.gql(
        'mutation { remember(input: {userId: "alice", text: "Eel, not salmon.", agentId: "fixer"},'
        " consolidate: false) { interactionId } }"
    )
    source = said["remember"]["interactionId"]
    first = await _correct_citing(caller, old_id, source)
    second = dict(
        (
            await caller.gql(
                CORRECT,
                {"id": first["fact"]["id"], "text": "Alice prefers eel rolls.", "reason": "more precise",
                 "source": source},
            )
        )["correctFact"]
    )  # fmt: skip

    result = await _forget_as_previewed(caller, source)
    assert (result["factIds"], result["rebuiltFactIds"], result["restoredFactIds"]) == ([], [], [])
    chain = [old_id, first["fact"]["id"], second["fact"]["id"]]
    assert await _graph(db, FACTS, ids=chain) == sorted(
        [{"id": old_id, "status": "superseded"}, {"id": chain[1], "status": "superseded"},
         {"id": chain[2], "status": "active"}],
        key=lambda row: row["id"],
    )  # fmt: skip
    history = await caller.gql("query($id: ID!) { fact(id: $id) { history { id } } }", {"id": chain[2]})
    assert [f["id"] for f in history["fact"]["history"]][-3:] == chain  # after what the merge replaced
    # Each correction answers in the scopes of what it replaced, recomputed in order.
    expected = await _graph(db, SCOPES, id=old_id)
    for fact_id in chain[1:]:
        assert await _graph(db, SCOPES, id=fact_id) == expected


# -- a chain of replacements through erased facts is contracted, not undone ----------------------

CHAIN = """MATCH (f:Fact) WHERE f.id IN $ids
RETURN f.id AS id, f.status AS status, f.valid_to AS valid_to,
       [(s:Fact)-[:SUPERSEDES]->(f) | s.id] AS superseded_by ORDER BY id"""


async def _facts_in_turn(
    db: Database,
    owner: Owner,
    embedder: HashingEmbedder,
    day: int,
    turn: str,
    facts: list[tuple[str, list[str]]],
) -> list[str]:
    """Facts the consolidator wrote from one turn alone, each replacing the facts named with it."""
    at = T0 + timedelta(days=day)
    writes = [
        FactWrite(
            new_id("fact"), t, "attribute", _vec(embedder, t), at, [turn], [(o, "replaced") for o in olds]
        )
        for t, olds in facts
    ]
    await ConsolidationStore(db, DIMENSION).commit(owner, ConsolidationWrite(None, writes, [], [], T0))
    return [w.id for w in writes]


async def test_a_fact_replaced_through_erased_facts_stays_replaced_by_the_survivor(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """F0 <- F1 <- F1b <- F2, with F1 and F1b resting only on the forgotten turn: F0 does not come back
    beside F2, which now replaces it directly; G0, replaced only by an erased fact, holds again."""
    texts = ["I live in Paris and drink tea.", "I moved to Lyon; coffee now.", "Actually Berlin."]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    a, t, b = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    f0, g0 = await _facts_in_turn(db, owner, embedder, 0, a, [("Alice lives in Paris.", []),
                                                             ("Alice drinks tea.", [])])  # fmt: skip
    f1, g1 = await _facts_in_turn(db, owner, embedder, 1, t, [("Alice lives in Lyon.", [f0]),
                                                             ("Alice drinks coffee.", [g0])])  # fmt: skip
    (f1b,) = await _facts_in_turn(db, owner, embedder, 1, t, [("Alice lives in Lyon now.", [f1])])
    (f2,) = await _facts_in_turn(db, owner, embedder, 2, b, [("Alice lives in Berlin.", [f1b])])
    ended = (await _graph(db, CHAIN, ids=[f0]))[0]["valid_to"]

    forgetter = _forgetter(db, embedder)
    preview = await forgetter.preview_interaction(owner, t)
    forgotten = await forgetter.forget_interaction(owner, t, by=WHO)
    assert sorted(forgotten.fact_ids) == sorted([f1, f1b, g1])
    assert preview.restored_fact_ids == forgotten.restored_fact_ids == [g0]
    assert await _graph(db, CHAIN, ids=[f0, g0, f2]) == sorted(
        [{"id": f0, "status": "superseded", "valid_to": ended, "superseded_by": [f2]},
         {"id": g0, "status": "active", "valid_to": None, "superseded_by": []},
         {"id": f2, "status": "active", "valid_to": None, "superseded_by": []}],
        key=lambda row: row["id"],
    )  # fmt: skip
    # The contracted edge keeps nothing of the erased facts (their reason may quote the turn).
    edge = await _graph(
        db, "MATCH (:Fact {id: $new})-[s:SUPERSEDES]->(:Fact {id: $old}) RETURN s.reason AS reason, s.at AS at",
        new=f2, old=f0,
    )  # fmt: skip
    assert edge == [{"reason": None, "at": ended}]


# -- a forget that changes a surviving belief is recorded as a person's change ------------------

FORGET_RUNS = """MATCH (r:ConsolidationRun {tenant: $tenant, op: 'forget_interaction'})
RETURN r {.*} AS run, [(r)-[:READ]->(n) | n.id] AS read, [(r)-[:PRODUCED]->(n) | n.id] AS produced"""
CORRECTIONS = """query($id: ID!) { fact(id: $id) { status audit { corrections {
  id op trigger provider model by reason promptTokens read { id } produced { id } } } } }"""


async def test_a_forget_that_restores_facts_is_in_their_audit(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    turns = [p["interactionId"] for p in payloads]
    created = payloads[2]["consolidation"]
    result = await _forget_as_previewed(caller, turns[3])
    assert set(result["restoredFactIds"]) == set(created["factIds"])

    # One run records the forget, a person's change: who and when, and what it changed.
    (row,) = await _graph(db, FORGET_RUNS, tenant=caller.tenant)
    run = row["run"]
    assert (run["provider"], run["model"], run["trigger"], run["status"]) == (
        "person",
        "person",
        "erasure",
        "ok",
    )
    assert run["by"].startswith("test (key_") and "reason" not in run and run["at"] is not None
    # It read the restored facts and the episode version current again (the merge is undone).
    assert sorted(row["read"]) == sorted([*created["factIds"], created["episodeId"]])
    assert row["produced"] == []
    # It holds nothing of the forgotten turn: neither its text nor its id.
    assert not any(turns[3] in str(v) or "stand" in str(v) for v in run.values())
    assert run["id"] not in result["runIds"]
    # The answer names it, so the caller can go from the forget to its audit.
    assert result["recordRunId"] == run["id"]
    recorded = await caller.gql(
        "query($id: ID!) { node(id: $id) { ... on ConsolidationRun { op trigger } } }", {"id": run["id"]}
    )
    assert recorded["node"] == {"op": "forget_interaction", "trigger": "erasure"}
    for fact_id in created["factIds"]:
        fact = (await caller.gql(CORRECTIONS, {"id": fact_id}))["fact"]
        assert fact["status"] == "ACTIVE"
        (seen,) = fact["audit"]["corrections"]
        assert sorted(r["id"] for r in seen.pop("read")) == sorted(
            [*created["factIds"], created["episodeId"]]
        )
        assert seen == {"id": run["id"], "op": "forget_interaction", "trigger": "erasure", "provider": "person",
                        "model": "person", "by": run["by"], "reason": None, "promptTokens": 0,
                        "produced": []}  # fmt: skip


MORE_SUSHI = ["I love sushi with salmon and eel.", "Sushi with tuna and salmon is great."]


async def tell_longer_story(caller: Caller) -> list[dict[str, Any]]:
    """The STORY, then two more sushi turns, each merged: episode versions v1 <- v2 <- v3 <- v4."""
    payloads = await tell_story(caller)
    for day, text in enumerate(MORE_SUSHI, start=len(STORY)):
        units = [unit(text, day, sourceRef=f"d{day}")]
        payloads.append(
            (await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": units}))["rememberBatch"][0]
        )
    actions = [p["consolidation"]["action"] for p in payloads]
    assert actions == ["NONE", "NONE", "CREATED", "MERGED", "NONE", "MERGED", "MERGED"], actions
    return payloads


async def test_a_forget_that_mends_an_episode_chain_is_in_the_older_versions_audit(
    db: Database, caller: Caller
) -> None:
    """Erasing v3 (its merge added only the forgotten turn) makes v4 replace v2 directly: the record
    reads v2, the version whose replacement it re-pointed, besides the rebuilt v4."""
    payloads = await tell_longer_story(caller)
    v2, v3, v4 = (payloads[i]["consolidation"]["episodeId"] for i in (3, 5, 6))
    result = (await caller.gql(FORGET, {"id": payloads[5]["interactionId"]}))["forgetInteraction"]
    assert result["episodeIds"] == [v3] and result["rebuiltEpisodeIds"] == [v4]
    chain = await _graph(db, "MATCH (:Episode {id: $id})-[:SUPERSEDES]->(e) RETURN e.id AS id", id=v4)
    assert chain == [{"id": v2}]
    (row,) = await _graph(db, FORGET_RUNS, tenant=caller.tenant)
    assert {v2, v4} <= set(row["read"]) and result["recordRunId"] == row["run"]["id"]


async def test_a_forget_that_changes_no_surviving_belief_records_nothing(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """Neither a turn no memory rests on, nor one whose only fact is erased without replacing any:
    nothing that survives changed, so nothing records the forget (the event log keeps no trace
    of forgotten memory either)."""
    texts = ["Hello there.", "My dog is called Rex."]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    hello, rex = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    (fact,) = await _facts_in_turn(db, owner, embedder, 1, rex, [("Alice's dog is called Rex.", [])])
    forgetter = _forgetter(db, embedder)
    first = await forgetter.forget_interaction(owner, hello, by=WHO)
    assert (first.fact_ids, first.record_run_id) == ([], None)
    second = await forgetter.forget_interaction(owner, rex, by=WHO)
    assert (second.fact_ids, second.record_run_id) == ([fact], None)
    assert await _graph(db, FORGET_RUNS, tenant=owner.tenant) == []


async def test_a_forget_is_in_the_audit_of_every_fact_whose_belief_it_changed(
    db: Database, owner: Owner, embedder: HashingEmbedder
) -> None:
    """Restored, replaced through a contracted chain, and the survivor of that chain."""
    texts = ["I live in Paris and drink tea.", "I moved to Lyon; coffee now.", "Actually Berlin."]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    a, t, b = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    f0, g0 = await _facts_in_turn(db, owner, embedder, 0, a, [("Alice lives in Paris.", []),
                                                             ("Alice drinks tea.", [])])  # fmt: skip
    f1, _ = await _facts_in_turn(db, owner, embedder, 1, t, [("Alice lives in Lyon.", [f0]),
                                                            ("Alice drinks coffee.", [g0])])  # fmt: skip
    (f2,) = await _facts_in_turn(db, owner, embedder, 2, b, [("Alice lives in Berlin.", [f1])])

    forgotten = await _forgetter(db, embedder).forget_interaction(owner, t, by=WHO)
    assert forgotten.restored_fact_ids == [g0]
    (row,) = await _graph(db, FORGET_RUNS, tenant=owner.tenant)
    assert sorted(row["read"]) == sorted([g0, f0, f2]) and row["run"]["by"] == WHO
    assert forgotten.record_run_id == row["run"]["id"]
    facts = FactStore(db, DIMENSION)
    for fact_id in (g0, f0, f2):
        corrections = (await facts.provenance(owner, fact_id)).corrections
        assert [(c.id, c.op, c.trigger, c.provider, c.by) for c in corrections] == [
            (row["run"]["id"], "forget_interaction", "erasure", "person", WHO)
        ]


async def test_a_forget_that_erases_no_fact_asks_nothing_about_replaced_ones(
    db: Database, owner: Owner, embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What erased facts replaced is read and restored only when facts are erased: a turn nothing
    rests on goes without those statements; one whose fact goes, with them."""
    texts = ["Hello there.", "My dog is called Rex."]
    items = [
        NewInteraction("alice", t, T0 + timedelta(days=i), _vec(embedder, t)) for i, t in enumerate(texts)
    ]
    hello, rex = [s.id for s in await InteractionStore(db, DIMENSION).write_batch(owner, items)]
    await _facts_in_turn(db, owner, embedder, 1, rex, [("Alice's dog is called Rex.", [])])
    ran: list[str] = []
    statement = graph.database.run  # what graph.forget imports and calls as `run`

    async def counted(tx: Any, name: str, params: Any) -> Any:
        ran.append(name)
        return await statement(tx, name, params)

    monkeypatch.setattr(graph.forget, "run", counted)
    replaced = {"queries/forget/restorable_facts", "queries/forget/restore_facts"}
    forgetter = _forgetter(db, embedder)
    await forgetter.forget_interaction(owner, hello, by=WHO)
    assert ran and not replaced & set(ran), ran
    ran.clear()
    assert (await forgetter.forget_interaction(owner, rex, by=WHO)).fact_ids
    assert "queries/forget/restorable_facts" in ran, ran
