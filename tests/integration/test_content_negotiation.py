"""Content negotiation and status codes per the GraphQL-over-HTTP spec.

No Accept header and `*/*` (curl's default) get `application/json`, whose request errors answer
HTTP 200 (the spec's legacy rules); `application/graphql-response+json` only when named, with 4xx
for request errors. The second half checks other MUST/SHOULD points of the spec over HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import httpx
import pytest

from api.responses import GRAPHQL_RESPONSE, JSON, negotiate
from tests.support.api import Caller

OFFICIAL = GRAPHQL_RESPONSE
ABSENT = None
# Accept sent -> the media type of the answer.
FOUR_CASES = [(ABSENT, JSON), ("*/*", JSON), (JSON, JSON), (OFFICIAL, OFFICIAL)]
REQUEST_ERRORS = {
    "syntax": "{ user(id: ",
    "validation": '{ user(id: "alice") { nope } }',
    "variable coercion": "query($id: ID!) { user(id: $id) { id } }",
}


async def _post(caller: Caller, accept: str | None, body: Mapping[str, object]) -> httpx.Response:
    """POST /graphql with exactly this Accept; None sends none (httpx adds `*/*` by default)."""
    request = caller.http.build_request(
        "POST", "/graphql", json=body, headers={"authorization": f"Bearer {caller.key}"}
    )
    del request.headers["accept"]
    if accept is not None:
        request.headers["accept"] = accept
    return await caller.http.send(request)


def _media(response: httpx.Response) -> str:
    return response.headers["content-type"].split(";")[0].strip()


@pytest.mark.parametrize(("accept", "media"), FOUR_CASES)
async def test_a_valid_query_answers_200_in_the_negotiated_type(
    caller: Caller, accept: str | None, media: str
) -> None:
    response = await _post(caller, accept, {"query": "{ __typename }"})
    assert response.status_code == 200
    assert _media(response) == media
    assert response.headers["content-type"].endswith("charset=utf-8")
    assert response.json() == {"data": {"__typename": "Query"}}


@pytest.mark.parametrize(("accept", "media"), FOUR_CASES)
@pytest.mark.parametrize("kind", sorted(REQUEST_ERRORS))
async def test_a_request_error_is_200_as_json_and_400_as_graphql_response(
    caller: Caller, accept: str | None, media: str, kind: str
) -> None:
    response = await _post(caller, accept, {"query": REQUEST_ERRORS[kind], "variables": {}})
    assert _media(response) == media
    assert response.status_code == (400 if media == OFFICIAL else 200), response.text
    body = response.json()
    assert "data" not in body and body["errors"], body
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


OPERATION_ERRORS: dict[str, tuple[dict[str, object], str]] = {
    "unknown operation": ({"query": "query A { __typename }", "operationName": "B"}, 'named "B"'),
    "several, none named": ({"query": "query A { __typename } query B { __typename }"}, "operationName"),
    "subscription over HTTP": (
        {"query": 'subscription { consolidations(userId: "u") { action } }'},
        "websocket",
    ),
}


@pytest.mark.parametrize(("accept", "media"), FOUR_CASES)
@pytest.mark.parametrize("kind", sorted(OPERATION_ERRORS))
async def test_a_document_that_names_no_runnable_operation_is_a_request_error(
    caller: Caller, accept: str | None, media: str, kind: str
) -> None:
    body, says = OPERATION_ERRORS[kind]
    response = await _post(caller, accept, body)
    assert _media(response) == media
    assert response.status_code == (400 if media == OFFICIAL else 200), response.text
    error = response.json()["errors"][0]
    assert "data" not in response.json() and says in error["message"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT" and error["extensions"]["requestId"]


async def test_a_named_operation_of_several_runs(caller: Caller) -> None:
    body = {"query": "query A { a: __typename } query B { b: __typename }", "operationName": "B"}
    response = await _post(caller, JSON, body)
    assert (response.status_code, response.json()) == (200, {"data": {"b": "Query"}})


async def test_a_field_error_with_partial_data_is_200_in_both_types(caller: Caller) -> None:
    query = '{ __typename fact(id: "fact_missing") { id } }'
    for accept in (JSON, OFFICIAL):
        response = await _post(caller, accept, {"query": query})
        assert response.status_code == 200, response.text
        assert response.json()["data"]["__typename"] == "Query"


@pytest.mark.parametrize("accept", ["text/html", "text/plain", "application/xml", "image/*"])
async def test_neither_json_type_acceptable_is_406_with_a_json_error(caller: Caller, accept: str) -> None:
    response = await _post(caller, accept, {"query": "{ __typename }"})
    assert response.status_code == 406
    assert _media(response) == JSON
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    ("accept", "media"),
    [
        # What the spec recommends clients send: the official type first.
        (f"{OFFICIAL}, {JSON};q=0.9", OFFICIAL),
        (f"{JSON}, {OFFICIAL}", OFFICIAL),  # equal q: the official type
        (f"{OFFICIAL};q=0.5, {JSON}", JSON),
        (f"{JSON};q=0.9, {OFFICIAL};q=0.9", OFFICIAL),
        (f"{OFFICIAL};q=0.1, */*", OFFICIAL),  # named, and json not named
        (f"text/html, {OFFICIAL};q=0.8", OFFICIAL),
        (f"text/html, {JSON};q=0.8", JSON),
        ("application/*", JSON),
        ("text/html, */*;q=0.1", JSON),
        (f"{JSON}; charset=utf-8", JSON),
        ("APPLICATION/GRAPHQL-RESPONSE+JSON", OFFICIAL),
        (f"{JSON};q=0, */*", OFFICIAL),  # json refused, the wildcard covers the other
        (f"{OFFICIAL};q=0, {JSON};q=0, */*", None),
        (f"{OFFICIAL};q=0", None),
        (f"{JSON};q=bogus", None),
        (f"{JSON};q=2", None),
        ("", JSON),
        ("   ", JSON),
        (None, JSON),
    ],
)
def test_negotiate_ranks_by_q(accept: str | None, media: str | None) -> None:
    assert negotiate(accept) == media


# -- other points of the GraphQL-over-HTTP spec ------------------------------------------------


async def test_get_runs_a_query_with_json_encoded_variables(caller: Caller) -> None:
    await caller.gql('mutation { remember(input: {userId: "alice", text: "hi"}) { created } }')
    params = {
        "query": "query Q($id: ID!) { user(id: $id) { id } }",
        "variables": json.dumps({"id": "alice"}),
        "operationName": "Q",
    }
    headers = {"authorization": f"Bearer {caller.key}", "accept": OFFICIAL}
    response = await caller.http.get("/graphql", params=params, headers=headers)
    assert response.status_code == 200 and _media(response) == OFFICIAL
    assert response.json() == {"data": {"user": {"id": "alice"}}}


async def test_a_mutation_over_get_is_405_and_not_executed(caller: Caller) -> None:
    mutation = 'mutation { remember(input: {userId: "via-get", text: "no"}) { created } }'
    headers = {"authorization": f"Bearer {caller.key}", "accept": OFFICIAL}
    response = await caller.http.get("/graphql", params={"query": mutation}, headers=headers)
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]
    never_stored = await caller.errors('{ user(id: "via-get") { id } }')
    assert never_stored[0]["extensions"]["code"] == "NOT_FOUND"


async def test_operation_name_selects_the_operation(caller: Caller) -> None:
    document = "query A { a: __typename } query B { b: __typename }"
    response = await _post(caller, OFFICIAL, {"query": document, "operationName": "B"})
    assert response.status_code == 200 and response.json() == {"data": {"b": "Query"}}
    unknown = await _post(caller, OFFICIAL, {"query": document, "operationName": "C"})
    assert unknown.status_code == 400 and "data" not in unknown.json()


async def test_post_takes_json_with_a_charset_and_refuses_other_bodies(caller: Caller) -> None:
    auth = {"authorization": f"Bearer {caller.key}", "accept": OFFICIAL}
    body = json.dumps({"query": "{ __typename }"}).encode()
    with_charset = await caller.http.post(
        "/graphql", content=body, headers={**auth, "content-type": "application/json; charset=utf-8"}
    )
    assert with_charset.status_code == 200
    for content_type in ("text/plain", "application/xml"):
        refused = await caller.http.post(
            "/graphql", content=body, headers={**auth, "content-type": content_type}
        )
        assert 400 <= refused.status_code < 500, (content_type, refused.status_code)
    not_json = await caller.http.post(
        "/graphql", content=b"{nope", headers={**auth, "content-type": "application/json"}
    )
    assert not_json.status_code == 400


async def test_a_request_without_a_document_is_400_in_both_types(caller: Caller) -> None:
    for accept in (JSON, OFFICIAL):
        response = await _post(caller, accept, {"variables": {}})
        assert response.status_code == 400, (accept, response.text)
        assert response.json()["errors"]
