"""The queries the memory explorer needs, over HTTP against the real Neo4j: the viewer, the tenant's
users as a connection (paging, search, tenant isolation, bounds), what is still pending, and the
forget previews, which change nothing and announce exactly what the real forget then does."""

from __future__ import annotations

import uuid
from typing import Any

from graph.cypher import statement
from graph.database import Database
from tests.support.api import STORY, Caller, count_nodes, new_caller, tell_story, unit
from tests.support.graph_reads import USER_STATISTICS

USERS = """query($first: Int, $after: String, $search: String) {
  users(first: $first, after: $after, search: $search) {
    totalCount
    edges { cursor node { id createdAt } }
    nodes { id }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}"""

PREVIEW = """query($id: ID!) { forgetInteractionPreview(id: $id) {
  interactions { id } episodes { id } facts { id }
  rebuiltEpisodes { id } rebuiltFacts { id } restoredFacts { id status } } }"""

FORGET = """mutation($id: ID!) { forgetInteraction(id: $id) {
  interactionIds episodeIds factIds runIds rebuiltEpisodeIds rebuiltFactIds restoredFactIds } }"""

USER_PREVIEW = """query($id: ID!) {
  forgetUserPreview(id: $id) { userId interactions episodes facts runs } }"""


async def store(caller: Caller, user: str, texts: list[str]) -> list[str]:
    """Interaction ids of `texts`, remembered for `user` without consolidating."""
    data = await caller.gql(
        "mutation($u: ID!, $units: [UnitInput!]!) { rememberBatch(userId: $u, units: $units, consolidate: false) "
        "{ interactionId } }",
        {"u": user, "units": [unit(t, day) for day, t in enumerate(texts)]},
    )
    return [p["interactionId"] for p in data["rememberBatch"]]


async def snapshot(db: Database, tenant: str) -> dict[str, Any]:
    """Every node of the tenant with its labels and properties (vectors aside), and every edge."""
    nodes = await db.driver.execute_query(
        """MATCH (n) WHERE n.tenant = $tenant
           RETURN n.id AS id, labels(n) AS labels,
                  n {.*, embedding: null} AS props
           ORDER BY id""",
        tenant=tenant,
        database_=db.name,
    )
    edges = await db.driver.execute_query(
        """MATCH (a)-[r]->(b) WHERE a.tenant = $tenant
           RETURN a.id AS a, type(r) AS type, b.id AS b, properties(r) AS props
           ORDER BY a, type, b""",
        tenant=tenant,
        database_=db.name,
    )
    return {
        "nodes": [(r["id"], sorted(r["labels"]), r["props"]) for r in nodes.records],
        "edges": sorted(
            ((r["a"], r["type"], r["b"], r["props"]) for r in edges.records), key=lambda e: repr(e)
        ),
    }


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


def code(errors: list[dict[str, Any]]) -> str:
    return str(errors[0]["extensions"]["code"])


# -- viewer -----------------------------------------------------------------------------------------


async def test_viewer_is_the_keys_tenant(db: Database, caller: Caller) -> None:
    data = await caller.gql("{ viewer { tenantId tenantName } }")
    assert data["viewer"] == {"tenantId": caller.tenant, "tenantName": None}
    other = await new_caller(db, caller.http)
    assert (await other.gql("{ viewer { tenantId } }"))["viewer"]["tenantId"] == other.tenant


# -- users ------------------------------------------------------------------------------------------


async def test_users_pages_forward_in_id_order(db: Database, caller: Caller) -> None:
    names = ["u-03", "U-01", "u-02", "bob", "alice"]
    for name in names:
        await store(caller, name, ["hello there"])
    first = (await caller.gql(USERS, {"first": 2}))["users"]
    assert first["nodes"] == [{"id": "U-01"}, {"id": "alice"}]  # code-point order: upper case first
    assert all(e["node"]["createdAt"] for e in first["edges"])
    assert first["totalCount"] == 5
    assert first["pageInfo"]["hasNextPage"] and not first["pageInfo"]["hasPreviousPage"]
    assert first["pageInfo"]["endCursor"] == first["edges"][-1]["cursor"]
    assert "alice" not in first["pageInfo"]["endCursor"]  # opaque

    seen, after = ids(first["nodes"]), first["pageInfo"]["endCursor"]
    while True:
        page = (await caller.gql(USERS, {"first": 2, "after": after}))["users"]
        assert page["pageInfo"]["hasPreviousPage"]
        seen += ids(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == sorted(names) and len(page["nodes"]) == 1

    default = (await caller.gql("{ users { nodes { id } } }"))["users"]
    assert ids(default["nodes"]) == sorted(names)
    empty = (await caller.gql(USERS, {"first": 0}))["users"]
    assert empty["edges"] == [] and empty["pageInfo"]["hasNextPage"] and empty["totalCount"] == 5


async def test_users_search_is_case_insensitive_and_counted(caller: Caller) -> None:
    for name in ["u-03", "U-01", "u-02", "bob", "Ursula"]:
        await store(caller, name, ["hello there"])
    found = (await caller.gql(USERS, {"search": "U-0"}))["users"]
    assert ids(found["nodes"]) == ["U-01", "u-02", "u-03"] and found["totalCount"] == 3
    page = (await caller.gql(USERS, {"search": "u", "first": 2}))["users"]
    assert ids(page["nodes"]) == ["U-01", "Ursula"] and page["totalCount"] == 4
    rest = (await caller.gql(USERS, {"search": "u", "after": page["pageInfo"]["endCursor"]}))["users"]
    assert ids(rest["nodes"]) == ["u-02", "u-03"] and not rest["pageInfo"]["hasNextPage"]
    none = (await caller.gql(USERS, {"search": "zzz"}))["users"]
    assert none["nodes"] == [] and none["totalCount"] == 0 and none["pageInfo"]["endCursor"] is None
    everyone = (await caller.gql(USERS, {"search": ""}))["users"]
    assert everyone["totalCount"] == 5


async def test_users_never_lists_another_tenants_users(db: Database, caller: Caller) -> None:
    other = await new_caller(db, caller.http)
    await store(caller, "shared", ["mine"])
    await store(caller, "only-mine", ["mine"])
    await store(other, "shared", ["theirs"])
    await store(other, "only-theirs", ["theirs"])
    mine = (await caller.gql(USERS, {}))["users"]
    theirs = (await other.gql(USERS, {}))["users"]
    assert ids(mine["nodes"]) == ["only-mine", "shared"] and mine["totalCount"] == 2
    assert ids(theirs["nodes"]) == ["only-theirs", "shared"] and theirs["totalCount"] == 2
    assert (await caller.gql(USERS, {"search": "theirs"}))["users"]["totalCount"] == 0
    # A cursor from the other tenant's listing only positions; it shows nothing of theirs.
    cursor = theirs["edges"][0]["cursor"]
    after = (await caller.gql(USERS, {"after": cursor}))["users"]
    assert ids(after["nodes"]) == ["shared"]


async def test_users_refuses_bad_arguments(caller: Caller) -> None:
    for variables in ({"after": "not-a-cursor"}, {"after": "YWJj"}, {"first": 101}, {"first": -1}):
        errors = await caller.errors(USERS, variables)
        assert code(errors) == "BAD_USER_INPUT", (variables, errors)
    errors = await caller.errors(USERS, {"first": 101})
    assert "first must be between 0 and 100" in errors[0]["message"]
    errors = await caller.errors(USERS, {"search": "x" * 257})
    assert code(errors) == "BAD_USER_INPUT" and "256" in errors[0]["message"]


async def test_users_page_reads_only_its_own_index_entries(db: Database, caller: Caller) -> None:
    """10,000 users: a page costs about `first` index entries (the (tenant, id) index), not a scan."""
    tenant = caller.tenant
    await db.driver.execute_query(
        "UNWIND range(1, 10000) AS i CREATE (u:User {tenant: $tenant, id: 'user-' + right('0000' + i, 5)}) "
        "SET u += $statistics",
        statistics=USER_STATISTICS,
        tenant=tenant,
        database_=db.name,
    )
    # Another tenant's users must not be read either.
    await db.driver.execute_query(
        "UNWIND range(1, 5000) AS i CREATE (u:User {tenant: $tenant, id: 'user-' + right('0000' + i, 5)}) "
        "SET u += $statistics",
        statistics=USER_STATISTICS,
        tenant=f"t-{uuid.uuid4().hex[:12]}",
        database_=db.name,
    )

    async def hits(after_id: str | None) -> tuple[int, list[str]]:
        result = await db.driver.execute_query(
            "PROFILE " + statement("queries/browse/pages/users_forward"),
            tenant=tenant,
            after_id=after_id,
            search=None,
            limit=21,
            database_=db.name,
        )
        profile = result.summary.profile
        assert profile is not None

        def total(plan: dict[str, Any]) -> int:
            return int(plan.get("dbHits", 0)) + sum(total(child) for child in plan.get("children", []))

        return total(profile), [r["user"]["id"] for r in result.records]

    cost, first = await hits(None)
    assert first == [f"user-{i:05d}" for i in range(1, 22)]
    assert cost < 500, cost
    cost, middle = await hits("user-05000")
    assert middle[0] == "user-05001" and cost < 500, cost
    data = (await caller.gql(USERS, {"first": 3, "after": None, "search": "USER-0999"}))["users"]
    assert ids(data["nodes"]) == ["user-09990", "user-09991", "user-09992"] and data["totalCount"] == 10
    assert (await caller.gql("{ users(first: 1) { totalCount } }"))["users"]["totalCount"] == 10000


# -- pending ----------------------------------------------------------------------------------------

PENDING = """query($u: ID!) { user(id: $u) {
  stats { interactions consolidated pending }
  interactions { nodes { id text consolidated pending } } } }"""


async def test_pending_before_and_after_consolidation(caller: Caller) -> None:
    texts = [*STORY[:3], STORY[4]]  # a recurring topic, then a turn that recurs nowhere
    stored = await caller.gql(
        'mutation($units: [UnitInput!]!) { rememberBatch(userId: "dora", units: $units, consolidate: false) '
        "{ interaction { id pending } } }",
        {"units": [unit(t, day) for day, t in enumerate(texts)]},
    )
    assert all(p["interaction"]["pending"] for p in stored["rememberBatch"])
    before = (await caller.gql(PENDING, {"u": "dora"}))["user"]
    assert before["stats"] == {"interactions": 4, "consolidated": 0, "pending": 4}
    assert [n["pending"] for n in before["interactions"]["nodes"]] == [True] * 4
    recall = '{ recall(userId: "dora", query: "sushi") { subconscious { interaction { id pending } } } }'
    hits = (await caller.gql(recall))["recall"]["subconscious"]
    assert hits and all(h["interaction"]["pending"] for h in hits)

    await caller.gql('mutation { consolidate(userId: "dora") { action } }')
    after = (await caller.gql(PENDING, {"u": "dora"}))["user"]
    assert after["stats"] == {"interactions": 4, "consolidated": 3, "pending": 0}
    nodes = {n["text"]: n for n in after["interactions"]["nodes"]}
    # The lone turn was looked at by the gate and left unconsolidated: not pending any more.
    assert nodes[STORY[4]]["consolidated"] is False and nodes[STORY[4]]["pending"] is False
    assert all(n["pending"] is False for n in nodes.values())
    one = await caller.gql(
        "query($id: ID!) { interaction(id: $id) { pending } }", {"id": nodes[STORY[4]]["id"]}
    )
    assert one["interaction"]["pending"] is False


# -- forget previews --------------------------------------------------------------------------------


async def preview_then_forget(db: Database, caller: Caller, interaction_id: str) -> dict[str, Any]:
    """The preview (checked to change nothing), then the real forget, which must match it."""
    before = await snapshot(db, caller.tenant)
    counts = await count_nodes(db, caller.tenant)
    preview = (await caller.gql(PREVIEW, {"id": interaction_id}))["forgetInteractionPreview"]
    assert await count_nodes(db, caller.tenant) == counts
    assert await snapshot(db, caller.tenant) == before
    forgotten = (await caller.gql(FORGET, {"id": interaction_id}))["forgetInteraction"]
    assert await snapshot(db, caller.tenant) != before  # the snapshot does see a forget
    assert ids(preview["interactions"]) == forgotten["interactionIds"] == [interaction_id]
    assert ids(preview["episodes"]) == forgotten["episodeIds"]
    assert ids(preview["facts"]) == forgotten["factIds"]
    assert sorted(ids(preview["rebuiltEpisodes"])) == sorted(forgotten["rebuiltEpisodeIds"])
    assert sorted(ids(preview["rebuiltFacts"])) == sorted(forgotten["rebuiltFactIds"])
    assert sorted(ids(preview["restoredFacts"])) == sorted(forgotten["restoredFactIds"])
    return dict(preview)


async def test_preview_of_the_merge_turn_matches_the_forget(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
    preview = await preview_then_forget(db, caller, payloads[3]["interactionId"])
    assert ids(preview["episodes"]) == [merged["episodeId"]] and ids(preview["facts"]) == merged["factIds"]
    assert sorted(ids(preview["restoredFacts"])) == sorted(created["factIds"])
    # Shown as they are now: still superseded until the forget happens.
    assert {f["status"] for f in preview["restoredFacts"]} == {"SUPERSEDED"}


async def test_preview_of_a_source_turn_lists_the_rebuilds(db: Database, caller: Caller) -> None:
    payloads = await tell_story(caller)
    created, merged = payloads[2]["consolidation"], payloads[3]["consolidation"]
    preview = await preview_then_forget(db, caller, payloads[0]["interactionId"])
    assert preview["episodes"] == []
    assert set(ids(preview["rebuiltEpisodes"])) == {created["episodeId"], merged["episodeId"]}
    assert len(preview["facts"]) == 1 and preview["facts"][0]["id"] in created["factIds"]


async def test_previews_of_missing_or_foreign_nodes_are_null(db: Database, caller: Caller) -> None:
    other = await new_caller(db, caller.http)
    (theirs,) = await store(other, "alice", ["a secret of theirs"])
    for missing in (theirs, "int_doesnotexist"):
        response = await caller.post(PREVIEW, {"id": missing})
        assert response.json() == {"data": {"forgetInteractionPreview": None}}
    response = await caller.post(USER_PREVIEW, {"id": "alice"})
    assert response.json() == {"data": {"forgetUserPreview": None}}
    errors = await caller.errors(USER_PREVIEW, {"id": "x" * 300})
    assert code(errors) == "BAD_USER_INPUT"


async def test_user_preview_changes_nothing_and_matches_the_forget(db: Database, caller: Caller) -> None:
    await tell_story(caller)
    await store(caller, "bob", ["bob's only turn"])
    before = await snapshot(db, caller.tenant)
    preview = (await caller.gql(USER_PREVIEW, {"id": "alice"}))["forgetUserPreview"]
    assert await snapshot(db, caller.tenant) == before
    counts = await count_nodes(db, caller.tenant, "alice")
    assert preview == {
        "userId": "alice",
        "interactions": len(STORY),
        "episodes": counts["Episode"],
        "facts": counts["Fact"],
        "runs": counts["ConsolidationRun"],
    }
    assert preview["episodes"] >= 2 and preview["facts"] >= 4 and preview["runs"] >= 4
    forgotten = await caller.gql(
        'mutation { forgetUser(id: "alice") { userId interactions episodes facts runs } }'
    )
    assert forgotten["forgetUser"] == preview
    assert (await caller.gql(USER_PREVIEW, {"id": "bob"}))["forgetUserPreview"]["interactions"] == 1
    assert ids((await caller.gql(USERS, {}))["users"]["nodes"]) == ["bob"]
