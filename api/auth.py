"""Bearer-key authentication, the one check of a key for every entry point.

`Authorization: Bearer <key>` over HTTP (GraphQL, MCP) and on the websocket handshake; browsers
cannot set websocket headers, so a `connection_init` payload may carry it instead. Each of them
asks `principal_for`, which either names the key's principal or raises why not.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from starlette.authentication import AuthenticationError

from consolidation.forgetting.keys import AccessKeys, Principal
from graph.errors import StoreUnavailable

SCHEME = "bearer"


class KeyRefused(AuthenticationError):
    """No key, not a Bearer credential, or a key that is unknown or revoked."""


class KeyUnavailable(AuthenticationError):
    """Neo4j did not answer the lookup: the key is neither good nor bad."""


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

    async def recheck(self, token: str) -> Principal | None:
        """Straight from Neo4j, bypassing the cache: an open websocket must lose a revoked key
        within seconds, whatever the cache's lifetime."""
        return await self.keys.authenticate(token)


async def principal_for(authenticator: Authenticator, token: str | None, *, fresh: bool = False) -> Principal:
    """The principal of `token`. Raises KeyRefused when there is none (no key, unknown, revoked)
    and KeyUnavailable when Neo4j does not answer; what either means is the caller's to say (an
    HTTP refusal, a refused handshake, a closed connection). `fresh` bypasses the cache."""
    try:
        if fresh and token is not None:
            principal = await authenticator.recheck(token)
        else:
            principal = await authenticator.authenticate(token)
    except StoreUnavailable as error:
        raise KeyUnavailable(str(error)) from error
    if principal is None:
        raise KeyRefused("no valid API key")
    return principal
