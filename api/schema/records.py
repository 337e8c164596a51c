"""GraphQL objects filled from the records they show."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, cast

T = TypeVar("T")


def from_record(cls: type[T], record: object, **converted: object) -> T:
    """`cls` with each field read from the attribute of `record` of the same name, except those
    `converted` gives (held differently, or under another name). Read rather than copied field
    by field, so the two cannot drift apart unseen: a missing attribute fails loudly."""
    # A strawberry type is a dataclass at run time (mypy does not know); resolvers are not init fields.
    fields = dataclasses.fields(cast(Any, cls))
    names = [f.name for f in fields if f.init and f.name not in converted]
    return cls(**{name: getattr(record, name) for name in names}, **converted)
