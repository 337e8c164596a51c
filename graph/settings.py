"""Connection and local-server settings for Neo4j (env prefix ``RECMEM_NEO4J_``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# The one place the Neo4j release is pinned. 2026.08 is the newest release on Maven Central that runs
# on this machine's Temurin 25 JDK; it has the Cypher 25 SEARCH clause, whose in-index filtering is
# what per-user vector search needs. docker/compose.yaml uses the same version.
NEO4J_VERSION = "2026.08.1"
# The Neo4j driver's Bolt schemes (its http ones are a preview that needs aiohttp, not installed).
URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def _default_data_root() -> Path:
    return Path.home() / ".local" / "share" / "recmem"


def _default_cache_root() -> Path:
    return Path.home() / ".cache" / "recmem"


class Neo4jSettings(BaseSettings):
    """Where the service finds Neo4j, and how `recmem neo4j start` runs a local one."""

    model_config = SettingsConfigDict(
        env_prefix="RECMEM_NEO4J_", env_file=".env", extra="ignore", allow_inf_nan=False
    )

    # Defaults to the local server on `port`.
    uri: str = ""
    user: str = "neo4j"
    # When unset and the URI points at the local server, the generated password file is read.
    password: SecretStr | None = None
    database: str = "neo4j"
    # Together these bound how long a request waits for an unreachable Neo4j before it answers
    # UNAVAILABLE (docs/failures.md#the-shape-of-an-outage): a write is retried for at most
    # `retry_seconds`, each attempt waiting at most `acquisition_timeout_s` for a connection
    # (which includes opening one, itself bounded by `connection_timeout_s`). Under a refused
    # connection (Neo4j down on a reachable host) an attempt fails at once, so a write answers
    # within `retry_seconds` and a bit.
    connection_timeout_s: float = Field(default=5.0, gt=0)
    acquisition_timeout_s: float = Field(default=6.0, gt=0)
    retry_seconds: float = Field(default=5.0, ge=0)
    # The bound on one attempt of a statement (acquiring a connection, running, committing), on
    # the client and as Neo4j's transaction timeout: a statement stuck on a frozen or recovering
    # server is abandoned after it, so a request waits on Neo4j at most retry_seconds plus this
    # (docs/failures.md).
    statement_timeout_s: float = Field(default=20.0, gt=0)
    # The bound on `/readyz`'s probe query: ready only when it answered within it.
    probe_timeout_s: float = Field(default=3.0, gt=0)

    # Local server (`recmem neo4j ...`).
    version: str = NEO4J_VERSION
    home: Path = _default_data_root() / "neo4j"
    jar_cache: Path = _default_cache_root() / "neo4j-jars"
    java_home: Path | None = None
    port: int = Field(default=7687, ge=1, le=65535)
    heap: str = "1g"
    pagecache: str = "256m"
    # Off only on explicit request, and only ever with Bolt bound to loopback.
    auth_enabled: bool = True
    # Class-data sharing of the jars' classes between starts (docs/operations.md#start-time);
    # off (`false` or `off`) starts the server reading every class from the jars.
    class_archive: bool = True

    @field_validator("uri")
    @classmethod
    def _driver_uri(cls, value: str) -> str:
        """Empty (the local server's), or a URI the driver opens: a Bolt scheme and a host."""
        if not value:
            return value
        parts = urlsplit(value)
        if parts.scheme not in URI_SCHEMES or not parts.hostname:
            # The value is not repeated: a URI may carry credentials.
            raise ValueError(f"expected scheme://host[:port] with a scheme of {', '.join(URI_SCHEMES)}")
        return value

    @field_validator("home")
    @classmethod
    def _folder(cls, value: Path) -> Path:
        if value.exists() and not value.is_dir():
            raise ValueError(f"{value} is not a folder")
        return value

    @model_validator(mode="after")
    def _default_uri(self) -> Neo4jSettings:
        if not self.uri:
            self.uri = f"bolt://127.0.0.1:{self.port}"
        # The driver requires it: acquiring a connection may mean opening one.
        self.acquisition_timeout_s = max(self.acquisition_timeout_s, self.connection_timeout_s)
        # An attempt includes acquiring its connection.
        self.statement_timeout_s = max(self.statement_timeout_s, self.acquisition_timeout_s)
        return self

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    def resolved_password(self) -> str | None:
        """The configured password, else the local server's generated one, else None."""
        if self.password is not None:
            return self.password.get_secret_value()
        if self.password_file.exists():
            return self.password_file.read_text(encoding="utf-8").strip()
        return None
