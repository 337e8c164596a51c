"""The shapes of what the LoCoMo bench writes: NAME.json's objects, key for key.

TypedDicts rather than dataclasses: the report is JSON, read back by the Markdown and the chart
writers and quoted in docs/benchmarks/locomo.md and the saved JSON, so its keys are the contract.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from bench.machine import MachineInfo

# Per construction op (create_episode, ...): calls, failed, prompt_tokens, completion_tokens.
OpStats = dict[str, int]


class ContextScore(TypedDict):
    """One question's assembled context at one token budget."""

    evidence_recall: float | None
    answer_recall: float | None
    context_tokens: float


class BudgetSummary(TypedDict):
    """The means of `ContextScore` over a group of questions."""

    evidence_recall: float | None
    answer_recall: float | None
    context_tokens: float | None


class GroupSummary(TypedDict):
    """One category's (or all questions') recall, context size and answer metrics."""

    questions: int
    skipped: int
    evidence_recall: float | None
    context_tokens: float | None
    reached_by_layer: dict[str, float | None]
    at_tokens: dict[str, BudgetSummary]
    # Only when evidence names sessions: per k, the share of questions with a gold session among
    # the top k ranked sessions.
    session_recall: NotRequired[dict[str, float | None]]
    # The mean answer-token recall of the evidence turns alone (bench/locomo/scoring.py
    # answer_in_evidence): how much of the answers the evidence holds.
    answer_in_evidence: NotRequired[float | None]
    # Only when the questions were answered (--answers).
    f1: NotRequired[float | None]
    bleu1: NotRequired[float | None]
    judge_accuracy: NotRequired[float | None]


# "1".."4", "all" and, for LongMemEval data, "lme:<type>" -> summary.
ByCategory = dict[str, GroupSummary]
LME_GROUP = "lme:"


def lme_types(by: ByCategory) -> list[str]:
    """The keys of `by` that are LongMemEval types (none for LoCoMo data)."""
    return [key for key in by if key.startswith(LME_GROUP)]


class UsageLog(TypedDict):
    """What the local LLM server logged, against what the ConsolidationRun nodes say."""

    http_calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    agrees_with_runs: bool | None


class ConstructionReport(TypedDict):
    units: int
    wall_s: float
    llm_calls: int
    failed_calls: int
    prompt_tokens: int
    completion_tokens: int
    by_op: dict[str, OpStats]
    interactions_consolidated: int
    consolidated_share: float | None
    triggered: int
    trigger_share: float | None
    salience_triggered: int
    salience_share: float | None
    deferred: int
    server_usage_log: UsageLog | None


class RecallReport(TypedDict):
    wall_s: float
    by_category: ByCategory


class ModeReport(TypedDict):
    construction: ConstructionReport
    recall: RecallReport


class VariantReport(TypedDict):
    """Extra recall rows over a mode's memory (the token-matched raw recall)."""

    by_category: ByCategory


class TokenTarget(TypedDict):
    ratio: float | None
    limit: float
    met: bool


class RecallTarget(TypedDict):
    difference: dict[str, float | None]
    met: bool


class BudgetLine(TypedDict):
    """One acceptance line: `row` minus raw in `what` at `budget` tokens, against its margin (for
    session recall, the value itself against its floor; budget None)."""

    row: str
    budget: int | None
    what: str
    difference: float | None
    margin: float
    met: bool


class Top10Target(TypedDict):
    evidence_recall: float | None
    limit: float
    met: bool


class Targets(TypedDict, total=False):
    """Each target appears only when the modes it compares ran."""

    prompt_tokens_vs_eager: TokenTarget
    evidence_recall_vs_raw: RecallTarget
    at_tokens_vs_raw: list[BudgetLine]
    raw_top10: Top10Target


class DenseComparison(TypedDict):
    other_run: str
    questions: int
    identical: int


class ModeContexts(TypedDict):
    """At one token budget: questions compared, how many got the identical context, the others."""

    questions: int
    identical: int
    differing: list[str]  # "sample#index"


class ContextComparison(TypedDict):
    other_run: str
    modes: dict[str, dict[str, ModeContexts]]  # mode -> token budget -> comparison


class Thresholds(TypedDict):
    theta_sim: float
    theta_count: int
    gate_top_k: int
    merge_threshold: float


class LLMMeta(TypedDict):
    kind: str
    model: str
    replies: str
    answers: bool


class ThetaSimMeta(TypedDict):
    used: float
    source: str
    recmem_default: float


class Meta(TypedDict):
    """What the run was: the report's leading keys."""

    benchmark: str
    command: str
    data: str
    samples: list[str]
    unit: str
    units: int
    questions: int
    categories: dict[int, str]
    embedder: str
    llm: LLMMeta
    tenant: str
    budgets: dict[str, int]
    token_budgets: list[int]
    other_tenants: int
    embedding_template: str
    theta_sim: ThetaSimMeta
    calibration: dict[str, Any] | None
    thresholds: dict[str, Thresholds]
    # What recall's planner did (bench/locomo/planner_tally.py), with the --planner kind.
    planner: dict[str, Any]
    wall_s: dict[str, float]
    machine: MachineInfo
    at: str


class Skipped(TypedDict):
    """One unit or question a run left out, and why (a run never stops on one)."""

    mode: str
    sample: str
    what: str  # "unit <source_ref>" or "question <index>"
    reason: str


class Report(Meta):
    """NAME.json."""

    skipped: list[Skipped]
    modes: dict[str, ModeReport]
    recall_variants: dict[str, VariantReport]
    targets: Targets


class Comparisons(TypedDict, total=False):
    """What --compare-dense and --compare-contexts found against another run."""

    dense_hits_vs_other_run: DenseComparison
    contexts_vs_other_run: ContextComparison


class ComparedReport(Report, Comparisons):
    """NAME.json with --compare-dense or --compare-contexts."""
