"""HTTP cases: one request per case, built from a document of the case's kind."""

from __future__ import annotations

import json
import random

from graphql import GraphQLSchema

from bench.fuzz.bodies import bad_encoding, content_type_case, json_body, malformed_json, oversized
from bench.fuzz.case import Case, Headers
from bench.fuzz.documents import Doc, random_document
from bench.fuzz.hostile import alias_bomb, depth_bomb, fragments_document, huge_values, syntax_damage


def http_case(index: int, kind: str, rng: random.Random, schema: GraphQLSchema, max_body: int) -> Case:
    headers: Headers = (("content-type", "application/json"),)
    if rng.random() < 0.3:
        headers += (("accept", rng.choice(("application/graphql-response+json", "application/json", "*/*"))),)
    method = "POST"
    params: Headers = ()
    authenticated = True
    if kind == "valid":
        document, variables = random_document(rng, schema)
        body = json_body(document, variables)
    elif kind == "wrong_variables":
        document, variables = random_document(rng, schema, valid_values=False)
        if rng.random() < 0.3:
            variables["undeclared"] = rng.choice((1, "x", None))
        body = json_body(document, variables)
    elif kind == "random_arguments":
        doc = Doc(rng, schema, valid_values=False)
        document = doc.operation(rng.choice(("query", "mutation")), extra_argument=rng.random() < 0.5)
        body = json_body(document, doc.variables, rng.choice((None, None, "Op1", "Nope")))
    elif kind == "depth_bomb":
        body = json_body(depth_bomb(rng), {})
    elif kind == "alias_bomb":
        body = json_body(alias_bomb(rng), {})
    elif kind == "fragments":
        body = json_body(fragments_document(rng, schema), {})
    elif kind == "huge_values":
        document, variables = huge_values(rng, max_body)
        body = json_body(document, variables)
    elif kind == "syntax_damage":
        body = json_body(syntax_damage(rng, schema), {})
    elif kind == "malformed_json":
        document, _ = random_document(rng, schema)
        body = malformed_json(rng, document)
    elif kind == "bad_encoding":
        document, _ = random_document(rng, schema)
        body, headers = bad_encoding(rng, document)
    elif kind == "content_type":
        document, variables = random_document(rng, schema)
        body, headers = content_type_case(rng, document, variables)
    elif kind == "oversized":
        body, headers = oversized(rng, max_body)
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
            body = json_body(document, variables)
    else:  # no_key
        document, variables = random_document(rng, schema, root=rng.choice(("query", "mutation", "mutation")))
        body = json_body(document, variables)
        key = rng.choice(
            (None, "", "Bearer", "Bearer nope", "Basic YTpi", "Bearer " + "x" * 5000, "bearer \u00e9")
        )
        authenticated = False
        if key is not None:
            headers += (("authorization", key),)
    return Case(index, kind, "http", method, headers, body, params, authenticated=authenticated)
