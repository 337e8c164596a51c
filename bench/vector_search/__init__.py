"""Per-user vector search on a real Neo4j (`python -m bench.vector_search`, bench/vector_search/cli.py).

The modules: `data` (scenarios, vectors, loading), `measure` (searches scored against the exact
answer), `results` (the report's typed shapes) and `cli`.
"""
