"""The rule planner: regular expressions over the question, no LLM call.

A window resolves against the day the question is asked, on the calendar of its own offset (the
asker's; naive: UTC), as the UTC instants of that calendar's midnights: "yesterday" and "last
night" (the day before), "last week" (the calendar week before; "the week before last": the one
before it), "N days/weeks/months/years ago" (that day +-1, that week, month or year), "last
month/year", "in the last N days", "in May" (the latest May not after the question), "last May"
(the latest before the month asked), "in May 2023", "in 2022", "this December" (of the
question's year, even ahead), "last summer" (northern seasons), "this summer" (of the
question's year), "last weekend". The first expression that resolves wins; one that names an
event ("before I moved") or falls outside the calendar ("5000 years ago") is kept as
unresolved. Order, kind and names follow word lists below.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from consolidation.recall.planning.plan import Order, Plan, QuestionKind, Window
from consolidation.times import aware

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "few": 3,
}  # fmt: skip
_NUMBER = r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name and name != "May"}
_MONTHS["sept"] = 9  # written as often as "Sep"
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# Northern seasons: (first month, months long).
_WEEKDAYS = [d.lower() for d in calendar.day_name]  # Monday first, as date.weekday() counts
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

_LATEST = re.compile(
    r"\b(current(ly)?|now|nowadays|these days|most recent(ly)?|latest|last time|still|anymore|"
    r"any more|at the moment|right now|recently|updated?|newest)\b",
    re.IGNORECASE,
)
_EARLIEST = re.compile(
    r"\b(first|earliest|initially|originally|at first|to begin with|start(ed)? with)\b", re.IGNORECASE
)
_DURATION = re.compile(
    r"\bhow (long|many (days|weeks|months|years))\b.*\b(ago|since|between|before|after|passed|until|"
    r"elapsed|did it take|had i been|have i been)\b|\bhow long ago\b|\bhow old\b",
    re.IGNORECASE,
)
_AGGREGATE = re.compile(
    r"\b(how many|how much|how often|in total|total|all the|all of the|list|every|each|what (kinds|types|"
    r"sorts) of|which .+s (have|did|do) (i|we|you|he|she|they)|what (activities|hobbies|books|places|"
    r"events|things|items|ways|countries|cities|sports|pets|games|instruments|foods|movies|songs))\b",
    re.IGNORECASE,
)
_COUNTED = re.compile(r"\b(how many times|how often|all the|all of the|in total|list)\b", re.IGNORECASE)
# Capitalized words that are not names: question words, auxiliaries, requests, months, days, pronouns,
# and the planner's own time and order words.
_NOT_NAMES = (
    {"what", "when", "where", "which", "who", "whom", "whose", "why", "how", "did", "do", "does", "is"}
    | {"are", "was", "were", "has", "have", "had", "can", "could", "would", "should", "will", "i", "the"}
    | {"a", "an", "in", "on", "at", "my", "me", "we", "our", "you", "your", "he", "she", "they", "it"}
    | {"if", "and", "or", "but", "so", "since", "before", "after", "last", "this", "ok", "okay", "please"}
    | {"am", "be", "been", "any", "tell", "remind", "list", "give", "show", "describe", "explain"}
    | set(_MONTHS)
    | set(_WEEKDAYS)
    | {f"{day}s" for day in _WEEKDAYS}
    | set(_SEASONS)
    # The words the planner reads as time or order ("Yesterday, ...", "LAST WEEK", "Currently, ...").
    | {"yesterday", "today", "tonight", "tomorrow", "now", "nowadays", "currently", "current", "still"}
    | {"recently", "recent", "latest", "newest", "first", "earliest", "initially", "originally", "ago"}
    | {"past", "previous", "next", "morning", "evening", "night", "weekend", "weekends"}
    | {f"{unit}{plural}" for unit in ("day", "week", "month", "year") for plural in ("", "s")}
    | {word for word in _NUMBERS if " " not in word}
)
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_EVENT = re.compile(
    r"\b(before|after|since|until|when) (i|we|he|she|they|my|our) [a-z]+(?: [a-z]+){0,3}", re.IGNORECASE
)


def plan_question(question: str, asked_at: datetime) -> Plan:
    """The rule plan of `question`, asked at `asked_at` (see the module docstring); any run of
    white space between its words (a doubled space, a line break) reads as one space."""
    question = " ".join(question.split())
    asked_at = aware(asked_at)
    window, beyond = _window(question, asked_at.date(), asked_at.tzinfo or UTC)
    unresolved = beyond if window is not None else [*beyond, *(m[0] for m in _EVENT.finditer(question))]
    order = _order(question)
    kind = _kind(question)
    # "How many followers do I have now" asks for the latest value, not a count of statements.
    if order is Order.LATEST and kind is QuestionKind.AGGREGATE and not _COUNTED.search(question):
        kind = QuestionKind.LOOKUP
    return Plan(
        asked_at=asked_at,
        source="rules",
        window=window,
        order=order,
        kind=kind,
        entities=_entities(question),
        unresolved=unresolved,
    )


def _order(question: str) -> Order | None:
    if _EARLIEST.search(question):
        return Order.EARLIEST
    if _LATEST.search(question):
        return Order.LATEST
    return None


def _kind(question: str) -> QuestionKind:
    if _DURATION.search(question):
        return QuestionKind.DURATION
    if _AGGREGATE.search(question):
        return QuestionKind.AGGREGATE
    return QuestionKind.LOOKUP


def _entities(question: str) -> list[str]:
    """Capitalized words and runs of them, but question words, months and the like; "I" is not one."""
    found: list[str] = []
    for match in _NAME.finditer(question):
        words = [w for w in match[0].split() if w.lower().removesuffix("'s") not in _NOT_NAMES]
        name = " ".join(words).removesuffix("'s")
        if name and name not in found:
            found.append(name)
    return found


# -- windows ---------------------------------------------------------------------------------

_Resolve = Callable[[re.Match[str], date], tuple[date, date] | None]


def _number(match: re.Match[str]) -> int:
    raw = match["n"].lower()
    return int(raw) if raw.isdigit() else _NUMBERS[raw]


def _month_start(year: int, month: int) -> date:
    """The first of a month, the month given as any integer (13 -> January of next year)."""
    index = year * 12 + month - 1
    return date(index // 12, index % 12 + 1, 1)


def _month_span(year: int, month: int) -> tuple[date, date]:
    return _month_start(year, month), _month_start(year, month + 1)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _ago(match: re.Match[str], day: date) -> tuple[date, date]:
    n, unit = _number(match), match["unit"].lower()
    if unit == "day":
        point = day - timedelta(days=n)
        return point - timedelta(days=1), point + timedelta(days=2)
    if unit == "week":
        point = day - timedelta(weeks=n)
        return point - timedelta(days=4), point + timedelta(days=5)
    if unit == "month":
        return _month_span(day.year, day.month - n)
    return date(day.year - n, 1, 1), date(day.year - n + 1, 1, 1)


def _past(match: re.Match[str], day: date) -> tuple[date, date]:
    n, unit = _number(match), match["unit"].lower()
    days = {"day": 1, "week": 7, "month": 31, "year": 366}[unit] * n
    return day - timedelta(days=days), day + timedelta(days=1)


def _last(match: re.Match[str], day: date) -> tuple[date, date]:
    """The calendar week, weekend, month or year before the question's; "the week before last":
    the one before that."""
    unit, back = match["unit"].lower(), 2 if match[0].lower().startswith("the") else 1
    if unit == "week":
        start = _monday(day) - timedelta(weeks=back)
        return start, start + timedelta(weeks=1)
    if unit == "weekend":
        saturday = _monday(day) - timedelta(weeks=back - 1, days=2)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        return _month_span(day.year, day.month - back)
    return date(day.year - back, 1, 1), date(day.year - back + 1, 1, 1)


def _this(match: re.Match[str], day: date) -> tuple[date, date]:
    unit = match["unit"].lower()
    if unit == "week":
        return _monday(day), day + timedelta(days=1)
    if unit == "month":
        return date(day.year, day.month, 1), day + timedelta(days=1)
    return date(day.year, 1, 1), day + timedelta(days=1)


def _weekday(match: re.Match[str], day: date) -> tuple[date, date]:
    """The latest such weekday before the question's day; "on <weekday>" may be the day itself."""
    wanted = _WEEKDAYS.index(match["weekday"].lower())
    back = (day.weekday() - wanted) % 7
    if back == 0 and match["which"].lower() != "on":
        back = 7
    start = day - timedelta(days=back)
    return start, start + timedelta(days=1)


def _season(match: re.Match[str], day: date) -> tuple[date, date]:
    """The latest such season that began before the question's day ("last": the one before a
    season under way); "this": the one that begins in the question's year, even ahead, but a
    winter under way in January or February (docs/design/planner.md#this-december)."""
    first = _SEASONS[match["season"].lower()]
    if match["which"].lower() == "this":
        year = day.year - 1 if first == 12 and day.month < 3 else day.year
        return date(year, first, 1), _month_start(year, first + 3)
    year = day.year if (day.month, day.day) >= (first, 1) else day.year - 1
    start = date(year, first, 1)
    end = _month_start(year, first + 3)
    if match["which"].lower() == "last" and end > day:
        start, end = date(year - 1, first, 1), _month_start(year - 1, first + 3)
    return start, end


def _named_month(match: re.Match[str], day: date) -> tuple[date, date] | None:
    month = _MONTHS[match["month"].lower()]
    if match["year"]:
        return _month_span(int(match["year"]), month)
    year = day.year if month <= day.month else day.year - 1
    return _month_span(year, month)


def _last_month(match: re.Match[str], day: date) -> tuple[date, date]:
    """The latest such month before the question's month ("last": the one before a month under way)."""
    month = _MONTHS[match["month"].lower()]
    return _month_span(day.year if month < day.month else day.year - 1, month)


def _this_month(match: re.Match[str], day: date) -> tuple[date, date] | None:
    """The month of the question's year, even ahead; a lowercase "may" or "march" is no month."""
    if match["month"] in ("may", "march", "mar"):
        return None
    return _month_span(day.year, _MONTHS[match["month"].lower()])


def _named_day(match: re.Match[str], day: date) -> tuple[date, date] | None:
    """The day in the year named, else the latest such day not after the question's; 29 February
    without a year is the latest leap day up to that year. A day that does not exist is no window."""
    month, number = _MONTHS[match["month"].lower()], int(match["d"])
    latest = day.year if (month, number) <= (day.month, day.day) else day.year - 1
    year = int(match["year"]) if match["year"] else latest
    if not match["year"] and (month, number) == (2, 29):
        while year > 1 and not calendar.isleap(year):
            year -= 1
    try:
        start = date(year, month, number)
    except ValueError:
        return None
    return start, start + timedelta(days=1)


def _year(match: re.Match[str], day: date) -> tuple[date, date]:
    year = int(match["year"])
    return date(year, 1, 1), date(year + 1, 1, 1)


def _yesterday(match: re.Match[str], day: date) -> tuple[date, date]:
    back = 2 if match[0].lower().startswith("the day before") else 1
    start = day - timedelta(days=back)
    return start, start + timedelta(days=1)


def _today(match: re.Match[str], day: date) -> tuple[date, date]:
    return day, day + timedelta(days=1)


_YEAR = r"(?:,?\s+(?P<year>(?:19|20)\d\d))?"
_SEASON_RE = r"\b(?P<which>last|this|past) (?P<season>spring|summer|autumn|fall|winter)\b"
# Only "on", "last" or "this past" make a weekday a day: "on Sundays" or "the Sunday mass" is none.
_WEEKDAY_RE = rf"\b(?P<which>on|last|this past) (?P<weekday>{'|'.join(_WEEKDAYS)})\b"
_WINDOWS: list[tuple[re.Pattern[str], _Resolve]] = [
    (re.compile(r"\b(the day before yesterday|yesterday|last night)\b", re.I), _yesterday),
    (re.compile(r"\b(today|this morning|tonight|this evening)\b", re.I), _today),
    (re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+ago\b", re.I), _ago),
    (re.compile(rf"\b(?:in|over|during|within) the (?:last|past)\s+{_NUMBER}\s+{_UNIT}\b", re.I), _past),
    (re.compile(r"\bthe (?P<unit>weekend|week|month|year) before last\b", re.I), _last),
    (re.compile(r"\b(?:last|past|previous) (?P<unit>weekend|week|month|year)\b", re.I), _last),
    (re.compile(r"\bthis (?P<unit>week|month|year)\b", re.I), _this),
    (re.compile(_SEASON_RE, re.I), _season),
    (re.compile(_WEEKDAY_RE, re.I), _weekday),
    (re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?{_YEAR}\b", re.I), _named_day),
    (re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}{_YEAR}\b", re.I), _named_day),
    (re.compile(rf"\b(?:last|this past) {_MONTH}\b", re.I), _last_month),
    (re.compile(rf"\bthis {_MONTH}\b", re.I), _this_month),
    (
        re.compile(rf"\b(?:in|during|since|by|of|around|early|late|mid)[\s-]+{_MONTH}{_YEAR}\b", re.I),
        _named_month,
    ),
    (re.compile(r"\b(?:in|during|of) (?P<year>(?:19|20)\d\d)\b", re.I), _year),
]


def _window(question: str, day: date, zone: tzinfo) -> tuple[Window | None, list[str]]:
    """The first expression that resolves on the calendar of `zone`, and those before it that
    fall outside it (years 1 to 9999, once in UTC: "5000 years ago"), which the plan lists as
    unresolved."""
    beyond: list[str] = []
    for pattern, resolve in _WINDOWS:
        match = pattern.search(question)
        if match is None:
            continue
        try:
            span = resolve(match, day)
            if span is None:
                continue
            window = Window(_midnight(span[0], zone), _midnight(span[1], zone), match[0])
        except (OverflowError, ValueError):
            beyond.append(match[0])
            continue
        return window, beyond
    return None, beyond


def _midnight(day: date, zone: tzinfo) -> datetime:
    """The instant `day` begins on the calendar of `zone`, in UTC."""
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)
