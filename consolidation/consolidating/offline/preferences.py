"""Preference polarity: when a new preference replaces a fact, and when it adds nothing.

A new preference replaces an existing fact that names the same person, expresses the opposite
polarity ("loves" vs "can't stand") and shares at least half of the smaller set of object words.
A preference with the same polarity and no new object words is not emitted again.
"""

from __future__ import annotations

import math
import re

from consolidation.consolidating.consolidator import ExistingFact
from consolidation.consolidating.offline.statements import DATE_PREFIX
from consolidation.consolidating.offline.words import content_words, plain

_NEGATIVE = re.compile(
    r"\bcan(?:'t|not| not) stand\b|\bcouldn't stand\b|\b(?:hate[sd]?|dislike[sd]?|detest(?:s|ed)?)\b"
    r"|\b(?:doesn't|don't|didn't|does not|do not|did not|no longer|never|not)\s+(?:\w+\s+)?"
    r"(?:like|love|enjoy)(?:s|d|ed)?\b|\b(?:sick|tired) of\b"
)
_POSITIVE = re.compile(
    r"\b(?:lov|lik|ador)(?:e|es|ed)\b|\bprefer(?:s|red)?\b|\benjoy(?:s|ed)?\b"
    r"|\bfavou?rite\b|\bfan of\b"
)


def stance(text: str, subject: str) -> tuple[int, frozenset[str]] | None:
    """(+1 or -1, object words) of a preference statement about `subject`, else None."""
    body = _body(text)
    if not re.search(rf"\b{re.escape(subject.lower())}\b", body):
        return None
    match = _NEGATIVE.search(body) or _POSITIVE.search(body)
    if match is None:
        return None
    polarity = -1 if match.re is _NEGATIVE else 1
    marker = set(content_words(match[0]))
    subject_words = set(content_words(subject))
    objects = frozenset(content_words(body)) - marker - subject_words
    return polarity, objects


def contradicted(text: str, subject: str, existing: list[ExistingFact]) -> list[str]:
    """The ids of the facts about `subject` a preference turns around."""
    new = stance(text, subject)
    if new is None:
        return []
    replaced = []
    for fact in existing:
        old = stance(fact.text, subject)
        if old is not None and old[0] != new[0] and _same_object(old[1], new[1]):
            replaced.append(fact.id)
    return replaced


def already_known(text: str, subject: str, existing: list[ExistingFact]) -> bool:
    """Same polarity and nothing new about the object: the fact exists unchanged."""
    new = stance(text, subject)
    if new is None:
        return False
    for fact in existing:
        old = stance(fact.text, subject)
        if old is not None and old[0] == new[0] and new[1] and new[1] <= old[1]:
            return True
    return False


def _body(text: str) -> str:
    """A fact without its date prefix, case or final punctuation, for duplicate checks."""
    return DATE_PREFIX.sub("", " ".join(plain(text).split())).rstrip(".!").lower()


def _same_object(first: frozenset[str], second: frozenset[str]) -> bool:
    shared = len(first & second)
    return shared > 0 and shared >= math.ceil(min(len(first), len(second)) / 2)
