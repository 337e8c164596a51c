"""The Starlette app: OpenAI-compatible routes under /v1 and OpenAI-style errors."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from local_llm_server.chat import answer_chat
from local_llm_server.embeddings import embed, encode_vector
from local_llm_server.responses import embeddings_body, json_error, model_body, models_body
from local_llm_server.settings import ServerSettings
from local_llm_server.state import ServerState
from local_llm_server.validation import (
    BadRequest,
    check_chat_request,
    json_object_body,
    parse_embedding_request,
)


def build_app(state: ServerState, settings: ServerSettings) -> Starlette:
    """An app answering from `state` (scripted replies, logs) with `settings`' models."""

    async def chat_completions(request: Request) -> Response:
        body = await json_object_body(request)
        check_chat_request(body)
        # Recorded before answering, so a request the client abandoned is still seen.
        state.record_chat_request(body)
        return await answer_chat(request, state, settings, body)

    async def embeddings(request: Request) -> Response:
        parsed = parse_embedding_request(await json_object_body(request), settings)
        state.record_embedding_call()
        vectors = [
            encode_vector(embed(text, parsed.dimension), parsed.encoding_format) for text in parsed.texts
        ]
        body = embeddings_body(model=parsed.model, embeddings=vectors, prompt_tokens=sum(parsed.token_counts))
        return JSONResponse(body)

    async def list_models(request: Request) -> Response:
        return JSONResponse(models_body(_model_ids(settings)))

    async def retrieve_model(request: Request) -> Response:
        model_id = str(request.path_params["model_id"])
        if model_id not in _model_ids(settings):
            return json_error(404, f"The model '{model_id}' does not exist", param="model")
        return JSONResponse(model_body(model_id))

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/embeddings", embeddings, methods=["POST"]),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/v1/models/{model_id:path}", retrieve_model, methods=["GET"]),
    ]
    handlers = {BadRequest: _bad_request, HTTPException: _http_error}
    return Starlette(routes=routes, exception_handlers=handlers)


def _model_ids(settings: ServerSettings) -> list[str]:
    return [settings.model, settings.embedding_model]


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return json_error(400, exc.message, param=exc.param)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown paths (404) and wrong methods (405) in OpenAI's error shape."""
    assert isinstance(exc, HTTPException)
    message = f"Invalid URL ({request.method} {request.url.path})"
    return json_error(exc.status_code, message, headers=exc.headers)
