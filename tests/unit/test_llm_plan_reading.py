"""The LLM planner's reading of a reply (consolidation/recall/planning/llm.py): a bad window is
dropped and said, the rest kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from consolidation.consolidating.prompts.plan_question import PlanReply
from consolidation.providers.llm.types import Usage
from consolidation.recall.planning import Order, QuestionKind
from consolidation.recall.planning.llm import _plan_of

ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)
USAGE = Usage("m", prompt_tokens=120, completion_tokens=30, latency_ms=5.0)


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
    read = _plan_of(reply, ASKED, USAGE)
    assert read.window is None and len(read.notes) == 1 and note in read.notes[0]
    assert (read.order, read.kind, read.entities) == (Order.EARLIEST, QuestionKind.DURATION, ["Ann"])


def test_a_time_with_an_offset_is_read_as_utc() -> None:
    reply = PlanReply(window_start="2023-05-01T02:00:00+02:00", window_end="2023-05-02")
    window = _plan_of(reply, ASKED, USAGE).window
    assert window is not None and window.start == datetime(2023, 5, 1, tzinfo=UTC)
