"""Every query and mutation over HTTP against the real Neo4j: remember, consolidation, recall,
answer, browsing with cursors both ways, as-of, and the lookups by id."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from api.schema.mutation import GENERATED_REF_PREFIX
from graph.database import Database
from tests.support.api import REMEMBER_BATCH, STORY, T0, Caller, counted_gql, new_caller, tell_story, unit


@dataclass(frozen=True)
class Story:
    caller: Caller
    interactions: list[str]
    first_episode: str
    merged_episode: str
    first_facts: list[str]
    reversal: str


@pytest.fixture(scope="module")
async def story(db: Database, api_app: Starlette) -> AsyncIterator[Story]:
    """The STORY told once for the module's read-only tests."""
    transport = httpx.ASGITransport(app=api_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        teller = await new_caller(db, http)
        payloads = await tell_story(teller)
        created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
        yield Story(
            caller=teller,
            interactions=[p["interactionId"] for p in payloads],
            first_episode=created["episodeId"],
            merged_episode=merged["episodeId"],
            first_facts=created["factIds"],
            reversal=merged["factIds"][0],
        )


async def test_story_creates_merges_and_supersedes(story: Story) -> None:
    data = await story.caller.gql(
        "query($id: ID!) { fact(id: $id) { text status supersedes { fact { id status validTo } reason } } }",
        {"id": story.reversal},
    )
    fact = data["fact"]
    assert "can't stand sushi" in fact["text"] and fact["status"] == "ACTIVE"
    replaced = {c["fact"]["id"] for c in fact["supersedes"]}
    assert replaced == set(story.first_facts)
    assert all(c["fact"]["status"] == "SUPERSEDED" and c["fact"]["validTo"] for c in fact["supersedes"])


async def test_remember_acknowledges_and_is_idempotent(caller: Caller) -> None:
    query = """mutation($u: RememberInput!) { remember(input: $u) {
        created seq consolidation { action }
        interaction { id userId text speaker occurredAt sessionId sourceRef consolidated } } }"""
    variables = {"u": {"userId": "bob", **unit("I moved to Lisbon.", 0, sessionId="s1", sourceRef="ref-1")}}
    first = (await caller.gql(query, variables))["remember"]
    assert first["created"] and first["seq"] == 1 and first["consolidation"]["action"] == "NONE"
    assert first["interaction"]["text"] == "I moved to Lisbon."
    assert first["interaction"]["occurredAt"] == "2024-05-01T09:00:00Z"
    assert first["interaction"]["sourceRef"] == "ref-1" and first["interaction"]["sessionId"] == "s1"
    again = (await caller.gql(query, variables))["remember"]
    assert not again["created"] and again["interaction"]["id"] == first["interaction"]["id"]


async def test_remember_batch_in_order_without_consolidation(caller: Caller) -> None:
    units = [unit(f"note number {i}", i) for i in range(4)]
    data = await caller.gql(
        'mutation($units: [UnitInput!]!) { rememberBatch(userId: "carol", units: $units, consolidate: false) '
        "{ seq created consolidation { action } } }",
        {"units": units},
    )
    assert [p["seq"] for p in data["rememberBatch"]] == [1, 2, 3, 4]
    assert all(p["created"] and p["consolidation"] is None for p in data["rememberBatch"])


async def test_remember_batch_keeps_every_field_and_fills_defaults(caller: Caller) -> None:
    units = [unit("all fields given", 0, sessionId="s7", sourceRef="r-7"), {"text": "only text"}]
    data = await caller.gql(
        'mutation($units: [UnitInput!]!) { rememberBatch(userId: "erin", units: $units, consolidate: false) '
        "{ interaction { text speaker occurredAt sessionId sourceRef } } }",
        {"units": units},
    )
    given, bare = (p["interaction"] for p in data["rememberBatch"])
    assert given == {
        "text": "all fields given",
        "speaker": "alice",
        "occurredAt": "2024-05-01T09:00:00Z",
        "sessionId": "s7",
        "sourceRef": "r-7",
    }
    assert (bare["speaker"], bare["sessionId"]) == ("user", None)
    # Without one, the service names the write itself, so that a retry cannot store it twice.
    assert bare["sourceRef"].startswith(GENERATED_REF_PREFIX)
    stamped = datetime.fromisoformat(bare["occurredAt"])
    assert abs((datetime.now(UTC) - stamped).total_seconds()) < 60


async def test_consolidate_runs_pending_interactions(caller: Caller) -> None:
    units = [unit(text, day) for day, text in enumerate(STORY[:3])]
    await caller.gql(
        'mutation($units: [UnitInput!]!) { rememberBatch(userId: "dora", units: $units, consolidate: false) '
        "{ seq } }",
        {"units": units},
    )
    data = await caller.gql(
        'mutation { consolidate(userId: "dora") { action triggerId episode { id version current } '
        "facts { text } consolidatedIds } }"
    )
    created = [e for e in data["consolidate"] if e["action"] == "CREATED"]
    assert len(created) == 1 and created[0]["episode"]["version"] == 1
    assert len(created[0]["consolidatedIds"]) == 3 and created[0]["facts"]


RECALL = """query($u: ID!, $q: String!, $b: BudgetInput, $asOf: DateTime, $inc: Boolean) {
  recall(userId: $u, query: $q, budget: $b, asOf: $asOf, includeConsolidated: $inc) {
    query asOf
    subconscious { score interaction { id text consolidated } }
    episodic { score episode { id version current } sourceIds sources { id } }
    semantic { score fact { id text status } sourceIds sources { id text } }
  }
}"""


async def test_recall_returns_three_layers_with_provenance(story: Story) -> None:
    data = (await story.caller.gql(RECALL, {"u": "alice", "q": "sushi with salmon"}))["recall"]
    assert data["query"] == "sushi with salmon" and data["asOf"] is None
    facts = {h["fact"]["id"]: h for h in data["semantic"]}
    assert story.reversal in facts and not set(story.first_facts) & set(facts)  # superseded ones hidden
    assert facts[story.reversal]["sources"][0]["id"] == story.interactions[3]
    assert [h["episode"]["id"] for h in data["episodic"]] == [story.merged_episode]
    assert set(data["episodic"][0]["sourceIds"]) == set(story.interactions[:4])
    assert {s["id"] for s in data["episodic"][0]["sources"]} == set(story.interactions[:4])
    # Consolidated turns are left out of the subconscious layer unless asked for.
    assert [h["interaction"]["id"] for h in data["subconscious"]] == [story.interactions[4]]
    everything = (await story.caller.gql(RECALL, {"u": "alice", "q": "sushi", "inc": True}))["recall"]
    assert len(everything["subconscious"]) == 5
    only_facts = {"subconscious": 0, "episodic": 0, "semantic": 2}
    narrow = (await story.caller.gql(RECALL, {"u": "alice", "q": "sushi", "b": only_facts}))["recall"]
    assert narrow["subconscious"] == [] and narrow["episodic"] == [] and len(narrow["semantic"]) <= 2


async def test_recall_as_of_sees_memory_as_it_was(story: Story) -> None:
    before_reversal = (T0 + timedelta(days=2, hours=12)).isoformat()
    data = (await story.caller.gql(RECALL, {"u": "alice", "q": "sushi", "asOf": before_reversal}))["recall"]
    assert data["asOf"] == "2024-05-03T21:00:00Z"
    facts = {h["fact"]["id"] for h in data["semantic"]}
    assert facts == set(story.first_facts)
    assert [h["episode"]["id"] for h in data["episodic"]] == [story.first_episode]


EPISODES_AS_OF = """query($asOf: DateTime) {
  user(id: "alice") {
    then: episodes(asOf: $asOf) { nodes { id current supersededAt supersededBy { id } } }
    thenCurrent: episodes(asOf: $asOf, current: true) { nodes { id } }
    thenOld: episodes(asOf: $asOf, current: false) { nodes { id } }
    now: episodes { nodes { id current supersededAt supersededBy { id } } } }
  recall(userId: "alice", query: "sushi", asOf: $asOf,
         budget: {subconscious: 0, episodic: 5, semantic: 0}) {
    episodic { episode { id current supersededAt supersededBy { id } } } } }"""


async def test_episodes_as_of_an_instant_read_as_they_stood_then(story: Story) -> None:
    """The first version, current at the instant and replaced by the merge since, reads as of it
    current, with no replacement known yet, in the listing and in recall; read now it is old."""
    data = await story.caller.gql(EPISODES_AS_OF, {"asOf": (T0 + timedelta(days=2, hours=12)).isoformat()})
    then_version = {"id": story.first_episode, "current": True, "supersededAt": None, "supersededBy": None}
    assert data["user"]["then"]["nodes"] == [then_version]
    assert [h["episode"] for h in data["recall"]["episodic"]] == [then_version]
    # The `current` filter reads as of the instant too.
    assert [e["id"] for e in data["user"]["thenCurrent"]["nodes"]] == [story.first_episode]
    assert data["user"]["thenOld"]["nodes"] == []
    now = {e["id"]: e for e in data["user"]["now"]["nodes"]}[story.first_episode]
    assert not now["current"] and now["supersededAt"] is not None
    assert now["supersededBy"] == {"id": story.merged_episode}


async def test_answer_uses_memory_and_records_a_run(story: Story) -> None:
    data = await story.caller.gql(
        """query { answer(userId: "alice", question: "What is the dog called?") {
            text usedIds used { __typename id } runId promptTokens completionTokens
            recall { subconscious { interaction { id } } } } }"""
    )
    answer = data["answer"]
    assert "Rex" in answer["text"]
    assert story.interactions[4] in answer["usedIds"]
    assert {n["id"] for n in answer["used"]} == set(answer["usedIds"])
    run = await story.caller.gql(
        "query($id: ID!) { consolidationRun(id: $id) { op trigger provider read { id } } }",
        {"id": answer["runId"]},
    )
    assert run["consolidationRun"]["op"] == "answer" and run["consolidationRun"]["provider"] == "offline"


async def test_an_answer_says_what_a_fact_and_its_episode_share_once(caller: Caller) -> None:
    said = await caller.gql(
        'mutation { remember(input: {userId: "alice", speaker: "alice", text: "My sister is called Anna.",'
        ' occurredAt: "2024-05-03T09:00:00Z"}, consolidate: true) { consolidation { action factIds } } }'
    )
    assert said["remember"]["consolidation"]["factIds"], said  # salient: consolidated at once
    data = await caller.gql('{ answer(userId: "alice", question: "What is my sister called?") { text } }')
    text = data["answer"]["text"]
    assert "Anna" in text and text.count("sister is called Anna") == 1, text


INTERACTIONS_PAGE = """query($first: Int, $after: String, $last: Int, $before: String,
                            $since: DateTime, $until: DateTime, $consolidated: Boolean) {
  user(id: "alice") {
    interactions(first: $first, after: $after, last: $last, before: $before,
                 since: $since, until: $until, consolidated: $consolidated) {
      edges { cursor node { id seq } }
      nodes { id }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}"""


async def _page(caller: Caller, **variables: Any) -> dict[str, Any]:
    return dict((await caller.gql(INTERACTIONS_PAGE, variables))["user"]["interactions"])


async def test_interactions_paginate_forward_and_backward(story: Story) -> None:
    seen, after = [], None
    while True:
        page = await _page(story.caller, first=2, after=after)
        seen += [e["node"]["id"] for e in page["edges"]]
        assert page["pageInfo"]["hasPreviousPage"] == (after is not None)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == story.interactions

    back: list[str] = []
    before: str | None = None
    while True:
        page = await _page(story.caller, last=2, before=before)
        back = [e["node"]["id"] for e in page["edges"]] + back
        assert page["pageInfo"]["hasNextPage"] == (before is not None)
        if not page["pageInfo"]["hasPreviousPage"]:
            break
        before = page["pageInfo"]["startCursor"]
    assert back == story.interactions

    middle = await _page(
        story.caller, first=10, after=(await _page(story.caller, first=1))["pageInfo"]["endCursor"]
    )
    assert [n["id"] for n in middle["nodes"]] == story.interactions[1:]


async def test_interaction_filters_by_time_and_state(story: Story) -> None:
    window = await _page(
        story.caller, since=(T0 + timedelta(days=1)).isoformat(), until=(T0 + timedelta(days=3)).isoformat()
    )
    assert [n["id"] for n in window["nodes"]] == story.interactions[1:3]
    pending = await _page(story.caller, consolidated=False)
    assert [n["id"] for n in pending["nodes"]] == story.interactions[4:]


async def test_episodes_facts_runs_connections_and_stats(story: Story) -> None:
    data = await story.caller.gql(
        """query($asOf: DateTime) { user(id: "alice") {
            id
            stats { interactions consolidated episodes episodeVersions activeFacts supersededFacts runs }
            all: episodes { nodes { id version current } }
            current: episodes(current: true) { nodes { id } }
            thenEpisodes: episodes(asOf: $asOf) { nodes { id } }
            active: facts(status: ACTIVE) { nodes { id } }
            superseded: facts(status: SUPERSEDED) { nodes { id } }
            thenFacts: facts(asOf: $asOf) { nodes { id } }
            newestFact: facts(last: 1) { nodes { id } pageInfo { hasPreviousPage hasNextPage } }
            runs: consolidationRuns(first: 2) { edges { node { op model promptTokens } } pageInfo { hasNextPage } }
            refines: consolidationRuns(op: "refine_facts") { nodes { op } }
        } }""",
        {"asOf": (T0 + timedelta(days=2, hours=12)).isoformat()},
    )
    user = data["user"]
    stats = user["stats"]
    assert (stats["interactions"], stats["consolidated"], stats["episodes"], stats["episodeVersions"]) == (
        5,
        4,
        1,
        2,
    )
    assert (stats["activeFacts"], stats["supersededFacts"]) == (1, 3)
    assert [(e["id"], e["version"], e["current"]) for e in user["all"]["nodes"]] == [
        (story.first_episode, 1, False),
        (story.merged_episode, 2, True),
    ]
    assert [e["id"] for e in user["current"]["nodes"]] == [story.merged_episode]
    assert [e["id"] for e in user["thenEpisodes"]["nodes"]] == [story.first_episode]
    assert [f["id"] for f in user["active"]["nodes"]] == [story.reversal]
    assert {f["id"] for f in user["superseded"]["nodes"]} == set(story.first_facts)
    assert {f["id"] for f in user["thenFacts"]["nodes"]} == set(story.first_facts)
    assert [f["id"] for f in user["newestFact"]["nodes"]] == [story.reversal]
    assert user["newestFact"]["pageInfo"] == {"hasPreviousPage": True, "hasNextPage": False}
    assert len(user["runs"]["edges"]) == 2 and user["runs"]["pageInfo"]["hasNextPage"]
    assert user["runs"]["edges"][0]["node"]["model"] == "extractive-v2"
    assert [r["op"] for r in user["refines"]["nodes"]] == ["refine_facts", "refine_facts"]


async def test_facts_filter_by_kind_in_the_store(story: Story) -> None:
    """The kind filter is the API's: every page holds only that kind, and a kind no fact has is empty."""
    every = (await story.caller.gql('{ user(id: "alice") { facts { nodes { id kind status } } } }'))["user"]
    facts = every["facts"]["nodes"]
    kinds = {f["kind"] for f in facts}
    absent = sorted({"PREFERENCE", "ATTRIBUTE", "EVENT", "PLAN", "RELATION", "OTHER"} - kinds)
    assert facts and absent  # the story has facts, and not of every kind
    query = """query($kind: FactKind, $status: FactStatus) { user(id: "alice") {
        facts(kind: $kind, status: $status) { nodes { id } } } }"""
    for kind in [*sorted(kinds), absent[0]]:
        for status in (None, "ACTIVE"):
            data = await story.caller.gql(query, {"kind": kind, "status": status})
            wanted = [f["id"] for f in facts if f["kind"] == kind and status in (None, f["status"])]
            assert [f["id"] for f in data["user"]["facts"]["nodes"]] == wanted, (kind, status)


async def test_fact_relations_and_history(story: Story) -> None:
    old = story.first_facts[0]
    data = await story.caller.gql(
        """query($id: ID!) { fact(id: $id) {
            id kind status validFrom validTo
            derivedFrom { episodes { id } interactions { id } }
            supersededBy { fact { id } reason at }
            history { id status }
        } }""",
        {"id": old},
    )
    fact = data["fact"]
    assert fact["status"] == "SUPERSEDED" and fact["kind"] == "PREFERENCE"
    assert [e["id"] for e in fact["derivedFrom"]["episodes"]] == [story.first_episode]
    assert len(fact["derivedFrom"]["interactions"]) == 1
    assert [c["fact"]["id"] for c in fact["supersededBy"]] == [story.reversal]
    assert fact["supersededBy"][0]["at"] == fact["validTo"] == "2024-05-04T09:00:00Z"
    assert [h["id"] for h in fact["history"]] == [old, story.reversal]


async def test_episode_versions_and_interaction_derivations(story: Story) -> None:
    data = await story.caller.gql(
        """query($old: ID!, $new: ID!, $turn: ID!) {
            old: episode(id: $old) { version current supersededBy { id } supersedes { id }
                                     versions { id version } facts { id } sources { similarity interaction { id } } }
            new: episode(id: $new) { version current supersedes { id } supersededBy { id } versions { id } }
            turn: interaction(id: $turn) { derivedEpisodes { id } derivedFacts { id } }
        }""",
        {"old": story.first_episode, "new": story.merged_episode, "turn": story.interactions[3]},
    )
    assert data["old"]["supersededBy"] == {"id": story.merged_episode} and data["old"]["supersedes"] is None
    assert [v["version"] for v in data["old"]["versions"]] == [2, 1]
    assert {f["id"] for f in data["old"]["facts"]} == set(story.first_facts)
    assert [s["interaction"]["id"] for s in data["old"]["sources"]] == story.interactions[:3]
    assert data["new"]["supersedes"] == {"id": story.first_episode} and data["new"]["supersededBy"] is None
    assert [e["id"] for e in data["turn"]["derivedEpisodes"]] == [story.merged_episode]
    assert [f["id"] for f in data["turn"]["derivedFacts"]] == [story.reversal]


async def test_node_resolves_every_kind(story: Story) -> None:
    runs = await story.caller.gql('{ user(id: "alice") { consolidationRuns(first: 1) { nodes { id } } } }')
    run_id = runs["user"]["consolidationRuns"]["nodes"][0]["id"]
    ids = [story.interactions[0], story.first_episode, story.reversal, run_id]
    types = []
    for node_id in ids:
        data = await story.caller.gql(
            "query($id: ID!) { node(id: $id) { __typename id ... on ConsolidationRun { produced { id } } } }",
            {"id": node_id},
        )
        assert data["node"]["id"] == node_id
        types.append(data["node"]["__typename"])
    assert types == ["Interaction", "Episode", "Fact", "ConsolidationRun"]


async def test_bad_pagination_arguments(story: Story) -> None:
    for args in ("first: 1, last: 1", "first: 1000", 'after: "bm90LWEtY3Vyc29y"', "last: -1"):
        errors = await story.caller.errors(
            f'{{ user(id: "alice") {{ interactions({args}) {{ nodes {{ id }} }} }} }}'
        )
        assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT", args


async def test_remember_batch_writes_one_transaction(caller: Caller) -> None:
    data = await caller.gql(REMEMBER_BATCH, {"user": "erin", "units": [unit("a", 0), unit("b", 1)]})
    assert [p["seq"] for p in data["rememberBatch"]] == [1, 2]


INTERACTION_FIELDS = "id userId sessionId speaker text occurredAt seq consolidated consolidatedAt sourceRef"
REMEMBER_NODE = f"""mutation($u: RememberInput!, $c: Boolean) {{ remember(input: $u, consolidate: $c) {{
    created consolidation {{ action consolidatedIds }} interaction {{ {INTERACTION_FIELDS} }} }} }}"""


async def test_remember_acknowledges_the_stored_interaction_without_reading_it_back(
    db: Database, caller: Caller
) -> None:
    fresh = {
        "u": {"userId": "gus", **unit("Bought a red bike.", 3, sessionId="s9", sourceRef="bike")},
        "c": False,
    }
    written_trips, written = await counted_gql(db, caller, REMEMBER_NODE, fresh)
    repeated_trips, repeated = await counted_gql(db, caller, REMEMBER_NODE, fresh)
    assert written["remember"]["created"] and not repeated["remember"]["created"]
    # The key lookup (uncached in tests) and the write; a repeat finds the interaction known and
    # reads it back, a fresh write does not.
    assert written_trips == 2 and repeated_trips == 3
    stored = written["remember"]["interaction"]
    read = await caller.gql(
        f"query($id: ID!) {{ interaction(id: $id) {{ {INTERACTION_FIELDS} }} }}", {"id": stored["id"]}
    )
    assert stored == read["interaction"] == repeated["remember"]["interaction"]


async def test_remember_that_consolidates_acknowledges_the_interaction_as_consolidated(
    caller: Caller,
) -> None:
    acknowledged = []
    for day, text in enumerate(STORY[:3]):
        data = await caller.gql(REMEMBER_NODE, {"u": {"userId": "hal", **unit(text, day)}, "c": True})
        acknowledged.append(data["remember"])
    trigger = acknowledged[2]
    assert trigger["consolidation"]["action"] == "CREATED"
    assert trigger["interaction"]["consolidated"] is True and trigger["interaction"]["consolidatedAt"]
    assert all(not a["interaction"]["consolidated"] for a in acknowledged[:2])
