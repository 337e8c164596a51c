"""The bench's local-server reply to the planner prompt: the rule plan, read back unchanged by the
LLM planner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

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
    read = _plan_of(
        rule_reply({"question": question, "asked_at": "2023-06-14T13:43:00Z"}), question, ASKED, USAGE
    )
    assert read.source == "llm" and read.notes == []
    assert (read.window, read.order, read.kind, read.entities) == (
        rules.window,
        rules.order,
        rules.kind,
        rules.entities,
    )
    assert (read.llm_calls, read.prompt_tokens, read.completion_tokens) == (1, 120, 30)


def test_a_question_in_another_offset_reads_back_in_its_calendar() -> None:
    # 6 December 01:30 in +05:00: yesterday is 5 December there, from 19:00 UTC on the 4th.
    asked = datetime(2026, 12, 6, 1, 30, tzinfo=timezone(timedelta(hours=5)))
    reply = rule_reply({"question": "What did I do yesterday?", "asked_at": "2026-12-06T01:30:00+05:00"})
    read = _plan_of(reply, "What did I do yesterday?", asked, USAGE)
    assert read.window == plan_question("What did I do yesterday?", asked).window
    assert read.window is not None and read.window.start == datetime(2026, 12, 4, 19, tzinfo=UTC)
