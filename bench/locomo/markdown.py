"""NAME.md: the report's tables (construction, recall per category, recall under token budgets,
answers) and its targets, in Markdown."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from bench.common import markdown_table
from bench.locomo.construction import CONSTRUCTION_OPS
from bench.locomo.data import CATEGORIES
from bench.locomo.results import (
    LME_GROUP,
    ByCategory,
    GroupSummary,
    ModeReport,
    Report,
    Targets,
    VariantReport,
    lme_types,
)
from consolidation.providers.calibration import REFERENCE_THETA_SIM

# The rows of the per-category tables: the four categories, then every question.
KEYS = [*(str(c) for c in CATEGORIES), "all"]
CATEGORY_HEADERS = [f"{k} {CATEGORIES[int(k)]}" for k in KEYS[:-1]]


def markdown_report(report: Report) -> str:
    modes = report["modes"]
    parts = [f"# LoCoMo: {', '.join(report['samples'])} ({report['unit']} units, {report['embedder']})", ""]
    parts += [_settings_lines(report), "", "## Construction", "", _construction_table(modes), ""]
    parts += [
        "## Evidence recall per category (mean context tokens per question)",
        "",
        _recall_table(modes, report.get("recall_variants", {})),
        "",
    ]
    parts += [
        "## Under a token budget: evidence recall / answer-token recall (mean context tokens)",
        "",
        _budget_tables(modes),
        "",
    ]
    if any("session_recall" in m["recall"]["by_category"]["all"] for m in modes.values()):
        parts += [
            "## Per question type: session recall @5 / @10, answer tokens in the evidence turns, "
            "answer-token recall per token budget",
            "",
            _type_table(modes),
            "",
        ]
    if report.get("skipped"):
        parts += [
            "## Skipped",
            "",
            *(f"- {s['mode']} {s['sample']} {s['what']}: {s['reason']}" for s in report["skipped"]),
            "",
        ]
    if any("f1" in m["recall"]["by_category"]["all"] for m in modes.values()):
        parts += ["## Answers (token F1 / BLEU-1 / judge accuracy)", "", _answer_table(modes), ""]
    parts += ["## Targets", "", *target_lines(report["targets"]), ""]
    return "\n".join(parts)


def fmt(value: object, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _planner_line(report: Report) -> str:
    planner = report.get("planner") or {}
    plans, sources = planner.get("plans", 0), planner.get("by_source", {})
    line = f"- planner: {planner.get('kind', '-')}, {plans:,} plans {sources}"
    if planner.get("llm_calls"):
        line += (
            f", {planner['llm_calls']:,} LLM calls, {planner['prompt_tokens']:,} prompt / "
            f"{planner['completion_tokens']:,} completion tokens, fallbacks {planner['fallbacks']}"
        )
    return line


def _settings_lines(report: Report) -> str:
    calibration = report.get("calibration") or {}
    wall = report["wall_s"]
    lines = [
        f"- command: `{report['command']}`",
        f"- LLM: {report['llm']['kind']} ({report['llm']['model']}, replies: {report['llm']['replies']})",
        "- thresholds: " + "; ".join(f"{m}: {json.dumps(t)}" for m, t in report["thresholds"].items()),
        f"- theta_sim: {report['theta_sim']['used']} ({report['theta_sim']['source']}); "
        f"calibrated {calibration.get('theta_sim', '-')} (target {calibration.get('target', '-')}), "
        f"RecMem default {REFERENCE_THETA_SIM}",
        _planner_line(report),
        f"- wall time: {wall['total']} s in all, of which {wall['embedding']} s "
        f"embedding turns and questions once, up front, and {wall.get('calibration', 0)} s "
        "calibrating",
    ]
    return "\n".join(lines)


def _construction_table(modes: Mapping[str, ModeReport]) -> str:
    headers = [
        "mode",
        "LLM calls",
        "prompt tokens",
        "completion tokens",
        "create / merge / refine calls",
        "consolidated",
        "triggered",
        "by salience",
        "wall s",
    ]
    rows = []
    for mode, data in modes.items():
        c = data["construction"]
        ops = "/".join(fmt(c["by_op"].get(op, {}).get("calls", 0)) for op in CONSTRUCTION_OPS)
        rows.append(
            [
                mode,
                fmt(c["llm_calls"]),
                fmt(c["prompt_tokens"]),
                fmt(c["completion_tokens"]),
                ops,
                f"{fmt(c['interactions_consolidated'])} ({_pct(c['consolidated_share'])})",
                f"{fmt(c['triggered'])} ({_pct(c['trigger_share'])})",
                f"{fmt(c['salience_triggered'])} ({_pct(c['salience_share'])})",
                fmt(c["wall_s"], 1),
            ]
        )
    return markdown_table(headers, rows)


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}%"


def _recall_rows(
    modes: Mapping[str, ModeReport], variants: Mapping[str, VariantReport]
) -> Iterable[tuple[str, ByCategory, float | None]]:
    """(name, summary, recall wall time): the modes, then the variants (which have no time)."""
    for mode, data in modes.items():
        yield mode, data["recall"]["by_category"], data["recall"]["wall_s"]
    for name, variant in variants.items():
        yield name, variant["by_category"], None


def _recall_table(modes: Mapping[str, ModeReport], variants: Mapping[str, VariantReport]) -> str:
    headers = ["mode", *CATEGORY_HEADERS, "all", "recall wall s"]
    rows = []
    for name, by, wall_s in _recall_rows(modes, variants):
        cells = [f"{fmt(by[k]['evidence_recall'])} ({fmt(by[k]['context_tokens'], 0)})" for k in KEYS]
        rows.append([name, *cells, fmt(wall_s, 1)])
    first = modes[next(iter(modes))]["recall"]["by_category"]
    counts = ["questions", *(str(first[k]["questions"]) for k in KEYS), ""]
    return markdown_table(headers, [*rows, counts])


def _budget_tables(modes: Mapping[str, ModeReport]) -> str:
    headers = ["tokens", "mode", *CATEGORY_HEADERS, "all"]
    rows = []
    for budget in budgets_of(modes):
        for mode, data in modes.items():
            by = data["recall"]["by_category"]
            cells = [_budget_cell(by[k], budget) for k in KEYS]
            rows.append([budget, mode, *cells])
    return markdown_table(headers, rows)


def _type_table(modes: Mapping[str, ModeReport]) -> str:
    """Per mode, per group (LongMemEval types when the data has them, else the categories, then
    all): questions, session recall at 5 and 10, the answer tokens the evidence turns hold, and
    answer-token recall at each budget."""
    budgets = budgets_of(modes)
    headers = [
        "mode",
        "type",
        "questions",
        "session@5",
        "session@10",
        "answer in evidence",
        *(f"answer@{b}" for b in budgets),
    ]
    rows = []
    for mode, data in modes.items():
        by = data["recall"]["by_category"]
        types = lme_types(by) or KEYS[:-1]
        for key in [*types, "all"]:
            summary = by[key]
            name = (
                key.removeprefix(LME_GROUP)
                if key.startswith(LME_GROUP)
                else CATEGORIES.get(int(key), key)
                if key.isdigit()
                else key
            )
            sessions = summary.get("session_recall") or {}
            cells = [summary["at_tokens"].get(b) for b in budgets]
            answers = [fmt(c["answer_recall"]) if c is not None else "-" for c in cells]
            rows.append(
                [
                    mode,
                    name,
                    summary["questions"],
                    fmt(sessions.get("5")),
                    fmt(sessions.get("10")),
                    fmt(summary.get("answer_in_evidence")),
                    *answers,
                ]
            )
    return markdown_table(headers, rows)


def _budget_cell(summary: GroupSummary, budget: str) -> str:
    cell = summary["at_tokens"].get(budget)
    if cell is None:
        return "- / - (-)"
    return f"{fmt(cell['evidence_recall'])} / {fmt(cell['answer_recall'])} ({fmt(cell['context_tokens'], 0)})"


def budgets_of(modes: Mapping[str, ModeReport]) -> list[str]:
    found = {b for data in modes.values() for b in data["recall"]["by_category"]["all"]["at_tokens"]}
    return sorted(found, key=int)


def _answer_table(modes: Mapping[str, ModeReport]) -> str:
    headers = ["mode", *CATEGORY_HEADERS, "all"]
    rows = []
    for mode, data in modes.items():
        by = data["recall"]["by_category"]
        rows.append([mode, *(_answer_cell(by[k]) for k in KEYS)])
    return markdown_table(headers, rows)


def _answer_cell(summary: GroupSummary) -> str:
    values = (summary.get("f1"), summary.get("bleu1"), summary.get("judge_accuracy"))
    return " / ".join(fmt(value) for value in values)


def target_lines(targets: Targets) -> list[str]:
    lines = []
    tokens = targets.get("prompt_tokens_vs_eager")
    if tokens:
        lines.append(
            f"- recmem construction prompt tokens / eager's: {tokens['ratio']} "
            f"(limit {tokens['limit']}): {_met(tokens['met'])}"
        )
    top10 = targets.get("raw_top10")
    if top10:
        lines.append(
            f"- raw layer alone, top 10: evidence recall {top10['evidence_recall']} "
            f"(limit {top10['limit']}): {_met(top10['met'])}"
        )
    for check in targets.get("at_tokens_vs_raw", []):
        if check["budget"] is None:
            lines.append(
                f"- {check['row']}, {check['what']}: {fmt(check['difference'])} "
                f"(at least {check['margin']:.2f}): {_met(check['met'])}"
            )
            continue
        lines.append(
            f"- at {check['budget']} tokens, {check['row']} minus raw, {check['what']}: "
            f"{_signed(check['difference'])} (at least {check['margin']:+.2f}): {_met(check['met'])}"
        )
    recall = targets.get("evidence_recall_vs_raw")
    if recall:
        gaps = ", ".join(f"{name} {_signed(gap)}" for name, gap in recall["difference"].items())
        lines.append(f"- recmem evidence recall minus raw's: {gaps}: {_met(recall['met'])}")
    return lines or ["- (needs the recmem mode with eager and/or raw)"]


def _met(met: bool) -> str:
    return "met" if met else "MISSED"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"
