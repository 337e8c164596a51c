"""Prompt: turn a set of recurring interactions into one time-anchored episode."""

from __future__ import annotations

from pydantic import BaseModel, Field

from consolidation.consolidating.prompts import common
from consolidation.providers.llm.types import ChatMessage

TASK = "create_episode"

__all__ = ["TASK", "EpisodeDraft", "EpisodeInput", "messages"]


class EpisodeInput(common.PromptInput):
    turns: list[common.Turn] = Field(min_length=1, description="in time order")


class EpisodeDraft(BaseModel):
    title: str = Field(min_length=1, description="a short label for the topic, at most ten words")
    summary: str = Field(
        min_length=1,
        description="a self-contained narrative of the topic with absolute dates and named people",
    )


SYSTEM = (
    "You maintain the long-term memory of an assistant. You receive conversation turns that "
    "keep coming back to one topic, and you write the episode that records that topic: who was "
    "involved, what happened or was said, and when.\n\n"
    "Rules for the summary:\n"
    "- At most six sentences, about 100 words: keep what could be asked about later (names, "
    "places, amounts, preferences, decisions, plans, dates); drop greetings, reactions, filler "
    "and repeats.\n"
    "- Each sentence stands alone with its date, written like 8 May 2023 (not 2023-05-08): "
    '"On 8 May 2023 Caroline went to an LGBTQ support group."\n'
    f"- {common.STATEMENT_RULES}\n"
    "- Follow time order. Report only what the turns state; do not guess or add advice.\n"
    "- Write in the third person, in plain prose."
)

INSTRUCTION = "Write the episode for these turns. Answer with a JSON object holding `title` and `summary`."


def messages(inp: EpisodeInput) -> list[ChatMessage]:
    payload = {"turns": [common.turn_record(turn) for turn in inp.turns]}
    return common.chat(SYSTEM, INSTRUCTION, payload, rules=common.turn_rules(inp.turns))
