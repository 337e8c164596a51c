"""The adaptive threshold's quantile estimate: it settles where `target` of the scores lie above
it, from any start, and a turn with too few predecessors has no score."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from consolidation.writing.adaptive import recurrence_score, updated
from graph.models import Hit, Interaction
from graph.thresholds import ThresholdEstimate

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def turn(seq: int) -> Interaction:
    return Interaction(
        id=f"int_{seq}", tenant="t", user_id="u", session_id=None, speaker="user", text="x",
        occurred_at=T0, seq=seq, consolidated=False, source_ref=None,
    )  # fmt: skip


def test_the_score_is_the_theta_count_minus_one_th_best_predecessor() -> None:
    candidates = [
        Hit(turn(5), 0.9),
        Hit(turn(1), 0.8),
        Hit(turn(2), 0.6),
        Hit(turn(3), 0.5),
        Hit(turn(9), 0.99),
    ]
    assert recurrence_score(turn(7), candidates, 3) == 0.8  # the later turn 9 does not count
    assert recurrence_score(turn(7), candidates, 6) is None


def test_the_estimate_settles_at_the_target_quantile_from_either_side() -> None:
    rng = random.Random(11)
    scores = [rng.gauss(0.5, 0.1) for _ in range(4000)]
    exact = sorted(scores)[int(0.9 * len(scores))]
    for start in (0.2, 0.9):
        estimate = ThresholdEstimate(start, 0)
        for score in scores:
            estimate = updated(estimate, score, 0.1)
        above = sum(s > estimate.theta_sim for s in scores) / len(scores)
        assert abs(estimate.theta_sim - exact) < 0.03 and 0.07 < above < 0.13, (start, estimate, exact)
        assert estimate.count == len(scores)
