"""What recall's planner did over a run: plans by source, fallbacks by reason, and the LLM
planner's calls and tokens (--planner llm). The local server is not a language model: with it
these figures measure the machinery, never the quality of a plan."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict

from consolidation.recall.planning import Plan


class PlannerStats(TypedDict):
    plans: int
    by_source: dict[str, int]
    fallbacks: dict[str, int]
    notes: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


@dataclass
class PlannerTally:
    plans: int = 0
    by_source: Counter[str] = field(default_factory=Counter)
    fallbacks: Counter[str] = field(default_factory=Counter)
    notes: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, plan: Plan | None) -> None:
        if plan is None:
            return
        self.plans += 1
        self.by_source[plan.source] += 1
        if plan.fallback is not None:
            self.fallbacks[plan.fallback] += 1
        self.notes += len(plan.notes)
        self.llm_calls += plan.llm_calls
        self.prompt_tokens += plan.prompt_tokens
        self.completion_tokens += plan.completion_tokens

    def stats(self) -> PlannerStats:
        return {
            "plans": self.plans,
            "by_source": dict(self.by_source),
            "fallbacks": dict(self.fallbacks),
            "notes": self.notes,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }
