"""`OfflineConsolidator`: the `Consolidator` interface over the extractive rules.

Every run it records says `offline` / `extractive-v2` with zero tokens, and the time the rules took.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from consolidation.llm.types import LLMResult, Usage
from consolidation.offline.answers import answer
from consolidation.offline.episodes import episode, merge
from consolidation.offline.facts import facts
from consolidation.prompts.answer import AnswerDraft, AnswerInput
from consolidation.prompts.create_episode import EpisodeDraft, EpisodeInput
from consolidation.prompts.merge_decision import MergeDecision, MergeInput
from consolidation.prompts.refine_facts import FactDrafts, RefineInput

MODEL = "extractive-v2"

T = TypeVar("T")


class OfflineConsolidator:
    """`Consolidator` without a model; see the `consolidation.offline` docstring for its rules."""

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
