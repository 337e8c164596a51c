"""The embedder interface: texts in, unit-length vectors out, in batches."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class EmbeddingError(RuntimeError):
    """An embedder could not produce usable vectors (an endpoint failed, a model returned NaN, a
    model file is missing or damaged). Every embedder raises this or a subclass, never a zero or
    non-finite row."""


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """Identifies the model; the database refuses vectors from another one."""
        ...

    @property
    def dimension(self) -> int: ...

    async def embed(self, texts: list[str]) -> Vectors:
        """One row per text, each of unit length and finite."""
        ...


def featureless_vector(dimension: int) -> Vectors:
    """The vector of a text that carries nothing to embed (whitespace, say, for the hashing
    embedder): a fixed unit vector, the same for every such text.

    A zero row cannot be stored or searched (cosine is undefined, the store rejects it), and
    failing instead would fail the write, or, for a summary a consolidation produced, fail every
    later pass of that user. A fixed direction keeps such texts valid and similar only to each
    other. It is the normalized all-ones vector: for the hashing embedder, whose features carry
    random signs, its cosine with any real text is about 0.
    """
    return np.full(dimension, 1.0 / np.sqrt(dimension), dtype=np.float32)


def normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Row-wise L2 normalization, checked: a NaN or infinite value raises EmbeddingError and an
    all-zero row becomes `featureless_vector` (neither can be stored or searched)."""
    data = np.asarray(matrix, dtype=np.float32)
    if data.ndim != 2:
        raise EmbeddingError(f"expected a matrix of embeddings, got shape {data.shape}")
    if not np.isfinite(data).all():
        rows = np.flatnonzero(~np.isfinite(data).all(axis=1)).tolist()
        raise EmbeddingError(f"the embedder returned NaN or infinite values (rows {rows[:10]})")
    # float64 norms: float32 squares of tiny or huge (finite) values under- or overflow.
    norms = np.linalg.norm(data.astype(np.float64), axis=1, keepdims=True)
    unit = (data / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    empty = norms[:, 0] == 0
    if empty.any():
        unit[empty] = featureless_vector(data.shape[1])
    return unit
