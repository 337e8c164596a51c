"""Units: the rendered sentences of turns and summaries, what episodes and facts are built from.

A sentence left without content words or a first-person word is dropped ("Haha!"). A question or
a sentence with fewer than `MIN_INFORMATIVE` informative words (a bare reaction: "Wow, that's
great!") is not informative. A unit records whether it is a declarative statement about someone
(`declarative`): only those become facts or summary sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consolidation.consolidating.consolidator import Turn
from consolidation.consolidating.offline.dates import day_of
from consolidation.consolidating.offline.declarative import MIN_INFORMATIVE, declarative
from consolidation.consolidating.offline.splitting import SHARE, core, sentences, share
from consolidation.consolidating.offline.statements import FIRST_PERSON, render
from consolidation.consolidating.offline.words import content_words, informative


@dataclass(frozen=True)
class Unit:
    text: str  # the self-contained statement
    words: frozenset[str]  # its informative words
    position: int  # stream order
    said: str = ""  # the sentence as said (interjections dropped); "" for summary sentences
    turn: Turn | None = None
    new: bool = True  # from the turns of this call (not from an earlier summary)
    declarative: bool = True  # a statement about someone (`declarative`)

    @property
    def length(self) -> int:
        return len(self.text.split())

    @property
    def informative(self) -> bool:
        return not self.text.endswith("?") and len(self.words) >= MIN_INFORMATIVE

    @property
    def statement(self) -> bool:
        """Informative and declarative: what a fact or a summary sentence is made of."""
        return self.informative and self.declarative


def turn_units(
    turns: Sequence[Turn], names: frozenset[str], start: int = 0, among: Sequence[Turn] = ()
) -> list[Unit]:
    """The turns' sentences rendered; `among` (default: the turns) says who takes part."""
    everyone = among or turns
    partners = _partners(everyone)
    speakers = list(dict.fromkeys(turn.speaker for turn in everyone))
    units: list[Unit] = []
    for turn in turns:
        shared = [share(match, turn.speaker) for match in SHARE.finditer(turn.text)]
        for sentence in [*sentences(SHARE.sub(" ", turn.text)), *shared]:
            said = core(sentence, speakers)
            if not content_words(said) and not FIRST_PERSON.search(said):
                continue  # "Wow!", "Haha."
            text = render(said, turn.speaker, partners.get(turn.speaker), day_of(turn.occurred_at))
            position = start + len(units)
            words = informative(text, names)
            units.append(Unit(text, words, position, said, turn, declarative=declarative(text, names)))
    return units


def _partners(turns: Sequence[Turn]) -> dict[str, str]:
    """Each speaker's listener, when exactly two people speak."""
    speakers = list(dict.fromkeys(turn.speaker for turn in turns))
    if len(speakers) != 2:
        return {}
    return {speakers[0]: speakers[1], speakers[1]: speakers[0]}
