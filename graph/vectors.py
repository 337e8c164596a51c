"""Vectors as Cypher parameters."""

from __future__ import annotations

from neo4j.vector import Vector

from graph.validation import VectorValues, require_vector


def vector_param(what: str, values: VectorValues, dimension: int) -> Vector:
    """A checked vector, packed as float32: Bolt carries it as one byte string, where a list of
    floats is packed value by value (docs/benchmarks/service.md#what-was-cut-and-what-each-costs).
    Statements that store one convert it with `toFloatList()`, which needs CYPHER 25."""
    return Vector.from_numpy(require_vector(what, values, dimension))
