"""Relative dates made absolute, as people write them.

"yesterday", "last night", "last weekend", "the week before last", "3 days ago", "next Friday",
"last July" become absolute dates computed from the day a turn was said, as the planner reads them
in a question, on the calendar of the offset it was said in: "on 7 May 2023", "in the week
of 1 May 2023", "in April 2023". Facts and episodes take the absolute date in place of the
relative one (`resolve_relative_dates`); a recall context keeps the speaker's words and adds the
date after them (`annotate_relative_dates`)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import MAXYEAR, MINYEAR, UTC, date, datetime, timedelta

from consolidation.providers.embedding_template import day_text
from consolidation.times import aware

_WEEKDAYS = [name.lower() for name in calendar.day_name]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_Phrase = Callable[[re.Match[str], date], tuple[str, str]]
_PREP = r"(?:\b(?P<prep>on|in|since|from|until|by|before|after|during)\s+)?"


def day_of(moment: datetime) -> date:
    """The day a turn was said: on the calendar of the offset its time is given in (a turn's
    own, `writing/turns.py`; a naive time's is UTC)."""
    return aware(moment).date()


def day_str(day: date) -> str:
    """`8 May 2023`, the memory's date format (`embedding_template.day_text`)."""
    return day_text(datetime(day.year, day.month, day.day, tzinfo=UTC))


def resolve_relative_dates(text: str, said_on: date) -> str:
    """Turn "yesterday", "last week", "3 days ago", "next friday"... into absolute dates."""
    return resolve_dates(text, said_on)[0]


def annotate_relative_dates(text: str, said_on: date) -> str:
    """Keep the speaker's words and add the absolute date after each relative one: "yesterday
    (7 May 2023)", "last week (the week of 1 May 2023)". What a context shows of a turn."""
    for pattern, phrase in _DATE_RULES:

        def render(match: re.Match[str], phrase: _Phrase = phrase) -> str:
            resolved = _resolved(phrase, match, said_on)
            return match[0] if resolved is None else f"{match[0]} ({resolved[1]})"

        text = re.sub(pattern, render, text, flags=re.IGNORECASE)
    return text


def resolve_dates(text: str, said_on: date) -> tuple[str, bool]:
    """The text with absolute dates, and whether one of them is a single day."""
    to_a_day = False
    for pattern, phrase in _DATE_RULES:

        def render(match: re.Match[str], phrase: _Phrase = phrase) -> str:
            nonlocal to_a_day
            resolved = _resolved(phrase, match, said_on)
            if resolved is None:
                return match[0]
            default_prep, core = resolved
            to_a_day = to_a_day or default_prep == "on"
            # Keep the speaker's preposition ("since yesterday" -> "since 7 May 2023").
            return f"{match['prep'] or default_prep} {core}"

        text = re.sub(_PREP + pattern, render, text, flags=re.IGNORECASE)
    return text, to_a_day


def _resolved(phrase: _Phrase, match: re.Match[str], said_on: date) -> tuple[str, str] | None:
    """The phrase's absolute date; None when it falls outside the years 1 to 9999 ("a million
    days ago"): the words are then left as said."""
    try:
        return phrase(match, said_on)
    except (OverflowError, ValueError):
        return None


def _year(year: int) -> int:
    if not MINYEAR <= year <= MAXYEAR:
        raise ValueError(f"year {year} is out of range")
    return year


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, offset: int) -> str:
    index = day.year * 12 + day.month - 1 + offset
    return f"{calendar.month_name[index % 12 + 1]} {_year(index // 12)}"


def _week_of(day: date) -> str:
    return f"the week of {day_str(_monday(day))}"


def _span(unit: str, day: date, offset: int) -> tuple[str, str]:
    if unit == "week":
        return "in", _week_of(day + timedelta(weeks=offset))
    if unit == "month":
        return "in", _month(day, offset)
    return "in", str(_year(day.year + offset))


def _weekend(day: date, offset: int) -> tuple[str, str]:
    """The weekend of the calendar week `offset` weeks from `day`'s, named by its Saturday: "last
    weekend" is the previous week's, also when said on a Saturday (as the planner reads it)."""
    saturday = _monday(day) + timedelta(days=5, weeks=offset)
    return "over", f"the weekend of {day_str(saturday)}"


def _last_month(name: str, day: date) -> tuple[str, str]:
    """The latest such month before `day`'s month: "last May" said in May 2023 is May 2022."""
    month = list(calendar.month_name).index(name)
    return "in", _month(date(day.year, month, 1), 0 if month < day.month else -12)


def _weekday(name: str, day: date, direction: int) -> date:
    target = _WEEKDAYS.index(name.lower())
    step = ((target - day.weekday()) * direction) % 7 or 7
    return day + timedelta(days=step * direction)


def _ago(match: re.Match[str], day: date) -> tuple[str, str]:
    count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
    unit = match["unit"].lower()
    if unit == "day":
        return "on", day_str(day - timedelta(days=count))
    if unit == "week":
        return "in", _week_of(day - timedelta(weeks=count))
    return _span(unit, day, -count)


_Rule = tuple[str, _Phrase]
_DAYS = "|".join(_WEEKDAYS)
# Case-sensitive month names: "the last march" (a walk) or "may" (a verb) is no month.
_MONTH_NAMES = rf"(?-i:(?P<month>{'|'.join(calendar.month_name[1:])}))"
_DATE_RULES: list[_Rule] = [
    (r"\bthe day before yesterday\b", lambda m, d: ("on", day_str(d - timedelta(days=2)))),
    (r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", lambda m, d: ("on", day_str(d))),
    # Not the "yesterday" of "the day before yesterday (6 May 2023)", which the rule above annotated.
    (
        r"(?<!the day before )\b(?:yesterday|last night)\b",
        lambda m, d: ("on", day_str(d - timedelta(days=1))),
    ),
    (r"\btomorrow\b", lambda m, d: ("on", day_str(d + timedelta(days=1)))),
    (
        r"\b(?P<n>\d+|an?|one|two|three|four|five|six) (?P<unit>day|week|month|year)s? ago\b",
        _ago,
    ),
    (r"\b(?:last|this past) weekend\b", lambda m, d: _weekend(d, -1)),
    (r"\bthe weekend before last\b", lambda m, d: _weekend(d, -2)),
    (r"\bthis weekend\b", lambda m, d: _weekend(d, 0)),
    (r"\bthe (?P<unit>week|month|year) before last\b", lambda m, d: _span(m["unit"].lower(), d, -2)),
    (r"\blast (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, -1)),
    (r"\bnext (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 1)),
    (r"\bthis (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 0)),
    (
        rf"\b(?:last|this past) (?P<day>{_DAYS})\b",
        lambda m, d: ("on", day_str(_weekday(m["day"], d, -1))),
    ),
    (
        rf"\b(?:next|this coming) (?P<day>{_DAYS})\b",
        lambda m, d: ("on", day_str(_weekday(m["day"], d, 1))),
    ),
    (rf"\blast {_MONTH_NAMES}\b", lambda m, d: _last_month(m["month"], d)),
]
