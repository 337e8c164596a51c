"""Typed exceptions: one class per `extensions.code` the service sends (api/errors.py), all under
MemoryClientError, plus the failures that happen below GraphQL (no connection, a proxy's 502)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class MemoryClientError(Exception):
    """Anything the client raises. `code` is the GraphQL error code when the service sent one."""

    code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        request_id: str | None = None,
        status: int | None = None,
        errors: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.request_id = request_id
        self.status = status
        # Every GraphQL error of the response, as sent (the first one chose the class).
        self.errors = tuple(errors)


class BadUserInput(MemoryClientError):
    """The request itself is at fault (invalid arguments, text too long, malformed document)."""

    code = "BAD_USER_INPUT"


class Unauthenticated(MemoryClientError):
    """No valid API key: missing, unknown or revoked."""

    code = "UNAUTHENTICATED"


class NotFound(MemoryClientError):
    """The user, fact or interaction does not exist within the key's tenant."""

    code = "NOT_FOUND"


class RateLimited(MemoryClientError):
    """Too many requests for this key; `retry_after` is the service's hint in seconds, if any."""

    code = "RATE_LIMITED"
    retry_after: float | None

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class Unavailable(MemoryClientError):
    """Temporarily unable to serve (Neo4j or the LLM down, a request timeout); retry later.

    `retry_after` is set when the response carried a Retry-After header. For a failed remember the
    service says whether it was written: `written` is False (not stored) or "unknown" (the store
    went away during the commit), and `source_refs` are the keys to resend it with: a resend with
    them stores each interaction at most once (None and () when the service did not say)."""

    code: str | None = "UNAVAILABLE"
    retry_after: float | None
    written: bool | str | None
    source_refs: tuple[str, ...]

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        written: bool | str | None = None,
        source_refs: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after
        self.written = written
        self.source_refs = tuple(source_refs)


class ConnectionFailed(Unavailable):
    """No response: the connection could not be made, broke, or timed out. Once the request was
    `sent`, a write may or may not have been committed; only a write with a source_ref is safe to
    send again."""

    code = None

    def __init__(self, message: str, *, sent: bool, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.sent = sent


class InternalError(MemoryClientError):
    """The service failed unexpectedly; its log holds the traceback under `request_id`."""

    code = "INTERNAL"


class ProtocolError(MemoryClientError):
    """A response the client cannot read: not GraphQL (e.g. a proxy's page), an unknown shape, or
    an HTTP status no GraphQL error explains."""


BY_CODE: dict[str, type[MemoryClientError]] = {
    cls.code: cls
    for cls in (BadUserInput, Unauthenticated, NotFound, RateLimited, Unavailable, InternalError)
    if cls.code is not None
}

# For responses without a GraphQL error body (a gateway in front of the service, say).
BY_STATUS: dict[int, type[MemoryClientError]] = {
    400: BadUserInput,
    401: Unauthenticated,
    403: Unauthenticated,
    429: RateLimited,
    500: InternalError,
    502: Unavailable,
    503: Unavailable,
    504: Unavailable,
}
