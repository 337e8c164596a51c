"""Retracted facts stay retracted: refinement is shown the user's retracted facts that rest on
the sources it reads, and a draft that restates one of them is dropped, whatever the
consolidator did with them (docs/corrections.md#retracted-facts-stay-retracted)."""

from __future__ import annotations

import logging
import re
import unicodedata

from consolidation.consolidating.prompts.refine_facts import FactDrafts, RetractedFact
from graph.beliefs import RetractedFact as StoredRetraction

log = logging.getLogger(__name__)
# How many retracted facts one refinement is shown at most (the most recently retracted).
RETRACTED_FACTS = 20


def normalised(text: str) -> str:
    """What "the same statement" compares: NFKC, case-folded, punctuation and spacing dropped."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", folded))


def shown(retracted: list[StoredRetraction]) -> list[RetractedFact]:
    return [RetractedFact(id=r.id, text=r.text, kind=r.kind) for r in retracted]


def without_retracted(drafts: FactDrafts, retracted: list[StoredRetraction]) -> FactDrafts:
    """The drafts less those whose normalised text equals a retracted fact's."""
    if not retracted:
        return drafts
    gone = {normalised(r.text) for r in retracted}
    kept = [d for d in drafts.facts if normalised(d.text) not in gone]
    if len(kept) < len(drafts.facts):
        log.info("dropped %d drafts restating retracted facts", len(drafts.facts) - len(kept))
    return FactDrafts(facts=kept)
