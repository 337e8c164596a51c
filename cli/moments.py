"""The command line's reading of a time: ISO 8601, UTC when no offset is given."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.times import OffCalendar, on_calendar

__all__ = ["OffCalendar", "read_moment"]


def read_moment(raw: str) -> datetime:
    """`2023-05-08`, `2023-05-08T01:30:00Z` or `...+05:00`, keeping the offset given; raises
    ValueError when unreadable and OffCalendar when Neo4j could not hold the instant."""
    parsed = datetime.fromisoformat(raw.strip())
    # Naive values would reach Neo4j as LOCAL DATETIME, which never compares equal to the graph's
    # zoned DATETIMEs; the graph is UTC throughout, so UTC is the only sensible reading.
    return on_calendar(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC))
