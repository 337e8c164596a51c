"""`OfflineConsolidator`: the `Consolidator` interface over the extractive rules.

Every run it records says `offline` / `extractive-v2` with zero tokens, and the time the rules took.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from consolidation.consolidating.offline.answers import answer
from consolidation.consolidating.offline.episodes import episode, merge
from consolidation.consolidating.offline.facts import facts
from consolidation.consolidating.prompts.answer import AnswerDraft, AnswerInput
from consolidation.consolidating.prompts.create_episode import EpisodeDraft, EpisodeInput
from consolidation.consolidating.prompts.merge_decision import MergeDecision, MergeInput
from consolidation.consolidating.prompts.refine_facts import FactDrafts, RefineInput
from consolidation.providers.llm.types import LLMResult, Usage

MODEL = "extractive-v2"

T = TypeVar("T")


class OfflineConsolidator:
    """`Consolidator` without a model; its rules: the `consolidation.consolidating.offline` docstring."""

    name = "offline"
    model = MODEL

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        return _timed(lambda: episode(inp.turns))

    async def decide_merge(self, inp: MergeInput) -> LLMResult[MergeDecision]:
        return _timed(lambda: merge(inp))

    async def refine_facts(self, inp: RefineInput) -> LLMResult[FactDrafts]:
        return _timed(lambda: FactDrafts(facts=facts(inp)))

    async def answer(self, inp: AnswerInput) -> LLMResult[AnswerDraft]:
        return _timed(lambda: answer(inp))


def _timed(work: Callable[[], T]) -> LLMResult[T]:
    started = time.perf_counter()
    value = work()
    return LLMResult(value=value, usage=Usage.zero(MODEL, (time.perf_counter() - started) * 1000))
