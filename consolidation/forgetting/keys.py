"""Who may use the service: API keys per tenant (create, list, revoke, authenticate).

A facade over the graph's key store so that the API and the CLI hold no repository.
"""

from __future__ import annotations

from graph.api_keys import ApiKey, ApiKeyStore, IssuedKey, Principal, Revocation
from graph.database import Database

__all__ = ["AccessKeys", "ApiKey", "IssuedKey", "Principal", "Revocation"]


class AccessKeys:
    def __init__(self, store: ApiKeyStore | Database) -> None:
        """Over the service's shared key store (consolidation/assembly.py), or a bare database's."""
        self._store = store if isinstance(store, ApiKeyStore) else ApiKeyStore(store)

    async def create(self, tenant: str, name: str | None = None) -> IssuedKey:
        """A new key; its secret is in the result and nowhere else, ever."""
        return await self._store.create(tenant, name)

    async def list(self, tenant: str | None = None) -> list[ApiKey]:
        return await self._store.list(tenant)

    async def revoke(self, key_id: str) -> Revocation:
        return await self._store.revoke(key_id)

    async def authenticate(self, secret: str) -> Principal | None:
        return await self._store.authenticate(secret)
