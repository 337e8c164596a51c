"""Declarative statements: the only sentences the offline consolidator states as facts.

A sentence (as said, or as restated: its "On 8 May 2023" and "Speaker said" prefixes are read
past) is not a statement about someone when its shape is one of:

- `question`: it ends with "?";
- `greeting`: it opens with a greeting, thanks, wishes, an apology or a farewell ("Hi",
  "Thanks for ...", "Good luck", "Sorry to hear that", "Take care", "See you", "Congrats");
- `imperative`: it opens with "let", "let's", "don't", "please", or a base-form verb of
  `_IMPERATIVE_VERBS` ("Keep doing what you love.", "Check out my studio."), also after "never",
  "always" or "just", unless the next word makes that word a subject ("Work is busy");
- `no subject`: it opens with a modal ("Can't wait to see it!", "Must be fun.", "Gotta go.");
- `no content`: it has fewer than `MIN_INFORMATIVE` informative words (`words.informative`:
  content words without names, months and filler).

The LLM consolidator's prompt states the same rule (`prompts.refine_facts.DECLARATIVE_RULE`).
"""

from __future__ import annotations

import re
from typing import Literal

from consolidation.consolidating.offline.statements import DATE_PREFIX
from consolidation.consolidating.offline.words import content_words, informative, plain

MIN_INFORMATIVE = 2
Shape = Literal["question", "greeting", "imperative", "no subject", "no content"]

_GREETINGS = (
    "hi|hello|hey|hiya|howdy|thanks|thank|thx|cheers|bye|goodbye|farewell|welcome|congrats|"
    "congratulations|good (?:luck|night|morning|afternoon|evening|job|work|to (?:see|hear))|"
    "best of luck|well done|great (?:job|work|to (?:see|hear))|nice (?:job|work|to (?:see|meet))|"
    "take care|see (?:you|ya)|talk (?:soon|later|to you)|catch you|until next time|"
    "have (?:a|an|fun)|happy|safe travels|sweet dreams|much love|no (?:problem|worries)|"
    "you're welcome|my pleasure|sorry|so sorry|oops"
)
_GREETING = re.compile(rf"^(?:{_GREETINGS})\b")
_IMPERATIVE_LIST = """let let's don't dont please keep stay check cherish capture appreciate enjoy
    take make go come try give remember tell look see listen hang hold send show share join
    think imagine consider believe trust follow find get bring call text read watch wait stop
    start be put drop treat focus embrace celebrate love hope wish count sign grab pick feel
    reach learn ask savor treasure soak chase push dream rock spread continue stick meet say
    remind use work do"""
_IMPERATIVE_VERBS = frozenset(_IMPERATIVE_LIST.split())
_LEADING_ADVERBS = frozenset({"never", "always", "just", "definitely", "really", "so"})
_SUBJECT_FOLLOWER_LIST = """is 's are was were has have had can could will would should might must
    does did isn't wasn't hasn't makes made helps helped keeps gives takes brings means of and or"""
_SUBJECT_FOLLOWERS = frozenset(_SUBJECT_FOLLOWER_LIST.split())
_MODAL_LIST = "can can't cannot could couldn't would wouldn't should shouldn't must might will won't gotta"
_MODALS = frozenset(_MODAL_LIST.split())
_SAID_PREFIX = re.compile(r"^((?:[\w'-]+ ){1,4}?)said:? ", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z']*")


def body(sentence: str, names: frozenset[str]) -> str:
    """The sentence without a restatement's date and "<name> said" prefixes, lower-cased."""
    text = DATE_PREFIX.sub("", " ".join(plain(sentence).split()))
    said = _SAID_PREFIX.match(text)
    if said and set(content_words(said[1])) <= names and content_words(said[1]):
        text = text[said.end() :]
    return text.strip().lower()


def shape(sentence: str, names: frozenset[str]) -> Shape | None:
    """Why the sentence is not a declarative statement about someone, or None when it is one."""
    text = body(sentence, names)
    if text.rstrip(" .!\"')").endswith("?"):
        return "question"
    if _GREETING.match(text):
        return "greeting"
    words = _WORD.findall(text)
    if words and _imperative(words, names):
        return "imperative"
    if words and words[0] in _MODALS and words[0] not in names:
        return "no subject"
    if len(informative(sentence, names)) < MIN_INFORMATIVE:
        return "no content"
    return None


def declarative(sentence: str, names: frozenset[str]) -> bool:
    """A statement about someone: none of the shapes above."""
    return shape(sentence, names) is None


def _imperative(words: list[str], names: frozenset[str]) -> bool:
    start = 1 if words[0] in _LEADING_ADVERBS and len(words) > 1 else 0
    first = words[start]
    if first not in _IMPERATIVE_VERBS or first in names:
        return False
    following = words[start + 1] if len(words) > start + 1 else ""
    return following not in _SUBJECT_FOLLOWERS
