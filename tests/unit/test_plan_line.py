"""The CLI's plan line: the window's days as the asker reads them, the last day included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from cli.memory import plan_line
from consolidation.recall.planning import plan_question

ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "asked", "line"),
    [
        # The window ends before 1 June: May is 1 to 31 May, not "to 1 Jun".
        ("What did I read in May?", ASKED, "window 1 May 2023 to 31 May 2023 ('in May'), kind lookup"),
        ("What did I do last week?", ASKED, "window 5 Jun 2023 to 11 Jun 2023 ('last week'), kind lookup"),
        # One day is that day.
        ("What did I eat yesterday?", ASKED, "window on 13 Jun 2023 ('yesterday'), kind lookup"),
        ("Who called on 8 May?", ASKED, "window on 8 May 2023 ('8 May'), kind lookup"),
        # 01:30 on 8 May at +05:00 (7 May in UTC): the asker's yesterday is 7 May.
        (
            "What did Ann do yesterday?",
            datetime(2023, 5, 8, 1, 30, tzinfo=timezone(timedelta(hours=5))),
            "window on 7 May 2023 ('yesterday'), kind lookup",
        ),
        ("What is my current job?", ASKED, "order latest, kind lookup"),
    ],
)
def test_the_plan_line_names_the_last_day_included(question: str, asked: datetime, line: str) -> None:
    assert plan_line(plan_question(question, asked)) == line
