"""The rule planner: windows resolved against the question's day, order, kind and names."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from consolidation.recall.planning import Order, QuestionKind, plan_question
from consolidation.recall.planning.relative import before

ASKED = datetime(2023, 6, 14, 13, 43, tzinfo=UTC)  # a Wednesday
EAST = timezone(timedelta(hours=5))
WEST = timezone(timedelta(hours=-8))


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did I eat yesterday?", date(2023, 6, 13), date(2023, 6, 14)),
        # The evening before the day asked, not the day asked.
        ("What did I eat last night?", date(2023, 6, 13), date(2023, 6, 14)),
        ("What did I do last week?", date(2023, 6, 5), date(2023, 6, 12)),
        ("Where did I go last weekend?", date(2023, 6, 10), date(2023, 6, 12)),
        ("What did I buy two months ago?", date(2023, 4, 1), date(2023, 5, 1)),
        ("Who did I meet 10 days ago?", date(2023, 6, 3), date(2023, 6, 6)),
        ("What did I start three weeks ago?", date(2023, 5, 20), date(2023, 5, 29)),
        ("What did I read in May?", date(2023, 5, 1), date(2023, 6, 1)),
        # A month after the question's month: the year before.
        ("Where did I travel in August?", date(2022, 8, 1), date(2022, 9, 1)),
        ("What happened in May 2021?", date(2021, 5, 1), date(2021, 6, 1)),
        ("What happened on May 8, 2023?", date(2023, 5, 8), date(2023, 5, 9)),
        ("Who called on 3 March?", date(2023, 3, 3), date(2023, 3, 4)),
        # "Sept", the abbreviation people write beside "Sep".
        ("What did I start in Sept 2022?", date(2022, 9, 1), date(2022, 10, 1)),
        ("Who called on 12 Sept.?", date(2022, 9, 12), date(2022, 9, 13)),
        ("What did Melanie paint last summer?", date(2022, 6, 1), date(2022, 9, 1)),
        ("What did I plant this spring?", date(2023, 3, 1), date(2023, 6, 1)),
        ("Which concerts did I attend in the past two months?", date(2023, 4, 13), date(2023, 6, 15)),
        ("What did Jon do in 2022?", date(2022, 1, 1), date(2023, 1, 1)),
        ("What did I cook last month?", date(2023, 5, 1), date(2023, 6, 1)),
        # A weekday: the latest one before the day asked ("last": never the day itself).
        ("Who did I meet last Monday?", date(2023, 6, 12), date(2023, 6, 13)),
        ("Where did I eat last Wednesday?", date(2023, 6, 7), date(2023, 6, 8)),
        ("What did I buy this past Friday?", date(2023, 6, 9), date(2023, 6, 10)),
        ("What did I cook on Saturday?", date(2023, 6, 10), date(2023, 6, 11)),
        # "on <weekday>" asked that weekday is the day itself.
        ("What did I do on Wednesday?", date(2023, 6, 14), date(2023, 6, 15)),
    ],
)
def test_a_window_resolves_against_the_day_asked(question: str, start: date, end: date) -> None:
    window = plan_question(question, ASKED).window
    assert window is not None
    assert (window.start.date(), window.end.date()) == (start, end)
    assert window.text.lower() in question.lower()


def _utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


# Near midnight in +05:00 and -08:00 the question's own day differs from its UTC day: the
# calendar is the asker's, and the window its local midnights as UTC instants.
@pytest.mark.parametrize(
    ("question", "asked", "start", "end"),
    [
        # Sunday 6 December 01:30 in +05:00, Saturday 5 December 20:30 in UTC.
        ("What did I do yesterday?", datetime(2026, 12, 6, 1, 30, tzinfo=EAST), _utc(2026, 12, 4, 19), _utc(2026, 12, 5, 19)),
        ("What did I do today?", datetime(2026, 12, 6, 1, 30, tzinfo=EAST), _utc(2026, 12, 5, 19), _utc(2026, 12, 6, 19)),
        ("Who did I call 3 days ago?", datetime(2026, 12, 6, 1, 30, tzinfo=EAST), _utc(2026, 12, 1, 19), _utc(2026, 12, 4, 19)),
        # Monday 7 December 01:30 in +05:00, still Sunday in UTC: last week is the one just ended.
        ("What did I do last week?", datetime(2026, 12, 7, 1, 30, tzinfo=EAST), _utc(2026, 11, 29, 19), _utc(2026, 12, 6, 19)),
        # 1 December 01:30 in +05:00, 30 November in UTC.
        ("What did I buy this month?", datetime(2026, 12, 1, 1, 30, tzinfo=EAST), _utc(2026, 11, 30, 19), _utc(2026, 12, 1, 19)),
        # Saturday 5 December 20:00 in -08:00, Sunday 6 December 04:00 in UTC.
        ("What did I do yesterday?", datetime(2026, 12, 5, 20, tzinfo=WEST), _utc(2026, 12, 4, 8), _utc(2026, 12, 5, 8)),
        ("What did I do today?", datetime(2026, 12, 5, 20, tzinfo=WEST), _utc(2026, 12, 5, 8), _utc(2026, 12, 6, 8)),
        ("Who did I call 3 days ago?", datetime(2026, 12, 5, 20, tzinfo=WEST), _utc(2026, 12, 1, 8), _utc(2026, 12, 4, 8)),
        # Sunday 6 December 20:00 in -08:00, already Monday in UTC: last week is still 23-29 November.
        ("What did I do last week?", datetime(2026, 12, 6, 20, tzinfo=WEST), _utc(2026, 11, 23, 8), _utc(2026, 11, 30, 8)),
        # 30 November 20:00 in -08:00, 1 December in UTC: this month is still November.
        ("What did I buy this month?", datetime(2026, 11, 30, 20, tzinfo=WEST), _utc(2026, 11, 1, 8), _utc(2026, 12, 1, 8)),
        ("What did I read in May?", datetime(2026, 11, 30, 20, tzinfo=WEST), _utc(2026, 5, 1, 8), _utc(2026, 6, 1, 8)),
    ],
)  # fmt: skip
def test_a_window_is_read_in_the_calendar_of_the_question_offset(
    question: str, asked: datetime, start: datetime, end: datetime
) -> None:
    plan = plan_question(question, asked)
    assert plan.window is not None
    assert (plan.window.start, plan.window.end) == (start, end)
    assert plan.window.start.utcoffset() == timedelta(0)  # the store's instants, in UTC
    assert plan.asked_at == asked


def test_a_zero_offset_reads_as_utc() -> None:
    for question in ("What did I do yesterday?", "What did I do last week?", "What did I do in May?"):
        assert plan_question(question, ASKED.astimezone(timezone(timedelta(0)))).window == (
            plan_question(question, ASKED).window
        )


def test_the_same_words_resolve_to_another_window_on_another_day() -> None:
    later = plan_question("What did I do last week?", datetime(2024, 1, 3, tzinfo=UTC)).window
    assert later is not None
    assert later.start.date() == date(2023, 12, 25)


@pytest.mark.parametrize(
    ("question", "asked", "start", "end"),
    [
        # Asked in January, last December is the one just ended.
        ("What did I do last December?", datetime(2024, 1, 15, tzinfo=UTC), date(2023, 12, 1), date(2024, 1, 1)),
        ("Where was I last Dec.?", datetime(2024, 1, 15, tzinfo=UTC), date(2023, 12, 1), date(2024, 1, 1)),
        # "last" skips the month under way, as it skips a season.
        ("What did I do last June?", ASKED, date(2022, 6, 1), date(2022, 7, 1)),
        ("What did I do this past May?", ASKED, date(2023, 5, 1), date(2023, 6, 1)),
        # 1 January 00:30 in +01:00 is still 31 December in UTC: the asker's December is 2023's.
        ("What did I do last December?", datetime(2024, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))), date(2023, 12, 1), date(2024, 1, 1)),
    ],
)  # fmt: skip
def test_last_and_a_month_is_the_latest_such_month_before_the_one_asked_in(
    question: str, asked: datetime, start: date, end: date
) -> None:
    plan = plan_question(question, asked)
    assert plan.window is not None
    window = plan.window.start.astimezone(asked.tzinfo), plan.window.end.astimezone(asked.tzinfo)
    assert (window[0].date(), window[1].date()) == (start, end)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        # Two calendar weeks back, Monday to Monday; "last week" is 5 to 12 June.
        ("What did I do the week before last?", date(2023, 5, 29), date(2023, 6, 5)),
        ("Who visited the weekend before last?", date(2023, 6, 3), date(2023, 6, 5)),
        ("What did I cook the month before last?", date(2023, 4, 1), date(2023, 5, 1)),
        ("Where did I live the year before last?", date(2021, 1, 1), date(2022, 1, 1)),
    ],
)
def test_before_last_is_two_back(question: str, start: date, end: date) -> None:
    window = plan_question(question, ASKED).window
    assert window is not None
    assert (window.start.date(), window.end.date()) == (start, end)
    assert window.text.lower() in question.lower()


JANUARY = datetime(2024, 1, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "asked", "start", "end"),
    [
        # "this <month>" is the month of the question's year, past, under way or ahead (plans).
        ("What are my plans this December?", ASKED, date(2023, 12, 1), date(2024, 1, 1)),
        ("What did I do this May?", ASKED, date(2023, 5, 1), date(2023, 6, 1)),
        ("What did I buy this June?", ASKED, date(2023, 6, 1), date(2023, 7, 1)),
        ("Where do I go this Sep.?", ASKED, date(2023, 9, 1), date(2023, 10, 1)),
        # "this <season>" is the season of the question's year, even one still ahead...
        ("What are my plans this autumn?", ASKED, date(2023, 9, 1), date(2023, 12, 1)),
        ("Where do I go this fall?", ASKED, date(2023, 9, 1), date(2023, 12, 1)),
        ("What will I plant this spring?", JANUARY, date(2024, 3, 1), date(2024, 6, 1)),
        ("What did I plant this spring?", ASKED, date(2023, 3, 1), date(2023, 6, 1)),
        ("Where do I ski this winter?", ASKED, date(2023, 12, 1), date(2024, 3, 1)),
        # ...but a winter under way in January is the one that began in December.
        ("Where did I ski this winter?", JANUARY, date(2023, 12, 1), date(2024, 3, 1)),
    ],
)
def test_this_and_a_month_or_season_is_the_one_of_the_question_year(
    question: str, asked: datetime, start: date, end: date
) -> None:
    window = plan_question(question, asked).window
    assert window is not None
    assert (window.start.date(), window.end.date()) == (start, end)
    assert window.text.lower() in question.lower()


@pytest.mark.parametrize("question", ["Do you think this may help?", "Did this march end at the park?"])
def test_a_lowercase_may_or_march_after_this_is_no_month(question: str) -> None:
    assert plan_question(question, ASKED).window is None


@pytest.mark.parametrize(
    ("question", "asked", "day"),
    [
        ("What did I do on February 29?", datetime(2025, 3, 5, tzinfo=UTC), date(2024, 2, 29)),
        ("What did I do on 29 February?", ASKED, date(2020, 2, 29)),
        # Asked in January, February is the last year's (2023), whose leap day is 2020's.
        ("Where was I on Feb 29th?", datetime(2024, 1, 15, tzinfo=UTC), date(2020, 2, 29)),
        ("Where was I on the 29th of Feb?", datetime(2024, 1, 15, tzinfo=UTC), date(2020, 2, 29)),
        ("What did I do on February 29?", datetime(2024, 3, 5, tzinfo=UTC), date(2024, 2, 29)),
        ("What did I do on February 29?", datetime(2100, 3, 5, tzinfo=UTC), date(2096, 2, 29)),
    ],
)
def test_a_leap_day_without_a_year_is_the_latest_one(question: str, asked: datetime, day: date) -> None:
    plan = plan_question(question, asked)
    assert plan.window is not None
    assert (plan.window.start.date(), plan.window.end.date()) == (day, day + timedelta(days=1))


@pytest.mark.parametrize(
    ("question", "asked", "day"),
    [
        # Asked on 5 May, "8 May" without a year is last year's: this year's is three days ahead.
        ("What happened on 8 May?", datetime(2023, 5, 5, tzinfo=UTC), date(2022, 5, 8)),
        ("What happened on May 8th?", datetime(2023, 5, 5, tzinfo=UTC), date(2022, 5, 8)),
        ("What happened on the 8th of May?", datetime(2023, 5, 5, 23, tzinfo=UTC), date(2022, 5, 8)),
        # The day asked and the days before it in its month are this year's.
        ("What happened on 5 May?", datetime(2023, 5, 5, tzinfo=UTC), date(2023, 5, 5)),
        ("What happened on May 4?", datetime(2023, 5, 5, tzinfo=UTC), date(2023, 5, 4)),
        # 5 May 22:00 in -05:00 is 6 May in UTC: the asker's 6 May is still ahead.
        ("What happened on 6 May?", datetime(2023, 5, 5, 22, tzinfo=timezone(timedelta(hours=-5))), date(2022, 5, 6)),
        # Asked on 10 February 2024, 29 February 2024 is ahead: the latest leap day is 2020's.
        ("What did I do on February 29?", datetime(2024, 2, 10, tzinfo=UTC), date(2020, 2, 29)),
    ],
)  # fmt: skip
def test_a_day_without_a_year_is_the_latest_one_not_after_the_day_asked(
    question: str, asked: datetime, day: date
) -> None:
    plan = plan_question(question, asked)
    assert plan.window is not None
    window = plan.window.start.astimezone(asked.tzinfo), plan.window.end.astimezone(asked.tzinfo)
    assert (window[0].date(), window[1].date()) == (day, day + timedelta(days=1))


def test_a_day_that_does_not_exist_is_no_window() -> None:
    assert plan_question("What did I do on February 29, 2023?", ASKED).window is None
    assert plan_question("What did I do on 31 April?", ASKED).window is None


@pytest.mark.parametrize(
    "question",
    [
        "What did I do last  week?",
        "What did I do last\nweek?",
        "what   did I do   last\tweek?",
        "What did I do last\u00a0week?",
    ],
)
def test_any_run_of_white_space_between_words_reads_as_one_space(question: str) -> None:
    plan = plan_question(question, ASKED)
    assert plan.window is not None
    assert (plan.window.start.date(), plan.window.end.date(), plan.window.text) == (
        date(2023, 6, 5),
        date(2023, 6, 12),
        "last week",
    )


def test_white_space_reads_the_same_for_order_and_kind() -> None:
    assert plan_question("How  many times did I\nswim, at the  moment?", ASKED) == plan_question(
        "How many times did I swim, at the moment?", ASKED
    )


@pytest.mark.parametrize(
    "question",
    ["What do I do on Sundays?", "How long after Holi was the Sunday mass?", "Is the shop open Tuesday?"],
)
def test_a_weekday_without_on_or_last_is_no_window(question: str) -> None:
    assert plan_question(question, ASKED).window is None


def test_an_event_the_rules_cannot_date_is_kept_unresolved() -> None:
    plan = plan_question("What books did I read before I moved to Paris?", ASKED)
    assert plan.window is None
    assert plan.unresolved == ["before I moved to Paris"]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What did I do 5000 years ago?", ASKED),
        ("What did I do 99999999999999999999 days ago?", ASKED),
        ("What changed in the last 1000000 days?", ASKED),
        ("What did I eat yesterday?", datetime(1, 1, 1, tzinfo=UTC)),
        ("Where was I last week?", datetime(1, 1, 3, tzinfo=UTC)),
        ("What did I do this year?", datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ],
)
def test_a_window_outside_the_calendar_is_kept_unresolved(question: str, asked: datetime) -> None:
    plan = plan_question(question, asked)
    assert plan.window is None
    assert len(plan.unresolved) == 1 and plan.unresolved[0].lower() in question.lower()


def test_a_later_expression_resolves_after_one_outside_the_calendar() -> None:
    plan = plan_question("Did I say 5000 years ago last week?", ASKED)
    assert plan.window is not None and plan.window.text == "last week"
    assert plan.unresolved == ["5000 years ago"]


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("What is my current job title?", Order.LATEST),
        ("Where do I live now?", Order.LATEST),
        ("Do I still play the violin?", Order.LATEST),
        ("What did I most recently buy?", Order.LATEST),
        ("Which did I visit first, Rome or Oslo?", Order.EARLIEST),
        ("What was my first car?", Order.EARLIEST),
        ("What is my favourite colour?", None),
    ],
)
def test_order(question: str, order: Order | None) -> None:
    assert plan_question(question, ASKED).order is order


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many times did I go hiking?", QuestionKind.AGGREGATE),
        ("What activities does Melanie enjoy?", QuestionKind.AGGREGATE),
        ("List all the places I lived.", QuestionKind.AGGREGATE),
        ("How many days ago did I go to the dentist?", QuestionKind.DURATION),
        ("How long ago did I adopt the cat?", QuestionKind.DURATION),
        ("How many weeks passed between the trip and the wedding?", QuestionKind.DURATION),
        # A latest value asked for by "how many" is one statement, not a count of them.
        ("How many followers do I currently have?", QuestionKind.LOOKUP),
        ("Where did I park?", QuestionKind.LOOKUP),
    ],
)
def test_kind(question: str, kind: QuestionKind) -> None:
    assert plan_question(question, ASKED).kind is kind


def test_names_are_the_capitalized_words_but_question_words_months_and_i() -> None:
    plan = plan_question("When did Caroline meet Jon Smith in May, and did I join?", ASKED)
    assert plan.entities == ["Caroline", "Jon Smith"]


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        ("Was Bob at the party?", ["Bob"]),
        ("Has Jean ever visited John?", ["Jean", "John"]),
        ("Should I call Anna?", ["Anna"]),
        ("Does Mel still paint?", ["Mel"]),
        ("Am I still working at Acme Corp?", ["Acme Corp"]),
        ("List all the places James's sister visited.", ["James"]),
        ("Tell me what Caroline said about Paris.", ["Caroline", "Paris"]),
    ],
)
def test_auxiliaries_and_requests_are_no_names(question: str, entities: list[str]) -> None:
    assert plan_question(question, ASKED).entities == entities


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        ("Yesterday, what did I do?", []),
        ("Today what did Sam eat?", ["Sam"]),
        ("Currently, where does Ana work?", ["Ana"]),
        ("Two months ago, what did I do?", []),
        ("Recently, who did I meet?", []),
        ("First, where did I work?", []),
        ("Still at Globex?", ["Globex"]),
        ("Now where do I live?", []),
        ("What did I do LAST WEEK?", []),
        ("LAST NIGHT, who called?", []),
        ("What did I do on Mondays?", []),
    ],
)
def test_the_planner_own_time_and_order_words_are_no_names(question: str, entities: list[str]) -> None:
    assert plan_question(question, ASKED).entities == entities


def test_a_plain_question_changes_nothing() -> None:
    plan = plan_question("What is my favourite colour?", ASKED)
    assert plan.empty and not plan.temporal
    assert plan.asked_at == ASKED


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (datetime(2023, 6, 14, 1, tzinfo=UTC), "the same day"),
        (datetime(2023, 6, 13, tzinfo=UTC), "1 day before"),
        (datetime(2023, 6, 1, tzinfo=UTC), "13 days before"),
        (datetime(2023, 5, 24, tzinfo=UTC), "3 weeks before"),
        (datetime(2023, 3, 14, tzinfo=UTC), "3 months before"),
        (datetime(2020, 6, 1, tzinfo=UTC), "3 years before"),
        (datetime(2023, 6, 16, tzinfo=UTC), "2 days after"),
    ],
)
def test_how_long_before_the_question(said: datetime, shown: str) -> None:
    assert before(said, ASKED) == shown


@pytest.mark.parametrize(
    ("said", "asked", "shown"),
    [
        (_utc(2020, 6, 15), datetime(2024, 6, 14, tzinfo=UTC), "3 years before"),
        (_utc(2020, 6, 14), datetime(2024, 6, 14, tzinfo=UTC), "4 years before"),
        (_utc(2023, 3, 16), datetime(9999, 12, 31, tzinfo=UTC), "7976 years before"),
        (_utc(2030, 6, 13), datetime(2020, 6, 14, tzinfo=UTC), "9 years after"),
    ],
)
def test_years_are_whole_calendar_years(said: datetime, asked: datetime, shown: str) -> None:
    # A year is not 365 days: 4 years less a day hold a leap day, and 1,460 days are no 4 years.
    assert before(said, asked) == shown


@pytest.mark.parametrize(
    ("said", "asked", "shown"),
    [
        # 59 and 60 days: 365/12-day months counted one.
        (_utc(2023, 1, 8), datetime(2023, 3, 8, tzinfo=UTC), "2 months before"),
        (_utc(2024, 1, 8), datetime(2024, 3, 8, tzinfo=UTC), "2 months before"),
        (_utc(2023, 2, 1), datetime(2023, 4, 1, tzinfo=UTC), "2 months before"),
        (_utc(2023, 1, 9), datetime(2023, 3, 8, tzinfo=UTC), "1 month before"),
        (_utc(2023, 5, 8), datetime(2023, 3, 8, tzinfo=UTC), "2 months after"),
        (_utc(2022, 1, 31), datetime(2023, 12, 30, tzinfo=UTC), "22 months before"),
    ],
)
def test_months_are_whole_calendar_months(said: datetime, asked: datetime, shown: str) -> None:
    assert before(said, asked) == shown


def test_a_day_with_no_date_in_the_question_offset_counts_in_utc() -> None:
    # The last hour of 9999 in UTC is already the year 10000 at +05:00, the first hour of year 1
    # still the year 0 at -08:00: neither has a date there.
    assert before(_utc(9999, 12, 31, 23), datetime(9999, 12, 31, 20, tzinfo=EAST)) == "the same day"
    assert before(_utc(1, 1, 1, 1), datetime(1, 1, 2, 20, tzinfo=WEST)) == "1 day before"


@pytest.mark.parametrize(
    ("said", "asked", "shown"),
    [
        # 5 December 23:30 and 6 December 00:30 in +05:00, asked 6 December 01:30 there.
        (_utc(2026, 12, 5, 18, 30), datetime(2026, 12, 6, 1, 30, tzinfo=EAST), "1 day before"),
        (_utc(2026, 12, 5, 19, 30), datetime(2026, 12, 6, 1, 30, tzinfo=EAST), "the same day"),
        # 5 December 23:30 and 6 December 00:30 in -08:00, asked 5 December 20:00 there.
        (_utc(2026, 12, 6, 7, 30), datetime(2026, 12, 5, 20, tzinfo=WEST), "the same day"),
        (_utc(2026, 12, 6, 8, 30), datetime(2026, 12, 5, 20, tzinfo=WEST), "1 day after"),
        (_utc(2026, 11, 21, 7, 30), datetime(2026, 12, 5, 20, tzinfo=WEST), "2 weeks before"),
    ],
)
def test_how_long_before_counts_the_days_of_the_question_offset(
    said: datetime, asked: datetime, shown: str
) -> None:
    assert before(said, asked) == shown
