"""API keys: random secrets shown once, stored as sha256 hashes on `ApiKey` nodes of a `Tenant`."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from graph.database import Database
from graph.errors import NotFound
from graph.models import new_id
from graph.records import decoder
from graph.validation import require_name
from graph.vocabulary import API_KEY_ID_PREFIX

# Recognisable in logs and secret scanners; the random part carries 256 bits.
KEY_PREFIX = "rmk_"
SHOWN_PREFIX_CHARS = 10


@dataclass(frozen=True)
class ApiKey:
    """A key as stored: never the secret, never its hash."""

    id: str
    tenant: str
    name: str | None
    prefix: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True)
class IssuedKey:
    """The one moment the secret exists outside the caller's hands."""

    key: ApiKey
    secret: str


@dataclass(frozen=True)
class Revocation:
    """A key after `revoke`; `already`: it was revoked before, and `key.revoked_at` is that time."""

    key: ApiKey
    already: bool


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key's id and the tenant every resolver is scoped to."""

    key_id: str
    tenant: str
    # The key's name, if it was given one: who a change to memory names as its maker.
    name: str | None = None

    @property
    def who(self) -> str:
        """The key's name and id as a change's run records them."""
        return f"{self.name} ({self.key_id})" if self.name else self.key_id


def hash_secret(secret: str) -> str:
    # A 256-bit random secret needs no salt or slow hash: there is nothing to brute-force.
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiKeyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(self, tenant: str, name: str | None = None) -> IssuedKey:
        require_name("tenant", tenant)
        if name is not None:
            require_name("key name", name)
        secret = KEY_PREFIX + secrets.token_urlsafe(32)
        rows = await self.db.write(
            "queries/api_keys/create",
            id=new_id(API_KEY_ID_PREFIX),
            tenant=tenant,
            hash=hash_secret(secret),
            prefix=secret[:SHOWN_PREFIX_CHARS],
            label=name,
        )
        return IssuedKey(_key_from(rows[0]["key"]), secret)

    async def list(self, tenant: str | None = None) -> list[ApiKey]:
        rows = await self.db.read("queries/api_keys/list", tenant=tenant)
        return [_key_from(r["key"]) for r in rows]

    async def revoke(self, key_id: str) -> Revocation:
        """Revoke a key; one revoked already keeps its first revocation time."""
        rows = await self.db.write("queries/api_keys/revoke", id=key_id)
        if not rows:
            raise NotFound(f"api key {key_id!r} not found")
        return Revocation(_key_from(rows[0]["key"]), bool(rows[0]["already"]))

    async def authenticate(self, secret: str) -> Principal | None:
        """The principal for a valid, unrevoked key; None for anything else."""
        if not secret.startswith(KEY_PREFIX) or len(secret) > 256:
            return None
        rows = await self.db.read("queries/api_keys/authenticate", hash=hash_secret(secret))
        if not rows:
            return None
        return Principal(key_id=rows[0]["id"], tenant=rows[0]["tenant"], name=rows[0]["name"])


_key_from = decoder(ApiKey)
