"""Small hand-made unit vectors for tests of cosine rules (focus, ranking)."""

from __future__ import annotations

import numpy as np


def unit(*components: float, dimension: int = 4) -> np.ndarray:
    """The unit vector along `components` (zeros after them)."""
    vector = np.zeros(dimension, dtype=np.float32)
    vector[: len(components)] = components
    return vector / np.linalg.norm(vector)
