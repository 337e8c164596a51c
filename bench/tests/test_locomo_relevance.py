"""bench/locomo/relevance.py: the rule's on figures are the off figures with flagged contexts emptied."""

from __future__ import annotations

from typing import Any

import pytest

from bench.locomo.relevance import summarize

pytestmark = pytest.mark.bench


def _row(category: int, evidence: float, answer: float, tokens: float, flagged: bool) -> dict[str, Any]:
    return {
        "mode": "raw",
        "category": category,
        "recall": evidence,
        "at_tokens": {
            "500": {"evidence_recall": evidence, "answer_recall": answer, "context_tokens": tokens}
        },
        "nothing_relevant": {"500": flagged},
    }


def test_flagged_contexts_count_as_empty_with_the_rule_on() -> None:
    rows = [_row(1, 1.0, 0.5, 400, False), _row(5, 0.0, 0.25, 300, True), _row(5, 0.5, 0.0, 100, False)]
    figures = summarize(rows)["raw"]["500"]
    assert figures["questions"] == 3 and figures["empty_with_evidence"] == 1
    assert figures["evidence_recall_off"] == figures["evidence_recall_on"] == 0.5
    assert (figures["answer_recall_off"], figures["answer_recall_on"]) == (0.25, 0.1667)
    assert (figures["adversarial_questions"], figures["adversarial_empty"]) == (2, 1)
    assert (figures["adversarial_tokens_off"], figures["adversarial_tokens_on"]) == (200.0, 50.0)
