"""Who may run a request: readiness, the API key, then its rate limit, in that order.

One check for every HTTP entry point (GraphQL at `/graphql`, MCP at `/mcp`); each renders a refusal
in its own protocol (a GraphQL error, a JSON-RPC error).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from api.auth import bearer_token
from api.errors import ErrorCode
from api.services import Services
from consolidation.access import Principal
from graph.errors import StoreUnavailable


@dataclass(frozen=True)
class Refusal:
    message: str
    code: ErrorCode
    headers: dict[str, str] = field(default_factory=dict)


async def admit(services: Services, authorization: str | None) -> Principal | Refusal:
    """The key's principal, or why the request is refused (its message, code and HTTP headers)."""
    try:
        await services.ensure_ready()
        principal = await services.authenticator.authenticate(bearer_token(authorization))
    except StoreUnavailable:
        return Refusal("the memory store is unavailable; retry later", ErrorCode.UNAVAILABLE)
    if principal is None:
        return Refusal(
            "a valid API key is required: Authorization: Bearer <key>",
            ErrorCode.UNAUTHENTICATED,
            {"www-authenticate": 'Bearer realm="recmem"'},
        )
    if not services.limiter.allow(principal.key_id):
        return Refusal(
            "too many requests for this key",
            ErrorCode.RATE_LIMITED,
            {"retry-after": str(services.limiter.retry_after())},
        )
    return principal
