"""Websocket cases (graphql-transport-ws): documents, fuzzed documents, subscriptions, protocol
damage and oversized frames on an open connection."""

from __future__ import annotations

import json
import random

from graphql import GraphQLSchema

from bench.fuzz.case import Case
from bench.fuzz.documents import random_document
from bench.fuzz.hostile import alias_bomb, depth_bomb, fragments_document, syntax_damage
from bench.fuzz.values import Json


def _subscribe(operation_id: str, document: str, variables: dict[str, Json] | None) -> str:
    payload: dict[str, Json] = {"query": document}
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
        fuzz_variables: dict[str, Json] | None = {}
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
