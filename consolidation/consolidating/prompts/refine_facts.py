"""Prompt: extract atomic, self-contained facts from an episode and its raw turns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from consolidation.consolidating.prompts import common
from consolidation.providers.llm.types import ChatMessage
from graph.vocabulary import FACT_KINDS
from graph.vocabulary import FactKindName as FactKind

TASK = "refine_facts"

__all__ = [
    "DECLARATIVE_RULE",
    "TASK",
    "ExistingFact",
    "FactDraft",
    "FactDrafts",
    "FactKind",
    "RefineInput",
    "RetractedFact",
    "keep_known_ids",
    "messages",
]

# What each kind means, as the prompt tells the model; it lists every kind of the vocabulary.
KIND_MEANINGS: dict[FactKind, str] = {
    "preference": "likes, dislikes, favourites",
    "attribute": "who someone is, what they have",
    "event": "something that happened",
    "plan": "something intended or scheduled",
    "relation": "how two people or things are connected",
}


def _kinds_rule() -> str:
    meanings = KIND_MEANINGS
    return ", ".join(f"{kind} ({meanings[kind]})" if kind in meanings else kind for kind in FACT_KINDS)


class ExistingFact(common.PromptInput):
    id: str
    text: str
    kind: str
    valid_from: common.UtcDatetime


class RetractedFact(common.PromptInput):
    """A fact a person retracted that rests on these sources: never to be restated."""

    id: str
    text: str
    kind: str


class RefineInput(common.PromptInput):
    episode_summary: str
    turns: list[common.Turn] = Field(min_length=1, description="in time order")
    existing_facts: list[ExistingFact] = Field(default_factory=list)
    retracted_facts: list[RetractedFact] = Field(default_factory=list)


class FactDraft(BaseModel):
    text: str = Field(min_length=1, description="one self-contained statement")
    kind: FactKind
    source_turn_ids: list[str] = Field(description="ids of the turns that state this fact")
    replaces: list[str] = Field(
        default_factory=list, description="ids of existing facts this fact supersedes"
    )
    reason: str | None = Field(default=None, description="why it replaces them, if it does")

    @field_validator("kind", mode="before")
    @classmethod
    def _lenient_kind(cls, value: Any) -> Any:
        # "Preference" or "habit" should not cost a re-ask: normalize case, unknown -> other.
        if isinstance(value, str):
            lowered = value.strip().lower()
            return lowered if lowered in FACT_KINDS else "other"
        return value


class FactDrafts(BaseModel):
    facts: list[FactDraft]


# The rule both consolidators follow (the offline one by `offline.declarative`).
DECLARATIVE_RULE = (
    "State facts only from declarative statements about someone (a speaker or anyone they "
    "mention), not only what speakers say about themselves; no greetings, thanks or farewells, "
    'no instructions or advice ("Keep doing what you love", "Let me know how it goes"), '
    'no questions and no bare reactions ("Wow, that\'s great!").'
)

SYSTEM = (
    "You maintain the long-term memory of an assistant. From an episode and the raw turns it "
    "was built from, you extract facts: short atomic statements, each holding one piece of "
    "information worth remembering about the people involved.\n\n"
    "Rules:\n"
    f"- {common.STATEMENT_RULES}\n"
    "- Each fact is one sentence that stands alone, dated like 8 May 2023; an opinion names who "
    "holds it. Split compound sentences; never merge two facts.\n"
    f"- {DECLARATIVE_RULE}\n"
    "- Never two facts that say the same thing. At most eight facts, the most informative.\n"
    f"- `kind`: {_kinds_rule()}.\n"
    "- `source_turn_ids`: the ids of the turns that state the fact, taken from the data.\n"
    "- Existing facts are listed with ids. Do not restate one, even in other words. "
    "When a new fact updates or contradicts an existing one (a change of preference, a "
    "correction, a new status), put the existing fact's id in `replaces` and say why in "
    "`reason`.\n"
    "- Use only ids present in the data. Report only what the turns state; no guesses.\n"
    "- If there is nothing new worth remembering, return an empty list."
)

INSTRUCTION = "Extract the facts. Answer with a JSON object holding `facts`, a list."
# Added only when the data lists retracted facts, so other prompts stay as they were.
RETRACTED_RULE = (
    "`retracted_facts` were retracted by a person: they are not true. Do not restate one, "
    "even in other words, and do not replace one."
)


def messages(inp: RefineInput) -> list[ChatMessage]:
    payload: dict[str, Any] = {
        "episode_summary": inp.episode_summary,
        "turns": [common.turn_record(turn) for turn in inp.turns],
        "existing_facts": [
            {"id": fact.id, "kind": fact.kind, "valid_from": common.iso(fact.valid_from), "text": fact.text}
            for fact in inp.existing_facts
        ],
    }
    rules = common.turn_rules(inp.turns)
    if not inp.retracted_facts:
        return common.chat(SYSTEM, INSTRUCTION, payload, rules=rules)
    payload["retracted_facts"] = [{"kind": fact.kind, "text": fact.text} for fact in inp.retracted_facts]
    return common.chat(SYSTEM, f"{RETRACTED_RULE} {INSTRUCTION}", payload, rules=rules)


def keep_known_ids(inp: RefineInput, drafts: FactDrafts) -> FactDrafts:
    """Drop ids the model invented: edges may only point at turns and facts it was shown.

    A fact left with no source turn is attributed to all turns (it came from this batch).
    """
    turn_ids = [turn.id for turn in inp.turns]
    known_turns = set(turn_ids)
    fact_ids = {fact.id for fact in inp.existing_facts}
    kept = []
    for draft in drafts.facts:
        sources = [tid for tid in draft.source_turn_ids if tid in known_turns]
        replaces = [fid for fid in draft.replaces if fid in fact_ids]
        update = {"source_turn_ids": sources or turn_ids, "replaces": replaces}
        kept.append(draft.model_copy(update=update))
    return FactDrafts(facts=kept)
