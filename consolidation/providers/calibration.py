"""Derives the recurrence gate's `theta_sim` for an embedder from a sample of conversation text.

Recurrence-rate matching: a unit's score is its (theta_count - 1)-th highest cosine to the earlier
units of its stream, and theta_sim is the (1 - target) quantile of those scores, so that `target`
of the units would open the gate on their own whatever the embedder's cosine scale.
`simulate_gate` replays the gate over the sample. Why, and the method: docs/design/calibration.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from consolidation.providers.embedders import Embedder
from consolidation.settings import PROFILES

REFERENCE_THETA_SIM, DEFAULT_THETA_COUNT = PROFILES["chat"]
REFERENCE_EMBEDDER = "text-embedding-3-small"
# RecMem's merge threshold (0.75) sits this far above its theta_sim (0.7): merging into an episode
# asks for more similarity than recurring does. A calibrated theta_sim keeps the same offset;
# an embedding template that lifts every cosine (a shared "On <date>, <speaker> said:") would
# otherwise let nearly every turn merge.
MERGE_OFFSET = 0.05
DEFAULT_TARGET = 0.10
SWEEP_TARGETS = (0.05, 0.10, 0.15, 0.20, 0.30)
QUANTILES = (0.25, 0.5, 0.75, 0.9, 0.95, 0.99)
DECIMALS = 3

Matrix = npt.NDArray[np.float32]


class CalibrationError(ValueError):
    """The sample cannot support a calibration (too few units, bad parameters)."""


@dataclass(frozen=True)
class GateSimulation:
    """What the recurrence gate would do on the sample at one threshold (merge-first ignored)."""

    theta_sim: float
    trigger_share: float  # units that opened the gate
    consolidated_share: float  # units absorbed into an episode (triggers and their neighbours)


@dataclass(frozen=True)
class Calibration:
    embedder: str
    theta_sim: float
    method: str
    target: float
    merge_threshold: float
    theta_count: int
    gate_top_k: int
    window: int | None
    conversations: int
    units: int
    scored_units: int
    recurring_share_at_reference: float
    recurring_share_at_calibrated: float
    reference_theta_sim: float = REFERENCE_THETA_SIM
    reference_embedder: str = REFERENCE_EMBEDDER
    recurrence_score_quantiles: dict[str, float] = field(default_factory=dict)
    pairwise_similarity_quantiles: dict[str, float] = field(default_factory=dict)
    simulated: dict[str, GateSimulation] = field(default_factory=dict)
    sweep: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- statistics ----------------------------------------------------------------------------------


def similarity_matrix(vectors: Matrix) -> Matrix:
    """Cosines of one stream's unit vectors (rows are L2-normalized by every embedder)."""
    data = np.asarray(vectors, dtype=np.float32)
    return np.asarray(data @ data.T, dtype=np.float32)


def recurrence_scores(vectors: Matrix, theta_count: int, window: int | None = None) -> Matrix:
    """r(u) for every unit with at least theta_count - 1 predecessors (see the module docstring)."""
    _check_count(theta_count)
    rank = theta_count - 1
    sims = similarity_matrix(vectors)
    scores = []
    for index in range(len(sims)):
        start = 0 if window is None else max(0, index - window)
        previous = sims[index, start:index]
        if len(previous) >= rank:
            # The rank-th largest: partition is O(n) and exact, so the result is deterministic.
            scores.append(float(np.partition(previous, len(previous) - rank)[len(previous) - rank]))
    return np.asarray(scores, dtype=np.float32)


def pairwise_similarities(vectors: Matrix) -> Matrix:
    """Every within-stream pair once, for context in the report."""
    sims = similarity_matrix(vectors)
    return np.asarray(sims[np.triu_indices(len(sims), 1)], dtype=np.float32)


def threshold_for(scores: Matrix, target: float) -> float:
    """The (1 - target) quantile of the recurrence scores, rounded for display and stability."""
    if not 0 < target < 1:
        raise CalibrationError("target must lie strictly between 0 and 1")
    if len(scores) == 0:
        raise CalibrationError("no unit has enough predecessors to score: the sample is too small")
    return round(float(np.quantile(scores, 1 - target)), DECIMALS)


def share_at(scores: Matrix, theta_sim: float) -> float:
    return float(np.mean(scores >= theta_sim)) if len(scores) else 0.0


def simulate_gate(
    streams: Sequence[Matrix], theta_sim: float, theta_count: int, top_k: int
) -> GateSimulation:
    """Replay the gate unit by unit: neighbours are unconsolidated predecessors at or above
    theta_sim (the top_k most similar); an open gate consolidates them and the unit."""
    _check_count(theta_count)
    triggers = consolidated = total = 0
    for vectors in streams:
        sims = similarity_matrix(vectors)
        done = np.zeros(len(sims), dtype=bool)
        for index in range(len(sims)):
            open_, neighbours = _gate(sims[index, :index], done[:index], theta_sim, theta_count, top_k)
            if open_:
                triggers += 1
                done[neighbours] = True
                done[index] = True
        consolidated += int(done.sum())
        total += len(sims)
    if total == 0:
        raise CalibrationError("the sample holds no units")
    return GateSimulation(theta_sim, round(triggers / total, 4), round(consolidated / total, 4))


def _gate(
    row: Matrix, done: npt.NDArray[np.bool_], theta_sim: float, theta_count: int, top_k: int
) -> tuple[bool, npt.NDArray[np.intp]]:
    candidates = np.flatnonzero(~done & (row >= theta_sim))
    # Most similar first, ties by position, as the engine's vector search would rank them.
    ordered = candidates[np.lexsort((candidates, -row[candidates]))][:top_k]
    return len(ordered) + 1 >= theta_count, ordered


def _check_count(theta_count: int) -> None:
    if theta_count < 2:
        raise CalibrationError("theta_count must be at least 2")


def _joined(parts: list[Matrix]) -> Matrix:
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, dtype=np.float32)


def _quantiles(values: Matrix) -> dict[str, float]:
    if len(values) == 0:
        return {}
    return {f"p{round(q * 100)}": round(float(np.quantile(values, q)), 4) for q in QUANTILES}


# -- the calibration -----------------------------------------------------------------------------


def calibrate_vectors(
    streams: Sequence[Matrix],
    *,
    embedder: str,
    target: float = DEFAULT_TARGET,
    theta_count: int = DEFAULT_THETA_COUNT,
    gate_top_k: int | None = None,
    window: int | None = None,
) -> Calibration:
    """Calibrate from already embedded streams (one matrix per conversation, rows in order)."""
    if window is not None and window < theta_count - 1:
        raise CalibrationError("window must hold at least theta_count - 1 units")
    top_k = gate_top_k if gate_top_k is not None else 2 * theta_count
    scores = _joined([recurrence_scores(v, theta_count, window) for v in streams])
    theta_sim = threshold_for(scores, target)
    pairs = _joined([pairwise_similarities(v) for v in streams])
    return Calibration(
        embedder=embedder,
        theta_sim=theta_sim,
        method="recurrence-rate matching",
        target=target,
        merge_threshold=round(min(0.99, theta_sim + MERGE_OFFSET), 3),
        theta_count=theta_count,
        gate_top_k=top_k,
        window=window,
        conversations=len(streams),
        units=sum(len(v) for v in streams),
        scored_units=len(scores),
        recurring_share_at_reference=round(share_at(scores, REFERENCE_THETA_SIM), 4),
        recurring_share_at_calibrated=round(share_at(scores, theta_sim), 4),
        recurrence_score_quantiles=_quantiles(scores),
        pairwise_similarity_quantiles=_quantiles(pairs),
        simulated={
            "calibrated": simulate_gate(streams, theta_sim, theta_count, top_k),
            "reference": simulate_gate(streams, REFERENCE_THETA_SIM, theta_count, top_k),
        },
        sweep={f"{t:.2f}": threshold_for(scores, t) for t in SWEEP_TARGETS},
    )


async def calibrate(
    embedder: Embedder,
    streams: Sequence[Sequence[str]],
    *,
    target: float = DEFAULT_TARGET,
    theta_count: int = DEFAULT_THETA_COUNT,
    gate_top_k: int | None = None,
    window: int | None = None,
) -> Calibration:
    """Embed each stream's texts (one batched call per stream) and calibrate on them."""
    matrices = [np.asarray(await embedder.embed(list(texts)), dtype=np.float32) for texts in streams if texts]
    return calibrate_vectors(
        matrices,
        embedder=embedder.name,
        target=target,
        theta_count=theta_count,
        gate_top_k=gate_top_k,
        window=window,
    )
