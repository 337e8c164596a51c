"""What an interaction is embedded as: its text together with its speaker and time.

A bare turn ("Yeah, I loved it!") carries little meaning of its own; who said it and when does.
On the LoCoMo dev file (the default embedder, exact cosine over each conversation's turns, top 10,
`bench/templates.py`) the share of gold evidence reached: bare text 0.251; `{speaker}: {text}`
0.502; `[{date}] {speaker}: {text}` 0.501; `{speaker} ({date}): {text}` 0.590; the default, a
sentence as a person would write it, `On {date}, {speaker} said: {text}`, 0.608. Questions embed
best as asked: dressed as a turn ("A or B: question") they reached 0.442.

The template is a `str.format` pattern over four fields:

- `{text}`: the interaction's text (required),
- `{speaker}`: who said it,
- `{date}`: the day it happened, as people write it: `8 May 2023` (UTC),
- `{time}`: the same instant down to the minute: `8 May 2023, 13:56 UTC`.

The database records the template beside the embedder (`graph/schema.py`): vectors made with
another template do not compare, and `recmem db reembed` rebuilds them after a change.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from datetime import UTC, datetime

DEFAULT_TEMPLATE = "On {date}, {speaker} said: {text}"
FIELDS = frozenset({"text", "speaker", "date", "time"})


class TemplateError(ValueError):
    """The template names an unknown field, lacks `{text}`, or is not a valid format string."""


def day_text(moment: datetime) -> str:
    """`8 May 2023`: the date format of the memory's texts (facts, episodes, contexts)."""
    day = moment.astimezone(UTC)
    return f"{day.day} {day:%B %Y}"


def minute_text(moment: datetime) -> str:
    """`8 May 2023, 13:56 UTC`."""
    return f"{day_text(moment)}, {moment.astimezone(UTC):%H:%M} UTC"


@dataclass(frozen=True)
class EmbeddingTemplate:
    """A checked template; `render` never fails once it is built."""

    pattern: str = DEFAULT_TEMPLATE

    def __post_init__(self) -> None:
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(self.pattern) if name is not None}
        except ValueError as bad:
            raise TemplateError(f"embedding template {self.pattern!r} is not a format string: {bad}") from bad
        unknown = names - FIELDS
        if unknown:
            raise TemplateError(
                f"embedding template {self.pattern!r} names unknown fields {sorted(unknown)}; "
                f"known: {sorted(FIELDS)}"
            )
        if "text" not in names:
            raise TemplateError(f"embedding template {self.pattern!r} must contain {{text}}")

    def render(self, text: str, speaker: str, occurred_at: datetime) -> str:
        return self.pattern.format(
            text=text, speaker=speaker, date=day_text(occurred_at), time=minute_text(occurred_at)
        )
