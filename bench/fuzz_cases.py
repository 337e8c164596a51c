"""GraphQL fuzz cases generated from the checked-in SDL, and the runner that sends them.

Shared by bench/fuzz_graphql.py (the full run) and tests/test_fuzz_graphql.py (a fast subset).

Every case is derived from its own `random.Random(f"{seed}:{index}")`, so a run is reproducible
and one case can be regenerated alone (`case(seed, index, ...)`). The kind of case `index` is
`KINDS[index % len(KINDS)]`, so any run of a few dozen cases covers every kind.

The generator walks `graphql.build_schema(api/schema.graphql)`: random root fields with random
(valid or wrong) arguments, inline or as variables, random sub-selections; then mutations of those
documents (depth and alias bombs, fragment floods and cycles, huge strings, lists and numbers,
syntax damage) and of their transport (malformed JSON, invalid UTF-8, lone surrogates, wrong
content types and methods, oversized bodies, missing keys), over HTTP and graphql-transport-ws.

The runner sends cases one at a time (so that a write can be attributed to the request that made
it) and checks what the brief of issue #12 asks: no 5xx, no hang, `extensions.code` on every
error, and no write from a request that answered only errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    build_schema,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

SDL = Path(__file__).resolve().parent.parent / "api" / "schema.graphql"
PROTOCOL = "graphql-transport-ws"
# Users the fuzz's documents name: the write check counts their interactions.
USERS = ("alice", "bob", "fz-carol")

HTTP_KINDS = (
    "valid",
    "wrong_variables",
    "random_arguments",
    "depth_bomb",
    "alias_bomb",
    "fragments",
    "huge_values",
    "syntax_damage",
    "malformed_json",
    "bad_encoding",
    "content_type",
    "oversized",
    "method_and_get",
    "no_key",
)
WS_KINDS = ("ws_document", "ws_fuzzed_document", "ws_subscription", "ws_protocol", "ws_oversized")
KINDS = HTTP_KINDS[:8] + WS_KINDS[:2] + HTTP_KINDS[8:] + WS_KINDS[2:]


@dataclass(frozen=True)
class Case:
    """One request (HTTP) or one exchange on an open connection (websocket)."""

    index: int
    kind: str
    transport: str  # "http" or "ws"
    method: str = "POST"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    params: tuple[tuple[str, str], ...] = ()
    # Websocket: frames sent after connection_init/ack (or instead of it when `raw`), the ids of
    # the operations they start, and whether an operation may stream (a subscription).
    frames: tuple[str | bytes, ...] = ()
    operation_ids: tuple[str, ...] = ()
    raw: bool = False
    streams: bool = False
    authenticated: bool = True
    # The bytes sent, kept when the case is slimmed for the report (`slim`).
    size: int = 0

    def slim(self) -> Case:
        """The case without the bulk of its payload: what an outcome keeps (a run holds 10,000)."""
        size = len(self.body) + sum(len(f) for f in self.frames)
        frames = tuple(f[:300] for f in self.frames)
        params = tuple((k, v[:200]) for k, v in self.params)
        return replace(self, body=self.body[:300], frames=frames, params=params, size=size)

    def describe(self) -> dict[str, Any]:
        """A short, JSON-safe description for reports."""
        sample = self.body[:300] if self.transport == "http" else repr(self.frames)[:300].encode()
        return {
            "index": self.index,
            "kind": self.kind,
            "transport": self.transport,
            "method": self.method,
            "headers": dict(self.headers),
            "params": {k: v[:200] for k, v in self.params},
            "bytes": self.size or len(self.body) + sum(len(f) for f in self.frames),
            "sample": sample.decode("utf-8", "backslashreplace"),
        }


# -- documents from the schema -------------------------------------------------------------------


def load_schema(path: Path = SDL) -> GraphQLSchema:
    return build_schema(path.read_text())


def _named(type_: Any) -> Any:
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    return type_


WORDS = ("sushi", "dog", "Rex", "salmon", "tuna", "plan", "trip", "Paris", "likes", "never", "always")
ODD_TEXT = (
    "",
    " ",
    "\u0000",
    "é\u0301",
    "🐕🍣",
    "\u202e\u200b",
    "'; MATCH (n) DETACH DELETE n //",
    '"}]}{',
    "\\u0000",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
)
DATES = (
    "2024-05-01T09:00:00Z",
    "2024-05-01T09:00:00+02:00",
    "2024-05-01",
    "yesterday",
    "9999-12-31T23:59:59Z",
)
INTS = (0, 1, 3, 10, 100, -1, 2**31, -(2**31) - 1, 2**63, 10**30)
FLOATS = (0.0, 0.5, -1.5, 1e308, 1e-308)


@dataclass
class Doc:
    """A document being built: its text, the variables it declares and their values."""

    rng: random.Random
    schema: GraphQLSchema
    valid_values: bool = True
    declarations: list[str] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)
    fragments: list[str] = field(default_factory=list)

    def text_value(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.7:
            return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
        if roll < 0.9:
            return rng.choice(ODD_TEXT)
        return rng.choice(WORDS) * rng.randint(50, 2000)

    def scalar_value(self, name: str, arg: str) -> Any:
        rng = self.rng
        if name == "ID":
            if arg in ("userId", "id") and rng.random() < 0.85:
                return rng.choice(USERS)
            return rng.choice(
                (uuid.UUID(int=rng.getrandbits(128)).hex, "", "x" * rng.randint(1, 300), "Fact:1")
            )
        if name == "String":
            return self.text_value()
        if name == "Int":
            return rng.choice(INTS) if rng.random() < 0.3 else rng.randint(0, 20)
        if name == "Float":
            return rng.choice(FLOATS)
        if name == "Boolean":
            return rng.random() < 0.5
        if name == "DateTime":
            return rng.choice(DATES)
        return self.text_value()

    def wrong_value(self) -> Any:
        rng = self.rng
        return rng.choice(
            (
                None,
                "not a number",
                12,
                -3.5,
                True,
                [],
                [1, "a", None],
                {},
                {"nested": {"deeper": [1, 2]}},
                2**70,
                "2024-13-45T99:99:99Z",
                "\ud800",
                "x" * 5000,
            )
        )

    def value(self, type_: GraphQLInputType, arg: str, depth: int = 0) -> Any:
        """A JSON value for an input type (a wrong one now and then unless valid_values)."""
        rng = self.rng
        if not self.valid_values and rng.random() < 0.35:
            return self.wrong_value()
        if isinstance(type_, GraphQLNonNull):
            return self.value(type_.of_type, arg, depth)
        if rng.random() < 0.05:
            return None
        if isinstance(type_, GraphQLList):
            size = rng.choice((0, 1, 1, 2, 3)) if depth < 3 else 0
            return [self.value(type_.of_type, arg, depth + 1) for _ in range(size)]
        if isinstance(type_, GraphQLEnumType):
            return rng.choice(list(type_.values))
        if isinstance(type_, GraphQLInputObjectType):
            out: dict[str, Any] = {}
            for name, input_field in type_.fields.items():
                required = (
                    isinstance(input_field.type, GraphQLNonNull) and input_field.default_value is Undefined
                )
                if required or rng.random() < 0.5:
                    out[name] = self.value(input_field.type, name, depth + 1)
            return out
        assert isinstance(type_, GraphQLScalarType)
        return self.scalar_value(type_.name, arg)

    def literal(self, value: Any, type_: Any) -> str:
        """The GraphQL literal of a JSON value (enum values bare)."""
        named = _named(type_)
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return repr(value) if isinstance(value, float) else str(value)
        if isinstance(value, str):
            if isinstance(named, GraphQLEnumType) and value in named.values:
                return value
            return json.dumps(value, ensure_ascii=self.rng.random() < 0.5)
        if isinstance(value, list):
            inner = type_.of_type if isinstance(type_, GraphQLList) else _unwrap_non_null(type_)
            inner = inner.of_type if isinstance(inner, GraphQLList) else inner
            return "[" + ", ".join(self.literal(v, inner) for v in value) + "]"
        if isinstance(value, dict):
            fields = named.fields if isinstance(named, GraphQLInputObjectType) else {}
            parts = [
                f"{k}: {self.literal(v, fields[k].type if k in fields else None)}" for k, v in value.items()
            ]
            return "{" + ", ".join(parts) + "}"
        return json.dumps(str(value))

    def arguments(self, graphql_field: GraphQLField, extra: bool = False) -> str:
        rng = self.rng
        parts = []
        for name, argument in graphql_field.args.items():
            required = isinstance(argument.type, GraphQLNonNull) and argument.default_value is Undefined
            if not required and rng.random() < 0.6:
                continue
            if required and not self.valid_values and rng.random() < 0.1:
                continue  # a missing required argument
            value = self.value(argument.type, name)
            if rng.random() < 0.5:
                variable = f"v{len(self.declarations)}"
                self.declarations.append(f"${variable}: {argument.type}")
                self.variables[variable] = value
                parts.append(f"{name}: ${variable}")
            else:
                parts.append(f"{name}: {self.literal(value, argument.type)}")
        if extra:
            parts.append(
                rng.choice(("bogus", "limit", "userId")) + ": " + rng.choice(("1", "true", '"x"', "null"))
            )
        return f"({', '.join(parts)})" if parts else ""

    def selection(self, type_: Any, depth: int) -> str:
        """A selection set for an output type, `depth` levels deep at most."""
        rng = self.rng
        named = _named(type_)
        if isinstance(named, GraphQLScalarType | GraphQLEnumType):
            return ""
        fields: dict[str, GraphQLField] = dict(getattr(named, "fields", {}) or {})
        leaves = [
            n for n, f in fields.items() if isinstance(_named(f.type), GraphQLScalarType | GraphQLEnumType)
        ]
        nested = [n for n in fields if n not in leaves]
        chosen = rng.sample(leaves, min(len(leaves), rng.randint(1, 3))) if leaves else []
        if depth > 0 and nested:
            chosen += rng.sample(nested, min(len(nested), rng.randint(0, 2)))
        if rng.random() < 0.2:
            chosen.append("__typename")
        parts = []
        for name in chosen or ["__typename"]:
            if name == "__typename":
                parts.append(name)
                continue
            graphql_field = fields[name]
            arguments = self.arguments(graphql_field) if graphql_field.args else ""
            alias = f"a{rng.randint(0, 9)}_{name}: " if rng.random() < 0.1 else ""
            inner = self.selection(graphql_field.type, depth - 1)
            if not inner and not isinstance(_named(graphql_field.type), GraphQLScalarType | GraphQLEnumType):
                inner = "{ __typename }"
            parts.append(f"{alias}{name}{arguments} {inner}".rstrip())
        if isinstance(named, GraphQLInterfaceType | GraphQLUnionType) and rng.random() < 0.7:
            for possible in rng.sample(list(self.schema.get_possible_types(named)), 2):
                parts.append(f"... on {possible.name} {self.selection(possible, depth - 1)}")
        if rng.random() < 0.1 and isinstance(named, GraphQLObjectType):
            name = f"F{len(self.fragments)}"
            self.fragments.append(f"fragment {name} on {named.name} {{ __typename }}")
            parts.append(f"...{name}")
        return "{ " + " ".join(parts) + " }"

    def operation(self, root: str, *, depth: int | None = None, extra_argument: bool = False) -> str:
        """A whole document: one operation on a random field of `root` (query/mutation/subscription)."""
        rng = self.rng
        root_type = {
            "query": self.schema.query_type,
            "mutation": self.schema.mutation_type,
            "subscription": self.schema.subscription_type,
        }[root]
        assert root_type is not None
        names = list(root_type.fields)
        count = 1 if root == "subscription" else rng.choice((1, 1, 1, 2))
        parts = []
        for name in rng.sample(names, min(count, len(names))):
            graphql_field = root_type.fields[name]
            selection = self.selection(graphql_field.type, rng.randint(0, 3) if depth is None else depth)
            parts.append(f"{name}{self.arguments(graphql_field, extra_argument)} {selection}".rstrip())
        declared = f"({', '.join(self.declarations)})" if self.declarations else ""
        head = root if declared or rng.random() < 0.7 or root != "query" else ""
        name = f" Op{rng.randint(0, 99)}" if head and rng.random() < 0.3 else ""
        text = f"{head}{name}{declared} {{ {' '.join(parts)} }}".strip()
        return "\n".join([text, *self.fragments])


def _unwrap_non_null(type_: Any) -> Any:
    return type_.of_type if isinstance(type_, GraphQLNonNull) else type_


def random_document(
    rng: random.Random, schema: GraphQLSchema, *, valid_values: bool = True, root: str | None = None
) -> tuple[str, dict[str, Any]]:
    root = root or rng.choices(("query", "mutation"), (7, 3))[0]
    doc = Doc(rng, schema, valid_values=valid_values)
    text = doc.operation(root, extra_argument=not valid_values and rng.random() < 0.3)
    return text, doc.variables


# -- hostile documents ---------------------------------------------------------------------------


def depth_bomb(rng: random.Random) -> str:
    depth = rng.choice((13, 20, 50, 200, 1000))
    style = rng.randrange(4)
    if style == 0:
        inner = "{ id }"
        for _ in range(depth):
            inner = "{ history " + inner + " }"
        return f'{{ fact(id: "x") {inner} }}'
    if style == 1:
        inner = "id"
        for _ in range(depth):
            inner = f"interaction {{ {inner} }}"
        head = '{ user(id: "alice") { facts { nodes { audit { interactions { derivedFacts { audit { fact { '
        return head + inner + " }" * 9
    if style == 2:
        return "{" * depth + "}" * depth
    nested = "[" * depth + "1" + "]" * depth
    return f'{{ recall(userId: "alice", query: {nested}) {{ query }} }}'


def alias_bomb(rng: random.Random) -> str:
    count = rng.choice((16, 50, 500, 3000))
    field_text = rng.choice(
        ("__typename", 'user(id: "alice") { id }', 'recall(userId: "alice", query: "dog") { query }')
    )
    body = " ".join(f"a{i}: {field_text}" for i in range(count))
    if rng.random() < 0.3:
        body = " ".join(
            f'a{i}: remember(input: {{userId: "alice", text: "alias {i}"}}) {{ seq }}' for i in range(count)
        )
        return f"mutation {{ {body} }}"
    return f"{{ {body} }}"


def fragments_document(rng: random.Random, schema: GraphQLSchema) -> str:
    style = rng.randrange(5)
    if style == 0:  # many fragments, all spread
        count = rng.choice((10, 100, 400))
        defs = "\n".join(f"fragment F{i} on Query {{ __typename }}" for i in range(count))
        return "{ " + " ".join(f"...F{i}" for i in range(count)) + " }\n" + defs
    if style == 1:  # a cycle
        size = rng.randint(1, 5)
        defs = "\n".join(f"fragment F{i} on Query {{ ...F{(i + 1) % size} }}" for i in range(size))
        return "{ ...F0 }\n" + defs
    if style == 2:  # exponential expansion ("billion laughs")
        levels = rng.choice((10, 20, 40))
        chain = ["fragment F0 on User { id createdAt }"]
        chain += [f"fragment F{i} on User {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, levels)]
        return f'{{ user(id: "alice") {{ ...F{levels - 1} }} }}\n' + "\n".join(chain)
    if style == 3:  # unknown, unused, on wrong types, inline on unknown type
        return rng.choice(
            (
                "{ ...Missing }",
                "{ __typename }\nfragment Unused on Query { __typename }",
                '{ user(id: "alice") { ...F } }\nfragment F on Fact { id }',
                '{ node(id: "x") { ... on Nope { id } } }',
                "fragment F on Query { __typename }",
                '{ node(id: "x") { ... on Fact { id ... on Episode { title } } } }',
            )
        )
    text, _ = random_document(rng, schema, root="query")
    return text + "\nfragment Extra on User { id stats { interactions } }"


def huge_values(rng: random.Random, max_body: int) -> tuple[str, dict[str, Any]]:
    style = rng.randrange(6)
    user = rng.choice(USERS)
    if style == 0:
        size = rng.choice((10_000, max_body // 4, max_body // 2))
        return (
            "mutation($i: RememberInput!) { remember(input: $i) { seq } }",
            {"i": {"userId": user, "text": "a" * size}},
        )
    if style == 1:
        units = [{"text": f"unit {i}"} for i in range(rng.choice((1001, 5000, 20000)))]
        return "mutation($u: [UnitInput!]!) { rememberBatch(userId: $u0, units: $u) { seq } }".replace(
            "$u0", json.dumps(user)
        ), {"u": units}
    if style == 2:
        number = rng.choice(
            ("99999999999999999999999", "-1e400", "1e309", "0.0000000000000000001", "-0", "2147483648")
        )
        argument = rng.choice(("first", "last"))
        return f'{{ user(id: "alice") {{ interactions({argument}: {number}) {{ nodes {{ id }} }} }} }}', {}
    if style == 3:
        big = rng.choice((2**64, -(2**63), 1e300, 10**400, 2147483648))
        return (
            'query($b: BudgetInput) { recall(userId: "alice", query: "dog", budget: $b) { query } }',
            {"b": {"subconscious": big, "episodic": 1, "semantic": 1, "tokens": big}},
        )
    if style == 4:
        return 'query($q: String!) { recall(userId: "alice", query: $q) { query } }', {
            "q": "dog " * rng.choice((1000, max_body // 16))
        }
    return "query($a: [ConsolidationAction!]) { __typename }", {"a": ["NONE"] * rng.choice((100, 10_000))}


def syntax_damage(rng: random.Random, schema: GraphQLSchema) -> str:
    text, _ = random_document(rng, schema)
    style = rng.randrange(6)
    if style == 0 and len(text) > 2:
        return text[: rng.randrange(1, len(text))]
    if style == 1:
        position = rng.randrange(len(text) + 1)
        return (
            text[:position]
            + rng.choice(("{", "}", "(", ")", "$", "@", '"', "...", "#", "\\", ":", "!"))
            + text[position:]
        )
    if style == 2:
        tokens = (
            "{",
            "}",
            "(",
            ")",
            "query",
            "mutation",
            "$a",
            ":",
            "Int",
            "!",
            "...",
            "on",
            '"s"',
            "1",
            "@skip",
        )
        return " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 60)))
    if style == 3:
        return text.replace("{", "{ @include(if: $nope) ", 1)
    if style == 4:
        return rng.choice(
            ("", " ", "#only a comment", "query", "{}", '"""unterminated', "{ a" + "\u0000" + " }")
        )
    return " ".join(["x"] * 2500)  # more tokens than the limit


# -- transport ----------------------------------------------------------------------------------


def _json_body(document: str, variables: dict[str, Any] | None, operation: str | None = None) -> bytes:
    payload: dict[str, Any] = {"query": document}
    if variables is not None:
        payload["variables"] = variables
    if operation is not None:
        payload["operationName"] = operation
    return json.dumps(payload).encode("utf-8", "surrogatepass")


def _malformed_json(rng: random.Random, document: str) -> bytes:
    good = _json_body(document, {})
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


def _bad_encoding(rng: random.Random, document: str) -> tuple[bytes, tuple[tuple[str, str], ...]]:
    remember = 'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) { seq } }'
    style = rng.randrange(8)
    json_type = (("content-type", "application/json"),)
    if style == 0:
        body = _json_body(remember, {"t": "ok"})
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
        return b"\xef\xbb\xbf" + _json_body(document, {}), json_type
    if style == 5:
        return _json_body(remember, {"t": "x\udbff"}), json_type
    if style == 6:
        return _json_body(document, {}), (("content-type", "application/json; charset=latin-1"),)
    return b'{"query": "{ __typename }", "variables": {"\\ud83d": 1}}', json_type


def _content_type_case(
    rng: random.Random, document: str, variables: dict[str, Any]
) -> tuple[bytes, tuple[tuple[str, str], ...]]:
    body = _json_body(document, variables)
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


def http_case(index: int, kind: str, rng: random.Random, schema: GraphQLSchema, max_body: int) -> Case:
    headers: tuple[tuple[str, str], ...] = (("content-type", "application/json"),)
    if rng.random() < 0.3:
        headers += (("accept", rng.choice(("application/graphql-response+json", "application/json", "*/*"))),)
    method = "POST"
    params: tuple[tuple[str, str], ...] = ()
    authenticated = True
    if kind == "valid":
        document, variables = random_document(rng, schema)
        body = _json_body(document, variables)
    elif kind == "wrong_variables":
        document, variables = random_document(rng, schema, valid_values=False)
        if rng.random() < 0.3:
            variables["undeclared"] = rng.choice((1, "x", None))
        body = _json_body(document, variables)
    elif kind == "random_arguments":
        doc = Doc(rng, schema, valid_values=False)
        document = doc.operation(rng.choice(("query", "mutation")), extra_argument=rng.random() < 0.5)
        body = _json_body(document, doc.variables, rng.choice((None, None, "Op1", "Nope")))
    elif kind == "depth_bomb":
        body = _json_body(depth_bomb(rng), {})
    elif kind == "alias_bomb":
        body = _json_body(alias_bomb(rng), {})
    elif kind == "fragments":
        body = _json_body(fragments_document(rng, schema), {})
    elif kind == "huge_values":
        document, variables = huge_values(rng, max_body)
        body = _json_body(document, variables)
    elif kind == "syntax_damage":
        body = _json_body(syntax_damage(rng, schema), {})
    elif kind == "malformed_json":
        document, _ = random_document(rng, schema)
        body = _malformed_json(rng, document)
    elif kind == "bad_encoding":
        document, _ = random_document(rng, schema)
        body, headers = _bad_encoding(rng, document)
    elif kind == "content_type":
        document, variables = random_document(rng, schema)
        body, headers = _content_type_case(rng, document, variables)
    elif kind == "oversized":
        body, headers = _oversized(rng, max_body)
    elif kind == "method_and_get":
        document, variables = random_document(rng, schema)
        method = rng.choice(("GET", "GET", "GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"))
        body = b""
        if method == "GET":
            params = (("query", document), ("variables", json.dumps(variables)))
            if rng.random() < 0.3:
                params = rng.choice(
                    (
                        (("query", document), ("variables", "{bad json")),
                        (("query", document), ("extensions", "[1]")),
                        (("variables", "{}"),),
                        (("query", "{ __typename }"), ("variables", "\ud800")),
                    )
                )
        else:
            body = _json_body(document, variables)
    else:  # no_key
        document, variables = random_document(rng, schema, root=rng.choice(("query", "mutation", "mutation")))
        body = _json_body(document, variables)
        key = rng.choice(
            (None, "", "Bearer", "Bearer nope", "Basic YTpi", "Bearer " + "x" * 5000, "bearer \u00e9")
        )
        authenticated = False
        if key is not None:
            headers += (("authorization", key),)
    return Case(index, kind, "http", method, headers, body, params, authenticated=authenticated)


def _oversized(rng: random.Random, max_body: int) -> tuple[bytes, tuple[tuple[str, str], ...]]:
    text = "a" * (max_body + rng.choice((1, 1000, max_body)))
    body = _json_body(
        'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) { seq } }', {"t": text}
    )
    headers: tuple[tuple[str, str], ...] = (("content-type", "application/json"),)
    if rng.random() < 0.3:
        headers += (("content-length-claim", "small"),)  # marker: the runner streams it without a length
    return body, headers


# -- websocket cases ------------------------------------------------------------------------------


def _subscribe(operation_id: str, document: str, variables: dict[str, Any] | None) -> str:
    payload: dict[str, Any] = {"query": document}
    if variables is not None:
        payload["variables"] = variables
    return json.dumps({"id": operation_id, "type": "subscribe", "payload": payload})


def ws_case(index: int, kind: str, rng: random.Random, schema: GraphQLSchema, max_body: int) -> Case:
    op = f"op{index}"
    if kind == "ws_document":
        document, variables = random_document(rng, schema)
        return Case(index, kind, "ws", frames=(_subscribe(op, document, variables),), operation_ids=(op,))
    if kind == "ws_fuzzed_document":
        maker = rng.randrange(5)
        fuzz_variables: dict[str, Any] | None = {}
        if maker == 0:
            document, fuzz_variables = random_document(rng, schema, valid_values=False)
        elif maker == 1:
            document = depth_bomb(rng)
        elif maker == 2:
            document = alias_bomb(rng)
        elif maker == 3:
            document = fragments_document(rng, schema)
        else:
            document = syntax_damage(rng, schema)
        frames = (_subscribe(op, document, fuzz_variables),)
        return Case(index, kind, "ws", frames=frames, operation_ids=(op,))
    if kind == "ws_subscription":
        valid = rng.random() < 0.5
        document, variables = random_document(rng, schema, valid_values=valid, root="subscription")
        return Case(
            index,
            kind,
            "ws",
            frames=(_subscribe(op, document, variables),),
            operation_ids=(op,),
            streams=True,
        )
    if kind == "ws_oversized":
        pad = "x" * (max_body + rng.choice((1, 5000)))
        text = _subscribe(
            op, 'mutation($t: String!) { remember(input: {userId: "alice", text: $t}) { seq } }', {"t": pad}
        )
        frame: str | bytes = text.encode() if rng.random() < 0.3 else text
        return Case(index, kind, "ws", frames=(frame,), operation_ids=(op,))
    return _ws_protocol(index, rng, schema, op)


def _ws_protocol(index: int, rng: random.Random, schema: GraphQLSchema, op: str) -> Case:
    document, variables = random_document(rng, schema)
    good = _subscribe(op, document, variables)
    style = rng.randrange(14)
    kind = "ws_protocol"
    frames: tuple[str | bytes, ...]
    raw = False
    ids: tuple[str, ...] = ()
    if style == 0:
        frames = ("not json",)
    elif style == 1:
        frames = (b"\xff\xfe binary garbage",)
    elif style == 2:
        frames = (json.dumps({"type": "nope"}),)
    elif style == 3:
        frames = (json.dumps({"type": "subscribe", "payload": {"query": "{ __typename }"}}),)
    elif style == 4:
        frames = (json.dumps({"id": op, "type": "subscribe"}),)
    elif style == 5:
        frames = (good, good)  # the same id twice: 4409 unless the first is already done
        ids = (op,)
    elif style == 6:
        frames = (json.dumps({"type": "ping"}), json.dumps({"type": "pong"}))
    elif style == 7:
        frames = (json.dumps({"type": "connection_init"}),)  # a second init: 4429
    elif style == 8:
        frames = (good,)  # before connection_init: 4401
        raw = True
    elif style == 9:
        frames = (json.dumps({"type": "connection_init", "payload": {"Authorization": "Bearer nope"}}), good)
        raw = True
    elif style == 10:
        frames = (json.dumps({"id": "never-started", "type": "complete"}), json.dumps({"type": "ping"}))
    elif style == 11:
        frames = (
            '{"id": "' + op + '", "type": "subscribe", "payload": '
            '{"query": "{ __typename }", "variables": {"v": "\\ud800"}}}',
        )
        ids = (op,)
    elif style == 12:
        frames = ("[" * 50_000 + "]" * 50_000,)
    else:
        frames = (json.dumps({"id": op, "type": "subscribe", "payload": {"query": 5, "variables": []}}),)
    return Case(index, kind, "ws", frames=frames, operation_ids=ids, raw=raw)


def case(seed: int, index: int, schema: GraphQLSchema, max_body: int) -> Case:
    rng = random.Random(f"{seed}:{index}")
    kind = KINDS[index % len(KINDS)]
    if kind.startswith("ws_"):
        return ws_case(index, kind, rng, schema, max_body)
    return http_case(index, kind, rng, schema, max_body)


def cases(seed: int, count: int, max_body: int, schema: GraphQLSchema | None = None) -> list[Case]:
    schema = schema or load_schema()
    return [case(seed, index, schema, max_body) for index in range(count)]


# -- the runner -----------------------------------------------------------------------------------

# Counts what may have been written: the tenant's nodes (from Neo4j) or its users' interactions
# (through the API, `api_probe`).
WriteProbe = Callable[[], Awaitable[int]]
STATS = (
    "{ "
    + " ".join(f"u{i}: user(id: {json.dumps(u)}) {{ stats {{ interactions }} }}" for i, u in enumerate(USERS))
    + " }"
)
SERVER_CLOSE_CODES = (1006, 1011)
# Seconds of silence that end an exchange expecting none (a subscription, a ping and pong).
QUIET_S = 0.3


@dataclass
class Outcome:
    case: Case
    status: str
    latency_s: float
    codes: list[str] = field(default_factory=list)
    rejected: bool = True
    hang: bool = False
    server_error: bool = False
    missing_code: int = 0
    wrote: bool = False
    detail: str = ""


def api_probe(http: httpx.AsyncClient, key: str) -> WriteProbe:
    """The interactions of USERS, read through the API with the fuzz's own key."""

    async def probe() -> int:
        response = await http.post(
            "/graphql", json={"query": STATS}, headers={"authorization": f"Bearer {key}"}
        )
        data = response.json()["data"]
        return sum(int(user["stats"]["interactions"]) for user in data.values() if user)

    return probe


def _errors_of(payload: Any) -> list[Any]:
    if isinstance(payload, dict):
        errors = payload.get("errors")
        return list(errors) if isinstance(errors, list) else []
    return list(payload) if isinstance(payload, list) else []


def _check_errors(errors: list[Any], outcome: Outcome) -> None:
    for error in errors:
        code = error.get("extensions", {}).get("code") if isinstance(error, dict) else None
        if isinstance(code, str) and code:
            outcome.codes.append(code)
            if code == "INTERNAL":  # a masked server fault: a 500 whatever the media type
                outcome.server_error = True
                outcome.detail = outcome.detail or f"INTERNAL: {json.dumps(error)[:300]}"
        else:
            outcome.missing_code += 1
            outcome.detail = outcome.detail or f"error without extensions.code: {json.dumps(error)[:300]}"


def _answered_data(payload: Any) -> bool:
    """Whether a result carries data: a non-null value for at least one root field."""
    data = payload.get("data") if isinstance(payload, dict) else None
    return isinstance(data, dict) and any(value is not None for value in data.values())


# graphql-transport-ws: "Subscriber for <id> already exists".
DUPLICATE_ID_CLOSE = 4409


class Fuzzer:
    """Sends cases one by one to a running service; see the module docstring for the checks."""

    def __init__(
        self, base_url: str, key: str, probe: WriteProbe | None = None, *, timeout_s: float = 30.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout_s = timeout_s
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout_s + 5)
        self.probe = probe or api_probe(self.http, key)
        self.ws: ClientConnection | None = None
        self.unattributed_writes = 0

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        await self.http.aclose()

    async def run(
        self, batch: Iterable[Case], progress: Callable[[int], None] | None = None
    ) -> list[Outcome]:
        outcomes = []
        baseline = await self.probe()
        for number, item in enumerate(batch):
            outcome = await self.one(item)
            # After every case: queries write too (`answer` records its run). A websocket case
            # whose connection the service closed (a protocol error) may have started an
            # operation that runs on: its write belongs to this case, so let the count settle.
            closed = outcome.status.startswith("ws:close")
            after = await (self._settled() if closed else self.probe())
            outcome.wrote = outcome.rejected and after != baseline
            baseline = after
            outcome.case = item.slim()
            outcomes.append(outcome)
            if progress is not None:
                progress(number + 1)
        # Anything written after its case was checked (a late write) shows here.
        await asyncio.sleep(0.5)
        self.unattributed_writes = (await self.probe()) - baseline
        return outcomes

    async def _settled(self, pause_s: float = 0.2, limit_s: float = 5.0) -> int:
        """The write count once two reads `pause_s` apart agree (or after `limit_s`)."""
        deadline = time.monotonic() + limit_s
        count = await self.probe()
        while time.monotonic() < deadline:
            await asyncio.sleep(pause_s)
            again = await self.probe()
            if again == count:
                return count
            count = again
        return count

    async def one(self, item: Case) -> Outcome:
        start = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout_s):
                if item.transport == "http":
                    outcome = await self._http(item, start)
                else:
                    outcome = await self._ws(item, start)
        except TimeoutError:
            outcome = Outcome(item, "hang", time.monotonic() - start, hang=True, detail="no answer in time")
            await self._drop_ws()
        except (httpx.TransportError, OSError, WebSocketException) as error:
            outcome = Outcome(item, "transport-error", time.monotonic() - start, server_error=True)
            outcome.detail = f"{type(error).__name__}: {error}"[:300]
            await self._drop_ws()
        outcome.latency_s = time.monotonic() - start
        return outcome

    # -- HTTP --

    async def _http(self, item: Case, start: float) -> Outcome:
        headers = [(k.encode(), v.encode("utf-8")) for k, v in item.headers if k != "content-length-claim"]
        if item.authenticated:
            headers.append((b"authorization", f"Bearer {self.key}".encode()))
        content: Any = item.body if item.method != "GET" else None
        if any(k == "content-length-claim" for k, _ in item.headers):
            body = item.body

            async def chunks() -> Any:
                for offset in range(0, len(body), 65536):
                    yield body[offset : offset + 65536]

            content = chunks()
        # Encoded here: httpx refuses a lone surrogate in a parameter, which the fuzz sends on purpose.
        query = urlencode(list(item.params), errors="surrogatepass")
        url = f"/graphql?{query}" if query else "/graphql"
        request = self.http.build_request(item.method, url, content=content, headers=headers)
        response = await self.http.send(request)
        outcome = Outcome(item, str(response.status_code), time.monotonic() - start)
        outcome.server_error = response.status_code >= 500
        try:
            payload = response.json() if response.content else None
        except ValueError:
            payload = None
        if response.status_code >= 500:
            outcome.detail = response.text[:300]
        _check_errors(_errors_of(payload), outcome)
        if response.status_code >= 400 and payload is None and item.method != "HEAD":
            outcome.missing_code += 1
            outcome.detail = outcome.detail or f"non-JSON {response.status_code}: {response.text[:200]}"
        outcome.rejected = response.status_code != 200 or not _answered_data(payload)
        if outcome.rejected and not outcome.detail:
            outcome.detail = response.text[:300]
        return outcome

    # -- websocket --

    async def _connect(self, *, init: bool) -> ClientConnection:
        url = self.base_url.replace("http", "ws", 1) + "/graphql"
        ws = await connect(url, subprotocols=[PROTOCOL], max_size=None, open_timeout=self.timeout_s)  # type: ignore[list-item]
        if init:
            await ws.send(
                json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {self.key}"}})
            )
            ack = json.loads(await ws.recv())
            if ack.get("type") != "connection_ack":
                raise WebSocketException(f"no connection_ack: {ack}")
        return ws

    async def _drop_ws(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.ws = None

    async def _ws(self, item: Case, start: float) -> Outcome:
        if item.raw:
            ws = await self._connect(init=False)
        else:
            if self.ws is None or self.ws.close_code is not None:
                self.ws = await self._connect(init=True)
            ws = self.ws
        outcome = Outcome(item, "ws:silent", 0.0)
        pending = set(item.operation_ids)
        answered = False
        try:
            for frame in item.frames:
                await ws.send(frame)
            # With operations to finish, wait for them (the outer timeout bounds it); otherwise, and
            # for subscriptions (which may never send anything), a quiet QUIET_S ends the exchange.
            quiet = QUIET_S if (item.streams or not pending) else None
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(), quiet)
                except TimeoutError:
                    outcome.status = "ws:quiet"
                    for operation in pending:
                        await ws.send(json.dumps({"id": operation, "type": "complete"}))
                    break
                message = json.loads(raw)
                kind = message.get("type")
                outcome.status = f"ws:{kind}"
                if kind == "next":
                    _check_errors(_errors_of(message.get("payload")), outcome)
                    answered = answered or _answered_data(message.get("payload"))
                elif kind == "error":
                    _check_errors(_errors_of(message.get("payload")), outcome)
                    pending.discard(message.get("id"))
                elif kind == "complete":
                    pending.discard(message.get("id"))
                if not pending and quiet is None:
                    break
        except ConnectionClosed:
            code = ws.close_code
            outcome.status = f"ws:close:{code}"
            if code in SERVER_CLOSE_CODES:
                outcome.server_error = True
                outcome.detail = f"closed {code} {ws.close_reason}"
        finally:
            if item.raw:
                with contextlib.suppress(Exception):
                    await ws.close()
        # 4409 answers a second subscribe under an id in use: the first one was accepted, and
        # its operation (a remember, say) may run on and write after the close. Not a rejection.
        outcome.rejected = not answered and outcome.status != f"ws:close:{DUPLICATE_ID_CLOSE}"
        return outcome

    # -- after the run --

    async def health(self) -> dict[str, Any]:
        """/readyz, then a normal remember and recall of a fresh user."""
        ready = await self.http.get("/readyz")
        user = f"fz-health-{uuid.uuid4().hex[:8]}"
        auth = {"authorization": f"Bearer {self.key}"}
        remember = await self.http.post(
            "/graphql",
            json={
                "query": "mutation($u: ID!) { remember(input: {userId: $u, text: "
                '"My dog is called Rex."}) { interaction { id } } }',
                "variables": {"u": user},
            },
            headers=auth,
        )
        recall = await self.http.post(
            "/graphql",
            json={
                "query": 'query($u: ID!) { recall(userId: $u, query: "dog") '
                "{ subconscious { interaction { id } } } }",
                "variables": {"u": user},
            },
            headers=auth,
        )
        stored = (remember.json().get("data") or {}).get("remember") or {}
        found = ((recall.json().get("data") or {}).get("recall") or {}).get("subconscious") or []
        interaction = (stored.get("interaction") or {}).get("id")
        return {
            "readyz": ready.status_code,
            "remember": remember.status_code == 200 and interaction is not None,
            "recall": recall.status_code == 200 and any(h["interaction"]["id"] == interaction for h in found),
            "ok": ready.status_code == 200 and interaction is not None and bool(found),
        }


def summarize(outcomes: list[Outcome], unattributed_writes: int = 0) -> dict[str, Any]:
    """Counts by kind, status and error code, the worst latency, and every failed check."""

    def samples(failed: list[Outcome]) -> list[dict[str, Any]]:
        return [{**o.case.describe(), "status": o.status, "detail": o.detail} for o in failed[:10]]

    slowest = max(outcomes, key=lambda o: o.latency_s, default=None)
    server_errors = [o for o in outcomes if o.server_error]
    hangs = [o for o in outcomes if o.hang]
    writes = [o for o in outcomes if o.wrote]
    uncoded = [o for o in outcomes if o.missing_code]
    return {
        "cases": len(outcomes),
        "by_kind": dict(sorted(Counter(o.case.kind for o in outcomes).items())),
        "by_transport": dict(sorted(Counter(o.case.transport for o in outcomes).items())),
        "by_status": dict(sorted(Counter(o.status for o in outcomes).items())),
        "by_error_code": dict(sorted(Counter(c for o in outcomes for c in o.codes).items())),
        "rejected": sum(o.rejected for o in outcomes),
        "max_latency_s": round(slowest.latency_s, 3) if slowest else 0.0,
        "slowest_case": slowest.case.describe() if slowest else None,
        "server_errors": len(server_errors),
        "hangs": len(hangs),
        "rejected_with_write": len(writes),
        "unattributed_writes": unattributed_writes,
        "errors_without_code": sum(o.missing_code for o in outcomes),
        "failures": {
            "server_errors": samples(server_errors),
            "hangs": samples(hangs),
            "rejected_with_write": samples(writes),
            "errors_without_code": samples(uncoded),
        },
    }


def failed(summary: dict[str, Any]) -> list[str]:
    """The checks a summary fails (empty when the run is clean)."""
    checks = ("server_errors", "hangs", "rejected_with_write", "unattributed_writes", "errors_without_code")
    problems = [f"{name}: {summary[name]}" for name in checks if summary[name]]
    health = summary.get("health")
    if health is not None and not health.get("ok"):
        problems.append(f"unhealthy after: {health}")
    return problems
