"""The LLM planner's reading of a reply (consolidation/recall/planning/llm.py): a bad window is
dropped and said, the rest kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from consolidation.consolidating.prompts import plan_question as prompt
from consolidation.consolidating.prompts.common import DATA_RULES, QUESTION_DATA_RULES
from consolidation.consolidating.prompts.plan_question import PlanReply
from consolidation.providers.llm.types import Usage
from consolidation.recall.planning import Order, QuestionKind
from consolidation.recall.planning.llm import _plan_of

ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)
USAGE = Usage("m", prompt_tokens=120, completion_tokens=30, latency_ms=5.0)
QUESTION = "How long did Ann stay in Rome?"


@pytest.mark.parametrize(
    ("start", "end", "note"),
    [
        ("2023-05-01", None, "needs both"),
        ("May 2023", "June 2023", "unreadable"),
        ("2023-06-01", "2023-06-01", "not after"),
    ],
)
def test_a_bad_window_is_dropped_and_the_rest_kept(start: str, end: str | None, note: str) -> None:
    reply = PlanReply(
        window_start=start, window_end=end, order="earliest", kind="duration", entities=[" Ann ", ""]
    )
    read = _plan_of(reply, QUESTION, ASKED, USAGE)
    assert read.window is None and len(read.notes) == 1 and note in read.notes[0]
    assert (read.order, read.kind, read.entities) == (Order.EARLIEST, QuestionKind.DURATION, ["Ann"])


def test_a_name_the_question_does_not_hold_is_dropped_and_said() -> None:
    reply = PlanReply(entities=["ann", "Rome", "Ann Smith", "Bob", "Ro"])
    read = _plan_of(reply, QUESTION, ASKED, USAGE)
    assert read.entities == ["ann", "Rome"]
    assert read.notes == ["entities dropped, not in the question: 'Ann Smith', 'Bob', 'Ro'"]


def test_a_time_with_an_offset_is_read_as_utc() -> None:
    reply = PlanReply(window_start="2023-05-01T02:00:00+02:00", window_end="2023-05-02")
    window = _plan_of(reply, QUESTION, ASKED, USAGE).window
    assert window is not None and window.start == datetime(2023, 5, 1, tzinfo=UTC)


EAST = datetime(2026, 12, 6, 1, 30, tzinfo=timezone(timedelta(hours=5)))


def test_a_day_is_read_in_the_question_offset() -> None:
    # 5 December in +05:00 starts at 19:00 UTC the day before.
    reply = PlanReply(window_start="2026-12-05", window_end="2026-12-06T00:00")
    window = _plan_of(reply, QUESTION, EAST, USAGE).window
    assert window is not None
    assert (window.start, window.end) == (
        datetime(2026, 12, 4, 19, tzinfo=UTC),
        datetime(2026, 12, 5, 19, tzinfo=UTC),
    )
    # A time with its own offset is that instant, whatever the question's.
    reply = PlanReply(window_start="2026-12-05T00:00:00Z", window_end="2026-12-06")
    window = _plan_of(reply, QUESTION, EAST, USAGE).window
    assert window is not None and window.start == datetime(2026, 12, 5, tzinfo=UTC)


def _shown(asked: datetime) -> str:
    return str(
        prompt.messages(prompt.PlanInput(question="What did I do yesterday?", asked_at=asked))[-1]["content"]
    )


def test_the_prompt_gives_the_question_time_in_its_own_offset() -> None:
    assert '"asked_at": "2026-12-06T01:30:00+05:00"' in _shown(EAST)
    # A UTC question reads as before.
    assert '"asked_at": "2023-06-14T13:43:00Z"' in _shown(ASKED)


def test_the_prompt_says_utc_only_for_a_question_asked_in_utc() -> None:
    def system(asked: datetime) -> str:
        return str(prompt.messages(prompt.PlanInput(question="What?", asked_at=asked))[0]["content"])

    assert system(ASKED).endswith(DATA_RULES)
    assert system(EAST).endswith(QUESTION_DATA_RULES) and DATA_RULES not in system(EAST)
