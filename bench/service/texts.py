"""Texts that do not recur, so single writes run the recurrence gate without consolidating."""

from __future__ import annotations

import random
from typing import ClassVar


class Salads:
    """Random word salads over a pseudo-word vocabulary: no two texts are similar enough to pass the
    recurrence gate (expected shared words between two texts ~ len^2 / vocabulary), yet queries from
    the same vocabulary find lexical matches, as real queries do."""

    SYLLABLES: ClassVar[list[str]] = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"]

    def __init__(self, seed: int, vocabulary: int = 20_000) -> None:
        self.rng = random.Random(seed)
        words: set[str] = set()
        while len(words) < vocabulary:
            words.add("".join(self.rng.choice(self.SYLLABLES) for _ in range(self.rng.randint(2, 4))))
        self.words = sorted(words)

    def text(self, low: int = 10, high: int = 20) -> str:
        return " ".join(self.rng.choices(self.words, k=self.rng.randint(low, high))).capitalize() + "."

    def query(self) -> str:
        return self.text(4, 8)
