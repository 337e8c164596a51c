"""NAME.json from the run's measurements, and the four files a run writes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

from bench.locomo.chart import draw_chart
from bench.locomo.construction import Construction
from bench.locomo.markdown import markdown_report
from bench.locomo.results import Meta, ModeReport, Report, Skipped, VariantReport
from bench.locomo.scoring import QuestionResult, summarize_questions
from bench.locomo.targets import check_targets


def build_report(
    meta: Meta,
    constructions: Mapping[str, Construction],
    questions: Mapping[str, Sequence[QuestionResult]],
    recall_wall_s: Mapping[str, float],
    variants: Mapping[str, Sequence[QuestionResult]] | None = None,
    skipped: Sequence[Skipped] = (),
) -> Report:
    """`variants`: extra recall rows over a mode's memory (the token-matched raw recall);
    `skipped`: the units and questions the run left out, and why."""
    modes: dict[str, ModeReport] = {
        mode: {
            "construction": constructions[mode].to_json(),
            "recall": {
                "wall_s": recall_wall_s.get(mode, 0.0),
                "by_category": summarize_questions(questions[mode]),
            },
        }
        for mode in constructions
    }
    extra: dict[str, VariantReport] = {
        name: {"by_category": summarize_questions(rows)} for name, rows in (variants or {}).items() if rows
    }
    return Report(
        **meta, skipped=list(skipped), modes=modes, recall_variants=extra, targets=check_targets(modes, extra)
    )


def write_outputs(
    report: Report, questions: Mapping[str, Sequence[QuestionResult]], out: Path, name: str
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / f"{name}.md").write_text(markdown_report(report), encoding="utf-8")
    with (out / f"{name}-questions.jsonl").open("w", encoding="utf-8") as handle:
        for results in questions.values():
            for result in results:
                handle.write(json.dumps(asdict(result)) + "\n")
    draw_chart(report, out / f"{name}.png")
