"""GraphQL-over-HTTP content negotiation, status codes, and the JSON error bodies of rejections."""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.responses import Response

from api.errors import ErrorCode

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"

STATUS = {
    ErrorCode.BAD_USER_INPUT: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL: 500,
}


def negotiate(accept: str | None) -> str | None:
    """The response media type for an Accept header; None when neither JSON flavour is acceptable.

    No Accept header means a legacy client: `application/json`. A wildcard gets the official
    `application/graphql-response+json`.
    """
    if not accept or not accept.strip():
        return JSON
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept.split(",")):
        media, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranked.append((-quality, index, media.lower()))
    for negative_quality, _, media in sorted(ranked):
        if negative_quality >= 0:
            continue
        if media in (GRAPHQL_RESPONSE, JSON):
            return media
        if media in ("*/*", "application/*"):
            return GRAPHQL_RESPONSE
    return None


def content_type(media: str) -> str:
    return f"{media}; charset=utf-8"


def error_body(message: str, code: ErrorCode, request_id: str) -> dict[str, object]:
    return {"errors": [{"message": message, "extensions": {"code": code.value, "requestId": request_id}}]}


def error_response(
    message: str,
    code: ErrorCode,
    request_id: str,
    *,
    media: str = JSON,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """A rejection before execution (auth, limits, malformed requests), with a GraphQL error body."""
    return Response(
        json.dumps(error_body(message, code, request_id), separators=(",", ":")),
        status_code=status or STATUS[code],
        media_type=content_type(media),
        headers={"x-request-id": request_id, **(headers or {})},
    )


def status_for(errors: list[object]) -> int:
    """The status of a GraphQL response without data (a request error), from its first code."""
    first = errors[0] if errors else {}
    code = first.get("extensions", {}).get("code") if isinstance(first, dict) else None
    try:
        return STATUS[ErrorCode(str(code))]
    except ValueError:
        return 400
