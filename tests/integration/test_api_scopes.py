"""Scopes and metadata through the API: stored as sent, refused whole when invalid."""

from __future__ import annotations

from graph.database import Database
from tests.support.api import REMEMBER_BATCH, STORY, Caller, count_nodes, unit

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
