"""The offline consolidator: extractive, deterministic, no model and no network.

It keeps the service usable (and testable) without an LLM endpoint, and the LoCoMo bench's local
LLM server answers the engine's prompts with the same rules. Every run it records says `offline` /
`extractive-v2` with zero tokens. The rules:

- Sentences: each turn is split into sentences (not after "Dr.", "Mrs." or an initial); a shared
  photo as conversation files record it, "[shares a photo: a photo of a dog]", becomes a sentence
  of its own, "Speaker shared a photo of a dog.". Leading interjections ("Wow,", "Oh!",
  "Hey Mel,"), comma-delimited "you know" / "I mean" and a leading or trailing vocative naming a
  speaker are dropped; a sentence left without content words or a first-person word is dropped ("Haha!").
- Self-contained rendering, shared by episodes and facts: "I / my / me / mine / myself" become
  the speaker's name, and the verb after "I" takes the third person ("I find" -> "Caroline
  finds"; modals, past tense and common words stay); when the turns have exactly two speakers,
  "you / your / yours / yourself" become the other one the same way ("thank you" stays);
  relative dates ("yesterday", "last week", "3 days ago", "next Friday") become absolute ones
  computed from the turn's day, written as people write them ("on 7 May 2023", "in the week of
  1 May 2023", "in April 2023"). A sentence that does not name its speaker becomes "Speaker said
  ...". It is prefixed with the day it was said, "On 8 May 2023 ...", unless a relative date in
  it was resolved to a single day, which then dates it. It ends with "." (a question keeps "?").
- Informative: a sentence's informative words are its content words minus the speakers' names,
  month names and conversational filler (wow, great, thanks, sounds, bye...). A question or a
  sentence with fewer than 2 informative words (a bare reaction: "Wow, that's great!") is not
  informative.
- Episode: title = the three most frequent topical informative words. Summary = at most 6
  sentences and 90 words (about 120 o200k tokens; a longer sentence is cut to 90 words), chosen
  greedily among the informative sentences: each step takes the sentence with the largest
  weight of informative words not yet covered, divided by the square root of its length in
  words, where a word weighs 1 + ln(number of candidate sentences containing it), earliest first
  on ties; a sentence that no longer fits the word budget, adds no new word, or shares at least
  60% of its informative words (Jaccard) with a kept sentence is skipped. The kept sentences are
  joined in stream order. Turns without an informative sentence are summarized by their one
  sentence with the most informative words.
- Merge: the new turns continue the episode when they share at least min(2, n) of their n
  distinct content words with the summary and the shared words are at least 30% of n. The merged
  summary is selected again, under the same cap, from the old summary's sentences (a v1
  "On YYYY-MM-DD, Speaker said: text" summary is read back as turns) followed by the new turns'
  sentences; the best new sentence is kept first, so the summary shows the update.
- Facts: one per informative sentence of the turns, its self-contained rendering as the text.
  Kind by keywords: love/like/hate/prefer... -> preference; will/plan/going to -> plan; past
  tense -> event; otherwise attribute. A draft is dropped when its words (content words and
  numbers, dates aside) overlap an existing fact's or an earlier draft's with Jaccard >= 0.7,
  for an event or plan only when both name the same days (the same event on another day is
  another event); a draft that replaces existing facts is only compared with earlier drafts. At
  most 8 facts per call: those that replace facts first, then those with the most informative
  words, earlier first on ties; they are returned in stream order.
- Replaces: a new preference replaces an existing fact that names the same person, expresses
  the opposite polarity ("loves" vs "can't stand") and shares at least half of the smaller
  set of object words. A preference with the same polarity and no new object words is not
  emitted again.
- Answer: the evidence items (facts, then episodes, then interactions) sharing the most
  content words with the question, top three, joined; their ids are the used ids.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

from consolidation.consolidator import (
    AnswerDraft,
    AnswerInput,
    EpisodeDraft,
    EpisodeInput,
    EvidenceItem,
    ExistingFact,
    FactDraft,
    FactDrafts,
    FactKind,
    MergeDecision,
    MergeInput,
    RefineInput,
    Turn,
)
from consolidation.embedding_template import day_text
from consolidation.llm.types import LLMResult, Usage
from consolidation.prompts.common import to_utc

MODEL = "extractive-v2"
MERGE_MIN_SHARED = 2
MERGE_MIN_FRACTION = 0.3
ANSWER_TOP = 3
SUMMARY_MAX_SENTENCES = 6
SUMMARY_MAX_WORDS = 90  # about 120 o200k tokens
SUMMARY_REDUNDANT = 0.6  # Jaccard of informative words at which a sentence repeats a kept one
MIN_INFORMATIVE = 2
FACTS_MAX = 8
FACT_DUPLICATE = 0.7  # Jaccard of fact words at which a draft repeats a fact

T = TypeVar("T")


class OfflineConsolidator:
    """`Consolidator` without a model; see the module docstring for its rules."""

    name = "offline"
    model = MODEL

    async def create_episode(self, inp: EpisodeInput) -> LLMResult[EpisodeDraft]:
        return _timed(lambda: _episode(inp.turns))

    async def decide_merge(self, inp: MergeInput) -> LLMResult[MergeDecision]:
        return _timed(lambda: _merge(inp))

    async def refine_facts(self, inp: RefineInput) -> LLMResult[FactDrafts]:
        return _timed(lambda: FactDrafts(facts=_facts(inp)))

    async def answer(self, inp: AnswerInput) -> LLMResult[AnswerDraft]:
        return _timed(lambda: _answer(inp))


def _timed(work: Callable[[], T]) -> LLMResult[T]:
    started = time.perf_counter()
    value = work()
    return LLMResult(value=value, usage=Usage.zero(MODEL, (time.perf_counter() - started) * 1000))


# --- words -----------------------------------------------------------------------------------

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
_STOPWORDS = frozenset(_STOPWORD_LIST.split())
# Words of conversation rather than content: a sentence made of them is a reaction, not a fact.
_FILLER_LIST = """wow ooh aww awww yay hey hi hello haha hahaha lol omg gosh great awesome amazing cool
    nice good glad thanks thank sounds sound congrats congratulations sure agree true exactly
    definitely absolutely totally fantastic wonderful incredible super sweet bye goodbye care soon
    later chat talk catch anything something everything nothing someone anyone everyone know
    think mean guess seems looks wait see luck new"""
_FILLER = frozenset(_FILLER_LIST.split())
_MONTHS = frozenset(name.lower() for name in calendar.month_name if name)


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry topic: no stopwords, no one- or two-letter words."""
    words = (word.strip("'") for word in _WORD.findall(_plain(text).lower()))
    words = (word[:-2] if word.endswith("'s") else word for word in words)
    return [word for word in words if len(word) > 2 and word not in _STOPWORDS]


def _informative(text: str, names: frozenset[str]) -> frozenset[str]:
    """Content words without names, month names and conversational filler."""
    return frozenset(w for w in content_words(text) if w not in names and w not in _MONTHS | _FILLER)


def _name_words(speakers: Iterable[str]) -> frozenset[str]:
    return frozenset(word for speaker in speakers for word in content_words(speaker))


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def _plain(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def _day(moment: datetime) -> date:
    return to_utc(moment).date()


def _day_str(day: date) -> str:
    """`8 May 2023`, the memory's date format (`embedding_template.day_text`)."""
    return day_text(datetime(day.year, day.month, day.day, tzinfo=UTC))


# --- sentences -------------------------------------------------------------------------------

_BOUNDARY = re.compile(r"([.!?]+)[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATION_LIST = "mr mrs ms dr st jr sr vs etc prof mt no fig"
_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split())
_INTERJECTION_WORDS = (
    "wow|woah|whoa|oh|ooh|ah|aw+|yeah|yes|yep|yup|no|nope|well|so|hey|hi|hello|haha\\w*|lol|omg|"
    "honestly|ok|okay|um+|hmm+|awesome|great|cool|nice|sure|thanks|thank you|absolutely|totally|"
    "definitely|actually|anyway|btw|true|right|gosh|yay|sweet|exactly|congrats|congratulations"
)
_INTERJECTION = re.compile(rf"^(?:(?i:{_INTERJECTION_WORDS})(?:\s+[A-Z][a-z]+)?\s*[,!.:;-]+\s*)+")
_ASIDE = "you know|you see|I mean"
_ASIDES = [re.compile(rf"^(?:{_ASIDE}),\s*", re.IGNORECASE), re.compile(rf",\s*(?:{_ASIDE})(?=[,.!?])")]


def sentences(text: str) -> list[str]:
    """The sentences of a text, whitespace normalized; not split after "Dr." or an initial."""
    text = " ".join(_plain(text).split())
    found, start = [], 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start : boundary.start()].rsplit(" ", 1)[-1].lower()
        if boundary[1] == "." and (before in _ABBREVIATIONS or len(before) == 1):
            continue
        found.append(text[start : boundary.end()].strip())
        start = boundary.end()
    tail = text[start:].strip()
    return [*found, tail] if tail else found


def _core(sentence: str, speakers: Sequence[str]) -> str:
    """The sentence without leading interjections, asides and vocatives."""
    text = _INTERJECTION.sub("", sentence)
    for aside in _ASIDES:
        text = aside.sub("", text)
    for name in speakers:
        escaped = re.escape(name)
        text = re.sub(rf"^(?:dear\s+)?{escaped}\s*[,!:]\s*", "", text, flags=re.IGNORECASE)
        text = re.sub(rf",\s*{escaped}(?=\s*[.!?]*$)", "", text)
    return text.strip()


# --- self-contained statements -----------------------------------------------------------------

_FIRST_PERSON = re.compile(r"\bI\b|\b(?:my|me|mine|myself)\b", re.IGNORECASE)
_ADVERBS = (
    "really|also|still|just|absolutely|totally|usually|always|often|sometimes|actually|never|ever|"
    "recently|finally|probably|definitely|literally|seriously|even|only|already|almost|mostly|"
    "honestly|truly|rarely|barely|kinda|genuinely|now"
)
_VERB_LIST = """love like hate prefer enjoy adore dislike want need have do go live work play plan hope
    wish know believe miss study teach run own use cook eat read write watch visit think feel
    try paint collect volunteer mentor attend practice make take keep spend get find guess mean
    say bet"""
_VERBS = frozenset(_VERB_LIST.split())
_PAST_LIST = """went was were did had got met saw made took came began bought found told thought felt
    left kept brought taught caught ran won lost sent spent built heard wrote gave knew grew drew
    threw flew chose broke spoke woke drove rode ate sat stood understood fell held paid sold sang
    swam became forgot"""
# Verbs "I" / "you" are followed by that take no -s: modals, and present forms that read as past.
_NO_S_LIST = "can could will would shall should may might must put cut let set hit quit read"
_NO_S = frozenset(_NO_S_LIST.split())
_PAST_VERBS = frozenset(_PAST_LIST.split())
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


def resolve_first_person(sentence: str, speaker: str) -> str:
    """Replace I / my / me with the speaker's name; conjugate common verbs after "I"."""
    text = re.sub(r"\bi\b", "I", _plain(sentence))  # "i'm", "i love": casual typing
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement.format(s=speaker), text)
    verb_after_i = re.compile(rf"\bI((?:\s+(?:{_ADVERBS}))?)\s+([a-z]+)\b")
    text = verb_after_i.sub(lambda m: f"{speaker}{m[1]} {_third_person(m[2])}", text)
    text = re.sub(r"\bI\b", speaker, text)
    text = re.sub(r"\b(?:my|mine)\b", f"{speaker}'s", text, flags=re.IGNORECASE)
    return re.sub(r"\b(?:me|myself)\b", speaker, text, flags=re.IGNORECASE)


def resolve_second_person(sentence: str, listener: str) -> str:
    """Replace you / your / yours / yourself with the listener's name ("thank you" stays)."""
    text = _plain(sentence)
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
        verb not in _VERBS
        and (verb in _STOPWORDS or verb in _PAST_VERBS or verb.endswith(("ed", "'t", "ly")))
    ):
        return verb
    if verb in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return f"{verb}es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


def _render(sentence: str, speaker: str, listener: str | None, said_on: date) -> str:
    """The sentence as a self-contained statement: names, absolute dates, who said it and when."""
    text = resolve_second_person(sentence, listener) if listener else sentence
    text = resolve_first_person(text, speaker)
    text, dated = _resolve_dates(text, said_on)
    if not re.search(rf"\b{re.escape(speaker)}\b", text):
        text = f"{speaker} said {_lower_first(text)}"
    text = text.rstrip() if text.rstrip().endswith("?") else f"{text.rstrip(' .!;:,')}."
    if dated:
        return text[:1].upper() + text[1:]
    return f"On {_day_str(said_on)} {_lower_first(text)}"


_LOWER_LIST = """since although though unless whenever everyone everybody someone somebody anyone nobody
    maybe perhaps sometimes"""
_LOWER = frozenset(_LOWER_LIST.split())


def _lower_first(text: str) -> str:
    """Lower-case an initial stopword or gerund ("The", "Painting"); names keep their capital."""
    first = text.split(" ", 1)[0]
    bare = first.strip("'\",;:").lower()
    common = bare in _STOPWORDS or bare in _FILLER or bare in _LOWER or bare.endswith(("ing", "ly"))
    if first[:1].isupper() and not first.isupper() and common:
        return first[0].lower() + text[1:]
    return text


# --- relative dates --------------------------------------------------------------------------

_WEEKDAYS = [name.lower() for name in calendar.day_name]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_Phrase = Callable[[re.Match[str], date], tuple[str, str]]
_PREP = r"(?:\b(?P<prep>on|in|since|from|until|by|before|after|during)\s+)?"


def resolve_relative_dates(text: str, said_on: date) -> str:
    """Turn "yesterday", "last week", "3 days ago", "next friday"... into absolute dates."""
    return _resolve_dates(text, said_on)[0]


def annotate_relative_dates(text: str, said_on: date) -> str:
    """Keep the speaker's words and add the absolute date after each relative one: "yesterday
    (7 May 2023)", "last week (the week of 1 May 2023)". What a context shows of a turn."""
    for pattern, phrase in _DATE_RULES:

        def render(match: re.Match[str], phrase: _Phrase = phrase) -> str:
            return f"{match[0]} ({phrase(match, said_on)[1]})"

        text = re.sub(pattern, render, text, flags=re.IGNORECASE)
    return text


def _resolve_dates(text: str, said_on: date) -> tuple[str, bool]:
    """The text with absolute dates, and whether one of them is a single day."""
    to_a_day = False
    for pattern, phrase in _DATE_RULES:

        def render(match: re.Match[str], phrase: _Phrase = phrase) -> str:
            nonlocal to_a_day
            default_prep, core = phrase(match, said_on)
            to_a_day = to_a_day or default_prep == "on"
            # Keep the speaker's preposition ("since yesterday" -> "since 7 May 2023").
            return f"{match['prep'] or default_prep} {core}"

        text = re.sub(_PREP + pattern, render, text, flags=re.IGNORECASE)
    return text, to_a_day


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, offset: int) -> str:
    index = day.year * 12 + day.month - 1 + offset
    return f"{calendar.month_name[index % 12 + 1]} {index // 12}"


def _week_of(day: date) -> str:
    return f"the week of {_day_str(_monday(day))}"


def _span(unit: str, day: date, offset: int) -> tuple[str, str]:
    if unit == "week":
        return "in", _week_of(day + timedelta(weeks=offset))
    if unit == "month":
        return "in", _month(day, offset)
    return "in", str(day.year + offset)


def _weekday(name: str, day: date, direction: int) -> date:
    target = _WEEKDAYS.index(name.lower())
    step = ((target - day.weekday()) * direction) % 7 or 7
    return day + timedelta(days=step * direction)


def _ago(match: re.Match[str], day: date) -> tuple[str, str]:
    count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
    unit = match["unit"].lower()
    if unit == "day":
        return "on", _day_str(day - timedelta(days=count))
    if unit == "week":
        return "in", _week_of(day - timedelta(weeks=count))
    return _span(unit, day, -count)


_Rule = tuple[str, _Phrase]
_DATE_RULES: list[_Rule] = [
    (r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", lambda m, d: ("on", _day_str(d))),
    (r"\byesterday\b", lambda m, d: ("on", _day_str(d - timedelta(days=1)))),
    (r"\btomorrow\b", lambda m, d: ("on", _day_str(d + timedelta(days=1)))),
    (
        r"\b(?P<n>\d+|an?|one|two|three|four|five|six) (?P<unit>day|week|month|year)s? ago\b",
        _ago,
    ),
    (r"\blast (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, -1)),
    (r"\bnext (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 1)),
    (r"\bthis (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 0)),
    (
        rf"\blast (?P<day>{'|'.join(_WEEKDAYS)})\b",
        lambda m, d: ("on", _day_str(_weekday(m["day"], d, -1))),
    ),
    (
        rf"\b(?:next|this coming) (?P<day>{'|'.join(_WEEKDAYS)})\b",
        lambda m, d: ("on", _day_str(_weekday(m["day"], d, 1))),
    ),
]


# --- units: the rendered sentences of turns and summaries ------------------------------------


@dataclass(frozen=True)
class _Unit:
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


def _partners(turns: Sequence[Turn]) -> dict[str, str]:
    """Each speaker's listener, when exactly two people speak."""
    speakers = list(dict.fromkeys(turn.speaker for turn in turns))
    if len(speakers) != 2:
        return {}
    return {speakers[0]: speakers[1], speakers[1]: speakers[0]}


def _turn_units(
    turns: Sequence[Turn], names: frozenset[str], start: int = 0, among: Sequence[Turn] = ()
) -> list[_Unit]:
    """The turns' sentences rendered; `among` (default: the turns) says who takes part."""
    everyone = among or turns
    partners = _partners(everyone)
    speakers = list(dict.fromkeys(turn.speaker for turn in everyone))
    units: list[_Unit] = []
    for turn in turns:
        shared = [_share(match, turn.speaker) for match in _SHARE.finditer(turn.text)]
        for sentence in [*sentences(_SHARE.sub(" ", turn.text)), *shared]:
            said = _core(sentence, speakers)
            if not content_words(said) and not _FIRST_PERSON.search(said):
                continue  # "Wow!", "Haha."
            text = _render(said, turn.speaker, partners.get(turn.speaker), _day(turn.occurred_at))
            position = start + len(units)
            units.append(_Unit(text, _informative(text, names), position, said, turn))
    return units


# How conversation files record a shared photo (`conversation_files`): "[shares a photo: caption]".
_SHARE = re.compile(r"\[shares (?P<what>[^:\]]+): (?P<caption>[^\]]*)\]")
_CAPTION_HEAD = re.compile(r"^(?:an? (?:photo|photograph|photography|picture|image|screenshot) of)\s+")


def _share(match: re.Match[str], speaker: str) -> str:
    """'Caroline shared a photo of a dog.': a shared photo as a sentence of its own."""
    caption = _CAPTION_HEAD.sub("", match["caption"].strip().rstrip("."), count=1)
    return f"{speaker} shared {match['what'].strip()} of {caption}."


_V1_TURN = re.compile(r"On (\d{4}-\d{2}-\d{2}), (.+?) said: ")
_DATE_PREFIX = re.compile(r"^(?:on|as of) (?:\d{4}-\d{2}-\d{2}|\d{1,2} [a-z]+ \d{4}),?\s*", re.IGNORECASE)


def _v1_turns(summary: str) -> list[Turn]:
    """An extractive-v1 summary ("On YYYY-MM-DD, Speaker said: text" stitched) read back as turns."""
    marks = list(_V1_TURN.finditer(summary))
    if not marks or marks[0].start() != 0:
        return []
    turns = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(summary)
        said_on = datetime.fromisoformat(mark[1]).replace(tzinfo=UTC)
        turns.append(
            Turn(id=f"v1-{index}", speaker=mark[2], occurred_at=said_on, text=summary[mark.end() : end])
        )
    return turns


def _summary_speakers(summary: str) -> set[str]:
    """Who the sentences of a v2 summary are about: the capitalized word after the date."""
    found = set()
    for sentence in sentences(summary):
        body = _DATE_PREFIX.sub("", sentence)
        first = body.split(" ", 1)[0].strip(",.;:!?").removesuffix("'s")
        if first[:1].isupper() and first.lower() not in _STOPWORDS:
            found.add(first)
    return found


# --- episodes and merges ---------------------------------------------------------------------


def _episode(turns: list[Turn]) -> EpisodeDraft:
    names = _name_words(turn.speaker for turn in turns)
    units = _turn_units(turns, names)
    counts = Counter(word for unit in units for word in unit.words if _topical(word))
    top = [word.capitalize() for word, _ in counts.most_common(3)]
    return EpisodeDraft(title=", ".join(top) or "Conversation", summary=_summary(units, turns))


def _topical(word: str) -> bool:
    """Title material: not one of the common verbs ("love", "went", "going")."""
    stem = word[:-1] if word.endswith("s") else word
    return not (stem in _VERBS or word in _PAST_VERBS or word.endswith(("ing", "ed")))


def _summary(units: list[_Unit], turns: Sequence[Turn]) -> str:
    """At most SUMMARY_MAX_SENTENCES sentences and SUMMARY_MAX_WORDS words, in stream order."""
    if not units:
        speakers = " and ".join(dict.fromkeys(turn.speaker for turn in turns))
        return f"On {_day_str(_day(turns[0].occurred_at))} {speakers} talked."
    pool = [_clipped(u) for u in units if u.informative]
    if not pool:  # chatter only: the one sentence with the most informative words
        return _clipped(max(units, key=lambda u: (len(u.words), -u.position))).text
    weight = {w: 1.0 + math.log(n) for w, n in Counter(w for u in pool for w in u.words).items()}
    covered: set[str] = set()

    def gain(unit: _Unit) -> float:
        return sum(weight[w] for w in unit.words - covered) / math.sqrt(unit.length)

    kept: list[_Unit] = []
    fresh = [u for u in pool if u.new]
    if fresh and len(fresh) < len(pool):  # a merge: the update must show
        kept.append(max(fresh, key=lambda u: (gain(u), -u.position)))
        covered |= kept[0].words
    budget = SUMMARY_MAX_WORDS - sum(u.length for u in kept)
    while len(kept) < SUMMARY_MAX_SENTENCES:
        fitting = [
            u
            for u in pool
            if all(u.position != k.position for k in kept)
            and u.length <= budget
            and gain(u) > 0
            and all(_jaccard(u.words, k.words) < SUMMARY_REDUNDANT for k in kept)
        ]
        if not fitting:
            break
        best = max(fitting, key=lambda u: (gain(u), -u.position))
        kept.append(best)
        covered |= best.words
        budget -= best.length
    return " ".join(u.text for u in sorted(kept, key=lambda u: u.position))


def _clipped(unit: _Unit) -> _Unit:
    words = unit.text.split()
    if len(words) <= SUMMARY_MAX_WORDS:
        return unit
    return replace(unit, text=" ".join(words[: SUMMARY_MAX_WORDS - 1]).rstrip(",;:") + " ...")


def _merge(inp: MergeInput) -> MergeDecision:
    new_words = {word for turn in inp.new_turns for word in content_words(turn.text)}
    shared = new_words & set(content_words(inp.episode_summary))
    needed = min(MERGE_MIN_SHARED, len(new_words))
    continues = bool(new_words) and len(shared) >= needed
    continues = continues and len(shared) / len(new_words) >= MERGE_MIN_FRACTION
    listed = ", ".join(sorted(shared)[:6]) or "none"
    reason = f"{len(shared)} of {len(new_words)} content words shared with the episode ({listed})"
    summary = _merged_summary(inp) if continues else None
    return MergeDecision(continues=continues, summary=summary, reason=reason)


def _merged_summary(inp: MergeInput) -> str:
    """The old summary's sentences and the new turns', selected again under the same cap."""
    old_turns = _v1_turns(inp.episode_summary)
    speakers = {turn.speaker for turn in [*old_turns, *inp.new_turns]}
    everyone = [*old_turns, *inp.new_turns]
    if old_turns:
        names = _name_words(speakers)
        old = [replace(u, new=False) for u in _turn_units(old_turns, names, among=everyone)]
    else:
        names = _name_words(speakers | _summary_speakers(inp.episode_summary))
        old = [
            _Unit(text, _informative(text, names), index, new=False)
            for index, text in enumerate(sentences(inp.episode_summary))
        ]
    new = _turn_units(inp.new_turns, names, start=len(old), among=everyone)
    return _summary([*old, *new], inp.new_turns)


# --- facts -----------------------------------------------------------------------------------

_PREFERENCE = re.compile(
    r"\b(?:lov|lik|hat|ador|dislik)(?:e|es|ed)\b|\bprefer(?:s|red)?\b|\benjoy(?:s|ed)?\b"
    r"|\bfavou?rite\b|\bcan(?:'t|not| not) stand\b|\bfan of\b"
)
_PLAN = re.compile(r"'ll\b|\bwill\b|\bplan(?:s|ning)? to\b|\bgoing to\b|\bgonna\b|\bintend|\babout to\b")
_EVENT = re.compile(
    rf"\b(?:{'|'.join(_PAST_VERBS)}|yesterday|ago|last)\b"
    r"|\b[a-z]+ed\b"
)


def classify(sentence: str) -> FactKind:
    lowered = _plain(sentence).lower()
    if _PREFERENCE.search(lowered):
        return "preference"
    if _PLAN.search(lowered):
        return "plan"
    return "event" if _EVENT.search(lowered) else "attribute"


def _facts(inp: RefineInput) -> list[FactDraft]:
    names = _name_words(turn.speaker for turn in inp.turns)
    known = [_fact_key(fact.text) for fact in inp.existing_facts]
    candidates: list[tuple[_Unit, FactDraft]] = []
    drafted: list[tuple[frozenset[str], frozenset[str]]] = []
    for unit in _turn_units(inp.turns, names):
        if not unit.informative or unit.turn is None:
            continue
        draft = _draft(unit, unit.turn, inp.existing_facts)
        if draft is None:
            continue
        key = _fact_key(draft.text)
        earlier = drafted if draft.replaces else [*known, *drafted]
        if any(_repeats(key, other, draft.kind) for other in earlier):
            continue
        drafted.append(key)
        candidates.append((unit, draft))
    return [draft for _, draft in _capped(candidates)]


def _capped(candidates: list[tuple[_Unit, FactDraft]]) -> list[tuple[_Unit, FactDraft]]:
    """At most FACTS_MAX, in stream order: the replacing ones first, then the most informative."""

    def priority(entry: tuple[_Unit, FactDraft]) -> tuple[bool, int, int]:
        unit, draft = entry
        return (not draft.replaces, -len(unit.words), unit.position)

    kept = sorted(candidates, key=priority)[:FACTS_MAX]
    return sorted(kept, key=lambda entry: entry[0].position)


_DATE = re.compile(r"\b(?:\d{1,2} [A-Z][a-z]+ \d{4}|\d{4}-\d{2}-\d{2})\b")


def _fact_key(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """What near-duplicate checks compare: the words without dates, and the days named."""
    plain = _plain(text)
    days = frozenset(_normal_day(day) for day in _DATE.findall(plain))
    words = frozenset(content_words(_DATE.sub(" ", plain))) | frozenset(
        re.findall(r"\d+", _DATE.sub(" ", plain))
    )
    return words, days


def _normal_day(day: str) -> str:
    return _day_str(date.fromisoformat(day)) if "-" in day else day


def _repeats(
    draft: tuple[frozenset[str], frozenset[str]], other: tuple[frozenset[str], frozenset[str]], kind: str
) -> bool:
    """Jaccard >= FACT_DUPLICATE over the words; an event or plan also on the same days."""
    if kind in ("event", "plan") and draft[1] != other[1]:
        return False  # the same event on another day is another event
    return _jaccard(draft[0], other[0]) >= FACT_DUPLICATE


def _draft(unit: _Unit, turn: Turn, existing: list[ExistingFact]) -> FactDraft | None:
    kind = classify(unit.said)
    text = unit.text
    if kind != "preference":
        return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id])
    if _already_known(text, turn.speaker, existing):
        return None
    replaces = _contradicted(text, turn.speaker, existing)
    reason = "opposite preference about the same thing" if replaces else None
    return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id], replaces=replaces, reason=reason)


def _body(text: str) -> str:
    """A fact without its date prefix, case or final punctuation, for duplicate checks."""
    return _DATE_PREFIX.sub("", " ".join(_plain(text).split())).rstrip(".!").lower()


# --- preference polarity ---------------------------------------------------------------------

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


def _same_object(first: frozenset[str], second: frozenset[str]) -> bool:
    shared = len(first & second)
    return shared > 0 and shared >= math.ceil(min(len(first), len(second)) / 2)


def _contradicted(text: str, subject: str, existing: list[ExistingFact]) -> list[str]:
    new = stance(text, subject)
    if new is None:
        return []
    replaced = []
    for fact in existing:
        old = stance(fact.text, subject)
        if old is not None and old[0] != new[0] and _same_object(old[1], new[1]):
            replaced.append(fact.id)
    return replaced


def _already_known(text: str, subject: str, existing: list[ExistingFact]) -> bool:
    """Same polarity and nothing new about the object: the fact exists unchanged."""
    new = stance(text, subject)
    if new is None:
        return False
    for fact in existing:
        old = stance(fact.text, subject)
        if old is not None and old[0] == new[0] and new[1] and new[1] <= old[1]:
            return True
    return False


# --- answers ---------------------------------------------------------------------------------


def _answer(inp: AnswerInput) -> AnswerDraft:
    question = set(content_words(inp.question))
    pool = [*inp.facts, *inp.episodes, *inp.interactions]
    scored = [(len(question & set(content_words(item.text))), item) for item in pool]
    # sorted() is stable: among equal scores facts come first, then episodes, then interactions.
    ranked = sorted(
        ((score, item) for score, item in scored if score > 0 and _visible(item, inp.as_of)),
        key=lambda pair: -pair[0],
    )
    top = [item for _, item in ranked[:ANSWER_TOP]]
    if not top:
        return AnswerDraft(answer="The memory holds nothing relevant to this question.", used_ids=[])
    return AnswerDraft(answer=" ".join(item.text for item in top), used_ids=[i.id for i in top])


def _visible(item: EvidenceItem, as_of: datetime | None) -> bool:
    return as_of is None or item.at is None or item.at <= to_utc(as_of)
