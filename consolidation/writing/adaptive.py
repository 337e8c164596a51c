"""Adaptive recurrence thresholds: each user's theta_sim follows the (1 - target) quantile of that
user's recurrence scores, so that about `target` of the user's turns recur, whatever the embedder.

A turn's recurrence score is the (theta_count - 1)-th highest cosine among its earlier
unconsolidated candidates (what the gate compares with theta_sim; docs/design/calibration.md).
The estimate moves by a Robbins-Monro step per scored turn: up by step * (1 - target) when the
score is above it, down by step * target otherwise; the step shrinks as 1/sqrt(n) to STEP_MIN.
"""

from __future__ import annotations

import math

from graph.models import Hit, Interaction
from graph.thresholds import ThresholdEstimate

STEP = 0.1
STEP_MIN = 0.005


def recurrence_score(unit: Interaction, candidates: list[Hit[Interaction]], theta_count: int) -> float | None:
    """The score the gate would compare with theta_sim; None with too few predecessors."""
    scores = sorted((h.score for h in candidates if h.item.seq < unit.seq), reverse=True)
    needed = max(theta_count - 1, 1)
    return scores[needed - 1] if len(scores) >= needed else None


def updated(estimate: ThresholdEstimate, score: float, target: float) -> ThresholdEstimate:
    """One step of the quantile estimate towards P(score > theta_sim) = target."""
    step = max(STEP / math.sqrt(estimate.count + 1), STEP_MIN)
    moved = estimate.theta_sim + step * ((1.0 if score > estimate.theta_sim else 0.0) - target)
    return ThresholdEstimate(round(min(1.0, max(-1.0, moved)), 6), estimate.count + 1)
