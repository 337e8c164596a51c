"""How long before the question a day was: "3 weeks before", "the same day", "2 days after"."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.times import aware, local


def before(moment: datetime, asked_at: datetime) -> str:
    """The distance in whole days, weeks (from 14 days), months (from 8 weeks) or years (from
    24 months), rounded down, by calendar days of `asked_at`'s own offset (naive: UTC)."""
    asked_at = aware(asked_at)
    days = (asked_at.date() - local(moment, asked_at.tzinfo or UTC).date()).days
    if days == 0:
        return "the same day"
    side = "before" if days > 0 else "after"
    n = abs(days)
    if n < 14:
        amount, unit = n, "day"
    elif n < 56:
        amount, unit = n // 7, "week"
    elif n < 730:
        amount, unit = n * 12 // 365, "month"
    else:
        amount, unit = n // 365, "year"
    return f"{amount} {unit}{'' if amount == 1 else 's'} {side}"
