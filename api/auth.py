"""Bearer-key authentication: `Authorization: Bearer <key>` over HTTP, the same header (or a
`connection_init` payload field) on the websocket."""

from __future__ import annotations

import time
from collections.abc import Mapping

from consolidation.access import AccessKeys, Principal

SCHEME = "bearer"


def bearer_token(value: str | None) -> str | None:
    """The key from an Authorization value; None when absent or not a Bearer credential."""
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != SCHEME or not token:
        return None
    return token


def token_from_params(params: Mapping[str, object] | None) -> str | None:
    """Browsers cannot set websocket headers: the key may come in the connection_init payload,
    as `Authorization: "Bearer <key>"` (either case) or as `apiKey`."""
    if not params:
        return None
    for name in ("Authorization", "authorization"):
        value = params.get(name)
        if isinstance(value, str):
            return bearer_token(value)
    value = params.get("apiKey")
    return value if isinstance(value, str) and value else None


class Authenticator:
    """Looks keys up in Neo4j; with `cache_s` > 0 a hit is reused for that long (per process)."""

    def __init__(self, keys: AccessKeys, cache_s: float = 0.0) -> None:
        self.keys = keys
        self.cache_s = cache_s
        self._cache: dict[str, tuple[Principal, float]] = {}

    async def authenticate(self, token: str | None) -> Principal | None:
        if token is None:
            return None
        now = time.monotonic()
        cached = self._cache.get(token)
        if cached is not None and cached[1] > now:
            return cached[0]
        principal = await self.keys.authenticate(token)
        if principal is not None and self.cache_s > 0:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[token] = (principal, now + self.cache_s)
        return principal
