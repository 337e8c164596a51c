"""Answers: the evidence items sharing the most content words with the question.

Facts, then episodes, then interactions; the top three, joined; their ids are the used ids. A
sentence that states a withdrawn belief is left out of its item first (`without_withdrawn`), and a
sentence said already (a fact and its episode's summary) is said once (`unrepeated`). The
planner's order marks are read as an LLM reads them (`in_order`); none reaches the answer.
"""

from __future__ import annotations

from datetime import datetime

from consolidation.consolidating.consolidator import AnswerDraft, AnswerInput, EvidenceItem
from consolidation.consolidating.offline.dates import day_of
from consolidation.consolidating.offline.facts import restates
from consolidation.consolidating.offline.splitting import core, sentences
from consolidation.consolidating.offline.statements import render
from consolidation.consolidating.offline.words import content_words
from consolidation.consolidating.prompts.answer import (
    EARLIER_MARK,
    FIRST_MARK,
    LATEST_MARK,
    WithdrawnBelief,
)
from consolidation.consolidating.prompts.common import to_utc

ANSWER_TOP = 3


def answer(inp: AnswerInput) -> AnswerDraft:
    question = set(content_words(inp.question))
    pool = [*inp.facts, *inp.episodes, *inp.interactions]
    if inp.withdrawn_beliefs:
        pool = without_withdrawn(pool, inp.withdrawn_beliefs)
    pool = in_order(pool)
    scored = [(len(question & set(content_words(item.text))), item) for item in pool]
    # The statement the order mark chose answers as well as the best: it is on the question's topic.
    best = max((score for score, _ in scored), default=0)
    scored = [(best if _chosen(item) else score, item) for score, item in scored]
    # sorted() is stable: among equal scores the chosen statement, then facts, episodes, interactions.
    ranked = sorted(
        ((score, item) for score, item in scored if score > 0 and _visible(item, inp.as_of)),
        key=lambda pair: (-pair[0], not _chosen(pair[1])),
    )
    top = [item for _, item in ranked[:ANSWER_TOP]]
    if not top:
        return AnswerDraft(answer="The memory holds nothing relevant to this question.", used_ids=[])
    texts = [_unmarked(item.text) for item in top]
    return AnswerDraft(answer=" ".join(unrepeated(texts)), used_ids=[i.id for i in top])


def in_order(items: list[EvidenceItem]) -> list[EvidenceItem]:
    """The items less those marked earlier when one is marked latest: for "what is my current
    ...", the older statements on its topic are what it is no longer."""
    if not any(item.text.startswith(LATEST_MARK) for item in items):
        return items
    return [item for item in items if not item.text.startswith(EARLIER_MARK)]


def _chosen(item: EvidenceItem) -> bool:
    return item.text.startswith((LATEST_MARK, FIRST_MARK))


def _unmarked(text: str) -> str:
    for mark in (LATEST_MARK, EARLIER_MARK, FIRST_MARK):
        if text.startswith(mark):
            return text.removeprefix(mark)
    return text


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
