"""The interface every chat model provider implements."""

from __future__ import annotations

from typing import Protocol, TypeVar

from pydantic import BaseModel

from consolidation.providers.llm.types import ChatMessage, LLMResult

M = TypeVar("M", bound=BaseModel)


class LanguageModel(Protocol):
    """A chat model that answers with one JSON object validated by a pydantic model."""

    name: str
    model: str

    async def structured(
        self, messages: list[ChatMessage], response_model: type[M], *, task: str
    ) -> LLMResult[M]:
        """Send `messages`, parse the reply into `response_model`; `task` names the operation."""
        ...
