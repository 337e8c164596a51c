"""Whether a recall found anything relevant to its query: a floor on each view's own score.

A candidate is relevant when its dense cosine to the query reaches the recurrence threshold
(`theta_sim`: the similarity at which the gate calls two texts one topic, calibrated per embedder
by `recmem calibrate`), or when its BM25 score over the user's items reaches ln 2, the full weight
of a word held by half of them (a word in more of them weighs less, so common words alone seldom
reach it). A recall with no relevant candidate in any layer found nothing relevant.
docs/design/context-assembly.md#nothing-relevant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from graph.models import Hit
from graph.recall import RecallCandidates

LEXICAL_FLOOR = math.log(2.0)


def anything_relevant(found: RecallCandidates, dense_floor: float) -> bool:
    """True when some candidate of some layer clears its view's floor (module docstring)."""
    dense: list[Sequence[Hit[Any]]] = [found.interactions.dense, found.episodes.dense, found.facts.dense]
    lexical: list[Sequence[Hit[Any]]] = [
        found.interactions.lexical,
        found.episodes.lexical,
        found.facts.lexical,
    ]
    return any(_clears(h, dense_floor) for h in dense) or any(_clears(h, LEXICAL_FLOOR) for h in lexical)


def _clears(hits: Sequence[Hit[Any]], floor: float) -> bool:
    return any(h.score >= floor for h in hits)
