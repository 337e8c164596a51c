"""Request-body checks; a malformed request becomes a 400 like OpenAI's."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from local_llm_server.settings import ServerSettings
from local_llm_server.tokens import count_tokens, decode_tokens

_RESPONSE_FORMATS = ("text", "json_object", "json_schema")
_ENCODING_FORMATS = ("float", "base64")


class BadRequest(Exception):
    """A client error reported as HTTP 400 with `param` naming the offending field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


async def json_object_body(request: Request) -> dict[str, Any]:
    """The request body parsed as a JSON object."""
    raw = await request.body()
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"We could not parse the JSON body of your request: {exc}") from exc
    if not isinstance(body, dict):
        raise BadRequest("The request body must be a JSON object.")
    return body


def check_chat_request(body: Mapping[str, Any]) -> None:
    """Reject what the real API rejects and what this server cannot serve (streaming)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty array.", param="messages")
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise BadRequest(f"messages[{index}] must be an object with a 'role'.", "messages")
    if body.get("stream"):
        raise BadRequest("stream=true is not supported by the local LLM server.", "stream")
    _check_response_format(body.get("response_format"))


def _check_response_format(fmt: Any) -> None:
    if fmt is None:
        return
    if not isinstance(fmt, Mapping) or fmt.get("type") not in _RESPONSE_FORMATS:
        raise BadRequest(f"'response_format.type' must be one of {_RESPONSE_FORMATS}.")
    if fmt["type"] == "json_schema" and not isinstance(fmt.get("json_schema"), Mapping):
        raise BadRequest("'response_format.json_schema' must be an object.", "response_format")


@dataclass(frozen=True)
class EmbeddingRequest:
    """A checked embeddings request: one text (and its token count) per input."""

    model: str
    texts: list[str]
    token_counts: list[int]
    dimension: int
    encoding_format: str


def parse_embedding_request(body: Mapping[str, Any], settings: ServerSettings) -> EmbeddingRequest:
    texts, token_counts = _embedding_inputs(body.get("input"))
    dimension = body.get("dimensions", settings.embedding_dimension)
    if not isinstance(dimension, int) or isinstance(dimension, bool) or dimension < 1:
        raise BadRequest("'dimensions' must be a positive integer.", "dimensions")
    encoding_format = body.get("encoding_format") or "float"
    if encoding_format not in _ENCODING_FORMATS:
        raise BadRequest(f"'encoding_format' must be one of {_ENCODING_FORMATS}.", "encoding_format")
    return EmbeddingRequest(
        model=str(body.get("model") or settings.embedding_model),
        texts=texts,
        token_counts=token_counts,
        dimension=dimension,
        encoding_format=str(encoding_format),
    )


def _embedding_inputs(raw: Any) -> tuple[list[str], list[int]]:
    """(texts, token counts) of `input`: a string, strings, token ids, or lists of token ids."""
    if isinstance(raw, str):
        raw = [raw]
    elif isinstance(raw, list) and raw and all(_is_token_id(t) for t in raw):
        raw = [raw]  # one pre-tokenized input
    if not isinstance(raw, list) or not raw:
        raise BadRequest("'input' must be a non-empty string or array.", "input")
    texts: list[str] = []
    counts: list[int] = []
    for item in raw:
        if isinstance(item, str) and item:
            texts.append(item)
            counts.append(count_tokens(item))
        elif isinstance(item, list) and item and all(_is_token_id(t) for t in item):
            texts.append(_decode(item))
            counts.append(len(item))
        else:
            raise BadRequest("'input' items must be non-empty strings or token arrays.", "input")
    return texts, counts


def _decode(token_ids: list[int]) -> str:
    try:
        return decode_tokens(token_ids)
    except (KeyError, IndexError, ValueError) as exc:
        raise BadRequest(f"'input' holds an unknown token id: {exc}", "input") from exc


def _is_token_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
