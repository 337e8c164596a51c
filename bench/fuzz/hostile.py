"""Hostile documents: depth and alias bombs, fragment floods and cycles, huge strings, lists and
numbers, and syntax damage."""

from __future__ import annotations

import json
import random

from graphql import GraphQLSchema

from bench.fuzz.case import USERS
from bench.fuzz.documents import random_document
from bench.fuzz.values import Json


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


def huge_values(rng: random.Random, max_body: int) -> tuple[str, dict[str, Json]]:
    style = rng.randrange(6)
    user = rng.choice(USERS)
    if style == 0:
        size = rng.choice((10_000, max_body // 4, max_body // 2))
        return (
            "mutation($i: RememberInput!) { remember(input: $i) { seq } }",
            {"i": {"userId": user, "text": "a" * size}},
        )
    if style == 1:
        units: list[Json] = [{"text": f"unit {i}"} for i in range(rng.choice((1001, 5000, 20000)))]
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
