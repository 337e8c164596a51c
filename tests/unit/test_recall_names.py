"""The name rule's pieces: which speakers a question names, the lexical query left without them
and pleasantries, and what counts as small talk (consolidation/recall/names.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidation.recall.names import (
    SPEAKER_BOOST,
    lexical_query,
    lexical_text,
    named_speakers,
    scoped,
    small_talk,
    speaker_candidates,
)
from graph.lexical import query_terms
from graph.models import Episode, Fact, Interaction


def test_the_store_is_asked_for_each_run_of_capitalised_words_in_three_cases() -> None:
    found = speaker_candidates("Did Mary Ann meet Caroline's friend O'Brien?")
    for name in ("Mary Ann", "mary ann", "Mary ann", "Caroline", "caroline", "O'Brien", "Did Mary Ann"):
        assert name in found, name
    assert "Caroline's" not in found and "meet" not in found
    assert speaker_candidates("what did the assistant suggest to the user?") == []
    # Every speaker the rule names is among the candidates, whatever case the store keeps: the
    # store's answer (the speakers among them) names the same.
    speakers = ["Caroline", "alice", "Dr. Smith", "Jean-Luc", "Melanie"]
    for question in ("When did Caroline visit?", "Does Alice cook?", "Is Dr. Smith in?", "Ask Jean-Luc."):
        asked = speaker_candidates(question)
        stored = [s for s in speakers if s in asked]
        assert named_speakers(question, stored) == named_speakers(question, speakers) != [], question


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


def test_the_search_words_hold_every_word_any_lookup_could_score() -> None:
    # One statement searches before the speakers are known (graph/recall.py LexicalQuery): for
    # every subset of the candidates that proves to be the user's speakers, the words that then
    # score are among the words searched, also past the 32-word cap of a long question.
    long = " ".join(f"w{i}" for i in range(40))
    for question in (
        "When did Caroline and Melanie's kids go to the Beach Party with Caroline?",
        f"Thanks Sam! Did Sam Lee say {long} to Alex?",
        "What did the assistant suggest?",
    ):
        query = lexical_query(question)
        assert query.scored is not None
        candidates = query.names
        for mask in range(2 ** min(len(candidates), 8)):
            speakers = [c for i, c in enumerate(candidates[:8]) if mask >> i & 1]
            scored = query_terms(query.scored(speakers))
            assert set(scored) <= set(query.words), (question, speakers)
            assert query.scored(speakers) == lexical_text(question, named_speakers(question, speakers))
    # Without search, the lookup alone.
    assert lexical_query("Does Caroline paint?", search=False).words == []
    assert "caroline" in lexical_query("Does Caroline paint?").words


def test_the_speaker_boost_goes_to_their_turns_and_the_facts_naming_them_only() -> None:
    at = datetime(2023, 5, 8, tzinfo=UTC)

    def turn(speaker: str, text: str) -> Interaction:
        return Interaction(f"i-{text}", "t", "u", None, speaker, text, at, 1, False, None)

    def fact(text: str) -> Fact:
        return Fact(f"f-{text}", "t", "u", text, "attribute", "active", at, None, at)

    episode = Episode("e", "t", "u", "Caroline and Melanie", "Caroline paints.", 1, at, at, at, True, at)
    items: list[Interaction | Episode | Fact] = [
        turn("Caroline", "I paint sunsets."),
        turn("Melanie", "Caroline paints sunsets."),
        turn("Caroline", "Thanks so much, bye!"),
        fact("Caroline paints sunsets."),
        fact("Melanie paints lakes."),
        episode,
    ]
    scored = scoped(["Caroline"], items, lambda item: item, lambda _: 0.0)
    boosted = {item.id for item, score in scored if score == SPEAKER_BOOST}
    assert boosted == {"i-I paint sunsets.", "f-Caroline paints sunsets."}
    assert {score for _, score in scored} == {0.0, SPEAKER_BOOST}
