"""A sentence restated self-contained, the rendering episodes and facts share.

"I / my / me / mine / myself" become the speaker's name, and the verb after "I" takes the third
person ("I find" -> "Caroline finds"; modals, past tense and common words stay); when the turns
have exactly two speakers, "you / your / yours / yourself" become the other one the same way
("thank you" stays); relative dates become absolute ones (`dates`). A sentence that does not name
its speaker becomes "Speaker said ...". It is prefixed with the day it was said, "On 8 May 2023
...", unless a relative date in it was resolved to a single day, which then dates it. It ends
with "." (a question keeps "?").
"""

from __future__ import annotations

import re
from datetime import date

from consolidation.consolidating.offline.dates import day_str, resolve_dates
from consolidation.consolidating.offline.words import FILLER, PAST_VERBS, STOPWORDS, VERBS, plain

FIRST_PERSON = re.compile(r"\bI\b|\b(?:my|me|mine|myself)\b", re.IGNORECASE)
# What `render` writes before a statement ("On 8 May 2023"), or an extractive-v1 summary did.
DATE_PREFIX = re.compile(r"^(?:on|as of) (?:\d{4}-\d{2}-\d{2}|\d{1,2} [a-z]+ \d{4}),?\s*", re.IGNORECASE)
_ADVERBS = (
    "really|also|still|just|absolutely|totally|usually|always|often|sometimes|actually|never|ever|"
    "recently|finally|probably|definitely|literally|seriously|even|only|already|almost|mostly|"
    "honestly|truly|rarely|barely|kinda|genuinely|now"
)
# Verbs "I" / "you" are followed by that take no -s: modals, and present forms that read as past.
_NO_S_LIST = "can could will would shall should may might must put cut let set hit quit read"
_NO_S = frozenset(_NO_S_LIST.split())
_CONTRACTIONS = [
    (r"\bI(?:'m| am)\b", "{s} is"),
    (r"\bI(?:'ve| have)\b", "{s} has"),
    (r"\bI'll\b", "{s} will"),
    (r"\bI'd\b", "{s} would"),
    (r"\bI was\b", "{s} was"),
    (r"\bI don't\b", "{s} doesn't"),
    (r"\bI do not\b", "{s} does not"),
]
_YOU_CONTRACTIONS = [
    (r"\byou(?:'re| are)\b", "{s} is"),
    (r"\byou(?:'ve| have)\b", "{s} has"),
    (r"\byou'll\b", "{s} will"),
    (r"\byou'd\b", "{s} would"),
    (r"\byou were\b", "{s} was"),
    (r"\byou don't\b", "{s} doesn't"),
    (r"\byou do not\b", "{s} does not"),
]
# "you" as a subject: at the start, after punctuation or after a conjunction.
_SUBJECT_YOU = re.compile(
    r"(^|[,;:]\s+|\b(?:and|but|so|if|when|because|that|as|since|while|than|or)\s+)"
    rf"you((?:\s+(?:{_ADVERBS}))?)\s+([A-Za-z]+)\b",
    re.IGNORECASE,
)
_LOWER_LIST = """since although though unless whenever everyone everybody someone somebody anyone nobody
    maybe perhaps sometimes"""
_LOWER = frozenset(_LOWER_LIST.split())


def render(sentence: str, speaker: str, listener: str | None, said_on: date) -> str:
    """The sentence as a self-contained statement: names, absolute dates, who said it and when."""
    text = resolve_second_person(sentence, listener) if listener else sentence
    text = resolve_first_person(text, speaker)
    text, dated = resolve_dates(text, said_on)
    if not re.search(rf"\b{re.escape(speaker)}\b", text):
        text = f"{speaker} said {_lower_first(text)}"
    text = text.rstrip() if text.rstrip().endswith("?") else f"{text.rstrip(' .!;:,')}."
    if dated:
        return text[:1].upper() + text[1:]
    return f"On {day_str(said_on)} {_lower_first(text)}"


def resolve_first_person(sentence: str, speaker: str) -> str:
    """Replace I / my / me with the speaker's name; conjugate common verbs after "I"."""
    text = re.sub(r"\bi\b", "I", plain(sentence))  # "i'm", "i love": casual typing
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement.format(s=speaker), text)
    verb_after_i = re.compile(rf"\bI((?:\s+(?:{_ADVERBS}))?)\s+([a-z]+)\b")
    text = verb_after_i.sub(lambda m: f"{speaker}{m[1]} {_third_person(m[2])}", text)
    text = re.sub(r"\bI\b", speaker, text)
    text = re.sub(r"\b(?:my|mine)\b", f"{speaker}'s", text, flags=re.IGNORECASE)
    return re.sub(r"\b(?:me|myself)\b", speaker, text, flags=re.IGNORECASE)


def resolve_second_person(sentence: str, listener: str) -> str:
    """Replace you / your / yours / yourself with the listener's name ("thank you" stays)."""
    text = plain(sentence)
    for pattern, replacement in _YOU_CONTRACTIONS:
        text = re.sub(pattern, replacement.format(s=listener), text, flags=re.IGNORECASE)

    def subject(match: re.Match[str]) -> str:
        verb = match[3]
        return f"{match[1]}{listener}{match[2]} {_third_person(verb) if verb.islower() else verb}"

    text = _SUBJECT_YOU.sub(subject, text)
    text = re.sub(r"\byourself\b", listener, text, flags=re.IGNORECASE)
    text = re.sub(r"\byours?\b", f"{listener}'s", text, flags=re.IGNORECASE)
    return re.sub(r"(?<!thank )\byou\b", listener, text, flags=re.IGNORECASE)


def _third_person(verb: str) -> str:
    """The -s form of a verb after "I" / "you"; past tense, modals and stopwords stay."""
    if verb in _NO_S or (
        verb not in VERBS and (verb in STOPWORDS or verb in PAST_VERBS or verb.endswith(("ed", "'t", "ly")))
    ):
        return verb
    if verb in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return f"{verb}es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


def _lower_first(text: str) -> str:
    """Lower-case an initial stopword or gerund ("The", "Painting"); names keep their capital."""
    first = text.split(" ", 1)[0]
    bare = first.strip("'\",;:").lower()
    common = bare in STOPWORDS or bare in FILLER or bare in _LOWER or bare.endswith(("ing", "ly"))
    if first[:1].isupper() and not first.isupper() and common:
        return first[0].lower() + text[1:]
    return text
