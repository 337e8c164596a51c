"""Embedders: an OpenAI-compatible endpoint, local all-MiniLM-L6-v2, or feature hashing."""

from __future__ import annotations

from consolidation.embedders.base import Embedder, Vectors, normalize
from consolidation.settings import EmbedderSettings

__all__ = ["Embedder", "Vectors", "build_embedder", "normalize"]


def build_embedder(settings: EmbedderSettings) -> Embedder:
    """The configured embedder; heavy ones import (and load their model) only when chosen."""
    if settings.kind == "hashing":
        from consolidation.embedders.hashing import HashingEmbedder

        return HashingEmbedder(settings.dimension)
    if settings.kind == "minilm":
        from consolidation.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=settings.batch_size)
    from consolidation.embedders.openai_endpoint import OpenAIEmbedder

    return OpenAIEmbedder(settings)
