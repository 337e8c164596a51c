"""Prompt: does a new interaction continue an existing episode? If so, the updated narrative."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, model_validator

from consolidation.consolidating.prompts import common
from consolidation.providers.llm.types import ChatMessage

TASK = "merge_decision"

__all__ = ["TASK", "MergeDecision", "MergeInput", "messages"]


class MergeInput(common.PromptInput):
    episode_summary: str
    episode_first_at: common.UtcDatetime
    episode_last_at: common.UtcDatetime
    new_turns: list[common.Turn] = Field(min_length=1, description="in time order")


class MergeDecision(BaseModel):
    continues: bool = Field(description="true when the new turns continue the episode's topic")
    summary: str | None = Field(
        default=None,
        description="when continues is true: the complete updated episode narrative; else null",
    )
    reason: str = Field(description="one short sentence explaining the decision")

    @model_validator(mode="after")
    def _summary_when_continuing(self) -> Self:
        # A merge without the rewritten narrative cannot be stored; this forces a re-ask.
        if self.continues and not (self.summary and self.summary.strip()):
            raise ValueError("summary is required when continues is true")
        return self


SYSTEM = (
    "You maintain the long-term memory of an assistant. An episode is a time-anchored "
    "narrative of one recurring topic. You decide whether newly arrived conversation turns "
    "continue an existing episode.\n\n"
    "Decide `continues` = true only when the new turns are about the same topic, people or "
    "ongoing situation (a follow-up, an update, a change of mind, a next step). Similar wording "
    "about an unrelated matter does not count.\n"
    "When the turns continue the episode, write `summary`: the episode rewritten to integrate "
    "the new turns in time order, still at most six sentences, about 100 words: keep the new "
    "information and the most informative earlier sentences, drop repeats and minor details, "
    "and state a correction with its date. Each sentence stands alone with its date, written "
    "like 8 May 2023 (not 2023-05-08).\n"
    f"{common.STATEMENT_RULES}\n"
    "When they do not continue it, set `summary` to null. Always give a one-sentence `reason`."
)

INSTRUCTION = (
    "Decide whether the new turns continue the episode. Answer with a JSON object holding "
    "`continues`, `summary` and `reason`."
)


def messages(inp: MergeInput) -> list[ChatMessage]:
    payload = {
        "episode": {
            "summary": inp.episode_summary,
            "first_at": common.iso(inp.episode_first_at),
            "last_at": common.iso(inp.episode_last_at),
        },
        "new_turns": [common.turn_record(turn) for turn in inp.new_turns],
    }
    return common.chat(SYSTEM, INSTRUCTION, payload, rules=common.turn_rules(inp.new_turns))
