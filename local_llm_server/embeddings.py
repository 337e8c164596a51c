"""Deterministic hashed bag-of-words embeddings and their wire encodings."""

from __future__ import annotations

import base64
import functools
import hashlib
import re

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]

_WORD = re.compile(r"\w+")
# Character trigrams make inflections ("memory" / "memories") similar; words dominate.
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5
# Text without any word still needs a unit vector (a zero vector breaks cosine).
_EMPTY_FEATURE = "\x00empty"


@functools.lru_cache(maxsize=65536)
def _feature_hash(feature: str) -> int:
    # blake2b rather than hash(): Python's str hash is salted per process.
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    features = [(f"w:{w}", WORD_WEIGHT) for w in words]
    for word in words:
        padded = f"#{word}#"
        features += [(f"t:{padded[i : i + 3]}", TRIGRAM_WEIGHT) for i in range(len(padded) - 2)]
    return features or [(_EMPTY_FEATURE, 1.0)]


def embed(text: str, dimension: int) -> Vector:
    """An L2-normalised `dimension`-long vector: signed feature hashing of words and trigrams.

    The sign bit decorrelates unrelated texts (cosine near 0) while shared words add up,
    so texts with words in common get a clearly positive cosine.
    """
    vector = np.zeros(dimension, dtype=np.float64)
    for feature, weight in _features(text):
        digest = _feature_hash(feature)
        sign = 1.0 if digest >> 63 else -1.0
        vector[digest % dimension] += sign * weight
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:  # every feature cancelled out: fall back to a fixed direction
        vector[_feature_hash(_EMPTY_FEATURE) % dimension] = 1.0
        norm = 1.0
    return (vector / norm).astype(np.float32)


def encode_vector(vector: Vector, encoding_format: str) -> list[float] | str:
    """`float`: a JSON list; `base64`: little-endian float32 bytes, as OpenAI sends them."""
    if encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return [float(x) for x in vector]
