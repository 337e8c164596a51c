"""A stored interaction as the prompts see it: at its time in the offset it was said in."""

from __future__ import annotations

from consolidation.consolidating.prompts.common import Turn
from graph.models import Interaction


def to_turn(unit: Interaction) -> Turn:
    return Turn(id=unit.id, speaker=unit.speaker, occurred_at=unit.local_occurred_at, text=unit.text)
