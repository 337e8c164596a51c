"""OpenAI JSON response bodies (chat completion, embeddings, models, error)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse

# OpenAI's `error.type` for the statuses tests script; anything else is "api_error".
_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_denied_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    408: "timeout",
    409: "conflict",
    422: "invalid_request_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    502: "server_error",
    503: "server_error",
}
_ERROR_CODES: dict[int, str] = {404: "not_found", 429: "rate_limit_exceeded"}


def usage_body(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def chat_completion_body(
    *,
    completion_id: str,
    model: str,
    content: str,
    finish_reason: str,
    prompt_tokens: int,
    completion_tokens: int,
) -> dict[str, Any]:
    """A non-streaming `chat.completion` object with one choice."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_local",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage_body(prompt_tokens, completion_tokens),
    }


def embeddings_body(
    *, model: str, embeddings: Sequence[list[float] | str], prompt_tokens: int
) -> dict[str, Any]:
    """A `list` of `embedding` objects; each embedding is floats or a base64 string."""
    return {
        "object": "list",
        "model": model,
        "data": [{"object": "embedding", "index": i, "embedding": e} for i, e in enumerate(embeddings)],
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }


def model_body(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "local-llm-server"}


def models_body(model_ids: Sequence[str]) -> dict[str, Any]:
    return {"object": "list", "data": [model_body(m) for m in model_ids]}


def error_body(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's `{"error": {message, type, param, code}}` for an HTTP status."""
    return {
        "error": {
            "message": message,
            "type": _ERROR_TYPES.get(status, "api_error"),
            "param": param,
            "code": _ERROR_CODES.get(status),
        }
    }


def json_error(
    status: int,
    message: str,
    *,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """An HTTP error response the openai client turns into the matching APIStatusError."""
    return JSONResponse(error_body(status, message, param), status_code=status, headers=headers)
