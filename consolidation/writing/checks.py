"""The one check of a remember: who it is for, that there is something, each text within the limit,
each name (speaker, source ref) a valid one.

The API runs it at its entry point and hands the engine the `CheckedBatch`; the engine runs it only
for input that did not come that way (a library caller's plain units). The `Unit` model has
checked the rest (a timezone on every time, the lengths of names); the store checks only what is
its own (vectors, the size of one statement).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consolidation.types import Unit
from graph.errors import InvalidInput
from graph.models import Owner
from graph.scopes import check_scopes
from graph.validation import require_name, require_owner, require_text

# How a unit's field is named in a refusal; the API names it as its clients send it ("text").
FIELD_LABEL = "interaction {index} {field}"


@dataclass(frozen=True)
class CheckedBatch:
    """One user's units, checked against `max_text_bytes` (each Unit is a validated model)."""

    owner: Owner
    units: tuple[Unit, ...]
    max_text_bytes: int


# The setting an oversize text's error names.
TEXT_SETTING = "RECMEM_MAX_TEXT_BYTES"


def check_batch(
    owner: Owner, units: Sequence[Unit], max_text_bytes: int, *, label: str = FIELD_LABEL
) -> CheckedBatch:
    """Raises InvalidInput for an invalid owner, an empty batch, an empty or oversize text, or a
    blank speaker, source ref, agent id or session id (or one that is not valid Unicode), or a
    metadata map that breaks a rule of graph/scopes.py."""
    require_owner(owner.tenant, owner.user_id)
    if not units:
        raise InvalidInput("nothing to remember: the batch is empty")
    for index, unit in enumerate(units):
        require_text(label.format(index=index, field="text"), unit.text, max_text_bytes, setting=TEXT_SETTING)
        require_name(label.format(index=index, field="speaker"), unit.speaker)
        if unit.source_ref is not None:
            require_name(label.format(index=index, field="source_ref"), unit.source_ref)
        check_scopes(
            unit.agent_id, unit.session_id, unit.metadata, label.format(index=index, field="{field}")
        )
    return CheckedBatch(owner, tuple(units), max_text_bytes)
