"""The embedder interface: texts in, unit-length vectors out, in batches."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """Identifies the model; the database refuses vectors from another one."""
        ...

    @property
    def dimension(self) -> int: ...

    async def embed(self, texts: list[str]) -> Vectors:
        """One row per text, each of unit length."""
        ...


def normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Row-wise L2 normalization; an all-zero row stays zero instead of becoming NaN."""
    data = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    return (data / np.where(norms == 0, 1.0, norms)).astype(np.float32)
