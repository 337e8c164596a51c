"""The vector cache's ranking: a shortlist holds the best nodes by cosine, and settles a top k
only when its k-th re-scored hit beats every node left out (graph/vector_cache.py)."""

from __future__ import annotations

import numpy as np
from neo4j.vector import Vector

from graph.vector_cache import LayerVectors, Shortlist, unit_rows


def _rows(rows: dict[str, list[float]]) -> tuple[list[str], np.ndarray]:
    """The ids and unit vectors of `rows`, as a page read from the graph gives them."""
    pairs = [[node_id, Vector.from_numpy(np.asarray(v, dtype=np.float32))] for node_id, v in rows.items()]
    return list(rows), unit_rows(pairs)


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_the_shortlist_holds_the_best_nodes_by_cosine_and_their_floor() -> None:
    layer = LayerVectors(2)
    layer.merge(*_rows({"a": [1, 0], "b": [0, 1], "c": [1, 1], "d": [-1, 0]}))
    found = layer.shortlist(_unit([1, 0.1]), 2)
    assert sorted(found.ids) == ["a", "c"]
    assert abs(found.floor - float(_unit([1, 1]) @ _unit([1, 0.1]))) < 1e-6
    assert not found.complete


def test_a_known_id_gets_its_new_vector_and_a_large_shortlist_is_complete() -> None:
    layer = LayerVectors(2)
    layer.merge(*_rows({"a": [1, 0], "b": [0, 1]}))
    layer.merge(*_rows({"a": [0, -1], "c": [0, 3]}))
    assert layer.ids == ["a", "b", "c"]
    assert layer.shortlist(_unit([0, -1]), 1).ids == ["a"]
    everything = layer.shortlist(_unit([0, -1]), 3)
    assert everything.complete and sorted(everything.ids) == ["a", "b", "c"]


def test_a_top_k_settles_only_above_the_floor_with_k_hits() -> None:
    partial = Shortlist(["a", "b"], 0.5)
    assert partial.settles(3, 3, 0.6)
    assert not partial.settles(3, 3, 0.5)  # a node left out may tie the last hit
    assert not partial.settles(2, 3, 0.9)  # too few qualified: the shortlist must grow
    assert Shortlist(["a"], -2.0).settles(0, 3, None)  # every node was re-scored
