"""Answers: the evidence items sharing the most content words with the question.

Facts, then episodes, then interactions; the top three, joined; their ids are the used ids.
"""

from __future__ import annotations

from datetime import datetime

from consolidation.consolidating.consolidator import AnswerDraft, AnswerInput, EvidenceItem
from consolidation.consolidating.offline.words import content_words
from consolidation.consolidating.prompts.common import to_utc

ANSWER_TOP = 3


def answer(inp: AnswerInput) -> AnswerDraft:
    question = set(content_words(inp.question))
    pool = [*inp.facts, *inp.episodes, *inp.interactions]
    scored = [(len(question & set(content_words(item.text))), item) for item in pool]
    # sorted() is stable: among equal scores facts come first, then episodes, then interactions.
    ranked = sorted(
        ((score, item) for score, item in scored if score > 0 and _visible(item, inp.as_of)),
        key=lambda pair: -pair[0],
    )
    top = [item for _, item in ranked[:ANSWER_TOP]]
    if not top:
        return AnswerDraft(answer="The memory holds nothing relevant to this question.", used_ids=[])
    return AnswerDraft(answer=" ".join(item.text for item in top), used_ids=[i.id for i in top])


def _visible(item: EvidenceItem, as_of: datetime | None) -> bool:
    return as_of is None or item.at is None or item.at <= to_utc(as_of)
