"""The bench's local-server reply to the planner prompt: the rule plan, read back unchanged by the
LLM planner."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.common import rule_reply
from consolidation.providers.llm.types import Usage
from consolidation.recall.planning import plan_question
from consolidation.recall.planning.llm import _plan_of

ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)
USAGE = Usage("m", prompt_tokens=120, completion_tokens=30, latency_ms=5.0)


@pytest.mark.parametrize(
    "question",
    [
        "What did I cook last week?",
        "How many times did Caroline go hiking in May 2023?",
        "What is my current job title?",
        "How long ago did I move?",
    ],
)
def test_the_rule_reply_reads_back_as_the_rule_plan(question: str) -> None:
    rules = plan_question(question, ASKED)
    read = _plan_of(rule_reply({"question": question, "asked_at": "2023-06-14T13:43:00Z"}), ASKED, USAGE)
    assert read.source == "llm" and read.notes == []
    assert (read.window, read.order, read.kind, read.entities) == (
        rules.window,
        rules.order,
        rules.kind,
        rules.entities,
    )
    assert (read.llm_calls, read.prompt_tokens, read.completion_tokens) == (1, 120, 30)
