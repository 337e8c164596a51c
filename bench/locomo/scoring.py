"""Scoring recall (pure): evidence reached per question, answer tokens in a context, and the
per-category means."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench.common import count_tokens, normalize_answer
from bench.locomo.data import CATEGORIES, Question, Sample
from bench.locomo.results import LME_GROUP, BudgetSummary, ByCategory, ContextScore, GroupSummary
from consolidation.providers.embedding_template import day_text
from consolidation.types import Context, Recall, RecallHit

LAYERS = ("subconscious", "episodic", "semantic")
# Session-level recall: any gold session among the top k ranked sessions (LongMemEval's figure).
SESSION_KS = (5, 10)


@dataclass
class QuestionResult:
    """One line of NAME-questions.jsonl."""

    mode: str
    sample: str
    index: int
    category: int
    question: str
    evidence: list[str]
    resolved: int
    reached: int
    recall: float | None  # None: no evidence id resolved, the question is skipped
    context_tokens: int
    reached_by_layer: dict[str, int] = field(default_factory=dict)
    # Per token budget: evidence recall, answer-token recall and size of the assembled context.
    at_tokens: dict[str, ContextScore] = field(default_factory=dict)
    # Per token budget: whether the context found nothing relevant (its rule off: filled anyway).
    nothing_relevant: dict[str, bool] = field(default_factory=dict)
    # Per token budget: the SHA-256 of the assembled context's text (bench/locomo/contexts.py).
    context_hashes: dict[str, str] = field(default_factory=dict)
    # raw mode: the source refs of the 10 dense (vector-only) hits, comparable across databases.
    dense_refs: list[str] = field(default_factory=list)
    prediction: str | None = None
    gold: str | None = None
    f1: float | None = None
    bleu1: float | None = None
    judge: bool | None = None
    lme_type: str | None = None
    # Per k of SESSION_KS: 1.0 when a gold session is among the k best-ranked sessions, else 0.0;
    # None (or absent) when no evidence names a session.
    session_recall: dict[str, float | None] = field(default_factory=dict)
    # The answer-token recall of the evidence turns alone (`answer_in_evidence`); None when no
    # evidence turn was streamed or the answer has no tokens.
    answer_in_evidence: float | None = None


def resolve_evidence(evidence: Sequence[str], refs: Mapping[str, str], ids: Mapping[str, str]) -> list[str]:
    """Interaction ids of the evidence turns that were streamed; one entry per evidence id."""
    resolved = []
    for dia_id in evidence:
        ref = refs.get(dia_id)
        if ref is not None and ref in ids:
            resolved.append(ids[ref])
    return resolved


def reached_interactions(recall: Recall) -> dict[str, set[str]]:
    """Per layer, the interactions its hits rest on (DERIVED_FROM for episodes and facts)."""
    layers = {"subconscious": recall.subconscious, "episodic": recall.episodic, "semantic": recall.semantic}
    return {name: {i for hit in hits for i in hit.interaction_ids} for name, hits in layers.items()}


def recalled_context(recall: Recall) -> str:
    """What an answer prompt would carry: every hit's text, facts first (as `answer` orders them)."""
    return "\n".join(hit.text for hit in recall.all_hits())


def token_prefix(hits: Sequence[RecallHit], budget: int) -> list[RecallHit]:
    """The leading hits whose texts (newline-joined) fit in `budget` tokens."""
    kept: list[RecallHit] = []
    used = -1  # no separator before the first text
    for hit in hits:
        used += count_tokens(hit.text) + 1
        if used > budget:
            break
        kept.append(hit)
    return kept


def score_question(
    question: Question, evidence_ids: Sequence[str], by_layer: Mapping[str, set[str]]
) -> tuple[int, float | None, dict[str, int]]:
    """(reached, share reached or None, reached per layer) for one question's resolved evidence."""
    everything: set[str] = set().union(*by_layer.values()) if by_layer else set()
    reached = sum(1 for i in evidence_ids if i in everything)
    per_layer = {name: sum(1 for i in evidence_ids if i in ids) for name, ids in by_layer.items()}
    share = reached / len(evidence_ids) if evidence_ids else None
    return reached, share, per_layer


def ranked_sessions(recall: Recall, session_of_id: Mapping[str, int]) -> list[int]:
    """Sessions in the order of their best-ranked item in `recall` (every layer, by rank score;
    an episode or fact stands for the sessions of the turns it rests on)."""
    order: dict[int, None] = {}
    for hit in sorted(recall.all_hits(), key=lambda h: h.rank_score, reverse=True):
        for interaction in hit.interaction_ids:
            session = session_of_id.get(interaction)
            if session is not None:
                order.setdefault(session)
    return list(order)


def session_recall(gold: set[int], ranked: Sequence[int]) -> dict[str, float | None]:
    """Per k of SESSION_KS: whether any gold session is among the first k of `ranked`."""
    return {str(k): (float(bool(gold & set(ranked[:k]))) if gold else None) for k in SESSION_KS}


def answer_token_recall(gold: str, context: str) -> float | None:
    """The share of the gold answer's tokens (normalized as SQuAD does: lower case, no
    punctuation or articles) found in the context, counted with multiplicity; None for an empty
    answer."""
    wanted = Counter(normalize_answer(gold))
    if not wanted:
        return None
    found = Counter(normalize_answer(context))
    return sum((wanted & found).values()) / sum(wanted.values())


def answer_in_evidence(question: Question, sample: Sample) -> float | None:
    """The answer-token recall of the question's evidence turns alone, each as a context shows a
    turn (its day, speaker and text): what a context of them and nothing else scores. A mode
    scoring above it found some of the answer's words in other turns."""
    wanted = {ref for dia_id in question.evidence if (ref := sample.refs.get(dia_id)) is not None}
    turns = [u for u in sample.units if u.source_ref in wanted]
    lines = [f"{day_text(u.occurred_at)}: {u.speaker}: {u.text}" for u in turns]
    return answer_token_recall(question.answer, "\n".join(lines)) if lines else None


def score_context(question: Question, evidence_ids: Sequence[str], context: Context) -> ContextScore:
    reached = context.interaction_ids
    share = sum(1 for i in evidence_ids if i in reached) / len(evidence_ids) if evidence_ids else None
    return {
        "evidence_recall": share,
        "answer_recall": answer_token_recall(question.answer, context.text),
        "context_tokens": float(context.tokens),
    }


def mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize_questions(results: Sequence[QuestionResult]) -> ByCategory:
    """Per category (and overall): mean evidence recall, mean context tokens, answer metrics."""
    groups: dict[str, list[QuestionResult]] = {
        str(c): [r for r in results if r.category == c] for c in CATEGORIES
    }
    groups["all"] = list(results)
    # LongMemEval's own types, when the data names them.
    for lme_type in sorted({r.lme_type for r in results if r.lme_type}):
        groups[LME_GROUP + lme_type] = [r for r in results if r.lme_type == lme_type]
    return {key: _summarize_group(group) for key, group in groups.items()}


def _summarize_group(group: Sequence[QuestionResult]) -> GroupSummary:
    scored = [r for r in group if r.recall is not None]
    answered = [r for r in group if r.f1 is not None]
    resolved = sum(r.resolved for r in scored)
    budgets = sorted({int(b) for r in scored for b in r.at_tokens})
    summary: GroupSummary = {
        "questions": len(scored),
        "skipped": len(group) - len(scored),
        "evidence_recall": mean([r.recall for r in scored if r.recall is not None]),
        "context_tokens": mean([float(r.context_tokens) for r in scored]),
        "reached_by_layer": {
            layer: round(sum(r.reached_by_layer.get(layer, 0) for r in scored) / resolved, 4)
            if resolved
            else None
            for layer in LAYERS
        },
        "at_tokens": {str(b): _budget_summary(scored, str(b)) for b in budgets},
    }
    sessions = {
        str(k): mean([v for r in scored if (v := r.session_recall.get(str(k))) is not None])
        for k in SESSION_KS
    }
    if any(v is not None for v in sessions.values()):
        summary["session_recall"] = sessions
    ceiling = [r.answer_in_evidence for r in scored if r.answer_in_evidence is not None]
    if ceiling:
        summary["answer_in_evidence"] = mean(ceiling)
    if answered:
        summary["f1"] = mean([r.f1 for r in answered if r.f1 is not None])
        summary["bleu1"] = mean([r.bleu1 for r in answered if r.bleu1 is not None])
        summary["judge_accuracy"] = mean([float(bool(r.judge)) for r in answered])
    return summary


def _budget_summary(scored: Sequence[QuestionResult], budget: str) -> BudgetSummary:
    rows = [r.at_tokens[budget] for r in scored if budget in r.at_tokens]

    def average(key: str) -> float | None:
        values: list[float] = []
        for row in rows:
            value = row.get(key)
            if isinstance(value, int | float):
                values.append(float(value))
        return mean(values)

    return {
        "evidence_recall": average("evidence_recall"),
        "answer_recall": average("answer_recall"),
        "context_tokens": average("context_tokens"),
    }
