"""Prompts, one module per task: input model, response model, `TASK` and `messages(inp)`.

Every prompt puts memory content in a `<memory_data>` JSON block and tells the model it is data,
never instructions. Times are ISO 8601 in UTC.
"""

from __future__ import annotations

from consolidation.prompts.answer import AnswerDraft, AnswerInput, EvidenceItem
from consolidation.prompts.common import DATA_TAG, Turn, iso
from consolidation.prompts.create_episode import EpisodeDraft, EpisodeInput
from consolidation.prompts.merge_decision import MergeDecision, MergeInput
from consolidation.prompts.refine_facts import (
    ExistingFact,
    FactDraft,
    FactDrafts,
    FactKind,
    RefineInput,
)

__all__ = [
    "DATA_TAG",
    "AnswerDraft",
    "AnswerInput",
    "EpisodeDraft",
    "EpisodeInput",
    "EvidenceItem",
    "ExistingFact",
    "FactDraft",
    "FactDrafts",
    "FactKind",
    "MergeDecision",
    "MergeInput",
    "RefineInput",
    "Turn",
    "iso",
]
