"""bench/two_processes (`python -m bench.two_processes`): the backlog reading, and a short run of
two real `recmem serve` processes on the test Neo4j."""

from __future__ import annotations

import os
from pathlib import Path

from bench.tests.support import run_bench
from bench.two_processes import Sample, pending_at
from graph.settings import Neo4jSettings
from tests.support.engines import TEST_TEMPLATE


def _samples(*rows: tuple[float, int]) -> list[Sample]:
    return [{"after_s": after, "pending": pending, "waiting": 0} for after, pending in rows]


def test_pending_at_a_moment_is_the_last_reading_by_then() -> None:
    drained = _samples((0.0, 50), (10.0, 20), (30.0, 0))
    assert (pending_at(drained, 5.0), pending_at(drained, 10.0), pending_at(drained, 60.0)) == (50, 20, 0)
    # Sampling stopped at its limit with work left: that work is what the moment had.
    stuck = _samples((0.0, 50), (45.0, 40), (90.0, 30))
    assert (pending_at(stuck, 60.0), pending_at(stuck, 90.0)) == (40, 30)


def test_two_processes_bench_smoke(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    output = tmp_path / "two.json"
    env = os.environ | {"RECMEM_EMBEDDING_TEMPLATE": TEST_TEMPLATE}
    options = ["--writers", "4", "--seconds", "3", "--drain-limit", "120", "--output", str(output)]
    options += ["--workdir", str(tmp_path / "work")]
    report, password = run_bench(
        "bench.two_processes", neo4j_settings, options, timeout_s=600, cwd=tmp_path, env=env
    )
    assert report["processes"] == 2 and report["acknowledged"] > 0 and not report["errors"]
    assert report["every_acknowledged_stored_once"] and report["seq_exact_per_user"]
    assert report["pending_60s_after_stop"] == 0 and report["target"]["met"]
    assert output.exists() and (password is None or password not in output.read_text())
