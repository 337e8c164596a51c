"""Static configuration of one local server instance."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MODEL = "local-test-model"
DEFAULT_EMBEDDING_MODEL = "local-embedding-model"
# Same width as all-MiniLM-L6-v2, the project's local embedder.
DEFAULT_EMBEDDING_DIMENSION = 384


@dataclass(frozen=True)
class ServerSettings:
    """Model ids the server advertises and the default embedding width."""

    model: str = DEFAULT_MODEL
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_dimension: int = DEFAULT_EMBEDDING_DIMENSION

    def __post_init__(self) -> None:
        if self.embedding_dimension < 1:
            raise ValueError("embedding_dimension must be positive")
