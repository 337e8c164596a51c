"""HTTP bodies and headers: JSON bodies, and their damage (malformed JSON, invalid UTF-8, lone
surrogates, wrong content types, oversized bodies)."""

from __future__ import annotations

import json
import random

from bench.fuzz.case import Headers
from bench.fuzz.values import Json


def json_body(document: str, variables: dict[str, Json] | None, operation: str | None = None) -> bytes:
    payload: dict[str, Json] = {"query": document}
    if variables is not None:
        payload["variables"] = variables
    if operation is not None:
        payload["operationName"] = operation
    return json.dumps(payload).encode("utf-8", "surrogatepass")


def malformed_json(rng: random.Random, document: str) -> bytes:
    good = json_body(document, {})
    return rng.choice(
        (
            good[: max(1, len(good) // 2)],
            b"",
            b"null",
            b"[]",
            b'"query"',
            b"1e999",
            b"[" * 100_000 + b"]" * 100_000,
            b'{"query": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            b'{"query": "{ __typename }", "variables": ' + b'{"a":' * 200 + b"1" + b"}" * 200 + b"}",
            b'{"query": "{ __typename }", "variables": NaN}',
            b'{"query": "{ __typename }", "variables": {"x": Infinity}}',
            b'{"query": "{ __typename }"} trailing',
            b'{"query": "{ __typename }", "query": "mutation { forgetUser(id: \\"alice\\") { userId } }"}',
            b'{"query": 12}',
            b'{"query": ["{ __typename }"]}',
            b'{"query": "{ __typename }", "variables": "not an object"}',
            b'{"query": "{ __typename }", "variables": [1]}',
            b'{"query": "{ __typename }", "operationName": 5}',
            b'{"query": "{ __typename }", "extensions": "x"}',
            b"{'query': '{ __typename }'}",
            b'{"query": "{ __typename }",}',
            good + b"\x00",
        )
    )


def bad_encoding(rng: random.Random, document: str) -> tuple[bytes, Headers]:
    remember = 'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) { seq } }'
    style = rng.randrange(8)
    json_type = (("content-type", "application/json"),)
    if style == 0:
        body = json_body(remember, {"t": "ok"})
        position = rng.randrange(len(body))
        return body[:position] + rng.choice(
            (b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80")
        ) + body[position:], json_type
    if style == 1:
        return b'{"query": "' + remember.encode().replace(
            b'"', b'\\"'
        ) + b'", "variables": {"t": "\\ud800 lone"}}', json_type
    if style == 2:
        return b'{"query": "{ recall(userId: \\"alice\\", query: \\"\\udfff\\") { query } }"}', json_type
    if style == 3:
        return json.dumps({"query": document}).encode("utf-16"), json_type
    if style == 4:
        return b"\xef\xbb\xbf" + json_body(document, {}), json_type
    if style == 5:
        return json_body(remember, {"t": "x\udbff"}), json_type
    if style == 6:
        return json_body(document, {}), (("content-type", "application/json; charset=latin-1"),)
    return b'{"query": "{ __typename }", "variables": {"\\ud83d": 1}}', json_type


def content_type_case(rng: random.Random, document: str, variables: dict[str, Json]) -> tuple[bytes, Headers]:
    body = json_body(document, variables)
    style = rng.randrange(9)
    if style == 0:
        return body, (("content-type", "text/plain"),)
    if style == 1:
        return body, (("content-type", "application/x-www-form-urlencoded"),)
    if style == 2:
        return b"--b\r\ncontent-disposition: form-data; name=operations\r\n\r\n" + body + b"\r\n--b--\r\n", (
            ("content-type", "multipart/form-data; boundary=b"),
        )
    if style == 3:
        return document.encode("utf-8", "surrogatepass"), (("content-type", "application/graphql"),)
    if style == 4:
        return body, ()
    if style == 5:
        return body, (("content-type", "application/json"), ("accept", "text/html"))
    if style == 6:
        return body, (
            ("content-type", "application/json"),
            ("accept", "application/graphql-response+json;q=x"),
        )
    if style == 7:
        return body, (("content-type", "application/json"), ("accept", "application/graphql-response+json"))
    return body, (("content-type", "application/json;;;charset="), ("accept", "*/*;q=0"))


def oversized(rng: random.Random, max_body: int) -> tuple[bytes, Headers]:
    text = "a" * (max_body + rng.choice((1, 1000, max_body)))
    body = json_body(
        'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) { seq } }', {"t": text}
    )
    headers: Headers = (("content-type", "application/json"),)
    if rng.random() < 0.3:
        headers += (("content-length-claim", "small"),)  # marker: the runner streams it without a length
    return body, headers
