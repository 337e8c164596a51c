"""A deterministic bag-of-words hashing embedder: no model, no network, for tests and load runs."""

from __future__ import annotations

import functools
import hashlib
import itertools
import re

import numpy as np

from consolidation.embedders.base import Vectors, normalize

_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Signed feature hashing of lower-cased words and word bigrams.

    Texts that share words get a positive cosine, so recurrence still shows; meaning does not.
    """

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension

    @property
    def name(self) -> str:
        return "hashing-v1"

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(self, texts: list[str]) -> Vectors:
        return self.embed_sync(texts)

    def embed_sync(self, texts: list[str]) -> Vectors:
        rows: list[int] = []
        slots: list[tuple[int, float]] = []
        for row, text in enumerate(texts):
            words = _TOKEN.findall(text.lower())
            features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            slots += [_slot(feature, self._dimension) for feature in features]
            rows += [row] * len(features)
        columns = [column for column, _ in slots]
        signs = [sign for _, sign in slots]
        # One scatter-add over the flattened matrix (repeated slots add up) instead of a numpy
        # call per feature.
        flat_slots = np.asarray(rows, dtype=np.int64) * self._dimension + np.asarray(columns, dtype=np.int64)
        size = len(texts) * self._dimension
        flat = np.bincount(flat_slots, weights=signs, minlength=size) if size else np.zeros(0)
        return normalize(flat.astype(np.float32).reshape(len(texts), self._dimension))


@functools.lru_cache(maxsize=1 << 16)
def _slot(feature: str, dimension: int) -> tuple[int, float]:
    """The feature's column and sign; cached, because words and bigrams recur across texts."""
    value = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return (value >> 1) % dimension, 1.0 if value & 1 else -1.0
