"""Argument values the generated documents carry: plain, odd, oversized and wrong-typed."""

from __future__ import annotations

import random
import uuid

from bench.fuzz.case import USERS
from graph.cypher import statement


def _injected() -> str:
    """A string argument that tries to close a quoted value and run Cypher of its own."""
    text = statement("queries/bench/fuzz_injected")
    cypher = " ".join(line for line in text.splitlines() if not line.startswith("//"))
    return f"'; {cypher} //"


WORDS = ("sushi", "dog", "Rex", "salmon", "tuna", "plan", "trip", "Paris", "likes", "never", "always")
ODD_TEXT = (
    "",
    " ",
    "\u0000",
    "é\u0301",
    "🐕🍣",
    "\u202e\u200b",
    _injected(),
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
# A JSON value as the generator builds it.
Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


def text_value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.7:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
    if roll < 0.9:
        return rng.choice(ODD_TEXT)
    return rng.choice(WORDS) * rng.randint(50, 2000)


def scalar_value(rng: random.Random, name: str, arg: str) -> Json:
    """A value for the scalar type `name` given to argument (or input field) `arg`."""
    if name == "ID":
        if arg in ("userId", "id") and rng.random() < 0.85:
            return rng.choice(USERS)
        return rng.choice((uuid.UUID(int=rng.getrandbits(128)).hex, "", "x" * rng.randint(1, 300), "Fact:1"))
    if name == "String":
        return text_value(rng)
    if name == "Int":
        return rng.choice(INTS) if rng.random() < 0.3 else rng.randint(0, 20)
    if name == "Float":
        return rng.choice(FLOATS)
    if name == "Boolean":
        return rng.random() < 0.5
    if name == "DateTime":
        return rng.choice(DATES)
    return text_value(rng)


def wrong_value(rng: random.Random) -> Json:
    """A value of no particular type: null, a wrong scalar, a list, an object, a huge number."""
    choices: tuple[Json, ...] = (
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
    return rng.choice(choices)
