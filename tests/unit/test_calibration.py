"""Threshold calibration: recurrence scores, the quantile rule, the gate replay and the command."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from cli.calibrate import register
from consolidation.providers.calibration import (
    REFERENCE_THETA_SIM,
    CalibrationError,
    calibrate,
    calibrate_vectors,
    recurrence_scores,
    share_at,
    simulate_gate,
    threshold_for,
)
from consolidation.providers.embedders.hashing import HashingEmbedder


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def angles(*degrees: float) -> np.ndarray:
    """2-D unit vectors at the given angles: cosines between them are known exactly."""
    return np.stack([unit(np.cos(np.radians(d)), np.sin(np.radians(d))) for d in degrees])


def synthetic_stream(seed: int, units: int = 60, dimension: int = 32) -> np.ndarray:
    """Background units in random directions, every third unit on one recurring topic."""
    rng = np.random.default_rng(seed)
    topic = rng.normal(size=dimension)
    rows = [
        topic + rng.normal(scale=0.4, size=dimension) if i % 3 == 0 else rng.normal(size=dimension)
        for i in range(units)
    ]
    matrix = np.asarray(rows, dtype=np.float32)
    unit: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


def test_recurrence_score_is_the_kth_best_predecessor_cosine() -> None:
    stream = angles(0, 60, 90, 0)
    # theta_count 2: the best predecessor; the last unit repeats the first exactly.
    assert recurrence_scores(stream, 2) == pytest.approx([0.5, np.cos(np.radians(30)), 1.0], abs=1e-6)
    # theta_count 3: the second best; only units with two predecessors are scored.
    assert recurrence_scores(stream, 3) == pytest.approx([0.0, 0.5], abs=1e-6)
    # A window of one predecessor sees only the unit just before.
    assert recurrence_scores(stream, 2, window=1) == pytest.approx(
        [0.5, np.cos(np.radians(30)), 0.0], abs=1e-6
    )


def test_threshold_is_the_quantile_that_leaves_the_target_share_above() -> None:
    scores = np.linspace(0.0, 0.99, 100).astype(np.float32)
    theta = threshold_for(scores, 0.10)
    assert theta == pytest.approx(0.891, abs=1e-3)
    assert share_at(scores, theta) == pytest.approx(0.10, abs=0.011)
    with pytest.raises(CalibrationError):
        threshold_for(scores, 1.0)
    with pytest.raises(CalibrationError):
        threshold_for(np.zeros(0, dtype=np.float32), 0.1)


def test_gate_replay_consolidates_recurring_runs() -> None:
    # Three units on one topic, then three on an orthogonal one; theta_count 3.
    stream = angles(0, 0, 0, 90, 90, 90)
    replay = simulate_gate([stream], theta_sim=0.9, theta_count=3, top_k=6)
    assert replay.trigger_share == pytest.approx(2 / 6, abs=1e-4)
    assert replay.consolidated_share == 1.0
    assert simulate_gate([stream], theta_sim=1.01, theta_count=3, top_k=6).consolidated_share == 0.0


def test_calibration_separates_the_recurring_topic_and_is_deterministic() -> None:
    streams = [synthetic_stream(seed) for seed in (1, 2, 3)]
    first = calibrate_vectors(streams, embedder="synthetic", target=0.2, theta_count=3)
    again = calibrate_vectors(streams, embedder="synthetic", target=0.2, theta_count=3)
    assert first == again
    # A third of the units belong to the topic, so a 20% target puts theta among topic similarities,
    # far above random pairs in 32 dimensions (whose cosines sit near 0).
    assert first.theta_sim > 0.5
    assert first.recurring_share_at_calibrated == pytest.approx(0.2, abs=0.02)
    assert first.units == 180 and first.conversations == 3 and first.scored_units == 3 * 58
    assert first.reference_theta_sim == REFERENCE_THETA_SIM
    # More recurrence wanted, lower threshold.
    sweep = list(first.sweep.values())
    assert sweep == sorted(sweep, reverse=True)
    assert 0 < first.simulated["calibrated"].trigger_share <= first.simulated["calibrated"].consolidated_share


def test_calibration_refuses_samples_that_cannot_support_it() -> None:
    with pytest.raises(CalibrationError):
        calibrate_vectors([angles(0, 10)], embedder="x", theta_count=5)
    with pytest.raises(CalibrationError):
        calibrate_vectors([angles(0, 10, 20)], embedder="x", theta_count=2, window=0)


async def test_calibrate_embeds_each_stream() -> None:
    texts = [
        f"we talked about hiking in the alps on day {i}" if i % 2 else f"unrelated chatter {i}"
        for i in range(20)
    ]
    result = await calibrate(HashingEmbedder(64), [texts, list(reversed(texts))], theta_count=3, target=0.25)
    assert result.embedder == "hashing-v2"
    assert result.conversations == 2 and result.units == 40
    assert -1.0 <= result.theta_sim <= 1.0


def test_calibrate_command_prints_the_statistics(tmp_path: Path) -> None:
    path = tmp_path / "units.jsonl"
    at = datetime(2024, 1, 1, tzinfo=UTC).isoformat()
    lines = [
        json.dumps({"text": f"I went hiking with Ana, trip {i % 4}", "occurred_at": at}) for i in range(16)
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a second command keeps typer from flattening the group
    result = CliRunner().invoke(app, ["calibrate", str(path), "--embedder", "hashing", "--theta-count", "3"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["method"] == "recurrence-rate matching"
    assert payload["embedder"] == "hashing-v2"
    assert payload["reference_theta_sim"] == REFERENCE_THETA_SIM
    assert {"theta_sim", "recurrence_score_quantiles", "simulated", "sweep"} <= payload.keys()
