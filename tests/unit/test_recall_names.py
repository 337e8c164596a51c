"""The name rule's pieces: which speakers a question names, the lexical query left without them
and pleasantries, and what counts as small talk (consolidation/recall/names.py)."""

from __future__ import annotations

from consolidation.recall.names import lexical_text, named_speakers, small_talk


def test_a_speaker_is_named_when_the_question_writes_the_name_capitalised() -> None:
    speakers = ["Caroline", "Melanie", "User", "Assistant", "alice"]
    assert named_speakers("When did Caroline's sister visit?", speakers) == ["Caroline"]
    assert named_speakers("What does Alice like to eat?", speakers) == ["alice"]
    # LongMemEval's speakers are no names in its questions.
    assert named_speakers("What did the assistant suggest to the user?", speakers) == []
    # A part of a longer word is no name.
    assert named_speakers("Where do Carolines live?", speakers) == []


def test_the_lexical_query_drops_named_speakers_and_pleasantries_only() -> None:
    assert lexical_text("Thanks! When did Caroline's sister visit Sarah?", ["Caroline"]) == (
        "when did sister visit sarah"
    )
    assert lexical_text("Bye Caroline!", ["Caroline"]) == ""
    assert lexical_text("When did Caroline visit?", []) == "when did caroline visit"


def test_small_talk_is_pleasantries_closings_and_names() -> None:
    names = frozenset({"caroline"})
    assert small_talk("Thanks, Caroline! Take care, see you soon!", names)
    assert small_talk("Bye Caroline!", names)
    assert not small_talk("Thanks, Caroline! I went to the support group.", names)
    assert not small_talk("Bye Melanie!", names)
