"""Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Azure, vLLM, Ollama).

`dimensions` is sent only to OpenAI's text-embedding-3 models, the ones that can shorten their
vectors; many other servers reject the parameter. Whatever the endpoint returns must then have
exactly `settings.dimension` columns, otherwise embedding fails with a message naming the width
to configure (the database's vector indexes are built for one dimension).
"""

from __future__ import annotations

import numpy as np
import openai

from consolidation.providers.embedders.base import EmbeddingError, Vectors, normalize
from consolidation.settings import EmbedderSettings

# Raised when the endpoint failed after the client's retries or returned unusable vectors (NaN,
# the wrong shape); an all-zero row becomes the fixed featureless vector (base.normalize).
__all__ = ["EmbeddingError", "OpenAIEmbedder"]


class OpenAIEmbedder:
    """Batches of `settings.batch_size` texts per request; rows come back L2-normalized."""

    def __init__(self, settings: EmbedderSettings, *, client: openai.AsyncOpenAI | None = None):
        self._settings = settings
        self._client = client or _make_client(settings)

    @property
    def name(self) -> str:
        return f"openai:{self._settings.model}"

    @property
    def dimension(self) -> int:
        return self._settings.dimension

    async def embed(self, texts: list[str]) -> Vectors:
        size = self._settings.batch_size
        batches = [await self._embed_batch(texts[i : i + size]) for i in range(0, len(texts), size)]
        if not batches:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return normalize(np.concatenate(batches))

    async def _embed_batch(self, batch: list[str]) -> Vectors:
        try:
            response = await self._client.embeddings.create(
                model=self._settings.model,
                # The API rejects empty strings; a single space embeds as "nothing".
                input=[text if text.strip() else " " for text in batch],
                encoding_format="float",
                dimensions=self._dimensions(),
            )
        except openai.OpenAIError as failure:
            raise EmbeddingError(f"embedding endpoint failed: {_describe(failure)}") from failure
        # `index` orders the rows; servers are not bound to answer in input order.
        rows = [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
        return self._checked(np.asarray(rows, dtype=np.float32), len(batch))

    def _dimensions(self) -> int | openai.Omit:
        if self._settings.model.startswith("text-embedding-3"):
            return self._settings.dimension
        return openai.omit

    def _checked(self, matrix: Vectors, expected_rows: int) -> Vectors:
        if matrix.ndim != 2 or matrix.shape[0] != expected_rows:
            raise EmbeddingError(f"endpoint returned {matrix.shape[0]} rows for {expected_rows}")
        if matrix.shape[1] != self.dimension:
            raise EmbeddingError(
                f"{self._settings.model} returned {matrix.shape[1]}-dimensional vectors; "
                f"set RECMEM_EMBEDDER_DIMENSION={matrix.shape[1]}"
            )
        return matrix


# EmbedderSettings has no timeout fields; the client's default (600 s) is far too long for the
# write path, which embeds before acknowledging.
_TIMEOUT_S = 30.0
_MAX_RETRIES = 3


def _make_client(settings: EmbedderSettings) -> openai.AsyncOpenAI:
    key = settings.api_key.get_secret_value() if settings.api_key else None
    # The client's retries with back-off cover 429, 5xx, timeouts and connection errors.
    return openai.AsyncOpenAI(
        base_url=settings.base_url,
        api_key=key or "not-needed",
        timeout=_TIMEOUT_S,
        max_retries=_MAX_RETRIES,
    )


def _describe(failure: openai.OpenAIError) -> str:
    # Status code and class only: error bodies may echo request content.
    if isinstance(failure, openai.APIStatusError):
        return f"HTTP {failure.status_code}"
    return type(failure).__name__
