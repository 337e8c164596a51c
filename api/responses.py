"""GraphQL-over-HTTP content negotiation, status codes, and the JSON error bodies of rejections."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from api.errors import ErrorCode

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
_QVALUE = re.compile(r"^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$")

STATUS = {
    ErrorCode.BAD_USER_INPUT: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL: 500,
}


# Seconds an UNAVAILABLE answer asks a client to wait before retrying: the store (or the LLM) is
# down, and what was not written can be resent as it was (docs/failures.md#the-shape-of-an-outage).
RETRY_AFTER_S = 2
UNAVAILABLE_HEADERS = {"retry-after": str(RETRY_AFTER_S)}


def negotiate(accept: str | None) -> str | None:
    """The response media type for an Accept header; None when neither JSON flavour is acceptable.

    GraphQL over HTTP: no Accept header, `*/*` or `application/*` (curl's and most libraries'
    default) mean a client that has not opted in, so it gets `application/json` and HTTP 200 for
    request errors. `application/graphql-response+json` is used only when named, and not ranked
    below `application/json`.
    """
    if not accept or not accept.strip():
        return JSON
    ranges = _accept_ranges(accept)
    official, legacy = ranges.get(GRAPHQL_RESPONSE), ranges.get(JSON)
    if official and (legacy is None or official >= legacy):
        return GRAPHQL_RESPONSE
    if legacy:
        return JSON
    if any(ranges.get(wildcard) for wildcard in ("*/*", "application/*")):
        # A wildcard covers the types not named; it never overrides an explicit `q=0`.
        if legacy is None:
            return JSON
        if official is None:
            return GRAPHQL_RESPONSE
    return None


def _accept_ranges(accept: str) -> dict[str, float]:
    """Media range -> its highest q; a malformed q (RFC 9110 allows 0 to 1, three decimals)
    counts as 0, i.e. not acceptable."""
    ranges: dict[str, float] = {}
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                quality = float(value) if _QVALUE.match(value) else 0.0
        media = media.lower()
        ranges[media] = max(quality, ranges.get(media, 0.0))
    return ranges


def content_type(media: str) -> str:
    return f"{media}; charset=utf-8"


def error_body(
    message: str, code: ErrorCode, request_id: str, extensions: Mapping[str, object] | None = None
) -> dict[str, object]:
    """One error. An UNAVAILABLE one always says `written`: false unless `extensions` says it (a
    request refused or cut short before any write)."""
    codes = {**(extensions or {}), "code": code.value, "requestId": request_id}
    if code is ErrorCode.UNAVAILABLE:
        codes.setdefault("written", False)
    return {"errors": [{"message": message, "extensions": codes}]}


def error_response(
    message: str,
    code: ErrorCode,
    request_id: str,
    *,
    media: str = JSON,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    extensions: Mapping[str, object] | None = None,
) -> Response:
    """A request answered with one GraphQL error and no `data`: a rejection before execution
    (auth, limits, malformed requests) or a request cut short. The X-Request-Id header is the
    request id middleware's (api/middleware/request_id.py)."""
    return Response(
        json.dumps(error_body(message, code, request_id, extensions), separators=(",", ":")),
        status_code=status or STATUS[code],
        media_type=content_type(media),
        headers={**(UNAVAILABLE_HEADERS if code is ErrorCode.UNAVAILABLE else {}), **(headers or {})},
    )


def request_error_status(media: str, code: ErrorCode) -> int:
    """GraphQL over HTTP: a request error is 200 with `application/json` (the legacy rules) and
    the code's status with `application/graphql-response+json`."""
    return STATUS[code] if media == GRAPHQL_RESPONSE else 200


def store_unavailable(body: Mapping[str, Any], *, committed: bool) -> bool:
    """Whether a GraphQL response answers HTTP 503 (with Retry-After), whatever the media type:
    some error is UNAVAILABLE and no field of the document committed a write. A document that
    did write answers 200, its data showing what was written and the errors what was not, so
    that no client takes a done write for a failed one."""
    if committed:
        return False
    errors = body.get("errors") or []
    return any(
        isinstance(e, Mapping) and (e.get("extensions") or {}).get("code") == ErrorCode.UNAVAILABLE.value
        for e in errors
    )


def status_for(errors: list[object]) -> int:
    """The status of a GraphQL response without data (a request error), from its first code."""
    first = errors[0] if errors else {}
    code = first.get("extensions", {}).get("code") if isinstance(first, dict) else None
    try:
        return STATUS[ErrorCode(str(code))]
    except ValueError:
        return 400
