"""The vocabulary's words are defined once: the Literal the prompt schemas use names the enum's."""

from __future__ import annotations

from typing import get_args

from graph.vocabulary import FACT_KINDS, FACT_STATUSES, FactKind, FactKindName, FactStatus


def test_the_prompt_literal_names_every_fact_kind_in_order() -> None:
    assert get_args(FactKindName) == FACT_KINDS == tuple(kind.value for kind in FactKind)


def test_the_words_are_plain_strings_named_by_their_members() -> None:
    for enum, words in ((FactKind, FACT_KINDS), (FactStatus, FACT_STATUSES)):
        assert [member.name.lower() for member in enum] == list(words)
        assert all(type(word) is str for word in words)
