"""Scopes and metadata through the API: stored as sent, refused whole when invalid."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta

from starlette.applications import Starlette

from consolidation.portability import dump, parse
from graph.database import Database
from graph.models import Owner
from tests.support.api import REMEMBER_BATCH, STORY, T0, Caller, count_nodes, new_caller, unit

READ = """query($id: ID!) { interaction(id: $id) { agentId sessionId metadata } }"""


async def test_agent_and_metadata_are_stored_as_sent(caller: Caller) -> None:
    metadata = {"topic": "travel", "priority": 2, "pinned": True, "tags": ["japan", "food"]}
    data = await caller.gql(
        REMEMBER_BATCH,
        {
            "user": "u1",
            "units": [unit("We fly to Osaka.", 0, agentId="planner", sessionId="s1", metadata=metadata)],
        },
    )
    found = await caller.gql(READ, {"id": data["rememberBatch"][0]["interactionId"]})
    assert found["interaction"] == {"agentId": "planner", "sessionId": "s1", "metadata": metadata}


async def test_invalid_metadata_is_refused_and_writes_nothing(db: Database, caller: Caller) -> None:
    good = unit("A fine turn.", 0, metadata={"topic": "x"})
    cases = [
        ({"bad key": 1}, "metadata key 'bad key' is not allowed"),
        ({"tags": ["a", 2]}, "metadata 'tags': a list may hold strings only"),
        ({"deep": {"a": 1}}, "metadata 'deep': a value must be a string"),
        ({"long": "v" * 600}, "metadata 'long': the value is 600 bytes"),
        ("not a map", "metadata"),
    ]
    for metadata, words in cases:
        errors = await caller.errors(
            REMEMBER_BATCH, {"user": "u2", "units": [good, unit("Bad one.", 1, metadata=metadata)]}
        )
        assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT", errors
        assert words in errors[0]["message"], errors
    assert await count_nodes(db, caller.tenant, "u2") == {}


SCOPED = """query($user: ID!) { user(id: $user) {
  episodes(first: 50) { nodes { id current agentIds sessionIds sources { interaction { agentId } } } }
  facts(first: 50) { nodes { id status agentIds sessionIds
    derivedFrom { interactions { agentId sessionId } episodes { agentIds } } } }
} }"""


async def tell_scoped_story(caller: Caller, user: str) -> list[dict[str, object]]:
    """The STORY with its turns split between two agents and two sessions."""
    payloads = []
    for day, text in enumerate(STORY):
        scope = {"agentId": f"agent-{day % 2}", "sessionId": f"s-{day % 2}", "metadata": {"day": day}}
        data = await caller.gql(
            REMEMBER_BATCH, {"user": user, "units": [unit(text, day, sourceRef=f"d{day}", **scope)]}
        )
        payloads.append(data["rememberBatch"][0])
    return payloads


async def test_episodes_and_facts_inherit_the_scopes_of_their_sources(caller: Caller) -> None:
    await tell_scoped_story(caller, "u3")
    user = (await caller.gql(SCOPED, {"user": "u3"}))["user"]
    episodes = user["episodes"]["nodes"]
    merged = [e for e in episodes if len({s["interaction"]["agentId"] for s in e["sources"]}) > 1]
    assert merged, episodes  # the story's sushi turns merge across the two agents
    for episode in episodes:
        agents = sorted({s["interaction"]["agentId"] for s in episode["sources"]})
        assert episode["agentIds"] == agents, episode
        assert episode["sessionIds"] == [a.replace("agent", "s") for a in agents], episode
    facts = user["facts"]["nodes"]
    assert facts
    for fact in facts:
        direct = fact["derivedFrom"]["interactions"]
        expected = (
            sorted({i["agentId"] for i in direct})
            if direct
            else sorted({a for e in fact["derivedFrom"]["episodes"] for a in e["agentIds"]})
        )
        assert fact["agentIds"] == expected, fact


async def test_forgetting_a_turn_removes_its_scopes_from_what_survives(caller: Caller) -> None:
    payloads = await tell_scoped_story(caller, "u4")
    before = (await caller.gql(SCOPED, {"user": "u4"}))["user"]
    current = [e for e in before["episodes"]["nodes"] if e["current"] and len(e["agentIds"]) > 1]
    assert current, before
    # Days 1 and 3 are agent-1's turns: forget both.
    for day in (1, 3):
        await caller.gql(
            "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }",
            {"id": payloads[day]["interactionId"]},
        )
    after = (await caller.gql(SCOPED, {"user": "u4"}))["user"]
    # Every agent-1 turn is gone, so nothing that survives belongs to agent-1 any more.
    for node in after["episodes"]["nodes"] + after["facts"]["nodes"]:
        assert "agent-1" not in node["agentIds"], node
    sushi = [e for e in after["episodes"]["nodes"] if e["current"]]
    assert any(e["agentIds"] == ["agent-0"] for e in sushi), sushi
    for episode in after["episodes"]["nodes"]:
        agents = sorted({s["interaction"]["agentId"] for s in episode["sources"]})
        assert episode["agentIds"] == agents, episode


RECALL = """query($user: ID!, $q: String!, $filter: RecallFilter, $asOf: DateTime) {
  recall(userId: $user, query: $q, includeConsolidated: true, asOf: $asOf,
         budget: {subconscious: 100, episodic: 100, semantic: 100}, filter: $filter) {
    subconscious { interaction { id userId agentId sessionId speaker metadata occurredAt } }
    episodic { episode { id agentIds sessionIds } }
    semantic { fact { id kind agentIds sessionIds } }
  }
}"""
LISTED = """query($user: ID!, $filter: RecallFilter) { user(id: $user) {
  interactions(first: 100, filter: $filter) { nodes { id agentId } }
  episodes(first: 100, filter: $filter, current: true) { nodes { id agentIds } }
  facts(first: 100, filter: $filter, status: ACTIVE) { nodes { id kind agentIds } }
} }"""


def _turn(i: int, agent: str, **extra: object) -> dict[str, object]:
    topic = "x" if i % 3 == 0 else "y"
    return unit(
        f"Turn {i} about the garden and the weather.",
        i,
        agentId=agent,
        sessionId=f"s{i % 2}",
        speaker="user" if i % 2 == 0 else "assistant",
        metadata={"topic": topic, "n": i, "tags": ["all", f"t{i % 4}"]},
        **extra,
    )


async def _write(caller: Caller, user: str, turns: list[dict[str, object]]) -> None:
    await caller.gql(
        "mutation($user: ID!, $units: [UnitInput!]!) { rememberBatch(userId: $user, units: $units, "
        "consolidate: false) { interactionId } }",
        {"user": user, "units": turns},
    )


async def test_filters_give_exact_per_user_counts_beside_other_scopes_and_tenants(
    db: Database, caller: Caller
) -> None:
    turns = [_turn(i, "a1" if i < 12 else "a2") for i in range(30)]
    await _write(caller, "fu", turns)
    # The same scopes for another user of the tenant and for the same user id in another tenant.
    await _write(caller, "other", [_turn(i, "a1") for i in range(8)])
    stranger = await new_caller(db, caller.http)
    await _write(stranger, "fu", [_turn(i, "a1") for i in range(9)])

    def expected(keep: Callable[[int], bool]) -> int:
        return sum(1 for i in range(30) if keep(i))

    cases: list[tuple[dict[str, object], int]] = [
        ({"agentIds": ["a1"]}, 12),
        ({"agentIds": ["a2"]}, 18),
        ({"agentIds": ["a1", "a2"]}, 30),
        ({"agentIds": ["nobody"]}, 0),
        ({"sessionIds": ["s1"]}, 15),
        ({"speakers": ["assistant"], "agentIds": ["a1"]}, expected(lambda i: i < 12 and i % 2 == 1)),
        ({"metadata": [{"key": "topic", "equals": "x"}]}, expected(lambda i: i % 3 == 0)),
        ({"metadata": [{"key": "topic", "anyOf": ["x", "y"]}]}, 30),
        ({"metadata": [{"key": "n", "anyOf": [3, 4, 5.0, "6"]}]}, 3),
        (
            {"metadata": [{"key": "tags", "equals": "t1"}, {"key": "topic", "equals": "y"}]},
            expected(lambda i: i % 4 == 1 and i % 3 != 0),
        ),
        (
            {
                "occurredAfter": (T0 + timedelta(days=10)).isoformat(),
                "occurredBefore": (T0 + timedelta(days=20)).isoformat(),
            },
            10,
        ),
        ({"agentIds": ["a2"], "occurredBefore": (T0 + timedelta(days=15)).isoformat()}, 3),
    ]
    for given, count in cases:
        found = (await caller.gql(RECALL, {"user": "fu", "q": "garden weather", "filter": given}))["recall"]
        hits = [h["interaction"] for h in found["subconscious"]]
        assert len(hits) == count, (given, len(hits))
        assert {h["userId"] for h in hits} <= {"fu"}
        listed = (await caller.gql(LISTED, {"user": "fu", "filter": given}))["user"]
        assert len(listed["interactions"]["nodes"]) == count, given
        assert {h["id"] for h in hits} == {n["id"] for n in listed["interactions"]["nodes"]}, given
        # As of a later day, the exact scan of the past takes the same filter.
        later = {
            "user": "fu",
            "q": "garden weather",
            "filter": given,
            "asOf": (T0 + timedelta(days=90)).isoformat(),
        }
        past = (await caller.gql(RECALL, later))["recall"]["subconscious"]
        assert {h["interaction"]["id"] for h in past} == {h["id"] for h in hits}, given
    # The stranger's filtered recall sees its own nine turns only.
    theirs = await stranger.gql(RECALL, {"user": "fu", "q": "garden", "filter": {"agentIds": ["a1"]}})
    assert len(theirs["recall"]["subconscious"]) == 9


async def test_filters_narrow_episodes_and_facts_by_their_inherited_scopes(caller: Caller) -> None:
    await tell_scoped_story(caller, "u5")
    everything = (await caller.gql(LISTED, {"user": "u5", "filter": None}))["user"]
    seen_facts = 0
    for agent in ("agent-0", "agent-1"):
        given = {"agentIds": [agent]}
        found = (await caller.gql(RECALL, {"user": "u5", "q": "sushi salmon dog", "filter": given}))["recall"]
        episodes = [e for e in everything["episodes"]["nodes"] if agent in e["agentIds"]]
        facts = [f for f in everything["facts"]["nodes"] if agent in f["agentIds"]]
        assert episodes, everything
        seen_facts += len(facts)
        assert sorted(h["episode"]["id"] for h in found["episodic"]) == sorted(e["id"] for e in episodes)
        assert sorted(h["fact"]["id"] for h in found["semantic"]) == sorted(f["id"] for f in facts)
        listed = (await caller.gql(LISTED, {"user": "u5", "filter": given}))["user"]
        assert sorted(e["id"] for e in listed["episodes"]["nodes"]) == sorted(e["id"] for e in episodes)
        assert sorted(f["id"] for f in listed["facts"]["nodes"]) == sorted(f["id"] for f in facts)
    assert seen_facts > 0, everything
    kinds = {f["kind"] for f in everything["facts"]["nodes"]}
    kind = sorted(kinds)[0]
    found = (await caller.gql(RECALL, {"user": "u5", "q": "sushi", "filter": {"kinds": [kind]}}))["recall"]
    assert {h["fact"]["kind"] for h in found["semantic"]} == {kind}
    assert len(found["semantic"]) == sum(1 for f in everything["facts"]["nodes"] if f["kind"] == kind)


STATS = """query($user: ID!, $filter: RecallFilter) { user(id: $user) {
  stats(filter: $filter) { interactions consolidated pending episodes episodeVersions activeFacts
                           supersededFacts retractedFacts runs promptTokens completionTokens }
  interactions(first: 100, filter: $filter) { nodes { consolidated pending } }
  episodes(first: 100, filter: $filter) { nodes { current } }
  facts(first: 100, filter: $filter) { nodes { status } }
} }"""
COST = ("runs", "promptTokens", "completionTokens")


async def test_stats_with_a_filter_count_what_the_filtered_listings_hold(
    db: Database, caller: Caller
) -> None:
    await tell_scoped_story(caller, "u6")
    await _write(caller, "u6", [unit("A raw turn of agent-1.", 9, agentId="agent-1", sessionId="s-1")])
    added = await caller.gql(ADD_SCOPED, {"user": "u6", "text": "Alice is tall.", "agent": "agent-0"})
    await caller.gql(
        'mutation($id: ID!) { retractFact(id: $id, reason: "not so") { written } }',
        {"id": added["addFact"]["fact"]["id"]},
    )
    # The same scopes for another user of the tenant and for the same user in another tenant.
    await _write(caller, "u6-other", [_turn(i, "agent-0") for i in range(5)])
    stranger = await new_caller(db, caller.http)
    await _write(stranger, "u6", [_turn(i, "agent-0") for i in range(7)])

    whole = (await caller.gql(STATS, {"user": "u6", "filter": None}))["user"]["stats"]
    narrowed = 0
    for given in (
        None,
        {"agentIds": ["agent-0"]},
        {"agentIds": ["agent-1"]},
        {"sessionIds": ["s-1"]},
        {"metadata": [{"key": "day", "equals": 0}]},
        {"agentIds": ["nobody"]},
        {"kinds": ["ATTRIBUTE"]},
        {"occurredAfter": (T0 + timedelta(days=2)).isoformat()},
    ):
        user = (await caller.gql(STATS, {"user": "u6", "filter": given}))["user"]
        stats, turns = user["stats"], user["interactions"]["nodes"]
        episodes, facts = user["episodes"]["nodes"], user["facts"]["nodes"]
        listed = {
            "interactions": len(turns),
            "consolidated": sum(t["consolidated"] for t in turns),
            "pending": sum(t["pending"] for t in turns),
            "episodes": sum(e["current"] for e in episodes),
            "episodeVersions": len(episodes),
            "activeFacts": sum(f["status"] == "ACTIVE" for f in facts),
            "supersededFacts": sum(f["status"] == "SUPERSEDED" for f in facts),
            "retractedFacts": sum(f["status"] == "RETRACTED" for f in facts),
        }
        assert {k: stats[k] for k in listed} == listed, given
        # Runs hold no scope: what memory cost stays the user's whole.
        assert {k: stats[k] for k in COST} == {k: whole[k] for k in COST}, given
        narrowed += 0 < stats["interactions"] < whole["interactions"]
    assert narrowed >= 4 and whole["retractedFacts"] == 1 and whole["supersededFacts"] > 0, whole
    errors = await caller.errors(STATS, {"user": "u6", "filter": {"agentIds": []}})
    assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT", errors
    assert "filter.agentIds must name at least one value" in errors[0]["message"], errors


async def test_bad_filters_are_refused_with_the_field_named(caller: Caller) -> None:
    await _write(caller, "fb", [_turn(0, "a1")])
    cases = [
        ({"agentIds": []}, "filter.agentIds must name at least one value"),
        ({"metadata": [{"key": "topic"}]}, "give exactly one of `equals` and `anyOf`"),
        ({"metadata": [{"key": "topic", "equals": ["x"]}]}, "a value must be a string, a number"),
        ({"metadata": [{"key": "bad key", "equals": 1}]}, "metadata key 'bad key' is not allowed"),
        ({"metadata": []}, "filter.metadata must name at least one value"),
        ({"metadata": [{"key": "k" * 65, "equals": 1}]}, "is longer than 64 bytes"),
        (
            {"occurredAfter": "2024-05-02T00:00:00Z", "occurredBefore": "2024-05-01T00:00:00Z"},
            "filter.occurredBefore must be later than filter.occurredAfter",
        ),
    ]
    for given, words in cases:
        for query in (RECALL, LISTED):
            variables = (
                {"user": "fb", "q": "x", "filter": given}
                if query is RECALL
                else {"user": "fb", "filter": given}
            )
            errors = await caller.errors(query, variables)
            assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT", (given, errors)
            assert words in errors[0]["message"], (given, errors)


ADD_SCOPED = """mutation($user: ID!, $text: String!, $agent: String, $session: String, $metadata: JSON) {
  addFact(userId: $user, text: $text, kind: ATTRIBUTE, agentId: $agent, sessionId: $session,
          metadata: $metadata) {
    written fact { id agentIds sessionIds } } }"""
SEMANTIC = """query($user: ID!, $q: String!, $filter: RecallFilter) {
  recall(userId: $user, query: $q, filter: $filter, budget: {subconscious: 0, episodic: 0, semantic: 50}) {
    semantic { fact { id } } }
  user(id: $user) { facts(first: 100, filter: $filter, status: ACTIVE) { nodes { id } } } }"""


async def _found(caller: Caller, user: str, scope: Mapping[str, object] | None) -> set[str]:
    """The facts a filtered recall finds, checked against the filtered listing."""
    data = await caller.gql(SEMANTIC, {"user": user, "q": "allergic to penicillin", "filter": scope})
    recalled = {hit["fact"]["id"] for hit in data["recall"]["semantic"]}
    assert recalled == {n["id"] for n in data["user"]["facts"]["nodes"]}, scope
    return recalled


async def test_a_fact_added_by_hand_answers_in_the_scopes_it_is_given(
    db: Database, api_app: Starlette, caller: Caller
) -> None:
    await _write(caller, "hand", [_turn(0, "a1")])  # the user exists: one turn, of another agent
    metadata = {"topic": "health", "tags": ["medical", "urgent"], "level": 2}
    scoped = {"agent": "ag1", "session": "support-7", "metadata": metadata}
    text = "Alice is allergic to penicillin."
    done = (await caller.gql(ADD_SCOPED, {"user": "hand", "text": text, **scoped}))["addFact"]
    fact = done["fact"]
    assert done["written"] and (fact["agentIds"], fact["sessionIds"]) == (["ag1"], ["support-7"])
    plain = await caller.gql(ADD_SCOPED, {"user": "hand", "text": "Alice is allergic to pollen."})
    unscoped = plain["addFact"]["fact"]
    assert (unscoped["agentIds"], unscoped["sessionIds"]) == ([], [])

    everything = await _found(caller, "hand", None)
    assert {fact["id"], unscoped["id"]} <= everything
    for scope in (
        {"agentIds": ["ag1"]},
        {"agentIds": ["a1", "ag1"]},
        {"sessionIds": ["support-7"]},
        {"metadata": [{"key": "topic", "equals": "health"}]},
        {"metadata": [{"key": "tags", "anyOf": ["urgent"]}, {"key": "level", "equals": 2}]},
    ):
        assert await _found(caller, "hand", scope) == {fact["id"]}, scope
    # An unscoped fact matches no scope or metadata filter; an added fact has no speaker.
    for scope in (
        {"agentIds": ["a1"]},
        {"agentIds": ["ag2"]},
        {"sessionIds": ["s0"]},
        {"speakers": ["user"]},
        {"metadata": [{"key": "topic", "equals": "x"}]},
    ):
        assert await _found(caller, "hand", scope) == set(), scope

    # A correction of it answers in its scopes still, and in those of the turn it cites until that
    # turn is forgotten (docs/scopes.md#inheritance).
    said = await caller.gql(
        'mutation { remember(input: {userId: "hand", text: "And amoxicillin too.", agentId: "a3"}, '
        "consolidate: false) { interactionId } }"
    )
    turn = said["remember"]["interactionId"]
    corrected = await caller.gql(
        'mutation($id: ID!, $turn: ID) { correctFact(id: $id, text: "Alice is allergic to penicillin and '
        'amoxicillin.", reason: "more precise", sourceInteractionId: $turn) { fact { id agentIds sessionIds } } }',
        {"id": fact["id"], "turn": turn},
    )
    correction = corrected["correctFact"]["fact"]
    assert (correction["agentIds"], correction["sessionIds"]) == (["a3", "ag1"], ["support-7"])
    assert await _found(caller, "hand", {"agentIds": ["ag1"]}) == {correction["id"]}
    await caller.gql("mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }", {"id": turn})
    assert await _found(caller, "hand", {"agentIds": ["a3"]}) == set()
    assert await _found(caller, "hand", {"agentIds": ["ag1"]}) == {correction["id"]}

    # An export and import keeps them.
    services = api_app.state.services
    owner = Owner(caller.tenant, "hand")
    lines = [line async for line in services.portability.export(owner)]
    await services.forgetter.forget_user(owner)
    assert await count_nodes(db, caller.tenant, "hand") == {}
    await services.portability.import_user(parse([dump(line) + "\n" for line in lines]), owner)
    assert await _found(caller, "hand", {"agentIds": ["ag1"]}) == {correction["id"]}
    assert await _found(caller, "hand", {"metadata": [{"key": "tags", "equals": "medical"}]}) == {
        correction["id"]
    }


async def test_a_fact_added_with_bad_scopes_is_refused_and_writes_nothing(
    db: Database, caller: Caller
) -> None:
    await _write(caller, "hand-bad", [_turn(0, "a1")])
    before = await count_nodes(db, caller.tenant)
    for scoped, words in (
        ({"agent": " "}, "agentId must not be empty"),
        ({"session": ""}, "sessionId must not be empty"),
        ({"agent": "a" * 257}, "agentId is longer than 256 characters"),
        ({"metadata": {"bad key": 1}}, "metadata key 'bad key' is not allowed"),
        ({"metadata": {"tags": ["a", 2]}}, "metadata 'tags': a list may hold strings only"),
        ({"metadata": "not a map"}, "metadata"),
    ):
        errors = await caller.errors(ADD_SCOPED, {"user": "hand-bad", "text": "Alice is tall.", **scoped})
        coded = [(e["extensions"]["code"], e["extensions"].get("written")) for e in errors]
        assert coded == [("BAD_USER_INPUT", False)], (scoped, errors)
        assert words in errors[0]["message"], (scoped, errors)
    assert await count_nodes(db, caller.tenant) == before
