"""A request is served once the schema is migrated: until Neo4j answers (it may be down at start)
every request is refused as UNAVAILABLE, with Retry-After."""

from __future__ import annotations

from starlette.types import Scope

from api.admission import Refusal, unready
from api.context import services_of
from api.middleware.base import CheckMiddleware


class ReadinessMiddleware(CheckMiddleware):
    async def refusal(self, scope: Scope) -> Refusal | None:
        return await unready(services_of(scope))
