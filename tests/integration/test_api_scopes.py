"""Scopes and metadata through the API: stored as sent, refused whole when invalid."""

from __future__ import annotations

from graph.database import Database
from tests.support.api import REMEMBER_BATCH, Caller, count_nodes, unit

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
