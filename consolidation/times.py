"""A question's calendar: the days of the offset its time is given in (docs/design/planner.md)."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo


class OffCalendar(ValueError):
    """A time Python reads whose instant lies outside the years 1 to 9999 in UTC."""


def on_calendar(moment: datetime) -> datetime:
    """`moment` as it is, when its instant has a date in UTC (what Neo4j holds); else raises
    OffCalendar (Python raises OverflowError, no ValueError, converting it)."""
    try:
        moment.astimezone(UTC)
    except OverflowError:
        raise OffCalendar("outside the years 1 to 9999 in UTC") from None
    return moment


def aware(value: datetime) -> datetime:
    """Aware times keep their offset; naive ones are taken to be UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None or value.utcoffset() is None else value


def local(moment: datetime, zone: tzinfo) -> datetime:
    """`moment` on the calendar of `zone`; in UTC when it has no date there (the last hours of
    the year 9999 east of Greenwich, the first of the year 1 west of it)."""
    try:
        return moment.astimezone(zone)
    except OverflowError:
        return moment.astimezone(UTC)
