"""A name in the question is scope, not a word (docs/design/context-assembly.md#names).

A speaker of the user's own turns whose name the question writes capitalised, and the words of a
closed list of pleasantries, leave the lexical query; what is by or about that speaker instead
gains one top reciprocal rank in the fused ranking (their own turns, and the facts whose text
names them), unless it holds only pleasantries and names. Episodes gain nothing: one tells an
exchange between speakers. Other names stay words: a turn that names them is a statement about
them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from graph.lexical import MAX_TERMS, words
from graph.models import Episode, Fact, Interaction
from graph.recall import LexicalQuery

T = TypeVar("T")
# One list's top reciprocal rank (1 / (60 + 1)), as the planner's window boost.
SPEAKER_BOOST = 1.0 / 61
# Words that only greet, thank or take leave: never a reason to match a turn.
PLEASANTRIES = frozenset(
    {"thanks", "thank", "thx", "bye", "goodbye", "hi", "hello", "hey", "congrats", "congratulations"}
)
# With the pleasantries, the words a turn that says nothing else is made of ("Thanks, X! Take
# care!", "Bye X, see you soon!", "Wow, that's so cool!").
_SMALL_TALK = PLEASANTRIES | frozenset(
    {"you", "so", "much", "take", "care", "see", "soon", "later", "talk", "catch", "have", "a", "the"}
    | {"great", "good", "nice", "day", "night", "too", "again", "and", "for", "it", "that", "that's"}
    | {"wow", "awesome", "cool", "amazing", "lol", "haha", "ok", "okay", "sure", "yeah", "yes", "to"}
    | {"your", "me", "i", "we", "really", "glad", "happy", "it's", "you're", "i'm", "of", "course"}
)


# A word written capitalised ("Caroline", "Dr."), and how many such words in a row a name may be.
_CAPITALISED = re.compile(r"(?<!\w)[^\W\d_][\w'\u2019-]*\.?")
_POSSESSIVE = re.compile(r"['\u2019]s?$")
MAX_NAME_WORDS = 4
MAX_CANDIDATES = 64


def speaker_candidates(question: str) -> list[str]:
    """The names a speaker of the question could have: each run of up to `MAX_NAME_WORDS`
    capitalised words (a possessive dropped), as written, lowercased and capitalised: the store is
    asked for these exactly, and `named_speakers` then applies the rule. A name with a word in
    lower case inside ("Mary de Souza") is not among them."""
    runs: list[list[str]] = []
    last_end = -2
    for match in _CAPITALISED.finditer(question):
        word = _POSSESSIVE.sub("", match[0])
        if not word[0].isupper():
            last_end = -2
            continue
        if runs and match.start() == last_end + 1 and question[last_end] == " ":
            runs[-1].append(word)
        else:
            runs.append([word])
        last_end = match.end()
    found: dict[str, None] = {}
    for run in runs:
        for size in range(1, min(MAX_NAME_WORDS, len(run)) + 1):
            for start in range(len(run) - size + 1):
                name = " ".join(run[start : start + size])
                for variant in (name, name.rstrip("."), name.lower(), name.capitalize()):
                    found.setdefault(variant, None)
    return list(found)[:MAX_CANDIDATES]


def named_speakers(question: str, speakers: Sequence[str]) -> list[str]:
    """The `speakers` (the user's) whose name the question holds as a word, written capitalised."""
    return [speaker for speaker in speakers if speaker.strip() and _names(question, speaker)]


def _names(text: str, speaker: str) -> bool:
    """Whether `text` holds `speaker` as a word (any case inside), written capitalised."""
    pattern = re.compile(rf"(?<!\w){re.escape(speaker)}(?!\w)", re.IGNORECASE)
    return any(m[0][:1].isupper() for m in pattern.finditer(text))


def lexical_text(question: str, named: Sequence[str]) -> str:
    """The question's words for the lexical view: without the `named` speakers' words (also
    possessive) and without pleasantries. Empty when nothing else is left."""
    dropped = PLEASANTRIES | _name_words(named)
    return " ".join(w for w in words(question) if _bare(w) not in dropped)


def lexical_query(question: str, *, search: bool = True) -> LexicalQuery:
    """The lexical view of `question`, searched before its speakers are known: its words find
    every candidate any outcome of the lookup could score (`search_words`), and once the store
    has said which candidate names are the user's speakers, `lexical_text` without those scores
    them. `search` False: the speakers lookup alone."""
    candidates = speaker_candidates(question)
    return LexicalQuery(
        search_words(question, candidates) if search else [],
        candidates,
        lambda speakers: lexical_text(question, named_speakers(question, speakers)),
    )


def search_words(question: str, candidates: Sequence[str]) -> list[str]:
    """Every word `lexical_text(question, named)` can score for any `named` among `candidates`,
    once each: the first `MAX_TERMS` words that are no candidate's, and every word that is."""
    every = words(lexical_text(question, ()))
    name_words = _name_words(candidates)
    others = [w for w in every if _bare(w) not in name_words][:MAX_TERMS]
    return list(dict.fromkeys(others + [w for w in every if _bare(w) in name_words]))


def scoped(
    named: Sequence[str],
    entries: Sequence[T],
    item_of: Callable[[T], Interaction | Episode | Fact],
    score_of: Callable[[T], float],
) -> list[tuple[T, float]]:
    """`entries` with `SPEAKER_BOOST` added to each item by or about a `named` speaker (a turn
    they said; a fact whose text names them) that is more than small talk, highest first."""
    names = _name_words(named)
    scored = []
    for entry in entries:
        item, score = item_of(entry), score_of(entry)
        # An episode tells an exchange and names its speakers whoever it is about, so its names
        # say nothing; boosted, a multi-session episode ranked above the turns that answer.
        if not isinstance(item, Episode) and _concerns(item, named) and not small_talk(item.text, names):
            score += SPEAKER_BOOST
        scored.append((entry, score))
    return sorted(scored, key=lambda pair: pair[1], reverse=True)


def _concerns(item: Interaction | Fact, named: Sequence[str]) -> bool:
    """A turn by a `named` speaker, or a fact that names one (a fact states whom it is about)."""
    if isinstance(item, Interaction):
        return item.speaker in named
    return any(_names(item.text, speaker) for speaker in named)


def small_talk(text: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether every word of `text` is a pleasantry, small talk or one of `names`."""
    found = words(text)
    return all(_bare(w) in _SMALL_TALK or _bare(w) in names for w in found)


def _name_words(named: Sequence[str]) -> frozenset[str]:
    return frozenset(w for name in named for w in words(name))


def _bare(word: str) -> str:
    """A word without its possessive ending ("caroline's" -> "caroline")."""
    return word.removesuffix("'s").removesuffix("\u2019s")
