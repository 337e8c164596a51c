"""A chat model behind any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp).

Retries with back-off on 408/409/429/5xx, timeouts and connection errors are the openai client's
own (`max_retries`); this module adds structured output, one re-ask on invalid JSON, a fallback
from `json_schema` to `json_object` for servers that lack the former, and token accounting.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import BaseModel, ValidationError

from consolidation.providers.llm import types as llm
from consolidation.settings import LLMSettings

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger(__name__)

_CORRECTION = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only one JSON object that satisfies the required schema."
)
_SCHEMA_NOTE = (
    "Reply with exactly one JSON object and nothing else. "
    "The object must be valid against this JSON Schema:\n{schema}"
)


class OpenAIChatModel:
    """`LanguageModel` over `openai.AsyncOpenAI`; the API key is never logged or put in errors."""

    name = "openai"

    def __init__(self, settings: LLMSettings, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.model = settings.model
        self._temperature = settings.temperature
        self._client = client or _make_client(settings)
        # Flipped once a server rejects `json_schema`; later calls go straight to `json_object`.
        self.json_schema_supported = True

    async def structured(
        self, messages: list[llm.ChatMessage], response_model: type[M], *, task: str
    ) -> llm.LLMResult[M]:
        started = time.perf_counter()
        conversation: list[llm.ChatMessage] = list(messages)
        spent: llm.Usage | None = None
        error = ""
        for _attempt in range(2):  # the first ask and one re-ask
            try:
                reply, usage = await self._complete(conversation, response_model, task)
            except llm.LLMError as failure:
                failure.usage = _finish(spent, started) if spent else None
                raise
            spent = usage if spent is None else spent + usage
            try:
                value = response_model.model_validate_json(_strip_fences(reply))
            except ValidationError as invalid:
                error = _short(invalid)
                conversation = [
                    *conversation,
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": _CORRECTION.format(error=error)},
                ]
                continue
            return llm.LLMResult(value=value, usage=_finish(spent, started))
        raise llm.LLMInvalidOutput(
            f"{task}: reply failed {response_model.__name__} twice: {error}",
            usage=_finish(spent, started) if spent else None,
        )

    async def _complete(
        self, messages: list[llm.ChatMessage], response_model: type[BaseModel], task: str
    ) -> tuple[str, llm.Usage]:
        """One completion (the client retries transient failures inside it)."""
        schema = response_model.model_json_schema()
        if self.json_schema_supported:
            try:
                return await self._request(messages, _json_schema_format(task, schema))
            except _SchemaRejected:
                log.warning("endpoint rejected json_schema; using json_object from now on")
                self.json_schema_supported = False
        return await self._request(_with_schema_note(messages, schema), {"type": "json_object"})

    async def _request(
        self, messages: list[llm.ChatMessage], response_format: ResponseFormat
    ) -> tuple[str, llm.Usage]:
        started = time.perf_counter()
        try:
            completion = await self._client.chat.completions.create(
                model=self.model,
                messages=[_to_param(message) for message in messages],
                response_format=response_format,
                temperature=self._temperature,
            )
        except openai.BadRequestError as rejected:
            if response_format["type"] == "json_schema" and _rejects_json_schema(rejected):
                raise _SchemaRejected from rejected
            raise _translate(rejected) from rejected
        except openai.OpenAIError as failure:
            raise _translate(failure) from failure
        return _content(completion), _usage(completion, self.model, started)


class _SchemaRejected(Exception):
    """The endpoint answered 400 to `response_format: json_schema`."""


def _make_client(settings: LLMSettings) -> openai.AsyncOpenAI:
    key = settings.api_key.get_secret_value() if settings.api_key else None
    return openai.AsyncOpenAI(
        base_url=settings.base_url,
        # Local servers need no key, but the client refuses to start without one.
        api_key=key or "not-needed",
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
    )


def _json_schema_format(task: str, schema: dict[str, Any]) -> ResponseFormat:
    # strict=False: OpenAI's strict mode forbids defaults and optional fields our models use.
    return {"type": "json_schema", "json_schema": {"name": task, "schema": schema, "strict": False}}


def _rejects_json_schema(error: openai.BadRequestError) -> bool:
    text = str(error).lower()
    return "response_format" in text or "json_schema" in text


def _with_schema_note(messages: list[llm.ChatMessage], schema: dict[str, Any]) -> list[llm.ChatMessage]:
    """Describe the schema in the system message (json_object mode carries no schema)."""
    note = _SCHEMA_NOTE.format(schema=json.dumps(schema, separators=(",", ":")))
    if messages and messages[0]["role"] == "system":
        # Merge rather than add a second system message: some chat templates reject two.
        first: llm.ChatMessage = {"role": "system", "content": f"{messages[0]['content']}\n\n{note}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def _to_param(message: llm.ChatMessage) -> ChatCompletionMessageParam:
    content = message["content"]
    if message["role"] == "system":
        return {"role": "system", "content": content}
    if message["role"] == "assistant":
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": content}


def _content(completion: ChatCompletion) -> str:
    if not completion.choices:
        return ""
    # A refusal or a tool call leaves content empty: treated as invalid output (re-asked).
    return completion.choices[0].message.content or ""


def _usage(completion: ChatCompletion, model: str, started: float) -> llm.Usage:
    latency = (time.perf_counter() - started) * 1000
    reported = completion.usage
    # Some servers omit usage; zero is recorded rather than an invented estimate.
    return llm.Usage(
        model=completion.model or model,
        prompt_tokens=reported.prompt_tokens if reported else 0,
        completion_tokens=reported.completion_tokens if reported else 0,
        latency_ms=latency,
    )


def _finish(spent: llm.Usage, started: float) -> llm.Usage:
    """Summed usage with latency replaced by the whole operation's wall time (re-asks included)."""
    elapsed = (time.perf_counter() - started) * 1000
    return llm.Usage(spent.model, spent.prompt_tokens, spent.completion_tokens, elapsed, spent.calls)


def _strip_fences(reply: str) -> str:
    """Drop a Markdown code fence some models wrap around JSON in json_object mode."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text


def _short(error: ValidationError) -> str:
    details = "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'reply'}: {item['msg']}"
        for item in error.errors()[:5]
    )
    return details[:500]


def _translate(error: openai.OpenAIError) -> llm.LLMError:
    """Map client errors to ours; the messages name status codes, never credentials."""
    if isinstance(error, openai.APITimeoutError):
        return llm.LLMUnavailable("LLM endpoint timed out", status="timeout")
    if isinstance(error, openai.APIConnectionError):
        return llm.LLMUnavailable("LLM endpoint unreachable", status="unavailable")
    if isinstance(error, openai.RateLimitError):
        return llm.LLMUnavailable("LLM endpoint rate-limited (429)", status="rate_limited")
    if isinstance(error, openai.APIStatusError):
        message = f"LLM endpoint answered HTTP {error.status_code}"
        if error.status_code >= 500 or error.status_code in (408, 409):
            return llm.LLMUnavailable(message, status="unavailable")
        return llm.LLMError(f"{message}: {_body_message(error)}", status="rejected")
    return llm.LLMError(f"LLM call failed: {type(error).__name__}", status="error")


def _body_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error")
        if isinstance(message, dict):
            message = message.get("message")
        return str(message)[:300] if message else ""
    return ""
