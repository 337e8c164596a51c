"""The DateTime scalar: ISO 8601 with an explicit offset in, UTC with `Z` out, but for a time
`AsSaid` marks: an interaction's occurredAt, in the offset it was said in.

Naive times are refused rather than guessed: memory is anchored in time, and a wrong zone would
silently move facts across days. A time read keeps the caller's offset: a question's `askedAt`
names the asker's calendar ("yesterday"); what is stored is converted to UTC where it is stored
(a turn beside its offset: docs/design/graph-model.md#interaction-times).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import strawberry
from graphql import StringValueNode, ValueNode
from strawberry.types.scalar import ScalarDefinition

from consolidation.times import OffCalendar, on_calendar


class AsSaid(datetime):
    """A time answered in its own offset, not converted to UTC (`Z` when that offset is UTC's)."""

    @classmethod
    def of(cls, moment: datetime) -> AsSaid:
        return cls(
            moment.year,
            moment.month,
            moment.day,
            moment.hour,
            moment.minute,
            moment.second,
            moment.microsecond,
            tzinfo=moment.tzinfo,
            fold=moment.fold,
        )


def serialize(value: datetime) -> str:
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if not isinstance(value, AsSaid):
        moment = moment.astimezone(UTC)
    return moment.isoformat().replace("+00:00", "Z")


def parse_value(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError("DateTime must be an ISO 8601 string")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not an ISO 8601 date-time: {value[:40]!r}") from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("DateTime needs a timezone offset, e.g. 2024-05-01T09:00:00Z")
    try:
        return on_calendar(moment)
    except OffCalendar:
        raise ValueError(f"DateTime must lie in the years 1 to 9999 once in UTC: {value[:40]!r}") from None


def parse_literal(node: ValueNode, _variables: dict[str, Any] | None = None) -> datetime:
    if not isinstance(node, StringValueNode):
        raise ValueError("DateTime must be an ISO 8601 string")
    return parse_value(node.value)


DATETIME: ScalarDefinition = strawberry.scalar(
    name="DateTime",
    description=(
        "An ISO 8601 date-time with a timezone offset; returned in UTC (`Z`), but for an "
        "interaction's occurredAt, which is returned in the offset it was said in."
    ),
    serialize=serialize,
    parse_value=parse_value,
    parse_literal=parse_literal,
)
