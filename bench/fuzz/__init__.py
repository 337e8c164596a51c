"""GraphQL fuzz cases generated from the checked-in SDL, and the runner that sends them.

Shared by bench/fuzz_graphql.py (the full run) and bench/tests/test_fuzz_graphql.py (a fast subset).

Every case is derived from its own `random.Random(f"{seed}:{index}")`, so a run is reproducible
and one case can be regenerated alone (`generate.case(seed, index, ...)`). The kind of case `index` is
`KINDS[index % len(KINDS)]`, so any run of a few dozen cases covers every kind.

The generator walks `graphql.build_schema(api/schema.graphql)`: random root fields with random
(valid or wrong) arguments, inline or as variables, random sub-selections; then mutations of those
documents (depth and alias bombs, fragment floods and cycles, huge strings, lists and numbers,
syntax damage) and of their transport (malformed JSON, invalid UTF-8, lone surrogates, wrong
content types and methods, oversized bodies, missing keys), over HTTP and graphql-transport-ws.

The runner sends cases one at a time (so that a write can be attributed to the request that made
it) and checks what the brief of issue #12 asks: no 5xx, no hang, `extensions.code` on every
error, and no write from a request that answered only errors.

The modules: `case` (a case and its kinds), `values`, `documents` and `hostile` (what documents
say), `bodies`, `http_cases` and `ws_cases` (how they are sent), `generate` (case `index` of run
`seed`), `runner` and `websocket` (sending), `outcome`, `probe`, `health` and `summary` (checking).
"""
