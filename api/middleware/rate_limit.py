"""Each request takes a token from its key's bucket (api/limits.py); an empty bucket answers
RATE_LIMITED with Retry-After. Runs after authentication, which names the key."""

from __future__ import annotations

from starlette.types import Scope

from api.admission import Refusal, rate_limited
from api.context import services_of
from api.middleware.authentication import principal_of
from api.middleware.base import CheckMiddleware


class RateLimitMiddleware(CheckMiddleware):
    async def refusal(self, scope: Scope) -> Refusal | None:
        principal = principal_of(scope)
        return rate_limited(services_of(scope), principal) if principal is not None else None
