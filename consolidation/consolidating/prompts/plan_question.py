"""Prompt: read a question for search before recall (the LLM planner, RECMEM_PLANNER=llm).

The reply's window stays two strings here: the planner parses and checks them
(consolidation/recall/planning/llm.py), so a bad date drops the window, not the whole plan. The
question's time is shown in its own offset, whose calendar the window's days are read in.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from consolidation.consolidating.prompts import common
from consolidation.providers.llm.types import ChatMessage

TASK = "plan_question"

__all__ = ["TASK", "PlanInput", "PlanReply", "messages"]


class PlanInput(common.PromptInput):
    question: str
    asked_at: common.LocalDatetime


class PlanReply(BaseModel):
    window_start: str | None = Field(
        default=None, description="first day of the time window the question names, YYYY-MM-DD; else null"
    )
    window_end: str | None = Field(
        default=None, description="the day after the window's last day, YYYY-MM-DD; else null"
    )
    window_text: str | None = Field(default=None, description="the question's words that name the window")
    order: Literal["latest", "earliest"] | None = Field(
        default=None, description="latest: currently / still / most recently; earliest: first; else null"
    )
    kind: Literal["lookup", "aggregate", "duration"] = Field(
        default="lookup",
        description="aggregate: a count or list over statements; duration: a span of time; else lookup",
    )
    entities: list[str] = Field(default_factory=list, description="names of people, places or things named")
    unresolved: list[str] = Field(
        default_factory=list, description="words naming a time that cannot be dated (before I moved)"
    )


SYSTEM = (
    "You read a question put to an assistant's long-term memory before the memory is searched. "
    "You do not answer it. You say what the search should be scoped by:\n"
    "- a time window the question names (in May 2023, last week, two months ago, last summer), "
    "as whole days [window_start, window_end) resolved against `asked_at`, the day the question "
    "is asked, in the calendar of its own offset; null when it names none;\n"
    "- an order: `latest` when it asks for the current or most recent value (currently, now, "
    "still, most recently), `earliest` when it asks for the first; else null;\n"
    "- a kind: `aggregate` for counts and lists (how many times, all the, what activities), "
    "`duration` for spans (how long ago, how many days between), else `lookup`;\n"
    "- the names it mentions, and words naming a time you cannot date (before I moved)."
)

INSTRUCTION = (
    "Read the question. Answer with a JSON object holding `window_start`, `window_end`, "
    "`window_text`, `order`, `kind`, `entities` and `unresolved`."
)


def messages(inp: PlanInput) -> list[ChatMessage]:
    payload = {"question": inp.question, "asked_at": common.local_iso(inp.asked_at)}
    rules = common.QUESTION_DATA_RULES if inp.asked_at.utcoffset() else common.DATA_RULES
    return common.chat(SYSTEM, INSTRUCTION, payload, rules=rules)
