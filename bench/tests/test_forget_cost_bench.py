"""bench/forget_cost: a smoke run on a tiny LoCoMo-format file, then more forgets of the same user."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bench.tests.support import run_bench
from graph.settings import Neo4jSettings
from tests.support.engines import TEST_TEMPLATE

PHASES = {"plan", "lease", "rebuild", "erase_transaction"}
# Two salient turns (consolidated at once: an episode and a fact each) among chit-chat.
TURNS = [
    ("Ana", "Please remember that I am allergic to peanuts."),
    ("Ben", "Nice weather today."),
    ("Ana", "Remember that my sister Ida lives in Lisbon."),
    ("Ben", "I finished a landscape painting of a lake."),
    ("Ana", "Haha, sounds fun."),
    ("Ben", "My cat Milo knocked over my paint again."),
]


def _write_data(tmp_path: Path) -> Path:
    conversation: dict[str, Any] = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": speaker, "dia_id": f"D1:{i + 1}", "text": text}
            for i, (speaker, text) in enumerate(TURNS)
        ],
    }
    path = tmp_path / "locomo-forget.json"
    path.write_text(json.dumps([{"sample_id": "conv-f", "conversation": conversation, "qa": []}]))
    return path


def _check_forget(forget: dict[str, Any]) -> None:
    assert set(forget["phases_s"]) == PHASES
    assert forget["statements"] == sum(s["calls"] for s in forget["by_statement"].values()) > 0
    assert forget["by_statement"]["forget/plan_interaction"]["calls"] >= 1
    assert forget["by_statement"]["forget/delete_nodes"]["calls"] >= 1


def test_forget_cost_bench_smoke(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    data = _write_data(tmp_path)
    env = os.environ | {"RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE}
    options = ["--data", str(data), "--embedder", "hashing", "--turns", "20", "--batch", "3"]
    report, password = run_bench(
        "bench.forget_cost",
        neo4j_settings,
        [*options, "--forgets", "2"],
        timeout_s=300,
        cwd=tmp_path,
        env=env,
    )
    assert report["benchmark"] == "forget_cost" and report["embedder"] == "hashing-v2"
    assert password is None or password not in json.dumps(report)
    assert report["ingested_turns"] == 6 and report["user"]["Interaction"] == 6
    assert report["user"]["Episode"] >= 2 and report["user"]["Fact"] >= 2
    assert {k: v["forgets"] for k, v in report["summary"].items()} == {
        "with_beliefs": 2,
        "without_beliefs": 2,
    }
    with_beliefs, without_beliefs = report["forgets"]["with_beliefs"], report["forgets"]["without_beliefs"]
    assert sorted(f["source_ref"] for f in with_beliefs) == ["s0:D1:1", "s0:D1:3"]
    for forget in with_beliefs:
        _check_forget(forget)
        assert forget["erased"]["episodes"] >= 1 and forget["erased"]["facts"] >= 1
        assert forget["by_statement"]["forget/delete_runs"]["calls"] == 1
    for forget in without_beliefs:
        _check_forget(forget)
        assert forget["resting_episodes"] == forget["resting_facts"] == 0
        assert forget["erased"] == {"episodes": 0, "facts": 0, "runs": 0}
    # --tenant: the same user, nothing ingested, the next candidates forgotten.
    again, _ = run_bench(
        "bench.forget_cost",
        neo4j_settings,
        [*options, "--forgets", "1", "--tenant", report["tenant"]],
        timeout_s=300,
        cwd=tmp_path,
        env=env,
    )
    assert again["tenant"] == report["tenant"] and again["ingested_turns"] == 0
    assert again["user"]["Interaction"] == 2
    for forget in again["forgets"]["with_beliefs"] + again["forgets"]["without_beliefs"]:
        _check_forget(forget)
