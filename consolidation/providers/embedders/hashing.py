"""A deterministic bag-of-words hashing embedder: no model, no network, for tests and load runs."""

from __future__ import annotations

import functools
import hashlib
import itertools
import re

import numpy as np

from consolidation.providers.embedders.base import Vectors, normalize

# Words of any script (str patterns match Unicode word characters); everything else that is not
# space (punctuation, emoji, symbols) counts one character at a time.
_WORD = re.compile(r"\w+", re.UNICODE)
_SYMBOL = re.compile(r"[^\w\s]", re.UNICODE)
# Character trigrams share a word's weight budget with the word itself, so that English texts
# are still compared mostly by whole words; they matter for scripts written without spaces
# (a Japanese sentence is one \w+ run) and for inflected forms.
_TRIGRAM_WEIGHT = 0.5
_SYMBOL_WEIGHT = 0.5
# Prefixes keep the feature kinds apart ("abc" the word, "abc" the trigram of "xabcx").
_TRIGRAM, _SYMBOL_TAG = "\x01", "\x02"


class HashingEmbedder:
    """Signed feature hashing of case-folded words, word bigrams, character trigrams of each word
    and non-space symbols.

    Texts that share words get a positive cosine, so recurrence still shows; meaning does not.
    Every text with a visible character gets a non-zero vector ("?", "🙂", "寿司", "суши"); a
    text with none (whitespace) gets the fixed `featureless_vector`.
    """

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension

    @property
    def name(self) -> str:
        return "hashing-v2"

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(self, texts: list[str]) -> Vectors:
        return self.embed_sync(texts)

    def embed_sync(self, texts: list[str]) -> Vectors:
        dimension = self._dimension
        rows: list[int] = []
        columns: list[int] = []
        weights: list[float] = []
        for row, text in enumerate(texts):
            folded = text.casefold()
            words = _WORD.findall(folded)
            start = len(columns)
            for word in words:
                word_columns, word_weights = _word_features(word, dimension)
                columns += word_columns
                weights += word_weights
            for first, second in itertools.pairwise(words):
                column, sign = _slot(f"{first} {second}", dimension)
                columns.append(column)
                weights.append(sign)
            for symbol in _SYMBOL.findall(folded):
                column, sign = _slot(_SYMBOL_TAG + symbol, dimension)
                columns.append(column)
                weights.append(sign * _SYMBOL_WEIGHT)
            rows += [row] * (len(columns) - start)
        # One scatter-add over the flattened matrix (repeated slots add up) instead of a numpy
        # call per feature.
        flat_slots = np.asarray(rows, dtype=np.int64) * dimension + np.asarray(columns, dtype=np.int64)
        size = len(texts) * dimension
        flat = np.bincount(flat_slots, weights=weights, minlength=size) if size else np.zeros(0)
        # A text without features (whitespace only) gets the fixed featureless vector here.
        return normalize(flat.astype(np.float32).reshape(len(texts), dimension))


@functools.lru_cache(maxsize=1 << 16)
def _word_features(word: str, dimension: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Columns and signed weights of a word and of its boundary-marked character trigrams; the
    trigrams together weigh `_TRIGRAM_WEIGHT` of the word (in norm), whatever its length."""
    marked = f"<{word}>"
    trigrams = [marked[i : i + 3] for i in range(len(marked) - 2)]
    scale = _TRIGRAM_WEIGHT / np.sqrt(len(trigrams))
    slots = [_slot(word, dimension)] + [_slot(_TRIGRAM + gram, dimension) for gram in trigrams]
    columns = tuple(column for column, _ in slots)
    signs = (slots[0][1], *(sign * scale for _, sign in slots[1:]))
    return columns, tuple(float(s) for s in signs)


@functools.lru_cache(maxsize=1 << 16)
def _slot(feature: str, dimension: int) -> tuple[int, float]:
    """The feature's column and sign; cached, because words and bigrams recur across texts."""
    value = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return (value >> 1) % dimension, 1.0 if value & 1 else -1.0
