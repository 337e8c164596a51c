"""Answers: the evidence items sharing the most content words with the question.

Facts, then episodes, then interactions; the top three, joined; their ids are the used ids. A
sentence that states a withdrawn belief is left out of its item first (`without_withdrawn`), and a
sentence said already (a fact and its episode's summary) is said once (`unrepeated`).
"""

from __future__ import annotations

from datetime import datetime

from consolidation.consolidating.consolidator import AnswerDraft, AnswerInput, EvidenceItem
from consolidation.consolidating.offline.dates import day_of
from consolidation.consolidating.offline.facts import restates
from consolidation.consolidating.offline.splitting import core, sentences
from consolidation.consolidating.offline.statements import render
from consolidation.consolidating.offline.words import content_words
from consolidation.consolidating.prompts.answer import WithdrawnBelief
from consolidation.consolidating.prompts.common import to_utc

ANSWER_TOP = 3


def answer(inp: AnswerInput) -> AnswerDraft:
    question = set(content_words(inp.question))
    pool = [*inp.facts, *inp.episodes, *inp.interactions]
    if inp.withdrawn_beliefs:
        pool = without_withdrawn(pool, inp.withdrawn_beliefs)
    scored = [(len(question & set(content_words(item.text))), item) for item in pool]
    # sorted() is stable: among equal scores facts come first, then episodes, then interactions.
    ranked = sorted(
        ((score, item) for score, item in scored if score > 0 and _visible(item, inp.as_of)),
        key=lambda pair: -pair[0],
    )
    top = [item for _, item in ranked[:ANSWER_TOP]]
    if not top:
        return AnswerDraft(answer="The memory holds nothing relevant to this question.", used_ids=[])
    return AnswerDraft(answer=" ".join(unrepeated([item.text for item in top])), used_ids=[i.id for i in top])


def unrepeated(texts: list[str]) -> list[str]:
    """The texts less every sentence said before, compared without case, spacing or final
    punctuation; a text with nothing new is left out, one with no repeat kept as it is."""
    seen: set[str] = set()
    kept = []
    for text in texts:
        said = sentences(text)
        new = []
        for sentence in said:
            key = " ".join(sentence.casefold().rstrip(".!?").split())
            if key not in seen:
                seen.add(key)
                new.append(sentence)
        if len(new) == len(said):
            kept.append(text)
        elif new:
            kept.append(" ".join(new))
    return kept


def _visible(item: EvidenceItem, as_of: datetime | None) -> bool:
    return as_of is None or item.at is None or item.at <= to_utc(as_of)


def without_withdrawn(items: list[EvidenceItem], withdrawn: list[WithdrawnBelief]) -> list[EvidenceItem]:
    """The items less every sentence that states a withdrawn belief, by the test a fact draft
    that repeats a retracted fact fails (`facts.restates`). A turn's sentence is rendered first
    as the consolidator renders it (about its speaker, dated); a summary's or a fact's stands as
    it is. An item left with no sentence is left out."""
    speakers = list(dict.fromkeys(item.speaker for item in items if item.speaker))
    listeners = dict(zip(speakers, reversed(speakers), strict=True)) if len(speakers) == 2 else {}
    kept = []
    for item in items:
        said = sentences(item.text)
        left = [
            sentence
            for sentence in said
            if not any(
                restates(_statement(sentence, item, speakers, listeners), belief.text, belief.kind)
                for belief in withdrawn
            )
        ]
        if len(left) == len(said):
            kept.append(item)
        elif left:
            kept.append(item.model_copy(update={"text": " ".join(left)}))
    return kept


def _statement(sentence: str, item: EvidenceItem, speakers: list[str], listeners: dict[str, str]) -> str:
    """The sentence as a fact would state it: a turn's about its speaker, on its day."""
    if item.speaker is None or item.at is None:
        return sentence
    return render(core(sentence, speakers), item.speaker, listeners.get(item.speaker), day_of(item.at))
