"""The offline consolidator's vocabulary: content words, and the word lists that weigh them.

- Content words: lower-cased words of three letters or more, without stopwords.
- Informative: a sentence's informative words are its content words minus the speakers' names,
  month names and conversational filler (wow, great, thanks, sounds, bye...).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable

_WORD = re.compile(r"[a-z][a-z']*")
_STOPWORD_LIST = """a about above after again against all also am an and any anymore are aren't as at be
    because been before being below between both but by can can't cannot could couldn't day days
    did didn't do does doesn't doing don't down during each even ever few for from further get
    gets getting go going gonna got had hadn't has hasn't have haven't having he he'd he'll he's
    her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is
    isn't it it's its itself just last let's lot lots me month months more most much must my
    myself next no nor not now of off oh ok okay on once one only or other ought our ours
    ourselves out over own pretty quite really same she she'd she'll she's should shouldn't so
    some still such than that that's the their theirs them themselves then there there's these
    they they'd they'll they're they've thing things this those through to today tomorrow too
    under until up very was wasn't way we we'd we'll we're we've week weeks well were weren't
    what what's when when's where where's which while who who's whom why why's will with won't
    would wouldn't year years yeah yes yesterday yet you you'd you'll you're you've your yours
    yourself yourselves ago said says say"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())
# Words of conversation rather than content: a sentence made of them is a reaction, not a fact.
_FILLER_LIST = """wow ooh aww awww yay hey hi hello haha hahaha lol omg gosh great awesome amazing cool
    nice good glad thanks thank sounds sound congrats congratulations sure agree true exactly
    definitely absolutely totally fantastic wonderful incredible super sweet bye goodbye care soon
    later chat talk catch anything something everything nothing someone anyone everyone know
    think mean guess seems looks wait see luck new"""
FILLER = frozenset(_FILLER_LIST.split())
_MONTHS = frozenset(name.lower() for name in calendar.month_name if name)
# Common verbs: conjugated after a name ("I find" -> "Caroline finds"), never an episode's title.
_VERB_LIST = """love like hate prefer enjoy adore dislike want need have do go live work play plan hope
    wish know believe miss study teach run own use cook eat read write watch visit think feel
    try paint collect volunteer mentor attend practice make take keep spend get find guess mean
    say bet"""
VERBS = frozenset(_VERB_LIST.split())
_PAST_LIST = """went was were did had got met saw made took came began bought found told thought felt
    left kept brought taught caught ran won lost sent spent built heard wrote gave knew grew drew
    threw flew chose broke spoke woke drove rode ate sat stood understood fell held paid sold sang
    swam became forgot"""
PAST_VERBS = frozenset(_PAST_LIST.split())


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry topic: no stopwords, no one- or two-letter words."""
    words = (word.strip("'") for word in _WORD.findall(plain(text).lower()))
    words = (word[:-2] if word.endswith("'s") else word for word in words)
    return [word for word in words if len(word) > 2 and word not in STOPWORDS]


def informative(text: str, names: frozenset[str]) -> frozenset[str]:
    """Content words without names, month names and conversational filler."""
    return frozenset(w for w in content_words(text) if w not in names and w not in _MONTHS | FILLER)


def name_words(speakers: Iterable[str]) -> frozenset[str]:
    return frozenset(word for speaker in speakers for word in content_words(speaker))


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def plain(text: str) -> str:
    """Typographic apostrophes as plain ones, so that "I’m" reads as "I'm"."""
    return text.replace("\u2019", "'").replace("\u2018", "'")
