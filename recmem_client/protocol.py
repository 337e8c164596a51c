"""GraphQL over HTTP without I/O: request headers, reading a response into data or a typed error,
and the retry policy. The async and sync clients differ only in how they send and sleep."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from recmem_client.errors import (
    BY_CODE,
    BY_STATUS,
    ConnectionFailed,
    MemoryClientError,
    ProtocolError,
    RateLimited,
    Unavailable,
)
from recmem_client.operations import Operation
from recmem_client.parsers import Obj

log = logging.getLogger("recmem_client")

DEFAULT_BASE_URL = "http://127.0.0.1:8080"  # `recmem serve`'s default (api/settings.py)
GRAPHQL_PATH = "/graphql"
EXPORT_PATH = "/export"
# A little longer than the service's own request timeout (120 s): a slow request then ends with
# the service's typed UNAVAILABLE (its transaction rolled back) rather than a client-side cut.
DEFAULT_TIMEOUT = httpx.Timeout(125.0, connect=10.0)
# Opting in to GraphQL over HTTP's media type makes request errors come with 4xx statuses.
ACCEPT = "application/graphql-response+json, application/json;q=0.9"
USER_AGENT = "recmem-client/0.1"


def headers(api_key: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    if not api_key or not api_key.strip():
        raise ValueError("api_key must not be empty")
    return {
        "authorization": f"Bearer {api_key.strip()}",
        "accept": ACCEPT,
        "user-agent": USER_AGENT,
        **(extra or {}),
    }


def endpoint(base_url: str) -> str:
    return base_url.rstrip("/") + GRAPHQL_PATH


# -- responses ---------------------------------------------------------------------------------


def decode(operation: Operation[Any], response: httpx.Response) -> Obj:
    """The `data` of a successful response; raises the typed error otherwise."""
    body = _json(response)
    if body is None:
        raise _http_error(response)
    errors = body.get("errors")
    data = body.get("data")
    kind = operation.kind
    if errors:
        if kind.mutation and isinstance(data, Mapping) and data.get(kind.field) is not None:
            # The write committed (a mutation field answers data only then); what failed is a
            # nested read such as the stored interaction. Raising would invite a duplicate.
            log.warning("%s committed, with errors in nested fields: %s", kind.name, errors)
            return data
        raise graphql_error(errors, response)
    if not isinstance(data, Mapping) or response.status_code >= 400:
        raise _http_error(response)
    return data


def export_url(base_url: str, user_id: str) -> tuple[str, dict[str, str]]:
    """The download of a user's memory (docs/export.md): its URL and query parameters."""
    return base_url.rstrip("/") + EXPORT_PATH, {"user": user_id}


def decode_export(response: httpx.Response) -> list[Obj]:
    """The lines of a successful download (the header first); raises the typed error otherwise."""
    if response.status_code != 200:
        body = _json(response)
        if body is not None and body.get("errors"):
            raise graphql_error(body["errors"], response)
        raise _http_error(response)
    try:
        lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
    except ValueError as error:
        raise _build(ProtocolError, f"the export is not JSON Lines: {error}", response) from error
    if not lines or not all(isinstance(line, Mapping) for line in lines):
        raise _build(ProtocolError, "the export holds no header line", response)
    return lines


def export_failed(error: httpx.TransportError) -> ConnectionFailed:
    return ConnectionFailed(f"export: no response from the memory service ({error!r})", sent=True)


def _json(response: httpx.Response) -> Mapping[str, Any] | None:
    try:
        body = json.loads(response.content)
    except ValueError:  # not JSON (or not UTF-8)
        return None
    return body if isinstance(body, Mapping) else None


def graphql_error(errors: object, response: httpx.Response) -> MemoryClientError:
    """The exception for a GraphQL error list: its class from the first error's code."""
    listed: Sequence[Mapping[str, Any]] = (
        [e for e in errors if isinstance(e, Mapping)] if isinstance(errors, list) else []
    )
    if not listed:
        return ProtocolError(f"unexpected response: errors is {errors!r}", status=response.status_code)
    first = listed[0]
    extensions = first.get("extensions")
    extensions = extensions if isinstance(extensions, Mapping) else {}
    code = extensions.get("code")
    code = code if isinstance(code, str) else None
    cls = BY_CODE.get(code or "") or BY_STATUS.get(response.status_code) or MemoryClientError
    return _build(
        cls,
        str(first.get("message") or "GraphQL error"),
        response,
        code=code,
        request_id=extensions.get("requestId"),
        errors=listed,
    )


def _http_error(response: httpx.Response) -> MemoryClientError:
    """A response that is not a GraphQL result: classed by its status (e.g. a proxy's 502)."""
    snippet = response.text[:200].strip()
    cls = BY_STATUS.get(response.status_code, ProtocolError)
    message = f"HTTP {response.status_code} from {response.request.url}: not a GraphQL response"
    return _build(cls, f"{message}: {snippet}" if snippet else message, response)


def _build(
    cls: type[MemoryClientError],
    message: str,
    response: httpx.Response,
    *,
    code: str | None = None,
    request_id: object = None,
    errors: Sequence[Mapping[str, Any]] = (),
) -> MemoryClientError:
    common: dict[str, Any] = {
        "code": code,
        "request_id": request_id if isinstance(request_id, str) else response.headers.get("x-request-id"),
        "status": response.status_code,
        "errors": errors,
    }
    hint = retry_after(response.headers.get("retry-after"))
    if issubclass(cls, Unavailable):
        return cls(message, retry_after=hint, **_write_outcome(errors), **common)
    if issubclass(cls, RateLimited):
        return cls(message, retry_after=hint, **common)
    return cls(message, **common)


def _write_outcome(errors: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`written` and `sourceRefs` of a failed remember (api/errors.py), from its first error."""
    extensions = errors[0].get("extensions") if errors else None
    if not isinstance(extensions, Mapping):
        return {}
    written = extensions.get("written")
    refs = extensions.get("sourceRefs")
    return {
        "written": written if isinstance(written, bool | str) else None,
        "source_refs": [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else (),
    }


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header: delay-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


# No connection was made (or none was free): the request never left this process.
_UNSENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def connection_failed(operation: Operation[Any], error: httpx.TransportError) -> ConnectionFailed:
    return ConnectionFailed(
        f"{operation.kind.name}: no response from the memory service ({error!r})",
        sent=not isinstance(error, _UNSENT),
    )


def never_ran(error: MemoryClientError) -> bool:
    """The service did not execute the request: rejected by the rate limit before parsing, or
    never sent. Then any operation is safe to send again."""
    return isinstance(error, RateLimited) or (isinstance(error, ConnectionFailed) and not error.sent)


# -- retries -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter, for operations that are safe to repeat.

    `attempts` counts the first try; the sleeps between tries are at most `max_delay_s` each, so a
    call gives up after at most `attempts` timeouts plus `(attempts - 1) * max_delay_s`.
    """

    attempts: int = 4
    initial_delay_s: float = 0.25
    max_delay_s: float = 8.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.initial_delay_s < 0 or self.max_delay_s < self.initial_delay_s:
            raise ValueError("need attempts >= 1 and 0 <= initial_delay_s <= max_delay_s")

    def delay(self, operation: Operation[Any], attempt: int, error: MemoryClientError) -> float | None:
        """Seconds to wait before trying again after failed `attempt` (1-based); None: give up."""
        if attempt >= self.attempts or not isinstance(error, Unavailable | RateLimited):
            return None  # bad input, auth, not found, internal: the same request fails the same way
        if not operation.kind.retryable and not never_ran(error):
            return None
        backoff = min(self.max_delay_s, self.initial_delay_s * 2.0 ** (attempt - 1))
        # Jitter spreads out clients that failed together (one restart, one rate-limit window).
        backoff *= random.uniform(0.5, 1.0)  # noqa: S311 - timing, not security
        hint = error.retry_after
        if hint is None:
            return backoff
        if hint > self.max_delay_s:
            return None  # the service asks for more patience than this policy has: the caller decides
        return max(hint, backoff)


NO_RETRY = RetryPolicy(attempts=1)
