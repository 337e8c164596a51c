"""The service benchmark's report: saved after every phase, runs merged from earlier reports, and
its chart."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench.service.analysis import targets
from bench.service.results import CodeVersion, EmbedderRun, Report

ROOT = Path(__file__).resolve().parents[2]


def code_version() -> CodeVersion:
    """The commit and the files that differed from it when the run started."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "modified": git("status", "--porcelain", "-uno").splitlines()}


def save(report: Report, output: str | None, *, complete: bool) -> str:
    """Write the report (also partially, after each phase, so an interrupted run leaves figures)."""
    report["complete"] = complete
    report["targets"] = targets(report["runs"].get("hashing"))
    text = json.dumps(report, indent=2)
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text + "\n")
    return text


def include_runs(report: Report, path: str) -> None:
    """The runs of an earlier report for embedders not run now, each with where it came from."""
    earlier: dict[str, Any] = json.loads(Path(path).read_text())
    runs = report["runs"]
    found_runs: dict[str, EmbedderRun] = earlier.get("runs", {})
    for found, run in found_runs.items():
        name = found if found not in runs else f"{found}@{Path(path).stem}"
        if name in runs:
            continue
        run["from_report"] = {
            "path": str(path),
            "started_at": earlier.get("started_at"),
            "command": earlier.get("command"),
            "load_average_at_start": earlier.get("load_average_at_start"),
            "load_average_at_end": earlier.get("load_average_at_end"),
            "wall_s": earlier.get("wall_s"),
        }
        runs[name] = run


GAP_BARS = (
    ("http_p50_ms", "HTTP p50"),
    ("http_p99_ms", "HTTP p99"),
    ("floor_p50_ms", "floor p50"),
    ("floor_p99_ms", "floor p99"),
)


def chart(report: Report, path: Path) -> None:
    """Request p50/p99 beside their floors, and the sweep's throughput and ack latency."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = report.get("runs", {})
    nothing: EmbedderRun = {}
    run = runs.get("hashing") or next(iter(runs.values()), nothing)
    gaps: dict[str, Any] = dict(run.get("overheads") or {})
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.6))
    names = [n for n in ("remember_p50", "recall_p50") if n in gaps]
    for offset, (key, label) in enumerate(GAP_BARS):
        values = [gaps[n][key] for n in names]
        left.bar([i + offset * 0.2 for i in range(len(names))], values, 0.2, label=label)
    left.set_xticks([i + 0.3 for i in range(len(names))], [n.split("_")[0] for n in names])
    left.set_ylabel("ms")
    left.set_title("requests over HTTP vs their database floor")
    left.legend(fontsize=8)
    sweep = report.get("concurrency_sweep")
    for label, variant in (sweep["runs"] if sweep else {}).items():
        rows = variant["levels"]
        writers = [r["writers"] for r in rows]
        middle.plot(writers, [r["per_s"] for r in rows], marker="o", label=label)
        right.plot(writers, [r["ack"]["p50_ms"] for r in rows], marker="o", label=f"{label} p50")
        right.plot(
            writers, [r["ack"]["p99_ms"] for r in rows], marker="x", linestyle="--", label=f"{label} p99"
        )
    for axis, title, unit in ((middle, "acknowledged remembers / s", "per s"), (right, "ack latency", "ms")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("concurrent writers")
        axis.set_ylabel(unit)
        axis.set_title(title)
        axis.legend(fontsize=8)
    right.set_yscale("log")
    fig.suptitle(f"bench/service, {run.get('embedder', '?')} embedder, {report.get('started_at', '')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
