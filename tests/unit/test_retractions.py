"""Retracted facts in refinement: the prompt lists them only when there are any, and a draft that
restates one (up to case, spacing and punctuation) is dropped."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.consolidating.prompts import refine_facts
from consolidation.consolidating.prompts.common import Turn
from consolidation.consolidating.prompts.refine_facts import FactDraft, FactDrafts, RefineInput, RetractedFact
from consolidation.consolidating.retractions import normalised, shown, without_retracted
from graph.beliefs import RetractedFact as Stored

TURN = Turn(id="int_1", speaker="alice", text="I love tuna.", occurred_at=datetime(2024, 5, 1, tzinfo=UTC))


def test_normalised_ignores_case_spacing_and_punctuation_only() -> None:
    assert normalised("  Alice LOVES sushi,  with tuna! ") == normalised("alice loves sushi with tuna.")
    assert normalised("Alice loves sushi with tuna.") != normalised("Alice loves sushi with salmon.")
    assert normalised("ﬁsh") == normalised("fish")  # NFKC


def test_a_draft_restating_a_retracted_fact_is_dropped() -> None:
    drafts = FactDrafts(
        facts=[
            FactDraft(text="Alice loves TUNA", kind="preference", source_turn_ids=["int_1"]),
            FactDraft(text="Alice loves tuna rolls.", kind="preference", source_turn_ids=["int_1"]),
        ]
    )
    retracted = [Stored(id="fact_1", text="Alice loves tuna.", kind="preference", source_ids=["int_1"])]
    assert [d.text for d in without_retracted(drafts, retracted).facts] == ["Alice loves tuna rolls."]
    assert without_retracted(drafts, []) == drafts


def test_the_prompt_lists_retracted_facts_only_when_there_are_some() -> None:
    plain = RefineInput(episode_summary="Sushi.", turns=[TURN])
    assert "retracted" not in str(refine_facts.messages(plain))
    listed = plain.model_copy(
        update={
            "retracted_facts": shown(
                [Stored(id="fact_1", text="Alice loves tuna.", kind="preference", source_ids=[])]
            )
        }
    )
    user = refine_facts.messages(listed)[-1]["content"]
    assert refine_facts.RETRACTED_RULE in user and '"text": "Alice loves tuna."' in user
    assert isinstance(listed.retracted_facts[0], RetractedFact)
