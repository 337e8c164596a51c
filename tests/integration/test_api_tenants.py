"""Tenant isolation: every query and mutation with another tenant's ids answers exactly like ids
that do not exist (NOT_FOUND), and changes nothing of the other tenant."""

from __future__ import annotations

import re
from typing import Any

from graph.database import Database
from tests.support.api import Caller, count_nodes, new_caller, tell_story

BY_ID = {
    "fact": "query($id: ID!) { fact(id: $id) { id text } }",
    "episode": "query($id: ID!) { episode(id: $id) { id summary } }",
    "interaction": "query($id: ID!) { interaction(id: $id) { id text } }",
    "consolidationRun": "query($id: ID!) { consolidationRun(id: $id) { id model } }",
    "node": "query($id: ID!) { node(id: $id) { id } }",
    "forgetInteraction": "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }",
    "correctFact": 'mutation($id: ID!) { correctFact(id: $id, text: "x", reason: "r") { written } }',
    "retractFact": 'mutation($id: ID!) { retractFact(id: $id, reason: "r") { written } }',
}
BY_USER = {
    "user": "query($id: ID!) { user(id: $id) { id stats { interactions } } }",
    "recall": 'query($id: ID!) { recall(userId: $id, query: "sushi") { semantic { score } } }',
    "answer": 'query($id: ID!) { answer(userId: $id, question: "What is the dog called?") { text } }',
    # A filter names scopes, never a tenant: it cannot reach another tenant's user either.
    "recallFiltered": (
        'query($id: ID!) { recall(userId: $id, query: "sushi", filter: {speakers: ["alice"], '
        'metadata: [{key: "topic", anyOf: ["sushi"]}]}) { semantic { score } } }'
    ),
    "answerFiltered": (
        'query($id: ID!) { answer(userId: $id, question: "What is the dog called?", '
        'filter: {speakers: ["alice"]}) { text } }'
    ),
    "consolidate": "mutation($id: ID!) { consolidate(userId: $id) { action } }",
    "forgetUser": "mutation($id: ID!) { forgetUser(id: $id) { userId } }",
    "addFact": 'mutation($id: ID!) { addFact(userId: $id, text: "x", kind: OTHER) { written } }',
}


def _shape(errors: list[dict[str, Any]], node_id: str) -> tuple[str, str, str]:
    """What a caller can observe of an error, with the id itself blanked out."""
    error = errors[0]
    message = error["message"].replace(node_id, "<id>")
    return (
        error["extensions"]["code"],
        re.sub(r"\b(fact|episode|interaction|node|consolidation run)\b", "<kind>", message),
        str(error.get("path")),
    )


async def test_another_tenants_ids_are_not_found(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    owner_before = await count_nodes(db, caller.tenant)
    runs = await caller.gql('{ user(id: "alice") { consolidationRuns(first: 1) { nodes { id } } } }')
    merged = payloads[3]["consolidation"]
    foreign = {
        "fact": merged["factIds"][0],
        "episode": merged["episodeId"],
        "interaction": payloads[0]["interactionId"],
        "consolidationRun": runs["user"]["consolidationRuns"]["nodes"][0]["id"],
    }
    foreign["correctFact"] = foreign["retractFact"] = foreign["fact"]
    intruder = await new_caller(db, caller.http)
    for field, query in BY_ID.items():
        targets = (
            list(foreign.values()) if field in ("node",) else [foreign.get(field, foreign["interaction"])]
        )
        for node_id in targets:
            missing_id = node_id[: node_id.index("_") + 1] + "0" * 32
            seen = await intruder.errors(query, {"id": node_id})
            missing = await intruder.errors(query, {"id": missing_id})
            assert seen[0]["extensions"]["code"] == "NOT_FOUND", (field, seen)
            assert _shape(seen, node_id) == _shape(missing, missing_id), field
    for field, query in BY_USER.items():
        seen = await intruder.errors(query, {"id": "alice"})
        missing = await intruder.errors(query, {"id": "nobody-at-all"})
        assert seen[0]["extensions"]["code"] == "NOT_FOUND", (field, seen)
        assert _shape(seen, "alice") == _shape(missing, "nobody-at-all"), field
    # Nothing of the owner changed, and the owner still sees everything.
    assert await count_nodes(db, caller.tenant) == owner_before
    for node_id in foreign.values():
        assert (await caller.gql(BY_ID["node"], {"id": node_id}))["node"]["id"] == node_id


async def test_remember_with_a_foreign_user_id_stays_in_the_callers_tenant(
    db: Database, caller: Caller
) -> None:
    await tell_story(caller)
    owner_before = await count_nodes(db, caller.tenant)
    intruder = await new_caller(db, caller.http)
    data = await intruder.gql(
        'mutation { remember(input: {userId: "alice", text: "I love sushi with salmon and wasabi."}) '
        "{ seq interaction { id } } }"
    )
    assert data["remember"]["seq"] == 1  # a new, separate "alice" of the intruder's tenant
    assert await count_nodes(db, caller.tenant) == owner_before
    assert (await count_nodes(db, intruder.tenant, "alice"))["Interaction"] == 1
    recall = await intruder.gql('{ recall(userId: "alice", query: "sushi", includeConsolidated: true) '
                                "{ subconscious { interaction { id } } semantic { score } } }")  # fmt: skip
    assert [h["interaction"]["id"] for h in recall["recall"]["subconscious"]] == [
        data["remember"]["interaction"]["id"]
    ]
    assert recall["recall"]["semantic"] == []
