"""`Reply`: what the server answers to one chat-completion request, scripted by a test."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ReplyKind = Literal["content", "error", "slow"]

# A JSON object cut off mid-string, like a model that hit max_tokens.
_TRUNCATED_JSON = '{"facts": [{"text": "the reply was cut off befo'


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the classmethods, not the constructor.

    - content: a 200 reply whose assistant message is `content`.
    - error: an OpenAI-style error body with HTTP `status` and extra `headers`.
    - slow: wait `delay` seconds (asynchronously), then answer with `then`
      (or with the generic reply when `then` is None).
    """

    kind: ReplyKind
    content: str = ""
    status: int = 200
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    then: Reply | None = None
    finish_reason: str = "stop"

    @classmethod
    def text(cls, content: str, *, finish_reason: str = "stop") -> Reply:
        """Answer with `content` verbatim as the assistant message."""
        return cls(kind="content", content=content, finish_reason=finish_reason)

    @classmethod
    def json(cls, obj: Any) -> Reply:
        """Answer with `json.dumps(obj)` as the assistant message."""
        return cls(kind="content", content=json.dumps(obj))

    @classmethod
    def invalid_json(cls) -> Reply:
        """Answer with a truncated JSON object that `json.loads` rejects."""
        return cls(kind="content", content=_TRUNCATED_JSON, finish_reason="length")

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "Scripted error from the local LLM server",
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Answer with HTTP `status` and an OpenAI-style `{"error": {...}}` body."""
        return cls(kind="error", status=status, message=message, headers=dict(headers or {}))

    @classmethod
    def rate_limited(cls, message: str = "Rate limit reached (scripted)", *, retry_after: float = 0) -> Reply:
        """A 429 with a `retry-after` header (seconds).

        Note: the openai client ignores a retry-after of 0 and falls back to its own
        backoff (about 0.4-0.5 s for the first retry).
        """
        return cls.error(429, message, headers={"retry-after": _format_seconds(retry_after)})

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Sleep `seconds` before answering with `then` (None: the generic reply)."""
        return cls(kind="slow", delay=seconds, then=then)


def _format_seconds(seconds: float) -> str:
    # "0" rather than "0.0": integral values look like what real servers send.
    return str(int(seconds)) if float(seconds).is_integer() else str(seconds)
