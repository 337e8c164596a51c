"""Embedders: all-MiniLM-L6-v2 on onnxruntime (the default) or on torch, an OpenAI-compatible
endpoint, or feature hashing (tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from consolidation.embedders.base import Embedder, EmbeddingError, Vectors, featureless_vector, normalize

if TYPE_CHECKING:  # the embedders themselves need no pydantic-settings (bench/embedders.py)
    from consolidation.settings import EmbedderSettings

__all__ = ["Embedder", "EmbeddingError", "Vectors", "build_embedder", "featureless_vector", "normalize"]


def build_embedder(settings: EmbedderSettings) -> Embedder:
    """The configured embedder; heavy ones import (and load their model) only when chosen."""
    if settings.kind == "minilm":
        from consolidation.embedders.onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(batch_size=settings.batch_size)
    if settings.kind == "hashing":
        from consolidation.embedders.hashing import HashingEmbedder

        return HashingEmbedder(settings.dimension)
    if settings.kind == "minilm-torch":
        from consolidation.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=settings.batch_size)
    from consolidation.embedders.openai_endpoint import OpenAIEmbedder

    return OpenAIEmbedder(settings)
