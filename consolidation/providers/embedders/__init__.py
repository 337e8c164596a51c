"""Embedders: all-MiniLM-L6-v2 on onnxruntime (the default; fp32 or int8 weights) or on torch, an
OpenAI-compatible endpoint, or feature hashing (tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from consolidation.providers.embedders.base import (
    Embedder,
    EmbeddingError,
    Vectors,
    featureless_vector,
    normalize,
)

if TYPE_CHECKING:  # the embedders themselves need no pydantic-settings (bench/embedders.py)
    from consolidation.settings import EmbedderSettings

__all__ = ["Embedder", "EmbeddingError", "Vectors", "build_embedder", "featureless_vector", "normalize"]


def build_embedder(settings: EmbedderSettings) -> Embedder:
    """The configured embedder; heavy ones import (and load their model) only when chosen."""
    if settings.kind in ("minilm", "minilm-int8"):
        from consolidation.providers.embedders.onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(
            batch_size=settings.batch_size, weights="int8" if settings.kind == "minilm-int8" else "fp32"
        )
    if settings.kind == "hashing":
        from consolidation.providers.embedders.hashing import HashingEmbedder

        return HashingEmbedder(settings.dimension)
    if settings.kind == "minilm-torch":
        from consolidation.providers.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=settings.batch_size)
    from consolidation.providers.embedders.openai_endpoint import OpenAIEmbedder

    return OpenAIEmbedder(settings)
