"""`GET /export?user=U`: one user of the key's tenant as the JSON Lines of `recmem export`
(docs/export.md), streamed as `application/x-ndjson`.

Behind the same admission as `/graphql` (readiness, the key, its rate limit; api/app.py). The
tenant is the key's, never a parameter, so no key reads another tenant's users. The header line is
read before the response starts: an unknown user is a 404 and an outage a 503, both as one
GraphQL-shaped JSON error; a failure after that cuts the stream short, which an import refuses
(its header's counts do not match).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from api.context import services_of
from api.errors import UNAVAILABLE_MESSAGE, UNAVAILABLE_TYPES, ErrorCode
from api.middleware.authentication import principal_of
from api.middleware.request_id import request_id_of
from api.request_body import repeated_parameter
from api.responses import error_response
from consolidation.portability import dump
from graph.errors import InvalidInput
from graph.models import Owner
from graph.validation import require_owner

PATH = "/export"
NDJSON = "application/x-ndjson"
log = logging.getLogger("api.export")


def export_url(user_id: str) -> str:
    """The path of a user's download (relative to the service's base URL)."""
    return f"{PATH}?user={quote(user_id, safe='')}"


class ExportEndpoint:
    """The ASGI endpoint, innermost in its middleware stack (an ASGI app, so that the stack's
    method check, not the router's plain-text one, answers other methods)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await _respond(Request(scope, receive))
        await response(scope, receive, send)


async def _respond(request: Request) -> Response:
    request_id = request_id_of(request.scope)
    principal = principal_of(request.scope)
    assert principal is not None, "the authentication middleware runs first"
    repeated = repeated_parameter(request.query_params, ["user"])
    if repeated is not None:
        return error_response(repeated, ErrorCode.BAD_USER_INPUT, request_id)
    user = request.query_params.get("user")
    if user is None:
        return error_response("the query parameter `user` is required", ErrorCode.BAD_USER_INPUT, request_id)
    try:
        require_owner(principal.tenant, user)
        owner = Owner(principal.tenant, user)
        services = services_of(request.scope)
        # The user the API answers (User.exportUrl), even once all its turns are forgotten.
        if not await services.audit.users(principal.tenant, [user]):
            return error_response(f"no user {user!r} in this tenant", ErrorCode.NOT_FOUND, request_id)
        lines = services.portability.export(owner)
        header = await anext(lines)
    except InvalidInput as error:
        return error_response(str(error), ErrorCode.BAD_USER_INPUT, request_id)
    except UNAVAILABLE_TYPES:
        return error_response(UNAVAILABLE_MESSAGE, ErrorCode.UNAVAILABLE, request_id)
    filename = f"{quote(user, safe='')}.jsonl"
    return StreamingResponse(
        _encoded(header, lines, request_id),
        media_type=NDJSON,
        headers={"content-disposition": f"attachment; filename*=UTF-8''{filename}"},
    )


async def _encoded(
    header: dict[str, Any], lines: AsyncIterator[dict[str, Any]], request_id: str
) -> AsyncIterator[bytes]:
    yield (dump(header) + "\n").encode()
    try:
        async for line in lines:
            yield (dump(line) + "\n").encode()
    except Exception:
        # The status is sent already: the stream ends short, and an import refuses the file.
        log.exception("export of request %s cut short", request_id)
        raise
