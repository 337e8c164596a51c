"""GraphQL-over-HTTP content negotiation: the response's media type from `Accept`, kept in the
request's state; a client that accepts neither JSON flavour gets 406 (api/responses.py)."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import Scope

from api.admission import Refusal
from api.errors import ErrorCode
from api.middleware.base import CheckMiddleware
from api.responses import GRAPHQL_RESPONSE, JSON, negotiate

_STATE_KEY = "media"


def media_of(scope: Scope) -> str:
    """The negotiated media type; JSON before (or without) negotiation."""
    value = scope.get("state", {}).get(_STATE_KEY)
    return value if isinstance(value, str) else JSON


class NegotiationMiddleware(CheckMiddleware):
    async def refusal(self, scope: Scope) -> Refusal | None:
        """Refuses a client that accepts neither; records the media type of one that does."""
        media = negotiate(Headers(scope=scope).get("accept"))
        if media is None:
            return Refusal(
                f"acceptable media types: {GRAPHQL_RESPONSE}, {JSON}", ErrorCode.BAD_USER_INPUT, status=406
            )
        scope.setdefault("state", {})[_STATE_KEY] = media
        return None
