"""What recall and answers say after a person's change (docs/corrections.md): a recall names the
beliefs a person retracted or corrected that rest on its evidence, as of its instant; no other
user's or tenant's; the offline answer no longer states them, and the LLM's answer prompt lists
them only when there are some. One statement, from the owner index; none for a recall of turns
alone when the user holds no withdrawn belief."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Budgets, Recall, Unit
from graph.cypher import statement
from graph.database import Database
from graph.models import Owner
from graph.recall import WITHDRAWN_RULE
from graph.scopes import NO_FILTER
from graph.vectors import vector_param
from graph.vocabulary import CORRECTION_TRIGGER, PERSON_PROVIDER
from local_llm_server import LocalLLMServer, Reply
from tests.support.api import REMEMBER_BATCH, STORY, T0, Caller, all_facts, unit
from tests.support.engines import DIMENSION, engine_settings, llm_engine
from tests.support.llm_script import consolidation_replies, data_of, task_of
from tests.support.profiles import assert_read_by, operators_of

# Three turns on one topic open an episode; only the first says where Alice lives.
TURNS = [
    "I live in Paris near the river.",
    "My flat near the river has a small balcony.",
    "I walk along the river near my flat every morning.",
]
QUESTION = "Where does Alice live?"


def _owner(tenant: str | None = None, user: str = "alice") -> Owner:
    return Owner(tenant or f"t-{uuid.uuid4().hex[:12]}", user)


def _offline(db: Database) -> MemoryEngine:
    return MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())


def _turns_only(db: Database) -> MemoryEngine:
    """An engine that consolidates none of a few turns: no episode, no fact but a person's."""
    return MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(theta_count=100)
    )


# A recall of the turn layer alone: no episode and no fact among its candidates.
TURNS_ONLY = Budgets(subconscious=10, episodic=0, semantic=0)


async def _tell(engine: MemoryEngine, owner: Owner, turns: list[str] = TURNS) -> list[str]:
    """The turns, one remember each (consolidated inline); their interaction ids."""
    ids = []
    for day, text in enumerate(turns):
        done = await engine.remember(
            owner, Unit(text=text, speaker=owner.user_id, occurred_at=T0 + timedelta(days=day))
        )
        ids.append(done.interaction_id)
    return ids


async def _paris(db: Database, owner: Owner) -> str:
    (fact,) = [f for f in await all_facts(db, owner) if "Paris" in f["text"]]
    return str(fact["id"])


def _withdrawn(recall: Recall) -> list[tuple[str, str]]:
    return [(f.id, f.status) for f in recall.withdrawn]


async def test_recall_names_a_retracted_belief_from_the_moment_it_was_retracted(db: Database) -> None:
    engine = _offline(db)
    owner = _owner()
    await _tell(engine, owner)
    paris = await _paris(db, owner)
    assert (await engine.recall(owner, QUESTION)).withdrawn == []
    before = datetime.now(UTC)
    await engine.beliefs.retract(owner, paris, "wrong user", by="support")

    for tokens in (None, 500):
        found = await engine.recall(owner, QUESTION, tokens=tokens)
        assert _withdrawn(found) == [(paris, "retracted")], tokens
        # The evidence still says it: the episode and the turn the fact was derived from.
        assert any("Paris" in h.text for h in found.evidence())
        assert paris not in {h.id for h in found.evidence()}
    # As of an instant before the retraction the belief still held: nothing to say.
    then = await engine.recall(owner, QUESTION, as_of=before)
    assert paris in {h.id for h in then.semantic} and then.withdrawn == []
    later = await engine.recall(owner, QUESTION, as_of=datetime.now(UTC))
    assert _withdrawn(later) == [(paris, "retracted")]
    # A recall with no episode and no turn among its evidence has nothing to check.
    trips = db.round_trips
    facts_only = await engine.recall(
        owner, QUESTION, budgets=Budgets(subconscious=0, episodic=0, semantic=10)
    )
    assert facts_only.withdrawn == [] and db.round_trips - trips == 3


async def test_the_offline_answer_no_longer_states_a_retracted_belief(db: Database) -> None:
    engine = _offline(db)
    owner = _owner()
    await _tell(engine, owner)
    assert "Paris" in (await engine.answer(owner, QUESTION)).text
    await engine.beliefs.retract(owner, await _paris(db, owner), "wrong user", by="support")

    for tokens in (None, 500):
        answered = await engine.answer(owner, QUESTION, tokens=tokens)
        assert "Paris" not in answered.text, (tokens, answered.text)
        # What else the evidence says still answers.
        assert "river" in answered.text, answered.text


async def test_a_correction_names_the_old_belief_and_the_new_one_is_evidence(db: Database) -> None:
    engine = _offline(db)
    owner = _owner()
    said = await _tell(engine, owner)
    paris = await _paris(db, owner)
    changed = await engine.beliefs.correct(
        owner, paris, "Alice lives in Lyon.", "she moved", by="support", source_interaction_id=said[0]
    )
    assert changed.fact is not None
    found = await engine.recall(owner, QUESTION)
    assert _withdrawn(found) == [(paris, "superseded")]
    assert changed.fact.id in {h.id for h in found.semantic}
    answered = await engine.answer(owner, QUESTION)
    assert "Paris" not in answered.text and "Lyon" in answered.text, answered.text
    # A context holds the correction in place of the turn it rests on: when none of its items
    # says the old belief, there is nothing to name.
    context = await engine.recall(owner, QUESTION, tokens=500)
    assert changed.fact.id in {h.id for h in context.evidence()}
    says = any("Paris" in h.text for h in context.evidence())
    assert _withdrawn(context) == ([(paris, "superseded")] if says else [])


async def test_a_fact_the_consolidation_replaced_is_not_withdrawn(db: Database) -> None:
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(merge_threshold=0.2)
    )
    owner = _owner()
    await _tell(engine, owner, STORY[:4])
    # The reversed preference: the consolidation superseded it, no person did.
    assert any(f["status"] == "superseded" for f in await all_facts(db, owner))
    found = await engine.recall(owner, "sushi with salmon", tokens=500)
    assert found.evidence() and found.withdrawn == []
    # Nor for turns alone: no person withdrew anything, so no provenance statement is sent.
    trips = db.round_trips
    turns = await engine.recall(owner, "sushi with salmon", budgets=TURNS_ONLY, include_consolidated=True)
    assert turns.subconscious and turns.withdrawn == [] and db.round_trips - trips == 2


async def test_a_recall_of_turns_alone_sends_no_provenance_statement(db: Database) -> None:
    engine = _turns_only(db)
    owner = _owner()
    await _tell(engine, owner)
    assert await all_facts(db, owner) == []
    for tokens in (None, 500):
        trips = db.round_trips
        found = await engine.recall(owner, QUESTION, tokens=tokens)
        assert found.subconscious and not found.episodic and not found.semantic
        # The dense candidates (which find the user holds no withdrawn belief) and the lexical
        # ones: nothing could come back from a provenance statement.
        assert found.withdrawn == [] and db.round_trips - trips == 2, tokens


async def test_a_belief_withdrawn_from_turns_alone_is_named(db: Database) -> None:
    engine = _turns_only(db)
    owner = _owner()
    said = await _tell(engine, owner)
    added = await engine.beliefs.add(owner, "Alice lives in Paris.", "attribute", by="support")
    assert added.fact is not None
    # A person's correction derived from the first turn, then retracted: no fact is active.
    corrected = await engine.beliefs.correct(
        owner, added.fact.id, "Alice lives in Paris near the river.", "precise", by="support",
        source_interaction_id=said[0],
    )  # fmt: skip
    assert corrected.fact is not None
    await engine.beliefs.retract(owner, corrected.fact.id, "wrong user", by="support")
    for tokens in (None, 500):
        found = await engine.recall(owner, QUESTION, tokens=tokens)
        assert said[0] in {h.id for h in found.evidence()} and not found.semantic
        # The added fact, superseded by the correction, derives from no turn: not named.
        assert _withdrawn(found) == [(corrected.fact.id, "retracted")], tokens


async def test_a_corrected_belief_reaching_turns_alone_is_named(db: Database) -> None:
    engine = _turns_only(db)
    owner = _owner()
    said = await _tell(engine, owner)
    added = await engine.beliefs.add(owner, "Alice lives in Paris.", "attribute", by="support")
    assert added.fact is not None
    first = await engine.beliefs.correct(
        owner, added.fact.id, "Alice lives in Paris near the river.", "precise", by="support",
        source_interaction_id=said[0],
    )  # fmt: skip
    assert first.fact is not None
    second = await engine.beliefs.correct(
        owner, first.fact.id, "Alice lives in Lyon.", "she moved", by="support", source_interaction_id=said[1]
    )
    assert second.fact is not None
    # The Lyon fact is active, but a recall of turns alone has no fact among its candidates.
    found = await engine.recall(owner, QUESTION, budgets=TURNS_ONLY)
    assert said[0] in {h.id for h in found.evidence()} and not found.semantic
    assert _withdrawn(found) == [(first.fact.id, "superseded")]


async def test_no_other_users_or_tenants_withdrawn_belief_appears(db: Database) -> None:
    engine = _offline(db)
    owner = _owner()
    said = await _tell(engine, owner)
    neighbour, stranger = _owner(owner.tenant, "bob"), _owner()
    for other in (neighbour, stranger):
        await _tell(engine, other, [t.replace("Paris", "Rome") for t in TURNS])
        await engine.beliefs.retract(other, await _rome(db, other), "wrong", by="support")
        # Even a foreign fact wrongly linked to this user's turn stays out of this user's recall.
        await _link(db, other, said[0])
    assert (await engine.recall(owner, QUESTION, tokens=500)).withdrawn == []
    paris = await _paris(db, owner)
    await engine.beliefs.retract(owner, paris, "wrong user", by="support")
    assert _withdrawn(await engine.recall(owner, QUESTION, tokens=500)) == [(paris, "retracted")]
    # And the others see their own only.
    for other in (neighbour, stranger):
        theirs = await engine.recall(other, QUESTION.replace("Alice", other.user_id), tokens=500)
        assert [f.id for f in theirs.withdrawn] == [await _rome(db, other)]


async def _rome(db: Database, owner: Owner) -> str:
    (fact,) = [f for f in await all_facts(db, owner) if "Rome" in f["text"]]
    return str(fact["id"])


async def _link(db: Database, owner: Owner, interaction_id: str) -> None:
    """A corrupt edge on purpose: the owner's retracted facts DERIVED_FROM another's turn."""
    await db.driver.execute_query(
        "MATCH (f:Fact {tenant: $t, user_id: $u, status: 'retracted'}), (i:Interaction {id: $i}) "
        "CREATE (f)-[:DERIVED_FROM]->(i)",
        t=owner.tenant,
        u=owner.user_id,
        i=interaction_id,
        database_=db.name,
    )


async def test_the_statement_reads_the_owners_facts_by_the_owner_index(db: Database) -> None:
    engine = _offline(db)
    owner = _owner()
    said = await _tell(engine, owner)
    # Another tenant with many withdrawn beliefs: this user's statement does not read them.
    crowd = _owner()
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k CREATE (:Fact {id: $t + '-' + k, tenant: $t, user_id: 'x', "
        "status: 'retracted', text: 'x', kind: 'other', valid_from: datetime(), valid_to: datetime()})",
        t=crowd.tenant,
        n=2000,
        database_=db.name,
    )
    for as_of in (None, datetime.now(UTC)):
        result = await db.driver.execute_query(
            "PROFILE " + statement("queries/recall/sources"),
            {
                **owner.params(),
                "interaction_ids": said,
                "episode_ids": [],
                "fact_ids": [],
                "as_of": as_of,
                "retracted": "retracted",
                "superseded": "superseded",
                "person": PERSON_PROVIDER,
                "correction": CORRECTION_TRIGGER,
            },
            database_=db.name,
        )
        profile = result.summary.profile
        assert profile is not None
        operators = operators_of(profile)
        # Candidates by their ids' indexes; withdrawn beliefs by the owner index, or the owner's facts
        # of the withdrawn statuses (tenant, user_id, status).
        assert_read_by(operators, "Episode(id)", "Fact(id)", "Fact(tenant, user_id", "Interaction(id)")
        assert sum(hits for _, _, hits in operators) < 500, operators
        # None of the user's facts is withdrawn: no edge of theirs is followed.
        assert sum(hits for name, _, hits in operators if name.startswith("Expand")) == 0, operators


async def test_the_candidates_ask_for_withdrawn_beliefs_by_the_owner_index_alone(db: Database) -> None:
    engine = _turns_only(db)
    owner = _owner()
    await _tell(engine, owner)
    for text in ("Alice lives in Paris.", "Alice has a balcony."):
        await engine.beliefs.add(owner, text, "attribute", by="support")
    crowd = _owner()
    await db.driver.execute_query(
        "UNWIND range(1, $n) AS k CREATE (:Fact {id: $t + '-' + k, tenant: $t, user_id: 'x', "
        "status: 'retracted', text: 'x', kind: 'other', valid_from: datetime(), valid_to: datetime()})",
        t=crowd.tenant,
        n=2000,
        database_=db.name,
    )
    vector = (await HashingEmbedder(DIMENSION).embed([QUESTION]))[0].tolist()
    for k_facts in (0, 10):
        result = await db.driver.execute_query(
            "PROFILE " + statement("queries/recall/dense"),
            {
                **owner.params(),
                **NO_FILTER.params(),
                **WITHDRAWN_RULE,
                "k_interactions": 10,
                "k_episodes": 0,
                "k_facts": k_facts,
                "consolidated": [False],
                "ids_interactions": None,
                "ids_episodes": None,
                "ids_facts": None,
                "vector": vector_param("query vector", vector, DIMENSION),
                "exact_limit": 1000,
                "filtered": False,
                "parts": True,
                "epoch": "",
                "known": 0,
                "floor_interactions": -2.0,
            },
            database_=db.name,
        )
        # Asked only without fact candidates; the user's two facts are active: none is withdrawn.
        (row,) = result.records
        assert row["withdrawn_held"] is (False if k_facts == 0 else None)
        profile = result.summary.profile
        assert profile is not None
        operators = operators_of(profile)
        # Every read by the user's own indexes (keyed by owner) or by id.
        owned = [
            f"{label}(tenant, user_id" for label in ("Interaction", "InteractionPart", "Episode", "Fact")
        ]
        assert_read_by(operators, "User(tenant, id)", "Interaction(id)", "Episode(id)", "Fact(id)", *owned)
        assert sum(hits for _, _, hits in operators) < 500, operators
        # No edge of an active fact is followed.
        assert not [hits for name, details, hits in operators if "SUPERSEDES" in details and hits], operators


# -- the LLM answerer -----------------------------------------------------------------------------


async def test_the_answer_prompt_lists_withdrawn_beliefs_only_when_there_are_some(
    db: Database, llm: LocalLLMServer
) -> None:
    llm.set_responder(
        consolidation_replies(
            "Home", answer=lambda body: Reply.json({"answer": "Somewhere.", "used_ids": []})
        )
    )
    engine = llm_engine(db, llm)
    owner = _owner()
    said = await _tell(engine, owner)
    facts = await all_facts(db, owner)
    (paris,) = [f for f in facts if "Paris" in f["text"]]
    (balcony,) = [f for f in facts if "balcony" in f["text"]]

    async def prompt(**arguments: Any) -> dict[str, Any]:
        before = len(llm.requests)
        await engine.answer(owner, QUESTION, tokens=500, **arguments)
        (body,) = [b for b in llm.requests[before:] if task_of(b) == "answer"]
        return body

    plain = await prompt()
    assert "withdrawn_beliefs" not in data_of(plain)
    assert "withdrawn" not in plain["messages"][-1]["content"]
    before = datetime.now(UTC)
    await engine.beliefs.retract(owner, paris["id"], "wrong user", by="support")
    changed = await engine.beliefs.correct(
        owner, balcony["id"], "Alice's flat has a large terrace.", "wrong", by="support",
        source_interaction_id=said[1],
    )  # fmt: skip
    assert changed.fact is not None

    listed = await prompt()
    document = data_of(listed)
    # The correction, most recent, first; the correction itself is evidence.
    assert document["withdrawn_beliefs"] == [
        {"change": "corrected", "kind": "event", "text": balcony["text"]},
        {"change": "retracted", "kind": "event", "text": paris["text"]},
    ]
    assert changed.fact.id in {item["id"] for item in document["facts"]}
    user = listed["messages"][-1]["content"]
    assert user.startswith("`withdrawn_beliefs` were withdrawn by a person")
    assert listed["messages"][0] == plain["messages"][0]
    # As of before the changes, nothing was withdrawn yet: the prompt is as before.
    then = await prompt(as_of=before)
    assert "withdrawn_beliefs" not in data_of(then)
    assert then["messages"][-1]["content"].startswith("Answer the question.")


# -- the API --------------------------------------------------------------------------------------

RECALL = """query($q: String!, $asOf: DateTime) {
  recall(userId: "alice", query: $q, asOf: $asOf) {
    withdrawn { id text status validTo supersededBy { fact { id text } } } } }"""
RETRACT = """mutation($id: ID!) { retractFact(id: $id, reason: "wrong user") { written } }"""
CORRECT = """mutation($id: ID!, $text: String!) {
  correctFact(id: $id, text: $text, reason: "wrong") { fact { id } } }"""
FACTS = """{ user(id: "alice") { facts(first: 50) { nodes { id text status } } } }"""


async def test_graphql_recall_lists_withdrawn_facts(caller: Caller) -> None:
    for day, text in enumerate(TURNS):
        await caller.gql(REMEMBER_BATCH, {"user": "alice", "units": [unit(text, day)]})
    facts = (await caller.gql(FACTS))["user"]["facts"]["nodes"]
    (paris,) = [f for f in facts if "Paris" in f["text"]]
    (balcony,) = [f for f in facts if "balcony" in f["text"]]
    assert (await caller.gql(RECALL, {"q": QUESTION}))["recall"]["withdrawn"] == []
    before = datetime.now(UTC)
    assert (await caller.gql(RETRACT, {"id": paris["id"]}))["retractFact"]["written"]
    text = "Alice's flat has a large terrace."
    new = (await caller.gql(CORRECT, {"id": balcony["id"], "text": text}))["correctFact"]["fact"]

    withdrawn = (await caller.gql(RECALL, {"q": QUESTION}))["recall"]["withdrawn"]
    assert [(f["id"], f["status"]) for f in withdrawn] == [
        (balcony["id"], "SUPERSEDED"),
        (paris["id"], "RETRACTED"),
    ]
    assert withdrawn[0]["supersededBy"] == [{"fact": {"id": new["id"], "text": text}}]
    assert withdrawn[1]["supersededBy"] == [] and withdrawn[1]["validTo"] is not None
    then = await caller.gql(RECALL, {"q": QUESTION, "asOf": before.isoformat()})
    assert then["recall"]["withdrawn"] == []
