"""bench/many_tenants (`python -m bench.many_tenants`): a run at a tiny size against the test
Neo4j, and its exactness judge."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.many_tenants import Tally, User, judge
from bench.tests.support import run_bench
from graph.models import Hit, Interaction, Owner
from graph.settings import Neo4jSettings

ROOT = Path(__file__).resolve().parents[2]


def _hit(owner: Owner, seq: int, score: float) -> Hit[Interaction]:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    item = Interaction(f"int-{seq}", owner.tenant, owner.user_id, None, "user", "t", at, seq, False, None)
    return Hit(item, score)


def test_judge_counts_only_the_exact_top_k() -> None:
    owner = Owner("t", "u")
    vectors = np.eye(4, dtype=np.float32)
    query = np.array([0.9, 0.4, 0.1, 0.0], dtype=np.float32)
    probe = User(owner, ["a", "b", "c", "d"], [0], vectors=vectors)
    tally = Tally()
    judge(tally, probe, "q", query, 2, [_hit(owner, 1, 0.9), _hit(owner, 2, 0.4)])
    assert (tally.exact, tally.strict) == (1, 1)
    judge(tally, probe, "q", query, 2, [_hit(owner, 1, 0.9), _hit(owner, 3, 0.1)])
    assert tally.exact == 1 and tally.mismatches[0]["missing"] == [1] and tally.mismatches[0]["extra"] == [2]
    judge(tally, probe, "q", query, 2, [_hit(owner, 1, 0.9), _hit(Owner("t", "other"), 2, 0.4)])
    assert tally.exact == 1 and tally.foreign_hits == 1 and tally.checked == 3


def test_many_tenants_bench_smoke(neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    output = tmp_path / "many_tenants.json"
    report, password = run_bench(
        "bench.many_tenants",
        neo4j_settings,
        [
            "--layouts",
            "20x10,2x50",
            "--users-per-tenant",
            "5",
            "--probes",
            "2",
            "--queries",
            "2",
            "--rounds",
            "2",
            "--warmup-rounds",
            "0",
            "--checkpoints",
            "0.5,1.0",
            "--baseline-warmup-s",
            "1",
            "--output",
            str(output),
        ],
        timeout_s=120,
        cwd=ROOT,
    )
    assert json.loads(output.read_text()) == report
    assert output.with_suffix(".png").stat().st_size > 0
    assert report["complete"] is True and report["ingest"]["interactions"] == 300
    checkpoints = report["checkpoints"]
    assert [c["share_target"] for c in checkpoints] == [0.0, 0.5, 1.0]
    assert checkpoints[0]["loaded"] == 2 * 10 + 2 * 50 and checkpoints[-1]["loaded"] == 300
    assert checkpoints[-1]["users_loaded"] == {"20x10": 20, "2x50": 2}
    for checkpoint in checkpoints:
        for layout in ("20x10", "2x50"):
            for mode in ("budgets", "tokens_1000"):
                measured = checkpoint["layouts"][layout][mode]
                assert measured["recalls"] == 2 * 2 * 2
                assert measured["exact_share"] == 1.0 and measured["foreign_hits"] == 0
                assert 0 < measured["p50_ms"] <= measured["p99_ms"]
    target = report["targets"]
    assert target["layout"] == "20x10" and target["exact_met"] is True
    assert set(target["p99"]) == {"budgets", "tokens_1000"}
    assert password is None or password not in report["command"]
