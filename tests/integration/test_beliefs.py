"""Correcting, retracting and adding facts over GraphQL, checked in the graph and through recall
and the audit as of before and after the change; refusals write nothing."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from consolidation.consolidating.leasing import Busy
from consolidation.consolidating.offline import OfflineConsolidator
from consolidation.engine import MemoryEngine
from consolidation.providers.embedders.hashing import HashingEmbedder
from consolidation.types import Unit
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Owner
from graph.vocabulary import MAX_FACT_BYTES
from tests.support.api import STORY, T0, Caller, app_client, count_nodes, new_caller, tell_story
from tests.support.engines import DIMENSION, engine_settings, lease_of

FACT = "id text kind status validFrom validTo"
RUN = "id op trigger provider model reason by promptTokens"
CORRECT = f"""mutation($id: ID!, $text: String!, $reason: String!, $source: ID) {{
  correctFact(id: $id, text: $text, reason: $reason, sourceInteractionId: $source) {{
    written fact {{ {FACT} }} changedFact {{ {FACT} }} run {{ {RUN} }} }} }}"""
RETRACT = f"""mutation($id: ID!, $reason: String!) {{
  retractFact(id: $id, reason: $reason) {{
    written fact {{ {FACT} }} changedFact {{ {FACT} }} run {{ {RUN} }} }} }}"""
ADD = f"""mutation($user: ID!, $text: String!, $kind: FactKind!, $from: DateTime) {{
  addFact(userId: $user, text: $text, kind: $kind, validFrom: $from) {{
    written fact {{ {FACT} }} changedFact {{ {FACT} }} run {{ {RUN} }} }} }}"""
AUDIT = f"""query($id: ID!) {{ fact(id: $id) {{ {FACT}
  supersededBy {{ reason fact {{ id text }} }}
  derivedFrom {{ interactions {{ id }} }}
  audit {{ corrections {{ {RUN} at }} runs {{ op trigger }} }} }} }}"""
RECALL = """query($user: ID!, $q: String!, $asOf: DateTime) {
  recall(userId: $user, query: $q, asOf: $asOf, budget: {subconscious: 0, episodic: 0, semantic: 20}) {
    semantic { fact { id text status } } } }"""


async def _active_facts(caller: Caller) -> list[dict[str, Any]]:
    payloads = await tell_story(caller)
    ids = [i for p in payloads if p["consolidation"] for i in p["consolidation"]["factIds"]]
    facts = [(await caller.gql(AUDIT, {"id": i}))["fact"] for i in ids]
    active = [f for f in facts if f["status"] == "ACTIVE"]
    assert active, facts
    return active


async def _recalled(caller: Caller, query: str, as_of: datetime | None = None) -> set[str]:
    variables = {"user": "alice", "q": query, "asOf": as_of.isoformat() if as_of else None}
    data = await caller.gql(RECALL, variables)
    return {hit["fact"]["id"] for hit in data["recall"]["semantic"]}


async def test_correct_supersedes_from_now_and_as_of_before_sees_the_old(caller: Caller) -> None:
    old = (await _active_facts(caller))[0]
    before = datetime.now(UTC)
    done = (
        await caller.gql(CORRECT, {"id": old["id"], "text": "Alice loves sushi with eel.", "reason": "typo"})
    )["correctFact"]
    after = datetime.now(UTC)
    assert done["written"] is True
    new, changed, run = done["fact"], done["changedFact"], done["run"]
    assert new["text"] == "Alice loves sushi with eel." and new["status"] == "ACTIVE"
    assert new["kind"] == old["kind"]
    assert changed["id"] == old["id"] and changed["status"] == "SUPERSEDED"
    assert before <= datetime.fromisoformat(changed["validTo"]) <= after
    assert new["validFrom"] == changed["validTo"]
    assert (run["op"], run["trigger"], run["provider"], run["reason"]) == (
        "correct_fact",
        "correction",
        "person",
        "typo",
    )
    assert run["by"].startswith("test (key_") and run["promptTokens"] == 0

    # Recall now sees the correction only; as of before it, the old belief.
    now = await _recalled(caller, "sushi eel salmon")
    assert new["id"] in now and old["id"] not in now
    then = await _recalled(caller, "sushi eel salmon", before - timedelta(seconds=1))
    assert old["id"] in then and new["id"] not in then

    # The audit: the old fact says who replaced it, why, and by which fact; the new one rests on
    # the correction's run (no interaction named) and lists it.
    audited = (await caller.gql(AUDIT, {"id": old["id"]}))["fact"]
    assert audited["supersededBy"] == [{"reason": "typo", "fact": {"id": new["id"], "text": new["text"]}}]
    assert [c["id"] for c in audited["audit"]["corrections"]] == [run["id"]]
    made = (await caller.gql(AUDIT, {"id": new["id"]}))["fact"]
    assert made["derivedFrom"]["interactions"] == []
    assert [c["trigger"] for c in made["audit"]["corrections"]] == ["correction"]


async def test_correct_from_a_named_interaction_rests_on_it(db: Database, caller: Caller) -> None:
    old = (await _active_facts(caller))[0]
    said = await caller.gql(
        'mutation { remember(input: {userId: "alice", text: "Actually I prefer eel.", sourceRef: "fix"},'
        " consolidate: false) { interactionId } }"
    )
    source = said["remember"]["interactionId"]
    done = (
        await caller.gql(
            CORRECT,
            {"id": old["id"], "text": "Alice prefers eel.", "reason": "she said so", "source": source},
        )
    )["correctFact"]
    made = (await caller.gql(AUDIT, {"id": done["fact"]["id"]}))["fact"]
    assert made["derivedFrom"]["interactions"] == [{"id": source}]


FILTERED = """query($user: ID!, $q: String!, $filter: RecallFilter) {
  recall(userId: $user, query: $q, filter: $filter, budget: {subconscious: 0, episodic: 0, semantic: 20}) {
    semantic { fact { id } } } }"""


async def test_a_correction_answers_in_the_scopes_of_what_it_replaces_and_rests_on(caller: Caller) -> None:
    old = (await _active_facts(caller))[0]
    said = await caller.gql(
        'mutation { remember(input: {userId: "alice", text: "Actually I prefer eel.", sourceRef: "fix",'
        ' agentId: "fixer"}, consolidate: false) { interactionId } }'
    )
    source = said["remember"]["interactionId"]
    text, reason = "Alice prefers eel.", "she said so"
    scoped = CORRECT.replace("written fact { ", "written fact { agentIds ")
    done = await caller.gql(scoped, {"id": old["id"], "text": text, "reason": reason, "source": source})
    new = done["correctFact"]["fact"]["id"]
    # The answer states the scopes the fact holds (it said none before).
    assert done["correctFact"]["fact"]["agentIds"] == ["fixer"]

    async def found(scope: dict[str, Any]) -> set[str]:
        data = await caller.gql(FILTERED, {"user": "alice", "q": "eel", "filter": scope})
        return {hit["fact"]["id"] for hit in data["recall"]["semantic"]}

    assert new in await found({"speakers": ["user"]})  # the replaced fact's scope
    assert new in await found({"agentIds": ["fixer"]})  # the source interaction's
    assert new not in await found({"agentIds": ["someone-else"]})


async def test_retract_closes_the_fact_keeps_it_audited(caller: Caller) -> None:
    old = (await _active_facts(caller))[0]
    stats = '{ user(id: "alice") { stats { activeFacts retractedFacts } } }'
    counted = (await caller.gql(stats))["user"]["stats"]
    before = datetime.now(UTC)
    done = (await caller.gql(RETRACT, {"id": old["id"], "reason": "never said that"}))["retractFact"]
    assert done["written"] is True and done["fact"] is None
    assert done["changedFact"]["status"] == "RETRACTED" and done["changedFact"]["validTo"] is not None
    assert (done["run"]["trigger"], done["run"]["reason"]) == ("retraction", "never said that")
    assert old["id"] not in await _recalled(caller, old["text"])
    assert old["id"] in await _recalled(caller, old["text"], before - timedelta(seconds=1))
    audited = (await caller.gql(AUDIT, {"id": old["id"]}))["fact"]
    assert audited["status"] == "RETRACTED"
    corrections = audited["audit"]["corrections"]
    assert [(c["op"], c["reason"]) for c in corrections] == [("retract_fact", "never said that")]
    assert corrections[0]["by"] == done["run"]["by"]
    after = (await caller.gql(stats))["user"]["stats"]
    assert after == {
        "activeFacts": counted["activeFacts"] - 1,
        "retractedFacts": counted["retractedFacts"] + 1,
    }

    # Once retracted, neither a second retraction nor a correction applies: a typed refusal.
    for query, variables in (
        (RETRACT, {"id": old["id"], "reason": "again"}),
        (CORRECT, {"id": old["id"], "text": "x", "reason": "again"}),
    ):
        (error,) = await caller.errors(query, variables)
        assert error["extensions"]["code"] == "BAD_USER_INPUT" and error["extensions"]["written"] is False
        assert "retracted" in error["message"]


async def test_a_change_to_a_fact_that_holds_later_takes_effect_when_it_begins(caller: Caller) -> None:
    """A fact whose validFrom lies ahead, corrected or retracted now, ends where it begins, never
    before: it held for no instant, and the correction holds from that start, as a replacement
    that consolidation writes does (docs/design/graph-model.md#replacement)."""
    await tell_story(caller)
    start = datetime(2999, 1, 1, tzinfo=UTC)
    planned = []
    for text in ("Alice will live in Lyon.", "Alice will live in Rome."):
        variables = {"user": "alice", "text": text, "kind": "PLAN", "from": start.isoformat()}
        planned.append((await caller.gql(ADD, variables))["addFact"]["fact"]["id"])
    corrected = await caller.gql(
        CORRECT, {"id": planned[0], "text": "Alice will live in Nice.", "reason": "r"}
    )
    retracted = (await caller.gql(RETRACT, {"id": planned[1], "reason": "cancelled"}))["retractFact"]
    new, old = corrected["correctFact"]["fact"], corrected["correctFact"]["changedFact"]
    for changed in (old, retracted["changedFact"]):
        assert (
            datetime.fromisoformat(changed["validTo"])
            == datetime.fromisoformat(changed["validFrom"])
            == start
        )
    assert (new["status"], datetime.fromisoformat(new["validFrom"]), new["validTo"]) == (
        "ACTIVE",
        start,
        None,
    )
    audited = (await caller.gql(AUDIT, {"id": old["id"]}))["fact"]
    assert audited["supersededBy"] == [{"reason": "r", "fact": {"id": new["id"], "text": new["text"]}}]
    # As of now neither plan holds yet; from its start, the correction alone.
    query = "Where will Alice live, Lyon, Nice or Rome?"
    assert not {*planned, new["id"]} & await _recalled(caller, query, datetime.now(UTC))
    assert await _recalled(caller, query, start) & {*planned, new["id"]} == {new["id"]}


async def test_add_states_a_fact_by_hand(caller: Caller) -> None:
    await tell_story(caller)
    start = T0 + timedelta(days=30)
    done = (
        await caller.gql(
            ADD,
            {
                "user": "alice",
                "text": "Alice is allergic to shellfish.",
                "kind": "ATTRIBUTE",
                "from": start.isoformat(),
            },
        )
    )["addFact"]
    fact = done["fact"]
    assert done["written"] and fact["kind"] == "ATTRIBUTE" and fact["status"] == "ACTIVE"
    assert datetime.fromisoformat(fact["validFrom"]) == start
    assert (done["run"]["op"], done["run"]["trigger"]) == ("add_fact", "manual")
    assert fact["id"] in await _recalled(caller, "allergic to shellfish")
    assert fact["id"] not in await _recalled(caller, "allergic to shellfish", start - timedelta(days=1))
    assert fact["id"] in await _recalled(caller, "allergic to shellfish", start + timedelta(days=1))
    made = (await caller.gql(AUDIT, {"id": fact["id"]}))["fact"]
    assert [c["trigger"] for c in made["audit"]["corrections"]] == ["manual"]
    # Without validFrom it holds from now.
    now = (await caller.gql(ADD, {"user": "alice", "text": "Alice moved to Lyon.", "kind": "EVENT"}))[
        "addFact"
    ]
    assert datetime.now(UTC) - datetime.fromisoformat(now["fact"]["validFrom"]) < timedelta(minutes=1)


async def test_add_needs_the_user_not_a_remembered_turn(caller: Caller) -> None:
    """A user whose turns were all forgotten still exists: addFact writes; after forgetUser it is
    unknown (docs/corrections.md#refusals)."""
    said = await caller.gql(
        'mutation { remember(input: {userId: "gone", text: "Hi."}, consolidate: false) { interactionId } }'
    )
    await caller.gql(
        "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }",
        {"id": said["remember"]["interactionId"]},
    )
    variables = {"user": "gone", "text": "Gone likes tea.", "kind": "PREFERENCE"}
    assert (await caller.gql(ADD, variables))["addFact"]["written"] is True
    await caller.gql('mutation { forgetUser(id: "gone") { userId } }')
    (error,) = await caller.errors(ADD, variables)
    assert (error["extensions"]["code"], error["extensions"]["written"]) == ("NOT_FOUND", False)


LISTING = """query($user: ID!, $first: Int, $after: String) {
  user(id: $user) { facts(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor } nodes { id status validFrom } } consolidationRuns { nodes { op } } } }"""


async def test_facts_dated_before_1677_list_page_and_retract(caller: Caller) -> None:
    """Epoch nanoseconds overflow a 64-bit integer outside 1677..2262; listings must not use them."""
    await tell_story(caller)
    added = []
    for moment in ("1650-06-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"):
        variables = {
            "user": "alice",
            "text": f"The house dates from {moment}.",
            "kind": "EVENT",
            "from": moment,
        }
        added.append((await caller.gql(ADD, variables))["addFact"]["fact"]["id"])
    await caller.gql(RETRACT, {"id": added[0], "reason": "wrong year"})
    seen: list[dict[str, Any]] = []
    after = None
    for _ in range(10):  # bounded: a cursor that does not advance fails, not hangs
        data = (await caller.gql(LISTING, {"user": "alice", "first": 2, "after": after}))["user"]
        seen += data["facts"]["nodes"]
        if not data["facts"]["pageInfo"]["hasNextPage"]:
            break
        after = data["facts"]["pageInfo"]["endCursor"]
    ids = [f["id"] for f in seen]
    assert ids[:2] == [added[1], added[0]] and ids[-1] == added[2], seen
    assert len(ids) == len(set(ids)) and seen[1]["status"] == "RETRACTED"
    assert {"add_fact", "retract_fact"} <= {r["op"] for r in data["consolidationRuns"]["nodes"]}


async def test_other_tenants_ids_are_not_found_and_write_nothing(
    db: Database, caller: Caller, client: Any
) -> None:
    old = (await _active_facts(caller))[0]
    other = await new_caller(db, client)
    await tell_story(other)  # the same user id in another tenant
    source = (
        await other.gql(
            'mutation { remember(input: {userId: "alice", text: "hi"}, consolidate: false) { interactionId } }'
        )
    )["remember"]["interactionId"]
    before = await count_nodes(db, caller.tenant), await count_nodes(db, other.tenant)
    for who, query, variables in (
        (other, CORRECT, {"id": old["id"], "text": "x", "reason": "r"}),
        (other, RETRACT, {"id": old["id"], "reason": "r"}),
        (caller, CORRECT, {"id": old["id"], "text": "x", "reason": "r", "source": source}),
        (caller, CORRECT, {"id": "fact_missing", "text": "x", "reason": "r"}),
        (caller, ADD, {"user": "nobody", "text": "x", "kind": "OTHER"}),
    ):
        (error,) = await who.errors(query, variables)
        assert error["extensions"]["code"] == "NOT_FOUND", error
        assert error["extensions"]["written"] is False
    assert (await count_nodes(db, caller.tenant), await count_nodes(db, other.tenant)) == before
    assert (await caller.gql(AUDIT, {"id": old["id"]}))["fact"]["status"] == "ACTIVE"


async def test_bad_input_is_refused_and_writes_nothing(db: Database, caller: Caller) -> None:
    old = (await _active_facts(caller))[0]
    before = await count_nodes(db, caller.tenant)
    huge = "x" * (MAX_FACT_BYTES + 1)  # a fact is shorter than a turn may be
    for query, variables in (
        (CORRECT, {"id": old["id"], "text": "  ", "reason": "r"}),
        (CORRECT, {"id": old["id"], "text": huge, "reason": "r"}),
        (CORRECT, {"id": old["id"], "text": "fine", "reason": ""}),
        (CORRECT, {"id": old["id"], "text": "fine", "reason": "r" * 5000}),
        (RETRACT, {"id": old["id"], "reason": " "}),
        # Nothing visible (a zero-width and a no-break space), or a NUL, in a text or a reason.
        (CORRECT, {"id": old["id"], "text": "\u200b\u00a0", "reason": "r"}),
        (CORRECT, {"id": old["id"], "text": "a\u0000b", "reason": "r"}),
        (RETRACT, {"id": old["id"], "reason": "\u200d\ufeff"}),
        (RETRACT, {"id": old["id"], "reason": "r\u0000"}),
        (ADD, {"user": "alice", "text": "\u2060\t", "kind": "OTHER"}),
        (RETRACT, {"id": "", "reason": "r"}),
        (ADD, {"user": "alice", "text": "", "kind": "OTHER"}),
        (ADD, {"user": "alice", "text": "ok", "kind": "OTHER", "from": "2024-05-01T09:00:00"}),
        # Refused before the resolver runs (a variable's type, a literal of the document).
        (ADD, {"user": "alice", "text": "ok", "kind": "FOO"}),
        ('mutation { addFact(userId: "alice", text: "ok", kind: FOO) { written } }', {}),
    ):
        errors = await caller.errors(query, variables)
        coded = [(e["extensions"]["code"], e["extensions"].get("written")) for e in errors]
        assert coded == [("BAD_USER_INPUT", False)], (variables, errors)
    # A lone surrogate is refused before validation even picks the field.
    body = '{"query": %s, "variables": {"user": "alice", "text": "a\\ud800", "kind": "OTHER"}}'
    response = await caller.http.post(
        "/graphql",
        content=body % json.dumps(ADD),
        headers={"authorization": f"Bearer {caller.key}", "content-type": "application/json"},
    )
    (error,) = response.json()["errors"]
    assert (error["extensions"]["code"], error["extensions"].get("written")) == ("BAD_USER_INPUT", False)
    # A query refused so is no write at all: it says nothing of one.
    (error,) = await caller.errors("query($id: ID!) { fact(id: $id) { id } }", {"id": 1.5})
    assert error["extensions"]["code"] == "BAD_USER_INPUT" and "written" not in error["extensions"]
    assert await count_nodes(db, caller.tenant) == before
    assert (await caller.gql(AUDIT, {"id": old["id"]}))["fact"]["status"] == "ACTIVE"


async def test_a_change_waits_for_the_users_lease_and_writes_nothing_without_it(db: Database) -> None:
    engine = MemoryEngine(
        db,
        HashingEmbedder(DIMENSION),
        OfflineConsolidator(),
        engine_settings(lease_seconds=0.5, merge_threshold=0.2),
    )
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "alice")
    for day, text in enumerate(STORY[:3]):
        await engine.remember(owner, Unit(text=text, speaker="alice", occurred_at=T0 + timedelta(days=day)))
    fact = (await engine.stores.facts.search(owner, (await engine.embedder.embed(["sushi"]))[0].tolist(), 1))[
        0
    ].item
    # Another holder (a consolidation elsewhere) keeps the lease: the change gives up, unwritten.
    assert await engine.leases.wait_acquire(owner, "elsewhere", 30.0, 0.0)
    with pytest.raises(Busy):
        await engine.beliefs.retract(owner, fact.id, "wrong", by="test")
    assert (await engine.stores.facts.get(owner, [fact.id]))[0].status == "active"
    # Once it is released, the change goes through, and gives the lease back.
    await engine.leases.release(owner, "elsewhere")
    done = await engine.beliefs.retract(owner, fact.id, "wrong", by="test")
    assert done.changed is not None and done.changed.status == "retracted"
    assert await lease_of(db, owner) is None


async def test_a_fact_text_is_bounded_by_the_fact_limit_not_the_turn_limit(db: Database) -> None:
    """A fact may be longer than a turn is allowed to be (docs/corrections.md: 64 KiB)."""
    engine = MemoryEngine(
        db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings(max_text_bytes=64)
    )
    owner = Owner(f"t-{uuid.uuid4().hex[:12]}", "alice")
    await engine.remember(owner, Unit(text="I moved to Lyon.", speaker="alice", occurred_at=T0))
    text = "Alice moved to Lyon in the spring, " * 4  # 140 bytes: over the turn limit of this engine
    added = await engine.beliefs.add(owner, text, "other", by="test")
    assert added.fact is not None and added.fact.text == text.strip()
    with pytest.raises(InvalidInput, match="65536"):
        await engine.beliefs.add(owner, "x" * (MAX_FACT_BYTES + 1), "other", by="test")


async def test_a_fact_start_given_in_another_offset_is_stored_in_utc(db: Database) -> None:
    """Every stored time is UTC: a fact's start given at +05:00 or -08:00 (through the engine, or
    through GraphQL, whose DateTime keeps the caller's offset for askedAt) is kept as its UTC
    instant, as a turn's time is, and reads back so (an MCP result shows it so)."""
    engine = MemoryEngine(db, HashingEmbedder(DIMENSION), OfflineConsolidator(), engine_settings())
    starts = ["2026-12-06T01:00:00+05:00", "2026-12-05T23:00:00-08:00"]
    async with app_client(db, engine) as http:
        caller = await new_caller(db, http)
        owner = Owner(caller.tenant, "alice")
        await engine.remember(owner, Unit(text="Hello.", speaker="alice", occurred_at=T0))
        stated = await engine.beliefs.add(
            owner, "Alice met Bo.", "event", by="test", valid_from=datetime.fromisoformat(starts[0])
        )
        assert stated.fact is not None
        variables = {"user": "alice", "text": "Alice met Cy.", "kind": "EVENT", "from": starts[1]}
        sent = (await caller.gql(ADD, variables))["addFact"]["fact"]["id"]
        facts = await engine.stores.facts.get(owner, [stated.fact.id, sent])
    assert [f.valid_from for f in facts] == [datetime.fromisoformat(s) for s in starts]
    assert [f.valid_from.utcoffset() for f in facts] == [timedelta(0), timedelta(0)], facts


AS_OF = """query($user: ID!, $asOf: DateTime, $status: FactStatus, $q: String!) {
  user(id: $user) { facts(asOf: $asOf, status: $status) {
    nodes { id status validTo supersededBy { fact { id } } supersedes { fact { id } } } } }
  recall(userId: $user, query: $q, asOf: $asOf, budget: {subconscious: 0, episodic: 0, semantic: 20}) {
    semantic { fact { id status validTo supersededBy { fact { id } } } } } }"""


async def test_facts_as_of_an_instant_read_as_they_stood_then(caller: Caller) -> None:
    """A fact in force at T and corrected since reads, as of T, active with no end and no
    replacement yet, in the listing and in recall; read now, it is superseded."""
    await tell_story(caller)
    start = T0 + timedelta(days=30)
    variables = {
        "user": "alice",
        "text": "Alice lives in Paris.",
        "kind": "ATTRIBUTE",
        "from": start.isoformat(),
    }
    old = (await caller.gql(ADD, variables))["addFact"]["fact"]["id"]
    new = (await caller.gql(CORRECT, {"id": old, "text": "Alice lives in Lyon.", "reason": "moved"}))[
        "correctFact"
    ]["fact"]["id"]
    then = {
        "user": "alice",
        "q": "Where does Alice live, Paris?",
        "asOf": (start + timedelta(days=1)).isoformat(),
    }

    data = await caller.gql(AS_OF, then)
    listed = {f["id"]: f for f in data["user"]["facts"]["nodes"]}
    recalled = {h["fact"]["id"]: h["fact"] for h in data["recall"]["semantic"]}
    assert new not in listed and old in recalled
    for fact in (listed[old], recalled[old]):
        assert (fact["status"], fact["validTo"], fact["supersededBy"]) == ("ACTIVE", None, [])
    assert all(f["status"] == "ACTIVE" and f["validTo"] is None for f in listed.values())
    # The status filter reads the status as of the instant too.
    active = await caller.gql(AS_OF, {**then, "status": "ACTIVE"})
    assert old in {f["id"] for f in active["user"]["facts"]["nodes"]}
    superseded = await caller.gql(AS_OF, {**then, "status": "SUPERSEDED"})
    assert superseded["user"]["facts"]["nodes"] == []
    # Read now, the same fact is superseded by the correction.
    audited = (await caller.gql(AUDIT, {"id": old}))["fact"]
    assert audited["status"] == "SUPERSEDED" and audited["validTo"] is not None
    assert [c["fact"]["id"] for c in audited["supersededBy"]] == [new]
    listed_now = await caller.gql(AS_OF, {**then, "asOf": None})
    assert {f["id"]: f["status"] for f in listed_now["user"]["facts"]["nodes"]}[old] == "SUPERSEDED"


async def test_without_as_of_recall_reads_the_latest_memory_with_facts_that_hold_later(
    caller: Caller,
) -> None:
    """Without asOf, recall reads every active fact, one valid only from a later time too (a plan,
    a conversation dated ahead), and a context marks it with the day it holds from; asOf now
    reads valid time and leaves it out until it holds."""
    await tell_story(caller)
    later = "9999-01-01T00:00:00Z"
    variables = {"user": "alice", "text": "Alice will live in Lyon.", "kind": "PLAN", "from": later}
    planned = (await caller.gql(ADD, variables))["addFact"]["fact"]
    query = "Where will Alice live, Lyon?"
    assert planned["id"] in await _recalled(caller, query)
    assert planned["id"] not in await _recalled(caller, query, datetime.now(UTC))
    listed = (await caller.gql(LISTING, {"user": "alice"}))["user"]["facts"]["nodes"]
    assert {"id": planned["id"], "status": "ACTIVE", "validFrom": later} in listed
    # The context says from when it holds, asked now or on a day before it, not on its day.
    for asked in (None, "2026-12-07T12:00:00+05:00"):
        text = (await caller.gql(CONTEXT, {"user": "alice", "q": query, "asked": asked}))["recall"]["context"]
        assert "- (from 1 January 9999) Alice will live in Lyon." in text["text"].splitlines(), text
    on_the_day = await caller.gql(CONTEXT, {"user": "alice", "q": query, "asked": "9999-01-01T18:00:00Z"})
    assert "- Alice will live in Lyon." in on_the_day["recall"]["context"]["text"].splitlines()


CONTEXT = """query($user: ID!, $q: String!, $asked: DateTime) {
  recall(userId: $user, query: $q, askedAt: $asked, budget: {tokens: 1000}) { context { text } } }"""
