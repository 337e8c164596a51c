"""Units: the rendered sentences of turns and summaries, what episodes and facts are built from.

A sentence left without content words or a first-person word is dropped ("Haha!"). A question or
a sentence with fewer than `MIN_INFORMATIVE` informative words (a bare reaction: "Wow, that's
great!") is not informative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from consolidation.consolidating.consolidator import Turn
from consolidation.consolidating.offline.dates import day_of
from consolidation.consolidating.offline.splitting import SHARE, core, sentences, share
from consolidation.consolidating.offline.statements import FIRST_PERSON, render
from consolidation.consolidating.offline.words import content_words, informative

MIN_INFORMATIVE = 2


@dataclass(frozen=True)
class Unit:
    text: str  # the self-contained statement
    words: frozenset[str]  # its informative words
    position: int  # stream order
    said: str = ""  # the sentence as said (interjections dropped); "" for summary sentences
    turn: Turn | None = None
    new: bool = True  # from the turns of this call (not from an earlier summary)

    @property
    def length(self) -> int:
        return len(self.text.split())

    @property
    def informative(self) -> bool:
        return not self.text.endswith("?") and len(self.words) >= MIN_INFORMATIVE


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
            units.append(Unit(text, informative(text, names), position, said, turn))
    return units


def _partners(turns: Sequence[Turn]) -> dict[str, str]:
    """Each speaker's listener, when exactly two people speak."""
    speakers = list(dict.fromkeys(turn.speaker for turn in turns))
    if len(speakers) != 2:
        return {}
    return {speakers[0]: speakers[1], speakers[1]: speakers[0]}
