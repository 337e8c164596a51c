"""Values every LLM provider returns or raises: token usage, typed results, typed errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypedDict, TypeVar

T = TypeVar("T")

Role = Literal["system", "user", "assistant"]


class ChatMessage(TypedDict):
    """One chat message; only the three roles the prompts use."""

    role: Role
    content: str


@dataclass(frozen=True)
class Usage:
    """What one operation cost: tokens as the endpoint reported them, wall time, HTTP calls."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    calls: int = 1

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        model = self.model if self.model == other.model else f"{self.model}+{other.model}"
        return Usage(
            model=model,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_ms=self.latency_ms + other.latency_ms,
            calls=self.calls + other.calls,
        )

    def __radd__(self, other: int | Usage) -> Usage:
        # `sum(usages)` starts from the integer 0.
        if isinstance(other, int) and other == 0:
            return self
        if isinstance(other, Usage):
            return other + self
        return NotImplemented

    @staticmethod
    def zero(model: str, latency_ms: float = 0.0) -> Usage:
        """Usage of an operation that called no model (the offline consolidator)."""
        return Usage(model=model, prompt_tokens=0, completion_tokens=0, latency_ms=latency_ms, calls=0)


@dataclass(frozen=True)
class LLMResult(Generic[T]):
    value: T
    usage: Usage


class LLMError(Exception):
    """A model call failed. `usage` holds the tokens already spent (None when unknown)."""

    default_status = "error"

    def __init__(self, message: str, *, usage: Usage | None = None, status: str | None = None):
        super().__init__(message)
        self.usage = usage
        self.status = status or self.default_status


class LLMUnavailable(LLMError):
    """Timeouts, 5xx, 429 or connection failures that outlasted the client's retries."""

    default_status = "unavailable"


class LLMInvalidOutput(LLMError):
    """The reply was not valid JSON for the response model, even after one re-ask."""

    default_status = "invalid_output"
