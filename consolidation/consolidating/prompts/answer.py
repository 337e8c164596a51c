"""Prompt: answer a question from recalled memory, citing the ids used. Its times are shown in
the offset of the question's (UTC without one), whose calendar its relative dates are in; a turn
said in another offset than UTC's, in that one, whose calendar its own words are on."""

from __future__ import annotations

from datetime import UTC, tzinfo
from typing import Any, Literal

from pydantic import BaseModel, Field

from consolidation.consolidating.prompts import common
from consolidation.providers.llm.types import ChatMessage

TASK = "answer"

__all__ = [
    "TASK",
    "AnswerDraft",
    "AnswerInput",
    "EvidenceItem",
    "WithdrawnBelief",
    "keep_known_ids",
    "messages",
]


# What an evidence line for an order question starts with (consolidation/recall/planning/ranking.py):
# the newest statement on the question's topic, the older ones, or for "first" the oldest.
LATEST_MARK = "(latest) "
EARLIER_MARK = "(earlier) "
FIRST_MARK = "(earliest) "


class EvidenceItem(common.PromptInput):
    id: str
    text: str
    # A turn's in the offset it was said in (UTC's, or naive, for one said in UTC); others in UTC.
    at: common.LocalDatetime | None = None
    # Who said a turn: the offline answerer reads its sentences as statements about them. The
    # prompt does not show it.
    speaker: str | None = None


class WithdrawnBelief(common.PromptInput):
    """A belief a person withdrew that rests on this evidence: not to be stated as true."""

    text: str
    kind: str
    change: Literal["retracted", "corrected"]


class AnswerInput(common.PromptInput):
    question: str
    as_of: common.UtcDatetime | None = None
    # When the question is asked, in the asker's offset: what "last week" or "how many days ago"
    # in it count from, on that calendar.
    asked_at: common.LocalDatetime | None = None
    facts: list[EvidenceItem] = Field(default_factory=list)
    episodes: list[EvidenceItem] = Field(default_factory=list)
    interactions: list[EvidenceItem] = Field(default_factory=list)
    withdrawn_beliefs: list[WithdrawnBelief] = Field(default_factory=list)

    def all_ids(self) -> list[str]:
        return [item.id for item in (*self.facts, *self.episodes, *self.interactions)]


class AnswerDraft(BaseModel):
    answer: str = Field(description="a short, direct answer")
    used_ids: list[str] = Field(description="ids of the memory items the answer rests on")


SYSTEM = (
    "You answer questions about a user from the assistant's long-term memory. The memory comes "
    "in three layers: facts (atomic statements, the most reliable), episodes (narratives of "
    "recurring topics) and interactions (raw conversation turns, the most detailed).\n\n"
    "Rules:\n"
    "- Answer only from the memory given. If it does not contain the answer, say that the "
    "memory does not say, and leave `used_ids` empty.\n"
    "- Be brief: a phrase or one sentence, with names and absolute dates where they matter.\n"
    "- When items disagree, prefer the most recent one; when `as_of` is given, answer as things "
    "stood at that time.\n"
    "- Relative expressions in a question (last year, recently, how many days ago) count from "
    "`asked_at` when given, else from `as_of`, otherwise from the latest memory.\n"
    "- `used_ids`: the ids of the items the answer rests on, copied from the data."
)

INSTRUCTION = "Answer the question. Reply with a JSON object holding `answer` and `used_ids`."
# Added only when the data lists withdrawn beliefs, so other prompts stay as they were.
WITHDRAWN_RULE = (
    "`withdrawn_beliefs` were withdrawn by a person (retracted, or corrected): they are not true, "
    "even where the memory items still say them. Never state one as true. When a correction in "
    "the memory replaced one, answer with the correction."
)


def _items(items: list[EvidenceItem], zone: tzinfo) -> list[dict[str, Any]]:
    """Each item at its time in `zone`, but a turn said in another offset than UTC's: in that one,
    the calendar its relative words are on."""
    return [
        {
            "id": item.id,
            "at": common.local_iso(item.at, None if _said_elsewhere(item) else zone),
            "text": item.text,
        }
        for item in items
    ]


def _said_elsewhere(item: EvidenceItem) -> bool:
    return item.at is not None and bool(item.at.utcoffset())


def messages(inp: AnswerInput) -> list[ChatMessage]:
    zone = (inp.asked_at.tzinfo or UTC) if inp.asked_at is not None else UTC
    payload: dict[str, Any] = {
        "question": inp.question,
        "as_of": common.local_iso(inp.as_of, zone),
        "asked_at": common.local_iso(inp.asked_at, zone),
        "facts": _items(inp.facts, zone),
        "episodes": _items(inp.episodes, zone),
        "interactions": _items(inp.interactions, zone),
    }
    # UTC is said only when every time shown is in UTC (the prompt then reads as it always has).
    elsewhere = any(_said_elsewhere(item) for item in (*inp.facts, *inp.episodes, *inp.interactions))
    asked_elsewhere = inp.asked_at is not None and bool(inp.asked_at.utcoffset())
    rules = common.ASKER_DATA_RULES if elsewhere or asked_elsewhere else common.DATA_RULES
    if not inp.withdrawn_beliefs:
        return common.chat(SYSTEM, INSTRUCTION, payload, rules=rules)
    payload["withdrawn_beliefs"] = [
        {"change": withdrawn.change, "kind": withdrawn.kind, "text": withdrawn.text}
        for withdrawn in inp.withdrawn_beliefs
    ]
    return common.chat(SYSTEM, f"{WITHDRAWN_RULE} {INSTRUCTION}", payload, rules=rules)


def keep_known_ids(inp: AnswerInput, draft: AnswerDraft) -> AnswerDraft:
    """Drop cited ids that were not in the evidence (models sometimes invent them)."""
    known = set(inp.all_ids())
    used = list(dict.fromkeys(item for item in draft.used_ids if item in known))
    return draft.model_copy(update={"used_ids": used})
