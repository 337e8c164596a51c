"""Answering one chat-completion request: scripted reply, responder, or generic content."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from local_llm_server.generic import generic_content
from local_llm_server.replies import Reply
from local_llm_server.responses import chat_completion_body, json_error
from local_llm_server.schema_instance import SchemaInstanceError
from local_llm_server.settings import ServerSettings
from local_llm_server.state import ServerState
from local_llm_server.tokens import count_prompt_tokens, count_tokens

# nginx's "client closed request": logged when the client gave up during a slow reply.
CLIENT_CLOSED_STATUS = 499
# How often a slow reply checks whether the client is still there.
_DISCONNECT_POLL_SECONDS = 0.05


async def answer_chat(
    request: Request, state: ServerState, settings: ServerSettings, body: dict[str, Any]
) -> Response:
    """Consume one reply for `body` (a checked chat request) and render it."""
    model = str(body.get("model") or settings.model)
    reply = _take_reply(state, body)
    while reply is not None and reply.kind == "slow":
        if not await _sleep_while_connected(request, reply.delay):
            state.record_usage(model=model, status=CLIENT_CLOSED_STATUS, prompt_tokens=0, completion_tokens=0)
            return Response(status_code=CLIENT_CLOSED_STATUS)
        reply = reply.then
    if reply is not None and reply.kind == "error":
        return _error(state, model, reply.status, reply.message, reply.headers)
    try:
        content = reply.content if reply is not None else generic_content(body)
    except SchemaInstanceError as exc:
        return _error(state, model, 500, f"local LLM server cannot build the schema: {exc}")
    finish_reason = reply.finish_reason if reply is not None else "stop"
    return _completion(state, model, body, content, finish_reason)


def _take_reply(state: ServerState, body: dict[str, Any]) -> Reply | None:
    try:
        return state.take_reply(body)
    except Exception as exc:
        # A broken responder is a test bug: surface it as a 500 the test will see.
        return Reply.error(500, f"local LLM server responder raised {exc!r}")


async def _sleep_while_connected(request: Request, seconds: float) -> bool:
    """Sleep `seconds`; False as soon as the client disconnects.

    Returning early keeps a timed-out request from holding the server (and its
    shutdown) for the rest of the delay.
    """
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(remaining, _DISCONNECT_POLL_SECONDS))
        if await request.is_disconnected():
            return False
    return True


def _error(
    state: ServerState,
    model: str,
    status: int,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    # Failed calls are not billed by OpenAI, hence zero tokens.
    state.record_usage(model=model, status=status, prompt_tokens=0, completion_tokens=0)
    return json_error(status, message, headers=headers)


def _completion(
    state: ServerState, model: str, body: dict[str, Any], content: str, finish_reason: str
) -> Response:
    prompt_tokens = count_prompt_tokens(body["messages"])
    completion_tokens = count_tokens(content)
    state.record_usage(
        model=model,
        status=200,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
    number = state.next_id()
    payload = chat_completion_body(
        completion_id=f"chatcmpl-local{number}",
        model=model,
        content=content,
        finish_reason=finish_reason,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
    return JSONResponse(payload, headers={"x-request-id": f"req_local{number}"})
