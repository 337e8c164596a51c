"""A deterministic bag-of-words hashing embedder: no model, no network, for tests and load runs."""

from __future__ import annotations

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
        matrix = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _TOKEN.findall(text.lower())
            for feature in words + [f"{a} {b}" for a, b in itertools.pairwise(words)]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                sign = 1.0 if value & 1 else -1.0
                matrix[row, (value >> 1) % self._dimension] += sign
        return normalize(matrix)
