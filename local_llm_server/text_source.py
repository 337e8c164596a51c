"""Deterministic snippets of a request's text, used to fill generated replies."""

from __future__ import annotations

import re

# Used when the request carries no text at all, so strings are never empty.
FALLBACK_TEXT = "No content was provided."
DEFAULT_MAX_CHARS = 200

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w+")


def split_sentences(text: str) -> list[str]:
    """Sentences (and lines) of `text`, stripped, without empties."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]


def trim(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars`, preferring a word boundary."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    boundary = cut.rfind(" ")
    # Only back off to a space when that keeps most of the allowed length.
    return cut[:boundary] if boundary > max_chars // 2 else cut


class TextSource:
    """Hands out the sentences of one text in order, wrapping around.

    Successive string fields get successive sentences, so a reply is varied but the
    same request always produces the same reply.
    """

    def __init__(self, text: str) -> None:
        self._sentences = split_sentences(text) or [FALLBACK_TEXT]
        self._cursor = 0

    def sentence(self, max_chars: int = DEFAULT_MAX_CHARS) -> str:
        """The next sentence, trimmed to `max_chars`."""
        chosen = self._sentences[self._cursor % len(self._sentences)]
        self._cursor += 1
        return trim(chosen, max_chars)

    def slug(self, max_words: int = 3) -> str:
        """A short lowercase id-like snippet (`first-few-words`) of the next sentence."""
        words = _WORD.findall(self.sentence().lower())[:max_words]
        return "-".join(words) or "item"
