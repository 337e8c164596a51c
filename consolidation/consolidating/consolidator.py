"""What the write and read paths ask of a consolidator, LLM-backed or offline.

The input and output types live with their prompts (`consolidation.consolidating.prompts`) and are re-exported
here so that callers need one import.
"""

from __future__ import annotations

from typing import Protocol

from consolidation.consolidating.prompts.answer import AnswerDraft, AnswerInput, EvidenceItem
from consolidation.consolidating.prompts.common import Turn
from consolidation.consolidating.prompts.create_episode import EpisodeDraft, EpisodeInput
from consolidation.consolidating.prompts.merge_decision import MergeDecision, MergeInput
from consolidation.consolidating.prompts.refine_facts import (
    ExistingFact,
    FactDraft,
    FactDrafts,
    FactKind,
    RefineInput,
)
from consolidation.providers.llm.types import LLMResult, Usage

__all__ = [
    "AnswerDraft",
    "AnswerInput",
    "Consolidator",
    "EpisodeDraft",
    "EpisodeInput",
    "EvidenceItem",
    "ExistingFact",
    "FactDraft",
    "FactDrafts",
    "FactKind",
    "LLMResult",
    "MergeDecision",
    "MergeInput",
    "RefineInput",
    "Turn",
    "Usage",
]


class Consolidator(Protocol):
    """Four operations; each result carries the usage recorded on its ConsolidationRun.

    `name` is "openai" or "offline"; `model` is the model id (or "extractive-v2" offline).
    Failures raise `consolidation.providers.llm.LLMError` subclasses.
    """

    name: str
    model: str

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]: ...

    async def decide_merge(self, inp: MergeInput) -> LLMResult[MergeDecision]: ...

    async def refine_facts(self, inp: RefineInput) -> LLMResult[FactDrafts]: ...

    async def answer(self, inp: AnswerInput) -> LLMResult[AnswerDraft]: ...
