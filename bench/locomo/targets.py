"""The targets a run is judged by (issue: recall quality), and the dense-hit comparison with
another run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.locomo.data import CATEGORIES
from bench.locomo.results import (
    BudgetTarget,
    ByCategory,
    DenseComparison,
    ModeReport,
    RecallTarget,
    Targets,
    TokenTarget,
    Top10Target,
)
from bench.locomo.scoring import QuestionResult

# The budgets the recall targets are judged at, and the margins.
TARGET_BUDGETS = (500, 1000, 2000)
TARGET_EVIDENCE_MARGIN = 0.03
TARGET_TEMPORAL_ANSWER_MARGIN = 0.05
TARGET_RAW_TOP10 = 0.54
TARGET_TOKEN_RATIO = 0.10


def check_targets(modes: Mapping[str, ModeReport]) -> Targets:
    """recmem: at most a tenth of eager's construction prompt tokens; recall >= raw per category."""
    targets: Targets = {}
    if "recmem" in modes and "eager" in modes:
        targets["prompt_tokens_vs_eager"] = _token_target(modes["recmem"], modes["eager"])
    if "recmem" in modes and "raw" in modes:
        ours, raw = (modes[m]["recall"]["by_category"] for m in ("recmem", "raw"))
        targets["evidence_recall_vs_raw"] = _recall_target(ours, raw)
        targets["at_tokens_vs_raw"] = {str(b): budget_targets(ours, raw, str(b)) for b in TARGET_BUDGETS}
    if "raw" in modes:
        top10 = modes["raw"]["recall"]["by_category"]["all"]["evidence_recall"]
        targets["raw_top10"] = Top10Target(
            evidence_recall=top10,
            limit=TARGET_RAW_TOP10,
            met=top10 is not None and top10 >= TARGET_RAW_TOP10,
        )
    return targets


def _token_target(recmem: ModeReport, eager: ModeReport) -> TokenTarget:
    ours = recmem["construction"]["prompt_tokens"]
    theirs = eager["construction"]["prompt_tokens"]
    ratio = round(ours / theirs, 4) if theirs else None
    return {
        "ratio": ratio,
        "limit": TARGET_TOKEN_RATIO,
        "met": ratio is not None and ratio <= TARGET_TOKEN_RATIO,
    }


def _recall_target(ours: ByCategory, raw: ByCategory) -> RecallTarget:
    gaps = {
        CATEGORIES[c]: gap(ours[str(c)]["evidence_recall"], raw[str(c)]["evidence_recall"])
        for c in CATEGORIES
    }
    known = [g for g in gaps.values() if g is not None]
    return {"difference": gaps, "met": bool(known) and min(known) >= 0}


def budget_targets(ours: ByCategory, raw: ByCategory, budget: str) -> BudgetTarget:
    """At one context size: evidence recall >= raw's in every category and >= raw + 0.03 overall;
    answer-token recall >= raw's overall and >= raw + 0.05 in temporal questions."""

    def difference(category: str, key: str) -> float | None:
        mine, theirs = (by[category]["at_tokens"].get(budget) for by in (ours, raw))
        if mine is None or theirs is None:
            return None
        return gap(_value(mine, key), _value(theirs, key))

    evidence = {CATEGORIES[c]: difference(str(c), "evidence_recall") for c in CATEGORIES}
    overall, answers, temporal = (
        difference("all", "evidence_recall"),
        difference("all", "answer_recall"),
        difference("2", "answer_recall"),
    )
    checks = [
        all(g is not None and g >= 0 for g in evidence.values()),
        overall is not None and overall >= TARGET_EVIDENCE_MARGIN,
        answers is not None and answers >= 0,
        temporal is not None and temporal >= TARGET_TEMPORAL_ANSWER_MARGIN,
    ]
    return {
        "evidence_difference": evidence | {"all": overall},
        "answer_difference": {"all": answers, "temporal": temporal},
        "met": all(checks),
    }


def _value(row: Mapping[str, object], key: str) -> float | None:
    value = row.get(key)
    return float(value) if isinstance(value, int | float) else None


def compare_dense(results: Sequence[QuestionResult], other: Path) -> DenseComparison:
    """How many raw-mode questions got exactly the same dense hits (by source ref, in order) as in
    another run's questions file."""
    theirs = {}
    for line in other.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["mode"] == "raw":
            theirs[(row["sample"], row["index"])] = row.get("dense_refs", [])
    mine = {(r.sample, r.index): r.dense_refs for r in results}
    shared = sorted(set(mine) & set(theirs))
    same = sum(1 for key in shared if mine[key] == theirs[key])
    return {"other_run": str(other), "questions": len(shared), "identical": same}


def gap(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or theirs is None else round(ours - theirs, 4)
