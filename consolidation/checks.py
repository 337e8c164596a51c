"""The one check of a remember: who it is for, that there is something, each text within the limit.

The API runs it at its entry point and hands the engine the `CheckedBatch`; the engine runs it only
for input that did not come that way (a library caller's plain units).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consolidation.types import Unit
from graph.errors import InvalidInput
from graph.models import Owner
from graph.validation import require_owner, require_text

# How a text is named in a refusal; the API names it as its clients send it ("text").
TEXT_LABEL = "interaction {index} text"


@dataclass(frozen=True)
class CheckedBatch:
    """One user's units, checked against `max_text_bytes` (each Unit is a validated model)."""

    owner: Owner
    units: tuple[Unit, ...]
    max_text_bytes: int


def check_batch(
    owner: Owner, units: Sequence[Unit], max_text_bytes: int, *, text_label: str = TEXT_LABEL
) -> CheckedBatch:
    """Raises InvalidInput for an invalid owner, an empty batch, or an empty or oversize text."""
    require_owner(owner.tenant, owner.user_id)
    if not units:
        raise InvalidInput("nothing to remember: the batch is empty")
    for index, unit in enumerate(units):
        require_text(text_label.format(index=index), unit.text, max_text_bytes)
    return CheckedBatch(owner, tuple(units), max_text_bytes)
