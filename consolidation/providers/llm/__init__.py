"""LLM providers: an OpenAI-compatible chat endpoint with structured (JSON) output."""

from __future__ import annotations

from consolidation.providers.llm.base import LanguageModel
from consolidation.providers.llm.types import (
    ChatMessage,
    LLMError,
    LLMInvalidOutput,
    LLMResult,
    LLMUnavailable,
    Usage,
)
from consolidation.settings import LLMSettings

__all__ = [
    "ChatMessage",
    "LLMError",
    "LLMInvalidOutput",
    "LLMResult",
    "LLMUnavailable",
    "LanguageModel",
    "Usage",
    "build_language_model",
]


def build_language_model(settings: LLMSettings) -> LanguageModel | None:
    """The configured endpoint client, or None when no endpoint is configured (offline mode)."""
    if not settings.configured:
        return None
    # Imported here so that offline deployments never import the openai client.
    from consolidation.providers.llm.openai_chat import OpenAIChatModel

    return OpenAIChatModel(settings)
