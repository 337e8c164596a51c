"""Export and import of a user's memory (docs/export.md), on the session's Neo4j: a round trip
through forgetting gives the same file, the same recall and the same audit; a newer schema and a
malformed file are refused with nothing written; import is idempotent; another tenant's key never
downloads the user."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from api.services import Services
from consolidation.portability import Portability, UserExport, dump, parse
from consolidation.types import Budgets, Recall
from graph.database import Database
from graph.errors import InvalidInput
from graph.models import Owner
from tests.support.api import Caller, count_nodes, new_caller, tell_story

AUDIT = """query($id: ID!) { fact(id: $id) {
  text status validFrom validTo
  audit {
    episodes { episode { id title version } sources { similarity interaction { id text occurredAt } } }
    interactions { id text }
    supersedes { reason fact { id text } }
    supersededBy { reason fact { id text } }
    runs { op provider model promptTokens completionTokens at }
  }
  history { id text status validFrom validTo }
} }"""
QUERIES = ["Which cat did I adopt?", "What sushi does Alice like?", "What is the dog called?"]


def services_of(app: Starlette) -> Services:
    services = app.state.services
    assert isinstance(services, Services)
    return services


async def _graph(db: Database, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await db.driver.execute_query(query, params, database_=db.name)
    return [r.data() for r in result.records]


async def exported(portability: Portability, owner: Owner) -> list[dict[str, Any]]:
    return [line async for line in portability.export(owner)]


def content(lines: list[dict[str, Any]]) -> list[str]:
    """The lines as text, but for the header's export time."""
    header = {k: v for k, v in lines[0].items() if k != "exported_at"}
    return [dump(header), *(dump(line) for line in lines[1:])]


def as_file(lines: list[dict[str, Any]]) -> list[str]:
    return [dump(line) + "\n" for line in lines]


def recall_view(found: Recall) -> dict[str, Any]:
    assert found.context is not None
    hits = {
        layer: [(h.id, h.text, round(h.score, 6), round(h.rank_score, 6)) for h in hits]
        for layer, hits in (
            ("semantic", found.semantic),
            ("episodic", found.episodic),
            ("subconscious", found.subconscious),
        )
    }
    return {"hits": hits, "context": found.context.text, "tokens": found.context.tokens}


async def observe(services: Services, caller: Caller, owner: Owner) -> dict[str, Any]:
    """What recall and the audit answer about the user."""
    recalls = [
        recall_view(
            await services.engine.recall(
                owner, q, budgets=Budgets(10, 5, 10), tokens=120, include_consolidated=True
            )
        )
        for q in QUERIES
    ]
    facts = await _graph(
        services.storage.db,
        "MATCH (f:Fact {tenant: $t, user_id: $u}) RETURN f.id AS id ORDER BY id",
        t=owner.tenant,
        u=owner.user_id,
    )
    audits = {f["id"]: unordered(await caller.gql(AUDIT, {"id": f["id"]})) for f in facts}
    assert audits
    return {"recall": recalls, "audit": audits}


def unordered(value: Any) -> Any:
    """The audit's lists as sorted lists: they promise their members, not an order (the order of
    a node's edges in the store, which an import need not repeat)."""
    if isinstance(value, dict):
        return {k: unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((unordered(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


LONG_TURN = (
    " ".join(
        f"On day {n} of the trip I walked along the harbour and wrote notes about the boats."
        for n in range(40)
    )
    + " At the very end I finally adopted a grey cat called Pebble."
)


async def _parts(db: Database, owner: Owner) -> list[tuple[int, int]]:
    rows = await _graph(
        db,
        "MATCH (:Interaction {tenant: $t, user_id: $u})-[:HAS_PART]->(p:InteractionPart) "
        "RETURN p.start AS start, p.end AS end ORDER BY start",
        t=owner.tenant,
        u=owner.user_id,
    )
    return [(r["start"], r["end"]) for r in rows]


async def _lexical_statistics(db: Database, owner: Owner) -> dict[str, Any]:
    """What the write path keeps on the user node for per-user BM25 (graph/lexical.py), and its
    count of long interactions (recall/dense.cypher reads parts only when it is not 0)."""
    rows = await _graph(
        db, "MATCH (u:User {tenant: $t, id: $u}) RETURN properties(u) AS p", t=owner.tenant, u=owner.user_id
    )
    return {k: v for k, v in rows[0]["p"].items() if k.startswith("lex_") or k == "long_interactions"}


async def story_user(db: Database, caller: Caller) -> Owner:
    """The story (an episode, a merge, a superseded fact), then its active fact corrected and the
    correction retracted through the API, so the file holds a person's changes and their runs."""
    payloads = await tell_story(caller)
    assert any(p["consolidation"] and p["consolidation"]["supersededFactIds"] for p in payloads)
    owner = Owner(caller.tenant, "alice")
    active = await _graph(
        db,
        "MATCH (f:Fact {tenant: $t, user_id: $u, status: 'active'}) RETURN f.id AS id ORDER BY id LIMIT 1",
        t=owner.tenant,
        u=owner.user_id,
    )
    assert active
    corrected = await caller.gql(
        'mutation($id: ID!) { correctFact(id: $id, text: "Alice loves eel.", reason: "typo") { written fact { id } } }',
        {"id": active[0]["id"]},
    )
    retracted = await caller.gql(
        'mutation($id: ID!) { retractFact(id: $id, reason: "the user said it was wrong") { written } }',
        {"id": corrected["correctFact"]["fact"]["id"]},
    )
    assert corrected["correctFact"]["written"] and retracted["retractFact"]["written"]
    # A long turn, searched in parts (docs/design/long-turns.md): an import must make them again.
    said = await caller.gql(
        'mutation($text: String!) { remember(input: {userId: "alice", speaker: "alice", text: $text,'
        ' occurredAt: "2024-05-20T09:00:00Z"}, consolidate: false) { created } }',
        {"text": LONG_TURN},
    )
    assert said["remember"]["created"]
    return owner


async def test_export_forget_import_gives_the_same_memory(
    db: Database, api_app: Starlette, caller: Caller
) -> None:
    services = services_of(api_app)
    portability = services.portability
    owner = await story_user(db, caller)
    before = await exported(portability, owner)
    seen = await observe(services, caller, owner)
    header = before[0]
    kinds = {line["kind"] for line in before[1:]}
    assert header["schema_version"] == 1 and kinds == {"node", "edge"}
    labels = {line["labels"][0] for line in before if line["kind"] == "node"}
    assert {"Interaction", "Episode", "Fact", "ConsolidationRun", "ConsolidationEvent"} <= labels
    types = {line["type"] for line in before if line["kind"] == "edge"}
    assert {"DERIVED_FROM", "SUPERSEDES", "NEXT", "READ", "PRODUCED"} <= types
    assert not any("embedding" in line.get("properties", {}) for line in before[1:])
    retracted = [line for line in before if line.get("properties", {}).get("status") == "retracted"]
    assert len(retracted) == 1 and retracted[0]["properties"]["valid_to"]
    person_runs = [line["properties"] for line in before if line.get("labels") == ["ConsolidationRun"]]
    assert {(r["trigger"], r.get("reason")) for r in person_runs} >= {
        ("correction", "typo"),
        ("retraction", "the user said it was wrong"),
    }
    counts_before = await count_nodes(db, owner.tenant, owner.user_id)
    events_before = (await services.engine.stores.events.latest(owner)).seq
    assert events_before > 0

    statistics = await _lexical_statistics(db, owner)
    parts = await _parts(db, owner)
    assert len(parts) > 2
    assert not any(line.get("labels") == ["InteractionPart"] for line in before)
    assert statistics and all(value is not None for value in statistics.values())
    assert statistics["long_interactions"] == 1
    await services.forgetter.forget_user(owner)
    assert await count_nodes(db, owner.tenant, owner.user_id) == {}

    report = await portability.import_user(parse(as_file(before)), owner)
    assert not report.rekeyed and report.reembedded == sum(
        header["counts"]["nodes"].get(label, 0) for label in ("Interaction", "Episode", "Fact")
    )
    after = await exported(portability, owner)
    assert content(after) == content(before)
    assert await count_nodes(db, owner.tenant, owner.user_id) == counts_before
    assert await _lexical_statistics(db, owner) == statistics
    assert await _parts(db, owner) == parts
    assert await observe(services, caller, owner) == seen
    # The event log goes on from the same sequence.
    assert (await services.engine.stores.events.latest(owner)).seq == events_before

    # Idempotent: the same file again changes nothing.
    await portability.import_user(parse(as_file(before)), owner)
    assert content(await exported(portability, owner)) == content(before)
    assert await count_nodes(db, owner.tenant, owner.user_id) == counts_before
    assert await observe(services, caller, owner) == seen

    # The stream goes on where it was: the next remember gets the next seq, chained after the last.
    last = max(line["properties"]["seq"] for line in before if line.get("labels") == ["Interaction"])
    more = await caller.gql(
        'mutation { remember(input: {userId: "alice", speaker: "alice", text: "I moved to Oslo.", '
        'occurredAt: "2024-06-01T09:00:00Z"}) { interaction { seq } } }'
    )
    assert more["remember"]["interaction"]["seq"] == last + 1


async def test_an_import_into_another_tenant_rekeys_and_recalls_the_same(
    db: Database, api_app: Starlette, caller: Caller, client: httpx.AsyncClient
) -> None:
    services = services_of(api_app)
    portability = services.portability
    owner = await story_user(db, caller)
    lines = await exported(portability, owner)
    other = await new_caller(db, client)
    target = Owner(other.tenant, "bob")

    report = await portability.import_user(parse(as_file(lines)), target)
    assert report.rekeyed
    copied = await exported(portability, target)
    source_ids = {line["id"] for line in lines if line["kind"] == "node"}
    copied_ids = {line["id"] for line in copied if line["kind"] == "node"}
    assert len(copied_ids) == len(source_ids) and not copied_ids & source_ids
    assert copied[0]["counts"] == lines[0]["counts"]
    # Texts, statuses and times came along; only the ids differ.
    assert sorted(line["properties"].get("text", "") for line in copied if line["kind"] == "node") == sorted(
        line["properties"].get("text", "") for line in lines if line["kind"] == "node"
    )
    mine = await services.engine.recall(owner, QUERIES[0], tokens=120, include_consolidated=True)
    theirs = await services.engine.recall(target, QUERIES[0], tokens=120, include_consolidated=True)
    assert [h.text for h in theirs.all_hits()] == [h.text for h in mine.all_hits()]
    assert theirs.context is not None and mine.context is not None
    assert theirs.context.text == mine.context.text
    # Again: the same ids, nothing doubled; the source user is untouched.
    await portability.import_user(parse(as_file(lines)), target)
    assert content(await exported(portability, target))[1:] == content(copied)[1:]
    assert content(await exported(portability, owner)) == content(lines)


async def test_a_newer_schema_or_a_bad_line_is_refused_and_writes_nothing(
    db: Database, api_app: Starlette, caller: Caller
) -> None:
    portability = services_of(api_app).portability
    owner = await story_user(db, caller)
    lines = await exported(portability, owner)
    target = Owner(f"t-{uuid.uuid4().hex[:12]}", "carol")

    newer = [{**lines[0], "schema_version": 2}, *lines[1:]]
    with pytest.raises(InvalidInput, match="schema version 2, newer than"):
        parse(as_file(newer))
    bad_value = [*lines[:-1], {**lines[-1], "properties": {"at": {"$datetime": "yesterday"}}}]
    missing = [lines[0], *[line for line in lines[1:] if line["kind"] == "edge"]]
    for broken, message in (
        ([*as_file(lines[:3]), "{not json\n", *as_file(lines[3:])], "line 4: not JSON"),
        (as_file(bad_value), "does not parse"),
        (as_file(lines[:-1]), "incomplete or was changed"),
        (as_file(missing), "which the file lacks"),
        (as_file([lines[0], {**lines[1], "labels": ["User"]}]), "not a memory node"),
    ):
        with pytest.raises(InvalidInput, match=message):
            parse(broken)
    assert await count_nodes(db, target.tenant) == {}

    # A target user that holds other memory is refused before anything is written.
    occupied = Owner(caller.tenant, "dave")
    await tell_story(caller, user="dave")
    held = await count_nodes(db, occupied.tenant, occupied.user_id)
    with pytest.raises(InvalidInput, match="holds"):
        await portability.import_user(parse(as_file(lines)), occupied)
    assert await count_nodes(db, occupied.tenant, occupied.user_id) == held


async def test_the_download_serves_the_keys_tenant_only(
    db: Database, api_app: Starlette, caller: Caller, client: httpx.AsyncClient
) -> None:
    owner = await story_user(db, caller)
    url = (await caller.gql('{ user(id: "alice") { exportUrl } }'))["user"]["exportUrl"]
    assert url == "/export?user=alice"
    response = await client.get(url, headers={"authorization": f"Bearer {caller.key}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    downloaded = parse(response.text.splitlines())
    assert isinstance(downloaded, UserExport)
    expected = await exported(services_of(api_app).portability, owner)
    assert content([json.loads(line) for line in response.text.splitlines()]) == content(expected)

    # Another tenant's key: the same user id is unknown there, whatever this tenant holds.
    other = await new_caller(db, client)
    refused = await client.get(url, headers={"authorization": f"Bearer {other.key}"})
    assert refused.status_code == 404
    assert refused.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert "sushi" not in refused.text
    # ... and once it has a user of that id, it gets its own, never this tenant's.
    await other.gql(
        'mutation { remember(input: {userId: "alice", speaker: "alice", text: "Hello there.", '
        'occurredAt: "2024-05-01T09:00:00Z"}) { created } }'
    )
    theirs = await client.get(url, headers={"authorization": f"Bearer {other.key}"})
    assert theirs.status_code == 200 and "sushi" not in theirs.text
    assert parse(theirs.text.splitlines()).header.owner == Owner(other.tenant, "alice")
    # No key, a bad parameter, another method.
    assert (await client.get(url)).status_code == 401
    bad = await client.get("/export", headers={"authorization": f"Bearer {caller.key}"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    posted = await client.post(url, headers={"authorization": f"Bearer {caller.key}"})
    assert posted.status_code == 405


async def test_a_repeated_user_parameter_is_refused(caller: Caller, client: httpx.AsyncClient) -> None:
    """Not the last (or first) value silently: a download of the wrong user is worse than none."""
    await tell_story(caller, user="alice")
    await tell_story(caller, user="bob")
    response = await client.get(
        "/export?user=alice&user=bob", headers={"authorization": f"Bearer {caller.key}"}
    )
    assert response.status_code == 400, response.text
    (error,) = response.json()["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "`user`" in error["message"] and "once" in error["message"], error


async def test_a_user_whose_turns_were_all_forgotten_downloads_an_empty_export(
    caller: Caller, client: httpx.AsyncClient
) -> None:
    """The user stays (the API answers it, with its exportUrl) until forgetUser: its download is
    a header with no lines, not a 404."""
    said = await caller.gql(
        'mutation { remember(input: {userId: "erin", text: "Hello there."}, consolidate: false) {'
        " interactionId } }"
    )
    await caller.gql(
        "mutation($id: ID!) { forgetInteraction(id: $id) { interactionIds } }",
        {"id": said["remember"]["interactionId"]},
    )
    user = (await caller.gql('{ user(id: "erin") { exportUrl stats { interactions } } }'))["user"]
    assert user["stats"]["interactions"] == 0
    response = await client.get(user["exportUrl"], headers={"authorization": f"Bearer {caller.key}"})
    assert response.status_code == 200, response.text
    downloaded = parse(response.text.splitlines())
    assert isinstance(downloaded, UserExport)
    assert downloaded.header.owner == Owner(caller.tenant, "erin")
    assert response.text.count("\n") == 1  # the header alone


async def test_a_refused_import_counts_in_words_that_agree(
    db: Database, api_app: Starlette, caller: Caller
) -> None:
    """One id held by another user, one node the target holds: "1 id", "1 node" (it said "1 ids
    of the file belong", "holds 1 nodes"), and nothing is written."""
    portability = services_of(api_app).portability
    said = await caller.gql(
        'mutation { remember(input: {userId: "erin", speaker: "erin", text: "I keep bees.",'
        ' occurredAt: "2024-05-01T09:00:00Z"}, consolidate: false) { created } }'
    )
    assert said["remember"]["created"]
    erin, frank = Owner(caller.tenant, "erin"), Owner(caller.tenant, "frank")
    lines = await exported(portability, erin)
    assert lines[0]["counts"] == {"nodes": {"Interaction": 1}, "edges": {}}
    # The file as if exported from frank: not re-keyed, so its one id is erin's.
    as_frank = [{**lines[0], "owner": {"tenant": frank.tenant, "user_id": frank.user_id}}, *lines[1:]]
    with pytest.raises(InvalidInput) as refused:
        await portability.import_user(parse(as_file(as_frank)), frank)
    assert str(refused.value).startswith("another user holds 1 id of the file, e.g. "), refused.value
    # Another node for erin, who holds one the file does not.
    other = [lines[0], {**lines[1], "id": "int_other"}]
    with pytest.raises(InvalidInput) as refused:
        await portability.import_user(parse(as_file(other)), erin)
    assert "holds 1 node this file does not" in str(refused.value), refused.value
    assert await count_nodes(db, caller.tenant, "frank") == {}
    assert (await count_nodes(db, caller.tenant, "erin"))["Interaction"] == 1
