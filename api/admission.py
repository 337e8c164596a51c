"""Who may run a request: readiness, the API key, then its rate limit, in that order.

Each check is one function here, and every entry point asks the same ones: `/graphql` as a
middleware stack (api/middleware, assembled in api/app.py), `/mcp` through `admit` (its endpoint
admits after its own method check), and the websocket per operation (api/websocket.py). Each
renders a refusal in its own protocol (a GraphQL error, a JSON-RPC error, an `error` message).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.authentication import AuthenticationError
from starlette.responses import Response
from starlette.types import Scope

from api.auth import KeyUnavailable, bearer_token, principal_for
from api.errors import ErrorCode
from api.services import Services
from consolidation.forgetting.keys import Principal
from graph.errors import StoreUnavailable


@dataclass(frozen=True)
class Refusal:
    """Why a request is not served: its message and code, the HTTP headers that go with it, and
    the status when it is not the code's own (api/responses.py STATUS)."""

    message: str
    code: ErrorCode
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None


# How an endpoint answers a refusal (its error body, its media type).
RenderRefusal = Callable[[Scope, Refusal], Response]

UNAVAILABLE = Refusal("the memory store is unavailable; retry later", ErrorCode.UNAVAILABLE)
UNAUTHENTICATED = Refusal(
    "a valid API key is required: Authorization: Bearer <key>",
    ErrorCode.UNAUTHENTICATED,
    {"www-authenticate": 'Bearer realm="recmem"'},
)


async def unready(services: Services) -> Refusal | None:
    """Migrates the schema if that has not succeeded yet; a refusal while Neo4j is down."""
    try:
        await services.ensure_ready()
    except StoreUnavailable:
        return UNAVAILABLE
    return None


def key_refusal(error: AuthenticationError) -> Refusal:
    """The refusal for a key that did not authenticate (api.auth.principal_for)."""
    return UNAVAILABLE if isinstance(error, KeyUnavailable) else UNAUTHENTICATED


def rate_limited(services: Services, principal: Principal) -> Refusal | None:
    """Takes one token from the key's bucket; a refusal when it is empty."""
    if services.limiter.allow(principal.key_id):
        return None
    return Refusal(
        "too many requests for this key",
        ErrorCode.RATE_LIMITED,
        {"retry-after": str(services.limiter.retry_after())},
    )


async def admit(services: Services, authorization: str | None) -> Principal | Refusal:
    """The key's principal, or why the request is refused: the three checks in their order."""
    refusal = await unready(services)
    if refusal is not None:
        return refusal
    try:
        principal = await principal_for(services.authenticator, bearer_token(authorization))
    except AuthenticationError as error:
        return key_refusal(error)
    return rate_limited(services, principal) or principal
