"""The user's lexical statistics, kept at write time, equal a recount after every kind of change."""

from __future__ import annotations

from typing import Any

from graph.database import Database
from graph.lexical import length
from tests.support.api import Caller, tell_story

FORGET = "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds rebuiltEpisodeIds } }"
LAYERS = {
    "interactions": ("Interaction", "text"),
    "episodes": ("Episode", "summary"),
    "facts": ("Fact", "text"),
}


async def _rows(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def _kept(db: Database, tenant: str, user: str) -> dict[str, tuple[int, int]]:
    rows = await _rows(
        db, "MATCH (u:User {tenant: $tenant, id: $user}) RETURN properties(u) AS u", tenant=tenant, user=user
    )
    u = rows[0]["u"]
    return {layer: (u[f"lex_{layer}"], u[f"lex_{layer}_length"]) for layer in LAYERS}


async def _recounted(db: Database, tenant: str, user: str) -> dict[str, tuple[int, int]]:
    counts = {}
    for layer, (label, field) in LAYERS.items():
        rows = await _rows(
            db,
            "MATCH (n) WHERE $label IN labels(n) AND n.tenant = $tenant AND n.user_id = $user "
            "RETURN n[$field] AS text",
            label=label,
            field=field,
            tenant=tenant,
            user=user,
        )
        counts[layer] = (len(rows), sum(length(r["text"]) for r in rows))
    return counts


async def test_statistics_match_a_recount_after_writes_merges_supersessions_and_forgets(
    db: Database, caller: Caller
) -> None:
    payloads = await tell_story(caller)
    kept = await _kept(db, caller.tenant, "alice")
    assert kept == await _recounted(db, caller.tenant, "alice")
    # The story wrote turns, merged an episode into a second version and superseded facts.
    assert kept["interactions"][0] == len(payloads) and kept["episodes"][0] >= 2 and kept["facts"][0] >= 2
    superseded = await _rows(
        db, "MATCH (f:Fact {tenant: $tenant, status: 'superseded'}) RETURN f.id AS id", tenant=caller.tenant
    )
    assert superseded

    # A person's changes: a correction writes a fact, an addition another, a retraction none.
    active = await _rows(
        db, "MATCH (f:Fact {tenant: $tenant, status: 'active'}) RETURN f.id AS id", tenant=caller.tenant
    )
    await caller.gql(
        'mutation($id: ID!) { correctFact(id: $id, text: "Alice loves eel.", reason: "r") { written } }',
        {"id": active[0]["id"]},
    )
    await caller.gql('mutation { addFact(userId: "alice", text: "Alice sings.", kind: OTHER) { written } }')
    changed = await _kept(db, caller.tenant, "alice")
    assert changed == await _recounted(db, caller.tenant, "alice")
    assert changed["facts"][0] == kept["facts"][0] + 2

    turns = [p["interactionId"] for p in payloads]
    rebuilt = []
    for turn in (turns[3], turns[0], turns[1]):
        rebuilt += (await caller.gql(FORGET, {"id": turn}))["forgetInteraction"]["rebuiltEpisodeIds"]
        after = await _kept(db, caller.tenant, "alice")
        assert after == await _recounted(db, caller.tenant, "alice")
    assert after["interactions"][0] == len(payloads) - 3 and after != kept
    assert rebuilt  # a surviving episode's summary was rewritten, and its words recounted
