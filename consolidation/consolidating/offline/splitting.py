"""A turn cut into the sentences the offline consolidator renders.

Each turn is split into sentences (not after "Dr.", "Mrs." or an initial); a shared photo as
conversation files record it, "[shares a photo: a photo of a dog]", becomes a sentence of its own,
"Speaker shared a photo of a dog.". Leading interjections ("Wow,", "Oh!", "Hey Mel,"),
comma-delimited "you know" / "I mean", a leading or trailing vocative naming a speaker and the
frame of a request to remember ("Please remember that", "Keep in mind that", "Note that") are
dropped (`core`): what is left is the statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from consolidation.consolidating.offline.words import plain

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
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:(?:do\s+)?remember|note|keep in mind|bear in mind|don't forget|never forget)"
    r"(?:\s+(?:this|this one))?\s*[,:]?\s+that\s+(?=\S)",
    re.IGNORECASE,
)
# How conversation files record a shared photo (`conversation_files`): "[shares a photo: caption]".
SHARE = re.compile(r"\[shares (?P<what>[^:\]]+): (?P<caption>[^\]]*)\]")
_CAPTION_HEAD = re.compile(r"^(?:an? (?:photo|photograph|photography|picture|image|screenshot) of)\s+")


def sentences(text: str) -> list[str]:
    """The sentences of a text, whitespace normalized; not split after "Dr." or an initial."""
    text = " ".join(plain(text).split())
    found, start = [], 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start : boundary.start()].rsplit(" ", 1)[-1].lower()
        if boundary[1] == "." and (before in _ABBREVIATIONS or len(before) == 1):
            continue
        found.append(text[start : boundary.end()].strip())
        start = boundary.end()
    tail = text[start:].strip()
    return [*found, tail] if tail else found


def core(sentence: str, speakers: Sequence[str]) -> str:
    """The sentence without leading interjections, asides, vocatives and a request's frame."""
    text = _INTERJECTION.sub("", sentence)
    for aside in _ASIDES:
        text = aside.sub("", text)
    for name in speakers:
        escaped = re.escape(name)
        text = re.sub(rf"^(?:dear\s+)?{escaped}\s*[,!:]\s*", "", text, flags=re.IGNORECASE)
        text = re.sub(rf",\s*{escaped}(?=\s*[.!?]*$)", "", text)
    return _REQUEST.sub("", text.strip())


def share(match: re.Match[str], speaker: str) -> str:
    """'Caroline shared a photo of a dog.': a shared photo as a sentence of its own."""
    caption = _CAPTION_HEAD.sub("", match["caption"].strip().rstrip("."), count=1)
    return f"{speaker} shared {match['what'].strip()} of {caption}."
