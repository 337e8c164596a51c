"""bench/service (`python -m bench.service`): statistics, targets, non-recurring texts, and a
smoke run against a real `recmem serve` process on the test Neo4j."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from bench.commands import shown_command
from bench.service import TARGET_SIZE, Salads, floors, percentile, summary, targets
from bench.service.results import EmbedderRun
from bench.tests.support import run_bench
from consolidation.providers.embedders.hashing import HashingEmbedder
from graph.settings import Neo4jSettings
from tests.support.engines import TEST_TEMPLATE


def test_percentile_interpolates_like_numpy() -> None:
    values = [float(v) for v in range(1, 101)]
    for q in (0, 50, 90, 99, 100):
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    assert summary([5.0])["p99_ms"] == 5.0


def test_salads_do_not_recur(embedder: HashingEmbedder) -> None:
    """The benchmark relies on its texts never passing the recurrence gate (theta_sim 0.7)."""
    salads = Salads(seed=7)
    texts = [salads.text() for _ in range(300)]
    assert len(set(texts)) == len(texts)
    vectors = np.asarray(embedder.embed_sync(texts))
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0)
    assert similarity.max() < 0.7


def _hashing(recall_p50: float, recall_p99: float, remember_p50: float, ingest: float) -> EmbedderRun:
    """The figures `targets` reads of a run, without the rest of its report."""
    return cast(
        EmbedderRun,
        {
            "recall": {str(TARGET_SIZE): {"latency": {"p50_ms": recall_p50, "p99_ms": recall_p99}}},
            "remember_inline": {"latency": {"p50_ms": remember_p50}},
            "batch_ingest": {"interactions_per_s": ingest},
        },
    )


def test_targets_are_judged_per_figure() -> None:
    met = targets(_hashing(12.0, 40.0, 9.0, 1500.0))
    assert met["all_met"] is True
    missed = targets(_hashing(25.0, 40.0, 9.0, 900.0))
    assert missed["recall_p50"]["met"] is False and missed["recall_p99"]["met"] is True
    assert missed["batch_ingest"]["met"] is False and missed["all_met"] is False
    assert targets(None)["evaluated"] is False


def test_floors_compare_the_database_share_with_each_target() -> None:
    profile = {
        "neo4j_recall_statement": {"p50_ms": 24.0},
        "engine_remember_write_only": {"p50_ms": 9.0},
        "neo4j_commit_unindexed_write": {"p50_ms": 4.5},
    }
    found = floors(cast(EmbedderRun, {"profile_in_process": profile}))
    assert found is not None
    assert found["recall_p50"]["floor_ms"] == 24.0 and found["recall_p50"]["floor_above_target"] is True
    assert found["remember_p50"]["floor_ms"] == 9.0 and found["remember_p50"]["floor_above_target"] is False
    assert found["remember_p50"]["bare_commit_ms"] == 4.5
    assert floors({"profile_in_process": {"error": "neo4j down"}}) is None
    assert floors({}) is None


def test_service_bench_smoke(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    output = tmp_path / "service.json"
    env = os.environ | {"RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE}
    report, _ = run_bench(
        "bench.service",
        neo4j_settings,
        [
            "--embedders",
            "hashing",
            "--modes",
            "inline",
            "--sizes",
            "30",
            "--queries",
            "5",
            "--remember",
            "5",
            "--warmup",
            "1",
            "--neo4j-warmup",
            "3",
            "--gated-batch",
            "10",
            "--settle-limit",
            "5",
            "--max-batch",
            "15",
            "--profile-n",
            "3",
            "--floor-n",
            "3",
            "--sweep-writers",
            "1,2",
            "--sweep-seconds",
            "1",
            "--output",
            str(output),
            "--workdir",
            str(tmp_path),
        ],
        timeout_s=180,
        cwd=tmp_path,
        env=env,
    )
    assert json.loads(output.read_text()) == report
    assert report["complete"] is True
    assert report["machine"]["cpus"] >= 1 and len(report["load_average_at_start"]) == 3
    run = report["runs"]["hashing"]
    assert run["neo4j_warmup"]["requests_per_kind"] == 3 and run["neo4j_warmup"]["loaded"] == 75

    remember = run["remember_inline"]
    assert (
        remember["latency"]["n"] == 5 and 0 < remember["latency"]["p50_ms"] <= remember["latency"]["p99_ms"]
    )
    assert remember["consolidation_actions"] == {"NONE": 5} and remember["llm_calls"] == 0
    assert remember["throughput_per_s"] > 0

    ingest = run["batch_ingest"]
    assert ingest["interactions"] == 30 and ingest["consolidate"] is False
    assert ingest["per_size"]["30"]["batch_latency"]["n"] == 2 and ingest["interactions_per_s"] > 0
    assert (
        run["batch_ingest_gated"]["interactions"] == 10 and run["batch_ingest_gated"]["consolidate"] is None
    )

    recall = run["recall"]["30"]
    assert recall["latency"]["n"] == 5 and recall["budgets"] == {
        "subconscious": 10,
        "episodic": 5,
        "semantic": 10,
    }
    assert 0 < recall["latency"]["p50_ms"] <= recall["latency"]["p99_ms"]
    assert 0 < recall["mean_hits_per_layer"]["subconscious"] <= 10

    service = run["services"][0]
    assert service["consolidation_mode"] == "inline" and service["peak_rss_mb"] > 20
    profile = run["profile_in_process"]
    assert "error" not in profile, profile
    assert profile["engine_recall"]["n"] == 3 and profile["embed_one_query"]["p50_ms"] >= 0
    assert run["attribution"]["recall_p50_ms"]["http_total"] == recall["latency"]["p50_ms"]
    commit = profile["neo4j_commit_unindexed_write"]
    assert commit["n"] == 3 and 0 < commit["p50_ms"] <= commit["p99_ms"]
    assert run["floors"]["remember_p50"]["bare_commit_ms"] == commit["p50_ms"]
    assert run["floors"]["recall_p50"]["floor_ms"] == profile["neo4j_recall_statement"]["p50_ms"]

    # The floors: the same statements straight through the driver, beside the HTTP figures.
    floors_found = run["driver_floors"]
    assert floors_found["remember_write"]["statements"] == ["queries/interactions/write_batch"]
    assert set(floors_found["recall_reads"]["statements"]) >= {"queries/recall/dense"}
    gaps = run["overheads"]
    # Each request over HTTP is measured beside its floor, sample by sample (the same load).
    assert gaps["remember_p50"]["http_p50_ms"] == floors_found["remember_http_interleaved"]["p50_ms"]
    assert floors_found["recall_http_interleaved"]["n"] == floors_found["recall_reads"]["n"] == 3
    assert gaps["recall_p50"]["floor_p50_ms"] == floors_found["recall_reads"]["p50_ms"] > 0
    assert isinstance(gaps["recall_p50"]["within_allowed_gap"], bool)
    # The service's own split of those requests, from its Server-Timing header.
    timing = floors_found["recall_http_server_timing"]
    assert (
        timing["n"] == 3 and timing["round_trip_p50_ms"] == floors_found["recall_http_interleaved"]["p50_ms"]
    )
    assert timing["service_neo4j_p50_ms"] > 0 and timing["service_app_p50_ms"] > 0
    assert gaps["recall_p50"]["by_server_timing"] == timing
    # The sweep: each level's acknowledged writes found stored once, with and without grouping.
    sweep = report["concurrency_sweep"]
    assert set(sweep["runs"]) == {"group_commit", "no_group_commit"}
    for variant in sweep["runs"].values():
        assert [level["writers"] for level in variant["levels"]] == [1, 2]
        for level in variant["levels"]:
            assert level["acknowledged"] > 0 and level["errors"] == {}
            assert level["every_acknowledged_stored_once"] is True and level["seq_exact_per_user"] is True
    assert output.with_suffix(".png").stat().st_size > 1000

    judged = report["targets"]
    assert judged["recall_evaluated_at"] == 30
    for name in ("recall_p50", "recall_p99", "remember_p50_inline", "batch_ingest"):
        assert isinstance(judged[name]["met"], bool)


def test_recorded_commands_hide_passwords() -> None:
    argv = ["--neo4j-uri", "bolt://h:1", "--neo4j-password", "s3cret", "--minilm-neo4j-password=also", "-q"]
    shown = shown_command("python bench/service.py", argv)
    assert "s3cret" not in shown and "also" not in shown
    assert shown == (
        "python bench/service.py --neo4j-uri bolt://h:1 --neo4j-password *** --minilm-neo4j-password=*** -q"
    )
    # An API key too (bench/fuzz_graphql.py --key).
    assert shown_command("fuzz", ["--key", "rmk_live", "--seed", "1"]) == "fuzz --key *** --seed 1"


def test_statements_run_together_are_replayed_together() -> None:
    from bench.service.floors import Params
    from bench.service.floors import waves as _waves

    recorded: list[tuple[str, Params, float, float]] = [
        ("b", {}, 0.0, 5.0),
        ("a", {}, 0.1, 4.0),
        ("c", {}, 6.0, 7.0),
        ("d", {}, 6.5, 8.0),
    ]
    assert [[name for name, _ in wave] for wave in _waves(recorded)] == [["b", "a"], ["c", "d"]]


async def test_floors_follow_their_requests_in_blocks() -> None:
    from types import SimpleNamespace

    from bench.service.floors import WARM, FloorRun, _alternate

    events: list[str] = []
    http = SimpleNamespace(last_timing={"neo4j": 1.0, "app": 2.0, "total": 3.0})
    run = cast(FloorRun, SimpleNamespace(block=3, http=http))

    def request(item: int) -> float:
        events.append(f"h{item}")
        return 10.0 + item

    async def floor(item: int) -> float:
        events.append(f"f{item}")
        return float(item)

    floors_ms, timed = await _alternate(run, list(range(WARM + 3)), request, floor)
    assert events[:6] == ["h0", "h1", "h2", "f0", "f1", "f2"] and len(events) == 2 * (WARM + 3)
    # The warm-up items are dropped; each request stays paired with its own floor.
    assert floors_ms == [5.0, 6.0, 7.0]
    assert [(t.round_trip_ms, t.floor_ms) for t in timed] == [(15.0, 5.0), (16.0, 6.0), (17.0, 7.0)]


def test_the_server_split_pairs_each_request_with_its_floor() -> None:
    from bench.service.floors import Timed, server_split

    samples = [
        Timed(12.0, {"neo4j": 8.0, "app": 2.0, "total": 10.0}, 7.0),
        Timed(14.0, {"neo4j": 9.0, "app": 3.0, "total": 12.0}, 8.5),
        Timed(99.0, {}, 1.0),  # a response without the header does not count
    ]
    split = server_split(samples)
    assert split is not None and split["n"] == 2
    assert split["outside_service_p50_ms"] == 2.0 and split["service_app_p50_ms"] == 2.5
    assert split["service_neo4j_over_floor_p50_ms"] == 0.75
    assert server_split([Timed(1.0, {}, 1.0)]) is None


def test_overheads_put_each_request_beside_its_floor() -> None:
    from bench.service import overheads

    result = {
        "remember_background": {
            "latency": {"p50_ms": 12.0, "p99_ms": 30.0},
            "consolidation_mode": "background",
        },
        "recall": {"1000": {"latency": {"p50_ms": 20.0, "p99_ms": 40.0}}},
        "driver_floors": {
            "remember_write": {"p50_ms": 10.0, "p99_ms": 20.0},
            "recall_reads": {"p50_ms": 15.0, "p99_ms": 25.0},
            "recall_user_interactions": 1000,
        },
        "profile_in_process": {
            "engine_remember_write_only": {"p50_ms": 11.0},
            "engine_recall": {"p50_ms": 16.0},
        },
    }
    found = overheads(cast(EmbedderRun, result))
    assert found is not None
    assert found["remember_p50"]["gap_p50_ms"] == 2.0 and found["remember_p50"]["within_allowed_gap"] is True
    assert found["recall_p50"]["gap_p50_ms"] == 5.0 and found["recall_p50"]["within_allowed_gap"] is False
    split = found["recall_p50"]["split_p50_ms"]
    assert list(split.values()) == [1.0, 4.0]
    assert overheads({"driver_floors": {"error": "down"}}) is None
