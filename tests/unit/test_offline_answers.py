"""The offline answerer reads the planner's order marks as an LLM would: for "currently" the
statement marked latest answers and the earlier ones on its topic do not; for "first" the one
marked earliest; no mark reaches the answer's words."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.consolidating.offline.answers import answer
from consolidation.consolidating.prompts.answer import AnswerInput, EvidenceItem

MAY, JUNE, JULY = (datetime(2023, month, 8, 14, 0, tzinfo=UTC) for month in (5, 6, 7))


def _turn(item_id: str, text: str, at: datetime) -> EvidenceItem:
    return EvidenceItem(id=item_id, text=text, at=at, speaker="Alice")


def test_a_current_question_is_answered_from_the_statement_marked_latest() -> None:
    draft = answer(
        AnswerInput(
            question="What is my current job?",
            interactions=[
                _turn("i1", "(earlier) I started a new job as a nurse at the clinic.", MAY),
                _turn("i2", "(earlier) The job at the clinic is hard work.", JUNE),
                _turn("i3", "(latest) These days I teach biology at the high school.", JULY),
                _turn("i4", "My sister found a job in Oslo.", JULY),
            ],
        )
    )
    assert draft.used_ids[0] == "i3"
    assert not {"i1", "i2"} & set(draft.used_ids)
    assert draft.answer.startswith("These days I teach biology")
    assert "(latest)" not in draft.answer and "(earlier)" not in draft.answer


def test_a_first_question_is_answered_from_the_statement_marked_earliest() -> None:
    draft = answer(
        AnswerInput(
            question="Which pottery class did I take first?",
            interactions=[
                _turn("i1", "I took the wheel pottery class at the studio.", JULY),
                _turn("i2", "(earliest) My first class there was hand building.", MAY),
            ],
        )
    )
    assert draft.used_ids[0] == "i2"
    assert draft.answer.startswith("My first class there was hand building.")


def test_without_marks_the_answer_is_the_best_word_overlap_as_before() -> None:
    draft = answer(
        AnswerInput(
            question="What is my job?",
            interactions=[
                _turn("i1", "I started a new job as a nurse.", MAY),
                _turn("i2", "I like tea.", JUNE),
            ],
        )
    )
    assert (draft.used_ids, draft.answer) == (["i1"], "I started a new job as a nurse.")
