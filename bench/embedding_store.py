"""Vectors kept on disk between benchmark runs: one SQLite file, keyed by embedder name, dimension
and the text's SHA-256.

Vectors are deterministic per text and embedder, so a rerun that reads them changes no result; it
only skips the minutes MiniLM spends on two cores. Several bench processes may share one file
(SQLite locks it; a write that finds it busy waits).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
_BUSY_TIMEOUT_S = 60.0


class EmbeddingStore:
    """Vectors of one embedder by text, in the SQLite file at `path` (made when missing)."""

    def __init__(self, path: Path, embedder: str, dimension: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (embedder TEXT, dimension INTEGER, digest BLOB, "
            "vector BLOB, PRIMARY KEY (embedder, dimension, digest))"
        )
        self._key = (embedder, dimension)

    def get(self, texts: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors of those `texts` that have one."""
        found: dict[str, Vector] = {}
        by_digest = {_digest(t): t for t in texts}
        digests = list(by_digest)
        for start in range(0, len(digests), 500):
            chunk = digests[start : start + 500]
            rows = self._db.execute(
                "SELECT digest, vector FROM vectors WHERE embedder = ? AND dimension = ? AND digest IN "
                f"({','.join('?' * len(chunk))})",
                (*self._key, *chunk),
            )
            for digest, blob in rows:
                found[by_digest[digest]] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put(self, vectors: Mapping[str, Vector]) -> None:
        rows = [
            (*self._key, _digest(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        self._db.close()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()
