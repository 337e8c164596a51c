"""Settings of the HTTP/GraphQL service (env prefix ``RECMEM_API_``)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.vocabulary import DEFAULT_MAX_BODY_BYTES

# What one remember needs beside its text: the document, the other fields and the metadata map.
BODY_ROOM = 16 * 1024


class BodyLimitError(ValueError):
    """RECMEM_API_MAX_BODY_BYTES leaves no room for a text RECMEM_MAX_TEXT_BYTES accepts."""


def body_room_for(max_text_bytes: int) -> int:
    """The smallest body limit a text of `max_text_bytes` is sure to be sent under: twice it (JSON
    writes a quote, a backslash or a line break in two bytes) and BODY_ROOM
    (docs/configuration.md#the-body-limit-and-the-text-limit)."""
    return 2 * max_text_bytes + BODY_ROOM


def require_body_room(max_body_bytes: int, max_text_bytes: int) -> None:
    """Refuses, at start, a body limit under which a text the service accepts could not be sent."""
    needed = body_room_for(max_text_bytes)
    if max_body_bytes < needed:
        raise BodyLimitError(
            f"RECMEM_API_MAX_BODY_BYTES is {max_body_bytes}, but a text of RECMEM_MAX_TEXT_BYTES "
            f"({max_text_bytes}) may need a request of {needed} bytes: raise RECMEM_API_MAX_BODY_BYTES "
            f"to at least {needed}, or lower RECMEM_MAX_TEXT_BYTES to at most "
            f"{max(0, (max_body_bytes - BODY_ROOM) // 2)}"
        )


class ApiSettings(BaseSettings):
    """Where the service listens and the limits it enforces on every request."""

    model_config = SettingsConfigDict(
        env_prefix="RECMEM_API_", env_file=".env", extra="ignore", allow_inf_nan=False
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)

    # Documents: depth of nested selections, lexer tokens, and aliases (alias floods multiply work).
    max_query_depth: int = Field(default=12, ge=2)
    max_tokens: int = Field(default=2000, ge=10)
    max_aliases: int = Field(default=15, ge=0)
    # Interactions per rememberBatch, items per page, and the raw request body size.
    max_batch: int = Field(default=1000, ge=1, le=10_000)
    max_page_size: int = Field(default=100, ge=1, le=1000)
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024)
    # A request that runs longer is cancelled (its transaction rolls back) and answers UNAVAILABLE.
    request_timeout_s: float = Field(default=120.0, gt=0)

    # Token bucket per API key: sustained requests per second and burst; 0 disables the limit.
    rate_limit_per_s: float = Field(default=50.0, ge=0)
    rate_limit_burst: int = Field(default=200, ge=1)
    # Seconds a successful key lookup is reused by a process, so a revoked key is refused by every
    # process within this time. 0 checks Neo4j on every request (one more round trip each).
    auth_cache_s: float = Field(default=5.0, ge=0)

    graphiql: bool = True
    # GET /metrics (Prometheus text format, no API key): counts and ages only, no user data.
    metrics: bool = True
    # A Server-Timing header on every /graphql response over HTTP: the time spent waiting for
    # Neo4j and the rest of the request in the service (durations only, no data).
    server_timing: bool = True
    # Browser origins allowed to open the websocket besides the service's own (e.g. a frontend).
    websocket_origins: list[str] = Field(default_factory=list)
    max_subscriptions_per_connection: int = Field(default=20, ge=1)
