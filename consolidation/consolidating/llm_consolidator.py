"""The consolidator that asks a language model: prompt module + structured call per operation."""

from __future__ import annotations

from dataclasses import replace

from consolidation.consolidating.consolidator import (
    AnswerDraft,
    AnswerInput,
    EpisodeDraft,
    EpisodeInput,
    FactDrafts,
    MergeDecision,
    MergeInput,
    RefineInput,
)
from consolidation.consolidating.prompts import answer as answer_prompt
from consolidation.consolidating.prompts import create_episode as episode_prompt
from consolidation.consolidating.prompts import merge_decision as merge_prompt
from consolidation.consolidating.prompts import refine_facts as refine_prompt
from consolidation.providers.llm.base import LanguageModel
from consolidation.providers.llm.types import LLMResult


class LLMConsolidator:
    """`Consolidator` over any `LanguageModel`; ids the model invents are dropped."""

    def __init__(self, model: LanguageModel) -> None:
        self._model = model
        self.name = model.name
        self.model = model.model

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        messages = episode_prompt.messages(inp)
        return await self._model.structured(messages, EpisodeDraft, task=episode_prompt.TASK)

    async def decide_merge(self, inp: MergeInput) -> LLMResult[MergeDecision]:
        messages = merge_prompt.messages(inp)
        return await self._model.structured(messages, MergeDecision, task=merge_prompt.TASK)

    async def refine_facts(self, inp: RefineInput) -> LLMResult[FactDrafts]:
        messages = refine_prompt.messages(inp)
        result = await self._model.structured(messages, FactDrafts, task=refine_prompt.TASK)
        return replace(result, value=refine_prompt.keep_known_ids(inp, result.value))

    async def answer(self, inp: AnswerInput) -> LLMResult[AnswerDraft]:
        messages = answer_prompt.messages(inp)
        result = await self._model.structured(messages, AnswerDraft, task=answer_prompt.TASK)
        return replace(result, value=answer_prompt.keep_known_ids(inp, result.value))
