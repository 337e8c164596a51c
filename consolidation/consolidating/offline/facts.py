"""Facts: one per informative declarative sentence of the turns, its self-contained rendering.

Only a declarative statement about someone becomes a fact (`declarative`: no questions,
greetings, thanks, imperatives or subjectless reactions).

Kind by keywords: love/like/hate/prefer... -> preference; will/plan/going to -> plan; past tense
-> event; otherwise attribute. A draft is dropped when its words (content words and numbers,
dates aside) overlap an existing fact's or an earlier draft's with Jaccard >= 0.7, for an event
or plan only when both name the same days (the same event on another day is another event); a
draft that replaces existing facts (`preferences`) is only compared with earlier drafts. A draft
that repeats a retracted fact so is always dropped. At most
8 facts per call: those that replace facts first, then those with the most informative words,
earlier first on ties; they are returned in stream order.
"""

from __future__ import annotations

import re
from datetime import date

from consolidation.consolidating.consolidator import ExistingFact, FactDraft, FactKind, RefineInput, Turn
from consolidation.consolidating.offline.dates import day_str
from consolidation.consolidating.offline.preferences import already_known, contradicted
from consolidation.consolidating.offline.units import Unit, turn_units
from consolidation.consolidating.offline.words import PAST_VERBS, content_words, jaccard, name_words, plain

FACTS_MAX = 8
FACT_DUPLICATE = 0.7  # Jaccard of fact words at which a draft repeats a fact

_PREFERENCE = re.compile(
    r"\b(?:lov|lik|hat|ador|dislik)(?:e|es|ed)\b|\bprefer(?:s|red)?\b|\benjoy(?:s|ed)?\b"
    r"|\bfavou?rite\b|\bcan(?:'t|not| not) stand\b|\bfan of\b"
)
_PLAN = re.compile(r"'ll\b|\bwill\b|\bplan(?:s|ning)? to\b|\bgoing to\b|\bgonna\b|\bintend|\babout to\b")
_EVENT = re.compile(
    rf"\b(?:{'|'.join(PAST_VERBS)}|yesterday|ago|last)\b"
    r"|\b[a-z]+ed\b"
)
_DATE = re.compile(r"\b(?:\d{1,2} [A-Z][a-z]+ \d{4}|\d{4}-\d{2}-\d{2})\b")
# A fact's key for near-duplicate checks: (its words without dates, the days it names).
_Key = tuple[frozenset[str], frozenset[str]]


def classify(sentence: str) -> FactKind:
    lowered = plain(sentence).lower()
    if _PREFERENCE.search(lowered):
        return "preference"
    if _PLAN.search(lowered):
        return "plan"
    return "event" if _EVENT.search(lowered) else "attribute"


def facts(inp: RefineInput) -> list[FactDraft]:
    names = name_words(turn.speaker for turn in inp.turns)
    known = [_fact_key(fact.text) for fact in inp.existing_facts]
    # A retracted fact is never restated, not even by a draft that replaces something.
    retracted = [_fact_key(fact.text) for fact in inp.retracted_facts]
    candidates: list[tuple[Unit, FactDraft]] = []
    drafted: list[_Key] = []
    for unit in turn_units(inp.turns, names):
        if not unit.statement or unit.turn is None:
            continue
        draft = _draft(unit, unit.turn, inp.existing_facts)
        if draft is None:
            continue
        key = _fact_key(draft.text)
        earlier = drafted if draft.replaces else [*known, *drafted]
        if any(_repeats(key, other, draft.kind) for other in [*retracted, *earlier]):
            continue
        drafted.append(key)
        candidates.append((unit, draft))
    return [draft for _, draft in _capped(candidates)]


def _capped(candidates: list[tuple[Unit, FactDraft]]) -> list[tuple[Unit, FactDraft]]:
    """At most FACTS_MAX, in stream order: the replacing ones first, then the most informative."""

    def priority(entry: tuple[Unit, FactDraft]) -> tuple[bool, int, int]:
        unit, draft = entry
        return (not draft.replaces, -len(unit.words), unit.position)

    kept = sorted(candidates, key=priority)[:FACTS_MAX]
    return sorted(kept, key=lambda entry: entry[0].position)


def restates(text: str, fact: str, kind: str) -> bool:
    """Whether `text` says what `fact` (of `kind`) says, by the test a draft that repeats a
    retracted fact fails (the offline answerer's test for a withdrawn belief, too)."""
    return _repeats(_fact_key(text), _fact_key(fact), kind)


def _fact_key(text: str) -> _Key:
    """What near-duplicate checks compare: the words without dates, and the days named."""
    normalized = plain(text)
    days = frozenset(_normal_day(day) for day in _DATE.findall(normalized))
    words = frozenset(content_words(_DATE.sub(" ", normalized))) | frozenset(
        re.findall(r"\d+", _DATE.sub(" ", normalized))
    )
    return words, days


def _normal_day(day: str) -> str:
    return day_str(date.fromisoformat(day)) if "-" in day else day


def _repeats(draft: _Key, other: _Key, kind: str) -> bool:
    """Jaccard >= FACT_DUPLICATE over the words; an event or plan also on the same days."""
    if kind in ("event", "plan") and draft[1] != other[1]:
        return False  # the same event on another day is another event
    return jaccard(draft[0], other[0]) >= FACT_DUPLICATE


def _draft(unit: Unit, turn: Turn, existing: list[ExistingFact]) -> FactDraft | None:
    kind = classify(unit.said)
    text = unit.text
    if kind != "preference":
        return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id])
    if already_known(text, turn.speaker, existing):
        return None
    replaces = contradicted(text, turn.speaker, existing)
    reason = "opposite preference about the same thing" if replaces else None
    return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id], replaces=replaces, reason=reason)
