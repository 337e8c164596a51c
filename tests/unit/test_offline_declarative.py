"""The offline consolidator states facts and summaries only from declarative statements."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from consolidation.consolidating.consolidator import EpisodeInput, RefineInput, Turn
from consolidation.consolidating.offline import OfflineConsolidator, declarative, sentences, shape
from consolidation.consolidating.offline.words import name_words
from consolidation.consolidating.prompts import refine_facts

NAMES = name_words(["Priya", "Tomas", "Mark"])
T0 = datetime(2024, 3, 4, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Keep doing what you love.", "imperative"),
        ("Let Priya know how it turns out.", "imperative"),
        ("Let's grab lunch at the harbour sometime.", "imperative"),
        ("Don't forget to water the tomatoes.", "imperative"),
        ("Please bring the blue folder tomorrow.", "imperative"),
        ("Never give up on the marathon training.", "imperative"),
        ("Check out the new bakery near the station.", "imperative"),
        ("Thanks for the lovely birthday present.", "greeting"),
        ("Thank you for helping with the move.", "greeting"),
        ("Good luck with the interview on Friday!", "greeting"),
        ("Take care of that sprained ankle.", "greeting"),
        ("Bye for now, see you at the concert.", "greeting"),
        ("Sorry to hear about the flooded basement.", "greeting"),
        ("Congrats on the promotion at the hospital!", "greeting"),
        ("Can't wait to see the finished mural!", "no subject"),
        ("Must have taken ages to build that shed.", "no subject"),
        ("What kind of guitar does Tomas play?", "question"),
        ("Wow, that's so great!", "no content"),
        ("Priya, Tomas!", "no content"),
    ],
)
def test_non_declarative_shapes(sentence: str, expected: str) -> None:
    assert shape(sentence, NAMES) == expected
    assert not declarative(sentence, NAMES)


@pytest.mark.parametrize(
    "sentence",
    [
        "Priya adopted a grey rescue cat in January.",
        "Tomas plays bass in a jazz trio on Thursdays.",
        "My sister lives in Porto and teaches chemistry.",
        "Work has been hectic since the merger.",  # a verb-like word as the subject
        "Love and patience got Priya through the first year.",
        "Mark painted the fence with his neighbour.",  # a speaker named like a verb
        "The pottery class starts again in April.",
    ],
)
def test_declarative_statements(sentence: str) -> None:
    assert shape(sentence, NAMES) is None
    assert declarative(sentence, NAMES)


def test_restated_sentences_are_read_past_their_prefixes() -> None:
    """The census reads stored facts: "On <day> <Speaker> said <sentence>" keeps its shape."""
    assert shape("On 4 March 2024 Tomas said Keep doing what Priya loves.", NAMES) == "imperative"
    assert shape("On 4 March 2024 Priya said thanks for the recipe.", NAMES) == "greeting"
    assert shape("On 4 March 2024 Tomas said the ferry leaves from pier nine.", NAMES) is None
    assert shape("Priya went to Lisbon on 3 March 2024 with Tomas.", NAMES) is None


def _turns(*said: tuple[str, str]) -> list[Turn]:
    return [
        Turn(id=f"t{n}", speaker=speaker, occurred_at=T0 + timedelta(minutes=n), text=text)
        for n, (speaker, text) in enumerate(said)
    ]


TALK = _turns(
    ("Priya", "I finally finished the oak bookshelf for my daughter's room."),
    ("Tomas", "Keep building furniture, you have real talent. Let me know how the varnish turns out."),
    ("Priya", "Thanks for the kind words about the bookshelf! Take care of that cold."),
    ("Tomas", "I started volunteering at the animal shelter on weekends."),
    ("Priya", "Can't wait to hear more about the shelter dogs!"),
)


async def test_offline_facts_keep_only_declarative_statements() -> None:
    inp = RefineInput(episode_summary="e", turns=TALK)
    facts = (await OfflineConsolidator().refine_facts(inp)).value.facts
    assert [(f.text, f.source_turn_ids) for f in facts] == [
        ("On 4 March 2024 Priya finally finished the oak bookshelf for Priya's daughter's room.", ["t0"]),
        ("On 4 March 2024 Tomas started volunteering at the animal shelter on weekends.", ["t3"]),
    ]


async def test_offline_summary_keeps_only_declarative_statements() -> None:
    summary = (await OfflineConsolidator().create_episode(EpisodeInput(turns=TALK))).value.summary
    kept = sentences(summary)
    assert len(kept) == 2 and all(declarative(s, NAMES) for s in kept)
    assert "bookshelf" in kept[0] and "animal shelter" in kept[1]


async def test_offline_summary_of_chatter_alone_is_never_empty() -> None:
    chatter = _turns(("Priya", "Thanks so much for the flowers!"), ("Tomas", "Take care and see you soon!"))
    summary = (await OfflineConsolidator().create_episode(EpisodeInput(turns=chatter))).value.summary
    assert len(sentences(summary)) == 1


async def test_a_request_to_remember_is_stated_as_its_clause() -> None:
    turns = _turns(
        ("Priya", "Please remember that I don't eat shellfish."),
        ("Priya", "Keep in mind that my office moved to the third floor."),
        ("Tomas", "Please remember the umbrella."),  # an imperative without a clause
    )
    facts = (await OfflineConsolidator().refine_facts(RefineInput(episode_summary="e", turns=turns))).value
    assert [f.text for f in facts.facts] == [
        "On 4 March 2024 Priya doesn't eat shellfish.",
        "On 4 March 2024 Priya's office moved to the third floor.",
    ]


def test_the_llm_prompt_states_the_same_rule() -> None:
    assert refine_facts.DECLARATIVE_RULE in refine_facts.SYSTEM
    for word in ("declarative statements about someone", "greetings", "thanks", "instructions"):
        assert word in refine_facts.DECLARATIVE_RULE
