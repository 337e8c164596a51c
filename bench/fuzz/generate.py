"""Case `index` of run `seed`: derived from its own `random.Random(f"{seed}:{index}")`, so a run
is reproducible and one case can be regenerated alone."""

from __future__ import annotations

import random

from graphql import GraphQLSchema

from bench.fuzz.case import KINDS, Case
from bench.fuzz.documents import load_schema
from bench.fuzz.http_cases import http_case
from bench.fuzz.ws_cases import ws_case


def case(seed: int, index: int, schema: GraphQLSchema, max_body: int) -> Case:
    rng = random.Random(f"{seed}:{index}")
    kind = KINDS[index % len(KINDS)]
    if kind.startswith("ws_"):
        return ws_case(index, kind, rng, schema, max_body)
    return http_case(index, kind, rng, schema, max_body)


def cases(seed: int, count: int, max_body: int, schema: GraphQLSchema | None = None) -> list[Case]:
    schema = schema or load_schema()
    return [case(seed, index, schema, max_body) for index in range(count)]
