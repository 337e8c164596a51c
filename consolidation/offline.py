"""The offline consolidator: extractive, deterministic, no model and no network.

It keeps the service usable (and testable) without an LLM endpoint. Every run it records says
`offline` / `extractive-v1` with zero tokens. The rules, deliberately simple:

- Episode: title = the three most frequent content words of the turns; summary = the turns
  stitched in order, each as "On YYYY-MM-DD, Speaker said: text".
- Merge: the new turns continue the episode when they share at least min(2, n) of their n
  distinct content words with the summary and the shared words are at least 30% of n.
  The merged summary is the old one with the new turns appended in the same form.
- Facts: one per sentence that is a first-person statement (contains I / my / me ...) and not
  a question. "I" and "my" become the speaker's name (with third-person verbs for common
  verbs), relative dates ("yesterday", "last week", "3 days ago", "next Friday") become
  absolute ones computed from the turn's timestamp, and the fact is prefixed "On YYYY-MM-DD,".
  Kind by keywords: love/like/hate/prefer... -> preference; will/plan/going to -> plan;
  past tense -> event; otherwise attribute.
- Replaces: a new preference replaces an existing fact that names the same person, expresses
  the opposite polarity ("loves" vs "can't stand") and shares at least half of the smaller
  set of object words. A preference with the same polarity and no new object words, or any
  statement identical to an existing one, is not emitted again.
- Answer: the evidence items (facts, then episodes, then interactions) sharing the most
  content words with the question, top three, joined; their ids are the used ids.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
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
from consolidation.llm.types import LLMResult, Usage
from consolidation.prompts.common import to_utc

MODEL = "extractive-v1"
MERGE_MIN_SHARED = 2
MERGE_MIN_FRACTION = 0.3
ANSWER_TOP = 3

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


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry topic: no stopwords, no one- or two-letter words."""
    words = (word.strip("'") for word in _WORD.findall(_plain(text).lower()))
    words = (word[:-2] if word.endswith("'s") else word for word in words)
    return [word for word in words if len(word) > 2 and word not in _STOPWORDS]


def _plain(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def _day(moment: datetime) -> date:
    return to_utc(moment).date()


# --- episodes and merges ---------------------------------------------------------------------


def _episode(turns: list[Turn]) -> EpisodeDraft:
    counts = Counter(word for turn in turns for word in content_words(turn.text) if _topical(word))
    top = [word.capitalize() for word, _ in counts.most_common(3)]
    return EpisodeDraft(title=", ".join(top) or "Conversation", summary=_stitch(turns))


def _topical(word: str) -> bool:
    """Title material: not one of the common verbs ("love", "went", "going")."""
    stem = word[:-1] if word.endswith("s") else word
    return not (stem in _VERBS or word in _PAST_VERBS or word.endswith(("ing", "ed")))


def _stitch(turns: Iterable[Turn]) -> str:
    return " ".join(f"On {_day(t.occurred_at)}, {t.speaker} said: {_sentence(t.text)}" for t in turns)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _merge(inp: MergeInput) -> MergeDecision:
    new_words = {word for turn in inp.new_turns for word in content_words(turn.text)}
    shared = new_words & set(content_words(inp.episode_summary))
    needed = min(MERGE_MIN_SHARED, len(new_words))
    continues = bool(new_words) and len(shared) >= needed
    continues = continues and len(shared) / len(new_words) >= MERGE_MIN_FRACTION
    listed = ", ".join(sorted(shared)[:6]) or "none"
    reason = f"{len(shared)} of {len(new_words)} content words shared with the episode ({listed})"
    summary = f"{inp.episode_summary} {_stitch(inp.new_turns)}" if continues else None
    return MergeDecision(continues=continues, summary=summary, reason=reason)


# --- first person and relative dates ---------------------------------------------------------

_FIRST_PERSON = re.compile(r"\bI\b|\b(?:my|me|mine|myself)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ADVERBS = "really|also|still|just|absolutely|totally|usually|always|often|sometimes|actually"
_VERB_LIST = """love like hate prefer enjoy adore dislike want need have do go live work play plan hope
    wish know believe miss study teach run own use cook eat read write watch visit think feel
    try paint collect volunteer mentor attend practice make take keep spend"""
_VERBS = frozenset(_VERB_LIST.split())
_PAST_LIST = "went was were did had got met saw made took came began bought"
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


def _third_person(verb: str) -> str:
    if verb not in _VERBS:
        return verb  # past tense, modal or unknown: leave as it is
    if verb in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return f"{verb}es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


_WEEKDAYS = [name.lower() for name in calendar.day_name]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_Phrase = Callable[[re.Match[str], date], tuple[str, str]]
_PREP = r"(?:\b(?P<prep>on|in|since|from|until|by|before|after|during)\s+)?"


def resolve_relative_dates(text: str, said_on: date) -> str:
    """Turn "yesterday", "last week", "3 days ago", "next friday"... into absolute dates."""
    for pattern, phrase in _DATE_RULES:
        text = re.sub(_PREP + pattern, _renderer(phrase, said_on), text, flags=re.IGNORECASE)
    return text


def _renderer(phrase: _Phrase, said_on: date) -> Callable[[re.Match[str]], str]:
    def render(match: re.Match[str]) -> str:
        default_prep, core = phrase(match, said_on)
        # Keep the speaker's preposition ("since yesterday" -> "since 2023-05-07").
        return f"{match['prep'] or default_prep} {core}"

    return render


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, offset: int) -> str:
    index = day.year * 12 + day.month - 1 + offset
    return f"{calendar.month_name[index % 12 + 1]} {index // 12}"


def _span(unit: str, day: date, offset: int) -> tuple[str, str]:
    if unit == "week":
        return "in", f"the week of {_monday(day) + timedelta(weeks=offset)}"
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
        return "on", str(day - timedelta(days=count))
    if unit == "week":
        return "in", f"the week of {_monday(day - timedelta(weeks=count))}"
    return _span(unit, day, -count)


_Rule = tuple[str, _Phrase]
_DATE_RULES: list[_Rule] = [
    (r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", lambda m, d: ("on", str(d))),
    (r"\byesterday\b", lambda m, d: ("on", str(d - timedelta(days=1)))),
    (r"\btomorrow\b", lambda m, d: ("on", str(d + timedelta(days=1)))),
    (
        r"\b(?P<n>\d+|an?|one|two|three|four|five|six) (?P<unit>day|week|month|year)s? ago\b",
        _ago,
    ),
    (r"\blast (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, -1)),
    (r"\bnext (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 1)),
    (r"\bthis (?P<unit>week|month|year)\b", lambda m, d: _span(m["unit"].lower(), d, 0)),
    (
        rf"\blast (?P<day>{'|'.join(_WEEKDAYS)})\b",
        lambda m, d: ("on", str(_weekday(m["day"], d, -1))),
    ),
    (
        rf"\b(?:next|this coming) (?P<day>{'|'.join(_WEEKDAYS)})\b",
        lambda m, d: ("on", str(_weekday(m["day"], d, 1))),
    ),
]


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
    drafts: list[FactDraft] = []
    seen = {_body(fact.text) for fact in inp.existing_facts}
    for turn in inp.turns:
        for sentence in _first_person_sentences(turn.text):
            draft = _draft(turn, sentence, inp.existing_facts)
            if draft is not None and _body(draft.text) not in seen:
                seen.add(_body(draft.text))
                drafts.append(draft)
    return drafts


def _first_person_sentences(text: str) -> list[str]:
    sentences = (s.strip() for s in _SENTENCE_END.split(" ".join(_plain(text).split())))
    return [s for s in sentences if s and not s.endswith("?") and _FIRST_PERSON.search(s)]


def _draft(turn: Turn, sentence: str, existing: list[ExistingFact]) -> FactDraft | None:
    said_on = _day(turn.occurred_at)
    body = resolve_relative_dates(resolve_first_person(sentence, turn.speaker), said_on)
    text = f"On {said_on}, {_sentence(body)}"
    kind = classify(sentence)
    if kind != "preference":
        return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id])
    if _already_known(text, turn.speaker, existing):
        return None
    replaces = _contradicted(text, turn.speaker, existing)
    reason = "opposite preference about the same thing" if replaces else None
    return FactDraft(text=text, kind=kind, source_turn_ids=[turn.id], replaces=replaces, reason=reason)


_DATE_PREFIX = re.compile(r"^(?:on|as of) \d{4}-\d{2}-\d{2},\s*", re.IGNORECASE)


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
