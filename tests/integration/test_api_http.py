"""GraphQL over HTTP: health, content negotiation, status codes, authentication, SDL export."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import graphql
import httpx
import pytest
import strawberry.schema.schema
from graphql import DocumentNode, GraphQLObjectType, build_schema

import api.schema.documents
from api.auth import Authenticator
from api.schema import sdl
from api.schema.__main__ import SDL_FILE
from consolidation.forgetting.keys import AccessKeys
from graph.database import Database
from tests.support.api import Caller, new_caller

PING = "query($id: ID!) { user(id: $id) { id } }"


def test_sdl_file_matches_the_code() -> None:
    assert SDL_FILE.read_text(encoding="utf-8") == sdl(), "run `python -m api.schema` and commit the file"


@pytest.mark.parametrize(
    ("listing", "noun", "node"),
    [
        ("interactions", "interactions", "Interaction"),
        ("episodes", "episodes", "Episode"),
        ("facts", "facts", "Fact"),
        ("consolidationRuns", "consolidation runs", "ConsolidationRun"),
    ],
)
def test_each_listing_documents_its_own_window(listing: str, noun: str, node: str) -> None:
    """A listing's time window applies to a field of its own nodes, and its arguments say which."""
    schema = build_schema(sdl())
    user, item = schema.type_map["User"], schema.type_map[node]
    assert isinstance(user, GraphQLObjectType) and isinstance(item, GraphQLObjectType)
    arguments = user.fields[listing].args
    names = list(arguments)
    assert names[:4] == ["first", "after", "last", "before"] and names[-2:] == ["since", "until"]
    since = arguments["since"].description or ""
    time_field = since.split(" whose ")[1].split(" ")[0]
    assert time_field in item.fields, f"{listing}'s window names {time_field}, which {node} lacks"
    assert since == f"Only {noun} whose {time_field} is at or after this time."
    assert arguments["until"].description == f"Only {noun} whose {time_field} is before this time."
    assert all(noun in (arguments[name].description or "").lower() for name in ("first", "last"))


async def test_health_and_readiness(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


async def test_graphiql_page_for_browsers(client: httpx.AsyncClient) -> None:
    page = await client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"] and "graphiql" in page.text.lower()


async def test_content_negotiation_and_request_errors(caller: Caller) -> None:
    await caller.gql('mutation { remember(input: {userId: "u", text: "hello"}) { created } }')
    official = await caller.post(PING, {"id": "u"}, accept="application/graphql-response+json")
    assert official.status_code == 200
    assert official.headers["content-type"].startswith("application/graphql-response+json")
    legacy = await caller.post(PING, {"id": "u"}, accept="application/json")
    assert legacy.headers["content-type"].startswith("application/json")
    # A validation error is a request error: no `data`, 400 with the official type, 200 with legacy.
    bad = await caller.post('{ user(id: "u") { nope } }', accept="application/graphql-response+json")
    assert bad.status_code == 400 and "data" not in bad.json()
    assert bad.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    bad_legacy = await caller.post('{ user(id: "u") { nope } }', accept="application/json")
    assert bad_legacy.status_code == 200 and "data" not in bad_legacy.json()
    refused = await caller.post(PING, {"id": "u"}, accept="text/plain")
    assert refused.status_code == 406
    assert "x-request-id" in official.headers


async def test_get_runs_queries_but_not_mutations(caller: Caller) -> None:
    headers = {"authorization": f"Bearer {caller.key}", "accept": "application/json"}
    query = await caller.http.get("/graphql", params={"query": "{ __typename }"}, headers=headers)
    assert query.status_code == 200 and query.json() == {"data": {"__typename": "Query"}}
    mutation = 'mutation { remember(input: {userId: "u", text: "via get"}) { created } }'
    refused = await caller.http.get("/graphql", params={"query": mutation}, headers=headers)
    assert refused.status_code == 405
    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    "query_string",
    [
        "query=%7B__typename%7D&query=%7Bx%7D",
        "query=query%28%24a%3AInt%29%7B__typename%7D&variables=%7B%7D&variables=%7B%22a%22%3A1%7D",
        "query=query+A%7B__typename%7D+query+B%7B__typename%7D&operationName=A&operationName=B",
    ],
)
async def test_a_repeated_get_parameter_is_refused(caller: Caller, query_string: str) -> None:
    headers = {"authorization": f"Bearer {caller.key}", "accept": "application/json"}
    response = await caller.http.get(f"/graphql?{query_string}", headers=headers)
    assert response.status_code == 400, response.text
    (error,) = response.json()["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    name = query_string.rsplit("&", 1)[1].split("=")[0]
    assert f"`{name}`" in error["message"], error


async def test_malformed_http_requests_are_4xx(caller: Caller) -> None:
    auth = {"authorization": f"Bearer {caller.key}"}
    not_json = await caller.http.post(
        "/graphql", content=b"{not json", headers={**auth, "content-type": "application/json"}
    )
    assert not_json.status_code == 400
    no_query = await caller.http.post("/graphql", json={"variables": {}}, headers=auth)
    assert no_query.status_code == 400
    wrong_type = await caller.http.post(
        "/graphql", content=b"query", headers={**auth, "content-type": "text/plain"}
    )
    assert wrong_type.status_code == 400
    put = await caller.http.put("/graphql", json={"query": "{ __typename }"}, headers=auth)
    assert put.status_code == 405
    for response in (not_json, no_query, wrong_type, put):
        assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_missing_bad_and_revoked_keys_get_401(db: Database, client: httpx.AsyncClient) -> None:
    body = {"query": "{ __typename }"}
    assert (await client.post("/graphql", json=body)).status_code == 401
    for header in ("Bearer rmk_not-a-real-key", "Basic dXNlcjpwdw==", "Bearer"):
        response = await client.post("/graphql", json=body, headers={"authorization": header})
        assert response.status_code == 401
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert response.headers["www-authenticate"].startswith("Bearer")
    caller = await new_caller(db, client)
    assert (await caller.post("{ __typename }")).status_code == 200
    keys = AccessKeys(db)
    key_id = next(k.id for k in await keys.list(caller.tenant))
    await keys.revoke(key_id)
    revoked = await caller.post("{ __typename }")
    assert revoked.status_code == 401


async def test_keys_are_stored_only_as_hashes(db: Database) -> None:
    issued = await AccessKeys(db).create("t-hash-check", "x")
    result = await db.driver.execute_query(
        "MATCH (k:ApiKey {id: $id}) RETURN properties(k) AS p", id=issued.key.id, database_=db.name
    )
    stored = result.records[0]["p"]
    assert issued.secret not in {str(v) for v in stored.values()}
    assert len(stored["hash"]) == 64 and stored["prefix"] == issued.secret[:10]


async def test_a_cached_key_is_refused_once_its_lookup_expires(db: Database) -> None:
    keys = AccessKeys(db)
    issued = await keys.create(f"t-{uuid.uuid4().hex[:12]}", "cached")
    authenticator = Authenticator(keys, cache_s=0.5)
    assert (await authenticator.authenticate(issued.secret)) is not None
    await keys.revoke(issued.key.id)
    # Within the window the process still trusts its lookup; after it, Neo4j is asked again.
    assert (await authenticator.authenticate(issued.secret)) is not None
    await asyncio.sleep(0.6)
    assert (await authenticator.authenticate(issued.secret)) is None
    assert (await Authenticator(keys, cache_s=0.0).authenticate(issued.secret)) is None


async def test_a_document_sent_again_is_not_parsed_again(
    caller: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endpoint (to pick the operation) and strawberry share one parse per document text; a
    text that does not parse still gets its located syntax error every time."""
    parsed: list[str] = []

    def counting(parse: Callable[..., DocumentNode]) -> Callable[..., DocumentNode]:
        def wrapper(source: str, **options: Any) -> DocumentNode:
            parsed.append(source)
            return parse(source, **options)

        return wrapper

    # Both modules call graphql's parse, each by its own name.
    monkeypatch.setattr(api.schema.documents, "parse", counting(graphql.parse))
    monkeypatch.setattr(strawberry.schema.schema, "parse", counting(graphql.parse))
    document = f"query Once{uuid.uuid4().hex} {{ __typename }}"
    for _ in range(3):
        assert await caller.gql(document) == {"__typename": "Query"}
    assert parsed.count(document) == 1
    broken = f"query Broken{uuid.uuid4().hex} {{"
    for _ in range(2):
        (error,) = await caller.errors(broken)
        assert error["message"].startswith("Syntax Error") and error["locations"], error
