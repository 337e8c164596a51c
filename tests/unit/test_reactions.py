"""Reactions ("Wow, Jon!", "How are you?") earn no line in a context while their turn says
something else; a sentence with any informative word, a place's name included, stays."""

from __future__ import annotations

import numpy as np

from consolidation.consolidating.offline.words import name_words
from consolidation.recall.sentences import ELLIPSIS, focus, pack, reaction, without_reactions
from tests.support.vectors import unit

SPEAKERS = name_words(["Gina", "Jon"])


def test_a_reaction_is_filler_stopwords_and_the_speakers_names() -> None:
    for sentence in ("Wow, Jon!", "That is really great Jon!", "Thanks so much, Gina!", "How are you?"):
        assert reaction(sentence, SPEAKERS), sentence
    # A name that is not a speaker's, a place, any word of content: not a reaction.
    for sentence in ("Been only to Rome once.", "Hey Mel!", "I went to the support group.", "Paris?!"):
        assert not reaction(sentence, SPEAKERS), sentence


def test_a_best_ranked_turn_loses_only_its_reactions() -> None:
    text = "Wow, Jon! Paris?! Never had a chance to visit it. Been only to Rome once. How are you?"
    shown = without_reactions(text, SPEAKERS)
    assert shown == "Paris?! Never had a chance to visit it. Been only to Rome once." + ELLIPSIS
    # Nothing but reactions, or none at all: the turn stays as it is.
    assert without_reactions("Wow, Jon! That's so cool!", SPEAKERS) is None
    assert without_reactions("I paint. I also run.", SPEAKERS) is None


def test_focus_leaves_reactions_out_even_when_they_match_best() -> None:
    text = "Thanks, Gina! I opened a dance studio. It is downtown."
    query = unit(1.0)
    # The reaction is the closest sentence to the query; the next best stands in for it.
    rows = np.stack([unit(1.0), unit(1.0, 0.3), unit(0.2, 1.0)])
    assert focus(text, pack(rows), query, names=SPEAKERS) == "I opened a dance studio." + ELLIPSIS
    assert focus(text, pack(rows), query, narrow=True, names=SPEAKERS) == (
        "I opened a dance studio. It is downtown." + ELLIPSIS
    )
    # Without the speakers' names "Gina" is a word of content, and the sentence is kept.
    assert focus(text, pack(rows), query) == "Thanks, Gina! I opened a dance studio." + ELLIPSIS
