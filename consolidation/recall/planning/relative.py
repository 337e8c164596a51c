"""How long before the question a day was: "3 weeks before", "the same day", "2 days after"."""

from __future__ import annotations

from datetime import UTC, date, datetime

from consolidation.times import aware, local
from graph.vocabulary import counted


def before(moment: datetime, asked_at: datetime) -> str:
    """The distance in whole days, weeks (from 14 days), calendar months (from 8 weeks) or
    calendar years (from 24 months), rounded down, by calendar days of `asked_at`'s own offset
    (naive: UTC)."""
    asked_at = aware(asked_at)
    said = local(moment, asked_at.tzinfo or UTC).date()
    days = (asked_at.date() - said).days
    if days == 0:
        return "the same day"
    side = "before" if days > 0 else "after"
    n = abs(days)
    if n < 14:
        amount, unit = n, "day"
    elif n < 56:
        amount, unit = n // 7, "week"
    elif n < 730:
        amount, unit = _months(*sorted((said, asked_at.date()))), "month"
    else:
        amount, unit = _months(*sorted((said, asked_at.date()))) // 12, "year"
    return f"{counted(amount, unit)} {side}"


def _months(earlier: date, later: date) -> int:
    """Whole calendar months from `earlier` to `later` (8 January to 8 March is 2, though 59
    days; a month is not 365/12 days, nor a year 365)."""
    return (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)
