"""NAME.png: construction cost, recall per category, context size, and recall against context
size, one panel each."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.locomo.construction import CONSTRUCTION_OPS
from bench.locomo.data import CATEGORIES
from bench.locomo.markdown import budgets_of
from bench.locomo.results import ByCategory, ModeReport, Report


def draw_chart(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = report["modes"]
    names = list(modes)
    recalls = {m: modes[m]["recall"]["by_category"] for m in names}
    recalls |= {v: data["by_category"] for v, data in report.get("recall_variants", {}).items()}
    figure, axes = plt.subplots(2, 3, figsize=(17, 9.6))
    (cost, recall, size), (evidence, answers, temporal) = axes
    _cost_panel(cost, modes, names)
    _recall_panel(recall, recalls)
    size.bar(list(recalls), [by["all"]["context_tokens"] or 0 for by in recalls.values()], color="#7a7a7a")
    size.set_title("recalled context per question (o200k tokens)")
    _curve_panel(evidence, modes, "all", "evidence_recall", "evidence recall vs context tokens")
    _curve_panel(answers, modes, "all", "answer_recall", "answer-token recall vs context tokens")
    _curve_panel(temporal, modes, "2", "answer_recall", "temporal: answer-token recall vs tokens")
    figure.suptitle(
        f"LoCoMo {', '.join(report['samples'])}: {report['embedder']}, {report['llm']['replies']} LLM replies"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


# The axes are matplotlib's (untyped here: matplotlib's stubs are not installed).
def _cost_panel(axis: Any, modes: Mapping[str, ModeReport], names: list[str]) -> None:
    bottom = [0.0] * len(names)
    for op, colour in zip(CONSTRUCTION_OPS, ("#4c72b0", "#dd8452", "#55a868"), strict=True):
        values = [float(modes[m]["construction"]["by_op"].get(op, {}).get("prompt_tokens", 0)) for m in names]
        axis.bar(names, values, bottom=bottom, label=op, color=colour)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for index, total in enumerate(bottom):
        axis.annotate(f"{total / 1000:,.0f}K", (index, total), ha="center", va="bottom")
    axis.set_title("construction prompt tokens")
    axis.legend()


def _recall_panel(axis: Any, recalls: Mapping[str, ByCategory]) -> None:
    names = list(recalls)
    width = 0.8 / max(1, len(names))
    for offset, mode in enumerate(names):
        by = recalls[mode]
        values = [by[str(c)]["evidence_recall"] or 0.0 for c in CATEGORIES]
        xs = [c + (offset - (len(names) - 1) / 2) * width for c in range(len(CATEGORIES))]
        axis.bar(xs, values, width, label=mode)
    axis.set_xticks(range(len(CATEGORIES)), list(CATEGORIES.values()))
    axis.set_ylim(0, 1)
    axis.set_title("evidence recall (budgets 10/5/10)")
    axis.legend(fontsize="small", loc="upper left")


def _curve_panel(axis: Any, modes: Mapping[str, ModeReport], category: str, key: str, title: str) -> None:
    for mode, data in modes.items():
        curve = data["recall"]["by_category"][category]["at_tokens"]
        budgets = sorted(curve, key=int)
        values = [curve[b].get(key) or 0.0 for b in budgets]
        axis.plot([int(b) for b in budgets], values, marker="o", label=mode)
    axis.set_xscale("log")
    axis.minorticks_off()  # log-scale minor labels would overprint the budgets
    axis.set_xticks([int(b) for b in budgets_of(modes)], budgets_of(modes))
    axis.set_ylim(0, 1)
    axis.set_title(title)
    axis.legend(fontsize="small", loc="lower right")
