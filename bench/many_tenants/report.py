"""The many-tenants chart: recall p50/p99 of each layout's probes as the database fills."""

from __future__ import annotations

from pathlib import Path

from bench.many_tenants.measure import MODES
from bench.many_tenants.results import Report


def draw_chart(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    checkpoints = report["checkpoints"]
    sizes = [c["interactions_in_database"] for c in checkpoints]
    figure, axes = plt.subplots(1, len(MODES), figsize=(6 * len(MODES), 4.2), squeeze=False)
    for axis, mode in zip(axes[0], MODES, strict=True):
        for layout in checkpoints[0]["layouts"]:
            summaries = [c["layouts"][layout][mode.name] for c in checkpoints]
            axis.plot(sizes, [s["p50_ms"] for s in summaries], "--", marker="o", label=f"{layout} probes p50")
            axis.plot(sizes, [s["p99_ms"] for s in summaries], "-", marker="o", label=f"{layout} probes p99")
        axis.set_xscale("symlog", linthresh=max(1, sizes[0]))
        axis.set_xlabel("interactions in the database")
        axis.set_ylabel("recall latency (ms)")
        axis.set_title(f"MemoryEngine.recall, {mode.name}")
        axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
