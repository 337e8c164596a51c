"""What an interaction is embedded as: its text together with its speaker and time.

The template is a `str.format` pattern over `{text}` (required), `{speaker}`, `{date}`
(`8 May 2023`) and `{time}` (`8 May 2023, 13:56 UTC`), on the calendar of the offset the turn was
said in (`5 December 2026, 00:30 +05:00`). The database records it beside the embedder
(graph/schema.py), and `recmem db reembed` rebuilds the vectors after a change.
Why the default reads as a sentence: docs/design/embedding-template.md.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from consolidation.times import aware, local

DEFAULT_TEMPLATE = "On {date}, {speaker} said: {text}"
FIELDS = frozenset({"text", "speaker", "date", "time"})


class TemplateError(ValueError):
    """The template names an unknown field, lacks `{text}`, or is not a valid format string."""


def day_text(moment: datetime, zone: tzinfo = UTC) -> str:
    """`8 May 2023`: the date format of the memory's texts (facts, episodes, contexts), the day
    on the calendar of `zone` (a context's: the question's offset; UTC's if it has none there)."""
    day = local(moment, zone)
    return f"{day.day} {day:%B %Y}"


def minute_text(moment: datetime) -> str:
    """`8 May 2023, 13:56 UTC`; in the offset `moment` is given in, when not UTC's:
    `5 December 2026, 00:30 +05:00` (naive: UTC)."""
    said = aware(moment)
    if not said.utcoffset():
        return f"{day_text(said)}, {said.astimezone(UTC):%H:%M} UTC"
    offset = said.replace(microsecond=0).isoformat()[19:]  # `+05:00`
    return f"{day_text(said, said.tzinfo or UTC)}, {said:%H:%M} {offset}"


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
        """The turn as embedded, dated on the calendar of the offset `occurred_at` is given in
        (the one it was said in: its relative words and its facts are on that calendar too)."""
        said = aware(occurred_at)
        return self.pattern.format(
            text=text, speaker=speaker, date=day_text(said, said.tzinfo or UTC), time=minute_text(said)
        )
